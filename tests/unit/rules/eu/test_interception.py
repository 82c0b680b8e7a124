"""M14 / M15 interception (eu-military-rules.tex §Interception)."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, interception  # noqa: F401  (registers M14, M15)

M14 = EU.get("M14")
M15 = EU.get("M15")
BASE = {"interceptor_man": 2, "target_man": 2, "last_campaign": "active"}


def test_interception_succeeds_on_unmodified_10_whatever_the_modifiers():
    r = M14.resolve({**BASE, "target_man": 6, "bad_weather": True, "across_river_or_pass": True}, FixedDice([10]))
    assert r.total == 10 - 4 - 2 - 2
    assert r.outcome["success"] is True and r.outcome["reason"] == "unmodified 10"


@pytest.mark.parametrize("die,success", [(7, False), (8, True), (9, True)])
def test_land_interception_succeeds_on_modified_8(die, success):
    assert M14.resolve(BASE, FixedDice([die])).outcome["success"] is success


@pytest.mark.parametrize(
    "flag,value",
    [
        ("tech_advantage_6_levels", 1),
        ("friendly_force_or_city_in_target", 1),
        ("same_province", 1),
        ("target_swamp", -1),
        ("interceptor_in_swamp_or_flooded", -1),
        ("bad_weather", -2),
        ("across_river_or_pass", -2),
        ("other_unbesieged_enemy_in_target", -2),
        ("interceptor_besieging", -1),
    ],
)
def test_land_interception_modifier_list(flag, value):
    r = M14.resolve({**BASE, flag: True}, FixedDice([5]))
    assert [m.value for m in r.modifiers] == [value]
    assert r.modifiers[0].rule == "eu:M14" and r.total == 5 + value


def test_land_interception_man_differential():
    r = M14.resolve({**BASE, "interceptor_man": 5, "target_man": 1}, FixedDice([4]))
    assert [m.value for m in r.modifiers] == [4] and r.total == 8 and r.outcome["success"]


def test_land_interception_never_without_campaign():
    r = M14.resolve({**BASE, "last_campaign": "none"}, FixedDice([]))
    assert r.outcome == {"eligible": False, "success": False, "kind": "interception", "reason": r.outcome["reason"]}
    assert r.dice == ()


def test_land_interception_passive_only_into_friendly_province():
    assert M14.resolve({**BASE, "last_campaign": "passive", "target_province_friendly": False}, FixedDice([])).outcome["eligible"] is False
    assert M14.resolve({**BASE, "last_campaign": "passive"}, FixedDice([9])).outcome["success"] is True
    first = {**BASE, "last_campaign": "none", "first_round_no_impulse_yet": True, "target_province_friendly": False}
    assert M14.resolve(first, FixedDice([])).outcome["eligible"] is False


def test_land_interception_fight_limit_8_ld_2_pashas():
    r = M14.resolve({**BASE, "side_ld": 11, "side_pashas": 3}, FixedDice([9]))
    assert r.outcome["fight_limit"] == {"fighting_ld": 8, "fighting_pashas": 2, "idle_ld": 3, "idle_pashas": 1}
    assert {e.kind for e in r.effects} == {"interception_succeeded", "battle_forced"}


def test_land_interception_without_the_sides_ld_states_the_limit_instead_of_0_ld():
    # Issue 18: leaving side_ld out reported "0 LD fight".
    r = M14.resolve(BASE, FixedDice([9]))
    assert r.outcome["fight_limit"] == {"rule": "at most 8 LD and 2 Pashas fight", "fighting_ld": None,
                                        "side_ld": "not given"}
    [battle] = [e for e in r.effects if e.kind == "battle_forced"]
    assert battle.detail["fighting_ld"] is None


def test_same_province_and_across_a_river_are_cumulative_as_the_seed_says():
    # eu-military-rules.tex §Interception (Land): "all modifiers are cumulative"; the river is the one the
    # intercepted stack crossed to enter the province (DECISIONS.md M14).
    r = M14.resolve({**BASE, "same_province": True, "across_river_or_pass": True}, FixedDice([9]))
    assert [(m.value, m.reason) for m in r.modifiers] == [(1, "intercepting in the same province"),
                                                         (-2, "across a river or mountain pass")]
    assert r.total == 8 and r.outcome["success"] is True


def test_counter_interception_cannot_be_countered():
    r = M14.resolve({**BASE, "counter_interception": True}, FixedDice([9]))
    assert r.outcome["kind"] == "counter-interception" and r.outcome["counter_interception_allowed"] is False


def test_land_interception_rejects_impossible_inputs():
    with pytest.raises(ValidationError, match="interceptor_man"):
        M14.resolve({**BASE, "interceptor_man": 10}, FixedDice([5]))
    with pytest.raises(ValidationError, match="unknown_field"):
        M14.resolve({**BASE, "unknown_field": 1}, FixedDice([5]))


# ------------------------------------------------------------------ sea

SEA = {"interceptor_man": 2, "target_man": 2, "last_campaign": "active"}


def test_cornwall_port_malus_minus_3():
    """Seed example: a stack at port in Cornwall intercepting in an adjacent zone gets −3."""
    r = M15.resolve({**SEA, "interceptor_in_port": True}, FixedDice([9]))
    assert [m.value for m in r.modifiers] == [-3] and r.total == 6 and not r.outcome["success"]


def test_cornwall_landing_replaces_port_minus_3_by_plus_2():
    """Seed example: enemy lands on Cornwall — 'the −3 disappears, replaced by a +2'."""
    r = M15.resolve({**SEA, "interceptor_in_port": True, "landing_close_by": True}, FixedDice([6]))
    assert [m.value for m in r.modifiers] == [2] and r.total == 8 and r.outcome["success"]


def test_celtic_sea_same_zone_plus_1_replaced_by_landing_plus_2():
    """Seed example: cruising in the Celtic Sea, +1 same zone; a landing from there: +2 instead."""
    assert [m.value for m in M15.resolve({**SEA, "same_sea_zone": True}, FixedDice([5])).modifiers] == [1]
    r = M15.resolve({**SEA, "same_sea_zone": True, "landing_close_by": True}, FixedDice([5]))
    assert [m.value for m in r.modifiers] == [2]


def test_celtic_sea_landing_from_other_zone_loses_plus_1():
    """Seed example: landing on Cornwall from the Channel: not the same zone, no bonus."""
    assert M15.resolve(SEA, FixedDice([5])).modifiers == ()


def test_portsmouth_arsenal_no_malus_and_plus_2_for_any_landing_from_the_channel():
    assert M15.resolve({**SEA, "interceptor_in_arsenal": True}, FixedDice([5])).modifiers == ()
    r = M15.resolve({**SEA, "interceptor_in_arsenal": True, "landing_close_by": True}, FixedDice([6]))
    assert [m.value for m in r.modifiers] == [2] and r.outcome["success"]


@pytest.mark.parametrize(
    "flag,value",
    [("tech_advantage_6_levels", 1), ("bad_weather", -2), ("interceptor_blockading", -1), ("interceptor_three_decker_or_better", 1)],
)
def test_sea_interception_modifier_list(flag, value):
    assert [m.value for m in M15.resolve({**SEA, flag: True}, FixedDice([5])).modifiers] == [value]


def test_sea_interception_three_decker_not_cumulative_with_same_zone():
    r = M15.resolve({**SEA, "same_sea_zone": True, "interceptor_three_decker_or_better": True}, FixedDice([5]))
    assert [m.value for m in r.modifiers] == [1]


def test_sea_interception_automatic_against_blockading_target():
    r = M15.resolve({**SEA, "target_blockading": True, "target_man": 6}, FixedDice([]))
    assert r.outcome["success"] and r.outcome["automatic"] and r.dice == ()


def test_sea_interception_passive_only_one_fleet():
    assert M15.resolve({**SEA, "last_campaign": "passive", "interceptor_fleets": 2}, FixedDice([])).outcome["eligible"] is False
    assert M15.resolve({**SEA, "last_campaign": "passive", "interceptor_fleets": 1}, FixedDice([10])).outcome["success"]


@settings(max_examples=150)
@given(
    die=st.integers(1, 10),
    man=st.integers(0, 9),
    tman=st.integers(0, 9),
    flags=st.fixed_dictionaries({k: st.booleans() for k in ("bad_weather", "target_swamp", "interceptor_besieging", "same_province", "tech_advantage_6_levels")}),
)
def test_land_total_is_die_plus_modifiers_and_monotonic(die, man, tman, flags):
    inp = {**BASE, "interceptor_man": man, "target_man": tman, **flags}
    r = M14.resolve(inp, FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    if die < 10:
        assert M14.resolve(inp, FixedDice([die + 1])).outcome["success"] >= r.outcome["success"]
    r.model_dump(mode="json")
