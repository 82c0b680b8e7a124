"""The turns list's summary as a stored view: per campaign, turn and visibility, the first and last position
and how many events.

The web turn page lists the turns with events the caller may see
(``projections.head.Reader.turns``). Grouping the campaign's whole timeline in
SQL for it cost PostgreSQL 70-150 ms on a 300,000-event campaign at a
process's first page (an index did not help); this view keeps the groups
instead, a few thousand rows for that campaign, updated once per page of the
runner with one statement (a row per group the page touched, not per event).

Events without a turn (the campaign's creation, its scenario, tokens before the
first turn) count in one row per campaign (turn ``NO_TURN``), so the largest
``last_position`` of a campaign's rows is the position the view reached there:
the reader adds the events after it from the timeline or the store. Rows and
tracking position are written in the batch's transaction (projections.store),
exactly-once like the other views; events never change, so a group only grows.

It also keeps the places the events not shown to everyone touched
(``HIDDEN_PLACES``: campaign, place, position, visibility; ``timeline.places``):
a player's place page asks which of a place's events it may not see, and
finding them by joining the timeline's hidden rows to the places index cost
PostgreSQL 90-165 ms on the 300,000-event campaign (no index serves that join);
here they are a few rows read by campaign.
"""

from __future__ import annotations

from typing import Any

import orjson

from ledger.store.roles import have_tables
from projections import timeline
from projections.records import Record
from projections.store import ViewDB, insert_rows

NAME = "turn_groups"
TABLE = "proj_turn_groups"
HIDDEN_PLACES = "proj_hidden_places"
#: The turn of the row that counts a campaign's events without one (a turn is 1 or more).
NO_TURN = -1
_PUBLIC = {"scope": "public"}
#: A visibility as the timeline view stores it (``projections.views.TimelineView``): the groups merge with its rows.
PUBLIC_TEXT = orjson.dumps(_PUBLIC).decode()
_NO_RUN = (object(), object(), None, None, None)  # equal to no event's turn and visibility


def create_tables(db: ViewDB) -> None:
    big = "bigint" if db.postgres else "INTEGER"
    with db.transaction() as cur:
        if db.postgres:
            if have_tables(cur, db.schema, (TABLE, HIDDEN_PLACES)):
                return  # the service role may not run CREATE TABLE: ``ledger migrate`` made it
            cur.execute("SELECT pg_advisory_xact_lock(724311)")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {db.t(TABLE)} (campaign text NOT NULL, turn integer NOT NULL, "
                    f"visibility text NOT NULL, first_position {big} NOT NULL, last_position {big} NOT NULL, "
                    f"events {big} NOT NULL, PRIMARY KEY (campaign, turn, visibility))")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {db.t(HIDDEN_PLACES)} (campaign text NOT NULL, place text NOT NULL, "
                    f"position {big} NOT NULL, visibility text NOT NULL, PRIMARY KEY (campaign, position, place))")


def stored(db: ViewDB, cur: Any, campaign: str) -> tuple[int, dict[tuple[int, str], list[Any]]]:
    """(reached, groups): the position the view reached in the campaign, and (turn, visibility text) ->
    [visibility, first, last, count] of its events with a turn, in one statement (one snapshot)."""
    cur.execute(f"SELECT turn, visibility, first_position, last_position, events FROM {db.t(TABLE)} "
                f"WHERE campaign = {db.ph}", (campaign,))
    if db.postgres:  # plain tuples, not a dict per row (SQLite's rows are read by index as they are)
        from psycopg.rows import tuple_row

        dict_rows, cur.row_factory = cur.row_factory, tuple_row
        try:
            rows = cur.fetchall()
        finally:
            cur.row_factory = dict_rows
    else:
        rows = cur.fetchall()
    reached, groups, decoded = max((row[3] for row in rows), default=0), {}, {}
    for turn, text, first, last, count in rows:
        if turn == NO_TURN:
            continue
        vis = decoded.get(text)
        if vis is None:
            vis = decoded[text] = orjson.loads(text)  # a handful of distinct ones
        groups[(turn, text)] = [vis, first, last, count]
    return reached, groups


def hidden_places(db: ViewDB, cur: Any, campaign: str, upto: int) -> tuple[int, list[tuple[str, int, str]]]:
    """(reached, rows): the position the view reached in the campaign (at most ``upto``), and (place, position,
    visibility text) of the events up to it not shown to everyone that touched a place, in order; one
    statement."""
    ph = db.ph
    cur.execute(f"SELECT r.p AS reached, h.place, h.position, h.visibility FROM (SELECT MAX(last_position) AS p "
                f"FROM {db.t(TABLE)} WHERE campaign = {ph}) r LEFT JOIN {db.t(HIDDEN_PLACES)} h "
                f"ON h.campaign = {ph} AND h.position <= r.p AND h.position <= {ph} ORDER BY h.position, h.place",
                (campaign, campaign, upto))
    rows = cur.fetchall()
    reached = min(int(rows[0]["reached"] or 0), upto) if rows else 0
    return reached, [(r["place"], int(r["position"]), r["visibility"]) for r in rows if r["place"] is not None]


def as_of(reached: int, groups: dict[tuple[int, str], list[Any]], head: int
          ) -> tuple[int, dict[tuple[int, str], list[Any]]]:
    """``stored``'s answer up to ``head`` when the view may have gone past it (the runner moved on after the
    caller read the head): the groups of the turns before the first one with an event after ``head``, and the
    position before that turn's first event (a turn's events are contiguous); the caller groups the rest."""
    late = [turn for (turn, _), (_, _, last, _) in groups.items() if last > head]
    if reached <= head or not late:
        return min(reached, head), groups
    first = min(late)
    bound = min(v[1] for (turn, _), v in groups.items() if turn >= first) - 1
    return min(bound, head), {k: v for k, v in groups.items() if k[0] < first}


class TurnGroupsView:
    """Runs beside the views of ``projections.views`` (the same protocol: handle, flush, committed, forget,
    reset); it keeps no document, so it needs none of ``View``'s."""

    name = NAME
    reads: frozenset[str] | None = None  # every event's turn and visibility (envelope fields)
    ruling_reads: frozenset[str] | None = timeline.RULING_READS  # ``timeline.places`` reads a ruling's effects

    def __init__(self, db: ViewDB):
        self.db = db
        create_tables(db)
        # (campaign, turn, visibility text) -> [first, last, count] of this page's events, not yet committed.
        self.groups: dict[tuple[str, int, str], list[int]] = {}
        self._last: tuple[Any, ...] = _NO_RUN  # the last event's turn, visibility, campaign, group and its text
        self.hidden: list[tuple[str, str, int, str]] = []  # HIDDEN_PLACES rows of this page, not yet committed

    def skips(self, kind: str) -> bool:
        """Every event counts in its turn's group: a rebuild hands it all of them (``View.skips``)."""
        return False

    def passed(self, cur: Any, campaign: str, position: int) -> None:
        """Never called, since it skips nothing (``View.passed``)."""

    def handle(self, cur: Any, r: Record) -> None:
        data = r.data
        context = data.get("context")
        turn = context.get("turn") if context else None
        vis = data.get("visibility")
        last = self._last  # most events are in the group of the one before (a run): no key built for them
        if turn == last[0] and vis == last[1] and r.campaign == last[2]:
            found, text = last[3], last[4]
        else:
            text = PUBLIC_TEXT if not vis or vis == _PUBLIC else orjson.dumps(vis).decode()
            key = (r.campaign, NO_TURN, "") if turn is None else (r.campaign, turn, text)
            found = self.groups.get(key)
            if found is None:
                found = self.groups[key] = [r.position, r.position, 0]
            self._last = (turn, vis, r.campaign, found, text)
        found[1] = r.position  # the log gives a campaign's events in order
        found[2] += 1
        if text is not PUBLIC_TEXT:  # one event in eight on the 300k campaign
            self.hidden += [(r.campaign, place, r.position, text) for place in timeline.places(r, context or {})]

    def flush(self, cur: Any) -> None:
        # COPY: a rebuild writes tens of thousands of these (an INSERT each cost the server a statement per row).
        insert_rows(self.db, cur, self.db.t(HIDDEN_PLACES), ("campaign", "place", "position", "visibility"),
                    self.hidden)
        if not self.groups:
            return
        ph = ", ".join([self.db.ph] * 6)
        cur.executemany(
            f"INSERT INTO {self.db.t(TABLE)} AS g (campaign, turn, visibility, first_position, last_position, "
            f"events) VALUES ({ph}) ON CONFLICT (campaign, turn, visibility) DO UPDATE SET "
            "last_position = excluded.last_position, events = g.events + excluded.events",
            [(*key, *value) for key, value in sorted(self.groups.items())])

    def committed(self) -> None:
        self.groups.clear()
        self.hidden.clear()
        self._last = _NO_RUN

    def forget(self) -> None:
        self.committed()

    def reset(self, cur: Any) -> None:
        for table in (TABLE, HIDDEN_PLACES):
            cur.execute(f"DELETE FROM {self.db.t(table)}")  # a few rows per turn, fewer: no TRUNCATE needed
        self.forget()
