"""The turn page's long lists as HTML: its steps, the map's provinces and its stacks.

These were loops of ``turn_main.html``: one ``<li>`` per step of the turn and one row per province (each
scanning every stack for the ones there) and per stack, each cell an escape and an attribute read through
Jinja. They were most of the page's render, and the turn page is a fifth of what the service serves
(ops/load.py); here they are plain functions writing the very same HTML, byte for byte
(tests/unit/test_turn_rows.py renders both and compares). Every value the store holds is escaped, as the
template's autoescape did; a key a dict lacks writes what Jinja writes for an undefined value.
"""

from __future__ import annotations

from typing import Any

from jinja2.filters import do_urlencode
from markupsafe import Markup

from api.web.html import esc
from ledger.i18n import gettext
from ledger.terms import term

_MISSING = object()


def _text(value: Any) -> str:
    """``{{ value }}``: escaped, "None" for a null, nothing for an undefined (``_MISSING``) value."""
    return "" if value is _MISSING else esc(value)


def _or_dash(value: Any) -> str:
    """``{{ value or "—" }}``."""
    return "—" if value is _MISSING or not value else esc(value)


def steps(v: Any, base: str) -> Markup:
    """The turn's steps, the one shown marked: ``{% for s in v.steps %}`` of the timeline list."""
    href = esc(base)
    out = []
    for i, s in enumerate(v.steps):
        current = ' class="current" aria-current="step"' if i == v.index else ""
        out.append(f'\n<li{current}><a href="{href}?step={i + 1}"><span class="pos">{_text(s.get("position", _MISSING))}'
                   f'</span> {_text(s.get("summary", _MISSING))}</a></li>\n')
    return Markup("".join(out))


def provinces(v: Any, slug: Any) -> Markup:
    """The map's provinces, each with the stacks there, those this event changed marked."""
    doc, at = v.map, _text(v.event.get("position", _MISSING))
    changed = " ".join(str(c.get("path", "")) for c in v.changes)  # ``|map(attribute="path")|join(" ")``
    here: dict[Any, list[str]] = {}
    for sid, st in doc.get("stacks", {}).items():  # the stacks by place, in the stacks' order
        here.setdefault(st.get("location", _MISSING), []).append(
            f'<span class="chip c-{_text(st.get("country", _MISSING))}">{_text(sid)}</span> ')
    place = f"/ui/campaigns/{_text(slug)}/places/"
    out = []
    for name, p in doc.get("provinces", {}).items():
        mark = ' class="changed"' if f"map.provinces.{name}." in changed else ""
        sea = ' <span class="dim">' + esc(gettext("(sea)")) + "</span>" if p.get("kind", _MISSING) == "sea" else ""
        fortress = p.get("fortress", _MISSING)
        markers = p.get("markers", _MISSING)
        markers = ", ".join(str(term(m)) for m in markers) if markers is not _MISSING and markers else ""
        out.append(
            f'\n  <tr{mark}><td><a href="{place}{esc(do_urlencode(name))}?at={at}">{_text(name)}</a>{sea}</td>\n'
            f'    <td>{_or_dash(p.get("owner", _MISSING))}</td><td>{_or_dash(p.get("controller", _MISSING))}</td>'
            f'<td>{"—" if fortress is None else _text(fortress)}</td><td>{_or_dash(markers)}</td>\n'
            f'    <td>{"".join(here.get(name, ()))}</td></tr>\n  ')
    return Markup("".join(out))


def stacks(v: Any) -> Markup:
    """The map's stacks: where each is, its units and leaders, those this event changed marked."""
    changed = " ".join(str(c.get("path", "")) for c in v.changes)
    out = []
    for sid, st in v.map.get("stacks", {}).items():
        mark = ' class="changed"' if f"map.stacks.{sid}." in changed else ""
        units = ", ".join(f"{_text(k)} {_text(u)}" for u, k in st["units"].items())
        leaders = st.get("leaders", _MISSING)
        leaders = "" if leaders is _MISSING else ", ".join(map(str, leaders))
        out.append(f'\n  <tr{mark}><td>{_text(sid)}</td><td>{_text(st.get("country", _MISSING))}</td>'
                   f'<td>{_text(st.get("location", _MISSING))}</td>\n'
                   f'    <td>{units}</td><td>{esc(leaders)}</td></tr>\n  ')
    return Markup("".join(out))
