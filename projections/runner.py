"""Follow the notification log and keep the views up to date; rebuild them from the first event.

``Projector.catch_up`` pulls pages of the global notification log (both
stores) from the lowest tracking position and applies each page to the views
that are behind, in one transaction per page (see projections.store for why
that is exactly-once). ``ProjectionRunner`` runs it in a background thread:
on PostgreSQL it sleeps on LISTEN/NOTIFY (the recorder notifies its channel on
every write), on SQLite it polls. ``ledger project --follow`` runs the same
loop as a process of its own.
"""

from __future__ import annotations

import gc
import pickle
import sys
import queue
import sqlite3
import threading
import time
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import orjson
import psycopg
from eventsourcing.persistence import DataError as PersistenceDataError
from psycopg.sql import SQL, Identifier

from ledger.text import for_terminal, holds_nul, storable
from projections.records import Record, ruling_decoder, type_of
from projections.store import LOG, STORE_ERRORS, DeferredWrites, Failures, TrackingConflict, ViewDB
from projections.views import VIEW_CLASSES, View

PAGE = 2000
#: The GIL switch interval while a pipelined catch-up runs (``Projector._pipelined``), in seconds.
PIPELINE_SWITCH_INTERVAL = 0.0002
#: How many pages' transactions a pipelined catch-up may have waiting for the writer thread (``_pipelined``).
WRITES_AHEAD = 2
#: How many pages a process of ``rebuild --jobs`` may have read ahead of another it feeds (``Feed``).
FEED_AHEAD = 3

Rows = list[tuple[int, Any, int, str, bytes]]


def _decode(rows: list[tuple[int, Any, int, str, bytes]], reads: frozenset[str] | None = None,
            narrow: dict[str, Callable[[bytes], dict[str, Any]]] | None = None) -> list[Record]:
    """``records.from_row`` for a page, inlined: one call per event less, and each topic split once.

    ``reads``: the event types whose fields the views read (``View.reads``); the others get empty fields,
    undecoded (decoding and freeing them is most of a page's cost). None: every event decoded.
    ``narrow``: per event type, a decoder of only the fields the views read (``narrow_decoders``).
    An event whose texts hold a NUL has it replaced by U+FFFD (``ledger.text.storable``): a PostgreSQL text
    column cannot hold one, and the view still holds the event.
    """
    loads, types, narrow = orjson.loads, _TYPES, narrow or {}
    out = []
    for nid, campaign, position, topic, state in rows:
        kind = types.get(topic)
        if kind is None:
            kind = types[topic] = type_of(topic)
        data = narrow.get(kind, loads)(state) if reads is None or kind in reads else {}
        if holds_nul(state):
            data = storable(data)
        out.append(Record(str(campaign), position, kind, data, nid))
    return out


def turn_cut(rows: Rows) -> int:
    """Where a page of a long catch-up ends for the views that keep whole turns (``View.whole_turns``): before
    its last ``TurnOpened`` in its second half; ``len(rows)`` when there is none.

    The budget views compute a sheet again whenever an event of its turn comes in a later page: a page that
    ended inside a turn computed that turn's sheets, and the next page computed them again (about 17 % of the
    sheets of a 300,000-event rebuild). Ended before a turn opens, their page leaves its last turn complete. The
    other views keep the pages as read (their tables, a document's position among them, are the same as ever).
    """
    types = _TYPES
    for i in range(len(rows) - 1, len(rows) // 2, -1):
        topic = rows[i][3]
        if (types.get(topic) or types.setdefault(topic, type_of(topic))) == "TurnOpened":
            return i
    return len(rows)


def narrow_decoders(views: list[View]) -> dict[str, Callable[[bytes], dict[str, Any]]]:
    """Per event type, the decoder of the fields ``views`` read where it is not all of them (``_decode``)."""
    asked = [v.ruling_reads for v in views if v.reads is None or "RulingRecorded" in v.reads]
    if not asked or None in asked:
        return {}
    return {"RulingRecorded": ruling_decoder(frozenset().union(*asked))}  # type: ignore[arg-type]


_TYPES: dict[str, str] = {}
#: What a page's write raises when the store refuses a row of it (a number out of its column's range, a text it
#: cannot hold): an event's fault, not the store's (``Projector._past_bad_write``).
DATA_ERRORS = (psycopg.DataError, PersistenceDataError, sqlite3.DataError, OverflowError)


def _nid(row: tuple[int, Any, int, str, bytes]) -> int:
    return row[0]


class Projector:
    def __init__(self, ledger: Any, views: list[str] | None = None, page: int = PAGE):
        self.ledger = ledger
        self.recorder = ledger.recorder
        self.db = ViewDB(self.recorder)
        self.views: list[View] = [VIEW_CLASSES[n](self.db) for n in (views or list(VIEW_CLASSES))]
        each = [v.reads for v in self.views]
        self.reads = None if None in each else frozenset().union(*each)  # type: ignore[arg-type]
        self.narrow = narrow_decoders(self.views)
        #: Where a pipelined catch-up reads its pages: the store, or the pages another process read (``Fed``).
        self.source: Callable[[int, int], list[tuple[int, Any, int, str, bytes]]] = self.db.read_events_apart
        #: The processes of ``rebuild --jobs`` this one hands each page it reads (``_read_page``).
        self.feeds: list[Feed] = []
        self.page = page
        self.lock = threading.Lock()  # one batch at a time per process; other processes: the tracking rows
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: tuple[int, Future[list[tuple[int, Any, int, str, bytes]]]] | None = None
        self._known: dict[str, int] = {}  # per view, the position this projector last committed (its caches')
        #: The events a view raised on: passed, recorded with the page (``store.Failures``), logged.
        self.failures = Failures(self.db)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.views]

    def positions(self) -> dict[str, int]:
        return {k: p for k, (p, _) in self.db.read_positions(self.names).items()}

    def lag(self) -> int:
        return max(0, self.db.head() - min(self.positions().values()))

    def failed(self) -> dict[str, dict[str, Any]]:
        """Per view, the events it could not apply and passed (``store.Failures``: a count, the first ones)."""
        return self.db.read_failures(self.names)

    def step(self, fail_after_write: Callable[[], None] | None = None, views: list[View] | None = None) -> int:
        """Apply one page of the log (to ``views``, default all); returns how many events it read (0: caught
        up)."""
        with self.lock:
            # A page allocates tens of thousands of short-lived dicts; left on, the cyclic collector would
            # walk the views' large documents over and over (it doubled a 300,000-event rebuild). Reference
            # counting frees the page; the collector resumes between pages (kept off for a whole 300,000-event
            # rebuild instead, it saved no measurable CPU and left peak RSS 150 MB higher: 695 MB against 540).
            collecting = gc.isenabled()
            gc.disable()
            try:
                return self._step(fail_after_write, views or self.views)
            except BaseException:
                self._ahead = None
                self._known.clear()
                self.failures.forget()
                for v in self.views:
                    v.forget()
                raise
            finally:
                if collecting:
                    gc.enable()

    def _step(self, fail_after_write: Callable[[], None] | None, views: list[View]) -> int:
        with self.db.transaction() as cur:
            self.db.batch_settings(cur)
            current = self.db.positions(cur, [v.name for v in views], lock=True)
            start = min(p for p, _ in current.values())
            records = self._page(cur, start)
            if not records:
                return 0
            upto = records[-1].notification_id
            if len(records) == self.page:
                self._read_ahead(upto)  # a full page: more is likely waiting, read it while this one is applied
            for v in views:
                pos = current[v.name][0]
                if self._known.get(v.name) != pos:
                    # Another runner (a follower process, a fresh projector) moved this view since this one's
                    # last batch: the documents and sheets it cached are older than the tracking row.
                    v.forget()
                if pos >= upto:
                    continue
                handle = v.handle
                for r in records if pos <= start else [r for r in records if r.notification_id > pos]:
                    try:
                        handle(cur, r)
                    except STORE_ERRORS:
                        raise
                    except Exception as e:  # the event's fault: passed and recorded, the others go on
                        self.failures.add(cur, v.name, r, e)
                v.flush(cur)
                self.db.advance(cur, v.name, pos, upto)
            self.failures.flush(cur)
            if fail_after_write:
                fail_after_write()  # tests: a crash after the writes, before COMMIT
        self.failures.committed()
        for v in views:
            v.committed()
            if current[v.name][0] < upto:
                self._known[v.name] = upto
        return len(records)

    def _past_bad_write(self, progress: Callable[[int], None] | None = None) -> int:
        """A page's transaction failed on a row the store refused (a number out of its column's range, a text it
        cannot hold): the page is applied again one event at a time, up to the event whose row it is; that one
        is applied to each view alone, and passed by those whose row the store refuses (recorded, logged and
        counted as an event a view raises on, ``store.Failures``). The other views apply it; the pages go on
        after it. Returns how many events went by."""
        page, self.page, done = self.page, 1, 0
        try:
            for _ in range(page):  # the page that failed held at most this many events
                try:
                    n = self.step()
                except TrackingConflict:
                    continue
                except DATA_ERRORS:
                    self._each_alone()
                    n = -1
                if not n:
                    break
                done += abs(n)
                if progress:
                    progress(abs(n))
                if n < 0:
                    break  # found and passed: whole pages again
        finally:
            self.page = page
        return done

    def _each_alone(self) -> None:
        """The next event for each view behind at it, one view per transaction; a view whose row of it the store
        refuses passes it (``_past_bad_write``)."""
        positions = self.positions()
        start = min(positions.values())
        for v in self.views:
            if positions[v.name] != start:
                continue
            try:
                self.step(views=[v])
            except DATA_ERRORS as e:
                with self.lock, self.db.transaction() as cur:
                    [r] = _decode(self.db.read_events(cur, start, 1))
                    self.failures.add(cur, v.name, r, e)
                    self.failures.flush(cur)
                    self.db.advance(cur, v.name, start, r.notification_id)
                self.failures.committed()

    def _page(self, cur: Any, start: int) -> list[Record]:
        """The records after ``start``: the page read ahead if it starts there, else read now."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == start:
            rows = ahead[1].result()
            if rows:
                return _decode(rows, self.reads, self.narrow)
        elif ahead is not None:
            ahead[1].cancel()
        return _decode(self.db.read_events(cur, start, self.page), self.reads, self.narrow)

    def _read_ahead(self, after: int) -> None:
        """Read the next page on another connection while this one is applied (PostgreSQL).

        The read mostly waits on the server, with the GIL released: overlapped
        with this page's work, it costs the batch next to nothing. It is not
        decoded there: a thread decoding (holding the GIL between events) made
        every round trip of the batch's writes wait up to a switch interval
        for the GIL, which cost more than it saved. SQLite keeps one
        connection and reads in the batch.
        """
        if not self.db.postgres:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="projection-read-ahead")
        self._ahead = (after, self._pool.submit(self.db.read_events_apart, after, self.page))

    def catch_up(self, progress: Callable[[int], None] | None = None, stop: threading.Event | None = None, *,
                 pipelined: bool = False) -> int:
        """Apply pages until the views are at the head. ``pipelined`` (PostgreSQL; a rebuild's long catch-up):
        each page's writes go out from a thread of their own while the next page is applied (``_pipelined``)."""
        if pipelined and self.db.postgres:
            passed = 0
            while True:
                try:
                    return passed + self._pipelined(progress, stop)
                except TrackingConflict:
                    continue  # another runner advanced: go on from its committed positions
                except DATA_ERRORS:
                    passed += self._past_bad_write(progress)  # a row the store refused: found, passed, go on
        total = 0
        try:
            while not (stop and stop.is_set()):
                try:
                    n = self.step()
                except TrackingConflict:
                    continue  # another runner advanced: re-read from its committed position
                except DATA_ERRORS:
                    n = self._past_bad_write()  # a row the store refused: found, passed, go on
                    total += n
                    if progress and n:
                        progress(n)
                    continue
                if not n:
                    break
                total += n
                if progress:
                    progress(n)
        finally:
            self._ahead = None  # a page read ahead of a stop may be stale by the next catch-up
        return total

    def _pipelined(self, progress: Callable[[int], None] | None, stop: threading.Event | None) -> int:
        """``catch_up`` with three threads at work: one reads the next page, this one applies the current page
        to the views in memory, one writes the previous page's transaction (PostgreSQL).

        A rebuild in ``step`` spent a third of its wall time waiting for the server (the batch's writes and its
        COMMIT); psycopg releases the GIL while it waits, so the writer thread's waits overlap this thread's
        work. Exactly-once as in ``step``: a page's view rows and its tracking rows are one transaction
        (``_write``), whose tracking update is conditional on the position the page was applied from, and the
        pages are committed in order (one writer thread takes them in turn; a page after one that failed finds the
        tracking rows short of where it starts, and commits nothing). Up to ``WRITES_AHEAD`` pages wait for the
        writer, so that a page slow to write (the server busy, a page of large checkpoints) does not stop this
        thread at once. On any failure the writes in flight are waited for, the views forget what they cached
        (it may be uncommitted) and the error is raised: the next catch-up starts again from the tracking rows.
        """
        with self.lock:
            pos = {k: p for k, (p, _) in self.db.read_positions(self.names).items()}
            for v in self.views:
                if self._known.get(v.name) != pos[v.name]:
                    v.forget()  # another runner moved it since this one's last batch
            reader = ThreadPoolExecutor(1, thread_name_prefix="projection-read")
            writer = ThreadPoolExecutor(1, thread_name_prefix="projection-write")
            total = 0
            pending: deque[tuple[Future[None], int, list[tuple[str, int, int]]]] = deque()  # in log order
            collecting = gc.isenabled()
            frozen = gc.get_freeze_count()  # nothing else here freezes; if something did, leave it frozen
            # The writer thread needs the GIL back after each of its waits on the server (a page's transaction is
            # a score of round trips, and its COPY blocks), while this thread holds it applying events: at the
            # default 5 ms switch interval a rebuild's writes waited more for the GIL than for the server. A/B on
            # the 300,000-event campaign (load average 4-5), time this thread waited for the writes: 3.5 s at
            # 5 ms, 2.6 s at 1 ms, 0.8 s at 0.2 ms; the CPU of the whole rebuild the same within noise.
            switch = sys.getswitchinterval()
            sys.setswitchinterval(min(switch, PIPELINE_SWITCH_INTERVAL))
            try:
                with self.db.reading() as cur:  # the views' own reads (a document not cached yet, corrections)
                    ahead: Future[Any] | None = reader.submit(self._read_page, min(pos.values()), self.page)
                    whole = [v for v in self.views if getattr(v, "whole_turns", False)]
                    carry: Rows = []  # the rows after the last page's cut: only the ``whole`` views are behind them
                    while (ahead is not None or carry) and not (stop and stop.is_set()):
                        read = ahead.result() if ahead is not None else []
                        full = len(read) == self.page
                        ahead = reader.submit(self._read_page, read[-1][0], self.page) if full else None
                        rows, carry = carry + read if carry else read, []
                        if not rows:
                            break
                        upto = rows[-1][0]
                        cut = turn_cut(rows) if full and whole else len(rows)  # more waiting: whole turns only
                        if cut < len(rows):
                            carry = rows[cut:]
                        ends = {v.name: rows[cut - 1][0] if v in whole else upto for v in self.views}
                        gc.disable()  # as in step: the collector would walk the views' documents page after page
                        count = len(read)
                        behind = [v for v in self.views if pos[v.name] < ends[v.name]]
                        self._apply(cur, rows, [(v, pos[v.name], ends[v.name]) for v in behind])
                        del rows, read
                        out, advances = DeferredWrites(cur), []
                        for v in behind:
                            v.flush(out)
                            advances.append((v.name, pos[v.name], ends[v.name]))
                            pos[v.name] = ends[v.name]
                        self.failures.flush(out)
                        self.failures.committed()
                        for v in self.views:
                            v.committed()  # this page's buffers are in ``out``; a failed write forgets the views
                        if collecting:
                            if not frozen:
                                # What survives a page (the views' documents and caches, this page's writes until
                                # sent) out of the collector's sight until the end: re-enabled, it walked them
                                # again at every young collection (0.5-1.7 s of a rebuild; peak RSS the same).
                                gc.freeze()
                            gc.enable()
                        if len(pending) >= WRITES_AHEAD:
                            total += self._settle(pending.popleft(), progress)
                        pending.append((writer.submit(self._write, out, advances), count, advances))
                    while pending:
                        total += self._settle(pending.popleft(), progress)
            except BaseException:
                for future, _, _ in pending:
                    try:
                        future.result()  # never forget while a page's transaction may still commit
                    except BaseException:
                        pass
                self._known.clear()
                self.failures.forget()
                for v in self.views:
                    v.forget()
                raise
            finally:
                sys.setswitchinterval(switch)
                if not frozen:
                    gc.unfreeze()
                if collecting:
                    gc.enable()
                reader.shutdown(wait=True, cancel_futures=True)
                writer.shutdown(wait=True)
            return total

    def _read_page(self, after: int, limit: int) -> list[tuple[int, Any, int, str, bytes]]:
        """A page for ``_pipelined`` (its reader thread), handed on to the processes fed by this one."""
        rows = self.source(after, limit)
        for feed in self.feeds:
            feed.send(after, limit, rows)
        return rows

    def _apply(self, cur: Any, rows: Rows, behind: list[tuple[View, int, int]]) -> None:
        """Decode each event of a page and hand it to every view behind it that reads it, event by event.

        View by view over a decoded page (``step``), decoding the page and freeing it were a third of a
        rebuild's CPU: 5,000 decoded events (a ruling is a hundred objects) went cold in the cache between
        their decoding, each view's pass, and their freeing. One event at a time, it is still in the cache
        for every view and freed at once, as in the raw read the benchmark compares with. Each view still
        sees its events in log order, from its own position.

        ``behind``: (view, the position it is at, the position it goes to). The page is taken in runs between
        those positions, each with the views behind over the whole run (in a rebuild: one run, or three where
        the budget views' page ends elsewhere, ``turn_cut``), so that no event is checked against each view's.

        A view is handed only the types it does not skip (``View.skips``: the victory view reads a third of
        the events, the budget a quarter); the others reach it as the position each campaign is at after the
        page (``View.passed``), as they would have left its document. An event no view reads is not decoded.
        """
        if not behind:
            return
        loads, types, reads, narrow, failures = orjson.loads, _TYPES, self.reads, self.narrow, self.failures
        bounds = sorted({b for _, p, q in behind for b in (p, q)})
        seen: set[str] = set()  # the types in the page
        start = bisect_right(rows, bounds[0], key=_nid)
        for low, high in zip(bounds, bounds[1:]):
            stop = bisect_right(rows, high, lo=start, key=_nid)
            active = [v for v, p, q in behind if p <= low and high <= q]
            # Per topic: its type, who reads it, and its decoder (None: its fields are read by none of them).
            calls: dict[str, tuple[str, list[Callable[[Any, Record], None]], Any]] = {}
            for nid, campaign, position, topic, state in rows[start:stop] if active else ():
                found = calls.get(topic)
                if found is None:
                    kind = types.get(topic) or types.setdefault(topic, type_of(topic))
                    found = calls[topic] = (kind, [v.handle for v in active if not v.skips(kind)],
                                            narrow.get(kind, loads) if reads is None or kind in reads else None)
                kind, handlers, decode = found
                if not handlers:
                    continue
                # The campaign is text already (``ViewDB.read_events``). A NUL in its texts: as ``_decode``.
                data = decode(state) if decode is not None else {}
                if decode is not None and holds_nul(state):
                    data = storable(data)
                r = Record(campaign, position, kind, data, nid)
                for handle in handlers:
                    try:
                        handle(cur, r)
                    except STORE_ERRORS:
                        raise
                    except Exception as e:  # the event's fault: passed and recorded (as ``_step``)
                        failures.add(cur, handle.__self__.name, r, e)
            seen.update(kind for kind, _, _ in calls.values())
            start = stop
        reached: dict[tuple[int, int], dict[str, int]] = {}  # per run of a view: where each campaign is after it
        for v, p, q in behind:
            if any(v.skips(kind) for kind in seen):
                if (p, q) not in reached:  # in a rebuild, one or two for all
                    reached[p, q] = {str(c): n for nid, c, n, _, _ in rows if p < nid <= q}
                for campaign, position in reached[p, q].items():
                    v.passed(cur, campaign, position)

    def _write(self, out: DeferredWrites, advances: list[tuple[str, int, int]]) -> None:
        """One page's transaction (the writer thread): its view rows, then its tracking rows, moved only from
        the positions the page was applied from."""
        with self.db.transaction() as cur:
            self.db.batch_settings(cur)
            current = self.db.positions(cur, [name for name, _, _ in advances], lock=True)
            for name, old, _ in advances:
                if current[name][0] != old:
                    raise TrackingConflict(f"view {name} moved past {old} under this runner")
            out.replay(cur)
            for name, old, new in advances:
                self.db.advance(cur, name, old, new)

    def _settle(self, pending: tuple[Future[None], int, list[tuple[str, int, int]]],
                progress: Callable[[int], None] | None) -> int:
        """Wait for a page's transaction (its error raised here); the views are then known at its position."""
        future, count, advances = pending
        future.result()
        for name, _, new in advances:
            self._known[name] = new
        if progress:
            progress(count)
        return count

    def rebuild(self, progress: Callable[[int], None] | None = None, *, restart: bool = False,
                jobs: int = 1, groups: list[list[str]] | None = None) -> dict[str, Any]:
        """Empty the views and project every event again; resumes an interrupted rebuild.

        The reset (rows deleted, tracking at 0, ``rebuilding`` flag) is one
        transaction; the flag is cleared once caught up. Run again after a
        crash, a rebuild continues from the last committed page instead of
        starting over, so it neither loses nor double-counts anything.
        ``groups`` (with ``jobs``): the views of each process, this one's first (a benchmark comparing splits);
        by default the measured split (``_balanced``).
        """
        if groups is not None and sorted(n for g in groups for n in g) != sorted(self.names):
            raise ValueError(f"groups {groups}: each of the views {self.names} in one group")
        with self.lock, self.db.transaction() as cur:
            current = self.db.positions(cur, self.names, lock=True)
            resumed = {n: p for n, (p, flag) in current.items() if flag and not restart}
            for v in self.views:
                if v.name in resumed:
                    continue
                v.reset(cur)
                self.failures.reset(cur, v.name)
                cur.execute(self.db.sql("UPDATE {proj_tracking} SET position = 0, rebuilding = 1 WHERE view = ?"),
                            (v.name,))
        self._known.clear()
        self.failures.forget()
        for v in self.views:
            v.forget()
        if jobs > 1 and self.db.postgres and len(self.views) > 1:
            count = self._catch_up_in_processes(jobs, progress, groups)
        else:
            count = self.catch_up(progress, pipelined=True)
        with self.db.transaction() as cur:
            for v in self.views:
                cur.execute(self.db.sql("UPDATE {proj_tracking} SET rebuilding = 0 WHERE view = ?"), (v.name,))
        return {"views": self.names, "events": count, "resumed_from": resumed}

    def _catch_up_in_processes(self, jobs: int, progress: Callable[[int], None] | None,
                               split: list[list[str]] | None = None) -> int:
        """The views split into ``jobs`` groups: this process catches up the heaviest, a process each the others.

        Each view has its own tracking row, so the groups never share a write;
        each process decodes the log itself, and on a machine with several
        cores the groups' work overlaps. Only this process reads the log: it
        hands each page to the others through a pipe (``Feed``, ``Fed``). Each
        process reading it as well doubled the server's reading (on 2 cores
        shared with the server, 2 processes were slower than one: 0.93x). A/B
        on the 300,000-event campaign, load average 5-7: the server's CPU 4.0-4.5
        -> 3.4-3.9 s, this process's 0.3-0.6 s more (pickling, 4.7 ms a page), the
        whole 0.3-0.5 s less; the wall time the same within that load's noise. This process takes a group
        itself (warm, while the others start: a spawned process first pays its
        imports, half a second, which made two processes slower than one).
        PostgreSQL only: SQLite takes one writer at a time.
        """
        import multiprocessing

        groups = split or _balanced(self.names, jobs)
        ctx = multiprocessing.get_context("spawn")  # no fork: this process holds pools and threads
        done = ctx.Queue()
        pipes = [ctx.Pipe(duplex=False) for _ in groups[1:]]  # (receiving end, sending end) per process
        procs = [ctx.Process(target=_catch_up_group,
                             args=(self.ledger.settings.model_dump(), g, self.page, done, receive))
                 for g, (receive, _) in zip(groups[1:], pipes)]
        for p in procs:
            p.start()
        for receive, _ in pipes:
            receive.close()  # the process holds its own copy: its end closes when it ends
        mine = 0

        def own(n: int) -> None:
            nonlocal mine
            mine += n
            if progress:
                progress(n)  # every group reads every event: this one's pages stand for all

        counts: list[Any] = []
        feeds = [Feed(send, _reads_of(g)) for g, (_, send) in zip(groups[1:], pipes)]
        try:
            local = Projector(self.ledger, groups[0], page=self.page)
            local.feeds = feeds
            counts.append(local.catch_up(own, pipelined=True))
        except Exception as e:  # reported with the others' errors once they are done
            counts.append(f"{groups[0]}: {type(e).__name__}: {e}")
        finally:
            for feed in feeds:
                feed.close()  # the processes read what is left from the store
        theirs = 0
        while len(counts) < len(procs) + 1:
            try:
                kind, value = done.get(timeout=1.0)
            except queue.Empty:
                if any(p.exitcode is not None for p in procs) and done.empty():
                    # A process ended without a word (killed, or died before it could report).
                    for p in procs:
                        p.join(timeout=5.0)
                    if done.empty() and len(counts) < len(procs) + 1:
                        counts += ["exited without reporting"] * (len(procs) + 1 - len(counts))
                continue
            if kind == "page":
                theirs += value
                if progress and theirs // len(procs) > mine:  # only past this process's count: none twice
                    progress(theirs // len(procs) - mine)
                    mine = theirs // len(procs)
            elif kind in ("done", "error"):
                counts.append(value)
        for p in procs:
            p.join()
        errors = [c for c in counts if isinstance(c, str)]
        if errors or any(p.exitcode for p in procs):
            raise RuntimeError(f"a rebuild process failed: {'; '.join(errors) or 'exit code'}")
        return max(counts)


#: The relative CPU of each view in a rebuild, to balance the process groups: each view's handling and writing in a
#: single-process rebuild of the 300,000-event campaign, in tenths of a second (after the compiled ERS sheets:
#: timeline 1.3 + 0.5 s, budget 0.3 + 1.3, victory 1.1 + 0.4, map 0.9 + 0.1). Two groups: timeline and map,
#: budget and victory (before: budget and map, 2.6 s, against timeline and victory, 3.3 s).
#: Measured again with the pipelined catch-up (each view alone, read and decode included: map 2.1 s CPU, victory
#: 1.9, timeline 2.8, budget 2.2): the same two groups gave 3.9 s and 4.1 s of CPU, so the weights are kept.
#: The two small views of stop 25, from their own A/Bs of a whole rebuild: the turn groups about 0.3 s (1 us an
#: event), the public sheets about 0.4 s (their fold of amounts only).
_COST = {"timeline": 18, "budget": 17, "victory": 15, "map": 10, "budget_public": 4, "turn_groups": 3,
         "outbox": 1}  # the outbox: not measured alone; per event a type look-up, and nothing more without endpoints


#: Measured splits of all six views, the group of the process that reads the log first. Two processes (stop 26, the
#: 300,000-event campaign, against the single process in the same rounds; load average 7-8, so read the CPU beside):
#: budget, the public sheets and victory in the reading process, map, timeline and the turn groups in the fed one
#: 1.11, 1.24, 0.95x, CPU 4.2 s + 4.6 s; the two budget views alone in the reading process 1.02, 1.24, 0.93x
#: (3.6 s + 5.1 s; in another run 1.13, 1.17, 1.19x); ``_COST``'s greedy split (timeline, map and the two small views
#: against budget and victory) 0.92, 1.17, 0.86x (5.3 s + 3.9 s; in another run 0.97, 0.92, 0.94x). The weights do
#: not see what the views of a group share: the budget's views and victory read a third of the events (the others'
#: bytes are not even sent to their process), while timeline, map and the turn groups each need every event
#: decoded, once per process; the budget's sheets (3.2 s of the single process's CPU in memory, its largest stage)
#: then sit beside the log's reading, and the other process decodes the log once for three views.
#: The outbox (issue 38) rides with the fed process's views, which decode every event anyway.
_SPLITS: dict[int, list[list[str]]] = {2: [["budget", "budget_public", "victory"],
                                           ["map", "timeline", "turn_groups", "outbox"]]}


def _balanced(names: list[str], jobs: int) -> list[list[str]]:
    """``jobs`` groups of the views, the heaviest first (the process that reads the log takes it): the measured
    split where there is one for these views (``_SPLITS``), else by ``_COST``."""
    split = _SPLITS.get(jobs)
    if split and sorted(n for g in split for n in g) == sorted(names):
        return [list(g) for g in split]
    groups: list[list[str]] = [[] for _ in range(min(jobs, len(names)))]
    for name in sorted(names, key=lambda n: -_COST.get(n, 1)):
        min(groups, key=lambda g: sum(_COST.get(n, 1) for n in g)).append(name)
    return sorted(groups, key=lambda g: -sum(_COST.get(n, 1) for n in g))


def _catch_up_group(settings: dict[str, Any], views: list[str], page: int, done: Any, feed: Any = None) -> None:
    from ledger.application import Ledger
    from ledger.config import Settings

    ledger = None
    try:
        ledger = Ledger(Settings(**settings))
        projector = Projector(ledger, views, page=page)
        if feed is not None:
            projector.source = Fed(feed, projector.db.read_events_apart)
        count = projector.catch_up(lambda n: done.put(("page", n)), pipelined=True)
        done.put(("done", count))
    except BaseException as e:  # reported to the parent, which fails the rebuild
        done.put(("error", f"{views}: {type(e).__name__}: {e}"))
    finally:
        if feed is not None:
            feed.close()
        if ledger is not None:
            ledger.close()


def _reads_of(names: list[str]) -> frozenset[str] | None:
    """The event types a group of views reads (``View.reads``); None: every type."""
    each = [VIEW_CLASSES[n].reads for n in names]
    return None if None in each else frozenset().union(*each)  # type: ignore[arg-type]


class Feed:
    """The sending end of a pipe to a process of ``rebuild --jobs``: every page this process reads, as read.

    The stored bytes of the events that process's views do not read are left out (they would be neither sent
    nor decoded there). A process that ended (done, or failed: it reports that itself) is fed no more.

    The pages are pickled and sent by a thread of their own, up to ``FEED_AHEAD`` pages behind: sent by the
    reader thread, each page waited for the other process to take the one before, so each process went at the
    pace of the slower of the two page by page (their pages' costs differ: the budget's sheets, the timeline's
    rows), and the feeder's next page waited on the pickling.
    """

    def __init__(self, conn: Any, reads: frozenset[str] | None, ahead: int = 0):
        self.conn, self.reads = conn, reads
        self._pages: queue.Queue[tuple[int, int, Rows] | None] = queue.Queue(maxsize=ahead or FEED_AHEAD)
        self._thread = threading.Thread(target=self._send, name="projection-feed", daemon=True)
        self._thread.start()

    def send(self, after: int, limit: int, rows: Rows) -> None:
        if self.conn is None:
            return
        if self.reads is not None:
            types, reads = _TYPES, self.reads
            rows = [row if (types.get(row[3]) or types.setdefault(row[3], type_of(row[3]))) in reads
                    else (row[0], row[1], row[2], row[3], b"") for row in rows]
        self._pages.put((after, limit, rows))  # waits while FEED_AHEAD pages are queued: memory stays bounded

    def _send(self) -> None:
        while (page := self._pages.get()) is not None:
            conn = self.conn
            if conn is None:
                continue  # the other end is gone: pages are taken and dropped, so that no sender waits
            try:
                conn.send_bytes(pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL))
            except OSError:
                self.conn = None
                conn.close()

    def close(self) -> None:
        """Send what is queued (the other process reads it, or has gone), then close the pipe."""
        if self._thread.is_alive():
            self._pages.put(None)
            self._thread.join()
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Fed:
    """A ``Projector.source`` from a ``Feed``: the page after ``after`` as the feeding process read it.

    The feeder reads the same pages from the same position in a rebuild; where they differ (a resumed rebuild
    whose groups stopped at different pages), or once the feeder stops (done, failed), the page is read from
    the store, and this end is closed so that the feeder never waits on a process that no longer listens.
    Events never change and the log has no gaps (``ViewDB.read_events_apart``): either way the same rows.
    """

    def __init__(self, conn: Any, read: Callable[[int, int], Rows]):
        self.conn, self.read = conn, read

    def __call__(self, after: int, limit: int) -> Rows:
        while self.conn is not None:
            try:
                start, size, rows = pickle.loads(self.conn.recv_bytes())
            except (EOFError, OSError):
                self.close()
                break
            if start == after and size == limit:
                return rows  # type: ignore[no-any-return]
            if start > after:  # the feeder is past this page: this process reads on alone
                self.close()
        return self.read(after, limit)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class ProjectionRunner:
    """A background thread that keeps the views caught up (the embedded default)."""

    def __init__(self, ledger: Any, views: list[str] | None = None, poll: float = 0.2, gather: float = 0.05):
        self.projector = Projector(ledger, views)
        self.poll = poll
        self.gather = gather
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        self.last_error: str | None = None
        self.processed = 0

    def start(self) -> ProjectionRunner:
        self.thread = threading.Thread(target=self._run, name="projection-runner", daemon=True)
        self.thread.start()
        if self.projector.db.postgres:
            threading.Thread(target=self._listen, name="projection-listen", daemon=True).start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stop_event.set()
        self.wake.set()
        if self.thread:
            self.thread.join(timeout)

    def catch_up(self) -> int:
        """Bring the views up to the head now (what a read that must see its own writes calls)."""
        return self.projector.catch_up()

    def status(self) -> dict[str, Any]:
        positions = self.projector.positions()
        head = self.projector.db.head()
        return {"head": head, "positions": positions, "lag": max(0, head - min(positions.values())),
                "running": bool(self.thread and self.thread.is_alive()), "processed": self.processed,
                "last_error": self.last_error}

    @property
    def lag(self) -> int:
        return self.projector.lag()

    def _run(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.processed += self.projector.catch_up(stop=self.stop_event)
                self.last_error = None
            except Exception as e:  # keep following: a transient store error must not kill the thread
                self.last_error = f"{type(e).__name__}: {e}"
                LOG.warning("projection catch-up failed, retrying: %s", for_terminal(self.last_error)[:500])
            self.wake.wait(self.poll if not self.projector.db.postgres else 5.0)
            # Gather a burst of appends into one page: reads never wait for the views (projections/head.py adds
            # the tail), and a page per append would take the writers' CPU under load.
            self.stop_event.wait(self.gather)
            self.wake.clear()

    def _listen(self) -> None:
        """LISTEN on the recorder's channel: every append wakes the runner at once."""
        ds = self.projector.db.datastore
        channel = self.projector.recorder.channel_name
        while not self.stop_event.is_set():
            try:
                kwargs = {k: v for k, v in ds.pool.kwargs.items() if k != "row_factory"}
                with psycopg.connect(**kwargs, autocommit=True) as conn:
                    conn.execute(SQL("LISTEN {0}").format(Identifier(channel)))
                    while not self.stop_event.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            self.wake.set()
            except Exception:  # reconnect after a moment
                time.sleep(1.0)
