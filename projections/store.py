"""View tables on SQLite and PostgreSQL, written with their tracking rows in one transaction.

Exactly-once without the library's ProcessRecorder: each view has one row in
``proj_tracking`` (the last notification id it has applied). A batch of events
is applied in memory and written — view rows, checkpoints and the new tracking
position — in a single transaction whose tracking update is conditional on the
position it started from (``UPDATE ... WHERE position = <old>``). If another
runner got there first, or the process dies before COMMIT, nothing of the batch
is kept and it is applied again from the committed position: no event is ever
counted twice, none is skipped.

The tables live beside the events (same SQLite file; same PostgreSQL schema)
and are reached through the ledger recorder's own datastore and pool.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from io import BytesIO
from typing import Any
from uuid import UUID

import orjson
import psycopg
from eventsourcing.persistence import PersistenceError
from eventsourcing.postgres import PostgresDatastore

from ledger.store.roles import have_tables, table_indexes
from ledger.text import for_terminal

LOG = logging.getLogger("projections")

DOC_TABLES = ("proj_docs", "proj_checkpoints")
#: Types of which the map and the victory documents read nothing but the position (projections/map.py and
#: victory.py ``apply``): a player who does not see one has the game master's documents but that field.
POSITION_ONLY = frozenset({"TreasuryEntryRecorded", "PhaseClosed", "TokenIssued", "TokenRevoked", "DiceRolled",
                           "DiceSeedCommitted"})


def literal(text: str) -> str:
    """``text`` as an SQL string literal for ``ViewDB.sql`` (its braces doubled): the code's own constants only,
    never a caller's value."""
    return "'" + text.replace("'", "''").replace("{", "{{").replace("}", "}}") + "'"


#: The timeline rows not shown to everyone (about one in eight of the 300k campaign's: players' treasury
#: entries), and of those the ones that may make a player's map or victory differ from the game master's (none
#: there). Each is the predicate of a partial index, so their reads (projections.head: ``shared_until``, the
#: budget's restricted rows) are an index range instead of a scan of the campaign's timeline (EXPLAIN ANALYZE,
#: 300k campaign: 121 ms -> 0.02 ms and 124 -> 14 ms). A statement uses one only when its WHERE repeats the
#: predicate as written, in literals (``ViewDB.sql`` text): SQLite matches the terms, and PostgreSQL cannot prove the implication
#: from a parameter of a generic plan.
NOT_PUBLIC = "visibility <> " + literal('{"scope":"public"}')
NOT_SHARED = NOT_PUBLIC + f" AND type NOT IN ({', '.join(map(literal, sorted(POSITION_ONLY)))})"
TIMELINE_INDEXES = {
    "proj_timeline_not_public": f"(campaign, type, position, visibility) WHERE {NOT_PUBLIC}",
    "proj_timeline_not_shared": f"(campaign, position, visibility) WHERE {NOT_SHARED}",
}
VIEW_TABLES = ("proj_tracking", "proj_docs", "proj_checkpoints", "proj_timeline", "proj_awards", "proj_places")


class TrackingConflict(Exception):
    """Another runner advanced a view first: this batch is rolled back and re-read."""


#: What the store raises (a lost connection, a lock, a failed statement) and a runner's own conflicts: a page that
#: meets one is rolled back and applied again. Anything else a view raises on an event is that event's fault
#: (``Failures``).
STORE_ERRORS = (psycopg.Error, sqlite3.Error, PersistenceError, TrackingConflict, MemoryError)
#: The ``proj_docs`` row (its campaign column) where each view keeps the events it could not apply (``Failures``).
FAILED = "failed-events"
#: How many of them a view's row names (their count is whole; the log has every one).
FAILED_KEPT = 100


class Failures:
    """The events the views could not apply, one document per view in its ``proj_docs`` row ``FAILED``.

    A view that raises on an event (a field it does not expect: an event stored before a rule, or appended
    around it) must not stop the follower: that event is passed, recorded here, logged, and every other event
    and campaign goes on. The document is written in the page's transaction with the tracking rows, so a page
    applied again records each failure once; a rebuild empties it with the view. ``GET /ready`` counts them.
    """

    def __init__(self, db: ViewDB):
        self.db = db
        self.docs: dict[str, dict[str, Any]] = {}  # per view, as stored plus this page's failures
        self.dirty: set[str] = set()

    def add(self, cur: Any, view: str, r: Any, exc: BaseException) -> None:
        doc = self.docs.get(view)
        if doc is None:
            doc = self.docs[view] = self.db.failures(cur, [view]).get(view) or {"count": 0, "events": []}
        error = for_terminal(f"{type(exc).__name__}: {exc}")[:500]
        doc["count"] += 1
        if len(doc["events"]) < FAILED_KEPT:
            doc["events"].append({"campaign": r.campaign, "position": r.position, "type": r.type,
                                  "notification_id": r.notification_id, "error": error})
        self.dirty.add(view)
        LOG.error("projection %s could not apply event %s of campaign %s (%s, notification %s), passed: %s",
                  view, r.position, r.campaign, r.type, r.notification_id, error)

    def flush(self, cur: Any) -> None:
        if self.dirty:
            self.db.put_docs(cur, [(v, FAILED, self.docs[v]["count"], orjson.dumps(self.docs[v]))
                                   for v in sorted(self.dirty)])

    def committed(self) -> None:
        self.dirty.clear()

    def forget(self) -> None:
        self.docs.clear()
        self.dirty.clear()

    def reset(self, cur: Any, view: str) -> None:
        cur.execute(self.db.sql("DELETE FROM {proj_docs} WHERE view = ? AND campaign = ?"), (view, FAILED))
        self.docs.pop(view, None)
        self.dirty.discard(view)


#: How long a view batch's transaction may sit idle between its statements (``ViewDB.batch_settings``).
BATCH_IDLE_SECONDS = 300


class DeferredWrites:
    """A batch's writes, recorded on the main thread and sent later by the runner's writer thread.

    It stands in for the cursor that ``View.flush`` writes to (``execute``, ``executemany``, ``copy`` and its
    ``write_row``): the views format their rows while the previous batch's transaction is still on its way, and
    ``replay`` sends them, in order, in the batch's own transaction (projections.runner). Nothing is read
    through it. ``cur``: a cursor of the same server, whose connection's adapters format the COPY rows here, into one
    buffer per COPY (psycopg's ``FileWriter``): the writer thread then sends each as one block. Formatted
    there row by row, the writer needed the GIL back after every 32 kB it sent, and waited for it up to a
    switch interval each time while this thread applied events (the writes of a 300,000-event rebuild took
    twice as long as alone).
    """

    def __init__(self, cur: Any) -> None:
        self.cur = cur
        self.ops: list[tuple[str, str, Any]] = []

    def execute(self, statement: str, params: Any = None) -> None:
        self.ops.append(("execute", statement, params))

    def executemany(self, statement: str, params: Iterable[Any]) -> None:
        self.ops.append(("executemany", statement, list(params)))

    @contextmanager
    def copy(self, statement: str) -> Iterator[Any]:
        from psycopg.copy import Copy, FileWriter

        buffer = BytesIO()
        with self.cur.connection.cursor() as fresh, Copy(fresh, writer=FileWriter(buffer)) as copy:
            yield copy
        self.ops.append(("copy", statement, buffer.getvalue()))

    def replay(self, cur: Any) -> None:
        for kind, statement, params in self.ops:
            if kind == "execute":
                cur.execute(statement, params)
            elif kind == "executemany":
                cur.executemany(statement, params)
            elif params:
                with cur.copy(statement) as copy:
                    copy.write(params)


def insert_rows(db: ViewDB, cur: Any, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Bulk insert: COPY on PostgreSQL (a rebuild writes rows by the hundred thousand), executemany on SQLite."""
    if not rows:
        return
    if db.postgres:
        with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)


class ViewDB:
    """The view tables of one store. ``ph`` is the driver's placeholder."""

    def __init__(self, recorder: Any):
        self.datastore = recorder.datastore
        self.postgres = isinstance(self.datastore, PostgresDatastore)
        self.ph = "%s" if self.postgres else "?"
        self.schema = self.datastore.schema if self.postgres else None
        self.events_table = recorder.events_table_name
        self._lz4: bool | None = None  # whether the server compresses with lz4 (``batch_settings``)
        #: Whether the awards' table has the ``hash`` column (``create_tables`` adds it where it may).
        self.award_hashes = True
        self.create_tables()

    def t(self, name: str) -> str:
        return f'"{self.schema}".{name}' if self.postgres else name

    def sql(self, text: str) -> str:
        """Statements are written with ``?`` and table names in braces: ``{proj_docs}``."""
        names = {n: self.t(n) for n in ("proj_tracking", "proj_docs", "proj_checkpoints", "proj_timeline",
                                        "proj_awards", "proj_places", "events")}
        names["events"] = self.t(self.events_table)
        text = text.format(**names)
        return text.replace("?", "%s") if self.postgres else text

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        if self.postgres:
            with self.datastore.transaction(commit=True) as cur:
                yield cur
        else:
            with self.datastore.transaction(commit=True) as cur:
                yield cur

    @contextmanager
    def reading(self) -> Iterator[Any]:
        """A cursor for reads. On PostgreSQL the pooled connection's autocommit, no BEGIN/ROLLBACK: at READ
        COMMITTED (the server's default, never changed here) a transaction gives each statement its own snapshot
        anyway, so it bought no consistency and cost two of a read's three round trips. What keeps a page from
        mixing two heads is that it reads the head once (api/deps.py) and every read after it is bounded by
        that position: events up to it are immutable, and a view's row says the position it is at."""
        if self.postgres:
            with self.datastore.get_connection() as conn, conn.cursor() as cur:
                yield cur
        else:
            with self.datastore.transaction(commit=False) as cur:
                yield cur

    def checkpoint_doc(self, cur: Any, view: str, campaign: str, position: int) -> bytes | None:
        """The stored document of a view's checkpoint at ``position`` (a keyframe another names), None if gone."""
        cur.execute(self.sql("SELECT doc FROM {proj_checkpoints} WHERE view = ? AND campaign = ? AND position = ?"),
                    (view, campaign, position))
        row = cur.fetchone()
        return bytes(row["doc"]) if row else None

    def put_docs(self, cur: Any, rows: list[tuple[str, str, int, bytes]]) -> None:
        """(view, campaign, position, document) rows over the stored ones (``cur``: a batch's, or its
        ``DeferredWrites``)."""
        cur.executemany(self.sql("INSERT INTO {proj_docs} (view, campaign, position, doc) VALUES (?, ?, ?, ?) "
                                 "ON CONFLICT (view, campaign) DO UPDATE SET position = excluded.position, "
                                 "doc = excluded.doc"), rows)

    def failures(self, cur: Any, views: list[str]) -> dict[str, dict[str, Any]]:
        """Per view, the events it could not apply (``Failures``' documents): views without any are left out."""
        marks = ",".join("?" * len(views))
        cur.execute(self.sql(f"SELECT view, doc FROM {{proj_docs}} WHERE campaign = ? AND view IN ({marks})"),
                    (FAILED, *views))
        return {r["view"]: orjson.loads(bytes(r["doc"])) for r in cur.fetchall()}

    def read_failures(self, views: list[str]) -> dict[str, dict[str, Any]]:
        with self.reading() as cur:
            return self.failures(cur, views)

    def rowcount(self, cur: Any) -> int:
        return cur.rowcount if self.postgres else cur.sqlite_cursor.rowcount

    def create_tables(self) -> None:
        blob = "bytea" if self.postgres else "BLOB"
        big = "bigint" if self.postgres else "INTEGER"
        statements = [
            f"CREATE TABLE IF NOT EXISTS {{proj_tracking}} (view text PRIMARY KEY, position {big} NOT NULL, "
            "rebuilding integer NOT NULL DEFAULT 0)",
            f"CREATE TABLE IF NOT EXISTS {{proj_docs}} (view text NOT NULL, campaign text NOT NULL, "
            f"position {big} NOT NULL, doc {blob} NOT NULL, PRIMARY KEY (view, campaign))",
            f"CREATE TABLE IF NOT EXISTS {{proj_checkpoints}} (view text NOT NULL, campaign text NOT NULL, "
            f"turn integer, position {big} NOT NULL, doc {blob} NOT NULL, PRIMARY KEY (view, campaign, position))",
            f"CREATE TABLE IF NOT EXISTS {{proj_timeline}} (campaign text NOT NULL, position {big} NOT NULL, "
            "turn integer, type text NOT NULL, summary text NOT NULL, context text NOT NULL, "
            "visibility text NOT NULL, PRIMARY KEY (campaign, position))",
            f"CREATE TABLE IF NOT EXISTS {{proj_awards}} (campaign text NOT NULL, position {big} NOT NULL, "
            "effect integer NOT NULL, country text NOT NULL, turn integer, points text NOT NULL, "
            "reason text NOT NULL, hash text, PRIMARY KEY (campaign, position, effect))",
            # The places an event touched (projections.timeline.places), written with its timeline row: a
            # place's history is an index range, not a scan of the campaign's events.
            f"CREATE TABLE IF NOT EXISTS {{proj_places}} (campaign text NOT NULL, place text NOT NULL, "
            f"position {big} NOT NULL, PRIMARY KEY (campaign, place, position))",
            *(f"CREATE INDEX IF NOT EXISTS {name} ON {{proj_timeline}} {spec}"
              for name, spec in TIMELINE_INDEXES.items()),
        ]
        with self.transaction() as cur:
            if self.postgres:
                if have_tables(cur, self.schema, VIEW_TABLES):
                    n, mine = table_indexes(cur, self.schema, "proj_timeline", list(TIMELINE_INDEXES))
                    self.award_hashes = self._award_hashes(cur)
                    # Tables of an older release get the indexes and columns from their owner (``ledger
                    # migrate``); the service role may not create them, and its reads answer the same without
                    # (a scan; the awards' hashes read from the events).
                    if (n == len(TIMELINE_INDEXES) and self.award_hashes) or not mine:
                        return
                # Several processes may start at once: serialise the CREATEs.
                cur.execute("SELECT pg_advisory_xact_lock(724311)")
            for s in statements:
                cur.execute(self.sql(s))
            self._add_award_hashes(cur)

    def _award_hashes(self, cur: Any) -> bool:
        """Whether the awards' table has its ``hash`` column (an older release's has not)."""
        if self.postgres:
            cur.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = %s "
                        "AND table_name = 'proj_awards' AND column_name = 'hash'", (self.schema,))
            return cur.fetchone() is not None
        cur.execute("PRAGMA table_info(proj_awards)")
        return any(r["name"] == "hash" for r in cur.fetchall())

    def _add_award_hashes(self, cur: Any) -> None:
        """An older release's awards' table gets the ``hash`` column, filled from the events (a few thousand
        awards on a 300,000-event campaign): a victory export then reads its hashes with the awards, not out of
        each award's stored event (PostgreSQL parsed ~500 events' JSON per country: ~120 ms of a first
        victory.csv). The victory view writes it with every award from then on."""
        if self._award_hashes(cur):
            self.award_hashes = True
            return
        cur.execute(self.sql("ALTER TABLE {proj_awards} ADD COLUMN hash text"))
        if self.postgres:
            cur.execute(self.sql("UPDATE {proj_awards} AS a SET hash = convert_from(e.state, 'UTF8')::json->>'hash' "
                                 "FROM {events} AS e WHERE a.hash IS NULL AND e.originator_id = a.campaign::uuid "
                                 "AND e.originator_version = a.position"))
        else:
            cur.execute(self.sql("UPDATE {proj_awards} SET hash = (SELECT json_extract(CAST(e.state AS TEXT), "
                                 "'$.hash') FROM {events} AS e WHERE e.originator_id = replace(campaign, '-', '') "
                                 "AND e.originator_version = position) WHERE hash IS NULL"))
        self.award_hashes = True

    # -- tracking ------------------------------------------------------------------

    def positions(self, cur: Any, views: list[str], *, lock: bool = False) -> dict[str, tuple[int, bool]]:
        for v in views:
            cur.execute(self.sql("INSERT INTO {proj_tracking} (view, position, rebuilding) VALUES (?, 0, 0) "
                                 "ON CONFLICT (view) DO NOTHING"), (v,))
        marks = ",".join("?" * len(views))
        suffix = " FOR UPDATE" if lock and self.postgres else ""
        cur.execute(self.sql(f"SELECT view, position, rebuilding FROM {{proj_tracking}} WHERE view IN ({marks})"
                             + suffix), tuple(views))
        return {r["view"]: (int(r["position"]), bool(r["rebuilding"])) for r in cur.fetchall()}

    def advance(self, cur: Any, view: str, old: int, new: int) -> None:
        cur.execute(self.sql("UPDATE {proj_tracking} SET position = ? WHERE view = ? AND position = ?"),
                    (new, view, old))
        if self.rowcount(cur) != 1:
            raise TrackingConflict(f"view {view} moved past {old} under this runner")

    def read_positions(self, views: list[str]) -> dict[str, tuple[int, bool]]:
        with self.transaction() as cur:
            return self.positions(cur, views)

    def read_events(self, cur: Any, after: int, limit: int) -> list[tuple[int, Any, int, str, bytes]]:
        """(notification id, campaign, position, topic, stored bytes) of the next events of the log.

        Read as plain tuples in the batch's own transaction: no library Notification objects.
        """
        if self.postgres:
            from psycopg.rows import tuple_row

            dict_rows, cur.row_factory = cur.row_factory, tuple_row  # the rest of the batch reads dict rows
            try:
                # Binary results and the campaign as text: the server sends the stored bytes as they are (no hex)
                # and no UUID object is made per row (a 300,000-event read: 1.0 -> 0.4 s CPU, 2.1 -> 1.2 s).
                cur.execute(f"SELECT notification_id, originator_id::text, originator_version, topic, state FROM "
                            f"{self.t(self.events_table)} WHERE notification_id > %s ORDER BY notification_id "
                            "LIMIT %s", (after, limit), binary=True)
                return cur.fetchall()  # type: ignore[no-any-return]
            finally:
                cur.row_factory = dict_rows
        else:
            cur.execute(f"SELECT rowid, originator_id, originator_version, topic, state FROM {self.events_table} "
                        "WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, limit))
            rows = cur.fetchall()
        # The views key campaigns on the uuid text (SQLite keeps bare hex): convert once.
        ids: dict[Any, str] = {}
        return [(r[0], ids.get(r[1]) or ids.setdefault(r[1], str(UUID(str(r[1])))), r[2], r[3], r[4]) for r in rows]

    def read_events_apart(self, after: int, limit: int) -> list[tuple[int, Any, int, str, bytes]]:
        """``read_events`` on a pooled connection of its own (the runner's read-ahead thread, PostgreSQL).

        Outside the batch's transaction is safe: events are immutable and the
        recorder's table lock gives notification ids in commit order, so a page
        read in another snapshot holds exactly the rows the batch would read.
        """
        with self.reading() as cur:
            return self.read_events(cur, after, limit)

    def batch_settings(self, cur: Any) -> None:
        """A view batch's transaction (PostgreSQL): ``synchronous_commit = off`` and a longer idle timeout.

        Not waiting for the WAL flush is safe for views: a crash can lose only
        whole recent transactions, each with its own tracking row, so the view
        is back at an older committed position and applies those events again
        (still exactly-once). The events themselves are written by the
        recorder, which keeps the server's durable default.

        A batch holds its transaction while its views work in Python between
        statements (the first sheets of a long campaign: seconds on a loaded
        machine), past the pool's idle-in-transaction timeout (eventsourcing's
        5 s), which ended the session and failed the catch-up; the batch's own
        transaction gets ``BATCH_IDLE_SECONDS``.

        Documents and checkpoints are stored compressed with lz4 where the server has it, instead of the
        default pglz: the same bytes read back, and the server compresses them several times faster (a rebuild
        of the 300,000-event campaign sends 275 MB of them; A/B, the writer thread's time 16.3 -> 13.4 s and
        9.1 -> 6.8 s at load average 4).
        """
        if self.postgres:
            if self._lz4 is None:
                cur.execute("SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings "
                            "WHERE name = 'default_toast_compression'")
                row = cur.fetchone()
                self._lz4 = bool(row and row["lz4"])
            cur.execute("SET LOCAL synchronous_commit = off; "
                        f"SET LOCAL idle_in_transaction_session_timeout = '{BATCH_IDLE_SECONDS}s'"
                        + ("; SET LOCAL default_toast_compression = lz4" if self._lz4 else ""))

    def read_campaign(self, cur: Any, campaign: str, upto: int, types: Iterable[str] | None = None, after: int = 0,
                      decoders: Mapping[str, Callable[[bytes], dict[str, Any]]] | None = None) -> list[Any]:
        """One campaign's records at positions after+1..upto (a correction folds them again), of some types
        only; ``decoders``: per type, a decoder of only the fields the caller reads (``records.from_row``)."""
        from ledger.domain.events import LedgerEvent
        from projections.records import from_row

        cid = UUID(campaign)
        only, topics = "", ()
        if types is not None:  # topics are "<module>:<class>"
            topics = tuple(f"{LedgerEvent.__module__}:{t}" for t in sorted(types))
            only = f" AND topic IN ({', '.join([self.ph] * len(topics))})"
        if self.postgres:
            cur.execute(f"SELECT originator_version AS v, topic, state FROM {self.t(self.events_table)} "
                        f"WHERE originator_id = %s AND originator_version > %s AND originator_version <= %s{only} "
                        "ORDER BY originator_version", (cid, after, upto, *topics))
        else:
            cur.execute(f"SELECT originator_version AS v, topic, state FROM {self.events_table} "
                        f"WHERE originator_id = ? AND originator_version > ? AND originator_version <= ?{only} "
                        "ORDER BY originator_version", (cid.hex, after, upto, *topics))
        return [from_row(campaign, r["v"], r["topic"], r["state"], 0, decoders) for r in cur.fetchall()]

    def read_at(self, cur: Any, campaign: str, positions: Iterable[int]) -> list[Any]:
        """One campaign's records at these positions, in order: one statement, not one per position (an ERS
        page names up to 200 events behind its cells)."""
        from projections.records import from_row

        wanted = sorted(set(positions))
        if not wanted:
            return []
        cid = UUID(campaign)
        if self.postgres:
            cur.execute(f"SELECT originator_version AS v, topic, state FROM {self.t(self.events_table)} "
                        "WHERE originator_id = %s AND originator_version = ANY(%s) ORDER BY originator_version",
                        (cid, wanted))
        else:
            cur.execute(f"SELECT originator_version AS v, topic, state FROM {self.events_table} WHERE originator_id = "
                        f"? AND originator_version IN ({', '.join('?' * len(wanted))}) ORDER BY originator_version",
                        (cid.hex, *wanted))
        return [from_row(campaign, r["v"], r["topic"], r["state"]) for r in cur.fetchall()]

    def head(self) -> int:
        with self.reading() as cur:
            col = "notification_id" if self.postgres else "rowid"
            cur.execute(self.sql(f"SELECT COALESCE(MAX({col}), 0) AS head FROM {{events}}"))
            return int(cur.fetchone()["head"])
