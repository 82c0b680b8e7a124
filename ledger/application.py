"""The ledger's use cases, on an eventsourcing Application.

Write path of every command: load the campaign's small write-side state (cached,
fast-forwarded only when a conflict says it is stale), run the pure command,
which may draw server dice, seal the resulting events into the hash chain, and
append them in one transaction together with the idempotency record. A
concurrent writer makes the insert fail on (campaign, position); the command is
then re-run on fresh state, so nothing interleaves and nothing is lost.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.application import AggregateNotFoundError, Application, LRUCache
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import get_topic

from ledger import dice as dicelib
from ledger.economy import entries as economy
from ledger.chain import ChainReport, NotCanonical, StoredRow, canonical_json, event_hash, hash_body, verify_rows
from ledger.config import Settings
from ledger.domain import events as ev
from ledger.domain.campaign import (
    COUNTRY_RE,
    ERS_LINE_RE,
    SLUG_RE,
    CampaignState,
    campaign_id,
    project_campaign,
    ruling_dice,
)
from ledger.domain.errors import (
    CampaignNotFound,
    ConcurrencyExhausted,
    EventNotFound,
    IdempotencyConflict,
    InvalidInput,
    StateConflict,
)
from ledger.rules.core import Die, RulesError, get_ruleset
from ledger.store.recorders import Extras, IdempotencyRecord, TurnSeed

MAX_ATTEMPTS = 20
PUBLIC = {"scope": "public"}


@dataclass(frozen=True)
class Actor:
    id: str
    role: str = "gm"
    country: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "country": self.country}


SYSTEM = Actor("ledger", "system")


def visibility(scope: str = "public", countries: list[str] | None = None) -> dict[str, Any]:
    if scope == "public":
        return dict(PUBLIC)
    if scope == "gm":
        return {"scope": "gm"}
    if scope == "countries":
        if not countries:
            raise InvalidInput("a 'countries' visibility names at least one country", field="visibility.countries")
        return {"scope": "countries", "countries": sorted(set(countries))}
    raise InvalidInput(f"visibility scope must be public, countries or gm, not {scope!r}", field="visibility.scope")


@dataclass(frozen=True)
class Appended:
    """What a command appended: positions and hashes, plus command-specific data."""

    campaign: str
    events: tuple[dict[str, Any], ...]
    data: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"campaign": self.campaign, "events": list(self.events), "data": self.data}

    @classmethod
    def from_json(cls, d: dict[str, Any], replayed: bool) -> Appended:
        return cls(d["campaign"], tuple(d["events"]), d.get("data", {}), replayed)


class ServerDice:
    """Dice derived from the turn seed, with gapless indices (a DiceSource)."""

    def __init__(self, seed: bytes, campaign: UUID, turn: int, start: int):
        self.seed, self.campaign, self.turn, self.next = seed, str(campaign), turn, start
        self.drawn: list[Die] = []

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        values = dicelib.derive(self.seed, self.campaign, self.turn, self.next, sides, count, purpose)
        die = Die(purpose=purpose, sides=sides, count=count, values=values, index=self.next)
        self.next += 1
        self.drawn.append(die)
        return die


class Draft:
    """Events a command wants to append, before they are sealed into the chain."""

    def __init__(self, state: CampaignState, ledger: Ledger, actor: Actor, context: dict[str, Any]):
        self.state, self.ledger, self.actor = state, ledger, actor
        self.context = {"turn": state.turn or None, "phase": None, "round": None, "impulse": None, **context}
        self.pending: list[tuple[type[ev.LedgerEvent], dict[str, Any], dict[str, Any]]] = []
        self.extras = Extras()
        self._dice: ServerDice | None = None

    def add(self, cls: type[ev.LedgerEvent], vis: dict[str, Any] | None = None, **payload: Any) -> int:
        """Queue an event; returns the position it will take."""
        self.pending.append((cls, payload, vis or dict(PUBLIC)))
        return self.state.version + len(self.pending)

    @property
    def dice(self) -> ServerDice:
        if self._dice is None:
            turn = self.state.require_open_turn()
            seed = self.ledger.turn_seed(self.state.id, turn)
            self._dice = ServerDice(seed, self.state.id, turn, self.state.next_roll)
        return self._dice

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
            digest = event_hash(prev, hash_body(self.state.id, position, get_topic(cls), state))
            sealed.append(
                cls(originator_id=self.state.id, originator_version=position, hash=digest, **state)  # type: ignore[arg-type]
            )
            prev = digest
        return sealed


def summarise(event: ev.LedgerEvent) -> dict[str, Any]:
    return {"position": event.originator_version, "type": type(event).__name__, "hash": event.hash}


class Ledger(Application[UUID]):
    """Campaign histories: create, turns, dice, rulings, treasury, corrections, audit."""

    name = "Ledger"

    def __init__(self, settings: Settings | None = None, env: dict[str, str] | None = None):
        self.settings = settings or Settings()
        super().__init__(env={**self.settings.event_env(), **(env or {})})
        self._heads: LRUCache[UUID, CampaignState] = LRUCache(maxsize=self.settings.head_cache_size)
        self._seeds: dict[tuple[UUID, int], bytes] = {}
        self._writers: dict[UUID, threading.RLock] = {}  # one writer per campaign in this process (execute)

    # ------------------------------------------------------------ write side

    def _head(self, cid: UUID, *, refresh: bool = False) -> CampaignState:
        try:
            state = self._heads.get(cid)
        except KeyError:
            try:
                state = self.repository.get(cid, projector_func=project_campaign)
            except AggregateNotFoundError:
                raise CampaignNotFound(f"no campaign with id {cid}", field="campaign") from None
        else:
            # One indexed query: decode new events only when another writer (or process) appended.
            if refresh and self.recorder.head_version(cid) != state.version:  # type: ignore[attr-defined]
                state = project_campaign(state, self.events.get(cid, gt=state.version))
        self._heads.put(cid, state)
        return state

    def execute(self, cid: UUID, actor: Actor, command: Callable[[Draft], dict[str, Any] | None], **kw: Any
                ) -> Appended:
        """Run ``command(draft)`` on the campaign's current state and append what it drafted (see ``_execute``).

        One writer per campaign at a time in this process: concurrent requests
        queue here instead of all drafting on the same head and all but one
        failing the insert, then retrying on fresh state (a retry storm that
        grows with the square of the writers). Other processes still race,
        and the loser re-runs its command as before.
        """
        with self._writers.setdefault(cid, threading.RLock()):
            return self._execute(cid, actor, command, **kw)

    def _execute(
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
        may draw ``draft.dice``, queues events with ``draft.add`` and returns the
        response data. It must raise before queueing anything that does not fit.
        """
        scope = f"{cid}|{actor.id}"
        try:
            request_hash = hashlib.sha256(canonical_json(request)).hexdigest() if idempotency_key else ""
        except NotCanonical as e:
            raise _not_storable(e) from None
        for attempt in range(MAX_ATTEMPTS):
            if idempotency_key:
                replay = self._replay(scope, idempotency_key, request_hash)
                if replay:
                    return replay
            state = self._head_or_genesis(cid) if creating else self._head(cid, refresh=attempt > 0)
            draft = Draft(state, self, actor, context or {})
            data = command(draft) or {}
            if draft._dice is not None:
                data.setdefault("dice", [d.model_dump(mode="json") for d in draft._dice.drawn])
            try:
                sealed = draft.seal()
            except NotCanonical as e:
                raise _not_storable(e) from None
            # Canonical (sorted) form, so a replayed response is byte-identical to the first.
            result = Appended.from_json(orjson.loads(canonical_json(
                Appended(str(cid), tuple(summarise(e) for e in sealed), data).to_json())), replayed=False)
            extras = draft.extras
            if idempotency_key:
                extras = replace(
                    extras,
                    idempotency=IdempotencyRecord(scope, idempotency_key, request_hash, canonical_json(result.to_json())),
                )
            try:
                self.save(*sealed, extras=extras)
            except IntegrityError:
                # Someone appended first (or the same key won a race): re-run on fresh state.
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
                continue
            new_state = project_campaign(state if state.version else None, sealed)
            assert new_state is not None
            self._heads.put(cid, new_state)
            self._maybe_snapshot(state.version, new_state)
            return result
        raise ConcurrencyExhausted(f"campaign {cid} is too busy: gave up after {MAX_ATTEMPTS} attempts", field="campaign")

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
            snap = ev.CampaignSnapshot(
                originator_id=state.id,
                originator_version=state.version,
                timestamp=datetime.now(UTC),
                state=state.to_dict(),
            )
            self.snapshots.put([snap])

    def turn_seed(self, cid: UUID, turn: int) -> bytes:
        key = (cid, turn)
        seed = self._seeds.get(key)
        if seed is None:
            seed = self.recorder.get_turn_seed(cid, turn)  # type: ignore[attr-defined]
            if seed is None:
                raise StateConflict(f"turn {turn} has no seed on this server", field="turn")
            self._seeds[key] = seed
        return seed

    # ------------------------------------------------------------ commands

    def create_campaign(
        self,
        *,
        slug: str,
        name: str,
        ruleset: str,
        countries: list[str],
        players: dict[str, str] | None = None,
        game_masters: list[str] | None = None,
        settings: dict[str, Any] | None = None,
        actor: Actor = SYSTEM,
        idempotency_key: str | None = None,
    ) -> Appended:
        if not SLUG_RE.match(slug):
            raise InvalidInput("slug: lower-case letters, digits and '-', at most 63 characters", field="slug")
        if not name.strip():
            raise InvalidInput("name must not be empty", field="name")
        try:
            rs = get_ruleset(ruleset)
        except RulesError as e:
            raise InvalidInput(str(e), field="ruleset") from None
        if not countries:
            raise InvalidInput("a campaign has at least one country", field="countries")
        for c in countries:
            if not COUNTRY_RE.match(c):
                raise InvalidInput(f"country code {c!r}: 2 to 4 capital letters", field="countries")
        if len(set(countries)) != len(countries):
            raise InvalidInput("countries must not repeat", field="countries")
        for c in players or {}:
            if c not in countries:
                raise InvalidInput(f"player for unknown country {c!r}", field="players")
        cid = campaign_id(slug)

        def command(d: Draft) -> dict[str, Any]:
            if d.state.version:
                raise StateConflict(f"campaign {slug!r} already exists", field="slug")
            d.context["turn"] = None
            d.add(
                ev.CampaignCreated,
                name=name.strip(),
                slug=slug,
                ruleset=rs.id,
                ruleset_version=rs.version,
                countries=list(countries),
                players=dict(players or {}),
                game_masters=list(game_masters or [actor.id]),
                settings=dict(settings or {}),
            )
            return {"id": str(cid), "slug": slug}

        request = {"slug": slug, "name": name, "ruleset": ruleset, "countries": countries, "players": players,
                   "game_masters": game_masters, "settings": settings}
        return self.execute(cid, actor, command, idempotency_key=idempotency_key, request=request,
                             creating=True)

    def open_turn(self, cid: UUID, *, actor: Actor = SYSTEM, idempotency_key: str | None = None) -> Appended:
        def command(d: Draft) -> dict[str, Any]:
            if d.state.turn_open:
                raise StateConflict(f"turn {d.state.turn} is still open: close it first", field="turn")
            turn = d.state.turn + 1
            seed = dicelib.new_seed()
            d.context["turn"] = turn
            d.extras = replace(d.extras, seed=TurnSeed(d.state.id, turn, seed))
            committed = dicelib.commitment(seed)
            d.add(ev.TurnOpened, turn=turn, commitment=committed)
            return {"turn": turn, "commitment": committed}

        return self.execute(cid, actor, command, idempotency_key=idempotency_key, request={"open_turn": True})

    def close_turn(self, cid: UUID, *, actor: Actor = SYSTEM, idempotency_key: str | None = None) -> Appended:
        def command(d: Draft) -> dict[str, Any]:
            turn = d.state.require_open_turn()
            seed = self.turn_seed(d.state.id, turn)
            d.add(ev.TurnClosed, turn=turn, seed=seed.hex(), rolls=d.state.next_roll)
            return {"turn": turn, "seed": seed.hex(), "rolls": d.state.next_roll}

        return self.execute(cid, actor, command, idempotency_key=idempotency_key, request={"close_turn": True})

    def roll(
        self,
        cid: UUID,
        *,
        purpose: str,
        sides: int = 10,
        count: int = 1,
        actor: Actor = SYSTEM,
        vis: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Appended:
        purpose = _require_text(purpose, "purpose")
        _check_dice(sides, count)

        def command(d: Draft) -> dict[str, Any]:
            die = d.dice.roll(purpose, sides, count)
            d.add(ev.DiceRolled, vis, turn=d.state.turn, index=die.index, purpose=purpose, sides=sides,
                  count=count, values=list(die.values), manual=False)
            return {}

        request = {"purpose": purpose, "sides": sides, "count": count, "visibility": vis, "context": context}
        return self.execute(cid, actor, command, context=context, idempotency_key=idempotency_key, request=request)

    def record_manual_roll(
        self,
        cid: UUID,
        *,
        purpose: str,
        sides: int,
        values: list[int],
        actor: Actor,
        vis: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Appended:
        """Physical dice rolled at the table, entered by a game master (flagged manual)."""
        purpose = _require_text(purpose, "purpose")
        _check_dice(sides, len(values))
        for v in values:
            if not 1 <= v <= sides:
                raise InvalidInput(f"a d{sides} cannot show {v}", field="values")

        def command(d: Draft) -> dict[str, Any]:
            d.state.require_open_turn()
            d.add(ev.DiceRolled, vis, turn=d.state.turn, index=None, purpose=purpose, sides=sides,
                  count=len(values), values=list(values), manual=True)
            return {"values": list(values), "manual": True, "entered_by": actor.id}

        request = {"manual": values, "purpose": purpose, "sides": sides, "visibility": vis, "context": context}
        return self.execute(cid, actor, command, context=context, idempotency_key=idempotency_key, request=request)

    def record_ruling(
        self,
        cid: UUID,
        *,
        procedure: str,
        inputs: dict[str, Any],
        actor: Actor = SYSTEM,
        vis: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        manual_dice: list[list[int]] | None = None,
        idempotency_key: str | None = None,
    ) -> Appended:
        """Resolve a procedure of the campaign's ruleset with server dice and record it.

        ``manual_dice`` lets a game master resolve with physical dice instead;
        the ruling's dice are then flagged manual.
        """
        procedure = _require_text(procedure, "procedure")

        def command(d: Draft) -> dict[str, Any]:
            d.state.require_open_turn()
            rs = get_ruleset(d.state.ruleset)
            proc = rs.get(procedure)
            if manual_dice is not None:
                source: Any = _ManualDice(manual_dice)
            else:
                source = d.dice
            given, carried = _carry(d.state, rs.id, proc, inputs)
            try:
                ruling = proc.resolve(given, source)
            except RulesError as e:
                raise InvalidInput(str(e), field=f"inputs.{e.field}" if e.field else "inputs", rule=e.rule) from None
            except ValueError as e:  # pydantic ValidationError is a ValueError
                raise _validation_error(e) from None
            if manual_dice is not None and source.unused:
                raise InvalidInput(f"{source.unused} manual dice were not used by {procedure}", field="manual_dice")
            doc = ruling.model_dump(mode="json")
            if carried:  # which inputs came from an earlier ruling, for the auditor
                doc["carried"] = carried
            position = d.add(ev.RulingRecorded, vis, procedure=procedure, ruleset=rs.id,
                             ruleset_version=rs.version, ruling=doc)
            # The treasury entries its effects imply, in the same transaction (ledger/economy.py).
            entries, unbooked = economy.entries_from_ruling(doc, procedure=procedure, ruleset=rs.id,
                                                            countries=d.state.countries)
            for entry in entries:
                d.add(ev.TreasuryEntryRecorded, vis, country=entry.country, turn=d.state.turn, line=entry.line,
                      amount=entry.amount, reason=entry.reason, source=position)
            return {"ruling": doc, **({"treasury_unbooked": unbooked} if unbooked else {})}

        request = {"procedure": procedure, "inputs": inputs, "visibility": vis, "context": context,
                   "manual_dice": manual_dice}
        try:
            return self.execute(cid, actor, command, context=context, idempotency_key=idempotency_key,
                                 request=request)
        except RulesError as e:
            raise InvalidInput(str(e), field=e.field or "procedure", rule=e.rule) from None

    def record_treasury_entry(
        self,
        cid: UUID,
        *,
        country: str,
        line: str,
        amount: int,
        reason: str,
        turn: int | None = None,
        source: int | None = None,
        actor: Actor = SYSTEM,
        vis: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Appended:
        if not ERS_LINE_RE.match(line):
            raise InvalidInput(f"ERS line {line!r}: a sheet letter A, B or C and a line number (and _pct for "
                               "a percentage box)", field="line")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidInput("amount is a whole number of ducats", field="amount")
        reason = _require_text(reason, "reason")

        def command(d: Draft) -> dict[str, Any]:
            d.state.require_country(country)
            economy.check_entry_line(d.state.ruleset, line)
            entry_turn = turn if turn is not None else d.state.turn
            if entry_turn < 1 or entry_turn > d.state.turn:
                raise InvalidInput(f"turn {entry_turn} has not been opened (current turn {d.state.turn})",
                                   field="turn")
            if source is not None and not 1 <= source <= d.state.version:
                raise InvalidInput(f"source position {source} is not in the history", field="source")
            d.add(ev.TreasuryEntryRecorded, vis, country=country, turn=entry_turn, line=line, amount=amount,
                  reason=reason, source=source)
            return {}

        request = {"country": country, "line": line, "amount": amount, "reason": reason, "turn": turn,
                   "source": source, "visibility": vis, "context": context}
        return self.execute(cid, actor, command, context=context, idempotency_key=idempotency_key, request=request)

    def record_correction(
        self,
        cid: UUID,
        *,
        corrects: int,
        reason: str,
        replacement: dict[str, Any] | None = None,
        actor: Actor = SYSTEM,
        vis: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Appended:
        reason = _require_text(reason, "reason")

        def command(d: Draft) -> dict[str, Any]:
            if not 1 <= corrects <= d.state.version:
                raise InvalidInput(f"position {corrects} is not in the history (1..{d.state.version})",
                                   field="corrects")
            d.add(ev.CorrectionRecorded, vis, corrects=corrects, reason=reason, replacement=replacement)
            return {}

        request = {"corrects": corrects, "reason": reason, "replacement": replacement, "visibility": vis}
        return self.execute(cid, actor, command, idempotency_key=idempotency_key, request=request)

    # ------------------------------------------------------------ reads

    def campaign(self, cid: UUID) -> CampaignState:
        return self._head(cid, refresh=True)

    def campaigns(self) -> list[CampaignState]:
        return [self.campaign(cid) for cid in self.recorder.campaign_ids()]  # type: ignore[attr-defined]

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

    def verify(self, cid: UUID) -> ChainReport:
        self._head(cid)
        return verify_rows(self.stored_rows(cid))

    def verify_dice(self, cid: UUID, turn: int) -> dicelib.DiceReport:
        opened: ev.TurnOpened | None = None
        closed: ev.TurnClosed | None = None
        rolls: list[dicelib.RecordedRoll] = []
        for e in self.history(cid):
            if isinstance(e, ev.TurnOpened) and e.turn == turn:
                opened = e
            elif isinstance(e, ev.TurnClosed) and e.turn == turn:
                closed = e
            elif isinstance(e, ev.DiceRolled) and e.turn == turn:
                rolls.append(dicelib.RecordedRoll(e.originator_version, e.index, e.sides, e.count, e.purpose,
                                                  tuple(e.values), e.manual))
            elif isinstance(e, ev.RulingRecorded) and e.context.get("turn") == turn:
                for die in ruling_dice(e.ruling):
                    rolls.append(dicelib.RecordedRoll(e.originator_version, die.get("index"), die["sides"],
                                                      die["count"], die["purpose"], tuple(die["values"]),
                                                      bool(die.get("manual"))))
        if opened is None:
            raise InvalidInput(f"turn {turn} was never opened", field="turn")
        if closed is None:
            raise StateConflict(f"turn {turn} is still open: its seed is revealed when it closes", field="turn")
        server_rolls = sum(1 for r in rolls if not r.manual)
        report = dicelib.verify_turn(bytes.fromhex(closed.seed), opened.commitment, str(cid), turn, rolls)
        if closed.rolls != server_rolls:
            problem = (f"turn {turn}: the closing event counts {closed.rolls} server rolls, "
                       f"the history holds {server_rolls}")
            report = replace(report, mismatches=(*report.mismatches, problem))
        return report

    def recompute(self, cid: UUID) -> list[dict[str, Any]]:
        """Recompute every recorded ruling from its inputs and dice; list those that differ."""
        from ledger.rules.core import FixedDice

        differences = []
        for e in self.history(cid):
            if not isinstance(e, ev.RulingRecorded):
                continue
            rs = get_ruleset(e.ruleset)
            if rs.version != e.ruleset_version:
                differences.append({"position": e.originator_version, "procedure": e.procedure,
                                    "status": "skipped", "reason": f"recorded with {e.ruleset} "
                                    f"{e.ruleset_version}, this server runs {rs.version}"})
                continue
            recorded = e.ruling
            dice = FixedDice([Die.model_validate(d) for d in ruling_dice(recorded)])
            try:
                again = rs.get(e.procedure).resolve(recorded["inputs"], dice).model_dump(mode="json")
            except (RulesError, ValueError) as err:
                differences.append({"position": e.originator_version, "procedure": e.procedure,
                                    "status": "error", "reason": str(err)})
                continue
            if "carried" in recorded:  # not computed: the inputs hold the carried values
                again["carried"] = recorded["carried"]
            if canonical_json(again) != canonical_json(recorded):
                changed = sorted(k for k in set(again) | set(recorded) if again.get(k) != recorded.get(k))
                differences.append({"position": e.originator_version, "procedure": e.procedure,
                                    "status": "differs", "reason": f"fields differ: {', '.join(changed)}"})
        return differences


def _carry(state: Any, ruleset: str, proc: Any, inputs: Any) -> tuple[Any, dict[str, int]]:
    """Fill the inputs a procedure carries from its previous ruling when the request leaves them out."""
    previous = state.carried.get(f"{ruleset}:{proc.code}")
    if not proc.carry or previous is None or not isinstance(inputs, dict):
        return inputs, {}
    filled = {f: previous["values"][f] for f in proc.carry if f not in inputs and f in previous["values"]}
    return {**inputs, **filled}, {f: previous["position"] for f in filled}


class _ManualDice:
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


def _not_storable(e: Exception) -> InvalidInput:
    return InvalidInput(f"the request holds a value the ledger cannot store exactly: {e}", field="body")


def _require_text(value: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must not be empty", field=name)
    if len(value) > 500:
        raise InvalidInput(f"{name} is longer than 500 characters", field=name)
    return value.strip()


def _check_dice(sides: int, count: int) -> None:
    try:
        dicelib.check_die_type(sides, count)
    except dicelib.DiceError as e:
        raise InvalidInput(str(e), field=e.field) from None


def _validation_error(e: ValueError) -> InvalidInput:
    errors = getattr(e, "errors", None)
    if callable(errors):
        first = errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        return InvalidInput(f"{loc or 'inputs'}: {first.get('msg')}", field=f"inputs.{loc}" if loc else "inputs")
    return InvalidInput(str(e), field="inputs")
