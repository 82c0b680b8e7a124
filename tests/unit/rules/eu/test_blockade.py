"""M13 Blockade escape, M16 Presidio / strait fortification interception, M17 Convoy attacks."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, load_all

load_all()

BASE = {"direction": "exit", "moving_man": 0, "blockader_man": 0, "moving_nd": 2, "blockader_nd": 3, "blockader_all_nwd": False, "blockader_technology": "BAT"}


def m13(die, **changes):
    return EU.get("M13").resolve({**BASE, **changes}, FixedDice([die]))


def m16(die, **inputs):
    return EU.get("M16").resolve({"moving_has_fleet": False, **inputs}, FixedDice([die]))


# --------------------------------------------------------------------------- M13


@pytest.mark.parametrize(
    "changes,expected",
    [
        ({}, []),
        ({"moving_man": 4, "blockader_man": 1}, [(3, "MAN differential (moving − blockading, positive only)")]),
        ({"moving_man": 1, "blockader_man": 4}, []),
        ({"moving_nd": 5, "blockader_nd": 3}, [(1, "blockading stack smaller (in ND)")]),
        ({"moving_nd": 3, "blockader_nd": 3}, []),
        ({"blockader_all_nwd": True, "blockader_technology": "VE"}, [(1, "blockading stack of NWD without technology 74s")]),
        ({"blockader_all_nwd": True, "blockader_technology": "74s"}, []),
    ],
)
def test_blockade_escape_modifiers(changes, expected):
    assert [(m.value, m.reason) for m in m13(5, **changes).modifiers] == expected


@pytest.mark.parametrize("die,result", [(8, "escaped"), (10, "escaped"), (7, "stopped"), (6, "stopped"), (5, "forced_battle"), (1, "forced_battle")])
def test_blockade_escape_results(die, result):
    r = m13(die)
    assert r.outcome["result"] == result and r.outcome["escaped"] is (result == "escaped")


def test_blockade_escape_on_5_or_less_lets_the_blockader_force_battle():
    r = m13(4, moving_man=1)
    assert r.total == 5 and r.outcome["blockader_may_force_battle"] is True
    kinds = [e.kind for e in r.effects]
    assert kinds == ["stack_stopped", "battle_forced"]
    assert [e.detail["optional"] for e in r.effects if e.kind == "battle_forced"] == [True]


def test_blockade_escape_stopped_on_6_or_7_without_battle_and_consequence_by_direction():
    out = m13(6)
    assert [e.kind for e in out.effects] == ["stack_stopped"]
    assert out.outcome["consequence"] == "stays in port; its movement ends"
    enter = m13(7, direction="enter")
    assert "closest friendly port" in enter.outcome["consequence"]


def test_blockade_escape_success_emits_no_effect():
    assert m13(6, moving_man=3, blockader_man=1).effects == ()


@settings(max_examples=150)
@given(st.integers(0, 9), st.integers(0, 9), st.integers(0, 10), st.integers(1, 10), st.booleans(), st.sampled_from(["GA", "CAR", "VE", "74s"]), st.integers(1, 9))
def test_blockade_escape_total_and_monotonic(mm, bm, mnd, bnd, nwd, tech, die):
    changes = dict(moving_man=mm, blockader_man=bm, moving_nd=mnd, blockader_nd=bnd, blockader_all_nwd=nwd, blockader_technology=tech)
    low, high = m13(die, **changes), m13(die + 1, **changes)
    assert low.total == die + sum(m.value for m in low.modifiers)
    order = ["forced_battle", "stopped", "escaped"]
    assert order.index(low.outcome["result"]) <= order.index(high.outcome["result"])


def test_blockade_escape_rejects_impossible_inputs():
    with pytest.raises(ValueError, match="moving_man"):
        EU.get("M13").resolve({**BASE, "moving_man": 10}, FixedDice([5]))
    with pytest.raises(ValueError, match="blockader_technology"):
        EU.get("M13").resolve({**BASE, "blockader_technology": "74"}, FixedDice([5]))


@pytest.mark.parametrize("typed", ["74S", "74s", "SF", "TSF"])
def test_blockade_reads_the_74s_by_any_of_its_names_as_m12_does(typed):
    # Issue 18: M12 spelled it SF, M13 74s; one vocabulary now (tables/technologies.toml).
    r = EU.get("M13").resolve({**BASE, "blockader_technology": typed, "blockader_all_nwd": True}, FixedDice([5]))
    assert r.inputs["blockader_technology"] == "74S"
    assert not any("without technology 74s" in m.reason for m in r.modifiers)


# --------------------------------------------------------------------------- M16


@pytest.mark.parametrize(
    "inputs,expected",
    [
        ({"fortification": "presidio", "presidio_level": 2}, [2]),
        ({"fortification": "strait_europe"}, [2]),
        ({"fortification": "strait_rotw", "rotw_fortress_level": 5}, [2]),
        ({"fortification": "strait_rotw", "rotw_fortress_level": 1}, []),
        ({"fortification": "strait_europe", "moving_has_fleet": True}, [2, 1]),
    ],
)
def test_fort_interception_modifiers(inputs, expected):
    assert [m.value for m in m16(5, **inputs).modifiers] == expected


@pytest.mark.parametrize("die,stopped,lost", [(6, False, 0), (7, True, 0), (8, True, 0), (9, True, 1), (10, True, 1)])
def test_fort_interception_stops_at_9_and_sinks_at_11_and_13(die, stopped, lost):
    r = m16(die, fortification="strait_europe")  # +2
    assert r.outcome["stopped"] is stopped and r.outcome["losses"] == lost and r.outcome["battle"] is False


def test_fort_interception_two_nd_lost_at_13():
    r = m16(10, fortification="presidio", presidio_level=2, moving_has_fleet=True)
    assert r.total == 13 and r.outcome["losses"] == 2
    assert [(e.kind, e.amount) for e in r.effects] == [("stack_stopped", None), ("nd_lost", Fraction(2))]


def test_fort_interception_against_a_corsair_costs_sides():
    r = m16(9, fortification="strait_europe", target_is_corsair=True)
    assert r.outcome["loss_unit"] == "corsair side"
    assert [e.kind for e in r.effects] == ["stack_stopped", "marker_flipped"]


def test_fort_interception_requires_the_right_level():
    with pytest.raises(ValueError, match="presidio_level"):
        m16(5, fortification="presidio")
    with pytest.raises(ValueError, match="presidio_level: only for a Presidio"):
        m16(5, fortification="strait_europe", presidio_level=2)


@given(st.integers(1, 5), st.booleans(), st.integers(1, 10))
def test_fort_interception_total_is_die_plus_modifiers(level, fleet, die):
    r = m16(die, fortification="presidio", presidio_level=level, moving_has_fleet=fleet)
    assert r.total == die + level + int(fleet)
    r.model_dump(mode="json")


# --------------------------------------------------------------------------- M17


def m17(dice, **inputs):
    return EU.get("M17").resolve({"corsair_owner": "major", "controller": "ANG", "convoy_ntd": 5, **inputs}, FixedDice(dice))


def test_convoy_attack_stops_when_the_interception_fails():
    r = m17([5])
    assert r.outcome["intercepted"] is False and r.outcome["captured_ntd"] == 0
    assert len(r.steps) == 1 and r.effects == ()


def test_pirates_without_admiral_intercept_at_man_2():
    r = m17([5], corsair_owner="pirates", controller=None, convoy_admiral_man=1)
    assert [(m.value, m.reason) for m in r.steps[0].modifiers] == [(1, "MAN differential (interceptor 2 − target 1)")]


def test_convoy_attack_unmodified_10_intercepts_and_reduction_roll_stops_the_attack():
    r = m17([10, 9], escort_fleets_minus=1)
    # reduction: +2 FLEET−, +1 naval units present, −1 corsair now Face− → 9 + 2 = 11 ≥ 8
    assert r.steps[1].total == 11 and r.steps[1].outcome["success"] is True
    assert r.outcome["result"] == "reduction roll succeeded: the attack stops"
    assert [e.kind for e in r.effects] == ["marker_flipped", "stack_retreats"]


def test_convoy_attack_captures_ntd_worth_15_ducats_to_ers_a9_of_a_major():
    r = m17([10, 3, 1])  # raid: 1 + 3 (one Corsair−) + 2 (convoy sides) = 6 → Trade FLEET+ 3
    assert r.steps[2].total == 6 and r.steps[2].table_cell.value == 3
    assert r.outcome["captured_ntd"] == 3 and r.outcome["ducats"] == 45
    a9 = [e for e in r.effects if e.kind == "ducats"]
    assert [(e.country, e.ers_line, e.amount) for e in a9] == [("ENG", "A9", Fraction(45))]  # the seed's ANG, as its board code
    assert r.outcome["movement_stopped"] is False


def test_convoy_attack_by_a_minor_loses_the_gold_and_pirates_stay_at_sea():
    minor = m17([10, 3, 1], corsair_owner="minor")
    assert minor.outcome["ducats"] == 0 and minor.outcome["gold_lost"] == 45
    assert not [e for e in minor.effects if e.kind == "ducats"]
    pirates = m17([10, 3, 1], corsair_owner="pirates", controller=None)
    assert pirates.outcome["corsair_after"] == "stays in the sea zone and may act again"
    assert not [e for e in pirates.effects if e.kind == "stack_retreats"]


def test_convoy_attack_captures_no_more_than_the_ntd_present():
    r = m17([10, 1, 1], convoy_ntd=2, corsair_owner="pirates", controller=None)  # raid 1+3+2−2 = 4 → 3 NTD, capped at 2
    assert r.outcome["captured_ntd"] == 2


def test_convoy_raid_modifier_list():
    r = m17([10, 1, 2], convoy_admiral_man=2, corsair_admiral_man=3, escort_fleets_plus=1, naval_battle_in_zone=True, corsair_not_in_stz_zone=True, knights_with_christian_port=True)
    # reduction roll: +4 FLEET+, +1 naval units, −1 MAN (2 − 3), −1 Corsair−, −1 naval battle → 1 + 2 = 3: fails
    assert [m.value for m in r.steps[1].modifiers] == [4, 1, -1, -1, -1] and r.steps[1].outcome["success"] is False
    assert [m.value for m in r.steps[2].modifiers] == [2, 3, 2, 4, 2, -3, 1, -2]


def test_convoy_attack_requires_a_controller_for_a_major():
    with pytest.raises(ValueError, match="controller"):
        EU.get("M17").resolve({"corsair_owner": "major", "convoy_ntd": 5}, FixedDice([5]))
