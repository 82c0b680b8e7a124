"""H1 Land movement procedure (his-land-movement.ru.txt §Процедура сухопутного движения), CLI and explain."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, Ruling, get_ruleset
from ledger.rules.explain import explain

from .conftest import formations

H1 = get_ruleset("his").get("H1")
STEP_NAMES = ["1. declare formation", "2. declare destination", "3. spend command points", "4. response cards",
              "5. interceptions", "6. avoid battle", "7. withdraw into fortifications", "8. field battle"]
SULEIMAN = {"land_units": 4, "cavalry": 2, "leaders": [{"name": "Suleiman", "battle_rating": 2}]}


def interceptor(power="Hapsburg", from_space="Vienna", **kw):
    return {"power": power, "from_space": from_space, "destination_control": kw.pop("destination_control", "enemy"),
            "formation": kw.pop("formation", {"land_units": 3, "leaders": [{"name": "Ferdinand", "battle_rating": 1}]}),
            **kw}


def defender(power="Hapsburg", units=2, avoid=None, withdraw=False, **kw):
    return {"power": power, "formation": kw.pop("formation", {"land_units": units}), "avoid": avoid,
            "withdraw": withdraw}


def avoid(to_space="Pressburg", gm_result="failure", **kw):
    return {"to_space": to_space, "gm_result": gm_result, "to_space_control": kw.pop("to_space_control", "own"), **kw}


def move(**kw):
    return {"moving_power": "Ottoman", "formation": SULEIMAN, "from_space": "Belgrade", "to_space": "Buda",
            "destination_adjacent": True, "cp_available": 3, **kw}


# --------------------------------------------------------------------------- worked scenarios


def test_land_move_worked_scenario_failed_interception_then_withdrawal():
    """Suleiman (4 units, 2 cavalry) moves Belgrade → Buda (fortified, 2 Hapsburg units inside the space).
    Ferdinand intercepts from Vienna: 3+2 +1 (rating) −1 (Ottoman cavalry) = 5 < 9, fails. The Hapsburg units try
    to avoid battle to Pressburg and fail (GM reading), then withdraw into Buda's fortifications (2 ≤ 4): no battle."""
    r = H1.resolve(move(destination_fortified=True,
                        interceptions=[interceptor(friendly_units_in_destination=True)],
                        defenders=[defender(avoid=avoid(), withdraw=True)]), FixedDice([[3, 2]]))
    assert [s.name for s in r.steps] == STEP_NAMES
    s = {x.name[0]: x for x in r.steps}
    assert s["1"].outcome == {"formation": "4 units, 2 cavalry, Suleiman (2)", "from_space": "Belgrade"}
    assert s["3"].outcome == {"cp_cost": 1, "reason": "no mountain pass", "cp_left": 2}
    assert s["4"].outcome == {"card": None, "move_cancelled": False}
    assert s["5"].total == 5 and [m.value for m in s["5"].modifiers] == [1, -1]
    assert s["5"].modifiers[0].reason.startswith("Hapsburg from Vienna: best battle rating")
    assert s["5"].outcome["attempts"] == [{"power": "Hapsburg", "from_space": "Vienna", "rolled": True, "dice": [3, 2],
                                           "modifiers": 0, "total": 5, "success": False,
                                           "reason": "modified roll 5 < 9"}]
    assert s["5"].outcome["next_step"] == 6
    assert s["6"].outcome["attempts"] == [{"power": "Hapsburg", "to_space": "Pressburg", "success": False}]
    assert s["7"].outcome == {"group_units": 2, "limit": 4, "withdrawn": ["Hapsburg"], "stay_outside": [],
                              "units_outside": 0}
    assert s["8"].outcome["field_battle"] is False
    assert [e.kind for e in r.effects] == ["cp_spent", "formation_moved", "withdrew_into_fortifications"]
    assert r.gm_supplied == ("avoid battle result, Hapsburg to Pressburg: failure",)
    assert r.outcome == {"moved": True, "cp_spent": 1, "intercepted": False, "intercepting_power": None,
                         "avoided": [], "withdrawn": ["Hapsburg"], "captured_leaders": [], "field_battle": False}


def test_land_move_successful_interception_skips_avoid_and_withdraw_and_forces_battle():
    r = H1.resolve(move(destination_fortified=True, across_pass=True,
                        interceptions=[interceptor(friendly_units_in_destination=True, telescope=True)],
                        defenders=[defender(avoid=avoid(gm_result="success"), withdraw=True)]), FixedDice([[6, 2]]))
    s = {x.name[0]: x for x in r.steps}
    assert s["3"].outcome["cp_cost"] == 2
    assert s["5"].total == 6 + 2 + 1 - 1 + 1 and s["5"].outcome["intercepted"] is True
    assert s["6"].outcome == {"skipped": True, "reason": "an interception succeeded: go to step 8 (step 5)"}
    assert s["7"].outcome == {"skipped": True, "reason": "an interception succeeded: go to step 8 (step 5)"}
    assert s["8"].outcome["field_battle"] is True and s["8"].outcome["enemy_land_units"] == 5
    assert s["8"].outcome["against"] == ["Hapsburg"]
    assert [e.kind for e in r.effects] == ["cp_spent", "interception_succeeded", "formation_moved", "battle_forced"]
    assert r.gm_supplied == ()


def test_land_move_storms_thwarts_the_move_and_cp_stay_spent():
    dice = FixedDice([])
    r = H1.resolve(move(response_card="Storms", response_card_played_by="Hapsburg",
                        interceptions=[interceptor()], defenders=[defender()]), dice)
    assert [s.name for s in r.steps] == STEP_NAMES and dice.drawn == []
    assert r.steps[3].outcome == {"card": "Storms", "played_by": "Hapsburg", "move_cancelled": True}
    assert all(s.outcome == {"skipped": True, "reason": "the move action was thwarted by a response card (step 4)"}
               for s in r.steps[4:])
    assert [(e.kind, e.target) for e in r.effects] == [("cp_spent", None), ("stack_stopped", "Belgrade")]
    assert r.outcome["moved"] is False and r.outcome["cp_spent"] == 1


def test_land_move_into_empty_space_no_interception_no_battle():
    r = H1.resolve(move(), FixedDice([]))
    assert [s.outcome.get("reason") for s in r.steps[5:7]] == [
        "no enemy land units in the destination", "no enemy units left in the destination"]
    assert r.steps[7].outcome["field_battle"] is False
    assert [e.kind for e in r.effects] == ["cp_spent", "formation_moved"]


def test_land_move_defenders_that_neither_avoid_nor_withdraw_fight():
    r = H1.resolve(move(defenders=[defender(units=3)]), FixedDice([]))
    assert r.steps[5].outcome["reason"] == "no avoid-battle attempt declared (avoiding battle is voluntary)"
    assert r.steps[6].outcome == {"skipped": True, "reason": "the destination is not fortified"}
    assert r.steps[7].outcome["field_battle"] is True and r.effects[-1].kind == "battle_forced"


def test_land_move_successful_avoidance_leaves_no_battle():
    r = H1.resolve(move(defenders=[defender(avoid=avoid(gm_result="success"))]), FixedDice([]))
    assert r.outcome["avoided"] == ["Hapsburg"] and r.outcome["field_battle"] is False
    assert r.effects[-1].kind == "formation_moved" and r.effects[-1].target == "Pressburg"


def test_land_move_lone_leader_captured_in_unfortified_space():
    r = H1.resolve(move(defenders=[defender(formation={"leaders": [{"name": "Ferdinand", "battle_rating": 1}]})]),
                   FixedDice([]))
    assert r.outcome["captured_leaders"] == ["Ferdinand"] and r.outcome["field_battle"] is False
    assert [(e.kind, e.target) for e in r.effects][-1] == ("leader_captured", "Ferdinand")


def test_land_move_lone_leader_must_withdraw_in_fortified_space():
    lone = defender(formation={"leaders": [{"name": "Ferdinand", "battle_rating": 1}]})
    with pytest.raises(RulesError) as e:
        H1.resolve(move(destination_fortified=True, defenders=[lone]), FixedDice([]))
    assert e.value.field == "defenders[0].withdraw" and e.value.rule == "his:H4"
    r = H1.resolve(move(destination_fortified=True, defenders=[{**lone, "withdraw": True}]), FixedDice([]))
    assert r.outcome["withdrawn"] == ["Hapsburg"]


def test_land_move_withdrawal_limit_applies_after_failed_avoidance():
    d = [defender("Hapsburg", 3, avoid=avoid(gm_result="failure"), withdraw=True), defender("Papacy", 2)]
    with pytest.raises(RulesError) as e:
        H1.resolve(move(destination_fortified=True, defenders=d), FixedDice([]))
    assert e.value.field == "defenders[0].withdraw" and "has 5 land units" in str(e.value)
    d[0]["avoid"]["gm_result"] = "success"  # Hapsburg left: Papacy's 2 units fight (no withdrawal chosen)
    r = H1.resolve(move(destination_fortified=True, defenders=d), FixedDice([]))
    assert r.steps[6].outcome["group_units"] == 2 and r.steps[7].outcome["against"] == ["Papacy"]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("across_pass,cp,ok", [(False, 0, False), (False, 1, True), (True, 1, False), (True, 2, True)])
def test_land_move_costs_1_cp_or_2_across_a_pass(across_pass, cp, ok):
    data = move(across_pass=across_pass, cp_available=cp)
    if ok:
        r = H1.resolve(data, FixedDice([]))
        assert r.steps[2].outcome["cp_left"] == 0 and r.effects[0].amount == (2 if across_pass else 1)
    else:
        with pytest.raises(RulesError) as e:
            H1.resolve(data, FixedDice([]))
        assert e.value.field == "cp_available" and e.value.rule == "his:H1"
        assert f"costs {2 if across_pass else 1} CP" in str(e.value)


@pytest.mark.parametrize(
    "extra,field,rule,message",
    [
        ({"destination_adjacent": False}, "destination_adjacent", "his:H1", "must be adjacent"),
        ({"to_space": "Belgrade"}, "to_space", "his:H1", "another space"),
        ({"response_card": "Storms"}, "response_card_played_by", "his:H1", "or neither"),
        ({"response_card": "Storms", "response_card_played_by": "Ottoman"}, "response_card_played_by", "his:H1",
         "only other powers"),
        ({"moving_into_own_unbesieged_fortified_space": True}, "moving_into_own_unbesieged_fortified_space",
         "his:H1", "contradicts destination_fortified"),
        ({"defenders": [defender("Ottoman")]}, "defenders[0].power", "his:H1", "defenders are enemy formations"),
        ({"defenders": [defender(), defender()]}, "defenders[1].power", "his:H1", "listed twice"),
        ({"defenders": [defender(withdraw=True)]}, "defenders[0].withdraw", "his:H4", "only in a fortified space"),
        ({"defenders": [defender(avoid=avoid(to_space_in_unrest=True))]}, "defenders[0].avoid.to_space_in_unrest",
         "his:H3", "in unrest"),
        ({"defenders": [defender(formation={"leaders": [{"name": "F", "battle_rating": 0}]}, avoid=avoid())]},
         "defenders[0].formation.land_units", "his:H3", "alone in the space"),
        ({"interceptions": [interceptor(across_pass=True)]}, "interceptions[0].across_pass", "his:H2",
         "across a mountain pass"),
        ({"interceptions": [interceptor()], "defenders": [defender()]}, "interceptions[0].friendly_units_in_destination",
         "his:H2", "only the power of those units or its ally"),
        ({"interceptions": [interceptor()], "destination_has_friendly_units": True},
         "interceptions[0].friendly_units_in_destination", "his:H2", "only the power of those units or its ally"),
    ],
)
def test_land_move_impossible_declarations_rejected_with_field_and_rule(extra, field, rule, message):
    with pytest.raises(RulesError) as e:
        H1.resolve(move(**extra), FixedDice([[6, 6]]))
    assert (e.value.field, e.value.rule) == (field, rule) and message in str(e.value)


# --------------------------------------------------------------------------- invariants


@st.composite
def valid_moves(draw):
    fortified = draw(st.booleans())
    defenders = []
    for k, p in enumerate(draw(st.lists(st.sampled_from(["Hapsburg", "France", "Papacy"]), max_size=2, unique=True))):
        f = draw(formations(min_units=1, max_units=3))
        av = draw(st.none() | st.sampled_from(["success", "failure"]))
        defenders.append({"power": p, "formation": f, "withdraw": False,
                          "avoid": avoid(f"S{k}", av) if av else None})
    n = draw(st.integers(0, 3))
    interceptions = [interceptor(p, f"I{k}", formation=draw(formations(min_units=1)),
                                 friendly_units_in_destination=bool(defenders))
                     for k, p in enumerate(draw(st.lists(st.sampled_from(["Hapsburg", "England", "France", "Papacy"]),
                                                         min_size=n, max_size=n)))]
    return move(formation=draw(formations()), across_pass=draw(st.booleans()), cp_available=draw(st.integers(2, 6)),
                destination_fortified=fortified, interceptions=interceptions, defenders=defenders)


@settings(max_examples=150, deadline=None)
@given(valid_moves(), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=3, max_size=3))
def test_land_move_invariants_on_valid_inputs(data, dice):
    r = H1.resolve(data, FixedDice([list(d) for d in dice]))
    assert [s.name for s in r.steps] == STEP_NAMES
    step5 = r.steps[4]
    rows = step5.outcome["attempts"]
    assert len(r.all_dice()) == sum(row["rolled"] for row in rows)
    for row in rows:
        if row["rolled"]:
            assert row["total"] == sum(row["dice"]) + row["modifiers"] and row["success"] is (row["total"] >= 9)
    assert sum(d.total for d in step5.dice) + sum(m.value for m in step5.modifiers) == sum(
        row["total"] for row in rows if row["rolled"])
    if step5.total is not None:
        assert step5.total == sum(d.total for d in step5.dice) + sum(m.value for m in step5.modifiers)
    assert r.outcome["field_battle"] is any(e.kind == "battle_forced" for e in r.effects)
    assert Ruling.model_validate(r.model_dump(mode="json")) == r
    assert explain(r).count("\n  ") >= 8  # one line per step at least


def test_land_move_ruling_round_trips_through_json():
    r = H1.resolve(move(interceptions=[interceptor()], across_pass=True), FixedDice([[6, 6]]))
    dumped = r.model_dump(mode="json")
    assert dumped["effects"][0] == {"kind": "cp_spent", "country": "Ottoman", "target": None, "amount": "2",
                                    "ers_line": None, "marker": None,
                                    "detail": {"action": "land move", "from_space": "Belgrade", "to_space": "Buda"}}
    assert json.loads(json.dumps(dumped)) == dumped and Ruling.model_validate(dumped) == r


def test_land_move_explain_lists_every_step_and_the_interception_modifiers():
    r = H1.resolve(move(destination_fortified=True, interceptions=[interceptor(friendly_units_in_destination=True)],
                        defenders=[defender(avoid=avoid(), withdraw=True)]), FixedDice([[3, 2]]))
    text = explain(r)
    assert text.startswith("his:H1 Land movement (ruleset his 1.0)")
    for name in STEP_NAMES:
        assert f"  {name}" in text
    assert "die 2d6 [3, 2] — interception: Hapsburg from Vienna" in text
    assert "−1  Hapsburg from Vienna: non-Ottoman power intercepting a formation with Ottoman cavalry  [his:H2" in text
    assert "supplied by the game master: avoid battle result, Hapsburg to Pressburg: failure" in text


def test_his_ruleset_lists_h1_to_h4():
    assert sorted(get_ruleset("his").procedures) == ["H1", "H2", "H3", "H4"]


# --------------------------------------------------------------------------- CLI

LEDGER = [str(Path(sys.executable).with_name("ledger"))]


def test_cli_lists_his_procedures():
    p = subprocess.run(LEDGER + ["procedures", "his", "--no-schemas"], capture_output=True, text=True, check=True)
    listing = json.loads(p.stdout)
    assert listing["ruleset"] == "his" and [x["code"] for x in listing["procedures"]] == ["H1", "H2", "H3", "H4"]


def test_cli_resolves_h2_with_explain_and_reports_rule_errors():
    data = {"moving_power": "Ottoman", "moving_formation": {"land_units": 4, "cavalry": 1}, "destination": "Buda",
            "attempts": [interceptor(telescope=True)]}
    p = subprocess.run(LEDGER + ["resolve", "his", "H2", "--inputs", json.dumps(data), "--dice", "4,4", "--explain"],
                       capture_output=True, text=True, check=True)
    assert p.stdout.startswith("his:H2 Interception") and "total 9" in p.stdout and "success: yes" in p.stdout and "True" not in p.stdout
    data["attempts"][0]["across_pass"] = True
    p = subprocess.run(LEDGER + ["resolve", "his", "H2", "--inputs", json.dumps(data), "--dice", "4,4"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "attempts[0].across_pass" in p.stderr and "his:H2" in p.stderr
