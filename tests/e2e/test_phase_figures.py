"""Closing a phase records no country's figures: a rival's treasury is nobody else's.

A phase's close is public (everyone follows the sequence of play); the lines it completes (A8 after diplomacy,
A9 and A10 after redeployment, ...) are the game master's answer, not recorded: an event of a country's figures
would tell its readers, by its audience or its amounts, whether an entry hidden from them stands behind them.
A ``PhaseClosed`` of an older history carries every country's figures: a reader who does not see everything
reads it without them. Run on SQLite and PostgreSQL (the ``ledger`` fixture).
"""

from __future__ import annotations

import pytest

from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from tests.e2e.test_access import ADMIN, bearer, issue, make_client
from tests.e2e.test_export_http import SETUP

SLUG = "closing-figures"
CID = campaign_id(SLUG)


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN}"
        yield client


def private_budgets_through_diplomacy(ledger, eng_treasury: int = 100) -> None:
    ledger.create_campaign(slug=SLUG, name="Closing figures", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    ledger.open_turn(CID, actor=SETUP)
    ledger.record_treasury_entry(CID, country="ENG", line="A1", amount=eng_treasury, reason="ENG start", actor=SETUP)
    ledger.record_treasury_entry(CID, country="FRA", line="A1", amount=150, reason="FRA start", actor=SETUP)
    for phase in ("events", "diplomacy"):
        ledger.close_phase(CID, phase, actor=SETUP)


def events_of(http, headers) -> list[dict]:
    return http.get(f"/campaigns/{SLUG}/events", headers=headers).json()


def test_a_phase_close_is_public_and_records_no_countrys_figures_the_game_master_is_told_them(http, ledger):
    ledger.create_campaign(slug=SLUG, name="Closing figures", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    ledger.open_turn(CID, actor=SETUP)
    ledger.record_treasury_entry(CID, country="ENG", line="A1", amount=100, reason="ENG start", actor=SETUP)
    assert http.post(f"/campaigns/{SLUG}/phases/events/close", json={}).status_code == 201
    told = http.post(f"/campaigns/{SLUG}/phases/diplomacy/close", json={})
    assert told.status_code == 201, told.text
    assert told.json()["data"]["ers"]["ENG"] == {"A8": 100}  # the game master's answer
    [closed] = told.json()["events"]
    assert closed["type"] == "PhaseClosed"
    [stored] = [e for e in events_of(http, {}) if e["position"] == closed["position"]]
    assert stored["visibility"] == {"scope": "public"} and stored["payload"]["ers"] == {}


def test_a_player_reads_no_rivals_figures_at_a_close(http, ledger):
    private_budgets_through_diplomacy(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    seen = events_of(http, fra)
    assert all(e["payload"].get("ers") in (None, {}) for e in seen)
    rival = http.get(f"/campaigns/{SLUG}/ers/ENG/1", headers=fra)
    assert rival.status_code == 200, rival.text
    assert all(line["at_close"] is None for line in rival.json()["lines"])
    page = http.get(f"/ui/campaigns/{SLUG}/ers/ENG/1", headers=fra).text
    assert "was 100" not in page and "when the diplomacy phase closed" not in page


def test_the_answers_a_player_gets_do_not_depend_on_a_rivals_private_figures_at_a_close(settings, ledger):
    """Two campaigns that differ only in England's private starting treasury give France's player the same
    phase closes (their times and hashes aside) and the same sheet of England (the property test of every route
    is tests/e2e/test_noninterference.py)."""
    answers = []
    for treasury in (100, 250):
        slug = f"{SLUG}-{treasury}"
        cid = campaign_id(slug)
        ledger.create_campaign(slug=slug, name="Closing figures", ruleset="eu", countries=["ENG", "FRA"],
                               actor=SETUP)
        ledger.open_turn(cid, actor=SETUP)
        ledger.record_treasury_entry(cid, country="ENG", line="A1", amount=treasury, reason="start", actor=SETUP)
        for phase in ("events", "diplomacy"):
            ledger.close_phase(cid, phase, actor=SETUP)
        fra = bearer(issue(ledger, cid, "player", "FRA"))
        with make_client(settings, ledger) as client:
            history = client.get(f"/campaigns/{slug}/events", headers=fra).json()
            sheet = client.get(f"/campaigns/{slug}/ers/ENG/1", headers=fra).json()
        answers.append(([{k: v for k, v in e.items() if k not in ("timestamp", "hash", "prev_hash")}
                         for e in history if e["type"] == "PhaseClosed"], sheet))
    assert answers[0] == answers[1]


def test_a_phase_close_of_an_older_history_is_served_to_a_player_without_the_countries_figures(http, ledger):
    """An older history's public PhaseClosed carried every country's figures: stored as it was (never
    rewritten), served to a player without them, its link in the chain marked not theirs to recompute; the game
    master reads it whole."""
    ledger.create_campaign(slug=SLUG, name="Closing figures", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    ledger.open_turn(CID, actor=SETUP)

    def old_close(d):
        d.add(ev.PhaseClosed, turn=1, phase="events", ers={})
        d.add(ev.PhaseClosed, turn=1, phase="diplomacy", ers={"ENG": {"A8": 100}, "FRA": {"A8": 150}})
        return {}

    ledger.execute(CID, SETUP, old_close)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    [old] = [e for e in events_of(http, fra) if e["type"] == "PhaseClosed" and e["payload"]["phase"] == "diplomacy"]
    assert old["payload"]["ers"] == {}
    [whole] = [e for e in events_of(http, {}) if e["position"] == old["position"]]
    assert whole["payload"]["ers"] == {"ENG": {"A8": 100}, "FRA": {"A8": 150}}
    links = {link["position"]: link for link in http.get(f"/campaigns/{SLUG}/chain", headers=fra).json()}
    assert links[old["position"]]["visible"] is False and links[old["position"] - 1]["visible"] is True
    rival = http.get(f"/campaigns/{SLUG}/ers/ENG/1", headers=fra).json()
    assert all(line["at_close"] is None for line in rival["lines"])

