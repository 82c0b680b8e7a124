"""Write-side state of one campaign, kept small on purpose.

Appending never replays the whole history: the application caches this state
and fast-forwards it; a cold load starts from the latest snapshot. Commands are
pure functions ``(state, ...) -> list of pending events`` that raise a domain
error before anything is built when the command does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from ledger import dice as dicelib
from ledger import merkle
from ledger.chain import GENESIS
from ledger.dice import ruling_dice
from ledger.domain import events as ev
from ledger.domain.commands import COUNTRY_RE, ERS_LINE_RE, SLUG_RE
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.economy.sheets import RELEVANT
from ledger.economy.treasury_log import TreasuryLog

__all__ = ["COUNTRY_RE", "ERS_LINE_RE", "SLUG_RE", "CampaignState", "campaign_id", "project_campaign", "ruling_dice",
           "unit_count", "war_key"]


def campaign_id(slug: str) -> UUID:
    """Deterministic id: one slug, one campaign."""
    return uuid5(NAMESPACE_URL, f"/campaigns/{slug}")


@dataclass(frozen=True)
class CampaignState:
    id: UUID
    version: int = 0
    head_hash: str = GENESIS
    slug: str = ""
    name: str = ""
    ruleset: str = ""
    ruleset_version: str = ""
    countries: tuple[str, ...] = ()
    players: dict[str, str] = field(default_factory=dict)
    game_masters: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    turn: int = 0  # last opened turn (0: none yet)
    turn_open: bool = False
    commitment: str | None = None
    next_roll: int = 0  # scheme 1: next server roll index of the open turn; scheme 2: server rolls so far
    # Dice of the open turn (ledger/dice.py): its scheme, each audience's seed commitment and next roll index.
    dice_scheme: int = dicelib.SINGLE_SEED
    seeds: dict[str, str] = field(default_factory=dict)
    rolls: dict[str, int] = field(default_factory=dict)
    phases_closed: tuple[str, ...] = ()  # phases of the open turn already closed (ledger/usecases/phases.py)
    # Access (ledger/tokens.py, ledger/access.py): live tokens by sha256, and positions made public later.
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    revealed: tuple[int, ...] = ()
    # Inputs a procedure carries to its next ruling (core.Procedure.carry):
    # "ruleset:code" -> {"position": p, "values": {field: value}}.
    carried: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What the budget reads (ledger/economy/treasury_log.py): closing a phase computes the ERS from it.
    # None: restored from a snapshot older than this field; the application replays the history once.
    treasury: TreasuryLog | None = field(default_factory=TreasuryLog)
    # RFC 6962 frontier of the event hashes (ledger/merkle.py), hex, largest subtree first: the root at the
    # head, which every write signs, is known without reading the history. None: an older snapshot (replayed).
    merkle: tuple[str, ...] | None = ()

    @property
    def root(self) -> bytes:
        """The Merkle root of the history up to the head."""
        return merkle.frontier_root([bytes.fromhex(h) for h in self.merkle or ()])

    # Where each stack is (ledger/usecases/map.py checks a move's origin): stack id -> [place, position of
    # its last move, where that move started], so a correction of that move can be followed.
    # None: restored from a snapshot older than this field; the application replays the history once.
    stacks: dict[str, list[Any]] | None = field(default_factory=dict)
    # Position of each closed turn's TurnClosed, by turn (a string: JSON keys): the checkpoint signed with
    # that write is the turn's closing receipt (``Ledger.checkpoint(cid, turn=T)``) without reading the history.
    # None: restored from a snapshot older than this field; the application replays the history once.
    closed_at: dict[str, int] | None = field(default_factory=dict)
    # What the map commands check besides where stacks are (ledger/usecases/map.py): each stack's country,
    # units and leaders ("forces"), the wars in progress ([attackers, defenders], sorted) and the sieges
    # (province -> besieging stacks), and the fortress levels the game master changed ("fortresses",
    # province -> level: the previous level a FortressChanged records). A few strings per stack, never a history read.
    # None: restored from a snapshot older than this field; the application replays the history once.
    military: dict[str, Any] | None = field(default_factory=lambda: {"forces": {}, "wars": [], "sieges": {}})

    def to_dict(self) -> dict[str, Any]:
        d = asdict(replace(self, treasury=None))
        d["id"] = str(self.id)
        d["treasury"] = self.treasury.to_json() if self.treasury is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CampaignState:
        d = dict(d)
        d["id"] = UUID(d["id"])
        d["countries"] = tuple(d["countries"])
        d["game_masters"] = tuple(d["game_masters"])
        d["phases_closed"] = tuple(d.get("phases_closed", ()))  # absent from older snapshots
        d["revealed"] = tuple(d.get("revealed", ()))
        d["merkle"] = tuple(d["merkle"]) if d.get("merkle") is not None else None
        log = d.get("treasury")
        d["treasury"] = TreasuryLog.from_json(log) if log is not None else None
        d.setdefault("stacks", None)
        d.setdefault("closed_at", None)
        d.setdefault("military", None)
        return cls(**d)

    # -- guards ---------------------------------------------------------------
    def require_open_turn(self, field_name: str = "turn") -> int:
        if not self.turn_open:
            raise StateConflict(
                "no turn is open: open a turn first" if self.turn == 0 else f"turn {self.turn} is closed",
                field=field_name,
            )
        return self.turn

    def require_country(self, country: str, field_name: str = "country") -> None:
        if country not in self.countries:
            raise InvalidInput(
                f"country {country!r} is not in this campaign ({', '.join(self.countries)})", field=field_name
            )


# ----------------------------------------------------------------- projection


def _apply(state: CampaignState | None, event: Any) -> CampaignState:
    if isinstance(event, ev.CampaignSnapshot):
        return CampaignState.from_dict(event.state)
    assert state is not None or isinstance(event, ev.CampaignCreated), "history must start with CampaignCreated"
    if isinstance(event, ev.CampaignCreated):
        state = CampaignState(
            id=event.originator_id,
            slug=event.slug,
            name=event.name,
            ruleset=event.ruleset,
            ruleset_version=event.ruleset_version,
            countries=tuple(event.countries),
            players=dict(event.players),
            game_masters=tuple(event.game_masters),
            settings=dict(event.settings),
        )
    elif isinstance(event, ev.TurnOpened):
        state = replace(state, turn=event.turn, turn_open=True, commitment=event.commitment, next_roll=0,
                        phases_closed=(), dice_scheme=event.dice_scheme, rolls={},
                        seeds={dicelib.PUBLIC: event.commitment} if event.dice_scheme != dicelib.SINGLE_SEED else {})
    elif isinstance(event, ev.DiceSeedCommitted):
        state = replace(state, seeds={**state.seeds, event.audience: event.commitment})
    elif isinstance(event, ev.TurnClosed):
        state = replace(state, turn_open=False, closed_at=None if state.closed_at is None else {
            **state.closed_at, str(event.turn): event.originator_version})
    elif isinstance(event, ev.PhaseClosed):
        state = replace(state, phases_closed=(*state.phases_closed, event.phase))
    elif isinstance(event, ev.DiceRolled):
        if event.index is not None:
            state = _rolled(state, event, [event.index])
    elif isinstance(event, ev.RulingRecorded):
        indices = [d["index"] for d in ruling_dice(event.ruling) if d.get("index") is not None]
        if indices:
            state = _rolled(state, event, indices)
        carry = (event.ruling.get("outcome") or {}).get("carry")
        if isinstance(carry, dict):
            key = f"{event.ruleset}:{event.procedure}"
            state = replace(state, carried={**state.carried, key: {"position": event.originator_version,
                                                                     "values": carry}})
    elif isinstance(event, ev.TokenIssued):
        token = {"id": event.token_id, "role": event.role, "country": event.country, "holder": event.holder}
        state = replace(state, tokens={**state.tokens, event.sha256: token})
    elif isinstance(event, ev.TokenRevoked):
        state = replace(state, tokens={h: t for h, t in state.tokens.items() if t["id"] != event.token_id})
    elif isinstance(event, ev.VisibilityRevealed):
        state = replace(state, revealed=(*state.revealed, event.revealed))
    elif isinstance(event, ev.SheetsPublished):  # every read path already honours ``revealed``
        state = replace(state, revealed=(*state.revealed, *event.positions))
    elif isinstance(event, ev.CampaignSettingsChanged):
        state = replace(state, settings={**state.settings, **event.changed})
    if isinstance(event, MILITARY):
        if state.stacks is not None and not isinstance(event, ev.RulingRecorded):
            state = replace(state, stacks=_stacks(state.stacks, event))
        if state.military is not None:
            state = replace(state, military=_military(state.military, event))
    kind = type(event).__name__
    if kind in RELEVANT and state.treasury is not None:
        state = replace(state, treasury=state.treasury.add(kind, event.originator_version, vars(event)))
    frontier = state.merkle
    if frontier is not None:  # merkle.frontier_append on hex: only the subtree roots merged are decoded
        grown, h, size = list(frontier), merkle.leaf_hash(bytes.fromhex(event.hash)), event.originator_version - 1
        while size & 1:
            h = merkle.node_hash(bytes.fromhex(grown.pop()), h)
            size >>= 1
        frontier = (*grown, h.hex())
    return replace(state, version=event.originator_version, head_hash=event.hash, merkle=frontier)


def _rolled(state: CampaignState, event: Any, indices: list[int]) -> CampaignState:
    """Server dice drawn: the next index of the roll's audience (scheme 2) or of the turn (scheme 1)."""
    if state.dice_scheme == dicelib.SINGLE_SEED:
        return replace(state, next_roll=max(indices) + 1)
    rolls = {**state.rolls, dicelib.audience(event.visibility): max(indices) + 1}
    return replace(state, rolls=rolls, next_roll=sum(rolls.values()))
MILITARY = (ev.ScenarioImported, ev.StackMoved, ev.CorrectionRecorded, ev.StackSplit, ev.StacksMerged,
            ev.StackChanged, ev.WarDeclared, ev.PeaceMade, ev.SiegeStarted, ev.SiegeEnded, ev.RulingRecorded,
            ev.ControlChanged, ev.FortressChanged, ev.StackRaised)
#: A ruling's effects that change a stack's units or leaders (the map view applies the same ones).
LOSSES = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}


def unit_count(value: Any) -> Fraction:
    """A stack's count of a unit (an int, or "a/b" after a ruling took half a unit)."""
    return Fraction(str(value)) if value is not None else Fraction(0)


def _plain(value: Fraction) -> int | str:
    """A count as stored: an int, or "a/b" for the half units a ruling may take."""
    return int(value) if value.denominator == 1 else str(value)


def _ruling_losses(forces: dict[str, Any], event: Any) -> dict[str, Any]:
    """Units lost and leaders killed or captured by a ruling's effects, its roles mapped to stacks by its
    context (``context.stacks``); an effect naming no stack of the map changes nothing here."""
    roles = (event.context or {}).get("stacks") or {}
    changed = dict(forces)
    for e in (event.ruling or {}).get("effects") or ():
        kind, target = e.get("kind"), e.get("target")
        if kind in LOSSES:
            stack = target if target in changed else roles.get(target or "")
            if stack in changed:
                units = dict(changed[stack]["units"])
                unit = LOSSES[kind]
                units[unit] = _plain(max(unit_count(units.get(unit, 0)) - unit_count(e.get("amount")), Fraction(0)))
                changed[stack] = {**changed[stack], "units": units}
        elif kind in ("leader_killed", "leader_captured"):
            for stack, f in changed.items():
                if target in f["leaders"]:
                    changed[stack] = {**f, "leaders": [x for x in f["leaders"] if x != target]}
    return changed


def _stacks(stacks: dict[str, list[Any]], event: Any) -> dict[str, list[Any]]:
    if isinstance(event, ev.ScenarioImported):
        return {st["id"]: [st["location"], 0, None] for st in event.scenario.get("stacks", ())}
    if isinstance(event, ev.StackMoved):
        return {**stacks, event.stack: [event.destination, event.originator_version, event.origin]}
    if isinstance(event, ev.StackSplit):
        return {**stacks, event.new_stack: [event.location, 0, None]}
    if isinstance(event, ev.StackRaised):
        return {**stacks, event.stack: [event.location, 0, None]}
    if isinstance(event, ev.StacksMerged):
        return {k: v for k, v in stacks.items() if k != event.merged}
    if not isinstance(event, ev.CorrectionRecorded):
        return stacks
    # A correction of a stack's latest move moves it where the correction says (struck: back where it
    # started). Earlier moves are not tracked here: the map view follows them, the game master forces.
    for stack, (at, moved_at, origin) in stacks.items():
        if moved_at and moved_at == event.corrects:
            place = origin if event.replacement is None else event.replacement.get("destination", at)
            if isinstance(place, str):
                return {**stacks, stack: [place, moved_at, origin]}
    return stacks


def war_key(attackers: Iterable[str], defenders: Iterable[str]) -> list[list[str]]:
    """A war as the state keeps it: its two sides, sorted."""
    return [sorted(attackers), sorted(defenders)]


def _military(m: dict[str, Any], event: Any) -> dict[str, Any]:
    """The forces, wars and sieges after ``event``. Corrections are not followed here (the map view follows
    them): a game master restates the write side with a new command (a change of units, a siege ended)."""
    forces, wars, sieges = m["forces"], m["wars"], m["sieges"]
    if isinstance(event, ev.RulingRecorded):
        forces = _ruling_losses(forces, event)
    elif isinstance(event, ev.ScenarioImported):
        s = event.scenario
        forces = {st["id"]: {"country": st["country"], "units": dict(st.get("units") or {}),
                             "leaders": [ld["name"] for ld in st.get("leaders") or ()]} for st in s.get("stacks", ())}
        return {"forces": forces, "wars": [war_key(a, d) for a, d in s.get("wars") or ()], "sieges": {}}
    elif isinstance(event, ev.StackRaised):
        forces = {**forces, event.stack: {"country": event.country, "units": dict(event.units),
                                          "leaders": [x["name"] for x in event.leaders]}}
    elif isinstance(event, ev.StackSplit):
        old = forces[event.stack]
        left = {u: _plain(unit_count(n) - event.units.get(u, 0)) for u, n in old["units"].items()
                if unit_count(n) - event.units.get(u, 0) > 0}
        forces = {**forces, event.stack: {**old, "units": left,
                                          "leaders": [x for x in old["leaders"] if x not in event.leaders]},
                  event.new_stack: {"country": event.country, "units": dict(event.units),
                                    "leaders": list(event.leaders)}}
    elif isinstance(event, ev.StacksMerged):
        kept, gone = forces[event.stack], forces[event.merged]
        units = dict(kept["units"])
        for u, n in gone["units"].items():
            units[u] = _plain(unit_count(units.get(u, 0)) + unit_count(n))
        forces = {k: v for k, v in forces.items() if k != event.merged}
        forces[event.stack] = {**kept, "units": units, "leaders": [*kept["leaders"], *gone["leaders"]]}
        sieges = {p: sorted({event.stack if b == event.merged else b for b in bs}) for p, bs in sieges.items()}
    elif isinstance(event, ev.StackChanged):
        old = forces[event.stack]
        units = dict(old["units"])
        for u, n in event.units.items():
            units[u] = _plain(max(unit_count(units.get(u, 0)) + n, Fraction(0)))
        leaders = [x for x in old["leaders"] if x not in event.departed] + [a["name"] for a in event.arrived]
        forces = {**forces, event.stack: {**old, "units": {u: n for u, n in units.items() if n}, "leaders": leaders}}
    elif isinstance(event, ev.FortressChanged):
        return {**m, "fortresses": {**(m.get("fortresses") or {}), event.province: event.level}}
    elif isinstance(event, ev.WarDeclared):
        wars = [*wars, war_key(event.attackers, event.defenders)]
    elif isinstance(event, ev.PeaceMade):
        key = war_key(event.attackers, event.defenders)
        wars = [w for w in wars if w != key]
    elif isinstance(event, ev.SiegeStarted):
        sieges = {**sieges, event.province: sorted(event.besiegers)}
    elif isinstance(event, (ev.SiegeEnded, ev.ControlChanged)):  # a change of control ends a siege (as on the map)
        sieges = {p: b for p, b in sieges.items() if p != event.province}
    else:
        return m
    return {**m, "forces": forces, "wars": wars, "sieges": sieges}


def ruling_dice(ruling: dict[str, Any]) -> list[dict[str, Any]]:
    """Every die of a recorded ruling (top level and steps), in draw order."""
    dice = list(ruling.get("dice") or [])
    for step in ruling.get("steps") or []:
        dice.extend(step.get("dice") or [])
    return dice


def project_campaign(state: CampaignState | None, events: Iterable[Any]) -> CampaignState | None:
    for event in events:
        state = _apply(state, event)
    return state

