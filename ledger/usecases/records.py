"""What a game master (or a player, for dice) records: dice, rulings, treasury entries, corrections."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger import dice as dicelib
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput
from ledger.economy import entries as economy
from ledger.rules.core import Die, RulesError, get_ruleset
from ledger.usecases import board_rulings
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.application import Draft


@handles(cmd.RollDice)
def roll(d: Draft, c: cmd.RollDice) -> dict[str, Any]:
    try:
        dicelib.check_die_type(c.sides, len(c.values) if c.values is not None else c.count)
    except dicelib.DiceError as e:
        raise InvalidInput(str(e), field=e.field) from None
    vis = c.visibility.as_dict()
    if c.values is None:
        die = d.dice.roll(c.purpose, c.sides, c.count)
        d.add(ev.DiceRolled, vis, turn=d.state.turn, index=die.index, purpose=c.purpose, sides=c.sides,
              count=c.count, values=list(die.values), manual=False)
        return {}
    # Physical dice rolled at the table, entered by a game master (flagged manual).
    for v in c.values:
        if not 1 <= v <= c.sides:
            raise InvalidInput(f"a d{c.sides} cannot show {v}", field="values")
    d.state.require_open_turn()
    d.add(ev.DiceRolled, vis, turn=d.state.turn, index=None, purpose=c.purpose, sides=c.sides,
          count=len(c.values), values=list(c.values), manual=True)
    return {"values": list(c.values), "manual": True, "entered_by": d.actor.id}


@handles(cmd.RecordRuling)
def record_ruling(d: Draft, c: cmd.RecordRuling) -> dict[str, Any]:
    """Resolve a procedure of the campaign's ruleset with server dice (or a GM's physical dice) and record it."""
    d.state.require_open_turn()
    try:
        rs = get_ruleset(d.state.ruleset)
        proc = rs.get(c.procedure)
    except RulesError as e:
        raise InvalidInput(str(e), field=e.field or "procedure", rule=e.rule) from None
    source: Any = ManualDice(c.manual_dice) if c.manual_dice is not None else d.dice
    given, carried = carry(d.state, rs.id, proc, c.inputs)
    overridden = board_rulings.check(d, c, rs.id, given)
    try:
        ruling = proc.resolve(given, source)
    except RulesError as e:
        raise InvalidInput(str(e), field=f"inputs.{e.field}" if e.field else "inputs", rule=e.rule) from None
    except ValueError as e:  # pydantic ValidationError is a ValueError
        raise validation_error(e) from None
    if c.manual_dice is not None and source.unused:
        raise InvalidInput(f"{source.unused} manual dice were not used by {c.procedure}", field="manual_dice")
    doc = ruling.model_dump(mode="json")
    if carried:  # which inputs came from an earlier ruling, for the auditor
        doc["carried"] = carried
    if overridden:  # inputs the board contradicts, kept by the game master with a reason
        doc["overridden"] = overridden
    vis = c.visibility.as_dict()
    position = d.add(ev.RulingRecorded, vis, procedure=c.procedure, ruleset=rs.id, ruleset_version=rs.version,
                     ruling=doc)
    # The treasury entries its effects imply, in the same transaction (ledger/economy/entries.py).
    entries, unbooked = economy.entries_from_ruling(doc, procedure=c.procedure, ruleset=rs.id,
                                                    countries=d.state.countries)
    for entry in entries:
        d.add(ev.TreasuryEntryRecorded, vis, country=entry.country, turn=d.state.turn, line=entry.line,
              amount=entry.amount, reason=entry.reason, source=position)
    return {"ruling": doc, **({"treasury_unbooked": unbooked} if unbooked else {})}


@handles(cmd.RecordTreasuryEntry)
def record_treasury_entry(d: Draft, c: cmd.RecordTreasuryEntry) -> dict[str, Any]:
    d.state.require_country(c.country)
    economy.check_entry_line(d.state.ruleset, c.line)
    turn = c.turn if c.turn is not None else d.state.turn
    if turn < 1 or turn > d.state.turn:
        raise InvalidInput(f"turn {turn} has not been opened (current turn {d.state.turn})", field="turn")
    if c.source is not None and not 1 <= c.source <= d.state.version:
        raise InvalidInput(f"source position {c.source} is not in the history", field="source")
    d.add(ev.TreasuryEntryRecorded, entry_visibility(d.state.settings, c), country=c.country, turn=turn,
          line=c.line, amount=c.amount, reason=c.reason, source=c.source)
    return {}


def entry_visibility(settings: dict[str, Any], c: cmd.RecordTreasuryEntry) -> dict[str, Any]:
    """The entry's own visibility, else the campaign's default. A campaign created before the setting
    existed has none and keeps what it was played with: public."""
    if c.visibility is not None:
        return c.visibility.as_dict()
    if settings.get("ers_visibility", "public") == "country":
        return {"scope": "countries", "countries": [c.country]}
    return {"scope": "public"}


@handles(cmd.RecordCorrection)
def record_correction(d: Draft, c: cmd.RecordCorrection) -> dict[str, Any]:
    if not 1 <= c.corrects <= d.state.version:
        raise InvalidInput(f"position {c.corrects} is not in the history (1..{d.state.version})", field="corrects")
    if c.visibility is not None:
        vis = c.visibility.as_dict()
    else:
        vis = dict(d.ledger.event_at(d.state.id, c.corrects).visibility or {"scope": "public"})
    d.add(ev.CorrectionRecorded, vis, corrects=c.corrects, reason=c.reason, replacement=c.replacement)
    return {}


def carry(state: Any, ruleset: str, proc: Any, inputs: Any) -> tuple[Any, dict[str, int]]:
    """Fill the inputs a procedure carries from its previous ruling when the request leaves them out."""
    previous = state.carried.get(f"{ruleset}:{proc.code}")
    if not proc.carry or previous is None or not isinstance(inputs, dict):
        return inputs, {}
    filled = {f: previous["values"][f] for f in proc.carry if f not in inputs and f in previous["values"]}
    return {**inputs, **filled}, {f: previous["position"] for f in filled}


class ManualDice:
    """Physical dice supplied by a game master, in draw order; flagged manual."""

    def __init__(self, values: list[list[int]]):
        self._queue = [list(v) for v in values]

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        if not self._queue:
            raise InvalidInput(f"not enough manual dice: the procedure asks for another {count}d{sides} ({purpose})",
                               field="manual_dice")
        values = self._queue.pop(0)
        if len(values) != count or not all(1 <= v <= sides for v in values):
            raise InvalidInput(f"manual dice {values} do not fit {count}d{sides} ({purpose})", field="manual_dice")
        return Die(purpose=purpose, sides=sides, count=count, values=tuple(values), manual=True)

    @property
    def unused(self) -> int:
        return len(self._queue)


def validation_error(e: ValueError) -> InvalidInput:
    errors = getattr(e, "errors", None)
    if callable(errors):
        first = errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        return InvalidInput(f"{loc or 'inputs'}: {first.get('msg')}", field=f"inputs.{loc}" if loc else "inputs")
    return InvalidInput(str(e), field="inputs")
