"""H3 Avoid battle (his-land-movement.ru.txt §Уклонение от сражения): restrictions, order, GM results."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError, Ruling, get_ruleset

from .conftest import POWERS, formations

H3 = get_ruleset("his").get("H3")


def attempt(power="Hapsburg", to_space="Pressburg", gm_result="success", **kw):
    return {"power": power, "to_space": to_space, "gm_result": gm_result,
            "formation": kw.pop("formation", {"land_units": 2}), "to_space_control": kw.pop("to_space_control", "own"),
            **kw}


def inputs(*attempts, **kw):
    return {"moving_power": "Ottoman", "battle_space": "Buda", "attempts": list(attempts) or [attempt()], **kw}


@pytest.mark.parametrize(
    "att,top,field,message",
    [
        ({"to_space_adjacent": False}, {}, "attempts[0].to_space_adjacent", "into an adjacent space only"),
        ({"to_space_control": "independent"}, {}, "attempts[0].to_space_control", "into an independent space"),
        ({"to_space_control": "not_allied"}, {}, "attempts[0].to_space_control",
         "controlled by another power that is not their ally"),
        ({"to_space_in_unrest": True}, {}, "attempts[0].to_space_in_unrest", "into a space in unrest"),
        ({"to_space_has_enemy_units": True}, {}, "attempts[0].to_space_has_enemy_units", "with enemy units"),
        ({"to_space_is_sea_zone": True}, {}, "attempts[0].to_space_is_sea_zone", "into a sea zone"),
        ({"to_space_just_left_by_moving_formation": True}, {}, "attempts[0].to_space_just_left_by_moving_formation",
         "has just left"),
        ({"besieged": True}, {}, "attempts[0].besieged", "besieged units and leaders may not avoid battle"),
        ({"power_intercepted_this_move": True}, {}, "attempts[0].power_intercepted_this_move",
         "intercepted into the battle space during this move"),
        ({"formation": {"leaders": [{"name": "Ferdinand", "battle_rating": 1}]}}, {},
         "attempts[0].formation.land_units", "an army leader alone in the space may not avoid battle"),
        ({"power": "Ottoman"}, {}, "attempts[0].power", "only enemy units avoid battle"),
        ({}, {"any_interception_succeeded": True}, "any_interception_succeeded", "goes straight to the field battle"),
    ],
)
def test_avoid_battle_restriction_rejected_with_its_reason(att, top, field, message):
    with pytest.raises(RulesError) as e:
        H3.resolve(inputs(attempt(**att), **top), FixedDice([]))
    assert e.value.field == field and e.value.rule == "his:H3"
    assert message in str(e.value) and str(e.value).startswith("his:H3: ")


def test_avoid_battle_lone_leader_message_names_capture_and_withdrawal():
    with pytest.raises(RulesError) as e:
        H3.resolve(inputs(attempt(formation={"leaders": [{"name": "Ferdinand", "battle_rating": 1}]})), FixedDice([]))
    assert "captured if the space is unfortified" in str(e.value) and "must withdraw" in str(e.value)


def test_avoid_battle_one_attempt_per_power():
    with pytest.raises(RulesError) as e:
        H3.resolve(inputs(attempt(), attempt(to_space="Graz")), FixedDice([]))
    assert e.value.field == "attempts[1].power" and "one attempt per power" in str(e.value)


@pytest.mark.parametrize("control", ["own", "ally"])
def test_avoid_battle_allowed_into_own_or_allied_space(control):
    r = H3.resolve(inputs(attempt(to_space_control=control)), FixedDice([]))
    assert r.outcome["avoided"] == ["Hapsburg"]


def test_avoid_battle_results_are_the_game_masters_in_impulse_order_without_dice():
    dice = FixedDice([])
    r = H3.resolve(inputs(attempt("Papacy", "Rome", "failure", to_space_control="ally"),
                          attempt("Hapsburg", "Pressburg", "success")), dice)
    assert [s.name for s in r.steps] == ["avoid battle: Hapsburg to Pressburg", "avoid battle: Papacy to Rome"]
    assert [s.outcome["success"] for s in r.steps] == [True, False]
    assert r.outcome["avoided"] == ["Hapsburg"] and r.outcome["failed"] == ["Papacy"]
    assert "seed stops before the avoid-battle roll" in r.outcome["roll"]
    assert r.all_dice() == [] and dice.drawn == []
    assert r.gm_supplied == ("avoid battle result, Hapsburg to Pressburg: success",
                             "avoid battle result, Papacy to Rome: failure")
    assert [(e.kind, e.country, e.target, e.detail["from_space"]) for e in r.effects] == [
        ("formation_moved", "Hapsburg", "Pressburg", "Buda")]


def test_avoid_battle_gm_result_is_required():
    bad = attempt()
    del bad["gm_result"]
    with pytest.raises(ValidationError) as e:
        H3.resolve(inputs(bad), FixedDice([]))
    assert e.value.errors()[0]["loc"] == ("attempts", 0, "gm_result")


@st.composite
def valid(draw):
    mover = draw(st.sampled_from(POWERS))
    powers = draw(st.lists(st.sampled_from([p for p in POWERS if p != mover]), min_size=1, max_size=3, unique=True))
    return {"moving_power": mover, "battle_space": "X",
            "attempts": [attempt(p, f"S{k}", draw(st.sampled_from(["success", "failure"])),
                                 formation=draw(formations(min_units=1)),
                                 to_space_control=draw(st.sampled_from(["own", "ally"]))) for k, p in enumerate(powers)]}


@settings(max_examples=100, deadline=None)
@given(valid())
def test_avoid_battle_valid_inputs_never_raise_and_effects_match_successes(data):
    r = H3.resolve(data, FixedDice([]))
    assert len(r.steps) == len(data["attempts"])
    assert sorted(e.country for e in r.effects) == sorted(a["power"] for a in data["attempts"] if a["gm_result"] == "success")
    assert Ruling.model_validate(r.model_dump(mode="json")) == r
