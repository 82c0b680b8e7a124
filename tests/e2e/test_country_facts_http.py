"""A country's economic facts over HTTP (POST /campaigns/{id}/map/countries): the game master sets them, a
player may not, an unknown name is a 422 naming the field with a suggestion, and the timeline tells it in words."""

from __future__ import annotations

from ledger.domain.campaign import campaign_id
from ledger.sample import SLUG
from tests.e2e.test_access import bearer, issue, make_client
from tests.e2e.test_commands_http import client, started


def test_the_game_master_sets_a_countrys_facts_and_the_timeline_tells_them(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/countries", json={
            "country": "FRA", "land_technology": "Medieval", "domestic_trade_index": 4,
            "manufactures": [{"resource": "Wine", "province": "Caux", "level": 1, "income": 4}],
            "reason": "setup"})
        assert r.status_code == 201, r.text
        assert r.json()["events"][0]["type"] == "CountryFactsSet"
        facts = ledger.campaign(cid).military["countries"]["FRA"]
        assert (facts["land_technology"], facts["domestic_trade_index"]) == ("MED", 4)
        turn = ledger.campaign(cid).turn
        [said] = [t["summary"] for t in http.get(f"/campaigns/{SLUG}/turns/{turn}/timeline").json()][-1:]
        assert "FRA: land technology MED; domestic trade index 4; manufactures Wine 1 in Caux (4 ducats)" in said


def test_an_unknown_province_or_a_string_amount_is_a_422_and_nothing_is_appended(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/countries", json={
            "country": "FRA", "manufactures": [{"resource": "Wine", "province": "Cauxx", "income": 4}]})
        assert r.status_code == 422
        error = r.json()["error"]
        assert error["field"] == "manufactures[0].province" and "Caux" in error["message"]
        r = http.post(f"/campaigns/{SLUG}/map/countries", json={"country": "FRA", "domestic_trade_index": "3"})
        assert r.status_code == 422
        r = http.post(f"/campaigns/{SLUG}/map/countries", json={"country": "FRA"})
        assert r.status_code == 422 and "at least one fact" in r.text
    assert ledger.campaign(cid).version == before


def test_a_player_may_not_set_country_facts(settings, ledger):
    cid = started(ledger)
    token = issue(ledger, campaign_id(SLUG), "player", "FRA")
    with make_client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/countries", json={"country": "FRA", "domestic_trade_index": 5},
                      headers=bearer(token))
        assert r.status_code == 403
    assert "FRA" not in ledger.campaign(cid).military["countries"]
