"""Campaigns on the real board over HTTP: created from a shipped scenario, moves checked against the board's
borders (refused naming the step, or forced and recorded as such), the sample on the real corner, the map
drawn for a game master and for a player."""

from __future__ import annotations

import re

from ledger.application import visibility
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import MoveStack
from ledger.sample import GM, SLUG, ensure_sample
from tests.e2e.test_access import bearer, issue, make_client
from tests.e2e.test_commands_http import client, started


def types_of(ledger, cid):
    return [type(e).__name__ for e in ledger.history(cid)]


def test_a_campaign_is_created_on_the_1492_board_over_http_with_its_scenario(settings, ledger):
    with client(settings, ledger) as http:
        r = http.post("/campaigns", json={"slug": "europa", "name": "Europa 1492", "scenario": "eu-1492",
                                          "players": {"FRA": "bruno", "ENG": "alice"}})
        assert r.status_code == 201, r.text
        types = [e["type"] for e in r.json()["events"]]
        # Then, in the same append, the economic facts of the placement in 1492 (ledger/usecases/start.py).
        assert types[:2] == ["CampaignCreated", "ScenarioImported"] and "TradeFleetChanged" in types[2:]
        assert r.json()["data"]["board"] == "eu"
        campaign = http.get("/campaigns/europa").json()
        m = http.get("/campaigns/europa/map").json()
    assert campaign["countries"][:8] == ["ENG", "FRA", "SPA", "POR", "VEN", "TUR", "POL", "RUS"]
    assert campaign["players"] == {"ENG": "alice", "FRA": "bruno"}
    assert len(m["provinces"]) == 327 + 357 + 99
    picardie = m["provinces"]["Picardie"]
    assert (picardie["owner"], picardie["fortress"], picardie["income"]) == ("FRA", 2, 8)


def test_an_unknown_scenario_country_or_place_is_a_422_naming_the_field(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        def error(r):
            assert r.status_code == 422, r.text
            return r.json()["error"]["field"], r.json()["error"]["message"]

        field, message = error(http.post("/campaigns", json={"slug": "x", "name": "X", "scenario": "eu-1493"}))
        assert field == "scenario" and "eu-1493" in message and "eu-1492" in message
        field, _ = error(http.post("/campaigns", json={"slug": "x", "name": "X", "scenario": "eu-1492",
                                                       "countries": ["ENG"]}))
        assert field == "countries"
        field, message = error(http.post("/campaigns", json={"slug": "x", "name": "X", "scenario": "sample-real",
                                                             "players": {"SPA": "carla"}}))
        assert field == "players" and "'SPA'" in message
        field, message = error(http.post(f"/campaigns/{SLUG}/map/moves", json={
            "stack": "FRA-1", "origin": "Normandie", "via": ["Kaux"], "destination": "Picardie"}))
        assert field == "via[0]" and "Kaux" in message
        field, _ = error(http.post(f"/campaigns/{SLUG}/map/control", json={"province": "Calais",
                                                                          "controller": "ENG"}))
        assert field == "province"
        field, _ = error(http.post(f"/campaigns/{SLUG}/map/control", json={"province": "Picardie",
                                                                          "controller": "SPA"}))
        assert field == "controller"
    assert ledger.campaign(cid).version == before
    assert "x" not in [c.slug for c in ledger.campaigns()]


def test_the_sample_lands_in_picardie_over_the_manche_and_retreats_through_caux(settings, ledger):
    cid = started(ledger)
    moves = {e.stack: e for e in ledger.history(cid) if type(e).__name__ == "StackMoved"}
    assert moves["ENG-1"].path == ["Kent", "Manche", "Picardie"]
    assert moves["FRA-1"].path == ["Picardie", "Caux", "Normandie"]  # Picardie does not border Normandie
    assert all(m.forced is None for m in moves.values())
    with client(settings, ledger) as http:
        m = http.get(f"/campaigns/{SLUG}/map").json()
        lines = [r["summary"] for r in http.get(f"/campaigns/{SLUG}/turns/1/timeline").json()]
    assert m["stacks"]["FRA-1"]["location"] == "Normandie" and m["stacks"]["ENG-1"]["location"] == "Picardie"
    assert any("stack FRA-1 moved Picardie → Caux → Normandie (retreat after the battle of Picardie)" in line
               for line in lines), lines
    picardie = m["provinces"]["Picardie"]
    assert (picardie["owner"], picardie["controller"], picardie["fortress"], picardie["income"]) == (
        "FRA", "ENG", 2, 8)


def test_a_move_that_skips_a_border_or_starts_elsewhere_is_refused_naming_the_step(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        def refused(body, status=422):
            r = http.post(f"/campaigns/{SLUG}/map/moves", json=body)
            assert r.status_code == status, r.text
            return r.json()["error"]["field"], r.json()["error"]["message"]

        field, message = refused({"stack": "FRA-1", "origin": "Normandie", "destination": "Picardie"})
        assert field == "destination"
        assert "step 1, Normandie → Picardie" in message and "share no border on board 'eu'" in message
        field, message = refused({"stack": "FRA-1", "origin": "Normandie", "via": ["Caux", "Kent"],
                                  "destination": "Wessex"})
        assert field == "via[1]" and "step 2, Caux → Kent" in message
        field, message = refused({"stack": "FRA-1", "origin": "Picardie", "via": ["Caux"],
                                  "destination": "Normandie"}, status=409)
        assert field == "origin" and "FRA-1 is in Normandie, not in Picardie" in message
        # A fleet sails between sea zones and coastal provinces: Cornwall to Wessex is overland.
        field, message = refused({"stack": "ENG-F1", "origin": "Celtique", "via": ["Cornwall"],
                                  "destination": "Wessex"})
        assert field == "destination" and "never overland" in message
    assert ledger.campaign(cid).version == before


def test_a_forced_move_is_recorded_as_forced_with_what_the_checks_said(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/moves", json={
            "stack": "FRA-1", "origin": "Normandie", "destination": "Picardie", "reason": "relief of Picardie",
            "forced_reason": "the game master allows the crossing of the Seine at Rouen"})
        assert r.status_code == 201, r.text
        m = http.get(f"/campaigns/{SLUG}/map").json()
        [line] = [r["summary"] for r in http.get(f"/campaigns/{SLUG}/turns/2/timeline").json()][-1:]
    assert line.endswith("stack FRA-1 moved Normandie → Picardie (relief of Picardie); forced by the game master: "
                         "the game master allows the crossing of the Seine at Rouen")
    [moved] = [e for e in ledger.history(cid)][-1:]
    assert moved.forced == {"reason": "the game master allows the crossing of the Seine at Rouen",
                            "refused": ["step 1, Normandie → Picardie: Normandie and Picardie share no border "
                                        "on board 'eu'"]}
    assert moved.path == ["Normandie", "Picardie"] and m["stacks"]["FRA-1"]["location"] == "Picardie"
    # The next move starts where the forced one put the stack.
    ledger.submit(cid, MoveStack, stack="FRA-1", origin="Picardie", destination="Caux", actor=GM)


def test_a_struck_move_puts_the_stack_back_for_the_next_origin_check(settings, ledger):
    cid = started(ledger)
    moved = ledger.submit(cid, MoveStack, stack="FRA-1", origin="Normandie", destination="Caux", actor=GM)
    ledger.record_correction(cid, corrects=moved.events[0]["position"], reason="FRA-1 never left", actor=GM)
    ledger.submit(cid, MoveStack, stack="FRA-1", origin="Normandie", destination="Manche", actor=GM)


def svg_of(http, headers, at=None):
    r = http.get(f"/campaigns/{SLUG}/map.svg" + (f"?at={at}" if at is not None else ""), headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("image/svg+xml")
    return r.text


def location_in(svg: str, stack: str) -> str:
    [where] = re.findall(rf'data-stack="{stack}" data-location="([^"]+)"', svg)
    return where


def test_the_map_is_drawn_for_a_game_master_with_the_move_of_the_step(settings, ledger):
    cid = started(ledger)
    retreat = next(e.position for e in ledger.history(cid) if getattr(e, "stack", None) == "FRA-1")
    http = make_client(settings, ledger)
    gm = bearer(issue(ledger, cid, "gm"))
    at_retreat = svg_of(http, gm, retreat)
    assert location_in(at_retreat, "FRA-1") == "Normandie"
    assert 'class="stack moved" data-stack="FRA-1"' in at_retreat and 'class="moved-path"' in at_retreat
    assert at_retreat.count('data-name="Caux"') == 1 and 'data-name="Kent"' in at_retreat
    before = svg_of(http, gm, retreat - 1)
    assert location_in(before, "FRA-1") == "Picardie" and 'class="moved-path"' not in before
    # Picardie changed hands later in the turn: ENG controls it, FRA's ownership shows as hatching.
    head = svg_of(http, gm)
    assert 'data-name="Picardie" data-kind="province" data-owner="FRA" data-controller="ENG"' in head
    assert 'fill="url(#hatch-FRA)"' in head
    r = http.get(f"/campaigns/{SLUG}/map.svg?at=100000", headers=gm)
    assert r.status_code == 422 and r.json()["error"]["field"] == "at"


def test_a_player_does_not_see_a_hidden_move_on_the_map(settings, ledger):
    cid = started(ledger)
    hidden = ledger.submit(cid, MoveStack, stack="FRA-1", origin="Normandie", destination="Caux", actor=GM,
                           vis=visibility("countries", ["FRA"])).events[0]["position"]
    http = make_client(settings, ledger)
    eng, fra = bearer(issue(ledger, cid, "player", "ENG")), bearer(issue(ledger, cid, "player", "FRA"))
    for at in (hidden, None):
        seen_by_eng = svg_of(http, eng, at)
        assert location_in(seen_by_eng, "FRA-1") == "Normandie"  # where ENG last saw it
        assert 'class="moved-path"' not in seen_by_eng and "stack moved" not in seen_by_eng
    assert location_in(svg_of(http, fra, hidden), "FRA-1") == "Caux"
    assert 'class="moved-path"' in svg_of(http, fra, hidden)


def test_the_sample_is_created_once_and_verifies(ledger):
    ensure_sample(ledger)
    ensure_sample(ledger)
    cid = campaign_id(SLUG)
    assert types_of(ledger, cid)[:2] == ["CampaignCreated", "ScenarioImported"]
    assert ledger.verify(cid).intact


BATTLE = {"attacker": {"technology": "MUS", "ld": 5, "army_class": "iv", "class_size": 2, "leader_man": 3,
                       "country": "ENG"},
          "defender": {"technology": "MED", "ld": 5, "army_class": "iv", "class_size": 2, "leader_man": 4,
                       "country": "FRA"},
          "period": 2, "attacker_phasing_not_intercepted": False}
# No stacks named: the sample's server dice make its stacks' sizes vary, and this test is about the ground.
AT_NORMANDIE = {"where": "Normandie"}
DICE = [[10], [1], [10], [1], [10]]


def test_a_battle_typed_in_a_terrain_the_board_contradicts_is_refused_unless_overridden(settings, ledger):
    cid = started(ledger)
    before = ledger.campaign(cid).version
    with client(settings, ledger) as http:
        def ruling(terrain, **extra):
            return http.post(f"/campaigns/{SLUG}/rulings", json={
                "procedure": "M19", "inputs": {**BATTLE, "terrain": terrain}, "context": AT_NORMANDIE,
                "manual_dice": DICE, **extra})

        r = ruling("plain")
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["field"] == "inputs.terrain"
        assert "'plain'" in error["message"] and "Normandie is dense_forest" in error["message"]
        r = ruling("western_forest", overrides={"terrain": "no contradiction"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "overrides.terrain", r.text
        assert ledger.campaign(cid).version == before

        # Any forest fits the board's dense forest: which forest is the game master's reading.
        r = ruling("western_forest")
        assert r.status_code == 201, r.text
        assert "overridden" not in r.json()["data"]["ruling"]
        r = ruling("plain", overrides={"terrain": "fought in the open fields by the Seine"})
        assert r.status_code == 201, r.text
    assert r.json()["data"]["ruling"]["overridden"] == [
        {"field": "terrain", "typed": "plain", "board": "dense_forest",
         "reason": "fought in the open fields by the Seine"}]
    assert ledger.recompute(cid) == []


def test_a_province_changes_owner_on_the_map_the_timeline_and_the_picture(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{SLUG}/map/owner", json={"province": "Picardie", "owner": "SPA"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "owner"
        r = http.post(f"/campaigns/{SLUG}/map/owner", json={"province": "Picardie", "owner": "ENG",
                                                           "previous": "FRA", "reason": "ceded at the peace"})
        assert r.status_code == 201, r.text
        position = r.json()["events"][0]["position"]
        picardie = http.get(f"/campaigns/{SLUG}/map").json()["provinces"]["Picardie"]
        [line] = [t["summary"] for t in http.get(f"/campaigns/{SLUG}/turns/2/timeline").json()][-1:]
        drawn = http.get(f"/campaigns/{SLUG}/map.svg?at={position}").text
    assert (picardie["owner"], picardie["controller"]) == ("ENG", "ENG")
    assert line.endswith("Picardie now owned by ENG from FRA (ceded at the peace)")
    assert 'class="place changed" data-name="Picardie"' in drawn and 'fill="url(#hatch-FRA)"' not in drawn
    assert ledger.campaign(cid).version == position
