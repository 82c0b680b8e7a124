"""The turn page's steps, provinces and stacks written in Python (api/web/turn_rows.py) are the very bytes the
template's loops wrote: each rendered both ways, over hypothesis' maps, names to escape and missing keys."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from api.routes.web import templates
from api.web import turn_rows

# The loops as turn_main.html had them, verbatim.
STEPS = """{% for s in v.steps %}
<li{% if loop.index0 == v.index %} class="current" aria-current="step"{% endif %}><a href="{{ base }}?step={{ loop.index }}"><span class="pos">{{ s.position }}</span> {{ s.summary }}</a></li>
{% endfor %}"""
PROVINCES = """{% set changed = v.changes|map(attribute="path")|join(" ") %}{% for name, p in v.map.provinces.items() %}
  <tr{% if ("map.provinces." ~ name ~ ".") in changed %} class="changed"{% endif %}><td><a href="/ui/campaigns/{{ c.slug }}/places/{{ name|urlencode }}?at={{ v.event.position }}">{{ name }}</a>{% if p.kind == "sea" %} <span class="dim">(sea)</span>{% endif %}</td>
    <td>{{ p.owner or "—" }}</td><td>{{ p.controller or "—" }}</td><td>{{ p.fortress if p.fortress is not none else "—" }}</td><td>{{ (p.markers or [])|join(", ") or "—" }}</td>
    <td>{% for sid, st in v.map.stacks.items() if st.location == name %}<span class="chip c-{{ st.country }}">{{ sid }}</span> {% endfor %}</td></tr>
  {% endfor %}"""
STACKS = """{% set changed = v.changes|map(attribute="path")|join(" ") %}{% for sid, st in v.map.stacks.items() %}
  <tr{% if ("map.stacks." ~ sid ~ ".") in changed %} class="changed"{% endif %}><td>{{ sid }}</td><td>{{ st.country }}</td><td>{{ st.location }}</td>
    <td>{% for u, k in st.units.items() %}{{ k }} {{ u }}{% if not loop.last %}, {% endif %}{% endfor %}</td><td>{{ st.leaders|join(", ") }}</td></tr>
  {% endfor %}"""

names = st.sampled_from(["Wessex", "Île-de-France", "A&B", "<Kent>", 'Sea "North"', "Manche", "Cork's"])
texts = st.text(max_size=6) | names
maybe = lambda s: st.none() | s  # noqa: E731

# Any of a province's keys may be missing (an undefined value to the template), or null.
province = st.fixed_dictionaries({}, optional={
    "owner": maybe(texts), "controller": maybe(texts | st.just("")), "fortress": maybe(st.integers(0, 3)),
    "markers": maybe(st.lists(texts, max_size=3)), "kind": st.sampled_from(["sea", "land"])})
stack = st.fixed_dictionaries(
    {"units": st.dictionaries(texts, st.integers(0, 9), max_size=3)},
    optional={"country": maybe(texts), "location": names, "leaders": st.lists(texts, max_size=2)})
changes = st.lists(st.builds(lambda kind, name, tail: {"path": f"map.{kind}.{name}{tail}"},
                             st.sampled_from(["provinces", "stacks"]), names | st.text(max_size=4),
                             st.sampled_from([".owner", "", "."])), max_size=4)


def render(source: str, **context) -> str:
    return templates.env.from_string(source).render(**context)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(names, province, max_size=5), st.dictionaries(texts, stack, max_size=4), changes,
       st.integers(1, 10**6), texts)
def test_the_maps_rows_are_the_templates_bytes(provinces, stacks, changed, position, slug):
    v = SimpleNamespace(map={"provinces": provinces, "stacks": stacks}, changes=changed,
                        event={"position": position})
    c = SimpleNamespace(slug=slug)
    assert str(turn_rows.provinces(v, slug)) == render(PROVINCES, v=v, c=c)
    assert str(turn_rows.stacks(v)) == render(STACKS, v=v)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fixed_dictionaries({"position": st.integers(1, 10**6), "summary": texts}), min_size=1,
                max_size=6), st.integers(0, 5), texts)
def test_the_steps_are_the_templates_bytes(steps, index, base):
    v = SimpleNamespace(steps=steps, index=min(index, len(steps) - 1))
    assert str(turn_rows.steps(v, base)) == render(STEPS, v=v, base=base)


def test_a_province_shows_the_stacks_there_and_a_changed_one_is_marked():
    v = SimpleNamespace(map={"provinces": {"Wessex": {"owner": "ENG"}, "Kent": {}},
                             "stacks": {"ENG-1": {"country": "ENG", "location": "Wessex", "units": {"INF": 2}}}},
                        changes=[{"path": "map.provinces.Wessex.owner"}], event={"position": 7})
    html = str(turn_rows.provinces(v, "c1"))
    assert '<tr class="changed"><td><a href="/ui/campaigns/c1/places/Wessex?at=7">Wessex</a>' in html
    assert '<span class="chip c-ENG">ENG-1</span>' in html
    assert "<tr><td><a href=\"/ui/campaigns/c1/places/Kent?at=7\">Kent</a></td>\n    <td>—</td>" in html
