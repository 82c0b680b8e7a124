""""Since you last looked" and the turn report (issue 38, item 2): each reader marks the campaign read up to a
position (an event of their audience, never a GET); the report lists, in words and in order, what changed for
them since (moves, rulings and their outcomes, corrections of things they had seen, their sheet's lines, new
turns, deadlines), each linked to its step on the turn page and its places on the map, and nothing hidden from
them; it reads forward from the reader's mark, at most ``catchup.LIMIT`` records. The sample scenario: ENG-1
in Kent, FRA-1 in Picardie."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from ledger.domain import commands as cmd
from ledger.domain import pace
from ledger.domain.campaign import campaign_id
from ledger.sample import GM, reach_phase
from ledger.scenario import import_scenario, load_text
from projections import catchup
from tests.e2e.test_access import bearer, issue, make_client

SLUG = "catchup"
CID = campaign_id(SLUG)


@pytest.fixture
def table(settings, ledger):
    """The sample campaign in its military phase, a FRA and an ENG player's tokens, and the client."""
    import_scenario(ledger, load_text("sample"), slug=SLUG, actor=GM)
    ledger.handle(CID, cmd.build(cmd.ChangeSettings, settings={"time_zone": "Europe/Paris"}, reason="the table"),
                  actor=GM)
    ledger.open_turn(CID, actor=GM)
    reach_phase(ledger, CID, "military")
    fra, eng = issue(ledger, CID, "player", "FRA"), issue(ledger, CID, "player", "ENG")
    with make_client(settings, ledger, deadline_tick_seconds=0) as client:
        yield client, bearer(fra), bearer(eng)


def report(client, who, **params):
    r = client.get(f"/campaigns/{SLUG}/report", headers=who, params=params)
    assert r.status_code == 200, r.text
    return r


def mark(client, who, up_to):
    r = client.post(f"/campaigns/{SLUG}/read", headers=who, json={"up_to": up_to})
    assert r.status_code == 201, r.text


def test_reading_the_report_appends_nothing(table, ledger):
    client, fra, _ = table
    before = ledger.campaign(CID).version
    report(client, fra)
    client.get(f"/ui/campaigns/{SLUG}/since", headers=fra)
    assert ledger.campaign(CID).version == before


def test_since_you_last_looked_lists_what_touched_the_reader_in_order_and_nothing_hidden(table, ledger):
    client, fra, _ = table
    seen = ledger.history(CID)
    treasury = ledger.record_treasury_entry(CID, country="FRA", line="A9", amount=35, reason="Pillages",
                                            actor=GM).events[-1]["position"]
    mark(client, fra, ledger.campaign(CID).version)
    ledger.handle(CID, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)
    ledger.record_treasury_entry(CID, country="ENG", line="A9", amount=50, reason="English secret loot", actor=GM)
    ledger.record_treasury_entry(CID, country="FRA", line="A1", amount=12, reason="Taxes of Paris", actor=GM)
    ledger.record_correction(CID, corrects=treasury, reason="the pillage yielded 30",
                             replacement={"amount": 30}, actor=GM)
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(CID, pace.SetDeadline(phase="military", due="2026-12-01 20:00", reminders=[120]), actor=GM)
    text = report(client, fra, format="text").text
    assert "English secret loot" not in text and "ENG: +50" not in text
    lines = [line for line in text.splitlines() if line.startswith("#")]
    kinds = [line.split(") ", 1)[1].split(":", 1)[0] for line in lines]
    # The English move concerns France in nothing; its sheet, the correction of its line and the deadline do.
    assert kinds == ["Move", "Your sheet (FRA)", "Correction (FRA)", "Deadline (FRA)"], text
    assert "stack ENG-1 moved Kent → Wessex" in lines[0]
    assert "Taxes of Paris" in lines[1]
    assert f"corrects #{treasury} (FRA: +35 ducats on A9 (turn 1: Pillages)), which you had seen" in lines[2]
    # The deadline in the campaign's zone (Paris, UTC+1 in December), or in the reader's own.
    assert "2026-12-01 20:00 Europe/Paris" in lines[3] and "reminders 2 h before" in lines[3]
    assert "2026-12-01 14:00 America/New_York" in report(client, fra, format="text", tz="America/New_York").text
    move = int(lines[0][1:].split(" ", 1)[0])
    assert f"/ui/campaigns/{SLUG}/turns/1?position={move}" in text
    assert f"/ui/campaigns/{SLUG}/places/Wessex?at={move}" in text
    assert len(seen) < move


def test_only_what_touches_the_readers_country_when_they_ask(table, ledger):
    client, fra, _ = table
    head = ledger.campaign(CID).version
    ledger.handle(CID, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)  # English
    ledger.handle(CID, cmd.MoveStack(stack="FRA-1", origin="Picardie", destination="Caux"), actor=GM)  # French
    ledger.record_treasury_entry(CID, country="FRA", line="A1", amount=12, reason="Taxes of Paris", actor=GM)
    everything = report(client, fra, since=head, format="text").text
    assert "Move: stack ENG-1 moved Kent → Wessex" in everything
    assert "Move (FRA): stack FRA-1 moved Picardie → Caux" in everything
    assert "Your sheet (FRA): FRA: +12 ducats on A1" in everything
    mine = report(client, fra, since=head, format="text", mine="true").text
    assert "only what touches your country" in mine and "ENG-1" not in mine
    assert "stack FRA-1 moved Picardie → Caux" in mine and "Taxes of Paris" in mine


def test_a_player_who_marks_read_then_finds_nothing_new(table, ledger):
    client, fra, eng = table
    ledger.handle(CID, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)
    mark(client, fra, ledger.campaign(CID).version)
    assert "Nothing new for you." in report(client, fra, format="text").text
    # ENG's reader marked nothing: its catch-up still holds the move (marks are each reader's own).
    assert "Kent → Wessex" in report(client, eng, format="text").text


def test_the_mark_is_the_readers_event_whose_audience_is_their_country_and_the_game_masters(table, ledger):
    client, fra, eng = table
    mark(client, fra, 3)
    [event] = [e for e in ledger.history(CID) if type(e).__name__ == "MarkedAsRead"]
    assert event.visibility == {"scope": "countries", "countries": ["FRA"]} and event.up_to == 3
    events = client.get(f"/campaigns/{SLUG}/events", headers=eng).json()
    assert "MarkedAsRead" not in str(events)


def test_an_explicit_since_reports_from_there(table, ledger):
    client, fra, _ = table
    head = ledger.campaign(CID).version
    ledger.handle(CID, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)
    md = report(client, fra, since=head, format="md")
    assert md.headers["content-type"].startswith("text/markdown")
    assert f"positions {head + 1}–{head + 1}" in md.text
    assert "- **#" in md.text and "[step](" in md.text and "[Wessex](" in md.text
    assert report(client, fra, since=head, format="text").headers["content-type"].startswith("text/plain")


def test_a_reader_who_chose_a_zone_on_the_page_keeps_it(table, ledger):
    client, fra, _ = table
    with freeze_time("2026-11-29 12:00:00"):
        ledger.handle(CID, pace.SetDeadline(phase="military", due="2026-12-01 20:00"), actor=GM)
        first = client.get(f"/ui/campaigns/{SLUG}/since", headers=fra, params={"tz": "Asia/Tokyo"})
        again = client.get(f"/ui/campaigns/{SLUG}/since", headers=fra)
    assert "2026-12-02 04:00 Asia/Tokyo" in first.text
    assert "2026-12-02 04:00 Asia/Tokyo" in again.text and "Times in Asia/Tokyo" in again.text
    client.cookies.clear()
    client.cookies.set("ledger_tz", "Asia/Kolkata")
    assert "Times in Asia/Kolkata" in client.get(f"/ui/campaigns/{SLUG}/since", headers=fra).text
    client.cookies.set("ledger_tz", "Not/AZone")  # a kept zone no longer known: the campaign's, no error
    assert "Times in Europe/Paris" in client.get(f"/ui/campaigns/{SLUG}/since", headers=fra).text


def test_a_report_past_the_history_or_in_an_unknown_zone_is_refused_naming_the_field(table, ledger):
    client, fra, _ = table
    r = client.get(f"/campaigns/{SLUG}/report", headers=fra, params={"since": 10_000})
    assert r.status_code == 422 and "since" in r.text
    r = client.get(f"/campaigns/{SLUG}/report", headers=fra, params={"tz": "Europe/Pariss"})
    assert r.status_code == 422 and "unknown time zone 'Europe/Pariss'" in r.text and "Europe/Paris" in r.text


def test_a_player_may_not_mark_another_country_ready_over_http(table, ledger):
    client, fra, _ = table
    r = client.post(f"/campaigns/{SLUG}/ready", headers=fra, json={"country": "ENG"})
    assert r.status_code == 403 and "country" in r.text
    r = client.post(f"/campaigns/{SLUG}/ready", headers=fra, json={})
    assert r.status_code == 201
    r = client.post(f"/campaigns/{SLUG}/deadlines", headers=fra, json={"phase": "military", "due": "2030-01-01 20:00"})
    assert r.status_code == 403


def test_the_catch_up_reads_forward_from_the_mark_and_at_most_its_limit(table, ledger):
    client, fra, _ = table
    for n in range(6):
        ledger.record_treasury_entry(CID, country="FRA", line="A9", amount=n + 1, reason=f"entry {n}", actor=GM)
    head = ledger.campaign(CID).version
    asked = []
    select = ledger.recorder.select_events

    def spy(*args, **kwargs):
        asked.append((kwargs.get("gt"), kwargs.get("limit")))
        return select(*args, **kwargs)

    ledger.recorder.select_events = spy
    try:
        from ledger.application import Actor

        c = catchup.catch_up(ledger, ledger.campaign(CID), Actor("bruno", "player", "FRA"), since=head - 6, limit=4)
    finally:
        ledger.recorder.select_events = select
    assert asked == [(head - 6, 4)]
    assert (c.upto, c.more) == (head - 2, True)
    assert [i.words.split("(turn 1: ")[1].split(")")[0] for i in c.items] == ["entry 0", "entry 1", "entry 2",
                                                                              "entry 3"]


def test_the_service_runs_the_reminders_ticker_while_it_serves_and_stops_it_after(settings, ledger):
    import threading

    def tickers():
        return [t for t in threading.enumerate() if t.name == "ledger-deadlines" and t.is_alive()]

    before = len(tickers())
    with make_client(settings, ledger, deadline_tick_seconds=0.1):
        assert len(tickers()) == before + 1
    assert len(tickers()) == before
    with make_client(settings, ledger, deadline_tick_seconds=0):  # cron's turn: no ticker in the service
        assert len(tickers()) == before
