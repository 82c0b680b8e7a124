"""The game master confirms the income and upkeep lines the board works out (issue 36, item 3).

``ConfirmIncome`` records, for each country, one ``IncomeConfirmed`` (every computed line with its lineage,
the position of the state it cites, the values kept with their reasons) and the treasury entries that book
its lines, with that event as their ``source``, in the same transaction: as a ruling and the entries its
effects imply. The budget folds them as any entry; nothing of the read side changes.

A line is booked so that the line's total for the turn becomes the confirmed value: the difference from
what is already entered (hand-typed entries, an earlier confirmation). An expense cannot go down by a
negative entry (ledger/economy/entries.py): an earlier confirmation's own entry is corrected instead.

A treasury entry typed by hand on a computed line is held to the same check (``check_typed``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import ContradictsBoard, Forbidden, InvalidInput, StateConflict
from ledger.economy import entries as economy
from ledger.economy import board_income, income
from ledger.economy.board_income import Proposal
from ledger.usecases.board_rulings import GAME_MASTERS
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft

RULE = income.RULE


@handles(cmd.ConfirmIncome)
def confirm_income(d: Draft, c: cmd.ConfirmIncome) -> dict[str, Any]:
    turn = d.state.require_open_turn()
    if not income.worked_out(d.state):
        raise StateConflict("this campaign has no map to work its income out from (no scenario's provinces): "
                            "its lines are typed as treasury entries", field="countries")
    if income.PHASE in d.state.phases_closed:
        raise StateConflict(f"the incomes phase of turn {turn} is closed: its income was settled; correct an "
                            "entry to change it", field="countries")
    countries = list(c.countries or d.state.countries)
    for i, country in enumerate(countries):
        d.state.require_country(country, f"countries[{i}]" if c.countries else "countries")
    for name, block in (("values", c.values), ("kept", c.kept)):
        for country in block or {}:
            if country not in countries:
                raise InvalidInput(f"{name}.{country}: {country} is not among the countries confirmed "
                                   f"({', '.join(countries)})", field=f"{name}.{country}")
    if c.position > d.state.version:
        raise InvalidInput(f"position {c.position} is past the campaign's head ({d.state.version})", field="position")
    options = income.options_of(d.state)
    now = income.proposals(d.state, countries, options)
    if c.position < d.state.version:
        _unchanged_since(d, c.position, countries, options, now)
    budget = d.ledger.budget_of(d.state)
    vis = _visibility(d.state.settings)
    confirmed: dict[str, Any] = {}
    for country in countries:
        lines = _lines(d.state.ruleset, now[country], (c.values or {}).get(country, {}),
                       (c.kept or {}).get(country, {}))
        at = d.add(ev.IncomeConfirmed, vis(country), turn=turn, country=country, at=c.position, lines=lines)
        booked = _book(d, budget.sheet(country, turn), country, turn, at, lines, vis(country), c.position)
        confirmed[country] = {"position": at, "lines": {x["line"]: x["amount"] for x in lines}, "booked": booked,
                              "unresolved": [{"line": code, "why": why} for code, why in now[country].unresolved]}
    return {"turn": turn, "position": c.position, "confirmed": confirmed}


def _unchanged_since(d: Draft, position: int, countries: list[str], options: dict[str, Any],
                     now: dict[str, Proposal]) -> None:
    """The proposal the game master read at ``position`` must still be the proposal: a state changed since in
    a way that moves a line is refused, naming what moved (read it again)."""
    before = d.ledger.state_at(d.state.id, position)
    if before is None:
        raise InvalidInput(f"position {position} is not in the history", field="position")
    then = income.proposals(before, countries, options)
    moved = []
    for country in countries:
        was = {x.code: x.amount for x in then[country].lines}
        for x in now[country].lines:
            if was.get(x.code) != x.amount:
                moved.append(f"{country} {x.code} is now {x.amount} (was {was.get(x.code)})")
    if moved:
        raise StateConflict(f"the proposal read at position {position} changed since (head {d.state.version}): "
                            f"{'; '.join(moved[:6])}{' ...' if len(moved) > 6 else ''}; read it again",
                            field="position")


def _lines(ruleset: str, p: Proposal, typed: dict[str, int], kept: dict[str, cmd.KeptValue]
           ) -> list[dict[str, Any]]:
    computed = {x.code: x for x in p.lines}
    why_not = dict(p.unresolved)
    for name, block in (("values", typed), ("kept", kept)):
        for code in block:
            if code not in computed:
                because = why_not.get(code) or "it is not a line the board works out"
                raise InvalidInput(f"{name}.{p.country}.{code}: {code} is not worked out for {p.country} "
                                   f"({because}): type it as a treasury entry", field=f"{name}.{p.country}.{code}",
                                   rule=RULE)
    refused = [code for code, value in typed.items()
               if value != computed[code].amount and (code not in kept or kept[code].amount != value)]
    if refused:
        code, more = refused[0], refused[1:]
        x = computed[code]
        raise ContradictsBoard(
            f"{p.country} {code}: typed {typed[code]}, but the board works out {x.amount} "
            f"({income.lineage_words(x)}); keep it with kept.{p.country}.{code} and a reason"
            + (f"; also {', '.join(more)}" if more else ""),
            field=f"values.{p.country}.{code}", rule=RULE, keep=f"{p.country}.{code}")
    for code, k in kept.items():
        if k.amount == computed[code].amount:
            raise InvalidInput(f"kept.{p.country}.{code}: the board works out {k.amount} too: nothing to keep",
                               field=f"kept.{p.country}.{code}", rule=RULE)
        if code in typed and typed[code] != k.amount:
            raise InvalidInput(f"kept.{p.country}.{code}: kept at {k.amount} but typed {typed[code]}",
                               field=f"kept.{p.country}.{code}", rule=RULE)
    out = []
    for x in p.lines:
        k = kept.get(x.code)
        amount = k.amount if k is not None else x.amount
        economy.check_entry_line(ruleset, x.code, f"kept.{p.country}.{x.code}", amount=amount,
                                 amount_field=f"kept.{p.country}.{x.code}.amount")
        out.append({**income.line_doc(x), "amount": amount, "kept": k.reason if k is not None else None})
    return out


def _visibility(settings: dict[str, Any]) -> Any:
    """A country's confirmation and its entries are seen as its treasury entries are (``ers_visibility``)."""
    def of(country: str) -> dict[str, Any]:
        if settings.get("ers_visibility", "public") == "country":
            return {"scope": "countries", "countries": [country]}
        return {"scope": "public"}
    return of


def _total(sheet: Any, code: str) -> int:
    if sheet is None:
        return 0
    if sheet.cells is None:
        raise StateConflict(f"{sheet.country}'s sheet of turn {sheet.turn} cannot be worked out "
                            f"({(sheet.error or {}).get('message', 'an error')}): correct it first", field="countries")
    cell = sheet.cells.get(code)
    return 0 if cell is None or cell.defaulted else cell.value


def _book(d: Draft, sheet: Any, country: str, turn: int, at: int, lines: list[dict[str, Any]],
          vis: dict[str, Any], position: int) -> list[dict[str, Any]]:
    """Entries (or corrections of an earlier confirmation's) that make each line total its confirmed value."""
    earlier = (d.state.incomes.get(country) or {}).get("entries", {})
    booked = []
    for x in lines:
        code, amount = x["line"], x["amount"]
        diff = amount - _total(sheet, code)
        if diff == 0:
            continue
        kept = f"kept at {amount} by the game master ({x['kept']}); the board works out {x['computed']}: " \
            if x["kept"] else ""
        reason = f"income confirmed from the state at #{position}: {kept}{income.lineage_words(x)}"
        own = earlier.get(code)
        if diff < 0 and economy.is_expense(d.state.ruleset, code):
            if own is None or own[1] + diff < 0:
                raise StateConflict(f"{country} {code} already totals {amount - diff} this turn, more than the "
                                    f"{amount} confirmed, and an expense is not lowered by a negative entry: "
                                    "correct the entries typed on it, then confirm", field="countries")
            d.add(ev.CorrectionRecorded, vis, corrects=own[0], reason=reason[:cmd.TEXT_MAX],
                  replacement={"amount": own[1] + diff})
            booked.append({"line": code, "corrected": own[0], "amount": own[1] + diff})
            continue
        overridden = {"line": code, "typed": amount, "board": x["computed"], "reason": x["kept"]} if x["kept"] else None
        position_ = d.add(ev.TreasuryEntryRecorded, vis, country=country, turn=turn, line=code, amount=diff,
                          reason=reason[:cmd.TEXT_MAX], source=at, overridden=overridden)
        booked.append({"line": code, "entry": position_, "amount": diff})
    return booked


def reference(d: Draft, country: str, turn: int, code: str) -> tuple[int, str] | None:
    """The value the board works out for a line a person types (value, lineage in words), or None when it
    is not one: the open turn's line, before its incomes phase closes, from the state now; after it, the
    confirmed proposal's (the state has moved on since). An earlier turn's is not checked."""
    if d.state.ruleset != "eu" or turn != d.state.turn or not d.state.turn_open or not income.worked_out(d.state):
        return None
    if income.PHASE in d.state.phases_closed:
        confirmed = (d.state.incomes.get(country) or {}).get("lines", {}).get(code)
        return (confirmed["computed"], f"confirmed for {country} at #{d.state.incomes[country]['position']}") \
            if confirmed else None
    if code not in board_income.WORKERS:
        return None
    p = income.proposals(d.state, [country], income.options_of(d.state))[country]
    line = next((x for x in p.lines if x.code == code), None)
    return (line.amount, income.lineage_words(line)) if line is not None else None


def check_typed(d: Draft, c: cmd.RecordTreasuryEntry, turn: int) -> dict[str, Any] | None:
    """A hand-typed entry on a computed line: refused when the line's total it makes differs from the
    board's, unless kept with a reason (``keep``: recorded as the entry's ``overridden``)."""
    if c.keep is not None and d.actor.role not in GAME_MASTERS:
        raise Forbidden("only a game master keeps a line the board contradicts (keep)", field="keep")
    ref = reference(d, c.country, turn, c.line)
    if ref is None:
        if c.keep is not None:
            raise InvalidInput(f"{c.line} is not worked out from the board here: nothing to keep", field="keep",
                               rule=RULE)
        return None
    board, words = ref
    total = _total(d.ledger.budget_of(d.state).sheet(c.country, turn), c.line) + c.amount
    if total == board:
        if c.keep is not None:
            raise InvalidInput(f"{c.line} totals {total}, as the board works it out: nothing to keep", field="keep",
                               rule=RULE)
        return None
    if c.keep is None:
        raise ContradictsBoard(f"{c.line}: this entry makes the line {total} for {c.country} this turn, but the "
                               f"board works out {board} ({words}); keep it with keep and a reason",
                               field="amount", rule=RULE, keep="keep")
    return {"line": c.line, "typed": total, "board": board, "reason": c.keep}
