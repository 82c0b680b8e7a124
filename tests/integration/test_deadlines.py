"""Deadlines, readiness and reminders as events (issue 38, item 3): the game master sets a phase's deadline in
the campaign's time zone, players mark their own country ready, a reminder falls due at the offsets chosen
and is recorded once, naming who is not ready; a phase closes early when every country is ready (a setting).
freezegun drives the clock. The sample scenario: ENG and FRA."""

from __future__ import annotations

import itertools

import pytest
from freezegun import freeze_time

from ledger import deadlines
from ledger.application import Actor
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain import pace
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import Forbidden, InvalidInput, StateConflict
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from tests.integration.test_sequence_of_play import refused as refused_with

#: The reminder recorded once, whatever the tickers (two services, a cron) and the restarts, is the store's
#: promise (one writer wins, the other re-runs on its state): on every store.
pytestmark = pytest.mark.store_contract
slugs = itertools.count()
ENG = Actor("alice", "player", "ENG")
FRA = Actor("bruno", "player", "FRA")


def campaign(ledger, **settings):
    slug = f"pace{next(slugs)}"
    import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    cid = campaign_id(slug)
    if settings:
        ledger.handle(cid, cmd.build(cmd.ChangeSettings, settings=settings, reason="the table's pace"), actor=GM)
    ledger.open_turn(cid, actor=GM)
    return cid


def refused(ledger, cid, command, actor=GM, error=StateConflict):
    """Refused with ``error``, nothing appended (the sequence of play's tests' check)."""
    return refused_with(ledger, cid, command, actor=actor, error=error)


def test_a_deadline_typed_in_the_campaign_zone_is_recorded_in_utc(ledger):
    cid = campaign(ledger, time_zone="Europe/Paris")
    with freeze_time("2026-11-30 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01 20:00", reminders=[120, 1440]), actor=GM)
    [d] = [e for e in ledger.history(cid) if isinstance(e, ev.DeadlineSet)]
    # Paris is UTC+1 in December: 20:00 there is 19:00 UTC.
    assert (d.due, d.time_zone, d.reminders, d.previous) == ("2026-12-01T19:00:00+00:00", "Europe/Paris",
                                                             [1440, 120], None)
    assert ledger.campaign(cid).pace["deadlines"]["events"]["due"] == d.due


def test_an_unknown_time_zone_is_refused_with_a_did_you_mean(ledger):
    cid = campaign(ledger)
    with pytest.raises(InvalidInput) as info:
        cmd.build(cmd.ChangeSettings, settings={"time_zone": "Europe/Pari"}, reason="typo")
    assert info.value.field == "settings.time_zone"
    assert "unknown time zone 'Europe/Pari'" in info.value.message and "'Europe/Paris'" in info.value.message
    assert ledger.campaign(cid).settings.get("time_zone") is None


def test_a_deadline_in_the_past_is_refused_naming_the_field(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-12-02 00:00:00"):
        e = refused(ledger, cid, pace.SetDeadline(phase="events", due="2026-12-01 20:00"), error=InvalidInput)
    assert e.field == "due" and "has passed" in e.message


def test_a_deadline_is_moved_then_cleared_each_a_new_event(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-11-30 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01 20:00"), actor=GM)
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-02 20:00", reason="a player travels"),
                      actor=GM)
        refused(ledger, cid, pace.SetDeadline(phase="events", due="2026-12-02 20:00"))
        ledger.handle(cid, pace.ClearDeadline(phase="events", reason="no hurry"), actor=GM)
        refused(ledger, cid, pace.ClearDeadline(phase="events", reason="again"))
    moved = [e for e in ledger.history(cid) if isinstance(e, ev.DeadlineSet)][-1]
    assert moved.previous == "2026-12-01T20:00:00+00:00"
    assert ledger.campaign(cid).pace["deadlines"] == {}


def test_a_player_marks_their_own_country_ready_and_no_other(ledger):
    cid = campaign(ledger)
    ledger.handle(cid, pace.MarkReady(), actor=ENG)
    e = refused(ledger, cid, pace.MarkReady(country="FRA"), actor=ENG, error=Forbidden)
    assert e.field == "country"
    refused(ledger, cid, pace.MarkReady(), actor=ENG)  # already ready
    assert ledger.campaign(cid).pace["ready"] == {"events": ["ENG"]}
    ledger.handle(cid, pace.MarkReady(ready=False), actor=ENG)
    assert ledger.campaign(cid).pace["ready"] == {"events": []}


def test_readiness_is_for_the_phase_the_turn_is_in_and_starts_afresh_in_the_next(ledger):
    cid = campaign(ledger)
    ledger.handle(cid, pace.MarkReady(), actor=ENG)
    ledger.close_phase(cid, "events", actor=GM)
    status = pace.status(ledger.campaign(cid), pace.utc("2026-12-01T00:00:00+00:00"))
    assert (status["phase"], status["ready"], status["not_ready"]) == ("diplomacy", [], ["ENG", "FRA"])


def test_the_phase_closes_early_when_the_last_country_is_ready_if_the_campaign_says_so(ledger):
    cid = campaign(ledger, close_when_all_ready=True)
    ledger.handle(cid, pace.MarkReady(), actor=ENG)
    assert ledger.campaign(cid).phases_closed == ()
    answer = ledger.handle(cid, pace.MarkReady(), actor=FRA)
    assert answer.data["closed"]["phase"] == "events"
    closed = ledger.history(cid)[-1]
    assert isinstance(closed, ev.PhaseClosed) and closed.phase == "events"
    assert closed.closed_by == {"by": "all ready", "last": "FRA"} and closed.actor["country"] == "FRA"
    assert ledger.campaign(cid).phases_closed == ("events",)


def test_without_the_setting_every_country_ready_leaves_the_phase_open(ledger):
    cid = campaign(ledger)
    ledger.handle(cid, pace.MarkReady(), actor=ENG)
    ledger.handle(cid, pace.MarkReady(), actor=FRA)
    assert ledger.campaign(cid).phases_closed == ()


def test_a_reminder_falls_due_at_its_offset_names_who_is_not_ready_and_is_recorded_once(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z", reminders=[1440, 120]),
                      actor=GM)
        ledger.handle(cid, pace.MarkReady(), actor=ENG)
    with freeze_time("2026-11-30 19:59:00"):  # a minute before "24 h before"
        assert deadlines.tick(ledger) == []
        refused(ledger, cid, pace.SendReminders())
    with freeze_time("2026-11-30 20:00:00"):
        [sent] = deadlines.tick(ledger)
        assert deadlines.tick(ledger) == []  # the chain says it went out
    with freeze_time("2026-12-01 18:30:00"):
        [later] = deadlines.tick(ledger)
    reminders = [e for e in ledger.history(cid) if isinstance(e, ev.ReminderIssued)]
    assert [(r.before, r.not_ready) for r in reminders] == [(1440, ["FRA"]), (120, ["FRA"])]
    assert sent.data["reminders"][0]["before"] == 1440 and later.data["reminders"][0]["before"] == 120


def test_a_reminder_is_not_sent_twice_after_a_restart(ledger, settings):
    from ledger.application import Ledger

    cid = campaign(ledger)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z", reminders=[60]), actor=GM)
    with freeze_time("2026-12-01 19:00:00"):
        assert len(deadlines.tick(ledger)) == 1
    restarted = Ledger(settings)
    try:
        with freeze_time("2026-12-01 19:30:00"):
            assert deadlines.tick(restarted) == []
    finally:
        restarted.close()
    assert len([e for e in ledger.history(cid) if isinstance(e, ev.ReminderIssued)]) == 1


def test_a_reminder_whose_moment_passed_before_the_deadline_was_set_is_never_sent(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-12-01 19:00:00"):  # one hour before: "24 h before" has passed
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z", reminders=[1440]), actor=GM)
    with freeze_time("2026-12-01 19:30:00"):
        assert deadlines.tick(ledger) == []


def test_moving_a_deadline_brings_its_reminders_again(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z", reminders=[60]), actor=GM)
    with freeze_time("2026-12-01 19:00:00"):
        assert len(deadlines.tick(ledger)) == 1
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-02T20:00Z", reminders=[60]), actor=GM)
    with freeze_time("2026-12-02 19:00:00"):
        assert len(deadlines.tick(ledger)) == 1


def test_the_table_sees_who_is_late_once_the_deadline_passed(ledger):
    cid = campaign(ledger)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z"), actor=GM)
        ledger.handle(cid, pace.MarkReady(), actor=FRA)
    state = ledger.campaign(cid)
    before = pace.status(state, pace.utc("2026-12-01T19:59:00+00:00"))
    after = pace.status(state, pace.utc("2026-12-01T20:00:00+00:00"))
    assert (before["not_ready"], before["late"]) == (["ENG"], [])
    assert (after["not_ready"], after["late"], after["overdue"]) == (["ENG"], ["ENG"], True)


def test_the_services_ticker_records_a_reminder_that_falls_due_while_it_runs(ledger):
    import time
    from datetime import UTC, datetime, timedelta

    cid = campaign(ledger)
    # Real time (the ticker's thread): a deadline 61 s away with a reminder 60 s before it, due in a second.
    due = (datetime.now(UTC) + timedelta(seconds=61)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ledger.handle(cid, pace.SetDeadline(phase="events", due=due, reminders=[1]), actor=GM)
    ticker = deadlines.Ticker(ledger, 0.1).start()
    try:
        for _ in range(100):
            if ledger.campaign(cid).pace["sent"]:
                break
            time.sleep(0.05)
    finally:
        ticker.stop()
    [reminder] = [e for e in ledger.history(cid) if isinstance(e, ev.ReminderIssued)]
    assert reminder.not_ready == ["ENG", "FRA"] and reminder.actor["role"] == "system"


def test_two_tickers_at_once_record_a_reminder_once(ledger, settings):
    from concurrent.futures import ThreadPoolExecutor

    from ledger.application import Ledger

    cid = campaign(ledger)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01T20:00Z", reminders=[60]), actor=GM)
    other = Ledger(settings)  # another process's ledger on the same store
    try:
        with freeze_time("2026-12-01 19:10:00"), ThreadPoolExecutor(2) as pool:
            done = list(pool.map(deadlines.tick, [ledger, other]))
    finally:
        other.close()
    assert sorted(len(d) for d in done) == [0, 1]
    assert len([e for e in ledger.history(cid) if isinstance(e, ev.ReminderIssued)]) == 1
