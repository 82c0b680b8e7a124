"""What a read costs the store, on both stores: no transaction of its own, checkpoints kept in memory, one
country's sheet computed for a page about that country; each answer still the one a fold from the first event
gives.

The load of many campaigns (ops/load.py) spent a fifth of the server's time opening and closing a transaction
per read of the views (ViewDB.reading): at PostgreSQL's READ COMMITTED each statement has its own snapshot
anyway, so a read runs in autocommit, and what keeps a page whole is the one head it reads (api/deps.py).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from ledger.application import Actor
from ledger.domain.campaign import campaign_id
from ledger.economy.sheets import budget, sheet_json
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from projections import budget_view, replay
from projections.head import Reader
from projections.runner import Projector
from ledger.sample import close_open_phases

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM_ACTOR = Actor("gina", "gm")


@pytest.fixture
def played(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    cid = campaign_id("sample")
    for amount in (7, 11):
        ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=amount, reason="loot", actor=GM)
        ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=amount + 1, reason="loot", actor=GM)
    projector = Projector(ledger)
    projector.catch_up()
    return ledger, cid, projector


class Recording:
    """A cursor that notes the SQL it runs."""

    def __init__(self, cur, seen: list[str]):
        self.cur, self.seen = cur, seen

    def execute(self, sql, *args, **kwargs):
        self.seen.append(str(sql))
        return self.cur.execute(sql, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.cur, name)


@contextmanager
def statements(db):
    """The SQL of every statement run through ``db.reading()`` inside the block."""
    seen: list[str] = []
    plain = db.reading

    @contextmanager
    def counted():
        with plain() as cur:
            yield Recording(cur, seen)

    db.reading = counted
    try:
        yield seen
    finally:
        del db.reading  # the class's method again


def test_a_read_of_the_views_on_postgresql_runs_in_autocommit_with_no_transaction_of_its_own(store, played):
    if store != "postgres":
        pytest.skip("SQLite reads its own file in-process: a transaction there costs no round trip")
    from psycopg.pq import TransactionStatus

    _, cid, projector = played
    with projector.db.reading() as cur:
        cur.execute(projector.db.sql("SELECT COUNT(*) AS n FROM {proj_checkpoints} WHERE campaign = ?"), (str(cid),))
        assert cur.fetchone()["n"] >= 2
        assert cur.connection.info.transaction_status == TransactionStatus.IDLE  # no BEGIN was sent


def test_state_at_every_position_from_kept_checkpoints_equals_a_fold_from_the_first_event_across_a_rebuild(
        played):
    ledger, cid, projector = played
    head = ledger.campaign(cid).version
    reader = Reader(ledger, projector.db)
    state = ledger.campaign(cid)

    def check_every_position():
        for n in range(head + 1):
            at = reader.state_at(cid, GM_ACTOR, state, n)
            scratch = replay.state_from_scratch(ledger, cid, n)
            assert (at["map"], at["victory"]) == (scratch["map"], scratch["victory"]), n

    check_every_position()
    with statements(projector.db) as seen:
        reader.state_at(cid, GM_ACTOR, state, head)
    # Which checkpoint is nearest is one statement; its document comes from memory, not from the table.
    assert [s for s in seen if "proj_checkpoints" in s and "doc" in s] == []
    assert len([s for s in seen if "proj_checkpoints" in s]) == 1

    # A rebuild's reset empties the views: the nearest checkpoint is then an earlier one, or none.
    Projector(ledger).rebuild(restart=True)
    check_every_position()
    with projector.db.transaction() as cur:
        cur.execute(projector.db.sql("DELETE FROM {proj_checkpoints} WHERE campaign = ?"), (str(cid),))
    check_every_position()


def test_a_sheet_computed_for_its_country_alone_equals_that_countrys_sheet_in_the_whole_budget(played):
    ledger, cid, projector = played
    with projector.db.reading() as cur:
        events = budget_view.relevant_events(projector.db, cur, str(cid), ledger.campaign(cid).version)
    whole = budget(budget_view.records({"events": events}))
    memo: dict = {}
    compared = 0
    for country in whole.countries:
        alone = budget(budget_view.records({"events": events}), countries=[country], memo=memo)
        assert {c for c, _ in alone.sheets} == {country}
        for turn in range(1, whole.turns + 1):
            assert sheet_json(alone.sheet(country, turn)) == sheet_json(whole.sheet(country, turn)), (country, turn)
            compared += 1
    assert compared >= 2 * len(whole.countries)  # two turns of every country


def test_a_closed_turns_span_is_asked_once_and_an_open_turns_end_until_the_next_turn_opens(played):
    ledger, cid, projector = played
    reader = Reader(ledger, projector.db)
    first = (reader.turn_start(cid, 1), reader.next_turn_start(cid, 1))
    assert first[1] is not None and first[0] < first[1]  # turn 1 is closed: turn 2 opened at first[1]
    assert reader.next_turn_start(cid, 2) is None  # turn 2 is open
    with statements(projector.db) as seen:
        assert (reader.turn_start(cid, 1), reader.next_turn_start(cid, 1)) == first
    assert seen == []
    with statements(projector.db) as seen:
        assert reader.next_turn_start(cid, 2) is None
    assert len(seen) == 1  # an open turn's end is asked each time: none yet

    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=GM)
    ledger.open_turn(cid, actor=GM)
    projector.catch_up()
    opened = ledger.campaign(cid).version
    assert reader.next_turn_start(cid, 2) is not None
    assert reader.turn_start(cid, 3) == reader.next_turn_start(cid, 2) - 1
    assert reader.next_turn_start(cid, 2) <= opened
    for turn in (1, 2):  # each turn's events lie in its span, whoever asks
        start, end = reader.turn_start(cid, turn), reader.next_turn_start(cid, turn)
        rows = reader.turn_records(cid, turn, opened)
        assert rows and all(start < r.position < end for r in rows)


def test_the_records_at_some_positions_are_read_in_one_statement_as_each_alone(played):
    """An ERS page shows the events behind its cells (up to 200): one statement, not one per event."""
    from projections import read

    ledger, cid, projector = played
    reader = Reader(ledger, projector.db)
    head = ledger.campaign(cid).version
    wanted = [head, 1, 5, 5, head - 3, head + 7]  # unordered, repeated, one past the head
    with statements(projector.db) as seen:
        found = reader.records_at(cid, wanted)
    assert len(seen) == 1
    alone = [r for p in sorted(set(wanted)) for r in read.records(ledger, cid, p - 1, p)]
    assert [(r.position, r.type, r.data) for r in found] == [(r.position, r.type, r.data) for r in alone]
    assert [r.position for r in found] == [1, 5, head - 3, head] and reader.records_at(cid, []) == []


def test_a_game_masters_sheet_is_read_once_at_a_head_and_an_entry_changes_it_at_once(played):
    import orjson

    from projections.economy import campaign_budget

    ledger, cid, projector = played
    reader = Reader(ledger, projector.db)
    state = ledger.campaign(cid)
    first = reader.sheet(cid, GM_ACTOR, state, "FRA", 2)
    with statements(projector.db) as seen:
        assert reader.sheet(cid, GM_ACTOR, state, "FRA", 2) == first
    assert seen == []  # the same head: kept
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=30, reason="more loot", actor=GM)
    later = ledger.campaign(cid)
    changed = orjson.loads(reader.sheet(cid, GM_ACTOR, later, "FRA", 2))
    assert changed == sheet_json(campaign_budget(ledger, cid).sheet("FRA", 2))
    a9 = {s: next(line["amount"] for line in sheet["lines"] if line["code"] == "A9")
          for s, sheet in (("before", orjson.loads(first)), ("after", changed))}
    assert a9["after"] - a9["before"] == 30
