"""Closing a phase records each country's ERS figures for that country: a rival's treasury is nobody else's.

A phase's close is public (everyone follows the sequence of play); the lines it completes (A8 after diplomacy,
A9 and A10 after redeployment, ...) are recorded per country in a ``PhaseFiguresRecorded`` seen as that
country's entries are (private by default), and published with its sheet. A ``PhaseClosed`` of an older
history carries every country's figures: a reader who does not see everything reads it without them.
Run on SQLite and PostgreSQL (the ``ledger`` fixture).
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


def test_a_phase_close_records_each_countrys_figures_seen_as_its_entries_are(http, ledger):
    private_budgets_through_diplomacy(ledger)
    history = events_of(http, {})  # the admin: everything
    [closed] = [e for e in history if e["type"] == "PhaseClosed" and e["payload"]["phase"] == "diplomacy"]
    assert closed["visibility"] == {"scope": "public"} and closed["payload"]["ers"] == {}
    figures = {e["payload"]["country"]: e for e in history if e["type"] == "PhaseFiguresRecorded"}
    assert figures["ENG"]["payload"]["lines"] == {"A8": 100} and figures["FRA"]["payload"]["lines"] == {"A8": 150}
    assert figures["ENG"]["visibility"] == {"scope": "countries", "countries": ["ENG"]}
    assert figures["FRA"]["visibility"] == {"scope": "countries", "countries": ["FRA"]}


def test_a_player_reads_their_own_figures_at_a_close_and_never_a_rivals(http, ledger):
    private_budgets_through_diplomacy(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    seen = events_of(http, fra)
    assert [e["payload"]["country"] for e in seen if e["type"] == "PhaseFiguresRecorded"] == ["FRA"]
    assert all(e["payload"].get("ers") in (None, {}) for e in seen)
    assert "100" not in str([e["payload"] for e in seen if e["type"] in ("PhaseClosed", "PhaseFiguresRecorded")])
    own = http.get(f"/campaigns/{SLUG}/ers/FRA/1", headers=fra).json()
    [a8] = [line for line in own["lines"] if line["code"] == "A8"]
    assert a8["at_close"]["value"] == 150 and a8["at_close"]["phase"] == "diplomacy"
    rival = http.get(f"/campaigns/{SLUG}/ers/ENG/1", headers=fra)
    assert rival.status_code == 200, rival.text
    assert all(line["at_close"] is None for line in rival.json()["lines"])
    page = http.get(f"/ui/campaigns/{SLUG}/ers/ENG/1", headers=fra).text
    assert "was 100" not in page and "when the diplomacy phase closed" not in page


def test_the_answers_a_player_gets_do_not_depend_on_a_rivals_private_figures_at_a_close(settings, ledger):
    """Two campaigns that differ only in England's private starting treasury give France's player the same
    phase closes and figures (their times and hashes aside) and the same sheet of England (the property test of
    every route is tests/integration/test_noninterference.py)."""
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
                         for e in history if e["type"] in ("PhaseClosed", "PhaseFiguresRecorded")], sheet))
    assert answers[0] == answers[1]


def test_publishing_a_countrys_sheet_publishes_the_figures_its_phases_recorded(http, ledger):
    private_budgets_through_diplomacy(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    published = http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 1, "countries": ["ENG"],
                                                                  "reason": "England shows its books"})
    assert published.status_code == 201, published.text
    shown = [e["payload"] for e in events_of(http, fra) if e["type"] == "PhaseFiguresRecorded"]
    assert sorted((p["country"], p["lines"]["A8"]) for p in shown) == [("ENG", 100), ("FRA", 150)]
    rival = http.get(f"/campaigns/{SLUG}/ers/ENG/1", headers=fra).json()
    [a8] = [line for line in rival["lines"] if line["code"] == "A8"]
    assert a8["amount"] == 100 and a8["at_close"]["value"] == 100


def test_a_phase_close_of_an_older_history_is_served_to_a_player_without_the_countries_figures(http, ledger):
    """Before the figures had events of their own, a public PhaseClosed carried every country's: stored as it
    was (never rewritten), served to a player without them, its link in the chain marked not theirs to
    recompute; the game master reads it whole."""
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


def test_a_game_masters_hidden_entry_on_a_sheet_makes_its_figures_at_a_close_the_game_masters_alone(http, ledger):
    """Figures are seen only by those who see every event they are computed from: France's player does not see a
    GM-only entry on France's sheet, so France's figures at the close are the game masters' (else the player
    would read the hidden amount off A8)."""
    ledger.create_campaign(slug=SLUG, name="Closing figures", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    ledger.open_turn(CID, actor=SETUP)
    ledger.record_treasury_entry(CID, country="FRA", line="A1", amount=150, reason="FRA start", actor=SETUP)
    ledger.record_treasury_entry(CID, country="FRA", line="A9", amount=-40, reason="a secret subsidy", actor=SETUP,
                                 visibility={"scope": "gm"})
    ledger.record_treasury_entry(CID, country="ENG", line="A1", amount=100, reason="ENG start", actor=SETUP)
    for phase in ("events", "diplomacy"):
        ledger.close_phase(CID, phase, actor=SETUP)
    figures = {e["payload"]["country"]: e["visibility"] for e in events_of(http, {})
               if e["type"] == "PhaseFiguresRecorded"}
    assert figures == {"FRA": {"scope": "gm"}, "ENG": {"scope": "countries", "countries": ["ENG"]}}
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    assert not [e for e in events_of(http, fra) if e["type"] == "PhaseFiguresRecorded"]
