"""The ERS page's rows written in Python (api/web/ers_cells.py) say exactly what its Jinja macros said: the
same bytes for any line, percentage box, source and event, hostile text escaped the same way. ``MACROS`` and
``ROW`` are the template's text before the change, kept here as the reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings, strategies as st

from api.routes.web import templates
from api.web import ers_cells

MACROS = '{% macro amount(cell) -%}\n{%- if cell.unit == "percent" %}{{ cell.amount }} %\n{%- elif cell.unit == "ticks" %}{{ cell.amount }} ducats{% if cell.ticks is not none %} ({{ cell.ticks }} ticks){% endif %}\n{%- elif cell.unit == "modifier" %}{{ "%+d"|format(cell.amount) }}\n{%- else %}{{ cell.amount }}{% endif -%}\n{%- endmacro %}\n{% macro source_link(s) -%}\n{%- if "[t-" in s %}{% set code = s.split("[")[0] %}{% set back = s.split("[t-")[1].rstrip("]")|int %}\n{%- if v.turn - back >= 1 %}<a href="/ui/campaigns/{{ c.slug }}/ers/{{ v.country }}/{{ v.turn - back }}#cell-{{ code }}">{{ code }} of turn {{ v.turn - back }}</a>{% else %}{{ code }} {{ back }} turn{{ "s" if back > 1 }} back (none: before turn 1){% endif %}\n{%- else %}<a href="#cell-{{ s }}">{{ s|line_code }}</a>{% endif -%}\n{%- endmacro %}\n{% macro how(cell) -%}\n{%- if cell.kind == "derived" and cell.events and not cell.sources %}entered (no earlier sheet to carry it from)\n{%- elif cell.kind == "derived" %}worked out{% if cell.how %} as <span class="formula">{{ cell.how }}</span>{% endif %}{% if cell.sources %} from {% for s in cell.sources %}{{ source_link(s) }}{% if not loop.last %}, {% endif %}{% endfor %}{% endif %}\n{%- elif cell.defaulted %}nothing entered: {% if cell.sources %}taken from {% for s in cell.sources %}{{ source_link(s) }}{% if not loop.last %}, {% endif %}{% endfor %}{% else %}0{% endif %}\n{%- else %}entered{% endif -%}\n{%- endmacro %}\n{% macro events(cell) -%}\n{%- for p in cell.events %}{% set e = v.events.get(p) %}\n<div class="ev" data-position="{{ p }}">\n{%- if e and e.turn %}<a href="/ui/campaigns/{{ c.slug }}/turns/{{ e.turn }}?position={{ p }}">#{{ p }}</a>{% else %}<a href="/ui/campaigns/{{ c.slug }}">#{{ p }}</a>{% endif %}\n{%- if not e %} <span class="dim">(not shown)</span>\n{%- elif e.what == "entry" %} {{ "%+d"|format(e.amount) }} · {{ e.reason }} <span class="dim">({{ e.actor }}{% if e.time %}, {{ e.time }}{% endif %})</span>\n{%- elif e.what == "correction" %} <strong>correction of #{{ e.corrects }}</strong>: {% if e.replacement %}{% for k, val in e.replacement.items() %}{{ k }} {{ val }}{% if not loop.last %}, {% endif %}{% endfor %}{% else %}struck out{% endif %} · {{ e.reason }} <span class="dim">({{ e.actor }})</span>\n{%- else %} {{ e.reason }}{% endif %}</div>\n{%- endfor -%}\n{%- endmacro %}\n'
ROW = '\n<tr id="cell-{{ row.code }}" class="{{ row.kind }}{% if row.defaulted %} defaulted{% endif %}" data-amount="{{ row.amount }}" data-kind="{{ row.kind }}">\n<td class="rule">{{ row.code }}</td>\n<td>{{ row.name }}{% if row.alert %} <span class="error">{{ row.alert }}</span>{% endif %}{% if row.at_close and not row.at_close.matches %} <span class="error">(was {{ row.at_close.value }} when the {{ row.at_close.phase }} phase closed)</span>{% endif %}</td>\n<td class="num">{% if row.pct %}<span id="cell-{{ row.pct.code }}" class="pct {{ row.pct.kind }}" data-amount="{{ row.pct.amount }}" data-kind="{{ row.pct.kind }}" title="{{ row.pct.name }}">{{ amount(row.pct) }}</span> {% endif %}<strong>{{ amount(row) }}</strong></td>\n<td>{{ how(row) }}{% if row.pct %}<br><span class="dim">{{ row.pct.code|line_code }}: {{ how(row.pct) }}</span>{% endif %}</td>\n<td>{{ events(row) }}{% if row.pct %}{{ events(row.pct) }}{% endif %}</td>\n</tr>\n'
# The macros' own line ends were outside every block of the page, so never written: left out here too.
REFERENCE = templates.env.from_string(MACROS.replace("endmacro %}\n", "endmacro %}") + "{% for row in rows %}" + ROW
                                      + "{% endfor %}")


@dataclass
class View:  # the fields of api.web.ers_view.ErsView the cells read
    turn: int
    country: str
    events: dict[int, dict[str, Any]] = field(default_factory=dict)


def reference(line: dict[str, Any], v: View, slug: str) -> str:
    return REFERENCE.render(rows=[line], v=v, c={"slug": slug})


HOSTILE = st.text(alphabet=st.sampled_from(list("ab <>&\"'%#[]-_t1é")), max_size=12)
codes = st.sampled_from(["A9", "A15", "A15_pct", "B29", "C3"]) | HOSTILE
sources = st.lists(st.sampled_from(["A9", "A14[t-1]", "B3[t-2]", "A15_pct", "A9[t-x]", "A33[t-12]"]) | HOSTILE,
                   max_size=3)
cells = st.fixed_dictionaries(
    {"code": codes, "kind": st.sampled_from(["derived", "entered", "input"]), "amount": st.integers(-999, 999),
     "unit": st.sampled_from(["percent", "ticks", "modifier", "ducats"]) | st.none()},
    optional={"ticks": st.integers(0, 99) | st.none(), "defaulted": st.booleans(), "how": HOSTILE | st.none(),
              "sources": sources, "events": st.lists(st.integers(1, 8), max_size=3), "name": HOSTILE,
              "alert": HOSTILE | st.none(),
              "at_close": st.none() | st.fixed_dictionaries({"matches": st.booleans(), "value": st.integers(-9, 9),
                                                             "phase": HOSTILE})})
event = st.one_of(
    st.fixed_dictionaries({"what": st.just("entry"), "amount": st.integers(-99, 99), "reason": HOSTILE,
                           "actor": HOSTILE | st.none(), "time": st.sampled_from(["", "1492-05-01 12:00:00"]),
                           "turn": st.integers(0, 3) | st.none()}),
    st.fixed_dictionaries({"what": st.just("correction"), "corrects": st.integers(1, 9), "reason": HOSTILE,
                           "actor": HOSTILE, "turn": st.integers(1, 3),
                           "replacement": st.none() | st.dictionaries(HOSTILE, st.integers() | HOSTILE, max_size=2)}),
    st.fixed_dictionaries({"what": st.sampled_from(["scenario", "other"]), "reason": HOSTILE, "turn": st.none()}))


@settings(max_examples=300, deadline=None)
@given(cells, st.none() | cells, st.dictionaries(st.integers(1, 8), event, max_size=6), st.integers(1, 4),
       st.sampled_from(["ENG", "FRA"]), st.sampled_from(["europa-1492", "a<b&\"c"]))
def test_a_sheets_row_is_the_same_html_as_the_macros_wrote(line, pct, events, turn, country, slug):
    line = {**line, "pct": pct}
    v = View(turn, country, events)
    assert str(ers_cells.row(line, v, slug)) == reference(line, v, slug)


def test_a_typed_reason_is_escaped_in_the_events_behind_a_cell():
    v = View(2, "ENG", {5: {"what": "entry", "amount": 7, "reason": "<script>alert(1)</script>", "actor": "gm",
                            "time": "", "turn": 2}})
    line = {"code": "A9", "kind": "input", "amount": 7, "unit": None, "events": [5, 6], "name": "Loot", "pct": None}
    html = str(ers_cells.row(line, v, "europa-1492"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert '<a href="/ui/campaigns/europa-1492/turns/2?position=5">#5</a> +7' in html
    assert '#6</a> <span class="dim">(not shown)</span>' in html  # a position the caller may not see
