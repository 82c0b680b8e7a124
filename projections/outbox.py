"""The outbox: the events worth telling, turned into one message per (event, endpoint), each as its receiver
may read it (issue 38).

A tracked view like the others (projections/views.py): its rows and its tracking row are written in one
transaction, so a message is queued exactly once for an event and an endpoint (the table's key says so too);
the delivery worker (projections/delivery.py) sends the pending rows and marks them here. The view keeps, per
campaign, a small document: the live endpoints (folded from their events, as the write side folds them), the
campaign's countries and name, and each stack's country (to name a stack's owner as the timeline does).

Who is told what: ``MESSAGES`` maps an event type to its topic and to whether it concerns a country; an
endpoint receives an event when it asked for that topic, its audience may see the event (``ledger.access.can_see``,
the one visibility rule, applied to the endpoint's audience as a reader), and, for a player's endpoint, the
event touches their country (``touches``). The message's words are the timeline's (``timeline.summary``).

A rebuild of the views leaves the outbox's rows where they are: an event already queued for an endpoint is not
queued again (``ON CONFLICT DO NOTHING``), so a rebuild never sends a message twice; and the worker does not send
a message whose event is older than ``LEDGER_NOTIFY_MAX_AGE_SECONDS`` (a rebuild after a restore).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from ledger.access import can_see, readable
from ledger.domain.actors import Actor
from ledger.store.roles import have_tables
from projections import timeline
from projections.records import Record
from projections.store import ViewDB

NAME = "outbox"
TABLE = "proj_outbox"
PENDING, DELIVERED, FAILED, EXPIRED, CANCELLED = "pending", "delivered", "failed", "expired", "cancelled"
ENDPOINT_EVENTS = frozenset({"EndpointRegistered", "EndpointChanged", "EndpointRemoved"})


def _everyone(doc: dict[str, Any], r: Record, cur: Any, db: ViewDB) -> set[str] | None:
    return None  # no country filter: every audience that may see it is told


def _named(doc: dict[str, Any], r: Record, cur: Any, db: ViewDB) -> set[str] | None:
    return touches(doc, r)


def _corrected(doc: dict[str, Any], r: Record, cur: Any, db: ViewDB) -> set[str] | None:
    """A correction touches the countries it names and those of the event it corrects (one event read)."""
    found = touches(doc, r)
    for original in db.read_at(cur, r.campaign, [r.data.get("corrects") or 0]):
        found |= touches(doc, original)
    return found


@dataclass(frozen=True)
class Message:
    topic: str  # ledger/notify/topics.py TOPICS
    #: The countries an event touches (a player's endpoint is told only of those), None: of concern to all.
    countries: Callable[[dict[str, Any], Record, Any, ViewDB], set[str] | None]


_MAP = ("StackMoved", "ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "FortressChanged",
        "WarDeclared", "PeaceMade", "StackRaised", "StackSplit", "StacksMerged", "StackChanged", "StackDisbanded",
        "SiegeStarted", "SiegeEnded")
#: Event type -> what it tells. A new kind of message (a deadline, a reminder) is one line here.
MESSAGES: dict[str, Message] = {
    "TurnOpened": Message("turns", _everyone),
    "TurnClosed": Message("turns", _everyone),
    "PhaseClosed": Message("turns", _everyone),
    "RulingRecorded": Message("rulings", _named),
    **{kind: Message("moves", _named) for kind in _MAP},
    "CorrectionRecorded": Message("corrections", _corrected),
    "SheetsPublished": Message("sheets", _named),
    "DeadlineSet": Message("deadlines", _everyone),
    "DeadlineCleared": Message("deadlines", _everyone),
    "ReminderIssued": Message("deadlines", _named),  # the countries not ready: a player is reminded if theirs is
}
#: What the view reads: the messages' events, the endpoints', and what its document keeps.
READS = frozenset(MESSAGES) | ENDPOINT_EVENTS | {"CampaignCreated", "ScenarioImported"}
_COUNTRY_FIELDS = ("country", "controller", "owner", "previous")
_COUNTRY_LISTS = ("countries", "attackers", "defenders", "besiegers", "not_ready")
_STACK_FIELDS = ("stack", "new_stack", "merged")


def touches(doc: dict[str, Any], r: Record) -> set[str]:
    """The campaign's countries an event names: its country fields, its stacks' owners, the impulse it happens
    in, the stacks its context names, the countries a ruling's effects and inputs name."""
    d, ctx, known, stacks = r.data, r.context, set(doc.get("countries") or ()), doc.get("stacks") or {}
    found: set[Any] = {d.get(k) for k in _COUNTRY_FIELDS}
    for k in _COUNTRY_LISTS:
        found.update(d.get(k) or ())
    found.update(stacks.get(d.get(k)) for k in _STACK_FIELDS)
    found.add(ctx.get("impulse"))
    found.update(stacks.get(s) for s in (ctx.get("stacks") or {}).values() if isinstance(s, str))
    ruling = d.get("ruling") or {}
    for e in ruling.get("effects") or ():
        found.update((e.get("country"), stacks.get(e.get("target"))))
    found.update(v for v in (ruling.get("inputs") or {}).values() if isinstance(v, str))
    return {c for c in found if c in known}


def reader(audience: str) -> Actor:
    """The reader an endpoint's audience stands for: the game master, everyone (an observer), or a player."""
    if audience == "gm":
        return Actor("outbox", "gm")
    if audience == "public":
        return Actor("outbox", "observer")
    return Actor("outbox", "player", audience)


def _seconds(ts: Any) -> float:
    try:
        return datetime.fromisoformat(str(ts)).timestamp()
    except ValueError:
        return 0.0


def create_tables(db: ViewDB) -> None:
    big, real = ("bigint", "double precision") if db.postgres else ("INTEGER", "REAL")
    with db.transaction() as cur:
        if db.postgres:
            if have_tables(cur, db.schema, (TABLE,)):
                return  # the service role may not run CREATE TABLE: ``ledger migrate`` made it
            cur.execute("SELECT pg_advisory_xact_lock(724311)")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {db.t(TABLE)} (campaign text NOT NULL, position {big} NOT NULL, "
                    "endpoint text NOT NULL, audience text NOT NULL, kind text NOT NULL, target text NOT NULL, "
                    f"topic text NOT NULL, message text NOT NULL, event_time {real} NOT NULL, "
                    f"status text NOT NULL, attempts integer NOT NULL DEFAULT 0, next_at {real} NOT NULL, "
                    f"lease_until {real} NOT NULL DEFAULT 0, last_error text, last_attempt_at {real}, "
                    f"delivered_at {real}, PRIMARY KEY (campaign, position, endpoint))")
        # The worker's scan: the pending rows by when they are due (a partial index: the delivered are most).
        cur.execute(f"CREATE INDEX IF NOT EXISTS proj_outbox_due ON {db.t(TABLE)} (next_at) "
                    f"WHERE status = '{PENDING}'")
        cur.execute(f"CREATE INDEX IF NOT EXISTS proj_outbox_endpoint ON {db.t(TABLE)} (campaign, endpoint, position)")


class OutboxView:
    """Runs beside the views of ``projections.views`` (their protocol: handle, flush, committed, forget, reset),
    with a small document per campaign in ``proj_docs`` (``doc``)."""

    name = NAME
    reads = READS
    #: A message names a ruling as the timeline does (its fields), and the countries its effects and inputs name.
    ruling_reads = timeline.RULING_READS | {"inputs"}

    def __init__(self, db: ViewDB):
        self.db = db
        create_tables(db)
        self.table = db.t(TABLE)
        self.docs: dict[str, dict[str, Any]] = {}  # per campaign, cached while this runner owns the tracking row
        self.dirty: set[str] = set()
        self.rows: list[tuple[Any, ...]] = []
        self.cancelled: list[tuple[str, str]] = []  # (campaign, endpoint): its pending rows are not to be sent

    def doc(self, cur: Any, campaign: str) -> dict[str, Any]:
        cur.execute(self.db.sql("SELECT doc FROM {proj_docs} WHERE view = ? AND campaign = ?"), (NAME, campaign))
        row = cur.fetchone()
        doc = self.docs[campaign] = orjson.loads(bytes(row["doc"])) if row else {**timeline.empty(), "endpoints": {}}
        return doc

    def skips(self, kind: str) -> bool:
        return kind not in READS

    def passed(self, cur: Any, campaign: str, position: int) -> None:
        """Nothing to keep of the events it skips (the tracking row says where the view is)."""

    def handle(self, cur: Any, r: Record) -> None:
        campaign, t, d = r.campaign, r.type, r.data
        doc = self.docs.get(campaign) or self.doc(cur, campaign)
        # The document's position is that of the last event that changed it, never of the last one read: a
        # follower writing it batch by batch and a rebuild in one pass store the same bytes (the kill9 drill).
        if t in ENDPOINT_EVENTS:
            self._endpoint(doc, campaign, t, d)
            doc["position"] = r.position
            self.dirty.add(campaign)
            return
        if t == "CampaignCreated":
            doc["countries"], doc["name"] = list(d.get("countries") or ()), d.get("name") or ""
            doc["position"] = r.position
            self.dirty.add(campaign)
        elif t in ("ScenarioImported", "StackSplit", "StackRaised"):
            timeline.row(doc, r)  # the stack owners, as the timeline keeps them
            if t == "StackRaised":
                doc.setdefault("stacks", {})[d["stack"]] = d["country"]
            doc["position"] = r.position
            self.dirty.add(campaign)
        spec = MESSAGES.get(t)
        endpoints = doc.get("endpoints")
        if spec is None or not endpoints:
            return
        countries: set[str] | None | bool = False  # worked out once, for the first endpoint that asks
        when = _seconds(d.get("timestamp"))
        for eid, ep in endpoints.items():
            if spec.topic not in ep["topics"]:
                continue
            who = reader(ep["audience"])
            if not can_see(who, r):
                continue
            if who.role == "player" and spec.countries is not _everyone:
                if countries is False:
                    countries = spec.countries(doc, r, cur, self.db)
                if countries is not None and who.country not in countries:  # type: ignore[operator]
                    continue
            self.rows.append((campaign, r.position, eid, ep["audience"], ep["kind"], ep["target"], spec.topic,
                              self.message(doc, r, who), when, PENDING, when))

    def message(self, doc: dict[str, Any], r: Record, who: Actor) -> str:
        """The message's JSON: the event as its reader may read it, in the timeline's words."""
        seen = Record(r.campaign, r.position, r.type, readable(who, r.type, r.data), r.notification_id)
        return orjson.dumps({
            "campaign": r.campaign, "campaign_name": doc.get("name") or "", "position": r.position, "type": r.type,
            "turn": r.turn, "topic": MESSAGES[r.type].topic, "text": timeline.summary(doc, seen),
            "time": r.data.get("timestamp")}).decode()

    def _endpoint(self, doc: dict[str, Any], campaign: str, t: str, d: dict[str, Any]) -> None:
        endpoints = doc.setdefault("endpoints", {})
        eid = d["endpoint_id"]
        if t == "EndpointRegistered":
            endpoints[eid] = {k: d[k] for k in ("audience", "kind", "target", "topics")}
        elif t == "EndpointChanged" and eid in endpoints:
            endpoints[eid]["topics"] = list(d["topics"])
        elif t == "EndpointRemoved":
            endpoints.pop(eid, None)
            self.rows = [row for row in self.rows if not (row[0] == campaign and row[2] == eid)]
            self.cancelled.append((campaign, eid))

    def flush(self, cur: Any) -> None:
        if self.dirty:
            self.db.put_docs(cur, [(NAME, c, self.docs[c]["position"], orjson.dumps(self.docs[c]))
                                   for c in sorted(self.dirty)])
        ph = self.db.ph
        if self.rows:
            cur.executemany(
                f"INSERT INTO {self.table} (campaign, position, endpoint, audience, kind, target, topic, message, "
                f"event_time, status, next_at) VALUES ({', '.join([ph] * 11)}) "
                "ON CONFLICT (campaign, position, endpoint) DO NOTHING", self.rows)
        if self.cancelled:
            cur.executemany(f"UPDATE {self.table} SET status = '{CANCELLED}' WHERE campaign = {ph} AND endpoint = {ph} "
                            f"AND status = '{PENDING}'", self.cancelled)

    def committed(self) -> None:
        self.dirty.clear()
        self.rows.clear()
        self.cancelled.clear()

    def forget(self) -> None:
        """After a rollback: the cached documents may hold uncommitted changes."""
        self.docs.clear()
        self.committed()

    def reset(self, cur: Any) -> None:
        """A rebuild folds the documents again and keeps the rows: the messages already queued stay queued or
        delivered, and an event is never queued twice for one endpoint (the table's key)."""
        cur.execute(self.db.sql("DELETE FROM {proj_docs} WHERE view = ?"), (NAME,))
        self.forget()


# ----------------------------------------------------------------- what the delivery worker and the pages read

COLUMNS = ("campaign", "position", "endpoint", "audience", "kind", "target", "topic", "message", "event_time",
           "status", "attempts", "next_at", "last_error", "last_attempt_at", "delivered_at")


def _rows(cur: Any) -> list[dict[str, Any]]:
    return [dict(zip(COLUMNS, (row[c] for c in COLUMNS))) for row in cur.fetchall()]


def due(db: ViewDB, now: float, limit: int = 100) -> list[dict[str, Any]]:
    """Pending messages due at ``now`` and not leased by another worker, oldest first."""
    ph = db.ph
    with db.reading() as cur:
        cur.execute(f"SELECT {', '.join(COLUMNS)} FROM {db.t(TABLE)} WHERE status = '{PENDING}' AND next_at <= {ph} "
                    f"AND lease_until <= {ph} ORDER BY next_at, position LIMIT {int(limit)}", (now, now))
        return _rows(cur)


def claim(db: ViewDB, row: dict[str, Any], now: float, lease: float) -> bool:
    """Take one pending message for ``lease`` seconds (one worker of several sends it); False: another took it."""
    ph = db.ph
    with db.transaction() as cur:
        cur.execute(f"UPDATE {db.t(TABLE)} SET lease_until = {ph} WHERE campaign = {ph} AND position = {ph} "
                    f"AND endpoint = {ph} AND status = '{PENDING}' AND lease_until <= {ph}",
                    (now + lease, row["campaign"], row["position"], row["endpoint"], now))
        return db.rowcount(cur) == 1


def claim_due(db: ViewDB, now: float, lease: float, limit: int = 100) -> list[dict[str, Any]]:
    """Take the messages due at ``now`` for ``lease`` seconds, up to ``limit``, oldest first, in one statement:
    of several workers each message goes to one (on PostgreSQL the rows another worker is taking are skipped)."""
    if not due(db, now, 1):  # a read first: an idle round takes no write lock (SQLite has one writer)
        return []
    ph, table = db.ph, db.t(TABLE)
    lock = " FOR UPDATE SKIP LOCKED" if db.postgres else ""
    with db.transaction() as cur:
        cur.execute(f"UPDATE {table} SET lease_until = {ph} WHERE (campaign, position, endpoint) IN ("
                    f"SELECT campaign, position, endpoint FROM {table} WHERE status = '{PENDING}' AND next_at <= {ph} "
                    f"AND lease_until <= {ph} ORDER BY next_at, position LIMIT {int(limit)}{lock}) "
                    f"RETURNING {', '.join(COLUMNS)}", (now + lease, now, now))
        return sorted(_rows(cur), key=lambda r: (r["next_at"], r["position"]))


def settle(db: ViewDB, row: dict[str, Any], now: float, *, error: str | None = None, retry_at: float | None = None,
           status: str | None = None) -> None:
    """Record an attempt: delivered (no ``error``), or failed with ``error`` and due again at ``retry_at`` (None:
    given up). ``status`` instead: expired or cancelled without an attempt."""
    settle_many(db, [(row, now, error, retry_at, status)])


Outcome = tuple[dict[str, Any], float, "str | None", "float | None", "str | None"]  # settle's arguments


def settle_many(db: ViewDB, outcomes: list[Outcome]) -> None:
    """``settle`` for several messages in one transaction (a round of the worker: one write, not one a message)."""
    ph = db.ph
    where = f"WHERE campaign = {ph} AND position = {ph} AND endpoint = {ph}"
    done, given, failed = [], [], []
    for row, now, error, retry_at, status in outcomes:
        key = (row["campaign"], row["position"], row["endpoint"])
        if status is not None:
            given.append((status, *key))
        elif error is None:
            done.append((now, now, *key))
        else:
            failed.append((PENDING if retry_at is not None else FAILED, error[:500], now, retry_at or now, *key))
    with db.transaction() as cur:
        if done:
            cur.executemany(f"UPDATE {db.t(TABLE)} SET status = '{DELIVERED}', attempts = attempts + 1, "
                            f"delivered_at = {ph}, last_attempt_at = {ph}, lease_until = 0 {where}", done)
        if given:
            cur.executemany(f"UPDATE {db.t(TABLE)} SET status = {ph}, lease_until = 0 {where}", given)
        if failed:
            cur.executemany(f"UPDATE {db.t(TABLE)} SET status = {ph}, attempts = attempts + 1, last_error = {ph}, "
                            f"last_attempt_at = {ph}, next_at = {ph}, lease_until = 0 {where}", failed)


def status(db: ViewDB, campaign: str, endpoints: list[str]) -> dict[str, dict[str, Any]]:
    """Per endpoint: how many messages are delivered, pending, failed (given up), and the last error with when."""
    out: dict[str, dict[str, Any]] = {e: {"delivered": 0, "pending": 0, "failed": 0, "expired": 0, "cancelled": 0,
                                          "last_error": None, "last_error_at": None, "last_delivered_at": None}
                                      for e in endpoints}
    if not endpoints:
        return out
    ph, marks = db.ph, ", ".join([db.ph] * len(endpoints))
    with db.reading() as cur:
        cur.execute(f"SELECT endpoint, status, COUNT(*) AS n, MAX(delivered_at) AS last FROM {db.t(TABLE)} "
                    f"WHERE campaign = {ph} AND endpoint IN ({marks}) GROUP BY endpoint, status",
                    (campaign, *endpoints))
        for row in cur.fetchall():
            out[row["endpoint"]][row["status"]] = int(row["n"])
            if row["status"] == DELIVERED:
                out[row["endpoint"]]["last_delivered_at"] = row["last"]
        cur.execute(f"SELECT endpoint, last_error, last_attempt_at FROM {db.t(TABLE)} WHERE campaign = {ph} "
                    f"AND endpoint IN ({marks}) AND last_error IS NOT NULL ORDER BY last_attempt_at",
                    (campaign, *endpoints))
        for row in cur.fetchall():  # the latest last: it stays
            out[row["endpoint"]]["last_error"] = row["last_error"]
            out[row["endpoint"]]["last_error_at"] = row["last_attempt_at"]
    return out


def deliveries(db: ViewDB, campaign: str, endpoint: str, limit: int = 50) -> list[dict[str, Any]]:
    """An endpoint's latest messages, newest first, with their state and last error."""
    ph = db.ph
    with db.reading() as cur:
        cur.execute(f"SELECT {', '.join(COLUMNS)} FROM {db.t(TABLE)} WHERE campaign = {ph} AND endpoint = {ph} "
                    f"ORDER BY position DESC LIMIT {int(limit)}", (campaign, endpoint))
        return _rows(cur)
