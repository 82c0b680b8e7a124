"""The map commands of a turn over HTTP, on both stores: split and merge, units and leaders (I3), sieges, peace,
and players commanding their own stacks where the campaign allows it. Each is an event, on the map and in the
timeline in words; a refusal names the field and appends nothing.

The sample campaign (ledger/scenarios/sample.yaml) after its first turn: ENG-1 (Talbot) in Picardie, FRA-1
(La Trémoille) in Normandie, ENG-F1 in Celtique; England at war with France. Its battle is played with
the sample's fixed dice: FRA-1 is left with 5 LD.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from api.main import create_app
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, SLUG, play_sample_turn, reach_phase
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-map-commands"
AUTH = {"Authorization": f"Bearer {ADMIN}"}
MAP = f"/campaigns/{SLUG}/map"


def client(settings, ledger) -> TestClient:
    return TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger), headers=AUTH)


def started(ledger):
    """The sample after its first turn, played with the sample's fixed dice (FRA-1 loses 3 of its 8 LD)."""
    import_scenario(ledger, load_text("sample"), slug=SLUG, name="Sample", source="sample.yaml", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    cid = campaign_id(SLUG)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid)
    return cid


def timeline(http, ledger, cid) -> list[str]:
    turn = ledger.campaign(cid).turn
    return [row["summary"] for row in http.get(f"/campaigns/{SLUG}/turns/{turn}/timeline").json()]


def refused(http, ledger, cid, path, body, status, field) -> str:
    before = ledger.campaign(cid).version
    r = http.post(path, json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["field"] == field, r.json()
    assert ledger.campaign(cid).version == before
    return r.json()["error"]["message"]


def test_a_stack_splits_into_a_new_stack_in_the_same_place_and_merges_back(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        ld = http.get(MAP).json()["stacks"]["ENG-1"]["units"]["LD"]
        r = http.post(f"{MAP}/stacks/split", json={"stack": "ENG-1", "new_stack": "ENG-2", "units": {"LD": 2},
                                                  "leaders": ["Talbot"], "reason": "detachment"})
        assert r.status_code == 201, r.text
        stacks = http.get(MAP).json()["stacks"]
        assert stacks["ENG-1"]["units"] == {"LD": ld - 2} and stacks["ENG-1"]["leaders"] == []
        assert stacks["ENG-2"] == {"country": "ENG", "location": "Picardie", "units": {"LD": 2},
                                   "leaders": ["Talbot"]}
        assert "2 LD, Talbot of stack ENG-1 form stack ENG-2 in Picardie (detachment)" in timeline(http, ledger, cid)[-1]
        assert http.post(f"{MAP}/stacks/merge", json={"stack": "ENG-1", "merged": "ENG-2"}).status_code == 201
        stacks = http.get(MAP).json()["stacks"]
        assert "ENG-2" not in stacks and stacks["ENG-1"]["units"] == {"LD": ld}
        assert stacks["ENG-1"]["leaders"] == ["Talbot"]
        assert "stack ENG-2 joins stack ENG-1 in Picardie" in timeline(http, ledger, cid)[-1]


def test_a_split_takes_no_more_than_the_stack_holds_and_a_new_id_of_its_own(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        # FRA-1 lost LD in the sample's battle (a ruling's effect): the write side counts them as the map does.
        ld = http.get(MAP).json()["stacks"]["FRA-1"]["units"]["LD"]
        assert ld == 5
        message = refused(http, ledger, cid, f"{MAP}/stacks/split",
                          {"stack": "FRA-1", "new_stack": "FRA-2", "units": {"LD": ld + 1}}, 422, "units.LD")
        assert f"FRA-1 has {ld} LD, not {ld + 1}" in message
        refused(http, ledger, cid, f"{MAP}/stacks/split", {"stack": "FRA-1", "new_stack": "ENG-1", "units": {"LD": 1}},
                409, "new_stack")
        refused(http, ledger, cid, f"{MAP}/stacks/split", {"stack": "FRA-1", "new_stack": "FRA-2",
                                                           "leaders": ["Talbot"]}, 422, "leaders[0]")
        refused(http, ledger, cid, f"{MAP}/stacks/split", {"stack": "FRA-1", "new_stack": "FRA-2"}, 422, "leaders")


def test_stacks_merge_only_in_the_same_place_and_the_refusal_names_merged(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        assert http.post(f"{MAP}/stacks/split", json={"stack": "ENG-1", "new_stack": "ENG-2",
                                                      "units": {"LD": 1}}).status_code == 201
        assert http.post(f"{MAP}/moves", json={"stack": "ENG-2", "origin": "Picardie",
                                               "destination": "Caux"}).status_code == 201
        message = refused(http, ledger, cid, f"{MAP}/stacks/merge", {"stack": "ENG-1", "merged": "ENG-2"}, 409,
                          "merged")
        assert message == "ENG-2 is in Caux, ENG-1 in Picardie: stacks merge in the same place"
        refused(http, ledger, cid, f"{MAP}/stacks/merge", {"stack": "ENG-1", "merged": "Nobody"}, 422, "merged")


def test_leaders_arrive_and_leave_by_turn_as_i3_says(settings, ledger):
    cid = started(ledger)
    turn = ledger.campaign(cid).turn
    with client(settings, ledger) as http:
        ld = http.get(MAP).json()["stacks"]["FRA-1"]["units"]["LD"]
        r = http.post(f"{MAP}/stacks/change", json={
            "stack": "FRA-1", "units": {"LD": 2},
            "arriving": [{"name": "Gié", "fire": 1, "shock": 2, "manoeuvre": 3, "siege": 1, "departs": 9}],
            "departing": ["La Trémoille"], "reason": "reinforcements and leaders of the turn"})
        assert r.status_code == 201, r.text
        doc = http.get(MAP).json()
        assert doc["stacks"]["FRA-1"]["units"] == {"LD": ld + 2} and doc["stacks"]["FRA-1"]["leaders"] == ["Gié"]
        assert doc["leaders"]["Gié"]["arrived"] == turn and doc["leaders"]["Gié"]["departs"] == 9
        assert doc["leaders"]["La Trémoille"]["status"] == "departed"
        assert doc["leaders"]["La Trémoille"]["departed"] == turn
        assert timeline(http, ledger, cid)[-1].endswith(
            f"stack FRA-1: +2 LD; Gié arrives (leaves in turn 9); La Trémoille leaves the game in turn {turn} "
            "(reinforcements and leaders of the turn)")
        refused(http, ledger, cid, f"{MAP}/stacks/change", {"stack": "FRA-1", "arriving": [{"name": "Talbot"}],
                                                            "reason": "r"}, 409, "arriving[0].name")
        refused(http, ledger, cid, f"{MAP}/stacks/change", {"stack": "FRA-1", "units": {"LD": -(ld + 3)},
                                                            "reason": "r"}, 422, "units.LD")


def test_a_siege_needs_its_besiegers_in_the_province_and_ends_taken_lifted_or_relieved(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        message = refused(http, ledger, cid, f"{MAP}/sieges", {"province": "Normandie", "besiegers": ["ENG-1"]},
                          409, "besiegers[0]")
        assert message == "ENG-1 is in Picardie, not in Normandie: a besieger stands in the province"
        refused(http, ledger, cid, f"{MAP}/sieges/end", {"province": "Picardie", "outcome": "taken"}, 409, "province")
        refused(http, ledger, cid, f"{MAP}/sieges", {"province": "Atlantis", "besiegers": ["ENG-1"]}, 422,
                "province")
        assert http.post(f"{MAP}/sieges", json={"province": "Picardie", "besiegers": ["ENG-1"]}).status_code == 201
        assert http.get(MAP).json()["sieges"]["Picardie"]["besiegers"] == ["ENG-1"]
        svg = http.get(f"/campaigns/{SLUG}/map.svg").text
        assert 'class="siege" data-province="Picardie"' in svg and "Picardie besieged by ENG-1" in svg
        assert "siege of Picardie begins, besieged by ENG-1" in timeline(http, ledger, cid)[-1]
        refused(http, ledger, cid, f"{MAP}/sieges/end", {"province": "Picardie", "outcome": "stormed"}, 422,
                "outcome")
        assert http.post(f"{MAP}/sieges/end", json={"province": "Picardie", "outcome": "relieved"}).status_code == 201
        assert "Picardie" not in http.get(MAP).json()["sieges"]
        assert 'class="siege"' not in http.get(f"/campaigns/{SLUG}/map.svg").text
        assert "siege of Picardie over, relieved by an army" in timeline(http, ledger, cid)[-1]


def test_peace_ends_a_war_in_progress_and_a_war_that_does_not_exist_is_refused(settings, ledger):
    cid = started(ledger)
    reach_phase(ledger, cid, "peace")  # a peace is the peace phase's
    with client(settings, ledger) as http:
        message = refused(http, ledger, cid, f"{MAP}/peace", {"attackers": ["FRA"], "defenders": ["ENG"]}, 409,
                          "defenders")
        assert "no war of FRA against ENG is in progress (wars in progress: ENG against FRA)" in message
        refused(http, ledger, cid, f"{MAP}/peace", {"attackers": ["ENG"], "defenders": ["XYZ"]}, 422, "defenders")
        assert http.post(f"{MAP}/peace", json={"attackers": ["ENG"], "defenders": ["FRA"],
                                               "reason": "treaty of Étaples"}).status_code == 201
        [war] = http.get(f"/campaigns/{SLUG}/victory").json()["wars"]
        assert war["ended"] == ledger.campaign(cid).version
        assert timeline(http, ledger, cid)[-1].endswith("peace: ENG and FRA (treaty of Étaples)")
        refused(http, ledger, cid, f"{MAP}/peace", {"attackers": ["ENG"], "defenders": ["FRA"]}, 409, "defenders")


def test_a_player_commands_their_own_stacks_only_where_the_campaign_allows_it(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        issued = http.post(f"/campaigns/{SLUG}/tokens", json={"role": "player", "country": "FRA", "holder": "bruno"})
        bruno = {"Authorization": f"Bearer {issued.json()['token']}"}
        move = {"stack": "FRA-1", "origin": "Normandie", "destination": "Caux"}
        r = http.post(f"{MAP}/moves", json=move, headers=bruno)
        assert r.status_code == 403 and r.json()["error"]["field"] == "Authorization"
        assert http.post(f"/campaigns/{SLUG}/settings", json={"settings": {"players_may_move": True},
                                                              "reason": "players move their own"}).status_code == 201
        before = ledger.campaign(cid).version
        r = http.post(f"{MAP}/moves", json={"stack": "ENG-1", "origin": "Picardie", "destination": "Caux"},
                      headers=bruno)
        assert r.status_code == 403 and r.json()["error"]["field"] == "stack"
        r = http.post(f"{MAP}/moves", json={**move, "destination": "Picardie", "forced_reason": "I say so"},
                      headers=bruno)
        assert r.status_code == 403 and r.json()["error"]["field"] == "forced_reason"
        r = http.post(f"{MAP}/control", json={"province": "Caux", "controller": "FRA"}, headers=bruno)
        assert r.status_code == 403
        assert ledger.campaign(cid).version == before
        assert http.post(f"{MAP}/moves", json=move, headers=bruno).status_code == 201
        [event] = [e for e in ledger.history(cid, after=before)]
        assert (type(event).__name__, event.actor["id"], event.destination) == ("StackMoved", "bruno", "Caux")


def test_a_correction_restates_a_siege_end_with_fields_of_its_own_type(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        http.post(f"{MAP}/sieges", json={"province": "Picardie", "besiegers": ["ENG-1"]})
        http.post(f"{MAP}/sieges/end", json={"province": "Picardie", "outcome": "lifted"})
        at = ledger.campaign(cid).version
        r = http.post(f"/campaigns/{SLUG}/corrections", json={"corrects": at, "reason": "r",
                                                              "replacement": {"outcome": "stormed"}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "replacement.outcome"
        r = http.post(f"/campaigns/{SLUG}/corrections", json={"corrects": at, "reason": "it was relieved",
                                                              "replacement": {"outcome": "relieved"}})
        assert r.status_code == 201, r.text


def test_the_forces_wars_and_sieges_survive_a_snapshot_and_a_cold_load(settings, ledger):
    import orjson

    from ledger.application import Ledger
    from ledger.domain.campaign import CampaignState

    cid = started(ledger)
    with client(settings, ledger) as http:
        http.post(f"{MAP}/stacks/split", json={"stack": "ENG-1", "new_stack": "ENG-2", "units": {"LD": 1}})
        http.post(f"{MAP}/sieges", json={"province": "Picardie", "besiegers": ["ENG-2"]})
    state = ledger.campaign(cid)
    assert state.military["sieges"] == {"Picardie": ["ENG-2"]} and state.military["wars"] == [[["ENG"], ["FRA"]]]
    again = CampaignState.from_dict(orjson.loads(orjson.dumps(state.to_dict())))
    assert again.military == state.military
    # A snapshot written before the field existed holds none: the application folds the history instead.
    older = {k: v for k, v in state.to_dict().items() if k != "military"}
    assert CampaignState.from_dict(older).military is None
    cold = Ledger(settings)
    try:
        assert cold.campaign(cid).military == state.military
    finally:
        cold.close()


def test_a_fortress_level_changes_with_the_level_before_recorded(settings, ledger):
    cid = started(ledger)
    with client(settings, ledger) as http:
        refused(http, ledger, cid, f"{MAP}/fortress", {"province": "Picardie", "level": 6}, 422, "level")
        refused(http, ledger, cid, f"{MAP}/fortress", {"province": "Manche", "level": 1}, 422, "province")
        r = http.post(f"{MAP}/fortress", json={"province": "Picardie", "level": 0, "reason": "razed by the English"})
        assert r.status_code == 201, r.text
        assert http.get(MAP).json()["provinces"]["Picardie"]["fortress"] == 0
        assert timeline(http, ledger, cid)[-1].endswith("Picardie: fortress level 0 (was 2) (razed by the English)")
        http.post(f"{MAP}/fortress", json={"province": "Picardie", "level": 1, "reason": "rebuilt"})
        assert timeline(http, ledger, cid)[-1].endswith("Picardie: fortress level 1 (was 0) (rebuilt)")


def test_a_new_stack_is_raised_with_its_leaders_arriving_this_turn(settings, ledger):
    cid = started(ledger)
    turn = ledger.campaign(cid).turn
    with client(settings, ledger) as http:
        refused(http, ledger, cid, f"{MAP}/stacks", {"stack": "FRA-1", "country": "FRA", "location": "Caux",
                                                     "units": {"LD": 1}}, 409, "stack")
        refused(http, ledger, cid, f"{MAP}/stacks", {"stack": "FRA-2", "country": "SPA", "location": "Caux",
                                                     "units": {"LD": 1}}, 422, "country")
        refused(http, ledger, cid, f"{MAP}/stacks", {"stack": "FRA-2", "country": "FRA", "location": "Caux"}, 422,
                "leaders")
        refused(http, ledger, cid, f"{MAP}/stacks", {"stack": "FRA-2", "country": "FRA", "location": "Caux",
                                                     "leaders": [{"name": "Talbot"}]}, 409, "leaders[0].name")
        r = http.post(f"{MAP}/stacks", json={"stack": "FRA-2", "country": "FRA", "location": "Ile-de-France",
                                             "units": {"LD": 4}, "leaders": [{"name": "Gié", "manoeuvre": 3}],
                                             "reason": "levy of Paris"})
        assert r.status_code == 201, r.text
        doc = http.get(MAP).json()
        assert doc["stacks"]["FRA-2"] == {"country": "FRA", "location": "Ile-de-France", "units": {"LD": 4},
                                          "leaders": ["Gié"]}
        assert doc["leaders"]["Gié"]["arrived"] == turn and doc["leaders"]["Gié"]["values"]["manoeuvre"] == 3
        assert timeline(http, ledger, cid)[-1].endswith(
            "stack FRA-2 (FRA) raised in Ile-de-France: 4 LD, Gié (levy of Paris)")
        r = http.post(f"{MAP}/moves", json={"stack": "FRA-2", "origin": "Ile-de-France", "destination": "Caux"})
        assert r.status_code == 201, r.text


def test_a_players_command_the_game_masters_map_cannot_take_is_held_there_and_listed_for_the_game_master_only(
        settings, ledger):
    """A stack raised unseen by the English player takes the id they then split a detachment to: they are
    answered as if it did not exist, the game master's map keeps its stack (read side and write side) and
    lists the held split; the player's map shows their own new stack and no list."""
    cid = started(ledger)
    with client(settings, ledger) as http:
        http.post(f"/campaigns/{SLUG}/settings", json={"settings": {"players_may_move": True}, "reason": "r"})
        r = http.post(f"{MAP}/stacks", json={"stack": "FRA-SECRET", "country": "FRA", "location": "Ile-de-France",
                                             "units": {"LD": 3}, "visibility": {"scope": "gm"}})
        assert r.status_code == 201, r.text
        issued = http.post(f"/campaigns/{SLUG}/tokens", json={"role": "player", "country": "ENG", "holder": "alice"})
        alice = {"Authorization": f"Bearer {issued.json()['token']}"}
        ld = http.get(MAP, headers=alice).json()["stacks"]["ENG-1"]["units"]["LD"]
        r = http.post(f"{MAP}/stacks/split", json={"stack": "ENG-1", "new_stack": "FRA-SECRET", "units": {"LD": 1}},
                      headers=alice)
        assert r.status_code == 201, r.text
        position = r.json()["events"][0]["position"]
        gm = http.get(MAP).json()
        assert gm["stacks"]["FRA-SECRET"] == {"country": "FRA", "location": "Ile-de-France", "units": {"LD": 3},
                                              "leaders": []}
        assert gm["stacks"]["ENG-1"]["units"]["LD"] == ld
        assert gm["held"] == [{"position": position, "type": "StackSplit", "actor": "alice", "country": "ENG",
                               "why": "FRA-SECRET already names a stack on the map"}]
        mine = http.get(MAP, headers=alice).json()
        assert "held" not in mine and mine["stacks"]["FRA-SECRET"]["country"] == "ENG"
        assert mine["stacks"]["ENG-1"]["units"]["LD"] == ld - 1
        assert ledger.campaign(cid).held[str(position)]["why"] == "FRA-SECRET already names a stack on the map"
        for headers in ({}, alice):  # the map as of the held split, and drawn, for both
            at = http.get(f"/campaigns/{SLUG}/state", params={"at": position}, headers=headers)
            assert at.status_code == 200 and "FRA-SECRET" in at.json()["map"]["stacks"]
            assert http.get(f"{MAP}.svg", params={"at": position}, headers=headers).status_code == 200
