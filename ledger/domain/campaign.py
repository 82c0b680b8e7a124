"""Write-side state of one campaign, kept small on purpose.

Appending never replays the whole history: the application caches this state
and fast-forwards it; a cold load starts from the latest snapshot. Commands are
pure functions ``(state, ...) -> list of pending events`` that raise a domain
error before anything is built when the command does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from ledger import dice as dicelib
from ledger import merkle
from ledger.chain import GENESIS
from ledger.dice import ruling_dice
from ledger.domain import events as ev
from ledger.domain import forces as forcelib
from ledger.domain import pace as pacelib
from ledger.domain import sight
from ledger.domain.commands import COUNTRY_RE, ERS_LINE_RE, SLUG_RE
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.economy.sheets import RELEVANT
from ledger.economy.treasury_log import TreasuryLog
from ledger.i18n import gettext

__all__ = ["COUNTRY_RE", "ERS_LINE_RE", "SLUG_RE", "CampaignState", "campaign_id", "project_campaign", "ruling_dice"]


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
    # The web page's live logins by sha256 (ledger/tokens.py): {"id", "token_id", "expires_at"}.
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    revealed: tuple[int, ...] = ()
    # Inputs a procedure carries to its next ruling (core.Procedure.carry): per "ruleset:procedure", the latest
    # ruling carrying a result of each visibility ({"position", "values", "visibility"}).
    carried: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
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
    # The forces on the map (ledger/domain/forces.py): each stack's country, units and leaders with their
    # values, the wars, the sieges and the changed fortress levels; what the map commands and the board checks
    # of rulings both read. A few values per stack, never a history read.
    # None: restored from a snapshot older than this field; the application replays the history once.
    military: dict[str, Any] | None = field(default_factory=forcelib.empty)
    # The map as each audience sees it (ledger/domain/sight.py): audience ("public", "country:FRA") ->
    # {"stacks", "military"}, only for an audience some event that changed the map was hidden from; a
    # player's commands are checked against their audience's. None: restored from a snapshot older than this
    # field; the application replays the history once.
    views: dict[str, dict[str, Any]] | None = field(default_factory=dict)
    # A player's map commands the game master's map held (sight.held): position (a string: JSON keys) ->
    # {position, type, actor, country, why}, until a correction of it. None: as for ``views``.
    held: dict[str, dict[str, Any]] | None = field(default_factory=dict)
    # The open turn's income confirmations (issue 36, ledger/usecases/income.py), by country: {"position" (the
    # IncomeConfirmed), "at" (the state's position it cites), "visibility", "lines": {code: {"amount",
    # "computed"}}, "entries": {code: [position, amount]}} (the entries it booked, as corrections leave them).
    # Emptied when a turn opens; a snapshot older than the field holds none to miss.
    incomes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The open turn's pace (issue 38, ledger/usecases/pacing.py): {"deadlines": {phase: {"due" (UTC ISO),
    # "zone", "reminders" (minutes before), "position"}}, "ready": {phase: [countries]}, "sent": ["phase|due|
    # minutes", ...] (the reminders recorded)}. Emptied when a turn opens; older snapshots hold none to miss.
    pace: dict[str, Any] = field(default_factory=dict)
    # Where each reader marked "read up to here" (MarkedAsRead): reader -> position. A few entries per reader.
    read_marks: dict[str, int] = field(default_factory=dict)
    # The live notification endpoints (ledger/usecases/notify.py): id -> {"audience", "kind", "target", "topics",
    # "label", "position"}. A snapshot older than the field holds none to miss (the events came after it).
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)

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
        d.setdefault("views", None)
        for name, view in (d["views"] or {}).items():  # copies equal when snapshotted are shared again (one fold)
            d["views"][name] = next((v for v in d["views"].values() if v == view), view)
        d.setdefault("held", None)
        d.setdefault("incomes", {})
        d.setdefault("sessions", {})  # no session was opened before the field existed
        d.setdefault("pace", {})
        d.setdefault("read_marks", {})
        d.setdefault("endpoints", {})
        if not forcelib.current(d.get("military")):  # absent, or of an older shape: replayed once
            d["military"] = None
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
            raise InvalidInput(gettext("country {country} is not in this campaign ({countries})").format(
                country=repr(country), countries=", ".join(self.countries)), field=field_name)


# ----------------------------------------------------------------- projection

_FIELDS = frozenset(CampaignState.__dataclass_fields__)


def _evolve(state: CampaignState, **changes: Any) -> CampaignState:
    """``dataclasses.replace`` without running ``__init__`` again (no field has a default to apply or a check
    to run on a copy): the fold copies the state a few times per event, and replace's generic path was a
    fifth of an append's CPU (ops/bench_group_commit.py)."""
    if not changes.keys() <= _FIELDS:
        raise TypeError(f"CampaignState has no field {sorted(changes.keys() - _FIELDS)}")
    new = object.__new__(CampaignState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


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
        state = _evolve(state, turn=event.turn, turn_open=True, commitment=event.commitment, next_roll=0,
                        phases_closed=(), dice_scheme=event.dice_scheme, rolls={}, incomes={}, pace={},
                        seeds={dicelib.PUBLIC: event.commitment} if event.dice_scheme != dicelib.SINGLE_SEED else {})
    elif isinstance(event, ev.DiceSeedCommitted):
        state = _evolve(state, seeds={**state.seeds, event.audience: event.commitment})
    elif isinstance(event, ev.TurnClosed):
        state = _evolve(state, turn_open=False, closed_at=None if state.closed_at is None else {
            **state.closed_at, str(event.turn): event.originator_version})
    elif isinstance(event, ev.PhaseClosed):
        state = _evolve(state, phases_closed=(*state.phases_closed, event.phase))
    elif isinstance(event, ev.DiceRolled):
        if event.index is not None:
            state = _rolled(state, event, [event.index])
    elif isinstance(event, ev.RulingRecorded):
        indices = [d["index"] for d in ruling_dice(event.ruling) if d.get("index") is not None]
        if indices:
            state = _rolled(state, event, indices)
        carry = (event.ruling.get("outcome") or {}).get("carry")
        if isinstance(carry, dict):
            # The latest ruling of each visibility: a player's next ruling carries from the latest they may
            # see (``usecases.records.carry``), never from one hidden from them.
            key, vis = f"{event.ruleset}:{event.procedure}", event.visibility
            kept = [c for c in state.carried.get(key, ()) if c["visibility"] != vis]
            state = _evolve(state, carried={**state.carried, key: [*kept, {
                "position": event.originator_version, "values": carry, "visibility": vis}]})
    elif isinstance(event, ev.TokenIssued):
        token = {"id": event.token_id, "role": event.role, "country": event.country, "holder": event.holder}
        state = _evolve(state, tokens={**state.tokens, event.sha256: token})
    elif isinstance(event, ev.TokenRevoked):
        state = _evolve(state, tokens={h: t for h, t in state.tokens.items() if t["id"] != event.token_id},
                        sessions={h: s for h, s in state.sessions.items() if s["token_id"] != event.token_id})
    elif isinstance(event, ev.SessionOpened):
        session = {"id": event.session_id, "token_id": event.token_id, "expires_at": event.expires_at}
        state = _evolve(state, sessions={**state.sessions, event.sha256: session})
    elif isinstance(event, ev.SessionEnded):
        state = _evolve(state, sessions={h: s for h, s in state.sessions.items() if s["id"] != event.session_id})
    elif isinstance(event, ev.EndpointRegistered):
        state = _evolve(state, endpoints={**state.endpoints, event.endpoint_id: {
            "audience": event.audience, "kind": event.kind, "target": event.target, "topics": list(event.topics),
            "label": event.label, "position": event.originator_version}})
    elif isinstance(event, ev.EndpointChanged):
        if event.endpoint_id in state.endpoints:
            state = _evolve(state, endpoints={**state.endpoints, event.endpoint_id: {
                **state.endpoints[event.endpoint_id], "topics": list(event.topics)}})
    elif isinstance(event, ev.EndpointRemoved):
        state = _evolve(state, endpoints={k: v for k, v in state.endpoints.items() if k != event.endpoint_id})
    elif isinstance(event, ev.VisibilityRevealed):
        state = _evolve(state, revealed=(*state.revealed, event.revealed))
    elif isinstance(event, ev.SheetsPublished):  # every read path already honours ``revealed``
        state = _evolve(state, revealed=(*state.revealed, *event.positions))
    elif isinstance(event, ev.CampaignSettingsChanged):
        state = _evolve(state, settings={**state.settings, **event.changed})
    elif isinstance(event, PACE):
        state = _evolve(state, pace=pacelib.follow(state.pace, event))
    elif isinstance(event, ev.MarkedAsRead):
        state = _evolve(state, read_marks={**state.read_marks, event.reader: event.up_to})
    elif isinstance(event, ev.IncomeConfirmed):
        state = _evolve(state, incomes={**state.incomes, event.country: {
            "position": event.originator_version, "at": event.at, "visibility": event.visibility,
            "lines": {x["line"]: {"amount": x["amount"], "computed": x["computed"]} for x in event.lines},
            "entries": {}}})
    if state.incomes and isinstance(event, (ev.TreasuryEntryRecorded, ev.CorrectionRecorded)):
        state = _evolve(state, incomes=_income_entries(state.incomes, event))
    if isinstance(event, MILITARY):
        if state.stacks is not None and state.military is not None and state.views is not None:
            state = _evolve(state, **sight.follow(state, event))
        else:  # restored from an older snapshot: the application folds the history again
            if state.stacks is not None and not isinstance(event, ev.RulingRecorded):
                state = _evolve(state, stacks=sight.places(state.stacks, event))
            if state.military is not None:
                state = _evolve(state, military=forcelib.apply(state.military, event))
    kind = type(event).__name__
    if kind in RELEVANT and state.treasury is not None:
        state = _evolve(state, treasury=state.treasury.add(kind, event.originator_version, vars(event)))
    frontier = state.merkle
    if frontier is not None:  # merkle.frontier_append on hex: only the subtree roots merged are decoded
        grown, h, size = list(frontier), merkle.leaf_hash(bytes.fromhex(event.hash)), event.originator_version - 1
        while size & 1:
            h = merkle.node_hash(bytes.fromhex(grown.pop()), h)
            size >>= 1
        frontier = (*grown, h.hex())
    return _evolve(state, version=event.originator_version, head_hash=event.hash, merkle=frontier)


def _income_entries(incomes: dict[str, dict[str, Any]], event: Any) -> dict[str, dict[str, Any]]:
    """The entries a confirmation booked, as later corrections leave them (a re-confirmation restates them)."""
    for country, confirmed in incomes.items():
        entries = confirmed["entries"]
        if isinstance(event, ev.TreasuryEntryRecorded) and event.source == confirmed["position"]:
            entries = {**entries, event.line: [event.originator_version, event.amount]}
        elif isinstance(event, ev.CorrectionRecorded):
            line = next((k for k, (pos, _) in entries.items() if pos == event.corrects), None)
            if line is None:
                continue
            r = event.replacement
            if r is None or set(r) - {"amount"}:  # struck, or moved elsewhere: no longer this line's booking
                entries = {k: v for k, v in entries.items() if k != line}
            else:
                entries = {**entries, line: [event.corrects, r["amount"]]}
        else:
            continue
        return {**incomes, country: {**confirmed, "entries": entries}}
    return incomes


def _rolled(state: CampaignState, event: Any, indices: list[int]) -> CampaignState:
    """Server dice drawn: the next index of the roll's audience (scheme 2) or of the turn (scheme 1)."""
    if state.dice_scheme == dicelib.SINGLE_SEED:
        return _evolve(state, next_roll=max(indices) + 1)
    rolls = {**state.rolls, dicelib.audience(event.visibility): max(indices) + 1}
    return _evolve(state, rolls=rolls, next_roll=sum(rolls.values()))


#: The events of a turn's pace (ledger/domain/pace.py).
PACE = (ev.DeadlineSet, ev.DeadlineCleared, ev.ReadinessMarked, ev.ReminderIssued)
#: The events that change where stacks are or what they hold.
MILITARY = (ev.StackMoved, *forcelib.FOLLOWED)


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

