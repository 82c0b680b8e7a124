"""Every write over HTTP is a command: the map commands, a retried close, a correction's visibility, the
idempotency hash covering every field."""

from __future__ import annotations

from fastapi.testclient import TestClient

from api.main import create_app
from ledger.domain.campaign import campaign_id
from ledger.sample import SLUG, ensure_sample
from ledger.sample import close_open_phases

ADMIN = "admin-secret-for-commands"
AUTH = {"Authorization": f"Bearer {ADMIN}"}


def client(settings, ledger) -> TestClient:
    return TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger), headers=AUTH)


def started(ledger):
    ensure_sample(ledger)
    cid = campaign_id(SLUG)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid)
    return cid


def test_a_game_master_records_a_move_a_marker_control_and_a_war_over_http(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        moved = http.post(f"/campaigns/{SLUG}/map/moves", json={"stack": "FRA-1", "origin": "Normandie",
                                                                "via": ["Caux"], "destination": "Picardie",
                                                                "reason": "relief"})
        assert moved.status_code == 201, moved.text
        assert moved.json()["events"][0]["type"] == "StackMoved"
        assert http.post(f"/campaigns/{SLUG}/map/markers", json={"province": "Picardie",
                                                                 "marker": "Revolt"}).status_code == 201
        assert http.post(f"/campaigns/{SLUG}/map/markers/remove", json={"province": "Picardie",
                                                                        "marker": "Revolt"}).status_code == 201
        assert http.post(f"/campaigns/{SLUG}/map/control", json={"province": "Picardie",
                                                                 "controller": "FRA"}).status_code == 201
        war = http.post(f"/campaigns/{SLUG}/map/wars", json={"attackers": ["ENG"], "defenders": ["FRA"], "context": {
            "out_of_sequence": "declared in the military phase: the route is under test, not the phase"}})
        assert war.status_code == 201, war.text
        state = http.get(f"/campaigns/{SLUG}/map").json()
    assert ledger.campaign(cid).version == before + 5
    assert state["stacks"]["FRA-1"]["location"] == "Picardie"


def test_an_unknown_place_on_the_map_is_a_422_naming_the_field_and_appends_nothing(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/moves", json={"stack": "FRA-1", "origin": "Normandie",
                                                            "destination": "Atlantis"})
        assert r.status_code == 422
        assert r.json()["error"]["field"] == "destination" and "Atlantis" in r.json()["error"]["message"]
        r = http.post(f"/campaigns/{SLUG}/map/markers", json={"province": "Picardie", "marker": "Dragons"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "marker"
    assert ledger.campaign(cid).version == before


def test_an_amount_sent_as_text_or_a_boolean_is_refused_and_appends_nothing(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        for amount in ("35", True, 35.5):
            r = http.post(f"/campaigns/{SLUG}/treasury", json={"country": "FRA", "line": "A9", "amount": amount,
                                                               "reason": "looting"})
            assert r.status_code == 422, (amount, r.text)
            assert r.json()["error"]["field"] == "amount"
        r = http.post(f"/campaigns/{SLUG}/treasury", json={"country": "FRA", "line": "A9", "amount": 3,
                                                           "reason": "looting",
                                                           "visibility": {"scope": "countries", "countries": ["SPA"]}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "visibility.countries"
    assert ledger.campaign(cid).version == before


def test_a_retried_close_of_a_turn_replays_its_first_answer_instead_of_a_conflict(settings, ledger):
    cid = started(ledger)
    turn = ledger.campaign(cid).turn
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    with client(settings, ledger) as http:
        first = http.post(f"/campaigns/{SLUG}/turns/{turn}/close", headers={"Idempotency-Key": "close-1"})
        again = http.post(f"/campaigns/{SLUG}/turns/{turn}/close", headers={"Idempotency-Key": "close-1"})
        other = http.post(f"/campaigns/{SLUG}/turns/{turn}/close")
    assert first.status_code == 200, first.text
    assert again.status_code == 200 and again.json() == first.json()
    assert other.status_code == 409 and other.json()["error"]["field"] == "turn"


def test_the_same_key_with_another_context_is_another_request_not_a_replay(settings, ledger):
    started(ledger)
    body = {"country": "FRA", "line": "A9", "amount": 5, "reason": "looting", "context": {"where": "Picardie"}}
    with client(settings, ledger) as http:
        assert http.post(f"/campaigns/{SLUG}/treasury", json=body, headers={"Idempotency-Key": "k"}).status_code == 201
        changed = {**body, "context": {"where": "Caux"}}
        r = http.post(f"/campaigns/{SLUG}/treasury", json=changed, headers={"Idempotency-Key": "k"})
    assert r.status_code == 409 and r.json()["error"]["field"] == "Idempotency-Key"


def test_a_correction_sent_without_visibility_is_seen_by_those_who_see_the_original(settings, ledger):
    cid = started(ledger)
    hidden = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=7, reason="secret loot",
                                          vis={"scope": "countries", "countries": ["FRA"]})
    position = hidden.events[0]["position"]
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/corrections", json={"corrects": position, "reason": "it was 6",
                                                              "replacement": {"amount": 6}})
    assert r.status_code == 201, r.text
    correction = ledger.event_at(cid, r.json()["events"][0]["position"])
    assert correction.visibility == {"scope": "countries", "countries": ["FRA"]}
