"""The event store on SQLite and PostgreSQL: order, concurrency, immutability, idempotency."""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime
from uuid import UUID

import pytest
from freezegun import freeze_time

from ledger.application import Actor, Ledger, idempotency_scope
from ledger.chain import canonical_json
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import CampaignNotFound, IdempotencyConflict, InvalidInput, StateConflict
from tests.conftest import events_table, raw_execute
from tests.integration import rulesets  # noqa: F401  (registers the "check" ruleset)

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM = Actor("gm-anne", "gm")


def new_campaign(ledger: Ledger, slug: str = "channel", ruleset: str = "check") -> UUID:
    result = ledger.create_campaign(slug=slug, name="Channel", ruleset=ruleset, countries=["ENG", "FRA"],
                                    players={"ENG": "alice"}, actor=GM)
    return UUID(result.data["id"])


def test_events_are_read_back_in_the_order_they_were_appended(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    for i in range(5):
        ledger.roll(cid, purpose=f"roll {i}", actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=35, reason="looting", actor=GM)
    history = ledger.history(cid)
    assert [e.position for e in history] == list(range(1, 9))
    assert [type(e).__name__ for e in history] == (
        ["CampaignCreated", "TurnOpened"] + ["DiceRolled"] * 5 + ["TreasuryEntryRecorded"])
    assert [e.index for e in history if isinstance(e, ev.DiceRolled)] == [0, 1, 2, 3, 4]
    assert all(later.prev_hash == earlier.hash for earlier, later in zip(history, history[1:]))


def test_a_second_campaign_with_the_same_slug_is_refused(ledger):
    new_campaign(ledger)
    with pytest.raises(StateConflict):
        new_campaign(ledger)
    [only] = ledger.campaigns()
    assert only.version == 1


def test_two_writers_racing_on_one_campaign_conflict_once_and_lose_nothing(settings):
    first, second = Ledger(settings), Ledger(settings)
    try:
        cid = new_campaign(first)
        first.open_turn(cid, actor=GM)
        first.campaign(cid), second.campaign(cid)  # both now hold the same head in cache
        barrier = threading.Barrier(2)
        results = {}

        def writer(app: Ledger, name: str) -> None:
            barrier.wait()
            results[name] = app.roll(cid, purpose=f"race {name}", actor=GM)

        threads = [threading.Thread(target=writer, args=(app, n)) for app, n in ((first, "a"), (second, "b"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert first.conflicts + second.conflicts == 1
        positions = sorted(r.events[0]["position"] for r in results.values())
        assert positions == [3, 4]
        history = first.history(cid)
        assert [e.position for e in history] == [1, 2, 3, 4]
        assert sorted(e.index for e in history if isinstance(e, ev.DiceRolled)) == [0, 1]
        assert first.verify(cid).intact
    finally:
        first.close()
        second.close()


def test_many_concurrent_writers_leave_a_gapless_intact_history(settings):
    apps = [Ledger(settings) for _ in range(3)]
    try:
        cid = new_campaign(apps[0])
        apps[0].open_turn(cid, actor=GM)

        def work(app: Ledger, k: int) -> None:
            for i in range(10):
                app.roll(cid, purpose=f"w{k}-{i}", actor=GM)

        threads = [threading.Thread(target=work, args=(app, k)) for k, app in enumerate(apps)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        history = apps[1].history(cid)
        assert [e.position for e in history] == list(range(1, 33))
        assert sorted(e.index for e in history if isinstance(e, ev.DiceRolled)) == list(range(30))
        assert apps[2].verify(cid).intact
    finally:
        for app in apps:
            app.close()


@pytest.mark.parametrize("statement", ["UPDATE {t} SET topic = 'x'", "DELETE FROM {t}"])
def test_the_database_refuses_to_update_or_delete_stored_events(ledger, settings, statement):
    cid = new_campaign(ledger)
    with pytest.raises(Exception, match="immutable"):
        raw_execute(settings, statement.format(t=events_table(settings)))
    assert len(ledger.history(cid)) == 1
    assert ledger.verify(cid).intact


def test_the_immutability_migration_can_run_twice(settings):
    Ledger(settings).close()
    again = Ledger(settings)  # runs the same CREATE ... IF NOT EXISTS / OR REPLACE statements
    try:
        cid = new_campaign(again)
        with pytest.raises(Exception, match="immutable"):
            raw_execute(settings, f"DELETE FROM {events_table(settings)}")
        assert again.verify(cid).intact
    finally:
        again.close()


def test_a_forced_edit_with_the_trigger_dropped_is_located_by_verify(ledger, settings):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=35, reason="looting", actor=GM)
    ledger.record_treasury_entry(cid, country="ENG", line="A10", amount=20, reason="gold", actor=GM)
    table = events_table(settings)
    if settings.backend == "sqlite":
        raw_execute(settings, f"DROP TRIGGER {table}_no_update")
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), '\"amount\":35', "
                              "'\"amount\":95') AS BLOB) WHERE originator_version = 3")
    else:
        raw_execute(settings, f"DROP TRIGGER {table}_immutable ON {table}")
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "'\"amount\":35', '\"amount\":95'), 'UTF8') WHERE originator_version = 3")
    [edited] = [e for e in ledger.history(cid) if e.position == 3]
    assert edited.amount == 95  # the edit really happened
    report = ledger.verify(cid)
    assert not report.intact and report.broken_at == 3
    assert "hash" in report.reason


def test_an_idempotency_key_replayed_returns_the_first_result_and_appends_nothing(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    first = ledger.roll(cid, purpose="siege of Calais", actor=GM, idempotency_key="k-1")
    again = ledger.roll(cid, purpose="siege of Calais", actor=GM, idempotency_key="k-1")
    assert again.replayed and not first.replayed
    assert again.to_json() == first.to_json()
    assert len(ledger.history(cid)) == 3
    assert ledger.campaign(cid).next_roll == 1


def test_a_new_idempotency_key_is_not_looked_up_and_a_known_one_replays_even_when_the_state_moved_on(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    lookups, lookup = [], ledger.recorder.get_idempotency
    ledger.recorder.get_idempotency = lambda *a: lookups.append(a) or lookup(*a)
    first = ledger.roll(cid, purpose="siege of Calais", actor=GM, idempotency_key="k-new")
    assert lookups == [] and not first.replayed
    ledger.close_turn(cid, actor=GM)  # the retry's command alone would now be refused: no turn is open
    again = ledger.roll(cid, purpose="siege of Calais", actor=GM, idempotency_key="k-new")
    assert again.replayed and again.to_json() == first.to_json() and len(lookups) == 1
    assert [e.type for e in ledger.history(cid)].count("DiceRolled") == 1


def test_the_stored_response_of_a_key_is_the_canonical_bytes_of_the_first_answer(ledger):
    """Encoded once for the answer and the key's record: the replay is byte for byte the first answer, and a
    request without a key stores no record and is not hashed."""
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    first = ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 2, "target": 8}, actor=GM, idempotency_key="k-r")
    record = ledger.recorder.get_idempotency(idempotency_scope(cid, GM), "k-r")
    assert record.response == canonical_json(first.to_json())
    assert record.request_hash == hashlib.sha256(canonical_json(cmd.build(
        cmd.RecordRuling, procedure="T1", inputs={"bonus": 2, "target": 8}).request())).hexdigest()
    assert canonical_json(ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 2, "target": 8}, actor=GM,
                                               idempotency_key="k-r").to_json()) == record.response
    requests = []
    real = cmd.RecordRuling.request
    cmd.RecordRuling.request = lambda self: requests.append(self) or real(self)
    try:
        ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 2, "target": 8}, actor=GM)
    finally:
        cmd.RecordRuling.request = real
    assert requests == []


def test_an_idempotency_key_reused_for_another_request_is_refused(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    ledger.roll(cid, purpose="siege of Calais", actor=GM, idempotency_key="k-1")
    with pytest.raises(IdempotencyConflict):
        ledger.roll(cid, purpose="another roll", actor=GM, idempotency_key="k-1")
    assert len(ledger.history(cid)) == 3


def test_idempotency_survives_a_restart_of_the_service(settings):
    app = Ledger(settings)
    cid = new_campaign(app)
    first = app.open_turn(cid, actor=GM, idempotency_key="open-1")
    app.close()
    restarted = Ledger(settings)
    try:
        again = restarted.open_turn(cid, actor=GM, idempotency_key="open-1")
        assert again.replayed and again.to_json() == first.to_json()
        assert len(restarted.history(cid)) == 2
    finally:
        restarted.close()


def test_events_carry_the_server_time(ledger):
    with freeze_time("2026-11-21 09:30:00"):
        cid = new_campaign(ledger)
    [created] = ledger.history(cid)
    assert created.timestamp == datetime(2026, 11, 21, 9, 30, tzinfo=UTC)
    assert ledger.verify(cid).intact


def test_a_ruling_is_resolved_with_server_dice_and_recomputes(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    result = ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 2, "target": 8}, actor=GM)
    ruling = result.data["ruling"]
    [die] = ruling["dice"]
    assert die["index"] == 0 and ruling["total"] == die["values"][0] + 2
    assert ruling["outcome"]["success"] == (ruling["total"] >= 8)
    assert ledger.recompute(cid) == []
    ledger.close_turn(cid, actor=GM)
    assert ledger.verify_dice(cid, 1).ok


def test_a_carried_input_comes_from_the_previous_ruling_of_the_procedure_and_survives_a_restart(settings):
    """core.Procedure.carry: a field left out of the request is taken from the last ruling's outcome["carry"]."""
    app = Ledger(settings)
    try:
        cid = new_campaign(app)
        app.open_turn(cid, actor=GM)
        first = app.record_ruling(cid, procedure="T2", inputs={}, actor=GM)
        assert first.data["ruling"]["outcome"]["count"] == 0 and "carried" not in first.data["ruling"]
        second = app.record_ruling(cid, procedure="T2", inputs={}, actor=GM)
        assert second.data["ruling"]["inputs"] == {"count": 1}
        assert second.data["ruling"]["carried"] == {"count": first.events[0]["position"]}
        explicit = app.record_ruling(cid, procedure="T2", inputs={"count": 7}, actor=GM)
        assert explicit.data["ruling"]["inputs"] == {"count": 7} and "carried" not in explicit.data["ruling"]
        assert app.recompute(cid) == []
    finally:
        app.close()
    fresh = Ledger(settings)  # the carried value is part of the state rebuilt from the events
    try:
        again = fresh.record_ruling(cid, procedure="T2", inputs={}, actor=GM)
        assert again.data["ruling"]["inputs"] == {"count": 8}
        assert again.data["ruling"]["carried"] == {"count": explicit.events[0]["position"]}
    finally:
        fresh.close()


def test_a_ruling_with_impossible_inputs_appends_nothing(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    with pytest.raises(InvalidInput) as caught:
        ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 9, "target": 8}, actor=GM)
    assert caught.value.field == "inputs.bonus"
    with pytest.raises(InvalidInput):
        ledger.record_ruling(cid, procedure="T99", inputs={}, actor=GM)
    assert len(ledger.history(cid)) == 2
    assert ledger.campaign(cid).next_roll == 0


def test_physical_dice_are_recorded_as_manual_and_take_no_server_index(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    ledger.record_manual_roll(cid, purpose="table roll", sides=6, values=[6, 2], actor=GM)
    ledger.roll(cid, purpose="server roll", actor=GM)
    ledger.close_turn(cid, actor=GM)
    report = ledger.verify_dice(cid, 1)
    assert report.ok and report.checked == 1 and report.manual == 1


def test_dice_verification_detects_a_roll_edited_in_the_database(ledger, settings):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    rolled = ledger.roll(cid, purpose="battle", sides=6, count=3, actor=GM)
    ledger.close_turn(cid, actor=GM)
    values = rolled.data["dice"][0]["values"]
    forged = [(v % 6) + 1 for v in values]
    table = events_table(settings)
    old, new = f'"values":{values}'.replace(" ", ""), f'"values":{forged}'.replace(" ", "")
    if settings.backend == "sqlite":
        raw_execute(settings, f"DROP TRIGGER {table}_no_update")
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), ?, ?) AS BLOB) "
                              "WHERE originator_version = 3", (old, new))
    else:
        raw_execute(settings, f"DROP TRIGGER {table}_immutable ON {table}")
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "?, ?), 'UTF8') WHERE originator_version = 3", (old, new))
    report = ledger.verify_dice(cid, 1)
    assert not report.ok and "position 3" in report.mismatches[0]
    assert ledger.verify(cid).broken_at == 3


def test_a_turn_cannot_be_opened_twice_or_closed_when_none_is_open(ledger):
    cid = new_campaign(ledger)
    with pytest.raises(StateConflict):
        ledger.close_turn(cid, actor=GM)
    ledger.open_turn(cid, actor=GM)
    with pytest.raises(StateConflict):
        ledger.open_turn(cid, actor=GM)
    with pytest.raises(StateConflict):
        ledger.verify_dice(cid, 1)


def test_a_correction_references_the_event_it_corrects_and_keeps_the_original(ledger):
    cid = new_campaign(ledger)
    ledger.open_turn(cid, actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=35, reason="looting", actor=GM)
    ledger.record_correction(cid, corrects=3, reason="loot was 30: Picardie income is 3 × 10",
                             replacement={"amount": 30}, actor=GM)
    history = ledger.history(cid)
    assert history[2].amount == 35
    assert isinstance(history[3], ev.CorrectionRecorded) and history[3].corrects == 3
    with pytest.raises(InvalidInput):
        ledger.record_correction(cid, corrects=99, reason="nothing there", actor=GM)


def test_a_long_campaign_loads_from_its_latest_snapshot(settings):
    app = Ledger(settings)
    cid = new_campaign(app)
    app.open_turn(cid, actor=GM)
    for i in range(120):
        app.roll(cid, purpose=f"r{i}", actor=GM)
    head = app.campaign(cid)
    app.close()
    fresh = Ledger(settings)
    try:
        snapshots = list(fresh.snapshots.get(cid, desc=True, limit=1))
        assert snapshots and snapshots[0].originator_version == 100  # interval 50 in the test settings
        assert fresh.campaign(cid) == head
        fresh.roll(cid, purpose="after restart", actor=GM)
        assert fresh.verify(cid).intact
    finally:
        fresh.close()


def test_an_unknown_campaign_is_reported_as_not_found(ledger):
    with pytest.raises(CampaignNotFound):
        ledger.history(UUID(int=7))


def test_a_snapshot_read_as_binary_is_the_row_the_librarys_text_read_gives(settings):
    """PostgreSQL: the snapshot recorder reads a snapshot's state as its bytes (binary results, not hex), and
    gives exactly the stored events the library's own statement gives, for every bound and order."""
    if settings.store != "postgres":
        pytest.skip("the binary read is PostgreSQL's")
    from eventsourcing.postgres import PostgresAggregateRecorder

    from ops.generate_campaign import generate

    ledger = Ledger(settings.model_copy(update={"snapshot_interval": 10}))
    try:
        generate(ledger, "snaps", 60, seed=1, turn_size=20)
        [state] = ledger.campaigns()
        recorder = ledger.snapshots.recorder
        for kw in ({}, {"desc": True, "limit": 1}, {"lte": 35, "desc": True, "limit": 1}, {"gt": 10, "lte": 40},
                   {"gt": 20}):
            got = recorder.select_events(state.id, **kw)
            assert got == PostgresAggregateRecorder.select_events(recorder, state.id, **kw), kw
        assert len(recorder.select_events(state.id)) >= 5, "a snapshot every 10 events"
        assert ledger.check_snapshot(state.id)[1] is None  # the latest one is sealed and used
    finally:
        ledger.close()


def test_a_ruling_hidden_from_a_player_carries_nothing_into_theirs(ledger):
    """A player's ruling carries from the latest ruling of the procedure they may see: a game master's hidden
    ruling neither feeds it nor tells the player it exists (the same inputs with or without it)."""
    answers = []
    for slug, hidden in (("with-hidden", True), ("without", False)):
        cid = ledger.create_campaign(slug=slug, name="Channel", ruleset="check", countries=["ENG", "FRA"],
                                     players={"ENG": "alice"}, settings={"players_may_roll": True},
                                     actor=GM).data["id"]
        cid = UUID(cid)
        ledger.open_turn(cid, actor=GM)
        seen = ledger.record_ruling(cid, procedure="T2", inputs={"count": 3}, actor=GM)
        if hidden:
            ledger.record_ruling(cid, procedure="T2", inputs={"count": 40}, actor=GM,
                                 visibility={"scope": "gm"})
        else:
            ledger.roll(cid, purpose="a roll in its place", actor=GM, visibility={"scope": "gm"})
        player = ledger.record_ruling(cid, procedure="T2", inputs={}, actor=Actor("alice", "player", "ENG"))
        ruling = player.data["ruling"]
        assert ruling["carried"] == {"count": seen.events[0]["position"]}
        answers.append(ruling["inputs"])
        assert ledger.record_ruling(cid, procedure="T2", inputs={}, actor=GM).data["ruling"]["carried"] == \
            {"count": player.events[-1]["position"]}  # the game master's carries from the latest of all
    assert answers == [{"count": 4}, {"count": 4}]
