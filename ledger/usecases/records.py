"""What a game master (or a player, for dice) records: dice, rulings, treasury entries, corrections."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger import dice as dicelib
from ledger.access import can_see
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.campaign import ruling_dice
from ledger.domain.corrections import Standing, replaced
from ledger.domain.errors import InvalidInput, StateConflict, first_error
from ledger.domain.trade_facts import KINDS as TRADE_KINDS
from ledger.economy import entries as economy
from ledger.rules.core import Die, Effect, RulesError, apply_rules_options, get_ruleset
from ledger.usecases import board_rulings, country_facts
from ledger.usecases import income as income_usecases
from ledger.usecases import map as map_usecases
from ledger.usecases import trade as trade_usecases
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft


@handles(cmd.RollDice)
def roll(d: Draft, c: cmd.RollDice) -> dict[str, Any]:
    try:
        dicelib.check_die_type(c.sides, len(c.values) if c.values is not None else c.count)
    except dicelib.DiceError as e:
        raise InvalidInput(str(e), field=e.field) from None
    vis = c.visibility.as_dict()
    if c.values is None:
        die = d.dice_for(vis).roll(c.purpose, c.sides, c.count)
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
    vis = c.visibility.as_dict()
    source: Any = ManualDice(c.manual_dice) if c.manual_dice is not None else d.dice_for(vis)
    given, carried = carry(d.state, d.actor, rs.id, proc, c.inputs)
    # Ruleset options the request leaves out are the campaign's choices (settings rules_options).
    given, options = apply_rules_options(proc, d.state.settings.get("rules_options", {}), given)
    map_usecases.check_ruling_context(d, c.context)  # any procedure: its place and stacks exist
    given, overridden, from_board = board_rulings.check(d, c, rs.id, given)
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
    if options:  # which readings came from the campaign's settings (the inputs hold every reading used)
        doc["rules_options"] = options
    if overridden:  # inputs the board contradicts, kept by the game master with a reason
        doc["overridden"] = overridden
    if from_board:  # inputs left out that the board or the map state supplied
        doc["from_board"] = from_board
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
    economy.check_entry_line(d.state.ruleset, c.line, amount=c.amount)
    turn = c.turn if c.turn is not None else d.state.turn
    if turn < 1 or turn > d.state.turn:
        raise InvalidInput(f"turn {turn} has not been opened (current turn {d.state.turn})", field="turn")
    if c.source is not None and not 1 <= c.source <= d.state.version:
        raise InvalidInput(f"source position {c.source} is not in the history", field="source")
    overridden = income_usecases.check_typed(d, c, turn)  # a line the board works out: held to it
    d.add(ev.TreasuryEntryRecorded, entry_visibility(d.state.settings, c), country=c.country, turn=turn,
          line=c.line, amount=c.amount, reason=c.reason, source=c.source,
          **({"overridden": overridden} if overridden else {}))
    return {"overridden": overridden} if overridden else {}


def entry_visibility(settings: dict[str, Any], c: cmd.RecordTreasuryEntry) -> dict[str, Any]:
    """The entry's own visibility, else the campaign's default. A campaign created before the setting
    existed has none and keeps what it was played with: public."""
    if c.visibility is not None:
        return c.visibility.as_dict()
    if settings.get("ers_visibility", "public") == "country":
        return {"scope": "countries", "countries": [c.country]}
    return {"scope": "public"}


@handles(cmd.RecordCorrection)
def record_correction(d: Draft, c: cmd.RecordCorrection, manual_dice: list[list[int]] | None = None
                      ) -> dict[str, Any]:
    """A correction validated against the type of the event it finally concerns (``cmd.REPLACEMENTS``).

    A ruling corrected (struck, its effects restated, or resolved again from ``inputs``) takes its treasury
    entries along: they are corrected, struck or added in the same transaction (``follow_entries``), so the
    budget needs no rule of its own for rulings.
    """
    target, root, later = correctable(d, c.corrects)
    vis = correction_visibility(c.visibility, target)
    replacement: dict[str, Any] | None = None
    data: dict[str, Any] = {}
    if c.replacement is not None:
        rep = cmd.replacement_for(type(root).__name__, c.replacement)
        if isinstance(rep, cmd.RulingReplacement) and rep.inputs is not None:
            doc, report = resolve_again(d, root, standing_ruling(root, later), rep.inputs, c.corrects, vis,
                                        manual_dice, rep.overrides)
            if "needs_die" in report:  # a preview that reached a new die: nothing more to show
                return {"rework": report, "original": standing_ruling(root, later)}
            replacement = {"ruling": doc, "rework": report}
            data = {"ruling": doc, "rework": report, "original": standing_ruling(root, later)}
        elif isinstance(rep, cmd.RulingReplacement):
            replacement = {"ruling": {"effects": [_effect(e) for e in rep.effects or ()]}}
        else:
            replacement = rep.fields()
            if type(root).__name__ in TRADE_KINDS:  # trade zones, rest-of-the-world places: their own checks
                trade_usecases.check_restated(d, replacement, "replacement.")
            else:
                map_usecases.check_names(d, type(root).__name__, replacement, "replacement.")
            if isinstance(root, ev.TreasuryEntryRecorded):
                check_restated_entry(d, root, later, replacement)
            if isinstance(rep, cmd.CountryFactsReplacement) and "facts" in replacement:
                replacement["facts"] = country_facts.checked(d, replacement.get("country", getattr(root, "country", None)),
                                                             replacement["facts"], "replacement.facts.")
    position = d.add(ev.CorrectionRecorded, vis, corrects=c.corrects, reason=c.reason, replacement=replacement)
    if isinstance(root, ev.RulingRecorded):
        fixes = Standing.of([*_corrections(later), (position, c.corrects, replacement)])
        now = fixes.standing(root.originator_version)
        doc = root.ruling if now is None else (replaced(root.payload(), now[1]) or {}).get("ruling")
        data["entries"] = follow_entries(d, root, later, doc, vis, c.reason)
    return data


@handles(cmd.ReworkRuling)
def rework_ruling(d: Draft, c: cmd.ReworkRuling) -> dict[str, Any]:
    """Resolve a recorded ruling again with new inputs: a correction of it holding the new ruling.

    The recorded dice are reused by purpose; a die the new inputs need that was not drawn is taken from
    ``manual_dice`` (rolled at the table, recorded as a physical ``DiceRolled``), else drawn by the server now
    (recorded as ``DiceRolled`` of the open turn, so the turn's roll indices stay gapless; flagged "after turn
    N closed" when the ruling's turn is over); a recorded die no longer needed is reported. A preview
    (``Ledger.preview``) draws no server die and says which it would draw; physical dice it shows.
    """
    try:
        return record_correction(d, cmd.RecordCorrection(corrects=c.position, reason=c.reason,
                                                         replacement={"inputs": c.inputs, "overrides": c.overrides}),
                                 c.manual_dice)
    except InvalidInput as e:  # name the fields of this command, not of the correction it builds
        if e.field and e.field.startswith("replacement."):
            field = e.field.removeprefix("replacement.")
            raise type(e)(e.message.removeprefix("replacement."), field=field, rule=e.rule) from None
        raise


def check_restated_entry(d: Draft, root: ev.TreasuryEntryRecorded, later: list[ev.LedgerEvent],
                         replacement: dict[str, Any]) -> None:
    """An entry as a correction leaves it (its standing version, restated) is checked as a new entry is."""
    now = Standing.of(_corrections(later)).standing(root.originator_version)
    standing = (replaced(root.payload(), now[1]) if now is not None else None) or root.payload()
    entry = {**standing, **replacement}
    economy.check_entry_line(d.state.ruleset, entry["line"], "replacement.line", amount=entry["amount"],
                             amount_field="replacement.amount" if "amount" in replacement else "replacement.line")


def correctable(d: Draft, corrects: int) -> tuple[ev.LedgerEvent, ev.LedgerEvent, list[ev.LedgerEvent]]:
    """(the event corrected, the ordinary event it finally concerns, the corrections and treasury entries
    recorded after that one). Reads the history after the corrected event: disputes are rare."""
    if not 1 <= corrects <= d.state.version:
        raise InvalidInput(f"position {corrects} is not in the history (1..{d.state.version})", field="corrects")
    target = root = d.ledger.event_at(d.state.id, corrects)
    while isinstance(root, ev.CorrectionRecorded):
        root = d.ledger.event_at(d.state.id, root.corrects)
    kind = type(root).__name__
    if kind not in cmd.REPLACEMENTS:
        what = f"position {corrects} corrects position {root.originator_version}, a {kind}" if target is not root \
            else f"position {corrects} is a {kind}"
        raise InvalidInput(f"{what}, which cannot be corrected (correctable: {', '.join(cmd.REPLACEMENTS)})",
                           field="corrects")
    later = [e for e in d.ledger.events.get(d.state.id, gt=root.originator_version)
             if isinstance(e, (ev.CorrectionRecorded, ev.TreasuryEntryRecorded))]
    return target, root, later


def correction_visibility(asked: cmd.Visibility | None, target: ev.LedgerEvent) -> dict[str, Any]:
    """The original's visibility, or a narrower one: a correction never shows a hidden event's dispute to
    someone who cannot see the event."""
    original = dict(target.visibility or {"scope": "public"})
    if asked is None:
        return original
    vis = asked.as_dict()
    scope = original.get("scope", "public")
    wider = (scope == "gm" and vis["scope"] != "gm") or (
        scope == "countries" and (vis["scope"] == "public" or not set(vis.get("countries") or ()) <= set(
            original.get("countries") or ())))
    if wider:
        raise InvalidInput(f"a correction is seen by no more than the event it corrects ({_seen_by(original)})",
                           field="visibility")
    return vis


def _seen_by(vis: dict[str, Any]) -> str:
    if vis.get("scope") == "countries":
        return "seen by " + ", ".join(vis.get("countries") or ())
    return "seen by the game masters only" if vis.get("scope") == "gm" else "public"


def _effect(e: cmd.EffectReplacement) -> dict[str, Any]:
    try:
        return Effect.model_validate(e.model_dump()).model_dump(mode="json")
    except ValueError as err:
        raise InvalidInput(f"replacement.effects: {err}", field="replacement.effects") from None


def _corrections(events: list[ev.LedgerEvent]) -> list[tuple[int, int, Any]]:
    return [(e.originator_version, e.corrects, e.replacement) for e in events if isinstance(e, ev.CorrectionRecorded)]


def standing_ruling(root: ev.RulingRecorded, later: list[ev.LedgerEvent]) -> dict[str, Any]:
    """The ruling as the corrections recorded so far leave it (a rework builds on the latest)."""
    now = Standing.of(_corrections(later)).standing(root.originator_version)
    data = replaced(root.payload(), now[1]) if now is not None else None
    return (data or {}).get("ruling") or root.ruling


class NeedsDie(Exception):
    """A preview reached a die the recorded ruling did not draw (the server draws it only when recording)."""


class MatchedDice:
    """The recorded dice of a ruling, handed out by purpose and type; then server dice (flagged), or none."""

    def __init__(self, recorded: list[dict[str, Any]], fallback: Any | None):
        self.unused = [Die.model_validate(x) for x in recorded]
        self.fallback = fallback
        self.matched: list[Die] = []
        self.drawn: list[Die] = []

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        for i, die in enumerate(self.unused):
            if die.purpose == purpose and die.sides == sides and die.count == count:
                self.matched.append(self.unused.pop(i))
                return die
        if self.fallback is None:
            raise NeedsDie(f"{count}d{sides} ({purpose})")
        die = self.fallback.roll(purpose, sides, count)
        self.drawn.append(die)
        return die


def resolve_again(d: Draft, root: ev.RulingRecorded, recorded: dict[str, Any], inputs: dict[str, Any],
                  corrects: int, vis: dict[str, Any], manual_dice: list[list[int]] | None = None,
                  overrides: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The procedure of ``root`` resolved with ``inputs`` and the recorded dice matched by purpose; a new die
    from ``manual_dice`` (physical), else from the server. The inputs are checked against the board and the
    map before the ruling, as a new ruling's are (``overrides`` keep a disagreement with a reason)."""
    try:
        proc = get_ruleset(root.ruleset).get(root.procedure)
    except RulesError as e:
        raise InvalidInput(str(e), field="corrects", rule=e.rule) from None
    for path, country in _new_countries(recorded.get("inputs"), inputs, "replacement.inputs"):
        d.state.require_country(country, path)
    late = root.context.get("turn")
    late = late if isinstance(late, int) and (late < d.state.turn or not d.state.turn_open) else None
    table = _AtTheTable(d, corrects, vis, manual_dice, late) if manual_dice is not None else None
    server = None if d.dry_run else _Witnessed(d, corrects, vis, late)
    source = MatchedDice(ruling_dice(recorded), table or server)
    # A ruleset option the amended inputs leave out keeps the reading the disputed ruling was recorded with.
    kept = {f: recorded["inputs"][f] for f in proc.options if f not in inputs and f in recorded.get("inputs", {})}
    inputs = {**inputs, **kept} if isinstance(inputs, dict) else inputs
    inputs, overridden, from_board = board_rulings.check_again(d, root, recorded, overrides, inputs)
    try:
        ruling = proc.resolve(inputs, source)
    except NeedsDie as e:
        if not d.state.turn_open:  # recording it would be refused: say so now
            raise _no_open_turn(d, str(e)) from None
        # A preview stops at the first new die: its value is the turn's next roll, not to be seen before it counts.
        return {}, {"needs_die": str(e), **_report(source)}
    except RulesError as e:
        raise InvalidInput(f"replacement.inputs.{e.field}: {e}" if e.field else f"replacement.inputs: {e}",
                           field=f"replacement.inputs.{e.field}" if e.field else "replacement.inputs",
                           rule=e.rule) from None
    except ValueError as e:  # pydantic ValidationError is a ValueError
        err = validation_error(e)  # "loc: why", field "inputs.loc"
        why = err.message.split(": ", 1)[-1]
        raise InvalidInput(f"replacement.{err.field}: {why}", field=f"replacement.{err.field}") from None
    if table is not None and table.queue.unused:
        raise InvalidInput(f"{table.queue.unused} physical dice were not needed: these inputs need "
                           f"{len(source.drawn)} die(s) the ruling did not draw", field="manual_dice")
    report = _report(source)
    if late is not None and source.drawn:
        report["after_turn_closed"] = late
    doc = ruling.model_dump(mode="json")
    if overridden:  # as in record_ruling: inputs the board contradicts, kept with a reason
        doc["overridden"] = overridden
    if from_board:
        doc["from_board"] = from_board
    return doc, report


def _new_countries(recorded: Any, amended: Any, path: str) -> list[tuple[str, str]]:
    """(field, name) of every ``country`` input a re-resolution changes: a name the campaign lacks is refused,
    as in any correction; the names as recorded stand (a procedure may name a country not in play)."""
    if not isinstance(amended, dict):
        return []
    before = recorded if isinstance(recorded, dict) else {}
    found = []
    for k, v in amended.items():
        if isinstance(v, dict):
            found += _new_countries(before.get(k), v, f"{path}.{k}")
        elif k == "country" and isinstance(v, str) and v != before.get(k):
            found.append((f"{path}.{k}", v))
    return found


def _report(source: MatchedDice) -> dict[str, Any]:
    def dump(ds: list[Die]) -> list[dict[str, Any]]:
        return [x.model_dump(mode="json") for x in ds]

    return {"matched": dump(source.matched), "drawn": dump(source.drawn), "unused": dump(source.unused)}


def _why(purpose: str, corrects: int, late: int | None) -> str:
    """A new die's recorded purpose: what it is for, and when its ruling's turn was already over."""
    return f"{purpose} (re-resolving position {corrects}" + (f", drawn after turn {late} closed)" if late else ")")


class _Witnessed:
    """Server dice for a re-resolution, each also recorded as a ``DiceRolled`` of the open turn.

    A ruling of a closed turn gets its new die from the turn open now (its seed committed before, revealed
    when it closes: the die is as verifiable as any), flagged as drawn after its own turn closed. Never from
    the closed turn's seed: it is public, so the die would be known before it counts."""

    def __init__(self, d: Draft, corrects: int, vis: dict[str, Any], late: int | None = None):
        self.d, self.corrects, self.vis, self.late = d, corrects, vis, late

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        if not self.d.state.turn_open:
            raise _no_open_turn(self.d, f"{count}d{sides} ({purpose})")
        # Derived under the purpose it is recorded with, so that ``dice verify`` recomputes it from the seed;
        # handed to the ruling under the procedure's own purpose, so that a later rework matches it.
        flagged = _why(purpose, self.corrects, self.late)
        die = self.d.dice_for(self.vis).roll(flagged, sides, count)
        self.d.add(ev.DiceRolled, self.vis, turn=self.d.state.turn, index=die.index, purpose=flagged, sides=sides,
                   count=count, values=list(die.values), manual=False)
        return die.model_copy(update={"purpose": purpose})


def _no_open_turn(d: Draft, die: str) -> StateConflict:
    return StateConflict(f"these inputs need a die the ruling did not draw, {die}, and turn {d.state.turn} is "
                         "closed: open the next turn (the server draws it from that turn's committed seed) or give "
                         "the die rolled at the table (manual_dice)", field="manual_dice")


class _AtTheTable:
    """The game master's physical dice for a re-resolution, in draw order, each recorded as a physical
    ``DiceRolled`` (of the turn the campaign is in, open or closed: a physical die needs no seed)."""

    def __init__(self, d: Draft, corrects: int, vis: dict[str, Any], values: list[list[int]], late: int | None):
        self.d, self.corrects, self.vis, self.late = d, corrects, vis, late
        self.queue = ManualDice(values)

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        die = self.queue.roll(purpose, sides, count)
        self.d.add(ev.DiceRolled, self.vis, turn=self.d.state.turn, index=None,
                   purpose=_why(purpose, self.corrects, self.late), sides=sides, count=count,
                   values=list(die.values), manual=True)
        return die


def follow_entries(d: Draft, root: ev.RulingRecorded, later: list[ev.LedgerEvent], doc: dict[str, Any] | None,
                   vis: dict[str, Any], reason: str) -> list[dict[str, Any]]:
    """Bring the treasury entries the ruling booked in line with its standing version ``doc`` (None: struck).

    Entries pair by country and line: an amount that changed is corrected, an entry no longer implied is
    struck, a new one is recorded with the ruling as its source.
    """
    at = root.originator_version
    fixes = Standing.of(_corrections(later))
    booked: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for e in later:
        if isinstance(e, ev.TreasuryEntryRecorded) and e.source == at:
            now = fixes.standing(e.originator_version)
            data = replaced(e.payload(), now[1]) if now is not None else e.payload()
            if data is not None:
                booked.setdefault((data["country"], data["line"]), []).append((e.originator_version, data["amount"]))
    wanted = economy.entries_from_ruling(doc, procedure=root.procedure, ruleset=root.ruleset,
                                         countries=d.state.countries)[0] if doc else []
    why = f"position {at} corrected: {reason}"
    changes: list[dict[str, Any]] = []
    for entry in wanted:
        old = booked.get((entry.country, entry.line))
        if old:
            pos, amount = old.pop(0)
            if amount != entry.amount:
                d.add(ev.CorrectionRecorded, vis, corrects=pos, reason=why, replacement={"amount": entry.amount})
                changes.append({"country": entry.country, "line": entry.line, "from": amount, "to": entry.amount})
            continue
        d.add(ev.TreasuryEntryRecorded, vis, country=entry.country, turn=root.context.get("turn") or d.state.turn,
              line=entry.line, amount=entry.amount, reason=f"{entry.reason} ({why})", source=at)
        changes.append({"country": entry.country, "line": entry.line, "from": None, "to": entry.amount})
    for (country, line), rest in booked.items():
        for pos, amount in rest:
            d.add(ev.CorrectionRecorded, vis, corrects=pos, reason=why, replacement=None)
            changes.append({"country": country, "line": line, "from": amount, "to": None})
    return changes


def carry(state: Any, actor: Any, ruleset: str, proc: Any, inputs: Any) -> tuple[Any, dict[str, int]]:
    """Fill the inputs a procedure carries from its previous ruling when the request leaves them out: the latest
    one ``actor`` may see (a ruling hidden from them carries nothing into theirs, nor tells them it exists)."""
    seen = [c for c in state.carried.get(f"{ruleset}:{proc.code}", ()) if can_see(actor, c, state.revealed)]
    previous = max(seen, key=lambda c: c["position"], default=None)
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
    """An input the procedure's model refuses, as a 422 on ``inputs.<field>`` in plain words ("minor: unknown
    minor 'Venisse': did you mean venise?"), never pydantic's own wording."""
    loc, why = first_error(e)
    return InvalidInput(f"{loc or 'inputs'}: {why}", field=f"inputs.{loc}" if loc else "inputs")
