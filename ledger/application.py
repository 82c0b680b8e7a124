"""The ledger's use cases, on an eventsourcing Application.

Write path of every command: load the campaign's small write-side state (cached,
fast-forwarded only when a conflict says it is stale), run the pure command,
which may draw server dice, seal the resulting events into the hash chain, and
append them in one transaction together with the idempotency record. A
concurrent writer makes the insert fail on (campaign, position); the command is
then re-run on fresh state, so nothing interleaves and nothing is lost.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson
from pydantic import ValidationError
from eventsourcing.application import Application, LRUCache
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError

from ledger import dice as dicelib
from ledger import merkle, positions
from ledger import sequence
from ledger.chain import (GENESIS, ChainReport, Expectation, NotCanonical, StoredRow, canonical_json,
                          verify_rows)
from ledger.checkpoints import CheckpointError, load_signer, parse_note
from ledger.config import Settings
from ledger.files import private_file, private_sqlite
from ledger.domain import commands as cmd
from ledger.domain.actors import SYSTEM, Actor
from ledger.domain import events as ev
from ledger.domain.campaign import CampaignState, campaign_id, project_campaign, ruling_dice
from ledger.domain.errors import (
    CampaignNotFound,
    ChainBroken,
    ConcurrencyExhausted,
    EventNotFound,
    IdempotencyConflict,
    InvalidInput,
    StateConflict,
)
from ledger.rules.core import Die, RulesError, get_ruleset
from ledger.economy.sheets import Budget
from ledger.economy.treasury_log import Economy
from ledger.seeds import SeedBox
from ledger.store.recorders import Extras, IdempotencyRecord, PendingAppend
from ledger.draft import Appended, Draft
from ledger.usecases import HANDLERS

logger = logging.getLogger("ledger.application")
MAX_ATTEMPTS = 20


def visibility(scope: str = "public", countries: list[str] | None = None) -> dict[str, Any]:
    """A visibility as events carry it, validated by the command model's rules."""
    fields: dict[str, Any] = {"scope": scope, "countries": countries or None}
    try:
        return cmd.Visibility.model_validate(fields).as_dict()
    except ValidationError as e:
        err = cmd.invalid(e)
        raise InvalidInput(err.message, field=f"visibility.{err.field}" if err.field else "visibility") from None


def idempotency_scope(cid: UUID, actor: Actor) -> str:
    """Whose Idempotency-Keys a key is looked up among: one campaign token's (by its id), else, for callers
    without a campaign token (the admin token, loopback development, the command line), the role and name."""
    if actor.token:
        return f"{cid}|token|{actor.token}"
    return f"{cid}|{actor.role}|{actor.country or ''}|{actor.id}"


@dataclass(frozen=True)
class Queued:
    """A command's append queued for the next group commit, and what to answer once it committed."""

    request: PendingAppend
    lead: bool  # its caller leads that commit
    before: int  # the head it was drafted on
    state: CampaignState  # the head it makes
    result: Appended
    epoch: int


class CampaignWriter:
    """The right to write one campaign in this process: reentrant, and handed to the waiting threads in the
    order they asked for it.

    threading.Lock and RLock let whichever thread the scheduler wakes first take them, so with a game master
    and eight players writing one campaign some requests waited behind dozens of others (the slow tail of
    the hot-campaign benchmark); a hand-off in arrival order bounds a request's wait by the writers ahead of it.
    """

    __slots__ = ("_mutex", "_owner", "_depth", "_waiting", "_tip", "_epoch")

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None
        self._depth = 0
        self._waiting: deque[tuple[int, threading.Lock]] = deque()
        # The last append queued and not yet answered (group commit): the next command is drafted on the
        # head it makes. ``_epoch`` counts the failures that dropped such a chain of queued appends.
        self._tip: Queued | None = None
        self._epoch = 0

    def tip(self) -> tuple[int, Queued | None]:
        """(epoch, the queued append to draft on, or None: draft on the stored head)."""
        with self._mutex:
            if self._tip is not None and self._tip.request.error is not None:
                self._tip, self._epoch = None, self._epoch + 1
            return self._epoch, self._tip

    def drafted_on(self, queued: Queued) -> None:
        with self._mutex:
            if queued.epoch == self._epoch:  # else a failure dropped what it was drafted on: it fails too
                self._tip = queued

    def landed(self, queued: Queued) -> None:
        with self._mutex:
            if self._tip is queued:
                self._tip = None  # the head it made is the cached head now

    def failed(self, queued: Queued) -> bool:
        """Drop the chain of queued appends the failed one belongs to (once); True when it was dropped here."""
        with self._mutex:
            if queued.epoch != self._epoch:
                return False
            self._tip, self._epoch = None, self._epoch + 1
            return True

    def __enter__(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return
            if self._owner is None:
                self._owner, self._depth = me, 1
                return
            gate = threading.Lock()
            gate.acquire()
            self._waiting.append((me, gate))
        gate.acquire()  # released by the owner, who made this thread the owner first

    def __exit__(self, *exc: object) -> None:
        with self._mutex:
            self._depth -= 1
            if self._depth:
                return
            if self._waiting:
                self._owner, gate = self._waiting.popleft()
                self._depth = 1
                gate.release()
            else:
                self._owner = None


def summarise(event: ev.LedgerEvent) -> dict[str, Any]:
    return {"position": event.originator_version, "type": type(event).__name__, "hash": event.hash}


class Ledger(Application[UUID]):
    """Campaign histories: create, turns, dice, rulings, treasury, corrections, audit."""

    name = "Ledger"

    def __init__(self, settings: Settings | None = None, env: dict[str, str] | None = None):
        self.settings = settings or Settings()
        with _opening(self.settings):
            super().__init__(env={**self.settings.event_env(), **(env or {})})
        self._heads: LRUCache[UUID, CampaignState] = LRUCache(maxsize=self.settings.head_cache_size)
        self._heads_lock = threading.Lock()
        self.conflicts = 0  # appends that failed (a lost race, mostly) and whose command ran again (tests, benchmarks)
        self._seeds: dict[tuple[UUID, int, str, str], bytes] = {}
        self._writers: dict[UUID, CampaignWriter] = {}  # one writer per campaign in this process (execute)
        self._economies: LRUCache[UUID, Economy] = LRUCache(maxsize=self.settings.head_cache_size)
        self._scenarios: LRUCache[UUID, dict[str, Any]] = LRUCache(maxsize=self.settings.head_cache_size)
        self.signer = load_signer(self.settings)
        self.seed_box = SeedBox(self.signer.derived_key(b"ledger dice seeds"))

    # ------------------------------------------------------------ write side

    def _head(self, cid: UUID, *, refresh: bool = False, head: int | None = None) -> CampaignState:
        try:
            state = self._heads.get(cid)
        except KeyError:
            try:
                state = self._load(cid)
            except (CampaignNotFound, ChainBroken):
                raise
            except Exception as e:  # an undecodable or misplaced row: say where, never a traceback
                raise self._broken(cid, e) from None
        else:
            # One indexed query: decode new events only when another writer (or process) appended.
            if head is None and refresh:
                head = self.recorder.head_version(cid)  # type: ignore[attr-defined]
            if not refresh or head == state.version:
                return state
            try:
                state = self._fold(state, self.events.get(cid, gt=state.version))
                self._check_signed_head(state)
            except ChainBroken:
                raise
            except Exception as e:
                raise self._broken(cid, e) from None
        self._cache_head(state)
        return state

    def _load(self, cid: UUID) -> CampaignState:
        """A cold load: the latest snapshot if it checks out against the chain, then the tail, links checked."""
        state = self._snapshot_state(cid)
        if state is None:
            state = self._fold(None, self.events.get(cid))
            if state is None:
                raise CampaignNotFound(f"no campaign with id {cid}", field="campaign")
        else:
            state = self._fold(state, self.events.get(cid, gt=state.version))
        self._check_signed_head(state)
        return state

    def _fold(self, state: CampaignState | None, events: Any) -> CampaignState | None:
        """Fold events, checking each one's position and link to the head it builds on."""
        for e in events:
            version, head = (state.version, state.head_hash) if state is not None else (0, GENESIS)
            if e.originator_version != version + 1 or e.prev_hash != head:
                raise ValueError(f"the stored history does not link at position {version + 1}")
            state = project_campaign(state, [e])
        return state

    def _snapshot_state(self, cid: UUID) -> CampaignState | None:
        """The latest snapshot's state, or None when there is none or it does not check out (logged).

        A snapshot is a cache, not a record: it is used only if the service's key sealed it (a row written
        by anyone else, e.g. a GM token added with SQL, is ignored) and if the event it folds to is still the
        stored event at its position (one indexed read).
        """
        found = self._checked_snapshot(cid)
        if found is None:
            return None
        position, state, problem = found
        if problem is not None:
            logger.warning("campaign %s: snapshot at %s ignored, the state is rebuilt from the events (%s)",
                           cid, position, problem)
        return state

    def check_snapshot(self, cid: UUID) -> tuple[int, str | None] | None:
        """The latest snapshot's position and why it is refused (None: it is used); None when there is none.
        A snapshot edited in the database is located here (``verify`` walks the events, not this cache)."""
        found = self._checked_snapshot(cid)
        return None if found is None else (found[0], found[2])

    def _checked_snapshot(self, cid: UUID, lte: int | None = None
                          ) -> tuple[int, CampaignState | None, str | None] | None:
        """(position, state, None) of the latest snapshot (at or before ``lte``) if it checks out, (position,
        None, why) if not."""
        if self.snapshots is None:
            return None
        position = 0
        try:
            [snap] = list(self.snapshots.get(cid, lte=lte, desc=True, limit=1)) or [None]
            if snap is None:
                return None
            position = snap.originator_version
            data = dict(snap.state)
            seal = bytes.fromhex(data.pop("seal", None) or "")
            form = data.get("seal_form", 1)  # signed with the rest: changing it fails the seal
            if form not in (1, 2) or not self.signer.verify(
                    _snapshot_message(cid, snap.originator_version, data, form=form), seal):
                raise ValueError("its seal does not verify with the service's key")
            data.pop("seal_form", None)
            state = CampaignState.from_dict(data)
            if state.version != snap.originator_version or state.treasury is None or state.merkle is None \
                    or state.stacks is None or state.closed_at is None \
                    or state.military is None or state.views is None or state.held is None:
                raise ValueError("it is older than the state it should hold")
            at = self.recorder.select_events(cid, gt=state.version - 1, lte=state.version)
            if len(at) != 1 or orjson.loads(at[0].state).get("hash") != state.head_hash:
                raise ValueError(f"its head hash is not the stored event's at position {state.version}")
        except Exception as e:
            return position, None, str(e) or type(e).__name__
        return position, state, None

    def state_at(self, cid: UUID, position: int) -> CampaignState | None:
        """The write-side state just after ``position`` (None before the first event): the latest sealed
        snapshot at or before it, then the events after it up to ``position`` (a snapshot interval at most,
        where snapshots are kept). For a disputed ruling checked against the map as it stood (rare)."""
        found = self._checked_snapshot(cid, lte=position)
        state = found[1] if found is not None else None
        return self._fold(state, self.events.get(cid, gt=state.version if state is not None else None,
                                                 lte=position))

    def _check_signed_head(self, state: CampaignState) -> None:
        """The head must be one the service signed (one indexed read): an event appended, or a tail rewritten
        and re-hashed, by someone writing to the database without the key is refused here (by ``_head``)."""
        signed = self.recorder.signed_checkpoints(state.id, state.version)  # type: ignore[attr-defined]
        expected = self.signer.note(state.id, state.version, state.root)
        if not signed or signed[0][1] != expected:
            raise ValueError(f"the head (position {state.version}) is not one the service signed")

    def _broken(self, cid: UUID, cause: Exception) -> ChainBroken:
        report = self.verify(cid)
        where = (f"at position {report.broken_at}: {report.reason}" if not report.intact
                 else f"({type(cause).__name__}: {cause})")
        return ChainBroken(f"the stored history of campaign {cid} is damaged {where}", field="campaign")

    def execute(
        self,
        cid: UUID,
        actor: Actor,
        command: Callable[[Draft], dict[str, Any] | None],
        *,
        context: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
        request: Any = None,
        creating: bool = False,
    ) -> Appended:
        """Run ``command(draft)`` on the campaign's current state and append what it drafted.

        The extension point for every use case: a command reads ``draft.state``,
        may draw ``draft.dice_for(visibility)``, queues events with ``draft.add`` and returns the
        response data. It must raise before queueing anything that does not fit.

        One writer per campaign at a time in this process, in arrival order
        (``CampaignWriter``): concurrent requests queue here instead of all
        drafting on the same head and all but one failing the insert, then
        retrying on fresh state (a retry storm that grows with the square of
        the writers). Other processes still race: the loser re-runs its
        command on fresh state.

        With PostgreSQL's group commit the writer is held for the drafting only:
        the events are queued for the next commit and the next command of the
        campaign is drafted on the head they make, so a campaign's queued
        appends share one commit instead of one commit each (the hot campaign:
        a game master and eight players). Each caller is answered once its own
        append committed; one that fails fails those drafted on it, which are
        drafted again (``_attempt``).
        """
        writer = self._writers.get(cid)
        if writer is None:
            writer = self._writers.setdefault(cid, CampaignWriter())
        scope = idempotency_scope(cid, actor)
        try:
            request_hash = hashlib.sha256(canonical_json(request)).hexdigest() if idempotency_key else ""
        except NotCanonical as e:
            raise _not_storable(e) from None
        for attempt in range(MAX_ATTEMPTS):
            with writer:
                step = self._attempt(cid, actor, command, writer, attempt, context=context, scope=scope,
                                     idempotency_key=idempotency_key, request_hash=request_hash, creating=creating)
            if isinstance(step, Queued):
                step = self._landed(cid, writer, step, attempt)
            if step is not None:
                return step
            self.conflicts += 1
            # Someone appended first (or the same key won a race): re-run on fresh state.
            time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise ConcurrencyExhausted(f"campaign {cid} is too busy: gave up after {MAX_ATTEMPTS} attempts", field="campaign")

    def _attempt(self, cid: UUID, actor: Actor, command: Callable[[Draft], dict[str, Any] | None],
                 writer: CampaignWriter, attempt: int, *, context: dict[str, Any] | None, scope: str,
                 idempotency_key: str | None, request_hash: str, creating: bool) -> Appended | Queued | None:
        """One run of the command, under the campaign's writer: the answer (appended, or replayed for a known
        key), the append queued for the next group commit, or None when it lost a race (run it again).

        A known key is looked up only once the first run failed: a replay's append then fails on the key (it
        is stored with the first result, in the same transaction), or its command on the state the first one
        left. A new key, the usual case, costs no query while the campaign's writer is held.
        """
        if idempotency_key and attempt > 0:
            replay = self._replay(scope, idempotency_key, request_hash)
            if replay:
                return replay
        epoch, after = writer.tip()
        if after is not None:
            state = after.state
        else:
            state = self._head_or_genesis(cid) if creating else self._head(cid, refresh=attempt > 0)
        draft = Draft(state, self, actor, context or {})
        pipelined = self._pipelined()
        if after is not None:
            self.recorder.reading_after(after.request)  # type: ignore[attr-defined]
        try:
            data = command(draft) or {}
        except Exception:
            replay = self._replay(scope, idempotency_key, request_hash) if idempotency_key and not attempt else None
            if replay:
                return replay
            raise
        finally:
            if pipelined:
                self.recorder.reading_after(None)  # type: ignore[attr-defined]
        if draft.drawn:
            data.setdefault("dice", [d.model_dump(mode="json") for d in draft.drawn])
        try:
            sealed = draft.seal()
        except NotCanonical as e:
            raise _not_storable(e) from None
        new_state = project_campaign(state if state.version else None, sealed)
        assert new_state is not None
        # Signed before the append and written with it: every stored head is one the service signed.
        note = self.signer.note(cid, new_state.version, new_state.root)
        # Canonical (sorted) form, so a replayed response is byte-identical to the first; the same bytes are
        # the stored response of an Idempotency-Key (encoded once).
        response = canonical_json(
            Appended(str(cid), tuple(summarise(e) for e in sealed), data, checkpoint=note).to_json())
        result = Appended.from_json(orjson.loads(response), replayed=False)
        extras = Extras(idempotency=IdempotencyRecord(scope, idempotency_key, request_hash, response)
                        if idempotency_key else None, seeds=draft.extras.seeds,
                        checkpoint=(cid, new_state.version, note))
        stored = [self.mapper.to_stored_event(e) for e in sealed]
        if pipelined:
            queued, lead = self.recorder.enqueue(  # type: ignore[attr-defined]
                stored, extras, after.request if after is not None else None)
            pending = Queued(queued, lead, state.version, new_state, result, epoch)
            writer.drafted_on(pending)
            return pending
        try:
            self.recorder.insert_events(stored, extras=extras)
        except IntegrityError:
            return None
        self._committed(state.version, new_state)
        return result

    def _pipelined(self) -> bool:
        return bool(getattr(self.recorder, "group_commit", False))

    def _landed(self, cid: UUID, writer: CampaignWriter, queued: Queued, attempt: int) -> Appended | None:
        """Wait for a queued append's commit: its answer, or None when it failed (the command runs again)."""
        try:
            self.recorder.wait(queued.request, queued.lead)  # type: ignore[attr-defined]
        except (IntegrityError, InterfaceError, OperationalError) as e:
            # What was drafted on it fails with it: drafts start again from the stored head, with a fresh
            # budget memo (the one kept may hold entries of the appends that failed).
            if writer.failed(queued):
                self._economies.put(cid, Economy())
            if not isinstance(e, IntegrityError):  # the store is away: as the recorder's own retries did
                if attempt >= 9:
                    raise
                time.sleep(0.2)
            return None
        self._committed(queued.before, queued.state)
        writer.landed(queued)
        return queued.result

    def _committed(self, before: int, state: CampaignState) -> None:
        self._cache_head(state)
        self._maybe_snapshot(before, state)

    def _cache_head(self, state: CampaignState) -> None:
        """Keep the newest head: appends of one campaign are answered in any order once committed together."""
        with self._heads_lock:
            try:
                cached = self._heads.get(state.id)
            except KeyError:
                cached = None
            if cached is None or cached.version <= state.version:
                self._heads.put(state.id, state)

    def _head_or_genesis(self, cid: UUID) -> CampaignState:
        try:
            return self._head(cid, refresh=True)
        except CampaignNotFound:
            return CampaignState(id=cid)

    def _replay(self, scope: str, key: str, request_hash: str) -> Appended | None:
        record = self.recorder.get_idempotency(scope, key)  # type: ignore[attr-defined]
        if record is None:
            return None
        if record.request_hash != request_hash:
            raise IdempotencyConflict(
                "this Idempotency-Key was already used with a different request", field="Idempotency-Key"
            )
        return Appended.from_json(orjson.loads(record.response), replayed=True)

    def _maybe_snapshot(self, before: int, state: CampaignState) -> None:
        interval = self.settings.snapshot_interval
        if self.snapshots is not None and state.version // interval > before // interval:
            data = {**state.to_dict(), "seal_form": 2}
            # Sealed with the service's key so that a snapshot row edited in the database is ignored on load.
            data["seal"] = self.signer.sign(_snapshot_message(state.id, state.version, data, form=2)).hex()
            snap = ev.CampaignSnapshot(
                originator_id=state.id,
                originator_version=state.version,
                timestamp=datetime.now(UTC),
                state=data,
            )
            self.snapshots.put([snap])

    def remember_seed(self, cid: UUID, turn: int, audience: str, seed: bytes) -> None:
        """A seed a command just drew: the next command may be drafted on its head before it is stored (group
        commit), and finds it here under its commitment."""
        self._seeds[(cid, turn, audience, dicelib.commitment(seed))] = seed

    def turn_seed(self, cid: UUID, turn: int, audience: str | None = None, committed: str | None = None) -> bytes:
        """The secret seed of an audience of an open turn, opened with the service's key and checked against
        its commitment on the chain (``committed``); without an audience, the one plain seed of a turn opened
        before audiences (scheme 1)."""
        # Keyed by the commitment too: a seed drawn by a command whose append then failed is never used for a
        # turn whose stored commitment is another one (``remember_seed``).
        key = (cid, turn, audience or "", committed or "")
        seed = self._seeds.get(key)
        if seed is not None:
            return seed
        if audience is None:
            seed = self.recorder.get_turn_seed(cid, turn)  # type: ignore[attr-defined]
        else:
            sealed = self.recorder.get_dice_seed(cid, turn, audience)  # type: ignore[attr-defined]
            try:
                seed = self.seed_box.open(cid, turn, audience, sealed) if sealed is not None else None
            except ValueError as e:
                raise StateConflict(f"the stored seed of turn {turn} ({audience}) cannot be used: {e}",
                                    field="turn") from None
            if seed is not None and dicelib.commitment(seed) != committed:
                raise StateConflict(f"the stored seed of turn {turn} ({audience}) is not the one its commitment "
                                    "on the chain names", field="turn")
        if seed is None:
            raise StateConflict(f"turn {turn} has no seed on this server", field="turn")
        self._seeds[key] = seed
        return seed

    # ------------------------------------------------------------ commands

    def handle(self, cid: UUID, command: cmd.Command, *, actor: Actor = SYSTEM, idempotency_key: str | None = None,
               **extra: Any) -> Appended:
        """Run the use case of ``command`` on campaign ``cid`` (ledger/usecases/) and append what it drafted.

        Every write goes through here, from the HTTP routes, the CLI and scripts. The idempotency hash is the
        command's canonical JSON; ``extra`` is what a use case needs that is not part of the request (the
        hash of a token's secret), so it stays out of the hash.
        """
        use = HANDLERS[type(command)]
        context = getattr(command, "context", None)

        def run(d: Draft) -> dict[str, Any] | None:
            vis = getattr(command, "visibility", None)
            for country in (vis.countries or ()) if vis is not None else ():
                d.state.require_country(country, "visibility.countries")
            data = use.run(d, command, **extra)
            # The sequence of play, checked like the board (ledger/sequence.py), once the command's own checks
            # (names, the board) have spoken: a refusal here discards what the use case drafted.
            sequence.check(d, command)
            return data

        result = self.execute(cid, actor, run, context=context.as_dict() if context is not None else None,
                              idempotency_key=idempotency_key, creating=use.creating,
                              # Hashed only under an Idempotency-Key: a command's full dump is CPU on every append.
                              request=command.request() if idempotency_key else None)
        positions.note(result)  # the position a read names to see this write (read-your-writes, on a replica)
        return result

    def preview(self, cid: UUID, command: cmd.Command, *, actor: Actor = SYSTEM) -> Appended:
        """What ``handle`` would append and answer, appended nowhere (a dispute's re-resolution shown before
        it is recorded). A preview draws no server dice: a use case that needs one says so instead."""
        return self.drafted(cid, command, actor=actor)[0]

    def drafted(self, cid: UUID, command: cmd.Command, *, actor: Actor = SYSTEM
                ) -> tuple[Appended, list[ev.LedgerEvent]]:
        """``preview``, with the events it would append (a what-if folds them into the views)."""
        use = HANDLERS[type(command)]
        context = getattr(command, "context", None)
        draft = Draft(self._head(cid, refresh=True), self, actor, context.as_dict() if context is not None else {})
        draft.dry_run = True
        data = use.run(draft, command) or {}
        sealed = draft.seal()
        return Appended(str(cid), tuple(summarise(e) for e in sealed), data), sealed

    def submit(self, cid: UUID, kind: type[cmd.Command], *, actor: Actor = SYSTEM, idempotency_key: str | None = None,
               vis: dict[str, Any] | None = None, context: dict[str, Any] | None = None, **fields: Any) -> Appended:
        """Build a command from Python values (validated as a request body would be) and handle it.

        For scripts and tests; ``vis`` and ``context`` are the visibility and context as plain dicts.
        """
        if vis is not None:
            fields["visibility"] = vis
        if context is not None:
            fields["context"] = context
        return self.handle(cid, cmd.build(kind, **fields), actor=actor, idempotency_key=idempotency_key)

    # Shorthands of ``submit`` for the commands scripts and tests use most.

    def create_campaign(self, *, actor: Actor = SYSTEM, idempotency_key: str | None = None, **fields: Any
                        ) -> Appended:
        command = cmd.build(cmd.CreateCampaign, **fields)
        return self.handle(campaign_id(command.slug), command, actor=actor, idempotency_key=idempotency_key)

    def open_turn(self, cid: UUID, **kw: Any) -> Appended:
        return self.submit(cid, cmd.OpenTurn, **kw)

    def close_turn(self, cid: UUID, turn: int | None = None, **kw: Any) -> Appended:
        """Scripts and tests may leave the turn out: the campaign's current one. People name it (CLI, HTTP)."""
        if turn is None:  # before the first turn, turn 1: the use case then says no turn is open
            turn = max(self.campaign(cid).turn, 1)
        return self.submit(cid, cmd.CloseTurn, turn=turn, **kw)

    def close_phase(self, cid: UUID, phase: str, **kw: Any) -> Appended:
        return self.submit(cid, cmd.ClosePhase, phase=phase, **kw)

    def roll(self, cid: UUID, **kw: Any) -> Appended:
        return self.submit(cid, cmd.RollDice, **kw)

    def record_manual_roll(self, cid: UUID, *, values: list[int], **kw: Any) -> Appended:
        """Physical dice rolled at the table, entered by a game master (flagged manual)."""
        return self.submit(cid, cmd.RollDice, values=values, **kw)

    def record_ruling(self, cid: UUID, **kw: Any) -> Appended:
        return self.submit(cid, cmd.RecordRuling, **kw)

    def record_treasury_entry(self, cid: UUID, **kw: Any) -> Appended:
        return self.submit(cid, cmd.RecordTreasuryEntry, **kw)

    def record_correction(self, cid: UUID, **kw: Any) -> Appended:
        return self.submit(cid, cmd.RecordCorrection, **kw)

    # ------------------------------------------------------------ what use cases read besides the state

    def budget_of(self, state: CampaignState) -> Budget:
        """The campaign's budget as its write-side state says (its treasury log): no history is read.

        Called under the campaign's writer lock (a use case in ``execute``); the inputs and the sheet memo are
        kept per campaign and fast-forwarded, so only the sheets that changed are computed.
        """
        if state.treasury is None:
            raise StateConflict("the campaign's state has no treasury log", field="campaign")
        try:
            economy = self._economies.get(state.id)
        except KeyError:
            economy = Economy()
            self._economies.put(state.id, economy)
        return economy.budget(state.treasury)

    def scenario(self, cid: UUID) -> dict[str, Any] | None:
        """The campaign's imported scenario (position 2), or None; cached, since it never changes."""
        try:
            return self._scenarios.get(cid)
        except KeyError:
            pass
        found = list(self.events.get(cid, gt=1, lte=2))
        if not found or not isinstance(found[0], ev.ScenarioImported):
            return None
        self._scenarios.put(cid, found[0].scenario)
        return found[0].scenario

    # ------------------------------------------------------------ reads

    def campaign(self, cid: UUID, *, head: int | None = None) -> CampaignState:
        """The campaign's state at its head; ``head``: its last position as the caller has just read it from
        this store (``recorder.head_version``), so that it is not asked for again."""
        return self._head(cid, refresh=True, head=head)

    def campaigns(self) -> list[CampaignState]:
        """Every campaign whose history loads; a damaged one is left out and logged (its own routes say why)."""
        found = []
        for cid in self.recorder.campaign_ids():  # type: ignore[attr-defined]
            try:
                found.append(self.campaign(cid))
            except ChainBroken as e:
                logger.error("campaign %s left out of the list: %s", cid, e.message)
        return found

    def history(self, cid: UUID, *, after: int = 0, limit: int | None = None) -> list[ev.LedgerEvent]:
        self._head(cid)  # 404 for an unknown campaign
        return list(self.events.get(cid, gt=after or None, limit=limit))

    def event_at(self, cid: UUID, position: int) -> ev.LedgerEvent:
        found = list(self.events.get(cid, gt=position - 1, lte=position)) if position >= 1 else []
        if not found:
            raise EventNotFound(f"campaign has no event at position {position}", field="position")
        return found[0]

    def stored_rows(self, cid: UUID) -> Iterator[StoredRow]:
        """Raw rows in pages, as stored: what verification reads."""
        after = 0
        while True:
            page = self.recorder.select_events(cid, gt=after or None, limit=5000)
            for s in page:
                yield StoredRow(cid, s.originator_version, s.topic, bytes(s.state))
            if len(page) < 5000:
                return
            after = page[-1].originator_version

    def verify(self, cid: UUID, *, expect_head: tuple[int, str] | None = None, checkpoint: str | None = None
               ) -> ChainReport:
        """Walk the raw rows (no domain state is built, so nothing stored can make this crash) and name the
        first position that does not match: the chain itself, the checkpoints the service signed, and what a
        caller noted (a head ``(position, hash)`` or a signed checkpoint of theirs)."""
        expectations = []
        if expect_head is not None:
            if expect_head[0] < 1:
                raise InvalidInput("the position of the head you noted starts at 1", field="expect_head")
            expectations.append(Expectation(expect_head[0], head_hash=expect_head[1], source="the head you noted"))
        if checkpoint is not None:
            noted = self.parse_checkpoint(cid, checkpoint)
            expectations.append(Expectation(noted.size, root=noted.root, source="your checkpoint"))
        rows = list(self.stored_rows(cid))
        # Read after the rows: the events and their checkpoint commit together, so every row read is covered.
        signed = []
        for size, note in self.recorder.signed_checkpoints(cid):  # type: ignore[attr-defined]
            try:
                cp = parse_note(note, self.signer.name, self.signer.public)
            except CheckpointError:
                cp = None
            signed.append(Expectation(size, root=cp.root if cp is not None and cp.size == size else None,
                                      source="the checkpoint the service signed", signed=True))
        if not rows and not signed:
            raise CampaignNotFound(f"no campaign with id {cid}", field="campaign")
        return verify_rows(rows, expectations=[*signed, *expectations], require_signed=True)

    def sign_head(self, cid: UUID) -> str:
        """Sign the head of a history written before checkpoints existed (the operator attests to it).

        Refused unless the rows verify as a chain: a signature never covers a break the walk can see.
        """
        report = verify_rows(self.stored_rows(cid))
        if report.count == 0:
            raise CampaignNotFound(f"no campaign with id {cid}", field="campaign")
        if not report.intact:
            raise StateConflict(f"the history is broken at position {report.broken_at}: {report.reason}",
                                field="campaign")
        note = self.signer.note(cid, report.count, bytes.fromhex(report.root or ""))
        self.recorder.add_checkpoint(cid, report.count, note)  # type: ignore[attr-defined]
        return note

    def parse_checkpoint(self, cid: UUID, text: str, field_name: str = "checkpoint") -> Any:
        try:
            cp = parse_note(text, self.signer.name, self.signer.public)
        except CheckpointError as e:
            raise InvalidInput(str(e), field=field_name) from None
        if cp.origin != self.signer.origin(cid):
            raise InvalidInput(f"the checkpoint is for {cp.origin!r}, not {self.signer.origin(cid)!r}",
                               field=field_name)
        return cp

    # ------------------------------------------------------------ checkpoints and proofs

    def checkpoint(self, cid: UUID, turn: int | None = None) -> str:
        """The signed checkpoint at the campaign's head (as every write returned it), or the one signed with
        the write that closed ``turn``: a turn's closing receipt, as stored then (one indexed read)."""
        state = self._head(cid, refresh=True)
        if turn is None:
            return self.signer.note(cid, state.version, state.root)
        position = (state.closed_at or {}).get(str(turn))
        if position is None:
            raise StateConflict(f"turn {turn} has not been closed" if turn <= state.turn else
                                f"there is no turn {turn} yet (the last is {state.turn})", field="turn")
        signed = self.recorder.signed_checkpoints(cid, position)  # type: ignore[attr-defined]
        if not signed:
            raise StateConflict(f"no checkpoint was signed when turn {turn} closed (position {position}): the "
                                "history predates signed checkpoints", field="turn")
        return signed[0][1]

    def leaf_hashes(self, cid: UUID, size: int) -> list[bytes]:
        """The Merkle leaves (hashes of the stored event hashes) of positions 1..size, from the raw rows."""
        leaves = []
        for row in self.stored_rows(cid):
            if row.position > size:
                break
            leaves.append(merkle.leaf_hash(bytes.fromhex(orjson.loads(row.state)["hash"])))
        return leaves

    def _proof_size(self, cid: UUID, size: int | None, field_name: str) -> int:
        head = self._head(cid, refresh=True).version
        if size is None:
            return head
        if not 1 <= size <= head:
            raise InvalidInput(f"the tree size must be between 1 and the head ({head})", field=field_name)
        return size

    def inclusion_proof(self, cid: UUID, position: int, size: int | None = None) -> dict[str, Any]:
        n = self._proof_size(cid, size, "size")
        if not 1 <= position <= n:
            raise InvalidInput(f"the position must be between 1 and the tree size ({n})", field="position")
        leaves = self.leaf_hashes(cid, n)
        return {"position": position, "size": n, "leaf_hash": leaves[position - 1].hex(),
                "root": merkle.root(leaves).hex(),
                "proof": [h.hex() for h in merkle.inclusion_proof(position - 1, leaves)]}

    def consistency_proof(self, cid: UUID, first: int, second: int | None = None) -> dict[str, Any]:
        n = self._proof_size(cid, second, "to")
        if not 1 <= first <= n:
            raise InvalidInput(f"'from' must be between 1 and 'to' ({n})", field="from")
        leaves = self.leaf_hashes(cid, n)
        return {"from": first, "to": n, "from_root": merkle.root(leaves[:first]).hex(),
                "to_root": merkle.root(leaves).hex(),
                "proof": [h.hex() for h in merkle.consistency_proof(first, leaves)]}

    def verify_dice(self, cid: UUID, turn: int, actor: Actor | None = None,
                    revealed: Collection[int] = ()) -> dicelib.DiceReport:
        """Recompute every server roll of a closed turn, of every audience (the service sees every seed); with an
        ``actor`` who may not see everything, only the rolls they may see (``dice.verify_for``)."""
        records = (dicelib.TurnRecord(e.position, e.type, e.visibility, e.context.get("turn"), e.payload())
                   for e in self.history(cid))
        if actor is None:
            return dicelib.verify_records(str(cid), turn, records)
        return dicelib.verify_for(actor, revealed, str(cid), turn, records)

    def recompute(self, cid: UUID, position: int | None = None, *, checked: list[int] | None = None,
                  board: list[dict[str, Any]] | None = None, incomes: list[dict[str, Any]] | None = None
                  ) -> list[dict[str, Any]]:
        """Recompute every recorded ruling (and every ruling a correction resolved again) from its inputs and
        dice, or only the one at ``position``; list those that differ. ``checked`` collects the positions
        recomputed; ``board`` the disagreements of each recorded ruling's inputs with the board and the map
        state before it (``board_facts.audit``: position, procedure, field, typed, board, overridden), the
        state folded forward along the one read of the history. ``incomes`` collects every confirmed income
        line (``IncomeConfirmed``) that disagrees with the lines worked out again from the state at the position
        it cites (``ledger.economy.income.audit``), a line kept by the game master with its reason."""
        from ledger.rules.core import FixedDice
        from ledger import board_facts
        from ledger.economy import income as income_lines

        if incomes is not None and board is None:
            board = []  # the state is folded forward only along with the board's audit

        differences = []
        if position is not None:
            one = self.event_at(cid, position)  # a position beyond the history says so
            history = self.events.get(cid, lte=position) if board is not None else [one]
        else:
            history = self.history(cid)
        scenario = self.scenario(cid) if board is not None else None
        state: CampaignState | None = None
        for e in history:
            before, state = state, project_campaign(state, [e]) if board is not None else None
            if position is not None and e.originator_version != position:
                continue
            if incomes is not None and before is not None and isinstance(e, ev.IncomeConfirmed):
                at = before if e.at == before.version else self.state_at(cid, e.at)
                incomes.extend({"position": e.originator_version, "country": e.country, "turn": e.turn,
                                "at": e.at, **found} for found in income_lines.audit(at, e.country, e.lines))
            if board is not None and before is not None and isinstance(e, ev.RulingRecorded):
                board.extend({"position": e.originator_version, "procedure": e.procedure, **found}
                             for found in board_facts.audit(before, scenario, e.ruleset, e.procedure, e.ruling,
                                                              e.context))
            if isinstance(e, ev.RulingRecorded):
                recorded, ruleset, version = e.ruling, e.ruleset, e.ruleset_version
            elif isinstance(e, ev.CorrectionRecorded) and isinstance(e.replacement, dict) \
                    and "rework" in e.replacement:
                recorded = e.replacement["ruling"]
                ruleset, version = recorded["ruleset"], recorded["ruleset_version"]
            else:
                continue
            procedure = recorded.get("procedure") or getattr(e, "procedure", "")
            if checked is not None:
                checked.append(e.originator_version)
            rs = get_ruleset(ruleset)
            if rs.version != version:
                differences.append({"position": e.originator_version, "procedure": procedure,
                                    "status": "skipped", "reason": f"recorded with {ruleset} "
                                    f"{version}, this server runs {rs.version}"})
                continue
            dice = FixedDice([Die.model_validate(d) for d in ruling_dice(recorded)])
            try:
                again = rs.get(procedure).resolve(recorded["inputs"], dice).model_dump(mode="json")
            except (RulesError, ValueError) as err:
                differences.append({"position": e.originator_version, "procedure": procedure,
                                    "status": "error", "reason": str(err)})
                continue
            for kept in ("carried", "overridden", "from_board"):  # not computed: the inputs hold the values
                if kept in recorded:
                    again[kept] = recorded[kept]
            if canonical_json(again) != canonical_json(recorded):
                changed = sorted(k for k in set(again) | set(recorded) if again.get(k) != recorded.get(k))
                differences.append({"position": e.originator_version, "procedure": procedure,
                                    "status": "differs", "reason": f"fields differ: {', '.join(changed)}"})
        return differences


def _snapshot_message(cid: UUID, position: int, data: dict[str, Any], *, form: int) -> bytes:
    """What a snapshot's seal signs. Form 2 (``seal_form`` in the snapshot, written since) names the budget log's
    text by its SHA-256 instead of encoding it again: a cold load hashes the 6 MB text once rather than
    re-encoding it as canonical JSON and hashing that (a fresh process's first read: ~15 of its ~35 ms of CPU on
    the 300k campaign). Form 1 (no ``seal_form``): the snapshots written before, still accepted."""
    body = {k: v for k, v in data.items() if k != "seal"}
    log = body.get("treasury")
    if form == 2 and isinstance(log, dict) and isinstance(log.get("chunks"), str):
        body["treasury"] = {**log, "chunks": {"sha256": hashlib.sha256(log["chunks"].encode()).hexdigest()}}
    head = b"ledger-snapshot\n" if form == 1 else b"ledger-snapshot-2\n"
    return head + b"%s\n%d\n" % (str(cid).encode(), position) + hashlib.sha256(canonical_json(body)).digest()


@contextmanager
def _opening(settings: Settings) -> Iterator[None]:
    """Several processes (``ledger serve --workers N``, the follower, the CLI) or threads opening one fresh
    SQLite file at once: the library switches it to WAL, which takes the database's lock without waiting
    ("database is locked"). An exclusive lock on a file beside it serialises the openings; PostgreSQL's
    migrations are serialised by an advisory lock instead (ledger/store/recorders.py)."""
    if settings.backend != "sqlite":
        yield
        return
    path = settings.sqlite_path
    private_sqlite(path)  # 0600 (ledger/files.py): the file holds every event, hidden ones too
    lock_path = path.with_name(path.name + ".open-lock")
    private_file(lock_path, create=True)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # per open file: threads of one process exclude each other too
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _not_storable(e: Exception) -> InvalidInput:
    return InvalidInput(f"the request holds a value the ledger cannot store exactly: {e}", field="body")
