"""The views at a campaign's head, for every audience, without waiting for the projection runner.

- **Game master (every all-seeing role).** The stored view's document (or rows)
  at its position ``p``, plus the campaign's events in ``(p, head]`` the runner
  has not applied yet, applied by the same pure functions the views use. So
  the answer is exactly the state at the head whether the runner is a thread
  of this process, another process or behind by a page, and no read waits.
- **Other audiences.** A player (per country) or an observer must not learn
  from hidden events, so their map, victory and budget are replayed from the
  events they may see (``ledger.access.can_see``): kept in memory per
  (campaign, audience), fast-forwarded with the visible events of the tail,
  rebuilt when a reveal changes what they may see. Passing a visible
  ``TurnOpened`` keeps a checkpoint of that audience's documents (a bounded
  cache), so the state at a position starts from the nearest one, as the
  stored checkpoints do for a game master. Before the first event hidden
  from them that the map or victory reads more of than its position
  (``shared_until``), their state at a position starts from the game
  master's stored checkpoints instead: a new process does not fold from
  event 1 for it.
- **Kept and extended, never re-read.** An audience's economic history
  (exports, charts; its first read seeded from the views where they give it
  exactly: ``history.seeded``), the budget inputs per country of the turn page's steps
  (``budget_steps``), the turns list, the corrections and scenarios are kept
  per campaign or audience at a position and take only the events after it.

``Reader`` holds these caches for one process (the app keeps one); they are
``cachetools`` LRU caches behind locks, since the routes run in a thread pool.
Renderers return serialized JSON bytes: the caller caches them by head.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

import orjson
from cachetools import LRUCache

from ledger import dice as dicelib
from ledger.access import can_see
from ledger.application import Actor
from ledger.domain.campaign import CampaignState
from ledger.economy.sheets import RELEVANT, Budget, Inputs, Sheet, budget, compute, sheet_json
from projections import budget_public, budget_steps, budget_view, corrections, read, replay, turn_groups, views, words
from projections import history as history_model
from projections import timeline as timeline_model
from projections import victory as victory_model
from projections.history import History
from projections.read import Audience, audience, sees_all
from projections.records import BASE, Record, expand, from_row, ruling_decoder
from projections.store import NOT_PUBLIC, NOT_SHARED, POSITION_ONLY, ViewDB

Docs = dict[str, Any]
#: A kept checkpoint of an audience (``Reader._keep_checkpoint``): the JSON of its documents without their
#: append-only lists, and per document each such list with its length then.
Kept = tuple[bytes, dict[str, dict[str, tuple[list[Any], int]]]]
#: Events whose budget difference is worth computing (the others change no ERS line).
_BUDGET_EVENTS = RELEVANT - {"CampaignCreated", "ScenarioImported", "TurnOpened"}
#: Types few events have, kept per campaign by ``Reader.of_types``.
RARE = frozenset({"ScenarioImported", "CorrectionRecorded"})
_PUBLIC = orjson.dumps({"scope": "public"}).decode()
#: The rows of a campaign's timeline at positions ? < p <= ? that may make a player's map or victory differ
#: from the game master's (``Reader.shared_until``): those of a partial index (projections.store), not a scan.
NOT_SHARED_ROWS = ("SELECT position, visibility FROM {proj_timeline} WHERE campaign = ? AND position > ? "
                   f"AND position <= ? AND {NOT_SHARED} ORDER BY position")


def restricted_rows(db: ViewDB) -> str:
    """The positions at ? < p <= ? of the events the budget reads (``RELEVANT``, sorted, as parameters) not
    shown to everyone, grouped by type and visibility (``Reader._restricted_groups``): those of a partial index
    (projections.store), not a scan of the campaign's timeline."""
    joined = "string_agg(CAST(position AS text), ',')" if db.postgres else "group_concat(position)"
    return (f"SELECT type, visibility, {joined} AS positions FROM {{proj_timeline}} WHERE campaign = ? "
            f"AND position > ? AND position <= ? AND type IN ({', '.join('?' * len(RELEVANT))}) AND {NOT_PUBLIC} "
            "GROUP BY type, visibility")
#: A seeded economic history is extended with at most this many records after it (then seeded again), whose
#: sheets are computed from their first turn's records on when those are at most ``TAIL_READ`` events.
TAIL, TAIL_READ = 2000, 20000
#: ``Reader.of_types``: a range of the store longer than this is looked up by the positions the log lists.
RARE_SCAN = 2000
#: A kept lineage (``Reader._lineage_moved``) takes at most this many events after it, else it is read again.
LINEAGE_STEP = 2000
#: The events a turn's dice check reads (``ledger.dice.verify_records``).
DICE_TYPES = frozenset({"TurnOpened", "TurnClosed", "DiceSeedCommitted", "DiceSeedRevealed", "DiceRolled",
                        "RulingRecorded"})
#: What the dice check reads of a ruling (``ledger.dice.ruling_dice``): its dice and its steps' dice, not the
#: rest of its steps, inputs and outcome (a turn's rulings decoded in half the CPU: a cold turn page's largest cost).
DICE_DECODERS = {"RulingRecorded": ruling_decoder(frozenset({"dice", "steps[].dice"}))}


@dataclass(frozen=True)
class Step:
    before: Docs  # map and victory just before the event (their append-only logs: see ``Reader.step``)
    after: Docs  # ... and just after it
    changes: list[str]  # what it changed there, in words
    budget: list[dict[str, Any]]  # the ERS lines it changed, each with its sentence (``text``)


def stored_doc(db: ViewDB, cid: UUID, view: str) -> tuple[int, bytes | None]:
    with db.reading() as cur:
        cur.execute(db.sql("SELECT position, doc FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                    (view, str(cid)))
        row = cur.fetchone()
    return (int(row["position"]), bytes(row["doc"])) if row else (0, None)


def tail(ledger: Any, cid: UUID, after: int, head: int) -> list[Record]:
    """The campaign's events in ``(after, head]``, decoded once."""
    return read.records(ledger, cid, after, head)


T = TypeVar("T")
#: Threads for ``Reader.ahead``: a page starts one or two reads there; requests run in the server's pool.
AHEAD_THREADS = 4


class Reader:
    """One process's reads of the views at the head: per-audience documents, timelines, budgets."""

    def __init__(self, ledger: Any, db: ViewDB, *, audiences: int = 256, timelines: int = 100_000, budgets: int = 64,
                 histories: int = 64, checkpoint_bytes: int = 64 * 2**20, turn_rows_bytes: int = 32 * 2**20):
        self.ledger, self.db = ledger, db
        self._lock = threading.Lock()  # guards the caches below (cachetools caches are not thread-safe), briefly
        # Held while a turn's rows are extended (a read of the tail): its own, so no other read waits on it.
        self._timelines_lock = threading.Lock()
        self._audiences: LRUCache[tuple[UUID, Audience], dict[str, Any]] = LRUCache(audiences)
        # Bounded by rows, not turns: a busy server's turn pages span hundreds of small campaigns' turns (64 turns
        # kept missed 9 pages in 10 of the many-campaign load), and one turn of a long campaign holds 1,000 rows.
        self._timelines: LRUCache[tuple[UUID, int], dict[str, Any]] = LRUCache(
            timelines, getsizeof=lambda entry: len(entry["rows"]) + 1)
        self._budgets: LRUCache[tuple[UUID, str], tuple[tuple[int, int], Budget]] = LRUCache(budgets)
        # (campaign, audience) -> the budget's inputs per country for the turn page's steps (budget_steps).
        self._steps: LRUCache[tuple[UUID, Audience], budget_steps.Steps] = LRUCache(audiences)
        self._steps_lock = threading.Lock()
        self._rare: LRUCache[tuple[UUID, str], dict[str, Any]] = LRUCache(2 * audiences)  # per kind of ``RARE``
        self._rare_lock = threading.Lock()
        # campaign -> the events the map or victory reads hidden from someone: (position, visibility), in order.
        self._hidden: LRUCache[UUID, dict[str, Any]] = LRUCache(audiences)
        self._groups: LRUCache[UUID, dict[str, Any]] = LRUCache(audiences)  # Reader._turn_groups
        # Reader._restricted_places (campaign), _restricted_groups ("budget", campaign), _entry_countries.
        self._restricted: LRUCache[Any, dict[str, Any]] = LRUCache(audiences)
        # (campaign, audience) -> its economic history (exports, charts), extended with the tail.
        self._histories: LRUCache[tuple[UUID, Audience], dict[str, Any]] = LRUCache(histories)
        # (campaign, country) -> the budget view's lineage of that country's sheets (budget_steps.Lineage); and
        # (campaign, audience, view position, reveals) -> the positions of the entries (and scenario) hidden from
        # that audience.
        self._lineages: LRUCache[tuple[UUID, str], budget_steps.Lineage] = LRUCache(audiences)
        self._hidden_sheets: LRUCache[tuple[Any, ...], frozenset[int]] = LRUCache(audiences)
        self._created: LRUCache[UUID, Record] = LRUCache(audiences)
        # Closed turns' dice events, and their checks by audience and the reveals among them: small, and a busy
        # server's turn pages span more turns than it has audiences.
        self._dice_records: LRUCache[tuple[UUID, int], list[dicelib.TurnRecord]] = LRUCache(16 * audiences)
        self._dice: LRUCache[tuple[Any, ...], dicelib.DiceReport] = LRUCache(16 * audiences)
        # (campaign, a turn's start) -> the stored rows after it, in order, no gaps (``turn_records``): events
        # never change, so a prefix read once serves every later step of the turn; bounded by bytes.
        self._turn_rows: LRUCache[tuple[UUID, int], list[Any]] = LRUCache(
            turn_rows_bytes, getsizeof=lambda rows: sum(len(s.state) + 200 for s in rows) or 1)
        self._turns: LRUCache[tuple[Any, ...], list[dict[str, Any]]] = LRUCache(audiences)  # turns(), at a head
        # (campaign, audience, revealed, position) -> the audience's map and victory after that TurnOpened or
        # every CHECKPOINT_EVERY events within a turn (``_keep_checkpoint``): counted by their bytes.
        self._checkpoints: LRUCache[tuple[Any, ...], Kept] = LRUCache(checkpoint_bytes, getsizeof=lambda k: len(k[0]))
        # (campaign, audience, reveals, country) -> that country's sheets as the audience sees them
        # (``_country_sheet``): its inputs, memo and budget at a head.
        self._country_sheets: LRUCache[tuple[Any, ...], dict[str, Any]] = LRUCache(budgets)
        # (campaign, country, turn) -> (head, a game master's sheet at that head), ``sheet``.
        self._sheets: LRUCache[tuple[UUID, str, int], tuple[int, bytes | None]] = LRUCache(4 * audiences)
        # (campaign, turn, "start" | "end") -> a turn's span once the views have its opening and the next one.
        self._spans: LRUCache[tuple[UUID, int, str], int] = LRUCache(64 * audiences)
        # (campaign, view, position) -> the stored checkpoint's document (``stored_checkpoint``).
        self._stored: LRUCache[tuple[UUID, str, int], bytes] = LRUCache(checkpoint_bytes, getsizeof=len)
        self._ahead: ThreadPoolExecutor | None = None  # ``ahead``'s, made at its first use (after a worker's fork)

    def ahead(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """``fn(*args)`` started in a thread of the reader's (``AHEAD_THREADS``): a page's reads that need nothing
        of its main work (the turn page's list of turns, a closed turn's dice check) wait on the store while the
        page folds its step, not after it; ``result()`` gives what it returned or raises what it raised. A
        first turn page of a 300,000-event campaign waited ~30 ms of its ~120 on PostgreSQL, one read after
        another. Each read holds a pooled connection only while it reads, never while it waits for another."""
        with self._rare_lock:
            if self._ahead is None:
                self._ahead = ThreadPoolExecutor(AHEAD_THREADS, thread_name_prefix="reader-ahead")
        return self._ahead.submit(fn, *args)

    # ------------------------------------------------------------------ a game master's views at the head

    def doc_at_head(self, cid: UUID, view: str, head: int) -> tuple[Any, int]:
        """A map or victory document at ``head`` (raw JSON when the stored one is exactly there), and the
        position of the stored one."""
        position, raw = stored_doc(self.db, cid, view)
        if position == head and raw is not None:
            return orjson.Fragment(raw), position
        if position > head:  # the runner went past the head this request saw: replay up to it exactly
            return replay.state_at(self.ledger, self.db, cid, head)[view], position
        model = replay.MODELS[view]
        doc = orjson.loads(raw) if raw is not None else model.empty()
        for r in tail(self.ledger, cid, position, head):
            doc, _ = corrections.apply(model, doc, r, self._history(cid))
        return doc, position

    def awards_at_head(self, cid: UUID, head: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The victory document and every award at ``head`` (stored rows, then those of the tail)."""
        position, raw = stored_doc(self.db, cid, "victory")
        doc = orjson.loads(raw) if raw is not None else victory_model.empty()
        awards = [a for a in replay.awards(self.db, cid) if a["position"] <= min(position, head)]
        if position > head:  # the runner went past the head this request saw
            return replay.state_at(self.ledger, self.db, cid, head)["victory"], awards
        for r in tail(self.ledger, cid, position, head):
            doc, made = corrections.apply(victory_model, doc, r, self._history(cid))
            if r.type == "CorrectionRecorded":
                awards = []  # every award again, as the correction leaves them
            for pos, a in made or ():
                awards.append({"position": pos, "effect": a["effect"], "country": a["country"],
                               "turn": a["turn"], "points": str(a["points"]), "reason": a["reason"]})
        return doc, awards

    def _history(self, cid: UUID, actor: Actor | None = None, revealed: frozenset[int] = frozenset()
                 ) -> corrections.History:
        """Records 1..n as ``actor`` sees them: read only when a correction folds a document again."""
        if actor is None or sees_all(actor):
            return lambda upto: read.records(self.ledger, cid, 0, upto)
        return lambda upto: read.visible(actor, read.records(self.ledger, cid, 0, upto), revealed)

    def timeline_rows(self, cid: UUID, turn: int, head: int) -> list[dict[str, Any]]:
        """A turn's timeline rows (every audience's: filtered after), kept per (campaign, turn) and extended."""
        with self._timelines_lock:
            entry = self._timelines.get((cid, turn))
            if entry is None:
                entry = self._load_timeline(cid, turn)
            for r in tail(self.ledger, cid, entry["version"], head):
                row = timeline_model.row(entry["doc"], r)
                if row["turn"] == turn:
                    entry["rows"].append(row)
            entry["version"] = max(entry["version"], head)
            if len(entry["rows"]) < self._timelines.maxsize:  # a turn larger than the whole cache is not kept
                self._timelines[(cid, turn)] = entry  # again: its size is counted afresh
            rows = entry["rows"]
            return rows if not rows or rows[-1]["position"] <= head else [r for r in rows if r["position"] <= head]

    def _load_timeline(self, cid: UUID, turn: int) -> dict[str, Any]:
        """The stored rows of the turn up to the view's position for the campaign."""
        db = self.db
        # The view's position and its document (the stack owners the summaries name) in one statement, so one
        # snapshot: the document is the one at that position, which the tail then extends.
        with db.reading() as cur:
            cur.execute(db.sql("SELECT COALESCE((SELECT MAX(position) FROM {proj_timeline} WHERE campaign = ?), 0) "
                               "AS p, (SELECT doc FROM {proj_docs} WHERE view = ? AND campaign = ?) AS doc"),
                        (str(cid), timeline_model.NAME, str(cid)))
            row = cur.fetchone()
        position, raw = int(row["p"]), row["doc"]
        # Rows past ``position`` may have been committed since: the tail adds them. The turn's span bounds the
        # read (the table's key is (campaign, position): a read by turn alone scans the campaign's rows).
        start, end = self.turn_span(cid, turn)
        rows = replay.timeline(db, cid, turn=turn, gt=start, lte=position if end is None else min(position, end),
                               raw_context=True)
        return {"version": position, "rows": rows,
                "doc": orjson.loads(bytes(raw)) if raw is not None else timeline_model.empty()}

    def _budget(self, cid: UUID, country: str, events: list[list[Any]]) -> Budget:
        """``budget()`` of a country of a campaign's relevant events, recomputed only when they change (the slow
        part)."""
        sig = (len(events), events[-1][1] if events else 0)
        with self._lock:
            found = self._budgets.get((cid, country))
        if found is not None and found[0] == sig:
            return found[1]
        result = budget(budget_view.records({"events": events}), countries=[country])
        with self._lock:
            self._budgets[(cid, country)] = (sig, result)
        return result

    def sheet_at_head(self, cid: UUID, country: str, turn: int, head: int) -> dict[str, Any] | None:
        """A game master's sheet: the stored one when no entry came after the view's position, else recomputed."""
        db = self.db
        with db.reading() as cur:
            cur.execute(db.sql("SELECT position FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                        (budget_view.NAME, str(cid)))
            row = cur.fetchone()
        position = int(row["position"]) if row else 0
        records = tail(self.ledger, cid, position, head) if position <= head else []
        if row is not None and position <= head and not any(r.type in RELEVANT for r in records):
            stored = budget_view.stored_sheet(db, str(cid), country, turn, position)  # None if the view moved on
            if stored is not None:
                return stored
        elif row is not None and position <= head:
            after = self._sheet_after(cid, country, turn, head, position, records)
            if after is not None:
                return after[0]
        found = self._budget(cid, country, self.relevant_events(cid, head)).sheet(country, turn)
        return sheet_json(found) if found is not None else None

    def _sheet_after(self, cid: UUID, country: str, turn: int, head: int, view: int, records: list[Record]
                     ) -> tuple[dict[str, Any] | None] | None:
        """A game master's sheet at ``head`` when the budget view is at ``view`` and its tail ``records`` hold
        relevant events (an entry just recorded): the stored sheet before the first turn they touch
        (``budget_steps.touched``), else the country's sheets from that turn computed from the three stored
        before it and the records of that turn on, not from every entry of the campaign. A 1-tuple; None when
        that cannot be had (a correction in the tail, a stored sheet missing or failed, the view moved on)."""
        created = self._campaign_created(cid)
        since = budget_steps.touched(records, created.data.get("countries") or ()) if created else None
        if since is None:
            return None
        first = since.get(country)
        if first is None or turn < first:
            stored = budget_view.stored_sheet(self.db, str(cid), country, turn, view)
            return None if stored is None else (stored,)
        with self.db.reading() as cur:
            seeds = budget_steps.stored_seeds(self.db, cur, str(cid), country, first)
            moved = budget_steps.view_position(self.db, cur, str(cid)) != view
        found = self._relevant_from_turn(cid, None, frozenset(), first, head) if seeds is not None and not moved \
            else None
        if seeds is None or found is None:
            return None
        sheet = budget_steps.from_turn(country, first, seeds, found).sheet(country, turn)
        return (sheet_json(sheet) if sheet is not None else None,)

    def relevant_events(self, cid: UUID, upto: int) -> list[list[Any]]:
        """The events the budget reads at positions 1..upto (the view keeps no copy of them)."""
        with self.db.reading() as cur:
            return budget_view.relevant_events(self.db, cur, str(cid), upto)

    # ------------------------------------------------------------------ other audiences

    def _entry(self, cid: UUID, actor: Actor, state: CampaignState) -> dict[str, Any]:
        key = (cid, audience(actor))
        with self._lock:
            entry = self._audiences.get(key)
            if entry is None:
                entry = self._audiences[key] = {"lock": threading.Lock(), "version": 0, "revealed": None}
        return entry

    def _forward(self, entry: dict[str, Any], cid: UUID, actor: Actor, state: CampaignState) -> Docs:
        """The audience's documents at ``state.version`` (call under ``entry["lock"]``)."""
        revealed = tuple(state.revealed)
        if entry["version"] > state.version or entry["revealed"] != revealed:
            # What they see changed (or an older head than the kept one): from the first event again.
            entry.update(version=0, revealed=revealed, opened=[], docs=self._empty())
        shown = frozenset(revealed)
        docs = entry["docs"]
        since: dict[str, int] = {}
        if entry["version"] == 0:
            since = self._start_from_checkpoint(entry, cid, actor, state)
        history = self._history(cid, actor, shown)
        for r in tail(self.ledger, cid, entry["version"], state.version):
            if can_see(actor, r, shown):
                for name, model in replay.MODELS.items():
                    if r.position > since.get(name, 0):
                        docs[name], _ = corrections.apply(model, docs[name], r, history)
                if r.type in RELEVANT:
                    docs["budget"]["events"].append([r.type, r.position, budget_view.trim(r)])
                    docs["budget_result"] = None
                    if docs.get("budget_inputs") is not None:  # kept in step with the events (``visible_sheet``)
                        docs["budget_inputs"].add(*docs["budget"]["events"][-1])
                if r.type == "TurnOpened" or r.position - (entry["opened"] or [0])[-1] >= views.CHECKPOINT_EVERY:
                    entry["opened"].append(r.position)
                    self._keep_checkpoint(cid, actor, revealed, r.position, docs)
        entry["version"] = state.version
        return docs

    def _start_from_checkpoint(self, entry: dict[str, Any], cid: UUID, actor: Actor, state: CampaignState
                               ) -> dict[str, int]:
        """A fresh audience starts from the game master's stored checkpoint before ``shared_until`` (its map and
        victory are the audience's there) and the budget events it may see up to that point, read from the
        store, instead of folding from event 1; returns each view's checkpoint position (none: from event 1)."""
        n = min(self.shared_until(cid, actor, state) - 1, state.version)
        if n <= 0:
            return {}
        since, docs = self.stored_checkpoint(cid, n)
        start = min(since.values())
        if start <= 0:
            return {}
        entry["docs"].update(docs)
        # The budget's events up to the checkpoint are read when a sheet or the steps first ask for them
        # (``_budget_docs``): a player's map, victory or state never does (67,000 entries on the 300k campaign).
        entry["docs"]["budget"]["events"], entry["docs"]["budget_upto"] = [], start
        entry["docs"]["budget_result"] = None
        entry["version"] = start
        return since

    def _budget_docs(self, cid: UUID, actor: Actor, docs: Docs, state: CampaignState) -> Docs:
        """``docs`` with the budget's events the audience may see from the first one (call under the entry's
        lock): those up to the checkpoint the fold started from are taken once (``_stored_budget_events``)."""
        upto = docs.pop("budget_upto", 0)
        if upto:
            docs["budget"]["events"][:0] = self._stored_budget_events(cid, actor, state, upto)
            docs["budget_result"] = docs["budget_inputs"] = None
        return docs

    def _keep_checkpoint(self, cid: UUID, actor: Actor, revealed: tuple[int, ...], position: int, docs: Docs
                         ) -> None:
        """The audience's map and victory at ``position``: their JSON but for the append-only lists (the victory's
        stability log, half a megabyte at 300,000 events), kept as the list itself and its length then. The fold
        only appends to such a list, and a correction folds into new ones, so its first entries are the list as
        it was: a checkpoint costs its other bytes only, and the cache holds ten times as many."""
        lists = {name: {key: (docs[name][key], len(docs[name][key])) for key in getattr(model, "APPEND_ONLY", ())
                        if isinstance(docs[name].get(key), list)} for name, model in replay.MODELS.items()}
        raw = orjson.dumps({name: {k: None if k in lists[name] else v for k, v in docs[name].items()}
                            for name in replay.MODELS})  # None in a list's place keeps the keys' order
        with self._lock:
            self._checkpoints[(cid, audience(actor), revealed, position)] = (raw, lists)

    def render(self, cid: UUID, actor: Actor, state: CampaignState, fn: Callable[[Docs], Any]) -> Any:
        """``fn(docs)`` on the audience's docs at ``state.version`` (under the entry's lock: not copied)."""
        entry = self._entry(cid, actor, state)
        with entry["lock"]:
            return fn(self._forward(entry, cid, actor, state))

    @staticmethod
    def _empty() -> Docs:
        return {**{name: model.empty() for name, model in replay.MODELS.items()}, "budget": {"events": []},
                "budget_result": None, "budget_memo": {}}

    # ------------------------------------------------------------------ any audience, at a position

    def checkpoint(self, cid: UUID, actor: Actor, state: CampaignState, n: int, *, logs: bool = True
                   ) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
        """Per view, the position and document of the caller's nearest checkpoint at or before ``n``
        (``logs``: see ``stored_checkpoint``)."""
        if sees_all(actor) or n < self.shared_until(cid, actor, state):
            return self.stored_checkpoint(cid, n, logs=logs)  # up to n this audience's map and victory are the GM's
        entry = self._entry(cid, actor, state)
        with entry["lock"]:
            self._forward(entry, cid, actor, state)
            opened, revealed = list(entry["opened"]), entry["revealed"]
        key = (cid, audience(actor), revealed)
        for position in reversed(opened[:bisect.bisect_right(opened, n)]):
            with self._lock:
                kept = self._checkpoints.get((*key, position))
            if kept is not None:
                docs = orjson.loads(kept[0])
                for name, lists in kept[1].items():
                    for k, (items, length) in lists.items():
                        docs[name][k] = items[:length]
                return {name: position for name in replay.MODELS}, docs
        return {name: 0 for name in replay.MODELS}, {name: m.empty() for name, m in replay.MODELS.items()}

    def stored_checkpoint(self, cid: UUID, n: int, *, logs: bool = True
                          ) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
        """``replay.checkpoint`` (per view, the latest stored checkpoint at or before ``n``) in one statement that
        asks only which positions, the documents kept in memory: a checkpoint at a position is its view after
        the events 1..position, which never change, so a rebuild writes the same document again (a reset
        deletes rows: the statement then names an earlier one, or none).

        ``logs=False``: a checkpoint written between keyframes keeps only its own entries of the append-only
        logs, not its keyframe's before them: no fold reads those logs (they only append), so every other field
        folds the same, and a caller that shows no log (a step of a turn) skips decoding the keyframe's whole
        log (half a megabyte of the victory's at 300,000 events)."""
        db, names = self.db, list(replay.MODELS)
        mark = "(SELECT MAX(position) FROM {proj_checkpoints} WHERE view = ? AND campaign = ? AND position <= ?)"
        since: dict[str, int] = {}
        raw: dict[str, bytes] = {}
        with db.reading() as cur:
            cur.execute(db.sql("SELECT " + ", ".join(f"{mark} AS {name}" for name in names)),
                        tuple(x for name in names for x in (name, str(cid), n)))
            row = cur.fetchone()
            since = {name: int(row[name] or 0) for name in names}
            with self._lock:
                for name in names:
                    found = self._stored.get((cid, name, since[name])) if since[name] else None
                    if found is not None:
                        raw[name] = found
            missing = [name for name in names if since[name] and name not in raw]
            if missing:
                cur.execute(db.sql("SELECT view, doc FROM {proj_checkpoints} WHERE campaign = ? AND ("
                                   + " OR ".join(["(view = ? AND position = ?)"] * len(missing)) + ")"),
                            (str(cid), *(x for name in missing for x in (name, since[name]))))
                for r in cur.fetchall():
                    raw[r["view"]] = bytes(r["doc"])
        with self._lock:
            for name in missing:
                if name in raw:
                    self._stored[(cid, name, since[name])] = raw[name]
        docs: dict[str, dict[str, Any]] = {}
        positions = dict(since)
        for name, model in replay.MODELS.items():
            docs[name], since[name] = model.empty(), 0
            if name not in raw:  # none at or before n (or deleted between the statements by a rebuild's reset)
                continue
            try:
                doc = orjson.loads(raw[name])
                if logs:
                    expand(doc, getattr(model, "APPEND_ONLY", ()), lambda p: self._stored_checkpoint(cid, name, p))
                else:
                    doc.pop(BASE, None)
                docs[name], since[name] = doc, positions[name]
            except LookupError:  # its keyframe deleted since
                pass
        return since, docs

    def _stored_checkpoint(self, cid: UUID, view: str, position: int) -> bytes:
        """A view's stored checkpoint document at ``position`` (a keyframe), kept in memory as the others."""
        key = (cid, view, position)
        with self._lock:
            raw = self._stored.get(key)
        if raw is None:
            with self.db.reading() as cur:
                raw = replay.stored_checkpoint(self.db, cur, view, cid, position)
            with self._lock:
                self._stored[key] = raw
        return raw

    def shared_until(self, cid: UUID, actor: Actor, state: CampaignState) -> int:
        """The first position at which this audience's map and victory may differ from the game master's: the
        first event hidden from it (``can_see``, with the campaign's reveals) whose type the map or victory reads
        more of than its position (``POSITION_ONLY``); past the head when there is none. Before it the stored
        checkpoints are this audience's too (their ``TurnOpened`` is not position-only: it was visible), and a
        fold from them of the events it may see gives exactly its documents, so no fold from event 1."""
        db, head = self.db, state.version
        with self._rare_lock:
            kept = self._hidden.get(cid)
            if kept is None:
                kept = self._hidden[cid] = {"upto": 0, "hidden": []}
            if head > kept["upto"]:
                # The timeline's rows say type and visibility without decoding events; the tail it has not
                # reached comes from the store.
                with db.reading() as cur:
                    cur.execute(db.sql("SELECT COALESCE(MAX(position), 0) AS p FROM {proj_timeline} "
                                       "WHERE campaign = ?"), (str(cid),))
                    reached = min(int(cur.fetchone()["p"]), head)
                    if reached > kept["upto"]:
                        cur.execute(db.sql(NOT_SHARED_ROWS), (str(cid), kept["upto"], reached))
                        kept["hidden"] += [(int(r["position"]), orjson.loads(r["visibility"]))
                                           for r in cur.fetchall()]
                        kept["upto"] = reached
                kept["hidden"] += [(r.position, r.visibility) for r in tail(self.ledger, cid, kept["upto"], head)
                                   if r.type not in POSITION_ONLY and r.visibility != {"scope": "public"}]
                kept["upto"] = head
            hidden = list(kept["hidden"])
        revealed = frozenset(state.revealed)
        return next((p for p, vis in hidden if p <= head
                     and not can_see(actor, {"visibility": vis, "position": p}, revealed)), head + 1)

    def fold(self, cid: UUID, actor: Actor, state: CampaignState, since: dict[str, int],
             docs: dict[str, dict[str, Any]], rs: list[Record]) -> dict[str, dict[str, Any]]:
        """``docs`` (a checkpoint's) after the records of ``rs`` the caller may see."""
        revealed = frozenset(state.revealed)
        return replay.fold_into(docs, since, read.visible(actor, rs, revealed), self._history(cid, actor, revealed))

    def step(self, cid: UUID, actor: Actor, state: CampaignState, r: Record, every: list[Record]) -> Step:
        """One step of a turn's replay as ``actor`` sees it: map and tracks just before and just after ``r``
        (the nearest checkpoint, then the events after it, folded once; ``every``: ``turn_records``, read
        already), what ``r`` changed there and on the ERS, in words. The turn page and the terminal replay both
        show this, so they cannot disagree.

        Neither shows an append-only log (the victory's stability and inflation logs), so the documents start
        from the checkpoint without its keyframe's entries (``stored_checkpoint(logs=False)``): ``before`` and
        ``after`` may hold those logs' entries after that keyframe only; every other field is whole."""
        since, docs = self.checkpoint(cid, actor, state, r.position - 1, logs=False)
        start, first = min(since.values()), every[0].position
        earlier = read.records(self.ledger, cid, start, first - 1) if start < first - 1 else []
        before = self.fold(cid, actor, state, since, docs,
                           [x for x in (*earlier, *every) if start < x.position < r.position])
        after = self.fold(cid, actor, state, {name: r.position - 1 for name in since},
                          replay.copy_docs(before), [r])
        return Step(before, after, words.changes(before, after), self.budget_changes(cid, actor, state, r, every))

    def budget_changes(self, cid: UUID, actor: Actor, state: CampaignState, r: Record,
                       every: list[Record] | None = None) -> list[dict[str, Any]]:
        """The ERS cells ``r`` changed, as ``actor`` sees them. A treasury entry of its own turn: from the three
        sheets before its turn as the budget view stored them and the turn's events before it (``every``:
        ``turn_records``), when those stored sheets are the caller's as of the entry (``_seeded_changes``);
        else from its country's inputs just before it (``budget_steps``: a snapshot and a bounded tail, the
        memo of that country's sheets). A phase's close changes no amount. Otherwise (a correction), or once
        a correction may have moved entries between countries, from every event before it."""
        if r.type not in _BUDGET_EVENTS:
            return []
        if r.type == "PhaseClosed":
            # A phase's close lists the phase on its turn's sheets and records the values it closed on; no amount
            # reads either (``compute_sheet`` takes the entered lines and the earlier sheets), and the changes are
            # of amounts: none, without gathering the history to find none.
            return []
        if r.type == "TreasuryEntryRecorded" and isinstance(r.data.get("country"), str):
            country = r.data["country"]
            seeded = self._seeded_changes(cid, actor, state, r, every) if every else None
            if seeded is not None:
                return seeded
            with self._steps_lock:
                steps = self._budget_steps(cid, actor, state)
                inputs = steps.before(country, r.position)
                memo = steps.memo(country) if inputs is not None else None
            if inputs is not None:
                out = words.budget_changes([], r, inputs=inputs, memo=memo)
                with self._steps_lock:
                    steps.keep(country, memo, r.turn if r.turn is not None else 0)
                return out
        return words.budget_changes(self.budget_events(cid, actor, state, r.position - 1), r)

    def _seeded_changes(self, cid: UUID, actor: Actor, state: CampaignState, r: Record, every: list[Record]
                        ) -> list[dict[str, Any]] | None:
        """A treasury entry's ERS changes from the stored sheets before its turn (``budget_steps.stored_seeds``), or
        None when they may not be the caller's as of the entry: an entry for an earlier turn, a correction
        anywhere up to the view or the entry, an entry booked before its turn after it, a stored sheet with an
        entry hidden from the caller, or views that have not reached what this needs."""
        country, turn, position = r.data["country"], r.data.get("turn"), r.position
        if type(turn) is not int or turn != r.turn or not every or every[0].position >= position:
            return None
        revealed = frozenset(state.revealed)
        shown = [x for x in read.visible(actor, every, revealed) if x.position < position]
        if not any(x.type == "TurnOpened" and x.data.get("turn") == turn for x in shown):
            return None  # the turn's sheets start with its opening, which this caller must have seen
        created = self._campaign_created(cid)
        if created is None or country not in (created.data.get("countries") or ()):
            return None
        scenario = read.visible(actor, self.of_types(cid, {"ScenarioImported"}, position - 1, state), revealed) \
            if turn == 1 else []
        corrections = self.of_types(cid, {"CorrectionRecorded"}, state.version, state)
        db, campaign = self.db, str(cid)
        with db.reading() as cur:
            view = budget_steps.view_position(db, cur, campaign)
            if view is None or any(c.position <= max(view, position) for c in corrections):
                return None
            if view < position - 1:  # the view is behind the entry: what it lacks must be among the turn's
                if view < every[0].position - 1 or any(
                        view < x.position < position and x.type == "TreasuryEntryRecorded"
                        and x.data.get("country") == country and x.data.get("turn") != turn for x in every):
                    return None
            with self._lock:
                lineage = self._lineages.get((cid, country))
            if lineage is None or lineage.view != view:
                lineage = self._lineage_moved(cid, country, lineage, view) \
                    or budget_steps.lineage(db, cur, campaign, country, view)
                with self._lock:
                    self._lineages[(cid, country)] = lineage
            if not lineage.settled_before(turn, position - 1):
                return None
            public = None if sees_all(actor) else self._public_seeds(cur, cid, actor, state, country, turn, view)
            seeds = public if public is not None else budget_steps.stored_seeds(db, cur, campaign, country, turn)
        if seeds is None:
            return None
        if public is None and not sees_all(actor):
            hidden = self._first_hidden_sheet(cid, actor, revealed, country, lineage)
            if hidden is False or (hidden is not None and hidden < turn):
                return None
        inputs = budget_steps.turn_inputs(created, scenario, shown, country, position)
        return words.budget_changes([], r, inputs=inputs, memo=seeds, since={country: turn})

    def _public_seeds(self, cur: Any, cid: UUID, actor: Actor, state: CampaignState, country: str, turn: int,
                      view: int) -> Any:
        """For an observer, or a player reading another country's entry, the three sheets before ``turn`` as
        everyone sees them (``budget_public.stored_seeds``), when those are the caller's: the public view at the
        budget view's position ``view`` (whose lineage the caller found settled before ``turn``), the caller
        named in no hidden event of the country's sheets, no correction, and no event in the tail after the
        view that changes what everyone sees of the earlier sheets (a reveal, a scenario). Else None (the game
        master's stored sheets when none of their entries is hidden from the caller, or the inputs gathered):
        the other countries' hidden entries no longer send every such step to the gathered inputs."""
        reader = actor.country if actor.role == "player" else None
        if reader == country:
            return None  # their own sheets: they see their hidden entries
        found = budget_public.stored_seeds(self.db, cur, str(cid), country, turn)
        if found is None or found[0] != view or view > state.version or found[2] is None \
                or not budget_public.may_use(found[1], country, reader):
            return None
        if any(r.type in budget_public.UNSETTLING for r in tail(self.ledger, cid, view, state.version)):
            return None
        return found[2]

    def _lineage_moved(self, cid: UUID, country: str, kept: budget_steps.Lineage | None, view: int
                       ) -> budget_steps.Lineage | None:
        """``kept`` (the lineage at an earlier view position) with the entries of ``country`` the view took
        since, each on its turn's sheet, instead of a read of every stored sheet of the country (the view moves
        after every append: a live turn page read them all again). None (read it) past ``LINEAGE_STEP`` events
        or when one of them may change other sheets (a correction, a scenario). An entry the view could not book
        (a derived line) is listed too: a lineage that says more only sends ``_seeded_changes`` to its exact,
        slower path (a position later than the entry, or one hidden from the caller)."""
        if kept is None or not kept.view < view <= kept.view + LINEAGE_STEP:
            return None
        by_turn = dict(kept.by_turn)
        for r in tail(self.ledger, cid, kept.view, view):
            if r.type not in RELEVANT or r.type in ("TurnOpened", "PhaseClosed"):
                continue  # no entered line of any sheet comes from them
            turn = r.data.get("turn")
            if r.type != "TreasuryEntryRecorded" or type(turn) is not int:
                return None
            if r.data.get("country") == country:
                by_turn[turn] = [*by_turn.get(turn, ()), r.position]
        return budget_steps.Lineage(view, by_turn)

    def _campaign_created(self, cid: UUID) -> Record | None:
        """The campaign's first event (its countries and settings, as the budget reads them): it never changes."""
        with self._lock:
            found = self._created.get(cid)
        if found is None:
            [found] = read.records(self.ledger, cid, 0, 1) or [None]
            if found is None or found.type != "CampaignCreated":
                return None
            with self._lock:
                self._created[cid] = found
        return found

    @staticmethod
    def _hidden_in(actor: Actor, groups: list[tuple[str, Any, list[int]]], revealed: frozenset[int],
                   upto: int | None = None, types: Collection[str] | None = None) -> set[int]:
        """The positions of ``groups`` ((type, visibility, ascending positions), ``_restricted_groups``), up to
        ``upto`` and of ``types``, hidden from ``actor``: ``can_see`` asked once per group, the reveals by
        position."""
        hidden: set[int] = set()
        for kind, vis, positions in groups:
            if (types is not None and kind not in types) or can_see(actor, {"visibility": vis, "position": -1}, ()):
                continue
            if upto is not None and positions and positions[-1] > upto:
                positions = positions[:bisect.bisect_right(positions, upto)]
            hidden.update(positions)
        return hidden - revealed

    def _first_hidden_sheet(self, cid: UUID, actor: Actor, revealed: frozenset[int], country: str,
                            lineage: budget_steps.Lineage) -> int | None | bool:
        """The first turn of ``country`` whose stored sheet books an entry (or a scenario) hidden from ``actor``;
        None when none does; False when the timeline view has not reached the budget view (unknown)."""
        key = (cid, audience(actor), lineage.view, revealed)
        with self._lock:
            hidden = self._hidden_sheets.get(key)
        if hidden is None:  # the positions hidden from this audience, once per audience and view position
            reached, groups = self._restricted_groups(cid, lineage.view)
            if reached < lineage.view:
                return False
            hidden = frozenset(self._hidden_in(actor, groups, revealed, lineage.view,
                                               ("ScenarioImported", "TreasuryEntryRecorded")))
            with self._lock:
                self._hidden_sheets[key] = hidden
        return lineage.first_turn_with(hidden)

    def _restricted_groups(self, cid: UUID, head: int) -> tuple[int, list[tuple[str, Any, list[int]]]]:
        """(reached, groups): the position the timeline view has reached (at most ``head``), and the positions up
        to it of the events the budget reads not shown to everyone, grouped by type and visibility (type,
        visibility, ascending positions): kept per campaign, extended with later rows. Grouped in SQL: a dozen
        rows, not 37,000 (the 300k campaign's hidden entries), and ``can_see`` asked once per group. One read
        serves the budget's events, a country's sheets and the turn page's hidden sheets."""
        db, kinds = self.db, sorted(RELEVANT)
        with self._rare_lock:
            kept = self._restricted.get(("budget", cid))
            if kept is None:
                kept = self._restricted[("budget", cid)] = {"upto": 0, "groups": {}}
            with db.reading() as cur:
                cur.execute(db.sql("SELECT COALESCE(MAX(position), 0) AS p FROM {proj_timeline} WHERE campaign = ?"),
                            (str(cid),))
                reached = min(int(cur.fetchone()["p"]), head)
                if reached > kept["upto"]:
                    cur.execute(db.sql(restricted_rows(db)), (str(cid), kept["upto"], reached, *kinds))
                    for row in cur.fetchall():
                        group = kept["groups"].get((row["type"], row["visibility"]))
                        if group is None:
                            group = kept["groups"][(row["type"], row["visibility"])] = (
                                row["type"], orjson.loads(row["visibility"]), [])
                        group[2].extend(sorted(map(int, str(row["positions"]).split(","))))
                    kept["upto"] = reached
            # Copies (later rows are added to the kept lists), without positions read for a later head.
            return reached, [(kind, vis, positions[:bisect.bisect_right(positions, reached)])
                             for kind, vis, positions in kept["groups"].values()]

    def _restricted_budget_groups(self, cid: UUID, head: int) -> list[tuple[str, Any, list[int]]]:
        """``_restricted_groups`` up to ``head``: the timeline's, then the tail it has not reached from the store
        (a group of one position per event)."""
        reached, groups = self._restricted_groups(cid, head)
        return groups + [(r.type, r.visibility, [r.position]) for r in tail(self.ledger, cid, reached, head)
                         if r.type in RELEVANT and r.visibility != {"scope": "public"}]

    def _budget_steps(self, cid: UUID, actor: Actor, state: CampaignState) -> budget_steps.Steps:
        """The audience's ``Steps`` at ``state.version`` (call under ``_steps_lock``): the first read gathers
        the relevant events, later ones add those of the tail of the store it may see."""
        key, revealed = (cid, audience(actor)), tuple(state.revealed) if not sees_all(actor) else ()
        steps = self._steps.get(key)
        if steps is None or steps.revealed != revealed or steps.head > state.version:
            steps = self._steps[key] = budget_steps.Steps(revealed)
            steps.extend(self.budget_events(cid, actor, state, state.version), state.version)
        elif state.version > steps.head:  # the events appended since, those this audience may see
            later = read.visible(actor, tail(self.ledger, cid, steps.head, state.version), state.revealed)
            steps.extend([[r.type, r.position, budget_view.trim(r)] for r in later if r.type in RELEVANT],
                         state.version)
        return steps

    def state_at(self, cid: UUID, actor: Actor, state: CampaignState, n: int) -> dict[str, Any]:
        """Map and victory as of position ``n`` as the caller sees them: from the nearest checkpoint."""
        read.check_position(self.ledger, cid, n, head=state.version)
        since, docs = self.checkpoint(cid, actor, state, n)
        docs = self.fold(cid, actor, state, since, docs,
                         read.records(self.ledger, cid, min(since.values()), n, decoders=replay.DECODERS))
        if sees_all(actor):  # replay.state_at's answer, without its second read of the head
            return {"campaign": str(cid), "position": n, "checkpoint": min(since.values()), **docs}
        return {"campaign": str(cid), "position": n, "filtered_for": actor.role, **docs}

    def budget_events(self, cid: UUID, actor: Actor, state: CampaignState, upto: int) -> list[list[Any]]:
        """The events the budget reads at positions 1..upto that the caller may see, as [type, position, fields]."""
        if sees_all(actor):
            logged = self.logged(state, upto)
            return logged if logged is not None else self.relevant_events(cid, upto)
        entry = self._entry(cid, actor, state)
        with entry["lock"]:
            warm = entry["version"] > 0 and entry["revealed"] == tuple(state.revealed)
        if not warm:  # not folded in this process yet: the store's, filtered, rather than a fold from event 1
            return self._stored_budget_events(cid, actor, state, upto)
        return self.render(cid, actor, state, lambda d: [
            e for e in self._budget_docs(cid, actor, d, state)["budget"]["events"] if e[1] <= upto])

    def _stored_budget_events(self, cid: UUID, actor: Actor, state: CampaignState, upto: int) -> list[list[Any]]:
        """The events the budget reads at positions 1..upto that the caller may see: from the campaign's state
        when it keeps them (``logged``), else read from the store."""
        revealed = frozenset(state.revealed)
        hidden = self._hidden_in(actor, self._restricted_budget_groups(cid, state.version), revealed)
        logged = self.logged(state, upto)
        if logged is not None:
            return [e for e in logged if e[1] not in hidden]
        with self.db.reading() as cur:
            found = self.db.read_campaign(cur, str(cid), upto, types=RELEVANT)
        return [[r.type, r.position, budget_view.trim(r)] for r in read.visible(actor, found, revealed)]

    @staticmethod
    def logged(state: CampaignState, upto: int) -> list[list[Any]] | None:
        """The budget's events at positions 1..upto as [type, position, fields] from the campaign's write-side
        state, which keeps every one in memory (``TreasuryLog``: trimmed, the entries' reasons left out, which
        no sheet shows): a fresh process's first sheet reads no 67,000 entries from the store for them (300k
        campaign). None when the state keeps none or is older than ``upto``."""
        log = state.treasury
        if log is None or state.version < upto:
            return None
        out: list[list[Any]] = []
        for chunk in (*log.chunks, log.tail):
            if chunk and chunk[-1][1] <= upto:
                out += chunk  # the log's items are such lists already (shared: nobody changes one)
                continue
            for item in chunk:
                if item[1] > upto:
                    return out
                out.append(item)
        return out

    # ------------------------------------------------------------------ rendered answers at the head

    def map(self, cid: UUID, actor: Actor, state: CampaignState) -> bytes:
        if sees_all(actor):
            doc, _ = self.doc_at_head(cid, "map", state.version)
            return orjson.dumps(doc)
        return self.render(cid, actor, state, lambda d: orjson.dumps(d["map"]))

    def victory(self, cid: UUID, actor: Actor, state: CampaignState) -> bytes:
        if sees_all(actor):
            doc, awards = self.awards_at_head(cid, state.version)
            return orjson.dumps({**doc, "awards": awards})
        return self.render(cid, actor, state, lambda d: orjson.dumps({**d["victory"], "awards": None}))

    def state(self, cid: UUID, actor: Actor, state: CampaignState) -> bytes:
        """Map and victory at the head."""
        out: dict[str, Any] = {"campaign": str(cid), "position": state.version}
        if not sees_all(actor):
            out["filtered_for"] = actor.role
            return self.render(cid, actor, state, lambda d: orjson.dumps(
                {**out, "map": d["map"], "victory": d["victory"]}))  # serialized under the audience's lock
        (m, pm), (v, pv) = (self.doc_at_head(cid, name, state.version) for name in ("map", "victory"))
        return orjson.dumps({**out, "checkpoint": min(pm, pv, state.version), "map": m, "victory": v})

    def timeline(self, cid: UUID, actor: Actor, state: CampaignState, turn: int) -> bytes:
        rows = self.timeline_rows(cid, turn, state.version)
        if not sees_all(actor):
            revealed = frozenset(state.revealed)
            return orjson.dumps([r for r in rows if can_see(actor, r, revealed)])
        return orjson.dumps(rows)

    def sheet(self, cid: UUID, actor: Actor, state: CampaignState, country: str, turn: int) -> bytes | None:
        """A country's ERS for a turn (None: no such sheet). The caller checks the country and the turn."""
        if sees_all(actor) or self._sees_own_sheets(cid, actor, state, country):
            # Kept at the head it was read at: the ERS page asks again without the response cache's key, and a
            # sheet at a head is that head's for good (four statements of the views' tables saved).
            with self._lock:
                kept = self._sheets.get((cid, country, turn))
            if kept is not None and kept[0] == state.version:
                return kept[1]
            sheet = self.sheet_at_head(cid, country, turn, state.version)
            out = orjson.dumps(sheet) if sheet is not None else None
            with self._lock:
                self._sheets[(cid, country, turn)] = (state.version, out)
            return out

        # From the events this caller may see: a hidden entry stays hidden in the totals too.
        def visible_sheet(docs: Docs) -> bytes | None:
            # Per country, computed when asked (a player reads their own); the memo keeps the sheets the events
            # since did not change. ``budget_result`` is emptied (None) by every relevant event folded.
            docs = self._budget_docs(cid, actor, docs, state)
            if docs.get("budget_inputs") is None:  # the budget's inputs, kept and added to as events are folded
                inputs = docs["budget_inputs"] = Inputs()
                for e in docs["budget"]["events"]:
                    inputs.add(*e)
            results = docs["budget_result"] = docs["budget_result"] or {}
            if country not in results:  # ``budget(events, countries=[country])``, of the inputs kept
                results[country] = compute(docs["budget_inputs"], memo=docs["budget_memo"], since={country: 1})
            found = results[country].sheet(country, turn)
            return orjson.dumps(sheet_json(found)) if found is not None else None

        found = self._public_sheet(cid, actor, state, country, turn)
        if found is None:
            found = self._country_sheet(cid, actor, state, country, turn)
        if found is not None:
            return found[0]
        return self.render(cid, actor, state, visible_sheet)

    def _sees_own_sheets(self, cid: UUID, actor: Actor, state: CampaignState, country: str) -> bool:
        """Whether a player reading their own country's sheets sees every event they read (the game master's
        sheets are then theirs): none hidden from them up to the ``budget_public`` view's position (its
        ``unseen``) nor in the tail after it, and no correction."""
        if actor.role != "player" or actor.country != country:
            return False
        found = budget_public.stored(self.db, str(cid), country, 0, rows=False)
        if found is None:
            return False
        position, doc, _ = found
        if doc.get("corrected") or {country, "*"} & set(doc.get("unseen", ())) or position > state.version:
            return False
        revealed = frozenset(state.revealed)
        for r in tail(self.ledger, cid, position, state.version):
            if r.type in budget_public.UNSETTLING:
                return False
            if r.type in RELEVANT and not can_see(actor, r, revealed) and \
                    (r.type != "TreasuryEntryRecorded" or r.data["country"] == country):
                return False
        return True

    def _public_sheet(self, cid: UUID, actor: Actor, state: CampaignState, country: str, turn: int
                      ) -> tuple[bytes | None] | None:
        """An observer's sheet, or a player's of another country, from the sheets as everyone sees them
        (``budget_public``): the three stored amounts before ``turn`` and the sheet's own stored events, with
        those of the tail the view has not reached, computed as the one sheet asked. A 1-tuple; None when the
        view cannot answer for this caller: the player is named in a hidden event of the country's sheets (their
        own country's, an ally's), a correction came, the tail holds an event that changes earlier sheets (an
        entry of an earlier turn, a reveal, a correction, a scenario) or a turn the view has not stored."""
        if actor.role == "player" and actor.country == country:
            return None  # their own sheets: they see their hidden entries (``_country_sheet``)
        head, key = state.version, (cid, country, turn, "public")
        with self._lock:
            kept = self._sheets.get(key)  # type: ignore[call-overload]
        if kept is not None and kept[0] == head:
            return (kept[1],)
        found = budget_public.stored(self.db, str(cid), country, turn)
        if found is None:
            return None
        position, doc, rows = found
        if position > head or not budget_public.may_use(doc, country, actor.country if actor.role == "player"
                                                        else None):
            return None
        events = []
        for r in tail(self.ledger, cid, position, head):
            if r.type in budget_public.UNSETTLING:
                return None
            if r.type not in RELEVANT or r.type == "TurnOpened" or \
                    (r.type == "TreasuryEntryRecorded" and r.data["country"] != country):
                continue
            if not budget_public.public(r.visibility):
                if actor.role == "player" and actor.country in budget_public.named(r.visibility):
                    return None  # they see more of this sheet than everyone
                continue
            if r.data["turn"] == turn:
                events.append([r.type, r.position, budget_public.trim(r)])
            elif r.type == "TreasuryEntryRecorded" and r.data["turn"] < turn:
                return None  # the stored amounts before it are not the reader's any more
        created = self._campaign_created(cid)
        if created is None or turn not in rows:
            return None
        sheet = budget_public.sheet_of(created, country, turn, rows, events)
        if sheet is None:
            return None
        out = orjson.dumps(sheet_json(sheet))
        with self._lock:
            self._sheets[key] = (head, out)  # type: ignore[index]
        return (out,)

    def _country_sheet(self, cid: UUID, actor: Actor, state: CampaignState, country: str, turn: int
                       ) -> tuple[bytes | None] | None:
        """A player's or an observer's sheet from ``country``'s inputs alone, while their audience has not
        gathered the budget's events (a fresh process: ``visible_sheet`` would add every event they may see,
        34,000 entries on the 300k campaign, and compute every turn): a country's sheets read its own entries
        and the events every country shares (``budget_steps``), so the other countries' entries are left out.
        When none of those is hidden from the caller before the turn asked, the sheet is the game master's
        (the stored one); else computed, and kept per (audience, country), extended with the tail at later
        heads. A 1-tuple; None (``visible_sheet``, from every event) once a correction came, which may move
        entries between countries, or when the audience's own budget is gathered already."""
        entry = self._entry(cid, actor, state)
        with entry["lock"]:
            if entry["version"] > 0 and entry["revealed"] == tuple(state.revealed) \
                    and "budget_upto" not in entry["docs"]:
                return None  # its budget's events are in memory: ``visible_sheet`` adds to them
        revealed, head = frozenset(state.revealed), state.version
        key = (cid, audience(actor), revealed, country)
        with self._lock:
            kept = self._country_sheets.get(key)
        if kept is not None and kept["head"] <= head:
            with kept["lock"]:
                if kept["head"] < head and not self._country_tail(kept, cid, actor, revealed, country, head):
                    kept = None  # a correction, or an event of every country's sheets hidden: gathered again
                elif kept["inputs"] is not None:
                    found = self._computed(kept, country, turn)
                    return (orjson.dumps(sheet_json(found)) if found is not None else None,)
                elif kept["first"] is None or turn < kept["first"]:
                    kept = {"gm": True}
            if kept is not None and kept.get("gm"):
                sheet = self.sheet_at_head(cid, country, turn, head)
                return (orjson.dumps(sheet) if sheet is not None else None,)
        logged = self.logged(state, head)
        if logged is None or any(e[0] == "CorrectionRecorded" for e in logged):
            with self._lock:
                self._country_sheets.pop(key, None)
            return None
        hidden = self._hidden_in(actor, self._restricted_budget_groups(cid, head), revealed)
        ours = [e for e in logged if e[0] != "TreasuryEntryRecorded" or e[2].get("country") == country]
        affected = [e for e in ours if e[1] in hidden]
        # An entry changes its own turn's sheet and, through it, the later ones: the sheets before the first
        # hidden one's turn are the game master's (a hidden event of another kind: every sheet may differ).
        first = min((e[2].get("turn") if e[0] == "TreasuryEntryRecorded" and type(e[2].get("turn")) is int
                     else 0 for e in affected), default=None)
        if first is None or turn < first:
            kept = {"lock": threading.Lock(), "head": head, "inputs": None, "first": first}
            with self._lock:
                self._country_sheets[key] = kept
            sheet = self.sheet_at_head(cid, country, turn, head)
            return (orjson.dumps(sheet) if sheet is not None else None,)
        inputs = Inputs()
        for e in ours:
            if e[1] not in hidden:
                inputs.add(*e)
        kept = {"lock": threading.Lock(), "head": head, "inputs": inputs, "memo": {}, "budget": None, "bound": 0,
                "first": first}
        with kept["lock"]:
            found = self._computed(kept, country, turn)
        with self._lock:
            self._country_sheets[key] = kept
        return (orjson.dumps(sheet_json(found)) if found is not None else None,)

    def _country_tail(self, kept: dict[str, Any], cid: UUID, actor: Actor, revealed: frozenset[int], country: str,
                      head: int) -> bool:
        """Bring a kept country's sheets (``_country_sheet``) to ``head`` with the events appended since (call
        under its lock): those it may see go into computed sheets' inputs; for the game master's sheets
        (``inputs`` None), an entry of the country hidden from the caller moves the first turn they differ
        from. False when it cannot be kept: a correction, or a hidden event every country's sheets read."""
        for r in tail(self.ledger, cid, kept["head"], head):
            if r.type == "CorrectionRecorded":
                return False
            if r.type not in RELEVANT or (r.type == "TreasuryEntryRecorded" and r.data.get("country") != country):
                continue
            if can_see(actor, r, revealed):
                if kept["inputs"] is not None:
                    kept["inputs"].add(r.type, r.position, budget_view.trim(r))
                    kept["budget"] = None
                continue
            if kept["inputs"] is not None:
                continue  # hidden: not among the inputs
            turn = r.data.get("turn")
            if r.type != "TreasuryEntryRecorded" or type(turn) is not int:
                return False
            kept["first"] = turn if kept["first"] is None else min(kept["first"], turn)
        kept["head"] = head
        return True

    @staticmethod
    def _computed(kept: dict[str, Any], country: str, turn: int) -> Sheet | None:
        """``country``'s sheet of ``turn`` from the kept inputs: the sheets up to the latest turn asked computed
        (a sheet reads the earlier ones only: not every later turn of a first read, half of them on average), the
        memo keeping those already made (call under the kept lock)."""
        inputs = kept["inputs"]
        if kept["budget"] is None or turn > kept["bound"]:
            kept["bound"] = bound = max(kept["bound"], min(turn, inputs.turns))
            kept["budget"] = compute(dataclasses.replace(inputs, turns=bound), memo=kept["memo"],
                                     since={country: 1})
        found: Sheet | None = kept["budget"].sheet(country, turn)
        return found

    # ------------------------------------------------------------------ the economic history (exports, charts)

    def history(self, cid: UUID, actor: Actor, state: CampaignState) -> History:
        """``projections.history.gather`` at ``state.version``, kept per audience: the first call reads the
        campaign's history, later ones only the events appended since (and recompute only the changed sheets).
        A reveal changes what the audience sees: its history is read again."""
        key, revealed = (cid, audience(actor)), frozenset(state.revealed)
        with self._lock:
            entry = self._histories.get(key)
            if entry is None:
                entry = self._histories[key] = {"lock": threading.Lock(), "kept": None}
        with entry["lock"]:
            kept = entry["kept"]
            made = entry.get("made")
            if made is not None and made.position == state.version \
                    and (made.campaign, made.turns, made.name) == (state.slug, state.turn, state.name) \
                    and (kept is None or kept.position == state.version):
                return made  # nothing appended since: the same (immutable) history
            if kept is None and made is not None and entry.get("revealed") == revealed \
                    and made.position < state.version and made.campaign == state.slug:
                # A seeded history (or one extended from it): the records it reads appended since, that the
                # caller may see, extend it (nothing appended: the same one at the new head).
                later = list(history_model.kept(self.ledger, cid, actor, revealed, made.position, state.version))
                if not later:
                    made = entry["made"] = dataclasses.replace(made, position=state.version, turns=state.turn,
                                                               name=state.name)
                    return made
                extended = self._extended(cid, actor, state, entry["base"], [*entry["tail"], *later])
                if extended is not None:
                    entry["made"], entry["tail"] = extended, [*entry["tail"], *later]
                    return extended
            if kept is None:
                # From the views and the entries rather than a read of the whole history (a fresh process's
                # first export; or the views have caught up with what was appended), extended with the records
                # the views have not reached. The hashes read are kept for the next one (events never change).
                seeded = self._seeded_history(cid, actor, state, entry.setdefault("hashes", {}))
                if seeded is not None:
                    later = list(history_model.kept(self.ledger, cid, actor, revealed, seeded.position,
                                                    state.version))
                    made = self._extended(cid, actor, state, seeded, later) if later else \
                        dataclasses.replace(seeded, position=state.version)
                    if made is not None:
                        entry.update(kept=None, made=made, revealed=revealed, base=seeded, tail=later)
                        return made
            if kept is None or kept.revealed != revealed or kept.position > state.version:
                kept = entry["kept"] = history_model.Gathered(revealed)
            kept.add(list(history_model.kept(self.ledger, cid, actor, revealed, kept.position, state.version)),
                     state.version)
            made = entry["made"] = kept.history(state.slug, tuple(state.countries), state.turn, state.version,
                                                state.name)
            return made

    def _extended(self, cid: UUID, actor: Actor, state: CampaignState, base: History, tail: list[Record]
                  ) -> History | None:
        """``history.extend`` of a seeded history with the records after it (None past ``TAIL`` of them: it is
        seeded again). A country's sheets the tail touches read the records of the first turn touched on, when
        those are fewer than ``TAIL_READ`` (else every relevant record), and the campaign's first event and
        scenario (its settings, its treasuries)."""
        if len(tail) > TAIL:
            return None
        revealed = frozenset(state.revealed)

        def every() -> list[Record]:
            with self.db.reading() as cur:
                found = self.db.read_campaign(cur, str(cid), state.version, types=RELEVANT)
            return read.visible(actor, found, revealed)

        return history_model.extend(base, tail, state, lambda turn: self._relevant_from_turn(
            cid, actor, revealed, turn, state.version), every)

    def _relevant_from_turn(self, cid: UUID, actor: Actor | None, revealed: frozenset[int], turn: int, head: int
                            ) -> list[Record] | None:
        """What ``budget_steps.from_turn`` computes a country's sheets from ``turn`` on from: the campaign's first
        event, its scenario and the relevant records from the turn's opening to ``head`` (those the caller may
        see; ``actor`` None: every one). None past ``TAIL_READ`` events (a turn long past)."""
        start = self.turn_span(cid, turn)[0]
        created = self._campaign_created(cid)
        if created is None or head - start > TAIL_READ:
            return None
        with self.db.reading() as cur:
            found = self.db.read_campaign(cur, str(cid), head, types=RELEVANT, after=start)
        # The scenario's treasuries are turn 1's (the later sheets carry them): no read of it for a later turn.
        scenario = [x for x in self.of_types(cid, {"ScenarioImported"}, head) if x.position <= start] \
            if turn == 1 else []
        if actor is not None:
            found, scenario = read.visible(actor, found, revealed), read.visible(actor, scenario, revealed)
        return [*(x for x in (created,) if x.position <= start), *scenario, *found]

    def _seeded_history(self, cid: UUID, actor: Actor, state: CampaignState, hashes: dict[int, str] | None = None
                        ) -> History | None:
        """``history.seeded`` for this caller, or None. A player or an observer: when the victory view is
        theirs (``shared_until``: nothing it reads is hidden from them) and the only events the budget reads
        hidden from them are treasury entries (of the ``affected`` countries, computed from what they see)."""
        if sees_all(actor):
            return history_model.seeded(self.ledger, self.db, cid, state, hashes=hashes, behind=True)
        if self.shared_until(cid, actor, state) <= state.version:
            return None
        revealed = frozenset(state.revealed)
        affected = self._affected_by_hidden(cid, actor, state)
        if affected is None:
            groups = self._restricted_budget_groups(cid, state.version)
            hidden = [(p, kind) for kind, vis, positions in groups for p in sorted(
                self._hidden_in(actor, [(kind, vis, positions)], revealed))]
            if any(kind != "TreasuryEntryRecorded" for _, kind in hidden):
                return None
            countries = self._entry_countries(cid, [p for p, _ in hidden], state)
            affected = frozenset(countries[p] for p, _ in hidden)

        def relevant(upto: int) -> list[Record]:  # from the campaign's state, without the hidden entries
            return [Record(str(cid), p, kind, data) for kind, p, data in self._stored_budget_events(
                cid, actor, state, upto)]

        return history_model.seeded(self.ledger, self.db, cid, state, (actor, revealed, affected), hashes, True,
                                    relevant)

    def _affected_by_hidden(self, cid: UUID, actor: Actor, state: CampaignState) -> frozenset[str] | None:
        """The countries whose sheets may book a treasury entry hidden from a player or an observer, from the
        ``budget_public`` view's document (who is named in each country's hidden events, and whose own player
        does not see them all) and the tail after it, instead of the country of each of the 37,000 hidden
        entries of the 300k campaign (a player's first ERS export). Every country with a hidden entry, but the
        player's own when they see all of its hidden events: more countries than the exact set at most (their
        sheets are then computed from what the caller sees: slower, the same). None when the document cannot
        say: none yet, a correction, a hidden event that is not an entry (the caller looks at each event)."""
        found = budget_public.stored(self.db, str(cid), "", 0, rows=False)
        if found is None:
            return None
        position, doc, _ = found
        named, unseen = doc.get("named", {}), set(doc.get("unseen", ()))
        if doc.get("corrected") or position > state.version or "*" in named or "*" in unseen:
            return None
        own = actor.country if actor.role == "player" and actor.country not in unseen else None
        out = {c for c in (*named, *unseen) if c != own}
        revealed = frozenset(state.revealed)
        for r in tail(self.ledger, cid, position, state.version):
            if r.type not in RELEVANT or can_see(actor, r, revealed):
                continue
            if r.type != "TreasuryEntryRecorded":
                return None
            out.add(r.data["country"])
        return frozenset(out)

    def _entry_countries(self, cid: UUID, positions: list[int], state: CampaignState) -> dict[int, Any]:
        """The country of each treasury entry at these positions, kept per campaign (entries never change): from
        the campaign's state (``logged``: 37,000 hidden entries on the 300k campaign, not read from the store),
        else the store's."""
        with self._rare_lock:
            known = self._restricted.get(("countries", cid))
            if known is None:
                known = self._restricted[("countries", cid)] = {}
            missing = set(positions) - known.keys()
            if missing:
                for kind, p, data in self.logged(state, max(missing)) or ():
                    if p in missing and kind == "TreasuryEntryRecorded":
                        known[p] = data.get("country")
                missing -= known.keys()
            if missing:
                known.update(history_model.entry_countries(self.db, cid, sorted(missing)))
            return {p: known.get(p) for p in positions}

    # ------------------------------------------------------------------ turns, for the web page

    def of_types(self, cid: UUID, types: set[str], upto: int, state: CampaignState | None = None) -> list[Record]:
        """The campaign's records of some types at positions 1..upto (rare types: corrections, scenarios). Those
        of ``RARE`` types are kept per campaign and type and extended with the range not read yet (the store has
        no index by type: each read would scan the campaign's history). A long range (a fresh process's first read) is
        looked up by position when the caller's ``state`` (the head) keeps a treasury log, which lists every
        event of these kinds (``TreasuryLog.positions``): a scan of the 300k campaign's events was 110 ms of
        the database's time, three of its workers, for the one scenario."""
        if not types <= RARE:
            with self.db.reading() as cur:
                return self.db.read_campaign(cur, str(cid), upto, types=types)
        # Kept per kind: a page that asks for corrections does not decode the scenario (~5 ms of a first read).
        found: list[Record] = []
        with self._rare_lock:
            for kind in sorted(types):
                entry = self._rare.get((cid, kind))
                if entry is None:
                    entry = self._rare[(cid, kind)] = {"upto": 0, "records": []}
                if upto > entry["upto"]:
                    log = state.treasury if state is not None and state.version >= upto else None
                    with self.db.reading() as cur:
                        if log is not None and upto - entry["upto"] > RARE_SCAN:
                            wanted = [p for p in log.positions((kind,)) if entry["upto"] < p <= state.version]
                            entry["records"] += [r for r in self.db.read_at(cur, str(cid), wanted) if r.type == kind]
                            entry["upto"] = state.version
                        else:
                            entry["records"] += self.db.read_campaign(cur, str(cid), upto, types={kind},
                                                                      after=entry["upto"])
                            entry["upto"] = upto
                found += [r for r in entry["records"] if r.position <= upto]
        return found if len(types) < 2 else sorted(found, key=lambda r: r.position)

    def records_at(self, cid: UUID, positions: list[int]) -> list[Record]:
        """The campaign's records at these positions (unfiltered: the caller filters), in one statement."""
        with self.db.reading() as cur:
            return self.db.read_at(cur, str(cid), positions)

    def turn_start(self, cid: UUID, turn: int) -> int:
        """A position before the turn's first event: the stored checkpoint of its opening (or of an earlier
        turn's, when the views are behind). Positions of turn openings are no secret: the caller filters."""
        return self.turn_span(cid, turn)[0]

    def next_turn_start(self, cid: UUID, turn: int) -> int | None:
        """The position of the next turn's opening (its stored checkpoint), None when the views have none: a
        turn's events are contiguous, so none of them comes after it."""
        return self.turn_span(cid, turn)[1]

    def turn_span(self, cid: UUID, turn: int) -> tuple[int, int | None]:
        """``turn_start`` and ``next_turn_start`` in one read. Each is kept once it is known for good: the start
        once the views have the turn's own opening, the end once they have the next turn's (the runner writes
        checkpoints in order, so none comes before it)."""
        with self._lock:
            start, end = self._spans.get((cid, turn, "start")), self._spans.get((cid, turn, "end"))
        if start is not None and end is not None:
            return start, end
        db, own = self.db, False
        with db.reading() as cur:
            if start is None:
                cur.execute(db.sql("SELECT position, turn FROM {proj_checkpoints} WHERE view = ? AND campaign = ? "
                                   "AND turn <= ? ORDER BY position DESC LIMIT 1"), ("map", str(cid), turn))
                row = cur.fetchone()
                start = max(int(row["position"]) - 1, 0) if row else 0
                own = bool(row and row["turn"] == turn)  # its own opening: where its TurnOpened is, for good
            cur.execute(db.sql("SELECT MIN(position) AS p FROM {proj_checkpoints} WHERE view = ? AND campaign = ? "
                               "AND turn > ?"), ("map", str(cid), turn))
            row = cur.fetchone()
            end = int(row["p"]) if row and row["p"] is not None else None
        with self._lock:
            if own:
                self._spans[(cid, turn, "start")] = start
            if end is not None:
                self._spans[(cid, turn, "end")] = end
        return start, end

    def turn_records(self, cid: UUID, turn: int, head: int) -> list[Record]:
        """Every record (unfiltered) from ``turn_start`` to the turn's last event, read page by page (up to the
        next turn's opening when the views have it: no page beyond)."""
        out: list[Record] = []
        start, end = self.turn_span(cid, turn)
        for s in self._rows_after(cid, start, min(head, end or head)):
            r = from_row(cid, s.originator_version, s.topic, s.state)
            if r.turn is not None and r.turn > turn:  # a turn's events are contiguous: the next one began
                return out
            out.append(r)
        return out

    def _rows_after(self, cid: UUID, start: int, upto: int, size: int = 1000) -> Iterator[Any]:
        """The stored rows at ``(start, upto]`` in order: the kept prefix, then pages of ``size`` read (and
        kept) only while the caller asks for more. Decoded by the caller: a kept row is bytes, never shared."""
        key = (cid, start)
        with self._lock:
            kept = self._turn_rows.get(key) or []
        for s in kept:
            if s.originator_version > upto:
                return
            yield s
        gt = start + len(kept)  # positions have no gaps
        while gt < upto:
            page = list(self.ledger.recorder.select_events(cid, gt=gt or None, lte=upto, limit=size))
            if not page:
                return
            with self._lock:
                now = self._turn_rows.get(key) or []
                if start + len(now) == gt and page[0].originator_version == gt + 1:  # nobody extended it since
                    try:
                        self._turn_rows[key] = now + page
                    except ValueError:  # larger than the whole cache: not kept
                        pass
            yield from page
            if len(page) < size:
                return
            gt = page[-1].originator_version

    def _turn_span(self, cid: UUID, turn: int, head: int, types: frozenset[str],
                   decoders: dict[str, Callable[[bytes], dict[str, Any]]] | None = None) -> list[Record]:
        """The records of some types from ``turn_start`` up to the next turn's opening (or ``head``)."""
        start, end = self.turn_span(cid, turn)
        with self.db.reading() as cur:
            return self.db.read_campaign(cur, str(cid), min(head, end or head), types=types, after=start,
                                         decoders=decoders)

    def turn_commitments(self, cid: UUID, turn: int, head: int, actor: Actor, revealed: frozenset[int]
                         ) -> dict[Any, Any]:
        """The dice commitments of ``turn`` the caller may see: None -> the turn's own (``TurnOpened``), an
        audience -> its seed's (``DiceSeedCommitted``)."""
        out: dict[Any, Any] = {}
        for x in read.visible(actor, self._turn_span(cid, turn, head, frozenset({"TurnOpened", "DiceSeedCommitted"})),
                              revealed):
            if x.turn == turn and x.data.get("turn") == turn:
                key = None if x.type == "TurnOpened" else x.data.get("audience")
                out.setdefault(key, x.data.get("commitment"))
        return out

    def turn_dice(self, cid: UUID, turn: int, head: int, actor: Actor | None = None,
                  revealed: Collection[int] = ()) -> dicelib.DiceReport:
        """``Ledger.verify_dice`` of a closed turn from its dice events only, as ``actor`` may hear it (None: every
        roll, hidden ones too; a player or an observer: the rolls they may see, ``dice.verify_for``). The events are
        kept per turn (once closed, nothing is added to a turn), the report per audience and the reveals among
        them. Raises its ``LedgerError`` (an open turn...)."""
        with self._lock:
            records = self._dice_records.get((cid, turn))
        if records is None:
            records = [dicelib.TurnRecord(r.position, r.type, r.visibility, r.turn, r.data)
                       for r in self._turn_span(cid, turn, head, DICE_TYPES, DICE_DECODERS)
                       if r.turn is None or r.turn <= turn]
            if any(r.type == "TurnClosed" and r.data.get("turn", r.turn) == turn for r in records):
                with self._lock:  # kept once closed only: an open turn's check raises, and is asked again later
                    self._dice_records[(cid, turn)] = records
        if actor is None or sees_all(actor):
            key: tuple[Any, ...] = (cid, turn)
        else:
            shown = frozenset(revealed)
            key = (cid, turn, audience(actor), tuple(r.position for r in records if r.position in shown))
        with self._lock:
            found = self._dice.get(key)
        if found is None:
            found = (dicelib.verify_records(str(cid), turn, records) if len(key) == 2
                     else dicelib.verify_for(actor, revealed, str(cid), turn, records))  # type: ignore[arg-type]
            with self._lock:
                self._dice[key] = found
        return found

    def _turn_groups(self, cid: UUID, head: int) -> tuple[int, dict[tuple[int, str], list[Any]]]:
        """The campaign's events up to a position (at most ``head``) grouped by turn and visibility: (turn,
        visibility text) -> [visibility, first, last, count], and that position. A process's first read takes
        the stored groups (``projections.turn_groups``: a few thousand rows, not the 300,000 of the timeline
        grouped in SQL); the timeline's rows after them are grouped in SQL (a bounded range). Kept per campaign
        and extended with the rows after it, so a later page groups only what came since."""
        db = self.db

        def grouped(cur: Any, gt: int, upto: int, into: dict[tuple[int, str], list[Any]]) -> None:
            cur.execute(db.sql("SELECT turn, visibility, MIN(position) AS first, MAX(position) AS last, "
                               "COUNT(*) AS n FROM {proj_timeline} WHERE campaign = ? AND position > ? "
                               "AND position <= ? AND turn IS NOT NULL GROUP BY turn, visibility"),
                        (str(cid), gt, upto))
            for g in cur.fetchall():
                key = (int(g["turn"]), g["visibility"])
                found = into.get(key)
                if found is None:
                    into[key] = [orjson.loads(g["visibility"]), int(g["first"]), int(g["last"]), int(g["n"])]
                else:
                    found[1], found[2] = min(found[1], int(g["first"])), max(found[2], int(g["last"]))
                    found[3] += int(g["n"])

        with self._rare_lock:
            kept = self._groups.get(cid)
            if kept is not None and kept["upto"] == head:  # grouped up to this head already: no statement
                return head, {k: list(v) for k, v in kept["groups"].items()}
        with db.reading() as cur:
            if kept is None:
                upto, groups = turn_groups.as_of(*turn_groups.stored(db, cur, str(cid)), head)
                kept = {"upto": upto, "groups": groups}
            cur.execute(db.sql("SELECT COALESCE(MAX(position), 0) AS p FROM {proj_timeline} WHERE campaign = ?"),
                        (str(cid),))
            upto = min(int(cur.fetchone()["p"]), head)
            with self._rare_lock:
                kept = self._groups.setdefault(cid, kept)
                if kept["upto"] > head:  # an older head than the kept one: grouped apart
                    kept = {"upto": 0, "groups": {}}
                if upto > kept["upto"]:
                    grouped(cur, kept["upto"], upto, kept["groups"])
                    kept["upto"] = upto
                return kept["upto"], {k: list(v) for k, v in kept["groups"].items()}

    def turns(self, cid: UUID, actor: Actor, state: CampaignState) -> list[dict[str, Any]]:
        """The turns with events the caller may see: number, first and last position, event count; from the
        timeline view grouped in SQL, plus the tail it has not reached. Kept per audience at a head (every page
        of a turn lists them): copies, the caller's to change."""
        db, revealed = self.db, frozenset(state.revealed)
        key = (cid, audience(actor), state.version, revealed)
        with self._lock:
            kept = self._turns.get(key)
        if kept is not None:
            return [dict(t) for t in kept]
        out: dict[int, dict[str, Any]] = {}

        def add(turn: int, first: int, last: int, n: int) -> None:
            t = out.setdefault(turn, {"turn": turn, "first": first, "last": last, "events": 0})
            t["first"], t["last"], t["events"] = min(t["first"], first), max(t["last"], last), t["events"] + n

        upto, groups = self._turn_groups(cid, state.version)
        with db.reading() as cur:
            hidden = []
            verdicts: dict[str, bool] = {}  # per visibility text: a handful of them, for thousands of groups
            for (turn, text), (visibility, first, last, n) in groups.items():
                shows = verdicts.get(text)
                if shows is None:
                    shows = verdicts[text] = can_see(actor, {"visibility": visibility, "position": -1}, ())
                if shows:
                    add(turn, first, last, n)
                else:
                    hidden.append(visibility)
            shown = sorted(p for p in revealed if p <= upto)
            # Revealed events of hidden groups count one by one: few reveals, but a published turn's sheets
            # reveal all their entries, so the positions go in batches under the stores' parameter limits.
            for i in range(0, len(shown) if hidden else 0, 500):
                batch = shown[i:i + 500]
                cur.execute(db.sql("SELECT position, turn, visibility FROM {proj_timeline} WHERE campaign = ? "
                                   f"AND position IN ({', '.join('?' * len(batch))})"), (str(cid), *batch))
                for row in cur.fetchall():
                    vis = orjson.loads(row["visibility"])
                    if row["turn"] is not None and not can_see(actor, {"visibility": vis, "position": -1}, ()):
                        add(int(row["turn"]), int(row["position"]), int(row["position"]), 1)
        for r in read.visible(actor, tail(self.ledger, cid, upto, state.version), revealed):
            if r.turn is not None:
                add(r.turn, r.position, r.position, 1)
        found = [out[k] for k in sorted(out)]
        with self._lock:
            self._turns[key] = found
        return [dict(t) for t in found]

    def place_history(self, cid: UUID, actor: Actor, state: CampaignState, place: str, upto: int
                      ) -> list[dict[str, Any]]:
        """The events at positions 1..upto that touched ``place`` (``timeline.places``) the caller may see,
        newest first, as timeline rows: the ``proj_places`` index joined to the timeline rows, plus the tail
        the runner has not reached. Only this place's rows are read, never the campaign's history."""
        return self.place_page(cid, actor, state, place, upto, 1, None)[2]

    def _restricted_places(self, cid: UUID, reached: int) -> dict[str, list[tuple[int, Any]]]:
        """place -> (position, visibility) of the timeline rows up to ``reached`` not shown to everyone that
        touched it, in order: kept per campaign and extended with the rows after it. Few rows (a campaign's
        hidden events are mostly treasury entries, which touch no place), so a player's place page needs no
        join of every row of a busy place to the timeline to learn which ones it may see."""
        db = self.db
        with self._rare_lock:
            kept = self._restricted.get(cid)
            if kept is None or kept["upto"] > reached:  # an older head than the kept one: read afresh
                kept = self._restricted[cid] = {"upto": 0, "places": {}}
                # The rows the turn groups' view stored (``turn_groups.HIDDEN_PLACES``), up to where it reached:
                # a join of the timeline's hidden rows to the places index was 90-165 ms of PostgreSQL's time.
                with db.reading() as cur:
                    upto, rows = turn_groups.hidden_places(db, cur, str(cid), reached)
                seen: dict[str, Any] = {}
                for place, position, text in rows:
                    kept["places"].setdefault(place, []).append(
                        (position, seen.get(text) or seen.setdefault(text, orjson.loads(text))))
                kept["upto"] = upto
            if reached > kept["upto"]:
                with db.reading() as cur:
                    cur.execute(db.sql("SELECT p.place, p.position, t.visibility FROM {proj_timeline} t "
                                       "JOIN {proj_places} p ON p.campaign = t.campaign AND p.position = t.position "
                                       "WHERE t.campaign = ? AND t.position > ? AND t.position <= ? "
                                       "AND t.visibility <> ? ORDER BY p.position"),
                                (str(cid), kept["upto"], reached, _PUBLIC))
                    for r in cur.fetchall():
                        kept["places"].setdefault(r["place"], []).append(
                            (int(r["position"]), orjson.loads(r["visibility"])))
                kept["upto"] = reached
            return kept["places"]

    def place_page(self, cid: UUID, actor: Actor, state: CampaignState, place: str, upto: int, page: int,
                   size: int | None) -> tuple[int, int, list[dict[str, Any]]]:
        """How many rows ``place_history`` has, the page (clamped to 1..the last) and its rows (``size`` a
        page, None: all): a row's context (the large part) is decoded only for the rows returned (a busy place
        has thousands)."""
        db, revealed = self.db, frozenset(state.revealed)
        seen: dict[Any, Any] = {}  # visibility text -> decoded: few distinct ones

        def visibility(text: Any) -> Any:
            if text not in seen:
                seen[text] = orjson.loads(text)
            return seen[text]

        # The position the timeline reached, and how many of this place's stored rows are at or before it and
        # ``upto``, in one statement.
        with db.reading() as cur:
            cur.execute(db.sql("SELECT r.p, (SELECT COUNT(*) FROM {proj_places} WHERE campaign = ? AND place = ? "
                               "AND position <= ? AND position <= r.p) AS n FROM (SELECT COALESCE(MAX(position), 0) "
                               "AS p FROM {proj_timeline} WHERE campaign = ?) r"), (str(cid), place, upto, str(cid)))
            row = cur.fetchone()
            reached, indexed = int(row["p"]), int(row["n"])
        late = tail(self.ledger, cid, reached, min(upto, state.version))
        newer = []
        if any(place in timeline_model.places(r) for r in late):
            # Every tail event goes through ``row``: a scenario or a split there names the stacks' countries.
            _, stored = stored_doc(db, cid, timeline_model.NAME)
            doc = orjson.loads(stored) if stored else timeline_model.empty()
            for r in late:
                row = timeline_model.row(doc, r)
                if place in timeline_model.places(r):
                    newer.append(row)
        newer = [r for r in newer[::-1]
                 if can_see(actor, {"visibility": r["visibility"], "position": r["position"]}, revealed)]
        select = ("SELECT t.position, t.turn, t.type, t.summary, t.context, t.visibility "
                  "FROM {proj_places} p JOIN {proj_timeline} t ON t.campaign = p.campaign "
                  "AND t.position = p.position WHERE p.campaign = ? AND p.place = ? "
                  "AND p.position <= ? ORDER BY p.position DESC")
        params: tuple[Any, ...] = (str(cid), place, min(upto, reached))
        # The stored rows of this place hidden from the caller: none for a game master.
        hidden = [] if sees_all(actor) else [
            p for p, vis in self._restricted_places(cid, reached).get(place, ())
            if p <= params[2] and not can_see(actor, {"visibility": vis, "position": p}, revealed)]
        with db.reading() as cur:
            if size and len(hidden) <= 500:  # counted from the index above, and read only the page's rows
                count = len(newer) + indexed - len(hidden)
                page = min(max(page, 1), max((count + size - 1) // size, 1))
                start, stop = (page - 1) * size, page * size
                skip, limit = max(start - len(newer), 0), max(stop - max(start, len(newer)), 0)
                # The page's positions from the index alone (a LIMIT subquery), then their timeline rows by
                # position: a join ordered by position let PostgreSQL walk the timeline back from its last row
                # (a merge join: 150,000 rows read for 25 on the 300k campaign).
                unseen = f"AND position NOT IN ({', '.join('?' * len(hidden))}) " if hidden else ""
                rows = []
                if limit:
                    cur.execute(db.sql("SELECT position, turn, type, summary, context, visibility FROM "
                                       "{proj_timeline} WHERE campaign = ? AND position IN (SELECT position FROM "
                                       "{proj_places} WHERE campaign = ? AND place = ? AND position <= ? "
                                       f"{unseen}ORDER BY position DESC LIMIT ? OFFSET ?) ORDER BY position DESC"),
                                (str(cid), *params, *hidden, limit, skip))
                    rows = cur.fetchall()
            else:
                # Which rows the caller may see, from two small columns; then only the page's rows in full.
                cur.execute(db.sql("SELECT p.position, t.visibility FROM {proj_places} p JOIN {proj_timeline} t "
                                   "ON t.campaign = p.campaign AND t.position = p.position WHERE p.campaign = ? "
                                   "AND p.place = ? AND p.position <= ? ORDER BY p.position DESC"), params)
                allowed = [int(r["position"]) for r in cur.fetchall()
                           if can_see(actor, {"visibility": visibility(r["visibility"]),
                                              "position": int(r["position"])}, revealed)]
                count = len(newer) + len(allowed)
                page = min(max(page, 1), max((count + size - 1) // size, 1)) if size else 1
                start, stop = ((page - 1) * size, page * size) if size else (0, count)
                wanted = allowed[max(start - len(newer), 0):max(stop - len(newer), 0)]
                rows = []
                for i in range(0, len(wanted), 500):  # a bounded IN list per query
                    chunk = wanted[i:i + 500]
                    cur.execute(db.sql(select.replace("ORDER BY", f"AND p.position IN ({', '.join('?' * len(chunk))}) "
                                                                  "ORDER BY")), (*params, *chunk))
                    rows += cur.fetchall()
            rows = [{"position": int(r["position"]), "turn": r["turn"], "type": r["type"], "summary": r["summary"],
                     "context": r["context"], "visibility": visibility(r["visibility"])} for r in rows]
        return count, page, self._decoded(newer[start:stop] + rows)

    @staticmethod
    def _decoded(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for r in out:
            if not isinstance(r["context"], dict):  # a stored row's (the tail's rows are built decoded)
                r["context"] = orjson.loads(r["context"])
        return out
