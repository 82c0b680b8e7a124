"""Redeployment phase R1–R6 (eu-redeployment-peace-interphase.tex §Redeployment Phase)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU
from ledger.rules.eu import redeployment as r

R1_BASE = {"settlement": "COL", "settlement_level": 3, "province": "Virginia~E", "owner": "ENG", "attacking_ld": 0}


def _mods(ruling):
    return [(m.value, m.reason) for m in ruling.modifiers]


def _kinds(ruling):
    return [(e.kind, e.ers_line, e.amount, e.marker) for e in ruling.effects]


# --------------------------------------------------------------------------- R1


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({"defending_ld": 3}, [3]),
        ({"defending_armies_minus": 1}, [2]),
        ({"defending_armies_plus": 2}, [8]),
        ({"fortress_level": 2}, [2]),
        ({"defending_leader_man": 4}, [4]),
        ({"attacking_ld": 5}, [-5]),
        ({"foreign_settlements_in_area": 2}, [-2]),
        ({"attacking_leader_man": 3}, [-3]),
        ({"natives_beaten": "defeated"}, [3]),
        ({"natives_beaten": "routed"}, [6]),  # not cumulative with +3
        ({}, []),
    ],
)
def test_natives_attack_modifier_list(extra, expected):
    ruling = EU.get("R1").resolve({**R1_BASE, **extra}, FixedDice([5]))
    assert [m.value for m in ruling.modifiers] == expected
    assert all(m.rule == "eu:R1" for m in ruling.modifiers)


def test_natives_attack_on_a_level_3_colony_rolling_5_less_2_ld_destroys_it_and_kills_4_ld():
    # 5 − 2 (2 native LD) + 1 (1 LD in defence) = 4 → row 4–6: 4 levels, 4 LD
    ruling = EU.get("R1").resolve({**R1_BASE, "attacking_ld": 2, "defending_ld": 1}, FixedDice([5]))
    assert ruling.total == 4
    assert ruling.table_cell.row == "4–6"
    assert ruling.outcome == {"settlement_levels_lost": 3, "settlement_level": 0, "settlement_destroyed": True,
                              "land_losses_ld": 4}
    assert ("settlement_reduced", None, Fraction(3), None) in _kinds(ruling)
    assert ("ld_lost", None, Fraction(4), None) in _kinds(ruling)


def test_natives_attack_without_defenders_causes_no_land_loss():
    ruling = EU.get("R1").resolve({**R1_BASE, "attacking_ld": 4}, FixedDice([8]))  # 4 → 4 levels
    assert ruling.outcome["land_losses_ld"] == 0
    assert [e.kind for e in ruling.effects] == ["settlement_reduced"]


def test_natives_attack_beaten_by_a_strong_garrison_does_nothing():
    ruling = EU.get("R1").resolve({**R1_BASE, "defending_armies_plus": 2, "natives_beaten": "routed"},
                                  FixedDice([3]))  # 3 + 8 + 6 = 17
    assert ruling.total == 17
    assert ruling.effects == ()
    assert ruling.outcome["settlement_level"] == 3


def test_natives_attack_rejects_a_negative_ld_naming_the_field():
    with pytest.raises(ValidationError, match="defending_ld"):
        EU.get("R1").resolve({**R1_BASE, "defending_ld": -1}, FixedDice([5]))


# --------------------------------------------------------------------------- R2 trade attack

TRADE = {"action": "trade_attack", "attacker": "privateers", "zone": "STZ Nord", "target_column": "FLEET+",
         "trade_levels_present": 6, "zone_small_number": 3, "privateer_owners": [{"country": "ENG", "major": True}]}


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({"corsair_not_in_zone_sea": True}, [2]),
        ({"single_corsair_minus": True}, [3]),
        ({"target_sides": 3}, [3]),
        ({"defending_nd_without_fleet": True}, [1]),
        ({"defending_fleets_minus": 2}, [4]),
        ({"defending_fleets_plus": 1}, [4]),
        ({"defending_admiral_man": 3}, [3]),
        ({"rounds_at_sea": 2}, [-2]),
        ({"rounds_at_sea": 5}, [-3]),  # max −3
        ({"corsair_admiral_man": 4}, [-4]),
        ({"naval_battle_in_sea": True}, [1]),
        ({"knights_with_christian_port": True}, [-2]),
    ],
)
def test_corsair_trade_attack_modifier_list(extra, expected):
    ruling = EU.get("R2").resolve({"action": {**TRADE, **extra}}, FixedDice([5]))
    assert [m.value for m in ruling.modifiers] == expected
    assert ruling.total == 5 + sum(expected)


def test_privateers_rolling_1_take_4_levels_one_permanent_and_earn_levels_times_small_number():
    ruling = EU.get("R2").resolve({"action": {**TRADE, "largest_fleet": "HOL"}}, FixedDice([1]))
    assert ruling.table_cell.column == "vs Trade FLEET+" and ruling.table_cell.value == 4
    assert ruling.outcome["levels_lost"] == 4 and ruling.outcome["permanent_levels_lost"] == 1
    assert ruling.outcome["privateer_income"] == {"ENG": 12}
    permanent = [e for e in ruling.effects if e.kind == "trade_fleet_lost" and e.detail["permanent"]]
    assert permanent[0].country == "HOL" and permanent[0].amount == 1
    assert ("ducats", "A9", Fraction(12), None) in _kinds(ruling)


def test_trade_attack_reads_the_fleet_minus_column():
    ruling = EU.get("R2").resolve({"action": {**TRADE, "target_column": "FLEET-"}}, FixedDice([5]))
    assert ruling.outcome["levels_lost"] == 1 and ruling.outcome["permanent_levels_lost"] == 1


def test_trade_attack_losses_are_capped_by_levels_present_and_nd_sacrificed_earn_nothing():
    ruling = EU.get("R2").resolve({"action": {**TRADE, "trade_levels_present": 2, "nd_sacrificed": 1}},
                                  FixedDice([1]))
    assert ruling.outcome["levels_lost"] == 2
    assert ruling.outcome["nd_lost_instead"] == 1 and ruling.outcome["trade_levels_lost"] == 1
    assert ruling.outcome["privateer_income"] == {"ENG": 3}
    assert ("nd_lost", None, Fraction(1), None) in _kinds(ruling)


def test_pirates_earn_no_income_and_minors_share_is_void():
    pirates = {**TRADE, "attacker": "pirates", "privateer_owners": []}
    assert not [e for e in EU.get("R2").resolve({"action": pirates}, FixedDice([1])).effects if e.kind == "ducats"]
    owners = [{"country": "TUR", "major": True}, {"country": "Algiers", "major": False}]
    ruling = EU.get("R2").resolve({"action": {**TRADE, "privateer_owners": owners}}, FixedDice([1]))
    assert ruling.outcome["privateer_income"] == {"TUR": 6}  # 12 split in two, Alger's share void


def test_trade_attack_rejects_privateers_without_owner():
    with pytest.raises(ValidationError, match="privateer_owners"):
        EU.get("R2").resolve({"action": {**TRADE, "privateer_owners": []}}, FixedDice([1]))


# --------------------------------------------------------------------------- R2 looting

LOOT = {"action": "looting", "attacker": "privateers", "looter": "ENG", "target": "Cuba", "target_kind": "COL",
        "income": 9, "stored_gold": 20}


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({"single_corsair_minus": True}, [3]),
        ({"defending_armies_minus": 1}, [2]),
        ({"defending_armies_plus": 1}, [4]),
        ({"defending_ld": 2}, [2]),
        ({"defending_leader_man": 2}, [2]),
        ({"rounds_in_province": 4}, [-3]),
        ({"corsair_admiral_man": 5}, [-5]),
        ({"corsair_admiral_man": 5, "in_europe": True}, [-2]),  # half, rounded down
        ({"knights_with_christian_port": True}, [-2]),
        ({"fortress": "fort"}, [1]),
        ({"fortress": "3"}, [6]),
    ],
)
def test_corsair_looting_modifier_list(extra, expected):
    ruling = EU.get("R2").resolve({"action": {**LOOT, **extra}}, FixedDice([5]))
    assert [m.value for m in ruling.modifiers] == expected


@pytest.mark.parametrize(
    "die,pillage,loot,gold",
    [(1, "Pillage+ (full looting)", 0, 0), (2, "Pillage− (weak looting)", 4, 20), (8, None, 0, 0)],
)
def test_corsair_looting_results(die, pillage, loot, gold):
    # die 1 with −1 (one round in the province) → 0: ‡ full looting
    action = {**LOOT, "rounds_in_province": 1}
    ruling = EU.get("R2").resolve({"action": action}, FixedDice([die]))
    if die == 1:
        loot, gold = 9, 20
    assert ruling.outcome["pillage"] == pillage
    assert (ruling.outcome["loot_income"], ruling.outcome["gold_captured"]) == (loot, gold)


def test_full_looting_pays_income_to_a9_and_gold_to_a10():
    ruling = EU.get("R2").resolve({"action": {**LOOT, "rounds_in_province": 1}}, FixedDice([1]))
    assert ("ducats", "A9", Fraction(9), None) in _kinds(ruling)
    assert ("ducats", "A10", Fraction(20), None) in _kinds(ruling)
    assert ("marker_placed", None, None, "Pillage+") in _kinds(ruling)


def test_pirates_looting_place_the_marker_but_earn_nothing():
    action = {**LOOT, "attacker": "pirates", "looter": None, "rounds_in_province": 1}
    ruling = EU.get("R2").resolve({"action": action}, FixedDice([1]))
    assert [e.kind for e in ruling.effects] == ["marker_placed"]


# --------------------------------------------------------------------------- R2 minors


@pytest.mark.parametrize("die,minus,plus,success", [(7, 1, 0, True), (6, 1, 0, False), (4, 0, 2, True),
                                                    (3, 0, 2, False), (8, 0, 0, True)])
def test_minors_against_pirates_eliminate_a_corsair_on_8_or_more(die, minus, plus, success):
    action = {"action": "minors_vs_pirates", "zone": "STZ Lion", "minor_fleets_minus": minus,
              "minor_fleets_plus": plus}
    ruling = EU.get("R2").resolve({"action": action}, FixedDice([die]))
    assert ruling.total == die + minus + 2 * plus
    assert ruling.outcome["success"] is success
    assert bool(ruling.effects) is success


# --------------------------------------------------------------------------- R3


@pytest.mark.parametrize("plus,minus,loss", [(0, 0, 0), (0, 3, 1), (1, 0, 1), (2, 1, 3), (3, 2, 3), (5, 0, 3)])
def test_revolts_cost_one_stab_per_revolt_plus_and_one_for_all_minus_at_most_three(plus, minus, loss):
    assert r.revolt_stability_loss(plus, minus) == loss


REVOLTS = {"country": "FRA", "national_provinces_owned": 10, "national_provinces_in_revolt": 2,
           "revolts": [{"province": "Morbihan", "side": "-"},
                       {"province": "Languedoc", "side": "+", "extends_to": "Provence"},
                       {"province": "Guyenne", "side": "+", "revolt_ld_present": True}]}


def test_revolts_extend_minus_to_plus_and_plus_spawns_a_minus_or_a_revolt_unit():
    ruling = EU.get("R3").resolve(REVOLTS, FixedDice([]))
    assert ruling.outcome["stability_loss"] == 3
    assert ("stability_changed", None, Fraction(-3), None) in _kinds(ruling)
    placed = [(e.target, e.marker) for e in ruling.effects if e.kind == "marker_placed"]
    assert placed == [("Provence", "Revolt−"), ("Guyenne", "Revolt ARMY−")]
    assert [(e.target, e.detail["to"]) for e in ruling.effects if e.kind == "marker_flipped"] == [("Morbihan", "Revolt+")]
    assert ruling.outcome["monarch_executed"] is False


@pytest.mark.parametrize("owned,in_revolt,executed", [(10, 5, True), (10, 4, False), (9, 5, True), (9, 4, False),
                                                      (1, 1, True), (0, 0, False)])
def test_monarch_is_executed_when_half_the_national_provinces_rounded_up_revolt(owned, in_revolt, executed):
    assert r.monarch_executed(owned, in_revolt) is executed


def test_execution_costs_two_stab_one_dti_and_three_trade_levels():
    ruling = EU.get("R3").resolve({**REVOLTS, "national_provinces_in_revolt": 5}, FixedDice([]))
    kinds = _kinds(ruling)
    assert ("stability_changed", None, Fraction(-2), None) in kinds
    assert ("dti_changed", None, Fraction(-1), None) in kinds
    assert ("trade_fleet_lost", None, Fraction(3), None) in kinds
    assert ruling.outcome["stability_improvement_allowed"] is False


def test_revolts_in_an_inactive_minor_are_removed_without_stability_loss():
    ruling = EU.get("R3").resolve({**REVOLTS, "inactive_minor": True}, FixedDice([]))
    assert ruling.outcome["stability_loss"] == 0
    assert {e.kind for e in ruling.effects} == {"marker_removed"}


# --------------------------------------------------------------------------- R4


def test_land_looting_adjusts_old_markers_then_pays_the_income_of_unmarked_places():
    inputs = {"looter": "FRA",
              "existing_markers": [{"target": "Lombardia", "side": "+"}, {"target": "Genoa", "side": "-"}],
              "looted": [{"target": "Lombardia", "kind": "province", "income": 8, "looter_ld": 4},
                         {"target": "Genoa", "kind": "province", "income": 6, "looter_ld": 4},
                         {"target": "Hispaniola", "kind": "COL", "income": 5, "rotw": True, "looter_ld": 1}]}
    ruling = EU.get("R4").resolve(inputs, FixedDice([]))
    # Milan still bears the flipped Pillage−: no income; Genoa full 6; Hispaniola weak: 5 // 2
    assert [p["income"] for p in ruling.outcome["places"]] == [0, 6, 2]
    assert ruling.outcome["loot_income"] == 8
    assert ("marker_removed", None, None, "Pillage−") in _kinds(ruling)
    assert ("marker_flipped", None, None, "Pillage+") in _kinds(ruling)
    assert ("ducats", "A9", Fraction(8), None) in _kinds(ruling)
    assert [p["marker"] for p in ruling.outcome["places"]] == ["Pillage+", "Pillage+", "Pillage−"]


@pytest.mark.parametrize("rotw,kind,ld,weak", [(True, "COL", 1, True), (True, "TP", 0, True), (True, "COL", 2, False),
                                               (False, "COL", 1, False), (True, "province", 1, False)])
def test_land_looting_is_weak_only_in_the_rotw_with_less_than_2_ld_on_a_settlement(rotw, kind, ld, weak):
    place = r.LootedPlace(target="X", kind=kind, rotw=rotw, looter_ld=ld)
    assert r.weak_looting(place) is weak


def test_land_looting_may_destroy_a_trading_post_instead():
    ruling = EU.get("R4").resolve({"looter": "ENG", "looted": [{"target": "Surat", "kind": "TP", "income": 4,
                                                                 "looter_ld": 2, "destroy_tp": True}]}, FixedDice([]))
    assert ruling.outcome["loot_income"] == 0
    assert [e.kind for e in ruling.effects] == ["settlement_reduced"]
    assert ruling.effects[0].detail["destroyed"] is True
    with pytest.raises(ValidationError, match="destroy_tp"):
        EU.get("R4").resolve({"looter": "ENG", "looted": [{"target": "Lyon", "kind": "province",
                                                            "looter_ld": 2, "destroy_tp": True}]}, FixedDice([]))


# --------------------------------------------------------------------------- R5


@pytest.mark.parametrize(
    "inputs,expected",
    [
        ({"case": "no_line_of_supply"}, [2]),
        ({"case": "siege"}, []),  # inadequate siegeworks: plain movement attrition
        ({"case": "siege", "siegework_plus": True, "siege_choice": "raise"}, [-2]),
        ({"case": "no_line_of_supply", "other_attrition_modifiers": [{"value": -3, "reason": "MAN"}]}, [2, -3]),
    ],
)
def test_mandatory_retreat_attrition_modifiers(inputs, expected):
    ruling = EU.get("R5").resolve({"stack": "A1", **inputs}, FixedDice([]))
    assert [m.value for m in ruling.modifiers] == expected
    assert ruling.outcome["attrition_required"] is True
    assert ruling.outcome["attrition_modifier"] == sum(expected)


def test_no_line_of_supply_rolls_attrition_at_plus_2_with_the_shared_table():
    attrition = {"area": "europe", "ld": 4, "technology": "MUS", "p_choice": "ld"}
    ruling = EU.get("R5").resolve({"case": "no_line_of_supply", "stack": "A1", "attrition": attrition},
                                  FixedDice([8]))
    assert ruling.total == 10
    assert ruling.table_cell.value == "1+P"  # 3–5 LD column at 10
    assert ruling.outcome["attrition_result"]["ld_lost"] == 2


def test_gm_attrition_reading_is_recorded_as_gm_supplied():
    ruling = EU.get("R5").resolve({"case": "no_line_of_supply", "stack": "A1", "gm_attrition_result": "P"},
                                  FixedDice([]))
    assert ruling.gm_supplied == ("attrition result: P",)
    assert ruling.dice == ()


def test_continued_siege_keeps_only_a_siegework_minus():
    ruling = EU.get("R5").resolve({"case": "siege", "stack": "Metz", "siegework_plus": True}, FixedDice([]))
    assert ruling.outcome["siege"] == "continued"
    assert _kinds(ruling) == [("marker_flipped", None, None, "Siegework+")]


@pytest.mark.parametrize(
    "extra,allowed",
    [({}, True), ({"anchor_province": False}, False), ({"owned_by_builder": True}, False),
     ({"military_control": False}, False), ({"military_control": False, "siegework_plus": True}, True),
     ({"current_presidio_level": 1, "target_presidio_level": 3}, False)],
)
def test_presidio_building_conditions(extra, allowed):
    base = {"case": "presidio", "stack": "Oran", "anchor_province": True, "military_control": True,
            "cost_ducats": 25, "builder": "SPA"}
    ruling = EU.get("R5").resolve({**base, **extra}, FixedDice([]))
    assert ruling.outcome["presidio_allowed"] is allowed
    assert (("ducats", "B46", Fraction(25), None) in _kinds(ruling)) is allowed
    assert all(e.country == "SPA" for e in ruling.effects if e.kind == "ducats")


def test_presidio_names_the_builder_who_pays_b46():
    with pytest.raises(ValueError, match="builder"):
        EU.get("R5").resolve({"case": "presidio", "stack": "Oran", "anchor_province": True,
                              "military_control": True, "cost_ducats": 25}, FixedDice([]))


# --------------------------------------------------------------------------- R6


def test_staying_at_sea_adds_2_the_sea_difficulty_and_the_distance_modifier():
    ruling = EU.get("R6").resolve({"action": "stay_at_sea", "stack": "F1", "country": "ENG", "sea_difficulty": 2,
                                   "distance_modifier": 6}, FixedDice([]))
    assert [m.value for m in ruling.modifiers] == [2, 2, 6]
    assert ruling.outcome["attrition_modifier"] == 10


def test_staying_at_sea_rolls_on_the_sea_column_and_remainders():
    ruling = EU.get("R6").resolve({"action": "stay_at_sea", "stack": "F1", "country": "ENG", "sea_difficulty": 2,
                                   "attrition": {"nd": 3}}, FixedDice([2]))
    assert ruling.total == 9 and ruling.table_cell.value == "40%"
    assert ("nd_lost", None, Fraction(1), None) in _kinds(ruling)


def test_return_to_port_needs_a_friendly_unblockaded_port():
    ruling = EU.get("R6").resolve({"action": "return_to_port", "stack": "F1", "country": "ENG"}, FixedDice([]))
    assert ruling.modifiers == () and ruling.outcome["interception_possible"] is False
    with pytest.raises(ValidationError, match="port_blockaded"):
        EU.get("R6").resolve({"action": "return_to_port", "stack": "F1", "country": "ENG", "port_blockaded": True},
                             FixedDice([]))


def test_gold_repatriation_goes_to_ers_a10():
    ruling = EU.get("R6").resolve({"action": "gold_repatriation", "country": "SPA", "gold": 120}, FixedDice([]))
    assert _kinds(ruling) == [("ducats", "A10", Fraction(120), None)]


# --------------------------------------------------------------------------- invariants

small = st.integers(0, 6)
man = st.one_of(st.none(), st.integers(0, 9))

r1_inputs = st.builds(
    r.NativeAttackInputs, settlement=st.sampled_from(["COL", "TP"]), settlement_level=st.integers(1, 6),
    province=st.just("Virginia~E"), owner=st.just("ENG"), defending_ld=small, defending_armies_minus=small,
    defending_armies_plus=small, fortress_level=st.integers(0, 5), defending_leader_man=man, attacking_ld=small,
    foreign_settlements_in_area=small, attacking_leader_man=man,
    natives_beaten=st.sampled_from(["no", "defeated", "routed"]))

trade_inputs = st.builds(
    r.CorsairTradeAttack, attacker=st.just("privateers"), zone=st.just("STZ Caraibes"),
    target_column=st.sampled_from(["FLEET+", "FLEET-"]), corsair_not_in_zone_sea=st.booleans(),
    single_corsair_minus=st.booleans(), target_sides=small, defending_fleets_minus=small,
    defending_fleets_plus=small, defending_admiral_man=man, rounds_at_sea=st.integers(0, 10),
    corsair_admiral_man=man, naval_battle_in_sea=st.booleans(), knights_with_christian_port=st.booleans(),
    trade_levels_present=st.integers(0, 12), nd_sacrificed=small, zone_small_number=st.integers(0, 6),
    privateer_owners=st.just([r.PrivateerOwner(country="ENG", major=True)]))

loot_inputs = st.builds(
    r.CorsairLooting, attacker=st.just("privateers"), looter=st.just("ENG"), target=st.just("T"),
    target_kind=st.sampled_from(["province", "COL", "TP"]), in_europe=st.booleans(),
    single_corsair_minus=st.booleans(), defending_ld=small, corsair_admiral_man=man,
    rounds_in_province=st.integers(0, 6), fortress=st.sampled_from(["none", "fort", "1", "5"]),
    income=st.integers(0, 40), stored_gold=st.integers(0, 100))


@settings(max_examples=150)
@given(r1_inputs, st.integers(1, 10))
def test_natives_attack_total_is_die_plus_modifiers_and_never_raises(inputs, die):
    ruling = EU.get("R1").resolve(inputs, FixedDice([die]))
    assert ruling.total == die + sum(m.value for m in ruling.modifiers)
    assert 0 <= ruling.outcome["settlement_level"] <= inputs.settlement_level
    ruling.model_dump(mode="json")


@settings(max_examples=150)
@given(r1_inputs, st.integers(1, 9))
def test_natives_attack_losses_never_grow_with_a_higher_die(inputs, die):
    low = EU.get("R1").resolve(inputs, FixedDice([die])).outcome
    high = EU.get("R1").resolve(inputs, FixedDice([die + 1])).outcome
    assert high["settlement_levels_lost"] <= low["settlement_levels_lost"]
    assert high["land_losses_ld"] <= low["land_losses_ld"]


@settings(max_examples=150)
@given(trade_inputs, st.integers(1, 10))
def test_trade_attack_income_is_trade_levels_times_small_number(action, die):
    ruling = EU.get("R2").resolve(r.CorsairInputs(action=action), FixedDice([die]))
    assert ruling.total == die + sum(m.value for m in ruling.modifiers)
    out = ruling.outcome
    assert out["levels_lost"] <= action.trade_levels_present
    assert out["trade_levels_lost"] + out["nd_lost_instead"] == out["levels_lost"]
    assert sum(out["privateer_income"].values()) == out["trade_levels_lost"] * action.zone_small_number
    ruling.model_dump(mode="json")


@settings(max_examples=150)
@given(loot_inputs, st.integers(1, 10))
def test_looting_income_never_exceeds_the_place_income(action, die):
    ruling = EU.get("R2").resolve(r.CorsairInputs(action=action), FixedDice([die]))
    assert ruling.total == die + sum(m.value for m in ruling.modifiers)
    assert 0 <= ruling.outcome["loot_income"] <= action.income
    assert ruling.outcome["gold_captured"] in (0, action.stored_gold)
