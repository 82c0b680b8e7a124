"""The ERS page's cells as HTML: a cell's amount, how it was worked out, and the events behind it.

These were Jinja macros of ``ers.html``, called four or five times for each of a sheet's ~80 rows: the macro
calls and their escaping were half of the page's render, and the page is a tenth of what the service serves
(ops/load.py, py-spy of a worker). Here they are plain functions writing the very same HTML, byte for byte
(tests/unit/test_ers_cells.py renders both and compares); every value a person typed or the store holds is
escaped, as the template's autoescape did.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from api.web.html import esc
from ledger.i18n import _, ngettext
from ledger.terms import term
from projections import words

_MISSING = object()


def _text(d: dict[str, Any], key: str) -> str:
    """``{{ d.key }}`` as Jinja writes it: escaped, "None" for a null, nothing for a key the dict lacks."""
    value = d.get(key, _MISSING)
    return "" if value is _MISSING else esc(value)


def _said(d: dict[str, Any], key: str) -> str:
    """``_text`` of a ruleset's own words (an ERS line's name, its warning) in the reader's language."""
    value = d.get(key, _MISSING)
    return "" if value is _MISSING else esc(_(value) if isinstance(value, str) and value else value)


def amount(cell: dict[str, Any]) -> Markup:
    unit, value = cell.get("unit"), _text(cell, "amount")
    if unit == "percent":
        return Markup(f"{value} %")
    if unit == "ticks":
        ticks = cell.get("ticks", _MISSING)  # a missing key is "not none" to Jinja, and writes nothing
        return Markup(esc(_("{value} ducats").format(value=cell.get("amount", ""))) + (
            "" if ticks is None else " " + esc(_("({ticks} ticks)").format(ticks="" if ticks is _MISSING else ticks))))
    if unit == "modifier":
        return Markup(esc("%+d" % cell["amount"]))
    return Markup(value)


def _int(text: str) -> int:
    """Jinja's ``|int``: the number, or 0 for text that is not one."""
    try:
        return int(text)
    except ValueError:
        try:
            return int(float(text))
        except ValueError:
            return 0


def _source_link(s: str, turn: int, country: str, slug: str) -> str:
    if "[t-" in s:
        code, back = s.split("[")[0], _int(s.split("[t-")[1].rstrip("]"))
        if turn - back >= 1:
            return (f'<a href="/ui/campaigns/{esc(slug)}/ers/{esc(country)}/{turn - back}#cell-{esc(code)}">'
                    + esc(_("{code} of turn {turn}").format(code=code, turn=turn - back)) + "</a>")
        return esc(ngettext("{code} {n} turn back (none: before turn 1)", "{code} {n} turns back (none: before turn 1)",
                            back).format(code=code, n=back))
    return f'<a href="#cell-{esc(s)}">{esc(words.line_code(s))}</a>'


def how(cell: dict[str, Any], v: Any, slug: str) -> Markup:
    sources = cell.get("sources")
    links = lambda: ", ".join(_source_link(s, v.turn, v.country, slug) for s in sources)  # noqa: E731
    if cell.get("kind") == "derived" and cell.get("events") and not sources:
        return Markup(esc(_("entered (no earlier sheet to carry it from)")))
    if cell.get("kind") == "derived":
        out = esc(_("worked out"))
        if cell.get("how"):
            out += " " + esc(_("as")) + f' <span class="formula">{_text(cell, "how")}</span>'
        if sources:
            out += " " + esc(_("from")) + " " + links()
        return Markup(out)
    if cell.get("defaulted"):
        return Markup(esc(_("nothing entered:")) + " " + (esc(_("taken from")) + " " + links() if sources else "0"))
    return Markup(esc(_("entered")))


def events(cell: dict[str, Any], v: Any, slug: str) -> Markup:
    out = []
    place = esc(slug)
    for p in cell.get("events") or ():
        e = v.events.get(p)
        at = esc(p)
        out.append(f'\n<div class="ev" data-position="{at}">')
        if e and e.get("turn"):
            out.append(f'<a href="/ui/campaigns/{place}/turns/{_text(e, "turn")}?position={at}">#{at}</a>')
        else:
            out.append(f'<a href="/ui/campaigns/{place}">#{at}</a>')
        if not e:
            out.append(' <span class="dim">' + esc(_("(not shown)")) + "</span>")
        elif e.get("what") == "entry":
            when = f", {_text(e, 'time')}" if e.get("time") else ""
            out.append(f' {esc("%+d" % e["amount"])} · {_text(e, "reason")} '
                       f'<span class="dim">({_text(e, "actor")}{when})</span>')
        elif e.get("what") == "correction":
            replacement = e.get("replacement")
            changed = (", ".join(f"{esc(k)} {esc(val)}" for k, val in replacement.items()) if replacement
                       else esc(_("struck out")))
            correcting = _("correction of #{position}").format(position=e.get("corrects", ""))
            out.append(f' <strong>{esc(correcting)}</strong>: {changed} · {_text(e, "reason")} '
                       f'<span class="dim">({_text(e, "actor")})</span>')
        else:
            out.append(f" {_text(e, 'reason')}")
        out.append("</div>")
    return Markup("".join(out))


def row(line: dict[str, Any], v: Any, slug: str) -> Markup:
    """One line of a sheet as a table row, its percentage box (``pct``) beside its amount, as on paper."""
    pct = line.get("pct")
    kind, code = _text(line, "kind"), _text(line, "code")
    out = [f'\n<tr id="cell-{code}" class="{kind}{" defaulted" if line.get("defaulted") else ""}" '
           f'data-amount="{_text(line, "amount")}" data-kind="{kind}">\n<td class="rule">{code}</td>\n'
           f'<td>{_said(line, "name")}']
    if line.get("alert"):
        out.append(f' <span class="error">{_said(line, "alert")}</span>')
    at_close = line.get("at_close")
    if at_close and not at_close.get("matches"):
        out.append(' <span class="error">' + esc(_("(was {value} when the {phase} phase closed)").format(
            value=at_close.get("value", ""), phase=term(at_close.get("phase", "")))) + "</span>")
    out.append('</td>\n<td class="num">')
    if pct:
        out.append(f'<span id="cell-{_text(pct, "code")}" class="pct {_text(pct, "kind")}" '
                   f'data-amount="{_text(pct, "amount")}" data-kind="{_text(pct, "kind")}" '
                   f'title="{_said(pct, "name")}">{amount(pct)}</span> ')
    out.append(f"<strong>{amount(line)}</strong></td>\n<td>{how(line, v, slug)}")
    if pct:
        out.append(f'<br><span class="dim">{esc(words.line_code(pct["code"]))}: {how(pct, v, slug)}</span>')
    out.append(f"</td>\n<td>{events(line, v, slug)}{events(pct, v, slug) if pct else ''}</td>\n</tr>\n")
    return Markup("".join(out))
