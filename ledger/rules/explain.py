"""A ruling as readable text: one line per modifier with its rule, then dice, table and outcome."""

from __future__ import annotations

from typing import Any

from ledger.rules.core import Die, Modifier, Ruling, Step, TableCell


def _signed(v: int) -> str:
    return f"+{v}" if v >= 0 else f"−{-v}"


def _die(d: Die) -> str:
    kind = f"{d.count}d{d.sides}" if d.count > 1 else f"d{d.sides}"
    where = " (physical)" if d.manual else (f" #{d.index}" if d.index is not None else "")
    return f"{kind} {list(d.values) if d.count > 1 else d.values[0]} — {d.purpose}{where}"


def _mods(mods: tuple[Modifier, ...], indent: str) -> list[str]:
    return [f"{indent}{_signed(m.value):>4}  {m.reason}  [{m.rule}{' ' + m.section if m.section else ''}]" for m in mods]


def _cell(c: TableCell | None) -> str | None:
    if c is None:
        return None
    col = f", column {c.column}" if c.column else ""
    return f"table {c.table}, row {c.row}{col} → {c.value}"


def plain(v: Any) -> str:
    """A value as a person reads it: no JSON, no Python repr (None → —, booleans → yes/no, 7/3 → 2⅓).

    The one formatter of values; ``projections.words`` builds on it (the ledger cannot import projections).
    """
    if v is None or v == "" or v == [] or v == {}:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str) and "/" in v and v.lstrip("-").replace("/", "").isdigit():
        return _fraction(v)
    if isinstance(v, (list, tuple)):
        return ", ".join(plain(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{label(k)} {plain(x)}" for k, x in v.items())
    return str(v)


def label(key: Any) -> str:
    return str(key).replace("_", " ")


def _fraction(text: str) -> str:
    from fractions import Fraction

    f = Fraction(text)
    whole, rest = divmod(abs(f), 1)
    glyph = {Fraction(1, 3): "⅓", Fraction(2, 3): "⅔", Fraction(1, 2): "½"}.get(rest)
    if glyph is None:
        return text
    return ("−" if f < 0 else "") + (str(int(whole)) if whole else "") + glyph


def _outcome(o: dict[str, Any]) -> str:
    return ", ".join(f"{label(k)}: {plain(v)}" for k, v in o.items())


def _step(s: Step) -> list[str]:
    lines = [f"  {s.name}" + (f" ({s.side})" if s.side and s.side not in s.name else "")]
    lines += [f"    die {_die(d)}" for d in s.dice]
    lines += _mods(s.modifiers, "    ")
    if s.total is not None:
        lines.append(f"    total {s.total}")
    if cell := _cell(s.table_cell):
        lines.append(f"    {cell}")
    if s.outcome:
        lines.append(f"    → {_outcome(s.outcome)}")
    return lines


def explain(r: Ruling) -> str:
    lines = [f"{r.ruleset}:{r.procedure} {r.title} (ruleset {r.ruleset} {r.ruleset_version})"]
    if r.summary:
        lines.append(r.summary)
    lines += [f"die {_die(d)}" for d in r.dice]
    if r.modifiers:
        lines.append("modifiers:")
        lines += _mods(r.modifiers, "  ")
    if r.total is not None:
        dice_sum = sum(d.total for d in r.dice)
        parts = " ".join([str(dice_sum)] + [_signed(m.value) for m in r.modifiers])
        lines.append(f"total {parts} = {r.total}")
    if cell := _cell(r.table_cell):
        lines.append(cell)
    if r.steps:
        lines.append("steps:")
        for s in r.steps:
            lines += _step(s)
    if r.outcome:
        lines.append(f"outcome: {_outcome(r.outcome)}")
    for e in r.effects:
        bits = [label(e.kind)] + [f"{k} {plain(str(v))}" for k, v in (("country", e.country), ("target", e.target),
                                  ("amount", e.amount), ("line", e.ers_line), ("marker", e.marker)) if v is not None]
        lines.append("effect: " + " ".join(bits))
    if r.gm_supplied:
        lines.append("supplied by the game master: " + ", ".join(r.gm_supplied))
    return "\n".join(lines)
