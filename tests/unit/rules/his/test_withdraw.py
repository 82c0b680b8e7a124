"""H4 Withdraw into fortifications (his-land-movement.ru.txt, land movement step 7)."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, Ruling, get_ruleset

from .conftest import formations

H4 = get_ruleset("his").get("H4")
LEADER = {"name": "Ferdinand", "battle_rating": 1}


def group(*formations_, **kw):
    return {"moving_power": "Ottoman", "space": "Buda", "space_fortified": True,
            "formations": list(formations_), **kw}


def f(power="Hapsburg", units=2, withdraw=True, **kw):
    return {"power": power, "formation": kw.pop("formation", {"land_units": units}), "withdraw": withdraw, **kw}


@pytest.mark.parametrize("units,allowed", [(1, True), (4, True), (5, False), (8, False)])
def test_withdraw_only_with_4_land_units_or_fewer(units, allowed):
    if allowed:
        r = H4.resolve(group(f(units=units)), FixedDice([]))
        assert r.outcome["withdrawn"] == ["Hapsburg"] and r.outcome["field_battle"] is False
        assert r.effects[0].kind == "withdrew_into_fortifications" and r.effects[0].detail["land_units"] == units
    else:
        with pytest.raises(RulesError) as e:
            H4.resolve(group(f(units=units)), FixedDice([]))
        assert e.value.field == "formations[0].withdraw" and e.value.rule == "his:H4"
        assert f"has {units} land units, more than 4" in str(e.value)


def test_withdraw_limit_counts_the_whole_enemy_group():
    with pytest.raises(RulesError) as e:
        H4.resolve(group(f("Hapsburg", 3, withdraw=False), f("Papacy", 2)), FixedDice([]))
    assert e.value.field == "formations[1].withdraw" and "has 5 land units" in str(e.value)


def test_withdraw_army_leaders_do_not_count_as_units():
    r = H4.resolve(group(f(formation={"land_units": 4, "leaders": [LEADER, {"name": "Charles V", "battle_rating": 2}]})),
                   FixedDice([]))
    assert r.outcome["group_units"] == 4 and r.effects[0].detail["leaders"] == ["Ferdinand", "Charles V"]


def test_withdraw_large_group_may_stay_and_fight():
    r = H4.resolve(group(f(units=6, withdraw=False)), FixedDice([]))
    assert r.outcome == {"group_units": 6, "limit": 4, "withdrawn": [], "stay_outside": ["Hapsburg"],
                         "units_outside": 6, "field_battle": True}
    assert r.effects == ()


@pytest.mark.parametrize(
    "data,field,message",
    [
        (group(f(), space_fortified=False), "space_fortified", "only in a fortified space"),
        (group(f(), any_interception_succeeded=True), "any_interception_succeeded", "straight to the field battle"),
        (group(f(intercepted_this_move=True)), "formations[0].withdraw", "must fight the field battle"),
        (group(f(formation={"leaders": [LEADER]}, withdraw=False)), "formations[0].withdraw",
         "an army leader alone in a fortified space must withdraw"),
        (group(f("Ottoman")), "formations[0].power", "only enemy units withdraw"),
        (group(f(), f(units=1)), "formations[1].power", "listed twice"),
    ],
)
def test_withdraw_restriction_rejected_with_its_reason(data, field, message):
    with pytest.raises(RulesError) as e:
        H4.resolve(data, FixedDice([]))
    assert e.value.field == field and e.value.rule == "his:H4" and message in str(e.value)


def test_withdraw_lone_leader_withdraws():
    r = H4.resolve(group(f(formation={"leaders": [LEADER]})), FixedDice([]))
    assert r.outcome["withdrawn"] == ["Hapsburg"] and r.outcome["field_battle"] is False


@settings(max_examples=100, deadline=None)
@given(formations(min_units=0, max_units=4), st.booleans())
def test_withdraw_valid_inputs_never_raise(formation, choice):
    choice = choice or formation["land_units"] == 0  # a lone leader must withdraw
    r = H4.resolve(group(f(formation=formation, withdraw=choice)), FixedDice([]))
    assert r.outcome["field_battle"] is (not choice and formation["land_units"] > 0)
    assert Ruling.model_validate(r.model_dump(mode="json")) == r
