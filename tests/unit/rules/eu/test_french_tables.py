"""M22: the French seed's static tables (lookup API) and die-driven tables."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu import EU
from ledger.rules.eu import french_tables as ft

F = Fraction


def m22(inputs, dice):
    return EU.get("M22").resolve(inputs, FixedDice(dice))


# --------------------------------------------------------------------------- size comparison


@pytest.mark.parametrize(
    "inflicting,receiving,expected",
    [(7, 0, 2), (7, 2, 2), (7, 3, 1), (7, 6, 0), (4, 4, 0), (2, 7, -2), (0, 2, -1), (5, 7, -1), (3, 1, 1), (6, 2, 1)],
)
def test_size_comparison_reads_inflicting_row_and_receiving_column(inflicting, receiving, expected):
    assert ft.size_comparison(inflicting, receiving) == expected


@given(st.integers(0, 7), st.integers(0, 7))
def test_size_comparison_is_antisymmetric_and_follows_the_divide_by_three_algorithm(a, b):
    value = ft.size_comparison(a, b)
    assert ft.size_comparison(b, a) == -value
    diff = abs(a - b)
    # "diviser la différence … par 3 et arrondir au modificateur le plus proche"
    assert abs(value) == int(F(diff, 3) + F(1, 2))


def test_size_comparison_rejects_a_size_outside_0_7():
    with pytest.raises(RulesError) as e:
        ft.size_comparison(8, 0)
    assert e.value.field == "inflicting"


# --------------------------------------------------------------------------- losses variation


@pytest.mark.parametrize(
    "losses,modifier,expected",
    [
        (F(1, 2), -2, F(1, 2)),
        (4, -2, F(2)),
        (4, -1, F(3)),
        (4, 0, F(4)),
        (4, 1, F(9, 2)),
        (4, 2, F(6)),
        (F(5, 2), 1, F(3)),
        (1, 2, F(2)),
        (8, -2, F(4)),
        (8, 2, F(10)),
        (0, 2, F(0)),
    ],
)
def test_losses_variation_reads_the_printed_cells(losses, modifier, expected):
    assert ft.losses_variation(losses, modifier) == expected


def test_line_0_is_the_step_a_loss_itself():
    # "la ligne 0 correspondant au nombre de perte calculé à l'étape A": thirds pass through.
    for losses in (F(1, 3), F(2, 3), F(1, 2), F(4, 3), F(7, 3), F(23, 3), F(25, 3)):
        assert ft.losses_variation(losses, 0) == losses


#: (losses at step A, line) -> losses inflicted, then after step F ("à l'entier inférieur (sauf 1/2
#: qui devient 1)"). A third on another line is read in the half column at or below it.
SEED_THIRDS = [
    (F(1, 3), -2, F(0), 0), (F(1, 3), -1, F(0), 0), (F(1, 3), 0, F(1, 3), 0), (F(1, 3), 1, F(0), 0), (F(1, 3), 2, F(0), 0),
    (F(2, 3), -2, F(1, 2), 1), (F(2, 3), -1, F(1, 2), 1), (F(2, 3), 0, F(2, 3), 1), (F(2, 3), 1, F(1, 2), 1), (F(2, 3), 2, F(1), 1),
    (F(1, 2), -2, F(1, 2), 1), (F(1, 2), -1, F(1, 2), 1), (F(1, 2), 0, F(1, 2), 1), (F(1, 2), 1, F(1, 2), 1), (F(1, 2), 2, F(1), 1),
]


@pytest.mark.parametrize("losses,line,inflicted,after_rounding", SEED_THIRDS)
def test_a_third_two_thirds_and_a_half_on_each_line(losses, line, inflicted, after_rounding):
    from ledger.rules.eu import combat_tables as ct

    assert ft.losses_variation(losses, line) == inflicted
    assert ct.round_losses(inflicted) == after_rounding


@pytest.mark.parametrize(
    "losses,column", [(F(1, 3), 0), (F(2, 3), F(1, 2)), (F(4, 3), 1), (F(5, 3), F(3, 2)), (F(7, 3), 2), (F(1, 6), 0), (3, 3)]
)
def test_losses_in_thirds_are_read_in_the_half_column_at_or_below(losses, column):
    assert ft.losses_column(losses) == column


def test_losses_above_8_use_the_last_column_offsets():
    assert ft.losses_variation(9, -2) == F(11, 2)  # 9 − 3½
    assert ft.losses_variation(9, -1) == F(15, 2)  # 9 − 1½
    assert ft.losses_variation(9, 0) == 9
    assert ft.losses_variation(9, 2) == 11


def test_losses_variation_rejects_a_modifier_outside_minus2_plus2():
    with pytest.raises(RulesError) as e:
        ft.losses_variation(2, 3)
    assert e.value.field == "modifier"


@given(st.integers(0, 60).map(lambda n: F(n, 6)), st.integers(-2, 1))
def test_losses_after_rounding_never_fall_as_the_line_rises(losses, row):
    # Line 0 passes thirds through while other lines read a half column, so the exact values may
    # cross (⅔ on line 0 vs ½ on line +1); the LD a battle takes (after step F) never do.
    from ledger.rules.eu import combat_tables as ct

    assert ct.round_losses(ft.losses_variation(losses, row)) <= ct.round_losses(ft.losses_variation(losses, row + 1))


@given(st.integers(0, 48).map(lambda n: F(n, 6)), st.integers(-2, 2))
def test_losses_variation_is_monotonic_in_the_losses_up_to_8(losses, row):
    assert ft.losses_variation(losses, row) <= ft.losses_variation(losses + F(1, 2), row)


# --------------------------------------------------------------------------- other static tables


@pytest.mark.parametrize(
    "cls,period,value", [("im", "II", 7), ("i", "VI", 2), ("ii", "VII", 0), ("iv", "V", 3), ("ivm", "VII", 4), ("a", "I", 7)]
)
def test_army_class_values_by_period(cls, period, value):
    assert ft.army_class_value(cls, period) == value


def test_cavalry_per_detachment_exact_fractions_and_unprinted_cell():
    assert ft.cavalry_per_detachment("turkey_russia_hordes", "I") == 4
    assert ft.cavalry_per_detachment("turkey_russia_hordes", "IV") == 3
    assert ft.cavalry_per_detachment("france_group", "V") == 2
    assert ft.cavalry_per_detachment("france_group", "II") == F(3, 2)
    assert ft.cavalry_per_detachment("sweden", "IV") == 2
    with pytest.raises(RulesError):
        ft.cavalry_per_detachment("france_group", "VII")


def test_artillery_per_army_plus_and_minus_and_unprinted():
    assert ft.artillery_per_army("France", "V") == 6
    assert ft.artillery_per_army("France", "V", face="-") == 3
    assert ft.artillery_per_army("Russie", "I", face="-") == 0
    assert ft.artillery_per_army("a", "VI") == 2
    with pytest.raises(RulesError):
        ft.artillery_per_army("Hollande", "I")


@pytest.mark.parametrize(
    "cls,period,points",
    [("i", "I", 5), ("i", "VII", 5), ("iv", "VI", 6), ("iiim", "IV", 4), ("iiim", "VI", 4), ("iii", "III", 3), ("ivm", "VI", 4), ("ivm", "VII", 6), ("iim", "VII", 4)],
)
def test_sea_transport_points_section_2_7_4(cls, period, points):
    assert ft.sea_transport_points(cls, period) == points


def test_sea_transport_points_older_section_2_4_4():
    assert ft.sea_transport_points("i", "III", version="2.4.4") == 30
    assert ft.sea_transport_points("iv", "VI", version="2.4.4") == 35
    with pytest.raises(RulesError):
        ft.sea_transport_points("iv", "V", version="2.4.4")


@pytest.mark.parametrize("d,mult", [(0, F(1, 10)), (1, F(1, 10)), (2, F(1, 4)), (4, F(1, 2)), (7, 1), (10, F(5, 4)), (14, F(7, 4))])
def test_naval_loss_multiplier(d, mult):
    assert ft.naval_loss_multiplier(d) == mult


def test_naval_losses_modified_rounds_up_to_the_half_and_drops_small_results():
    assert ft.naval_losses_modified(2, 4) == 1  # 2 × 0.5
    assert ft.naval_losses_modified(3, 6) == F(5, 2)  # 2.25 → 2.5
    assert ft.naval_losses_modified(1, 2) == 0  # 0.25 ≤ 0.3
    assert ft.naval_losses_modified(2, 20) == 5  # 14 D: 2 × 1.75, plus the 6 D rest: 2 × 0.75

def test_naval_loss_distribution_blocks_of_three():
    assert ft.naval_loss_distribution(F(5, 2)) == {"destroyed": ["1"], "immobilised": ["1"], "damaged": ["de"]}
    assert ft.naval_loss_distribution(4) == {"destroyed": ["1", "de"], "immobilised": ["1", "de"], "damaged": ["1", "de"]}
    with pytest.raises(RulesError):
        ft.naval_loss_distribution(F(1, 2))


def test_recruitment_fortress_costs_and_monarch_values():
    assert ft.recruitment_limit("Espagne", "I") == 5
    assert ft.recruitment_limit("Prusse", "VII") == 3
    with pytest.raises(RulesError):
        ft.recruitment_limit("Venise", "V")
    assert ft.fortress_cost(3) == {"cost": 50, "technology": "Renaissance", "maintenance": 3}
    assert ft.monarch_average_value(9, 10) == (5, True)
    assert ft.monarch_average_value(3, 7) == (0, False)


# --------------------------------------------------------------------------- M22 die tables


@pytest.mark.parametrize(
    "inputs,expected",
    [
        ({"ld": 3}, [(3, "3 detachment(s) present (+1 each)")]),
        ({"armies_minus": 1, "armies_plus": 2}, [(2, "1 ARMY− present (+2 each)"), (8, "2 ARMY+ present (+4 each)")]),
        ({"man_differential": -2}, [(-2, "MAN differential")]),
        ({"terrain_not_plain": True, "strong_revolt": True}, [(-3, "terrain other than plain"), (-2, "strong revolt (face +)")]),
        ({"france_wars_of_religion": True}, [(1, "revolt in France during the wars of religion")]),
    ],
)
def test_revolt_reduction_modifiers(inputs, expected):
    r = m22({"table": "revolt_reduction", **inputs}, [1])
    assert [(m.value, m.reason) for m in r.modifiers] == expected
    assert all(m.rule == "eu:M22" for m in r.modifiers)


def test_revolt_reduction_succeeds_on_8_and_on_unmodified_10_whatever_the_modifiers():
    ok = m22({"table": "revolt_reduction", "ld": 1}, [7])
    assert ok.total == 8 and ok.outcome["success"] is True
    assert ok.effects[0].kind == "marker_removed"
    bad = m22({"table": "revolt_reduction", "terrain_not_plain": True, "strong_revolt": True}, [10])
    assert bad.total == 5 and bad.outcome["success"] is True and bad.outcome["reason"] == "unmodified 10"
    assert bad.effects[0].kind == "marker_flipped"
    fail = m22({"table": "revolt_reduction"}, [7])
    assert fail.outcome["success"] is False and fail.effects == ()


@pytest.mark.parametrize(
    "inputs,expected",
    [
        ({"corsair_face": "-"}, [-1]),
        ({"corsair_face": "+"}, [-3]),
        ({"corsair_face": "-", "fleets_minus": 1, "fleets_plus": 1, "naval_units_present": True}, [2, 4, 1, -1]),
        ({"corsair_face": "+", "man_differential": 2, "naval_battle_in_zone": True}, [2, -3, -1]),
    ],
)
def test_pirate_reduction_modifiers(inputs, expected):
    r = m22({"table": "pirate_reduction", **inputs}, [5])
    assert [m.value for m in r.modifiers] == expected


def test_pirate_reduction_8_plus_and_unmodified_10():
    assert m22({"table": "pirate_reduction", "corsair_face": "+", "fleets_plus": 1}, [7]).outcome["success"] is True
    assert m22({"table": "pirate_reduction", "corsair_face": "+"}, [10]).outcome["success"] is True
    assert m22({"table": "pirate_reduction", "corsair_face": "+"}, [9]).outcome["success"] is False


def test_crusade_call_10_plus_without_an_unmodified_10_rule():
    r = m22({"table": "crusade_call", "year": 1530, "reformation_happened": True}, [10])
    assert r.total == 7 and r.outcome["success"] is False
    r = m22({"table": "crusade_call", "year": 1530, "vienna_captured": True, "provinces_taken_by_turkey": 2, "catholic_majors_at_war_elsewhere": 1}, [5])
    assert [m.value for m in r.modifiers] == [2, 5, -2] and r.total == 10 and r.outcome["success"] is True


def test_crusade_call_exists_only_before_1615():
    with pytest.raises(ValueError, match="year"):
        m22({"table": "crusade_call", "year": 1620}, [5])


def test_minor_enters_war_8_plus_with_its_modifiers():
    r = m22({"table": "minor_enters_war", "diplomatic_control_level": 3, "common_border_with_enemy": True, "already_at_war": True, "enemy_far": True}, [9])
    assert [m.value for m in r.modifiers] == [3, 2, -4, -4] and r.total == 6 and r.outcome["success"] is False


def test_older_peace_with_minor_5_plus_and_the_capped_peace_differential():
    r = m22({"table": "peace_with_minor_old", "peace_level_offered": -1, "minor_kind": "hard", "provinces_lost_by_minor": 1, "peace_differential": 5}, [1])
    assert [m.value for m in r.modifiers] == [-2, -3, 3, 3]
    assert r.total == 2 and r.outcome["success"] is False
    ok = m22({"table": "peace_with_minor_old", "peace_level_offered": 0}, [5])
    assert ok.outcome["success"] is True and ok.effects[0].kind == "peace"


def test_replacement_leader_reads_the_country_column_and_asks_the_gm_beyond_the_printed_cells():
    assert m22({"table": "replacement_leader", "country": "France"}, [4]).outcome["leader"] == "412"
    with pytest.raises(RulesError) as e:
        m22({"table": "replacement_leader", "country": "Venise"}, [4])
    assert e.value.field == "gm_reading"
    r = m22({"table": "replacement_leader", "country": "Venise", "gm_reading": "211"}, [4])
    assert r.outcome["leader"] == "211" and r.gm_supplied


@pytest.mark.parametrize("die,count", [(1, 0), (4, 0), (5, 1), (6, 1), (7, 2), (9, 3), (10, 3)])
def test_mercenary_generals(die, count):
    assert m22({"table": "mercenary_generals"}, [die]).outcome["available"] == count


def test_monarch_combat_average_then_one_adjustment_per_value_and_country_bonus():
    r = m22({"table": "monarch_combat", "mil": 6, "country": "SUE"}, [7, 1, 10, 5])
    assert r.outcome["average"] == 2
    assert r.outcome["values"] == {"fire": 1, "shock": 5, "manoeuvre": 2}
    low = m22({"table": "monarch_combat", "mil": 3}, [1, 1, 1, 1])
    assert low.outcome["values"] == {"fire": 0, "shock": 0, "manoeuvre": 0}


@pytest.mark.parametrize("typed", ["SUE", "SWE", "Sweden", "suede"])
def test_a_swedish_monarch_gets_the_seeds_sue_bonus_by_any_of_its_names(typed):
    r = m22({"table": "monarch_combat", "mil": 6, "country": typed}, [7, 1, 10, 5])
    assert r.inputs["country"] == "SWE"
    assert [(m.value, m.reason) for m in r.modifiers] == [(1, "SWE +1 fire"), (1, "SWE +1 shock")]


def test_a_monarch_of_an_unknown_country_is_refused_not_left_without_bonus():
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as e:
        m22({"table": "monarch_combat", "mil": 6, "country": "Swedish"}, [7, 1, 10, 5])
    assert e.value.errors()[0]["loc"][-1] == "country"


def test_military_situation_index_capital_counts_two():
    r = m22({"table": "military_situation", "provinces_held": 1, "capitals_held": 1, "provinces_lost": 0}, [])
    assert r.outcome == {"table": "military_situation", "surplus": 3, "index": 1, "added_to": "peace differential"}
    assert m22({"table": "military_situation", "provinces_held": 5, "provinces_lost": 1}, []).outcome["index"] == 2
    assert m22({"table": "military_situation", "provinces_held": 1, "provinces_lost": 0}, []).outcome["index"] == 0


def test_m22_rejects_an_unknown_table_and_unknown_fields():
    with pytest.raises(ValueError, match="tag 'bogus'"):
        m22({"table": "bogus"}, [1])
    with pytest.raises(ValueError, match="extra"):
        m22({"table": "mercenary_generals", "extra": 1}, [1])


_threshold_inputs = st.one_of(
    st.builds(ft.RevoltReductionInputs, table=st.just("revolt_reduction"), ld=st.integers(0, 8), man_differential=st.integers(-9, 9), terrain_not_plain=st.booleans(), strong_revolt=st.booleans()),
    st.builds(ft.PirateReductionInputs, table=st.just("pirate_reduction"), corsair_face=st.sampled_from(["-", "+"]), fleets_plus=st.integers(0, 3), man_differential=st.integers(-9, 9)),
    st.builds(ft.MinorEntersWarInputs, table=st.just("minor_enters_war"), diplomatic_control_level=st.integers(0, 9), already_at_war=st.booleans()),
    st.builds(ft.PeaceWithMinorOldInputs, table=st.just("peace_with_minor_old"), peace_level_offered=st.integers(-5, 5), peace_differential=st.integers(-20, 20)),
)


@settings(max_examples=150)
@given(_threshold_inputs, st.integers(1, 10))
def test_threshold_tables_total_is_die_plus_modifiers_and_success_is_monotonic(inputs, die):
    r = EU.get("M22").resolve(ft.FrenchTableInputs(inputs), FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    r.model_dump(mode="json")
    if r.outcome["success"] and die < 10:
        assert EU.get("M22").resolve(ft.FrenchTableInputs(inputs), FixedDice([die + 1])).outcome["success"]


def test_country_costs_per_technology():
    assert ft.country_costs("FRA", "GAL")["counter_F+"] == "170"
    assert ft.country_costs("SUE", "L")["maintenance_A+"] == "80/50"
    assert ft.country_costs("VEN", "CAR")["purchase_Ga"] == "0.75"
    with pytest.raises(RulesError):
        ft.country_costs("HAB", "BAR")
    with pytest.raises(RulesError):
        ft.country_costs("ANG", "MED")
