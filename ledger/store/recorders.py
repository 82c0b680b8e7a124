"""Event recorders for SQLite and PostgreSQL, extended with the ledger's tables.

Both add, in the same migration (idempotent, run at start-up):
- triggers refusing UPDATE and DELETE (and TRUNCATE on PostgreSQL) of stored events;
- ``ledger_idempotency``: the first result of each idempotency key;
- ``ledger_dice_seeds``: the secret seed of each audience of a turn (ledger/dice.py), encrypted with a key
  outside the database (ledger/seeds.py); ``ledger_turn_seeds`` holds the plain seeds written before, read
  only for a turn opened then and still open;
- ``ledger_checkpoints``: the checkpoint the service signed after each write
  (campaign, tree size, signed note), so ``verify`` can tell an event appended
  or a tail rewritten outside the ledger (whoever writes to the database
  cannot sign), and a deleted tail the service had signed.
Rows of the last three are written in the same transaction as the events they
belong to (``insert_events(..., extras=...)``), so a retried command can never
append twice and a turn never opens without its seed.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
import psycopg.errors
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, ProgrammingError, StoredEvent
from eventsourcing.utils import retry
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresFactory
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteFactory
from psycopg.adapt import Transformer
from psycopg.sql import SQL, Identifier

IMMUTABLE_MESSAGE = "ledger events are immutable"
#: pg_advisory_xact_lock key serialising the store's migrations across processes (the views use 724311).
MIGRATION_LOCK = 724310


@dataclass(frozen=True)
class IdempotencyRecord:
    scope: str
    key: str
    request_hash: str
    response: bytes


@dataclass(frozen=True)
class TurnSeed:
    campaign: UUID
    turn: int
    audience: str
    sealed: bytes  # ledger.seeds.SeedBox.seal


@dataclass(frozen=True)
class Extras:
    """Rows written atomically with a batch of events."""

    idempotency: IdempotencyRecord | None = None
    seeds: tuple[TurnSeed, ...] = ()
    checkpoint: tuple[UUID, int, str] | None = None  # (campaign, size, signed note)


class SerialisedSQLiteMigration:
    """For every SQLite recorder of the ledger (events and snapshots)."""

    def create_table(self) -> None:
        """Every CREATE in one ``BEGIN IMMEDIATE`` transaction.

        The library's deferred BEGIN reads the schema first and upgrades to a write lock later: when another
        process committed its own CREATEs in between, SQLite (WAL) answers "database is locked" at once
        instead of waiting. IMMEDIATE takes the write lock first, so concurrent start-ups queue on the
        connection's busy timeout and the later ones find everything created. (Opening a fresh file, which the
        library switches to WAL without waiting, is serialised by the application: ``Ledger.__init__``.)
        """
        with self.datastore.get_connection(commit=True) as conn:
            c = conn.cursor()
            c.execute("BEGIN IMMEDIATE")
            try:
                for statement in self.construct_create_table_statements():
                    c.execute(statement)
            except BaseException:
                conn.rollback()
                raise
            conn.commit()


class SerialisedPostgresMigration:
    """For every PostgreSQL recorder of the ledger (events and snapshots)."""

    def create_table(self) -> None:
        """The library's migration, in one transaction under ``pg_advisory_xact_lock``.

        Several processes start at once (``ledger serve --workers N``, the follower, the CLI): the library
        runs CREATE TYPE, CREATE TABLE/INDEX, CREATE OR REPLACE FUNCTION/TRIGGER unserialised, which
        deadlocks or hits a unique violation on the catalogs now and then. Under the lock the first process
        creates everything and the others find it done. CREATE TYPE has no IF NOT EXISTS: each runs in a
        savepoint so a DuplicateObject does not abort the transaction.
        """
        with self.datastore.transaction(commit=True) as curs:
            curs.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            for statement in self.sql_create_statements:
                if "CREATE TYPE" in statement.as_string():
                    try:
                        with curs.connection.transaction():
                            curs.execute(statement, prepare=False)
                    except psycopg.errors.DuplicateObject:
                        pass
            for statement in self.sql_create_statements:
                if "CREATE TYPE" not in statement.as_string():
                    try:
                        curs.execute(statement, prepare=False)
                    except psycopg.errors.SyntaxError as e:
                        raise ProgrammingError(f"Syntax error: '{e}' in: {statement.as_string()}") from e
        self.datastore.register_type_adapters()



class PendingAppend:
    """One caller's events and extras, waiting for its group's commit.

    ``after``: the append of the same campaign this one builds on, queued before it and not yet answered when
    this one was drafted (``Ledger.execute`` drafts on the head a queued append will make): if it fails, this
    one fails too, unsent, since its first event links to a hash that will not be stored.
    """

    __slots__ = ("events", "extras", "after", "ids", "error", "done", "settled", "lead")

    def __init__(self, events: Sequence[StoredEvent], extras: Extras | None, after: PendingAppend | None = None):
        self.events, self.extras, self.after = events, extras, after
        self.ids: list[int] | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.settled = threading.Event()  # committed or failed (``done`` also wakes a follower made leader)
        self.lead = False  # handed the leader's role rather than an answer

    def outcome(self) -> list[int]:
        if self.error is not None:
            raise self.error
        assert self.ids is not None
        return self.ids

    def orphaned(self) -> bool:
        """Failed before it is sent, because the append it builds on failed."""
        if self.after is not None and self.after.error is not None:
            self.error = IntegrityError(f"the append at position {self.after.events[0].originator_version} this "
                                        "one follows was not stored")
        return self.error is not None


class GroupCommit:
    """Leader/follower group commit: appends arriving while a commit is in flight share the next one.

    The first caller to find no commit in flight leads: it takes every append
    waiting (up to ``limit``), commits them as one transaction and, if more
    arrived meanwhile, hands the leader's role to the oldest of them before
    returning its own answer. A lone writer therefore commits at once with no
    hand-off; under load each commit carries every append that queued behind
    the previous one. ``window`` (seconds, default 0) makes a leader wait that
    long for company first, for loads where appends arrive just apart.
    Order within a campaign is the queue's: the application queues one
    campaign's appends one at a time, in their order (``Ledger.execute``), and
    across processes the unique position still decides who was first.
    """

    def __init__(self, commit: Callable[[list[PendingAppend]], None], *, window: float = 0.0, limit: int = 64):
        self.commit, self.window, self.limit = commit, window, limit
        self.mutex = threading.Lock()
        self.queue: list[PendingAppend] = []
        self.busy = False
        self.groups = 0  # commits, and appends in them (benchmarks: the mean group size)
        self.appends = 0

    def submit(self, request: PendingAppend) -> list[int]:
        return self.finish(request, self.enqueue(request))

    def enqueue(self, request: PendingAppend) -> bool:
        """Queue an append; True when its caller is to lead the next commit (``finish``)."""
        with self.mutex:
            self.queue.append(request)
            lead = not self.busy
            self.busy = True
        return lead

    def finish(self, request: PendingAppend, lead: bool) -> list[int]:
        """Wait for a queued append's commit, leading it (and the appends queued with it) when told to."""
        if not lead:
            request.done.wait()
            if not request.lead:
                return request.outcome()
            request.done.clear()  # led from here: done again once its own group commits
        self._lead()
        return request.outcome()

    def _lead(self) -> None:
        if self.window:
            time.sleep(self.window)
        with self.mutex:
            group, self.queue = self.queue[: self.limit], self.queue[self.limit:]
        try:
            self.commit(group)
        finally:
            with self.mutex:
                self.groups += 1
                self.appends += len(group)
                if self.queue:
                    successor = self.queue[0]
                    successor.lead = True
                    successor.done.set()
                else:
                    self.busy = False


class LedgerSQLiteRecorder(SerialisedSQLiteMigration, SQLiteApplicationRecorder):
    def construct_create_table_statements(self) -> list[str]:
        t = self.events_table_name
        return [
            *super().construct_create_table_statements(),
            f"CREATE TRIGGER IF NOT EXISTS {t}_no_update BEFORE UPDATE ON {t} "
            f"BEGIN SELECT RAISE(ABORT, '{IMMUTABLE_MESSAGE}: UPDATE refused'); END",
            f"CREATE TRIGGER IF NOT EXISTS {t}_no_delete BEFORE DELETE ON {t} "
            f"BEGIN SELECT RAISE(ABORT, '{IMMUTABLE_MESSAGE}: DELETE refused'); END",
            "CREATE TABLE IF NOT EXISTS ledger_idempotency ("
            "scope TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, "
            "response BLOB NOT NULL, PRIMARY KEY (scope, key))",
            "CREATE TABLE IF NOT EXISTS ledger_turn_seeds ("
            "campaign_id TEXT NOT NULL, turn INTEGER NOT NULL, seed BLOB NOT NULL, "
            "PRIMARY KEY (campaign_id, turn))",
            "CREATE TABLE IF NOT EXISTS ledger_dice_seeds ("
            "campaign_id TEXT NOT NULL, turn INTEGER NOT NULL, audience TEXT NOT NULL, sealed BLOB NOT NULL, "
            "PRIMARY KEY (campaign_id, turn, audience))",
            "CREATE TABLE IF NOT EXISTS ledger_checkpoints ("
            "campaign_id TEXT NOT NULL, size INTEGER NOT NULL, note TEXT NOT NULL, "
            "PRIMARY KEY (campaign_id, size))",
        ]

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        ids = super()._insert_events(c, stored_events, **kwargs)
        extras: Extras | None = kwargs.get("extras")
        if extras and extras.idempotency:
            i = extras.idempotency
            c.execute(
                "INSERT INTO ledger_idempotency (scope, key, request_hash, response) VALUES (?,?,?,?)",
                (i.scope, i.key, i.request_hash, i.response),
            )
        for s in extras.seeds if extras else ():
            c.execute("INSERT INTO ledger_dice_seeds (campaign_id, turn, audience, sealed) VALUES (?,?,?,?)",
                      (s.campaign.hex, s.turn, s.audience, s.sealed))
        if extras and extras.checkpoint:
            cid, size, note = extras.checkpoint
            c.execute("INSERT INTO ledger_checkpoints (campaign_id, size, note) VALUES (?,?,?)",
                      (cid.hex, size, note))
        return ids

    def add_checkpoint(self, campaign: UUID, size: int, note: str) -> None:
        """A checkpoint signed outside a write (``ledger sign-head``); an existing one is kept."""
        with self.datastore.transaction(commit=True) as c:
            c.execute("INSERT OR IGNORE INTO ledger_checkpoints (campaign_id, size, note) VALUES (?,?,?)",
                      (campaign.hex, size, note))

    def signed_checkpoints(self, campaign: UUID, size: int | None = None) -> list[tuple[int, str]]:
        """(size, note) of the checkpoints signed for a campaign, by size (or the one at ``size``)."""
        with self.datastore.transaction(commit=False) as c:
            if size is None:
                c.execute("SELECT size, note FROM ledger_checkpoints WHERE campaign_id=? ORDER BY size",
                          (campaign.hex,))
            else:
                c.execute("SELECT size, note FROM ledger_checkpoints WHERE campaign_id=? AND size=?",
                          (campaign.hex, size))
            return [(int(r["size"]), str(r["note"])) for r in c.fetchall()]

    def get_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT request_hash, response FROM ledger_idempotency WHERE scope=? AND key=?",
                (scope, key),
            )
            row = c.fetchone()
        return IdempotencyRecord(scope, key, row["request_hash"], bytes(row["response"])) if row else None

    def get_turn_seed(self, campaign: UUID, turn: int) -> bytes | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute("SELECT seed FROM ledger_turn_seeds WHERE campaign_id=? AND turn=?", (campaign.hex, turn))
            row = c.fetchone()
        return bytes(row["seed"]) if row else None

    def get_dice_seed(self, campaign: UUID, turn: int, audience: str) -> bytes | None:
        """The sealed seed of an audience of a turn (ledger/seeds.py opens it)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute("SELECT sealed FROM ledger_dice_seeds WHERE campaign_id=? AND turn=? AND audience=?",
                      (campaign.hex, turn, audience))
            row = c.fetchone()
        return bytes(row["sealed"]) if row else None

    def head_version(self, campaign: UUID) -> int:
        """The campaign's last position (0: none): what a cached state is checked against, per request."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT MAX(originator_version) AS v FROM {self.events_table_name} WHERE originator_id=?",
                      (campaign.hex,))
            row = c.fetchone()
        return int(row["v"] or 0)

    def campaign_ids(self) -> list[UUID]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT originator_id FROM {self.events_table_name} WHERE originator_version=1")
            return [UUID(r["originator_id"]) for r in c.fetchall()]


class LedgerPostgresRecorder(SerialisedPostgresMigration, PostgresApplicationRecorder):
    #: Share one transaction (table lock, NOTIFY, commit) among appends arriving together (``GroupCommit``).
    group_commit = os.environ.get("LEDGER_GROUP_COMMIT", "1") != "0"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._reading = threading.local()  # per thread: the queued append its reads wait for (``reading_after``)
        self._group = GroupCommit(self._commit_group, window=float(os.environ.get("LEDGER_GROUP_COMMIT_WINDOW_MS",
                                                                                   "0")) / 1000)
        schema = Identifier(self.datastore.schema)
        table = Identifier(self.events_table_name)
        func = Identifier(f"{self.events_table_name}_refuse_change")
        self._lock_function = Identifier(f"{self.events_table_name}_lock")
        self.sql_create_statements.extend(
            [
                SQL(
                    "CREATE OR REPLACE FUNCTION {schema}.{func}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                    "BEGIN RAISE EXCEPTION '{message}: % refused on %', TG_OP, TG_TABLE_NAME; END $$"
                ).format(schema=schema, func=func, message=SQL(IMMUTABLE_MESSAGE)),
                SQL(
                    "CREATE OR REPLACE TRIGGER {trigger} BEFORE UPDATE OR DELETE ON {schema}.{table} "
                    "FOR EACH ROW EXECUTE FUNCTION {schema}.{func}()"
                ).format(
                    trigger=Identifier(f"{self.events_table_name}_immutable"),
                    schema=schema,
                    table=table,
                    func=func,
                ),
                SQL(
                    "CREATE OR REPLACE TRIGGER {trigger} BEFORE TRUNCATE ON {schema}.{table} "
                    "FOR EACH STATEMENT EXECUTE FUNCTION {schema}.{func}()"
                ).format(
                    trigger=Identifier(f"{self.events_table_name}_no_truncate"),
                    schema=schema,
                    table=table,
                    func=func,
                ),
                # Appends take an EXCLUSIVE lock on the events table (notification ids in commit order), which
                # PostgreSQL grants only to a role with UPDATE, DELETE or TRUNCATE on it: the owner's function
                # takes it for the service role, which has none of those (ledger/store/roles.py).
                SQL(
                    "CREATE OR REPLACE FUNCTION {schema}.{lock}() RETURNS void LANGUAGE plpgsql SECURITY DEFINER "
                    "SET search_path = pg_catalog AS $$ BEGIN LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; END $$"
                ).format(schema=schema, lock=self._lock_function, table=table),
                SQL("REVOKE ALL ON FUNCTION {schema}.{lock}() FROM PUBLIC").format(
                    schema=schema, lock=self._lock_function),
                SQL(
                    "CREATE TABLE IF NOT EXISTS {schema}.ledger_idempotency ("
                    "scope text NOT NULL, key text NOT NULL, request_hash text NOT NULL, "
                    "response bytea NOT NULL, PRIMARY KEY (scope, key))"
                ).format(schema=schema),
                SQL(
                    "CREATE TABLE IF NOT EXISTS {schema}.ledger_turn_seeds ("
                    "campaign_id uuid NOT NULL, turn integer NOT NULL, seed bytea NOT NULL, "
                    "PRIMARY KEY (campaign_id, turn))"
                ).format(schema=schema),
                SQL(
                    "CREATE TABLE IF NOT EXISTS {schema}.ledger_dice_seeds ("
                    "campaign_id uuid NOT NULL, turn integer NOT NULL, audience text NOT NULL, "
                    "sealed bytea NOT NULL, PRIMARY KEY (campaign_id, turn, audience))"
                ).format(schema=schema),
                SQL(
                    "CREATE TABLE IF NOT EXISTS {schema}.ledger_checkpoints ("
                    "campaign_id uuid NOT NULL, size bigint NOT NULL, note text NOT NULL, "
                    "PRIMARY KEY (campaign_id, size))"
                ).format(schema=schema),
            ]
        )
        self._insert_checkpoint = SQL(
            "INSERT INTO {schema}.ledger_checkpoints (campaign_id, size, note) VALUES (%s,%s,%s)"
        ).format(schema=schema)
        self._select_checkpoints = SQL(
            "SELECT size, note FROM {schema}.ledger_checkpoints WHERE campaign_id=%s ORDER BY size"
        ).format(schema=schema)
        self._select_checkpoint = SQL(
            "SELECT size, note FROM {schema}.ledger_checkpoints WHERE campaign_id=%s AND size=%s"
        ).format(schema=schema)
        self._insert_idempotency = SQL(
            "INSERT INTO {schema}.ledger_idempotency (scope, key, request_hash, response) VALUES (%s,%s,%s,%s)"
        ).format(schema=schema)
        self._insert_seed = SQL(
            "INSERT INTO {schema}.ledger_dice_seeds (campaign_id, turn, audience, sealed) VALUES (%s,%s,%s,%s)"
        ).format(schema=schema)
        self._select_dice_seed = SQL(
            "SELECT sealed FROM {schema}.ledger_dice_seeds WHERE campaign_id=%s AND turn=%s AND audience=%s"
        ).format(schema=schema)
        self._select_idempotency = SQL(
            "SELECT request_hash, response FROM {schema}.ledger_idempotency WHERE scope=%s AND key=%s"
        ).format(schema=schema)
        self._select_seed = SQL(
            "SELECT seed FROM {schema}.ledger_turn_seeds WHERE campaign_id=%s AND turn=%s"
        ).format(schema=schema)
        self._sql: dict[str, Any] | None = None
        self._select_head = SQL(
            "SELECT MAX(originator_version) AS v FROM {schema}.{table} WHERE originator_id=%s"
        ).format(schema=schema, table=table)
        self._select_campaigns = SQL(
            "SELECT originator_id FROM {schema}.{table} WHERE originator_version=1 ORDER BY notification_id"
        ).format(schema=schema, table=table)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Append one command's events, committed with whatever other campaigns' appends arrive together.

        Same protocol as PostgresApplicationRecorder.insert_events (the table
        lock keeps notification ids in commit order for followers, NOTIFY
        wakes them), but the lock, the NOTIFY and the commit's WAL flush are
        shared by a group (``GroupCommit``): every writer of this process takes
        the same table lock, so without grouping each append paid a full fsync
        while holding it, one after another. Each append keeps its own
        savepoint: a conflict fails that append only, and each caller gets its
        answer after the group's COMMIT. ``group_commit = False`` appends alone.
        """
        if not stored_events:
            return []
        request = PendingAppend(stored_events, kwargs.get("extras"))
        if self.group_commit:
            return self._group.submit(request)
        self._commit_group([request])
        return request.outcome()

    def enqueue(self, stored_events: Sequence[StoredEvent], extras: Extras | None, after: PendingAppend | None
                ) -> tuple[PendingAppend, bool]:
        """Queue one command's events for the next group commit without waiting (``wait``): the application
        holds its campaign's writer only this long, and drafts the next command of the campaign on the head
        these events make (``after`` links it to this append). Group commit only."""
        request = PendingAppend(stored_events, extras, after)
        return request, self._group.enqueue(request)

    def wait(self, request: PendingAppend, lead: bool) -> list[int]:
        """The notification ids of a queued append once its group committed; raises its error. Not retried
        here (a lost connection fails the group): the appends queued after it may build on it, so the
        application drafts its command again instead."""
        return self._group.finish(request, lead)

    def reading_after(self, request: PendingAppend | None) -> None:
        """Reads of this thread wait for ``request``'s commit first (None: they stop waiting): a command
        drafted on the head a queued append will make reads the store as of that head, never before it."""
        self._reading.after = request

    def _settle(self) -> None:
        request = getattr(self._reading, "after", None)
        if request is not None:
            request.settled.wait()
            self._reading.after = None

    def select_events(self, *args: Any, **kwargs: Any) -> Any:
        self._settle()
        return super().select_events(*args, **kwargs)

    def _commit_group(self, queued: list[PendingAppend]) -> None:
        """One transaction for the group; sets every append's ids or error, never raises.

        First the whole group in a few statements (``_insert_group``). If an
        append conflicts, that transaction is rolled back and the group is sent
        again append by append, every statement in one pipeline synced once:
        each append sits between ``SAVEPOINT`` and ``RELEASE``, so when one
        conflicts (a duplicate position: the server skips what follows),
        the transaction rolls back to that append's savepoint, the append
        fails alone, and the appends after it are sent again. (psycopg's
        nested ``transaction()`` blocks would sync on entry and exit: two more
        round trips per append.)
        """
        sql = self._rendered()
        group: list[PendingAppend] = []
        try:
            group = [r for r in queued if not r.orphaned()]
            if not group:
                return
            with self.datastore.get_connection() as conn:
                # No server-side prepared statements in the group: psycopg counts a statement prepared once its
                # Parse is queued, but the server skips the rest of an aborted pipeline, and the statement then
                # "does not exist" on the connection's next use (seen as soon as appends conflicted).
                threshold, conn.prepare_threshold = conn.prepare_threshold, None
                try:
                    if self._insert_group(conn, sql, group):
                        return
                    with conn.pipeline() as pipeline, conn.transaction():
                        with conn.cursor() as c:
                            c.execute(sql["preamble"])
                        pending = group
                        while pending:
                            pending = self._send_appends(conn, pipeline, sql, pending)
                finally:
                    conn.prepare_threshold = threshold
        except BaseException as e:  # translated by get_connection: every append of the group fails with it
            for request in group:
                request.ids, request.error = None, e
            if not isinstance(e, Exception):
                raise  # an interrupt: the leader's thread stops too, after every waiting caller got its answer
        finally:
            for request in queued:
                request.after = None  # answered: what it followed is no longer needed
                request.settled.set()
                request.done.set()

    def _insert_group(self, conn: Any, sql: dict[str, Any], group: list[PendingAppend]) -> bool:
        """The group in one transaction of a few statements, whatever its size: the events in one INSERT, the
        extras in one per table. False, with nothing written, when one append conflicts: the group is then
        sent append by append (``_send_appends``), so that the conflict fails that append only. Within one
        process appends of a campaign never conflict (``Ledger.execute``): that is for races between
        processes, and for a reused idempotency key.

        The statements go as one query string, parameters bound on the client: PostgreSQL runs the
        statements of one simple-protocol query as one implicit transaction (all or nothing, the lock held
        to its end), so the group costs one round trip and one call into psycopg, where a pipeline of
        BEGIN, the preamble, each INSERT and COMMIT cost about 0.3 ms of client CPU per group.
        """
        events = [e for r in group for e in r.events]
        extras = [r.extras for r in group if r.extras is not None]
        checkpoints = [x.checkpoint for x in extras if x.checkpoint]
        keys = [x.idempotency for x in extras if x.idempotency]
        seeds = [s for x in extras for s in x.seeds]
        # The lock timeout, the table lock (notification ids in commit order) and the NOTIFY first, in one
        # statement; then the events, whose ids the second result returns. The values are quoted here
        # (psycopg's own literals): psycopg parses a query with more than 50 parameters anew each time.
        lit = Transformer(conn).as_literal
        statements = [sql["preamble"], sql["insert_all"] + b",".join(
            b"(%b,%b,%b,%b)" % (lit(e.originator_id), lit(e.originator_version), lit(e.topic), lit(e.state))
            for e in events) + sql["insert_all_returning"]]
        if checkpoints:
            statements.append(sql["checkpoint_all"] + b",".join(
                b"(%b,%b,%b)" % (lit(c), lit(size), lit(note)) for c, size, note in checkpoints))
        if keys:
            statements.append(sql["idempotency_all"] + b",".join(
                b"(%b,%b,%b,%b)" % (lit(i.scope), lit(i.key), lit(i.request_hash), lit(i.response)) for i in keys))
        if seeds:
            statements.append(sql["seed_all"] + b",".join(
                b"(%b,%b,%b,%b)" % (lit(s.campaign), lit(s.turn), lit(s.audience), lit(s.sealed)) for s in seeds))
        with conn.cursor() as cur:
            try:
                # Without parameters psycopg sends the simple query protocol, which takes several statements.
                cur.execute(b";".join(statements), prepare=False)
            except psycopg.IntegrityError:
                return False  # the implicit transaction rolled back: nothing of the group was written
            cur.nextset()
            ids = {(r["originator_id"], r["originator_version"]): r["notification_id"] for r in cur.fetchall()}
        for request in group:
            request.ids = [ids[(e.originator_id, e.originator_version)] for e in request.events]
        return True

    def _send_appends(self, conn: Any, pipeline: Any, sql: dict[str, Any], group: list[PendingAppend]) -> list[PendingAppend]:
        """Send the appends, each in a savepoint; returns those to send again after a conflict (none: done)."""
        sent: list[list[Any]] = []  # [append, its INSERT cursors, its RELEASE cursor once sent]
        try:
            for request in group:
                entry: list[Any] = [request, [], None]
                sent.append(entry)
                conn.execute("SAVEPOINT ledger_append")
                for e in request.events:
                    cur = conn.cursor()
                    cur.execute(sql["insert"], (e.originator_id, e.originator_version, e.topic, e.state))
                    entry[1].append(cur)
                extras = request.extras
                if extras and extras.idempotency:
                    i = extras.idempotency
                    conn.execute(sql["idempotency"], (i.scope, i.key, i.request_hash, i.response))
                for s in extras.seeds if extras else ():
                    conn.execute(sql["seed"], (s.campaign, s.turn, s.audience, s.sealed))
                if extras and extras.checkpoint:
                    conn.execute(sql["checkpoint"], extras.checkpoint)
                entry[2] = conn.execute("RELEASE SAVEPOINT ledger_append")
            pipeline.sync()
        except psycopg.IntegrityError as e:
            # Raised at the sync or earlier, while results were read during sending: finish the pipeline's
            # aborted stretch first, so the rollback below is not skipped too.
            with contextlib.suppress(psycopg.Error):
                pipeline.sync()
            # The first append whose RELEASE did not run is the one that conflicted; those before it stand.
            k = next(k for k, (_, _, release) in enumerate(sent) if release is None or release.pgresult is None
                     or release.pgresult.status != psycopg.pq.ExecStatus.COMMAND_OK)
            for request, cursors, _ in sent[:k]:
                request.ids = [cur.fetchone()["notification_id"] for cur in cursors]
            loser = sent[k][0]
            loser.error = IntegrityError(str(e))
            loser.error.__cause__ = e
            conn.execute("ROLLBACK TO SAVEPOINT ledger_append")
            conn.execute("RELEASE SAVEPOINT ledger_append")
            pipeline.sync()
            for _, cursors, _ in sent:
                for cur in cursors:
                    cur.close()
            return [r for r in group[k + 1:] if not r.orphaned()]
        for request, cursors, _ in sent:
            request.ids = [cur.fetchone()["notification_id"] for cur in cursors]
            for cur in cursors:
                cur.close()
        return []

    def _rendered(self) -> dict[str, Any]:
        if self._sql is None:
            schema, table = Identifier(self.datastore.schema), Identifier(self.events_table_name)
            with self.datastore.get_connection() as conn:
                self._sql = {
                    # The group's lock timeout (set_config(..., true) is SET LOCAL), the table lock (notification
                    # ids in commit order) and the NOTIFY to followers, in one statement.
                    "preamble": SQL("SELECT set_config('lock_timeout', {0}, true), {1}.{2}(), pg_notify({3}, '')"
                                    ).format(f"{self.datastore.lock_timeout}s", schema, self._lock_function,
                                             self.channel_name).as_bytes(conn),
                    "insert": SQL(
                        "INSERT INTO {0}.{1} (originator_id, originator_version, topic, state) "
                        "VALUES (%s, %s, %s, %s) RETURNING notification_id"
                    ).format(schema, table).as_string(conn),
                    "idempotency": self._insert_idempotency.as_string(conn),
                    "seed": self._insert_seed.as_string(conn),
                    "checkpoint": self._insert_checkpoint.as_string(conn),
                    # A whole group's rows, one statement per table (``_insert_group``, bytes: the values are
                    # quoted there): rows listed in order are inserted in that order, so notification ids follow
                    # each campaign's positions. Multi-row VALUES rather than unnest(arrays): half the client CPU.
                    "insert_all": SQL("INSERT INTO {0}.{1} (originator_id, originator_version, topic, state) VALUES "
                                      ).format(schema, table).as_bytes(conn),
                    "insert_all_returning": b" RETURNING originator_id, originator_version, notification_id",
                    "checkpoint_all": SQL("INSERT INTO {0}.ledger_checkpoints (campaign_id, size, note) VALUES "
                                          ).format(schema).as_bytes(conn),
                    "idempotency_all": SQL("INSERT INTO {0}.ledger_idempotency (scope, key, request_hash, response) "
                                           "VALUES ").format(schema).as_bytes(conn),
                    "seed_all": SQL("INSERT INTO {0}.ledger_dice_seeds (campaign_id, turn, audience, sealed) VALUES "
                                    ).format(schema).as_bytes(conn),
                }
        return self._sql

    def get_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_idempotency, (scope, key), prepare=True)
            row = curs.fetchone()
        return IdempotencyRecord(scope, key, row["request_hash"], bytes(row["response"])) if row else None

    def get_turn_seed(self, campaign: UUID, turn: int) -> bytes | None:
        self._settle()
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_seed, (campaign, turn), prepare=True)
            row = curs.fetchone()
        return bytes(row["seed"]) if row else None

    def get_dice_seed(self, campaign: UUID, turn: int, audience: str) -> bytes | None:
        """The sealed seed of an audience of a turn (ledger/seeds.py opens it)."""
        self._settle()
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_dice_seed, (campaign, turn, audience), prepare=True)
            row = curs.fetchone()
        return bytes(row["sealed"]) if row else None

    def add_checkpoint(self, campaign: UUID, size: int, note: str) -> None:
        """A checkpoint signed outside a write (``ledger sign-head``); an existing one is kept."""
        with self.datastore.get_connection() as conn, conn.transaction():
            conn.execute(self._insert_checkpoint + SQL(" ON CONFLICT DO NOTHING"), (campaign, size, note))

    def signed_checkpoints(self, campaign: UUID, size: int | None = None) -> list[tuple[int, str]]:
        """(size, note) of the checkpoints signed for a campaign, by size (or the one at ``size``)."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            if size is None:
                curs.execute(self._select_checkpoints, (campaign,))
            else:
                curs.execute(self._select_checkpoint, (campaign, size), prepare=True)
            return [(int(r["size"]), str(r["note"])) for r in curs.fetchall()]

    def head_version(self, campaign: UUID) -> int:
        """The campaign's last position (0: none): one autocommit round trip, checked per request."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_head, (campaign,), prepare=True)
            row = curs.fetchone()
        return int(row["v"] or 0)

    def campaign_ids(self) -> list[UUID]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_campaigns)
            return [r["originator_id"] for r in curs.fetchall()]


class LedgerSQLiteSnapshotRecorder(SerialisedSQLiteMigration, SQLiteAggregateRecorder):
    pass


class LedgerPostgresSnapshotRecorder(SerialisedPostgresMigration, PostgresAggregateRecorder):
    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        """The library's statement with binary results: a snapshot's state (6 MB on the 300k campaign, the
        budget's log) comes as its bytes, not as hex the server encodes and the client decodes again (a fresh
        process's first read: 10-25 -> 3-9 ms of CPU, 50-100 -> 27-40 ms)."""
        statement = self.select_events_statement
        params: list[Any] = [originator_id]
        for value, condition in ((gt, " AND originator_version > %s"), (lte, " AND originator_version <= %s")):
            if value is not None:
                params.append(value)
                statement += SQL(condition)
        statement += SQL(" ORDER BY originator_version DESC" if desc else " ORDER BY originator_version ASC")
        if limit is not None:
            params.append(limit)
            statement += SQL(" LIMIT %s")
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, params, prepare=True, binary=True)
            return [StoredEvent(originator_id=row["originator_id"], originator_version=row["originator_version"],
                                topic=row["topic"], state=bytes(row["state"])) for row in curs.fetchall()]


# The factories (PERSISTENCE_MODULE in ledger/config.py) exist only so the snapshot recorder, which the
# library builds from ``aggregate_recorder_class`` (no environment variable), migrates under the same lock.
class LedgerSQLiteFactory(SQLiteFactory):
    aggregate_recorder_class = LedgerSQLiteSnapshotRecorder


class LedgerPostgresFactory(PostgresFactory):
    aggregate_recorder_class = LedgerPostgresSnapshotRecorder
