"""The timeline rows not shown to everyone are read through partial indexes (projections.store): where a
player's view first differs from the game master's (``Reader.shared_until``) and the budget's restricted rows
(``Reader._restricted_groups``). Those reads answer exactly what the scans of the campaign's timeline they
replace answered, at every bound, with hidden entries, a hidden map event, a reveal and a correction; each
statement is one its index serves; tables made before the indexes get them from their owner."""

from __future__ import annotations

import orjson
import pytest

from ledger.application import Actor
from ledger.domain.commands import ChangeControl, RevealEvent
from ledger.economy.sheets import RELEVANT
from ops.generate_campaign import generate
from projections.head import NOT_SHARED_ROWS, POSITION_ONLY, Reader, restricted_rows
from projections.runner import Projector
from projections.store import TIMELINE_INDEXES, ViewDB

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM, FRANCE, ENGLAND = Actor("gm", "gm"), Actor("fra", "player", "FRA"), Actor("eng", "player", "ENG")
PUBLIC = orjson.dumps({"scope": "public"}).decode()

# The statements as they were before the indexes: parameters, a scan.
OLD_NOT_SHARED = ("SELECT position, visibility FROM {proj_timeline} WHERE campaign = ? AND position > ? "
                  f"AND position <= ? AND type NOT IN ({', '.join('?' * len(POSITION_ONLY))}) "
                  "AND visibility <> ? ORDER BY position")


def old_restricted(db: ViewDB) -> str:
    joined = "string_agg(CAST(position AS text), ',')" if db.postgres else "group_concat(position)"
    return (f"SELECT type, visibility, {joined} AS positions FROM {{proj_timeline}} WHERE campaign = ? "
            f"AND position > ? AND position <= ? AND type IN ({', '.join('?' * len(RELEVANT))}) "
            "AND visibility <> ? GROUP BY type, visibility")


def rows(db: ViewDB, statement: str, params: tuple) -> list[tuple]:
    with db.reading() as cur:
        cur.execute(db.sql(statement), params)
        return [tuple(r[k] for k in r.keys()) for r in cur.fetchall()]


def grouped(found: list[tuple]) -> dict[tuple, list[int]]:
    return {(kind, vis): sorted(map(int, str(positions).split(","))) for kind, vis, positions in found}


def campaign(ledger):
    generate(ledger, "restricted", 400, seed=11, turn_size=70)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    entry = ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=17, reason="hidden from France",
                                         actor=GM, visibility={"scope": "countries", "countries": ["ENG"]})
    ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                  visibility={"scope": "countries", "countries": ["ENG"]})
    ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM)
    # A correction of the hidden entry stays hidden; then another entry made public for good.
    ledger.record_correction(cid, corrects=entry.events[-1]["position"], reason="wrong amount", actor=GM,
                             replacement={"amount": 19})
    shown = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=5, reason="revealed later",
                                         actor=GM, visibility={"scope": "countries", "countries": ["FRA"]})
    ledger.submit(cid, RevealEvent, position=shown.events[-1]["position"], reason="end of turn", actor=GM)
    projector = Projector(ledger)
    projector.catch_up()
    return ledger.campaign(cid), projector.db


def test_the_hidden_rows_from_their_indexes_equal_the_old_scans_at_every_bound(ledger):
    state, db = campaign(ledger)
    cid, head = str(state.id), state.version
    kinds = tuple(sorted(RELEVANT))
    hidden = rows(db, OLD_NOT_SHARED, (cid, 0, head, *sorted(POSITION_ONLY), PUBLIC))
    restricted = grouped(rows(db, old_restricted(db), (cid, 0, head, *kinds, PUBLIC)))
    assert hidden and restricted, "the campaign has rows of both kinds"
    for gt in (0, 1, head // 3, head - 5):
        for lte in range(gt + 1, head + 1, 1 if gt >= head - 5 else 7):
            assert rows(db, NOT_SHARED_ROWS, (cid, gt, lte)) == \
                rows(db, OLD_NOT_SHARED, (cid, gt, lte, *sorted(POSITION_ONLY), PUBLIC)), (gt, lte)
            assert grouped(rows(db, restricted_rows(db), (cid, gt, lte, *kinds))) == \
                grouped(rows(db, old_restricted(db), (cid, gt, lte, *kinds, PUBLIC))), (gt, lte)


def test_where_a_player_first_differs_and_their_hidden_sheets_in_a_fresh_process_are_the_old_answers(ledger):
    state, db = campaign(ledger)
    cid = str(state.id)
    hidden = rows(db, OLD_NOT_SHARED, (cid, 0, state.version, *sorted(POSITION_ONLY), PUBLIC))
    picardie = next(p for p, vis in hidden if "ENG" in vis)
    assert Reader(ledger, db).shared_until(state.id, FRANCE, state) == picardie
    assert Reader(ledger, db).shared_until(state.id, ENGLAND, state) == state.version + 1
    want = grouped(rows(db, old_restricted(db), (cid, 0, state.version, *sorted(RELEVANT), PUBLIC)))
    reached, groups = Reader(ledger, db)._restricted_groups(state.id, state.version)
    assert reached == state.version
    assert {(kind, orjson.dumps(vis).decode()): positions for kind, vis, positions in groups} == want


def test_each_read_is_served_by_its_partial_index(ledger):
    state, db = campaign(ledger)
    params = {NOT_SHARED_ROWS: (str(state.id), 0, state.version),
              restricted_rows(db): (str(state.id), 0, state.version, *sorted(RELEVANT))}
    for (statement, args), index in zip(params.items(), ("proj_timeline_not_shared", "proj_timeline_not_public")):
        with db.reading() as cur:
            if db.postgres:  # a test campaign is small enough to scan: ask whether the index can serve it
                cur.execute("SET enable_seqscan = off")
                cur.execute(db.sql("EXPLAIN " + statement), args)
                plan = " ".join(str(r[k]) for r in cur.fetchall() for k in r.keys())
                cur.execute("RESET enable_seqscan")
            else:
                cur.execute(db.sql("EXPLAIN QUERY PLAN " + statement), args)
                plan = " ".join(str(r[k]) for r in cur.fetchall() for k in r.keys())
        assert index in plan, plan


def test_tables_made_before_the_indexes_get_them_from_their_owner(ledger):
    db = Projector(ledger).db
    with db.transaction() as cur:
        for name in TIMELINE_INDEXES:
            cur.execute(f'DROP INDEX IF EXISTS {f"{chr(34)}{db.schema}{chr(34)}." if db.postgres else ""}{name}')
    ViewDB(ledger.recorder)
    with db.reading() as cur:
        if db.postgres:
            cur.execute("SELECT indexname AS name FROM pg_indexes WHERE schemaname = %s", (db.schema,))
        else:
            cur.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        assert set(TIMELINE_INDEXES) <= {r["name"] for r in cur.fetchall()}
