"""The pfc and his rulesets through the HTTP API and the application, on both stores (issue: two more rulesets).

A campaign declares its ruleset at creation; its rulings are resolved with
server dice (1d10 for PF combat, 1d6 elsewhere, 2d6 for HIS interception) and
recompute; the weather's Rain★ is carried into the next C6 ruling.
"""

from __future__ import annotations

from ledger.domain.campaign import campaign_id
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from tests.e2e.test_access import ADMIN, make_client

AUTH = {"Authorization": f"Bearer {ADMIN}"}


def start(client, slug: str, ruleset: str, countries: list[str]) -> str:
    r = client.post("/campaigns", json={"slug": slug, "name": slug, "ruleset": ruleset, "countries": countries},
                    headers=AUTH)
    assert r.status_code == 201, r.text
    assert client.post(f"/campaigns/{slug}/turns", headers=AUTH).status_code == 201
    return slug


def test_a_pfc_campaign_records_a_combat_sequence_with_a_d10_per_side(settings, ledger):
    client = make_client(settings, ledger)
    slug = start(client, "austerlitz", "pfc", ["FRA", "AUT"])
    inputs = {"attacker_pf": 20, "defender_pf": 12, "attacker_cohesions": [3], "defender_cohesions": [3],
              "terrain": "other", "sequence": 1}
    r = client.post(f"/campaigns/{slug}/rulings", json={"procedure": "C1", "inputs": inputs}, headers=AUTH)
    assert r.status_code == 201, r.text
    ruling = r.json()["data"]["ruling"]
    assert ruling["ruleset"] == "pfc" and ruling["procedure"] == "C1"
    dice = [d for s in ruling["steps"] for d in s["dice"]] or ruling["dice"]
    assert dice and all(d["sides"] == 10 and d["index"] is not None for d in dice)
    assert client.get(f"/campaigns/{slug}/verify", headers=AUTH).json()["intact"] is True
    assert ledger.recompute(campaign_id(slug)) == []


def test_rain_star_in_may_makes_the_next_turn_mud_without_a_die(settings, ledger):
    client = make_client(settings, ledger)
    slug = start(client, "wagram", "pfc", ["FRA", "AUT"])
    # May has no modifier; a 6 reads "Pluie *" in the April-June column.
    r = client.post(f"/campaigns/{slug}/rulings", json={"procedure": "C6", "inputs": {"month": 5},
                                                        "manual_dice": [[6]]}, headers=AUTH)
    assert r.status_code == 201, r.text
    first = r.json()
    assert first["data"]["ruling"]["outcome"]["carry"] == {"forced_mud": True}
    r = client.post(f"/campaigns/{slug}/rulings", json={"procedure": "C6", "inputs": {"month": 6}}, headers=AUTH)
    assert r.status_code == 201, r.text
    second = r.json()["data"]["ruling"]
    assert second["inputs"] == {"month": 6, "forced_mud": True}
    assert second["carried"] == {"forced_mud": first["events"][0]["position"]}
    assert second["outcome"]["weather"] == "mud" and second["dice"] == []
    # The mud turn carries nothing: the turn after rolls again.
    third = client.post(f"/campaigns/{slug}/rulings", json={"procedure": "C6", "inputs": {"month": 7}},
                        headers=AUTH).json()["data"]["ruling"]
    assert third["inputs"]["forced_mud"] is False and len(third["dice"]) == 1 and third["dice"][0]["sides"] == 6


def test_a_his_interception_rolls_2d6_and_a_restriction_is_a_422_naming_the_field(settings, ledger):
    client = make_client(settings, ledger)
    slug = start(client, "pavia", "his", ["OTT", "HAP", "FRA"])
    attempt = {"power": "Hapsburg", "from_space": "Vienna", "formation": {"land_units": 3},
               "destination_control": "enemy"}
    inputs = {"moving_power": "Ottoman", "moving_formation": {"land_units": 4, "cavalry": 1},
              "destination": "Buda", "attempts": [attempt]}
    r = client.post(f"/campaigns/{slug}/rulings", json={"procedure": "H2", "inputs": inputs}, headers=AUTH)
    assert r.status_code == 201, r.text
    ruling = r.json()["data"]["ruling"]
    dice = ruling["dice"] or [d for s in ruling["steps"] for d in s["dice"]]
    assert [(d["sides"], d["count"]) for d in dice] == [(6, 2)]
    assert ledger.recompute(campaign_id(slug)) == []
    before = ledger.campaign(campaign_id(slug)).version
    bad = client.post(f"/campaigns/{slug}/rulings", headers=AUTH, json={
        "procedure": "H2", "inputs": {**inputs, "attempts": [{**attempt, "across_pass": True}]}})
    assert bad.status_code == 422, bad.text
    assert bad.json()["error"]["field"] == "inputs.attempts[0].across_pass"
    assert bad.json()["error"]["rule"] == "his:H2"
    assert ledger.campaign(campaign_id(slug)).version == before


def test_a_ruling_context_names_where_it_happened_and_the_stacks_its_roles_mean(settings, ledger):
    """The map places a ruling's effects with context.where and context.stacks (projections.map)."""
    client = make_client(settings, ledger)
    cid, _ = import_scenario(ledger, load_text("sample"), slug="ctx", actor=GM)
    assert client.post("/campaigns/ctx/turns", headers=AUTH).status_code == 201
    for phase in ("events", "diplomacy", "incomes"):  # M13 is the military phase's
        assert client.post(f"/campaigns/ctx/phases/{phase}/close", headers=AUTH).status_code == 201
    body = {"procedure": "M13", "inputs": {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4,
                                           "blockader_nd": 6, "blockader_all_nwd": True,
                                           "blockader_technology": "GAL"},
            "context": {"phase": "military", "where": "Manche", "stacks": {"moving stack": "ENG-F1"}}}
    r = client.post("/campaigns/ctx/rulings", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    position = r.json()["events"][0]["position"]
    assert ledger.event_at(cid, position).context["stacks"] == {"moving stack": "ENG-F1"}
    assert ledger.event_at(cid, position).context["where"] == "Manche"
    too_long = {**body, "context": {"where": "x" * 81}}
    bad = client.post("/campaigns/ctx/rulings", json=too_long, headers=AUTH)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "context.where"
