"""M9 land movement, M10 movement attrition on land, M11 Conquistador table."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu import EU
from ledger.rules.eu.movement import (
    Leg,
    MovementAttritionInputs,
    ProvinceEntry,
    attrition_checks,
    conquistador_modifiers,
    ConquistadorInputs,
    movement_attrition_modifiers,
    mp_cost,
    parse_conquistador_reading,
)

WON, LOST, END = "interception_won", "interception_lost", "end"


def legs(*spec):
    return [Leg(mp=mp, ends_with=end, naval_uncontrolled_endpoint=naval) for mp, end, naval in spec]


def rolls(checks):
    return [(c["scope"], c["leg"], c["when"], c["cause_count"]) for c in checks if c["roll"]]


# --------------------------------------------------------------------------- M9: the seed's examples


def test_example_small_stack_6_mp_intercepted_rolls_before_battle_then_again_after_6_more():
    checks = attrition_checks(legs((6, WON, False), (6, END, False)), ld=3, pashas=0, without_logistics=False)
    assert rolls(checks) == [
        ("leg", 1, "before the interception battle", 1),
        ("leg", 2, "at the end of the move", 1),
    ]


def test_example_three_legs_of_4_mp_roll_once_at_the_end():
    checks = attrition_checks(legs((4, WON, False), (4, WON, False), (4, END, False)), ld=3, pashas=0,
                              without_logistics=False)
    assert rolls(checks) == [("whole move", None, "at the end of the move", 1)]
    assert checks[-1]["mp"] == 12


def test_example_losing_the_second_battle_after_8_mp_rolls_after_the_battle():
    checks = attrition_checks(legs((4, WON, False), (4, LOST, False)), ld=3, pashas=0, without_logistics=False)
    assert rolls(checks) == [("whole move", None, "after the lost battle", 1)]


def test_example_6_mp_then_5_mp_rolls_only_once_before_the_battle():
    checks = attrition_checks(legs((6, WON, False), (5, END, False)), ld=3, pashas=0, without_logistics=False)
    assert rolls(checks) == [("leg", 1, "before the interception battle", 1)]


def test_example_large_stack_5_mp_intercepted_and_losing_rolls_at_the_end():
    checks = attrition_checks(legs((5, LOST, False)), ld=8, pashas=0, without_logistics=False)
    assert rolls(checks) == [("whole move", None, "after the lost battle", 1)]
    assert checks[-1]["causes"] == ["large stack (6+ LD or 2+ Pashas)"]


def test_example_large_stack_landing_in_enemy_territory_rolls_before_battle_with_an_extra_cause_once():
    checks = attrition_checks(legs((3, LOST, True)), ld=8, pashas=0, without_logistics=False)
    assert rolls(checks) == [("leg", 1, "before the interception battle", 2)]


def test_large_stack_that_does_not_move_rolls_attrition():
    checks = attrition_checks(legs((0, END, False)), ld=0, pashas=2, without_logistics=False)
    assert rolls(checks) == [("whole move", None, "at the end of the move", 1)]


def test_campaign_without_logistics_triggers_at_3_mp():
    assert rolls(attrition_checks(legs((3, END, False)), ld=2, pashas=0, without_logistics=True)) == [
        ("leg", 1, "at the end of the move", 1)]
    assert rolls(attrition_checks(legs((3, END, False)), ld=2, pashas=0, without_logistics=False)) == []
    # 6 MP without logistics: both bullets hold (DECISIONS.md M9)
    assert rolls(attrition_checks(legs((6, END, False)), ld=2, pashas=0, without_logistics=True))[0][3] == 2


# --------------------------------------------------------------------------- M9: MP costs

MP = [
    ({}, 1),
    ({"enemy": True}, 2),
    ({"enemy": True, "terrain": "mountain"}, 3),
    ({"terrain": "mountain"}, 2),
    ({"terrain": "rough", "crossing": True}, 3),
    ({"swamp": True, "enemy": True}, 3),
    ({"area": "rotw"}, 2),
    ({"area": "rotw", "enemy": True}, 4),
    ({"area": "rotw", "enemy": True, "terrain": "mountain"}, 6),
    ({"area": "rotw", "terrain": "rough", "crossing": True}, 8),
    ({"kind": "naval"}, 3),
    ({"kind": "naval", "both_friendly_ports": True}, 2),
    ({"kind": "naval", "area": "rotw"}, 6),
    ({"kind": "naval", "area": "rotw", "both_friendly_ports": True}, 3),
]


@pytest.mark.parametrize("kw,cost", MP)
def test_movement_point_costs_table(kw, cost):
    assert mp_cost(ProvinceEntry(**kw)) == cost


def test_native_troops_pay_4_for_rough_terrain_in_the_rotw():
    assert mp_cost(ProvinceEntry(area="rotw", terrain="rough"), native_troops=True) == 4


def test_move_over_12_mp_is_rejected_but_a_leader_alone_has_20():
    with pytest.raises(RulesError):
        EU.get("M9").resolve({"ld": 2, "legs": [{"mp": 13}]}, FixedDice([]))
    r = EU.get("M9").resolve({"leader_alone": True, "legs": [{"mp": 20}]}, FixedDice([]))
    assert r.outcome["attrition_rolls"] == []


def test_m9_computes_mp_from_province_entries():
    r = EU.get("M9").resolve(
        {"ld": 2, "legs": [{"entries": [{"enemy": True}, {"enemy": True, "terrain": "mountain", "crossing": True}]}]},
        FixedDice([]),
    )
    assert r.outcome["total_mp"] == 6
    assert r.outcome["attrition_rolls"][0]["causes"] == ["moved 6 MP (6 or more)"]


def test_a_leg_after_a_lost_interception_is_rejected():
    with pytest.raises(ValidationError):
        EU.get("M9").resolve({"ld": 2, "legs": [{"mp": 2, "ends_with": LOST}, {"mp": 2}]}, FixedDice([]))


# --------------------------------------------------------------------------- M9: overrun, siege, natives

OVERRUN = [
    ({"phasing_ld": 8, "non_phasing_ld": 1}, "destroyed_without_battle"),
    ({"phasing_ld": 7, "non_phasing_ld": 1}, "immediate_battle"),
    ({"phasing_ld": 8, "non_phasing_ld": 2}, "immediate_battle"),
    ({"phasing_ld": 7, "non_phasing_ld": 2}, "not_allowed"),
    ({"phasing_ld": 16, "non_phasing_ld": 2}, "destroyed_without_battle"),
    ({"declared_by": "non_phasing", "phasing_ld": 1, "non_phasing_ld": 8}, "destroyed_without_battle"),
    ({"declared_by": "non_phasing", "phasing_ld": 1, "non_phasing_ld": 8, "friendly_ld_in_province": 1},
     "immediate_battle"),
    ({"declared_by": "non_phasing", "phasing_ld": 2, "non_phasing_ld": 7}, "not_allowed"),
]


@pytest.mark.parametrize("ov,result", OVERRUN)
def test_overrun_thresholds_4_for_battle_8_for_destruction(ov, result):
    r = EU.get("M9").resolve({"ld": 8, "legs": [{"mp": 2}], "overrun": ov}, FixedDice([]))
    assert r.outcome["overrun"] == result
    kinds = [e.kind for e in r.effects]
    assert ("stack_destroyed" in kinds) == (result == "destroyed_without_battle")
    assert ("battle_forced" in kinds) == (result == "immediate_battle")


@pytest.mark.parametrize("level,left", [(0, 1), (1, 1), (3, 3), (5, 5)])
def test_leaving_a_siege_leaves_1_ld_per_fortress_level(level, left):
    r = EU.get("M9").resolve(
        {"ld": 6, "legs": [{"mp": 2}], "leaving_siege": {"fortress_level": level, "stack_ld": 6}}, FixedDice([]))
    assert r.outcome["leaving_siege"]["ld_left_behind"] == left
    assert r.outcome["leaving_siege"]["ld_moving"] == 6 - left


def test_leaving_a_siege_without_enough_troops_must_empty_the_province():
    with pytest.raises(RulesError):
        EU.get("M9").resolve(
            {"ld": 3, "legs": [{"mp": 2}], "leaving_siege": {"fortress_level": 3, "stack_ld": 3}}, FixedDice([]))
    r = EU.get("M9").resolve(
        {"ld": 3, "legs": [{"mp": 2}], "leaving_siege": {"fortress_level": 3, "stack_ld": 3, "empty_province": True}},
        FixedDice([]))
    assert r.outcome["leaving_siege"]["siege_lifted"] is True


@pytest.mark.parametrize("die,activated", [(1, True), (4, True), (5, False), (10, False)])
def test_natives_activate_on_1d10_at_most_the_tolerance(die, activated):
    r = EU.get("M9").resolve({"ld": 2, "legs": [{"mp": 4}], "natives": {"tolerance": 4}}, FixedDice([die]))
    assert r.outcome["natives"]["activated"] is activated
    assert any(e.kind == "battle_forced" for e in r.effects) is activated


@pytest.mark.parametrize("kw", [{"leader_alone": True}, {"natives": {"tolerance": 9, "trade_agreement": True}}])
def test_natives_not_tested_for_a_leader_alone_or_with_a_trade_agreement(kw):
    base = {"legs": [{"mp": 4}], "natives": {"tolerance": 9}, "ld": 2}
    r = EU.get("M9").resolve(base | kw, FixedDice([]))
    assert r.outcome["natives"]["tested"] is False and r.all_dice() == []


def test_attacking_the_natives_stops_the_stack_without_a_test():
    r = EU.get("M9").resolve({"ld": 2, "legs": [{"mp": 4}], "natives": {"tolerance": 9, "attack_natives": True}},
                             FixedDice([]))
    assert [e.kind for e in r.effects] == ["stack_stopped", "battle_forced"]


# --------------------------------------------------------------------------- M10

M10_MODS = [
    ({"causes": 2}, [(2, "1 cause(s) of attrition above the first")]),
    ({"commander_man": 4}, [(-4, "MAN of the commanding leader")]),
    ({"no_los_at_start": True}, [(2, "no line of supply at the beginning of the move")]),
    ({"strait_fortifications": [{"area": "europe"}]}, [(2, "closed strait fortifications on the naval LoS")]),
    ({"entered_enemy_province": True}, [(2, "entered at least one enemy province")]),
    ({"path_minus_markers": 3}, [(3, "3 Pillage-/Revolt-/Rebellion- along the path")]),
    ({"path_plus_markers": 2}, [(4, "2 Pillage+/Revolt+/Rebellion+ along the path")]),
    ({"snowflakes": 3}, [(3, "snowflakes of the ROTW cold area along the path")]),
]


@pytest.mark.parametrize("kw,expected", M10_MODS)
def test_movement_attrition_modifiers(kw, expected):
    mods = movement_attrition_modifiers(MovementAttritionInputs.model_validate({"ld": 2, "causes": 1} | kw))
    assert [(m.value, m.reason) for m in mods] == expected
    assert all(m.rule == "eu:M10" for m in mods)


def test_movement_attrition_mus_pillage_choice_forages_next_battle():
    r = EU.get("M10").resolve({"ld": 4, "causes": 1, "technology": "MUS", "p_choice": "pillage",
                               "pillage_province": {"province": "Flandre"}}, FixedDice([8]))
    assert r.table_cell.value == "P"
    assert r.outcome["p_resolution"] == {"ld_lost": 0, "pillage": "placed", "foraging": True,
                                         "reason": "MUS: controller chose a Pillage- and foraging in the next battle"}
    assert [(e.kind, e.marker, e.target) for e in r.effects] == [
        ("marker_placed", "Pillage-", "Flandre"), ("marker_placed", "Foraging", None)]


def test_movement_attrition_lace_pillage_choice_does_not_forage():
    r = EU.get("M10").resolve({"ld": 4, "causes": 1, "technology": "L", "p_choice": "pillage"}, FixedDice([8]))
    assert r.outcome["p_resolution"]["foraging"] is False


def test_movement_attrition_renaissance_loses_ld_and_pillages():
    r = EU.get("M10").resolve({"ld": 8, "causes": 2, "technology": "REN",
                               "pillage_province": {"pillage_minus": 1}}, FixedDice([8]))
    # 8 + 2 = 10 → ≥6 column "2+P": 3 LD, Pillage- merged into Pillage+
    assert r.outcome["ld_lost"] == 3
    assert r.outcome["p_resolution"]["pillage"] == "merged"


def test_movement_attrition_rotw_reads_by_10_ld_blocks_with_the_star_die():
    # 12 LD at 10%: 10D → "9", 2D → "2★" (die 3: one d lost)
    r = EU.get("M10").resolve({"ld": 12, "causes": 1, "area": "rotw"}, FixedDice([6, 3]))
    assert r.outcome["percent"] == 10
    assert [b["cell"] for b in r.outcome["blocks"]] == ["9", "2★"]
    assert r.effects[0].amount == Fraction(4, 3)
    assert [d.values for d in r.dice] == [(6,), (3,)]


def test_movement_attrition_with_the_french_remainders_version():
    a = EU.get("M10").resolve({"ld": 0, "lde": 2, "causes": 1, "area": "rotw"}, FixedDice([7, 9]))
    b = EU.get("M10").resolve({"ld": 0, "lde": 2, "causes": 1, "area": "rotw", "remainders_version": "fr"},
                              FixedDice([7, 9]))
    assert a.outcome["left"] == "2/3" and b.outcome["left"] == "1/3"


@settings(max_examples=200)
@given(ld=st.integers(1, 30), causes=st.integers(1, 4), man=st.integers(0, 6), die=st.integers(1, 10),
       tech=st.sampled_from(["MED", "REN", "ARQ", "MUS", "BAR", "MAN", "L"]),
       area=st.sampled_from(["europe", "rotw"]), plus=st.integers(0, 2))
def test_movement_attrition_total_is_die_plus_modifiers(ld, causes, man, die, tech, area, plus):
    r = EU.get("M10").resolve({"ld": ld, "causes": causes, "commander_man": man, "technology": tech,
                               "p_choice": "ld", "area": area, "path_plus_markers": plus,
                               "pillage_province": {"pillage_plus": min(plus, 2)}}, FixedDice([die] + [4] * 5))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert r.dice[0].values == (die,)
    r.model_dump(mode="json")


@settings(max_examples=100)
@given(ld=st.integers(1, 12), area=st.sampled_from(["europe", "rotw"]))
def test_movement_attrition_losses_grow_with_the_die(ld, area):
    lost = []
    for die in range(1, 11):
        r = EU.get("M10").resolve({"ld": ld, "causes": 1, "technology": "MED", "area": area},
                                  FixedDice([die] + [10] * 5))
        lost.append(sum((e.amount for e in r.effects if e.kind == "ld_lost"), Fraction(0)))
    assert all(a <= b for a, b in zip(lost, lost[1:]))


# --------------------------------------------------------------------------- M11


def test_conquistador_worked_example_6_natives_r30_d80():
    r = EU.get("M11").resolve(
        {"natives_ld": 6, "leader_stats_sum": 9, "stack_ld": 2, "gm_reading": "R30/D80", "province": "Inca~C"},
        FixedDice([6]),
    )
    assert (r.outcome["deserters"], r.outcome["resisters"], r.outcome["eliminated"]) == ("1", "4", "1")
    assert r.gm_supplied == ("gm_reading",)
    battle = [e for e in r.effects if e.kind == "battle_forced"]
    assert battle[0].amount == 4 and battle[0].detail["interceptor"] == "natives"
    assert [e.amount for e in r.effects if e.kind == "ld_lost"] == [Fraction(1)]


@pytest.mark.parametrize("reading,out", [("—", {"R": 0}), ("†", {"R": 100}), ("D20", {"D": 20}),
                                         ("R30/D80", {"R": 30, "D": 80})])
def test_conquistador_readings(reading, out):
    assert parse_conquistador_reading(reading) == out


def test_conquistador_dash_all_resist_and_dagger_none_resist():
    dash = EU.get("M11").resolve({"natives_ld": 5, "leader_stats_sum": 9, "gm_reading": "—"}, FixedDice([5]))
    dagger = EU.get("M11").resolve({"natives_ld": 5, "leader_stats_sum": 9, "gm_reading": "†"}, FixedDice([5]))
    assert dash.outcome["resisters"] == "5" and dash.outcome["eliminated"] == "0"
    assert dagger.outcome["resisters"] == "0" and dagger.outcome["eliminated"] == "5"


def test_conquistador_bad_reading_is_rejected():
    with pytest.raises(ValidationError):
        EU.get("M11").resolve({"natives_ld": 5, "leader_stats_sum": 9, "gm_reading": "X12"}, FixedDice([5]))
    with pytest.raises(RulesError):
        EU.get("M11").resolve({"natives_ld": 5, "leader_stats_sum": 9, "gm_reading": "R30", "gm_reading_total": 9},
                              FixedDice([5]))


M11_MODS = [
    ({"previous_uses_in_area": 2}, [(2, "previous uses of the table in the Area")]),
    ({"missionary_in_stack": True}, [(-1, "missionary in the stack")]),
    ({"stack_ld": 4}, [(1, "stack of at least 4 LD")]),
    ({"stack_has_army": False}, [(-1, "no ARMY counter in the stack")]),
    ({"leader_stats_sum": 6}, [(1, "leader's sum of values 6 or less")]),
]


@pytest.mark.parametrize("kw,expected", M11_MODS)
def test_conquistador_modifiers(kw, expected):
    base = {"natives_ld": 3, "leader_stats_sum": 9, "stack_has_army": True, "gm_reading": "R30"} | kw
    mods = conquistador_modifiers(ConquistadorInputs.model_validate(base))
    assert [(m.value, m.reason) for m in mods] == expected
