"""What a command drafts before it is sealed into the chain (``Draft``), the server dice it rolls, and what an
append answers (``Appended``).

Below the application (ledger/application.py) and beside the domain: the use cases (ledger/usecases/) are
written against this module and the few reads a draft makes (``Reads``), never against the application, so
the write side has no import circle (tests/unit/test_architecture.py).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.utils import get_topic

from ledger import chain as chainlib
from ledger import dice as dicelib
from ledger.chain import event_hash, hash_body
from ledger.domain import events as ev
from ledger.domain.actors import Actor
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import StateConflict
from ledger.economy.sheets import Budget
from ledger.rules.core import Die
from ledger.store.recorders import Extras, TurnSeed

PUBLIC = {"scope": "public"}


class Reads(Protocol):
    """What a use case may read besides the state it is drafted on (the application provides it)."""

    seed_box: Any  # ledger/seeds.py SeedBox: seals a new seed into the store
    events: Any  # the event store: the events after a corrected one (ledger/usecases/records.py)

    def turn_seed(self, cid: UUID, turn: int, audience: str | None = None, committed: str | None = None) -> bytes: ...
    def remember_seed(self, cid: UUID, turn: int, audience: str, seed: bytes) -> None: ...
    def event_at(self, cid: UUID, position: int) -> ev.LedgerEvent: ...
    def state_at(self, cid: UUID, position: int) -> CampaignState | None: ...
    def budget_of(self, state: CampaignState) -> Budget: ...
    def scenario(self, cid: UUID) -> dict[str, Any] | None: ...


class Writes(Protocol):
    """What a service built on the use cases (a scenario's import) calls: the application's commands."""

    def handle(self, cid: UUID, command: Any, **kw: Any) -> Appended: ...
    def create_campaign(self, **kw: Any) -> Appended: ...


@dataclass(frozen=True)
class Appended:
    """What a command appended: positions and hashes, plus command-specific data."""

    campaign: str
    events: tuple[dict[str, Any], ...]
    data: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False
    checkpoint: str | None = None  # the signed checkpoint at the new head: the client's receipt

    def to_json(self) -> dict[str, Any]:
        return {"campaign": self.campaign, "events": list(self.events), "data": self.data,
                "checkpoint": self.checkpoint}

    @classmethod
    def from_json(cls, d: dict[str, Any], replayed: bool) -> Appended:
        return cls(d["campaign"], tuple(d["events"]), d.get("data", {}), replayed, d.get("checkpoint"))


class ServerDice:
    """Dice derived from the seed of an audience of the turn (or of the turn, scheme 1), with gapless indices
    (a DiceSource). ``drawn``: every die the command drew, shared by the audiences' sources, in draw order."""

    def __init__(self, seed: Callable[[], bytes], campaign: UUID, turn: int, start: int, drawn: list[Die]):
        self._seed_of, self._seed = seed, b""
        self.campaign, self.turn, self.next = str(campaign), turn, start
        self.drawn = drawn

    @property
    def seed(self) -> bytes:
        """Read (or drawn) at the first roll: a command that ends up rolling nothing commits no seed."""
        if not self._seed:
            self._seed = self._seed_of()
        return self._seed

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        values = dicelib.derive(self.seed, self.campaign, self.turn, self.next, sides, count, purpose)
        die = Die(purpose=purpose, sides=sides, count=count, values=values, index=self.next)
        self.next += 1
        self.drawn.append(die)
        return die


class Draft:
    """Events a command wants to append, before they are sealed into the chain."""

    def __init__(self, state: CampaignState, ledger: Reads, actor: Actor, context: dict[str, Any]):
        self.state, self.ledger, self.actor = state, ledger, actor
        self.context = {"turn": state.turn or None, "phase": None, "round": None, "impulse": None, **context}
        self.pending: list[tuple[type[ev.LedgerEvent], dict[str, Any], dict[str, Any]]] = []
        self.extras = Extras()
        self._dice: dict[str, ServerDice] = {}  # by audience (one key, "turn", in scheme 1)
        self.drawn: list[Die] = []
        self.dry_run = False  # a preview (``Ledger.preview``): nothing is appended, no server die is drawn

    def add(self, cls: type[ev.LedgerEvent], vis: dict[str, Any] | None = None, **payload: Any) -> int:
        """Queue an event; returns the position it will take."""
        self.pending.append((cls, payload, vis or dict(PUBLIC)))
        return self.state.version + len(self.pending)

    def dice_for(self, vis: dict[str, Any]) -> ServerDice:
        """Server dice for rolls recorded in events of visibility ``vis``: drawn from the seed of that audience
        (ledger/dice.py), so nobody outside it can recompute them from a seed they see. The first roll of an
        audience without a seed this turn draws one: sealed into the store and committed by a
        ``DiceSeedCommitted`` of the same visibility, appended before the roll in the same transaction."""
        if self.dry_run:
            raise StateConflict("a preview draws no server dice", field="dice")
        turn = self.state.require_open_turn()
        cid = self.state.id
        if self.state.dice_scheme == dicelib.SINGLE_SEED:
            key, start = "turn", self.state.next_roll
        else:
            key = dicelib.audience(vis)
            start = self.state.rolls.get(key, 0)
        if key not in self._dice:
            self._dice[key] = ServerDice(lambda: self._seed(turn, key), cid, turn, start, self.drawn)
        return self._dice[key]

    def _seed(self, turn: int, key: str) -> bytes:
        if key == "turn":
            return self.ledger.turn_seed(self.state.id, turn)
        if key in self.state.seeds:
            return self.ledger.turn_seed(self.state.id, turn, key, self.state.seeds[key])
        seed = dicelib.new_seed()
        self.seal_seed(turn, key, seed)
        self.ledger.remember_seed(self.state.id, turn, key, seed)
        self.add(ev.DiceSeedCommitted, dicelib.audience_visibility(key), turn=turn, audience=key,
                 commitment=dicelib.commitment(seed))
        return seed

    def seal_seed(self, turn: int, audience: str, seed: bytes) -> None:
        """Store the seed (encrypted) with the events this command appends."""
        sealed = self.ledger.seed_box.seal(self.state.id, turn, audience, seed)
        self.extras = replace(self.extras, seeds=(*self.extras.seeds, TurnSeed(self.state.id, turn, audience, sealed)))

    def seal(self) -> list[ev.LedgerEvent]:
        now = datetime.now(UTC)
        prev = self.state.head_hash
        sealed: list[ev.LedgerEvent] = []
        for offset, (cls, payload, vis) in enumerate(self.pending, start=1):
            position = self.state.version + offset
            state = {
                **payload,
                "schema": ev.SCHEMA_VERSION,
                "context": self.context,
                "actor": self.actor.as_dict(),
                "visibility": vis,
                "timestamp": now,
                "prev_hash": prev,
            }
            # A hidden event's salt is part of its stored state, so its hash covers it (ledger/chain.py): only
            # those who receive the event whole can recompute that hash, or confirm a guess of its content.
            salt = chainlib.new_salt() if chainlib.blinded(vis) else None
            digest = event_hash(prev, hash_body(self.state.id, position, get_topic(cls),
                                                state if salt is None else {**state, "salt": salt}))
            event = cls(originator_id=self.state.id, originator_version=position, hash=digest, **state)  # type: ignore[arg-type]
            if salt is not None:  # not a dataclass field (LedgerEvent.salt): stored as the rest of its state is
                object.__setattr__(event, "salt", salt)
            for name in _defaults(cls).keys() - payload.keys():
                # A field with a default the use case left out (``TreasuryEntryRecorded.overridden``) is neither
                # hashed nor stored: the event reads the class's default, as one recorded before the field did.
                del event.__dict__[name]
            sealed.append(event)
            prev = digest
        return sealed


@functools.cache
def _defaults(cls: type) -> dict[str, Any]:
    """The event type's fields that have a (constant) default (``TreasuryEntryRecorded.overridden``...)."""
    return {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}


