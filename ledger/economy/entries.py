"""What a ruling's effects write on the Economic Record Sheet (ERS).

A ruling's ``ducats``, ``ers_entry`` and ``ers_tick`` effects become treasury
entries appended with the ruling (``Ledger.record_ruling``). One convention
(DECISIONS.md "ERS effects"): an entry carries what the paper sheet carries on
that line — ducats on ducat lines, the percentage on the ``_pct`` sub-boxes,
the modifier on B39, the NUMBER OF TICKS on B40–B43. Derived lines are never
entered. Amounts must be whole: every rounding is the resolver's, where the
rule states it; a fractional amount is refused, never rounded here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ledger.i18n import _
from ledger.domain.errors import InvalidInput
from ledger.rules.eu.ers import SheetDefinition, ers_definition

RULE = "eu:ERS"
EFFECT_KINDS = ("ducats", "ers_entry", "ers_tick")
#: Lines whose entries replace one another (the latest stands) instead of adding up:
#: a percentage or a modifier is written in the box once, not accumulated.
SET_UNITS = frozenset({"percent", "modifier"})


def sheet_definition(ruleset: str) -> SheetDefinition | None:
    """The ERS of a ruleset, or None when the ruleset keeps no such sheet."""
    return ers_definition() if ruleset == "eu" else None


def check_entry_line(ruleset: str, line: str, field: str = "line", *, amount: int | None = None,
                     amount_field: str = "amount", take_back: bool = False) -> None:
    """Refuse a treasury entry on a line the sheet computes (or does not have), and a negative ``amount`` on
    an expense line (``expense = true`` in the ruleset's ers.toml): the one place an entry is checked, for
    entries typed by hand, implied by a ruling, proposed from the board or restated by a correction.

    ``take_back``: a ruling taking back campaign ticks it upgrades (``ers_tick``, ledger/rules/eu/campaigns.py):
    the rule's own correction of a tick, the one negative an expense line receives (DECISIONS.md "ERS
    expenses are positive")."""
    defn = sheet_definition(ruleset)
    if defn is None:
        return
    if line not in defn.codes:
        raise InvalidInput(f"ERS line {line!r} is not on the sheet", field=field, rule=RULE)
    d = defn.get(line)
    if d.kind == "derived" and not d.carry:
        raise InvalidInput(f"ERS line {line} ({d.name}) is computed by the sheet ({d.formula}); "
                           "enter the lines it is computed from", field=field, rule=RULE)
    if amount is not None and amount < 0 and d.expense and not take_back:
        raise InvalidInput(expense_sign_refusal(d.code, d.name, amount, d.unit), field=amount_field, rule=RULE)


def expense_sign_refusal(code: str, name: str, amount: int, unit: str = "ducats") -> str:
    what = "ticks" if unit == "ticks" else "ducats"
    return (f"ERS line {code} ({name}) is an expense: write what was spent as a positive number of {what}, "
            f"which the sheet subtracts; {amount} would add {-amount} to the treasury. To take back an "
            "expense entered too high, correct that entry")


def expense_words(ruleset: str) -> str:
    """The sign convention in words, naming the ruleset's expense lines (the entry form, the sheet, the API)."""
    lines = expense_lines(ruleset)
    if not lines:
        return ""
    return _("Expense lines ({lines}) take the expense as a positive number: the sheet subtracts it. A negative "
             "amount on an expense line is refused; to undo one, correct its entry.").format(lines=", ".join(lines))


def is_expense(ruleset: str, line: str) -> bool:
    defn = sheet_definition(ruleset)
    return defn is not None and line in defn.codes and defn.get(line).expense


def expense_lines(ruleset: str) -> tuple[str, ...]:
    """The ERS lines a ruleset marks as expenses, in sheet order (shown on the entry form and the sheet)."""
    defn = sheet_definition(ruleset)
    return tuple(d.code for d in defn.lines if d.expense) if defn is not None else ()


@dataclass(frozen=True)
class Entry:
    """A treasury entry implied by one effect of a ruling."""

    country: str
    line: str
    amount: int
    reason: str


def entries_from_ruling(
    ruling: dict[str, Any], *, procedure: str, ruleset: str, countries: tuple[str, ...]
) -> tuple[list[Entry], list[dict[str, Any]]]:
    """The treasury entries a recorded ruling implies, and the effects left unbooked.

    Unbooked: effects for a country outside the campaign (a minor keeps no ERS).
    Raises ``InvalidInput`` (rule eu:ERS) for an effect the sheet cannot carry:
    no country or line, a derived line, a fractional amount, ticks that do not
    match their ducats.
    """
    defn = sheet_definition(ruleset)
    title = ruling.get("title") or procedure
    entries: list[Entry] = []
    unbooked: list[dict[str, Any]] = []
    for n, effect in enumerate(ruling.get("effects") or []):
        kind = effect.get("kind")
        if kind not in EFFECT_KINDS:
            continue
        where = f"effects[{n}]"
        line, country = effect.get("ers_line"), effect.get("country")
        if not line:
            raise InvalidInput(f"{procedure}: a {kind} effect names no ERS line", field=where, rule=RULE)
        if not country:
            raise InvalidInput(f"{procedure}: a {kind} effect on {line} names no country", field=where, rule=RULE)
        amount = _whole(effect.get("amount"), procedure, line, where)
        detail = effect.get("detail") or {}
        if defn is not None:
            check_entry_line(ruleset, line, field=where, amount=amount, amount_field=where,
                             take_back=kind == "ers_tick")
            d = defn.get(line)
            if kind == "ers_tick" or d.ducats_per_tick:
                if kind != "ers_tick" or not d.ducats_per_tick:
                    raise InvalidInput(f"{procedure}: {line} counts campaign ticks; only an ers_tick effect "
                                       f"writes on it (and an ers_tick only on a ticks line)", field=where, rule=RULE)
                ticks = detail.get("ticks")
                if not isinstance(ticks, int) or isinstance(ticks, bool) or ticks * d.ducats_per_tick != amount:
                    raise InvalidInput(f"{procedure}: {amount} ducats on {line} are not whole ticks of "
                                       f"{d.ducats_per_tick} (detail.ticks {ticks!r})", field=where, rule=RULE)
                amount = ticks
        if country not in countries:
            unbooked.append({"effect": n, "country": country, "line": line, "amount": amount,
                             "reason": f"{country} is not a country of this campaign (no ERS)"})
            continue
        why = detail.get("reason") or detail.get("expense") or detail.get("campaign") or kind
        unit = "ticks" if kind == "ers_tick" else ("%" if line.endswith("_pct") else "")
        reason = f"{procedure} {title}: {why}" + (f" ({amount:+d} {unit})" if unit else "")
        entries.append(Entry(country=country, line=line, amount=amount, reason=reason[:500]))
    return entries, unbooked


def _whole(raw: Any, procedure: str, line: str, where: str) -> int:
    if raw is None:
        raise InvalidInput(f"{procedure}: an effect on {line} has no amount", field=where, rule=RULE)
    try:
        value = Fraction(raw) if not isinstance(raw, (int, Fraction)) else Fraction(raw)
    except (ValueError, TypeError, ZeroDivisionError):
        raise InvalidInput(f"{procedure}: amount {raw!r} on {line} is not a number", field=where, rule=RULE) from None
    if value.denominator != 1:
        raise InvalidInput(f"{procedure}: {value} on {line} is not a whole number; the sheet holds whole "
                           "ducats and the resolver must round as its rule says", field=where, rule=RULE)
    return int(value)
