"""What the service's PostgreSQL role may do, granted by the owner of the tables (``ledger migrate``).

The service connects as a role that owns nothing: on the history and its seals (events, snapshots,
idempotency records, turn seeds, checkpoints) it may only SELECT and INSERT, so it can neither rewrite
a row nor drop the immutability trigger; not being a superuser, it cannot ``SET session_replication_role
= replica`` (which would silence the trigger) either. The views and the heartbeats are caches it
rebuilds: there it may also UPDATE, DELETE and TRUNCATE. Appends lock the events table through the
owner's SECURITY DEFINER function (ledger/store/recorders.py), since PostgreSQL grants an EXCLUSIVE lock
only to a role that could UPDATE the table.
"""

from __future__ import annotations

from typing import Any

from psycopg.sql import SQL, Identifier

#: Side tables holding facts, not caches: append-only for the service, like the events.
APPEND_ONLY = ("ledger_idempotency", "ledger_turn_seeds", "ledger_dice_seeds", "ledger_checkpoints")


def append_only_tables(ledger: Any) -> tuple[str, ...]:
    """The events table, the snapshots' and the side tables of facts."""
    tables = [ledger.recorder.events_table_name, *APPEND_ONLY]
    if ledger.snapshots is not None:
        tables.append(ledger.snapshots.recorder.events_table_name)
    return tuple(tables)


def service_role(settings: Any) -> str | None:
    """The role the service connects as, when the tables have a separate owner (else None: nothing to grant)."""
    from psycopg.conninfo import conninfo_to_dict

    if not settings.migrated_by_owner:
        return None
    return conninfo_to_dict(settings.postgres_dsn or "").get("user") or None


def grant_service_role(ledger: Any, role: str) -> list[str]:
    """Grant ``role`` what the service needs on every table of the ledger's schema (run as the owner, after
    the tables exist); returns the statements run. Idempotent: run again after a migration adds a table."""
    datastore = ledger.recorder.datastore
    schema = Identifier(datastore.schema)
    who = Identifier(role)
    fixed = set(append_only_tables(ledger))
    lock = Identifier(f"{ledger.recorder.events_table_name}_lock")
    with datastore.transaction(commit=True) as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (datastore.schema,))
        tables = [r["tablename"] for r in cur.fetchall()]
        statements = [
            SQL("GRANT USAGE ON SCHEMA {s} TO {r}").format(s=schema, r=who),
            SQL("REVOKE CREATE ON SCHEMA {s} FROM {r}").format(s=schema, r=who),
            SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {s} TO {r}").format(s=schema, r=who),
            # A restore (pg_restore --no-privileges) gives the function back to PUBLIC: taken away again.
            SQL("REVOKE ALL ON FUNCTION {s}.{f}() FROM PUBLIC").format(s=schema, f=lock),
            SQL("GRANT EXECUTE ON FUNCTION {s}.{f}() TO {r}").format(s=schema, f=lock, r=who),
        ]
        for table in tables:
            name = SQL("{s}.{t}").format(s=schema, t=Identifier(table))
            statements.append(SQL("REVOKE ALL ON {t} FROM {r}").format(t=name, r=who))
            rights = "SELECT, INSERT" if table in fixed else "SELECT, INSERT, UPDATE, DELETE, TRUNCATE"
            statements.append(SQL("GRANT " + rights + " ON {t} TO {r}").format(t=name, r=who))
        for statement in statements:
            cur.execute(statement)
        return [s.as_string(cur) for s in statements]


def table_indexes(cur: Any, schema: str, table: str, indexes: list[str]) -> tuple[int, bool]:
    """(how many of ``indexes`` ``table`` of ``schema`` has, whether the current role owns it): a view made by an
    older release gets its new indexes from its owner (``ledger migrate``), never from the service role."""
    cur.execute("SELECT count(i.indexname) AS n, bool_and(t.tableowner = current_user) AS mine "
                "FROM pg_tables t LEFT JOIN pg_indexes i ON i.schemaname = t.schemaname "
                "AND i.tablename = t.tablename AND i.indexname = ANY(%s) "
                "WHERE t.schemaname = %s AND t.tablename = %s", (indexes, schema, table))
    row = cur.fetchone()
    return int(row["n"]), bool(row["mine"])


def have_tables(cur: Any, schema: str, names: tuple[str, ...]) -> bool:
    """Whether every table of ``names`` exists in ``schema``: the views and the heartbeats create their tables
    only when missing, since the service role may not run ``CREATE TABLE`` (not even ``IF NOT EXISTS``)."""
    cur.execute("SELECT count(*) AS n FROM pg_tables WHERE schemaname = %s AND tablename = ANY(%s)",
                (schema, list(names)))
    return int(cur.fetchone()["n"]) == len(set(names))
