"""M5 supply status, M6 supply attrition, M7 siege attrition."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU
from ledger.rules.eu.supply import (
    SiegeAttritionInputs,
    SupplyAttritionInputs,
    naval_stack_can_supply,
    siege_attrition_modifiers,
    supply_attrition_modifiers,
)

import ledger.rules.eu.supply  # noqa: F401  (registers M5-M7)


def m5(**kw):
    return EU.get("M5").resolve(kw, FixedDice([]))


# --------------------------------------------------------------------------- M5


def test_stack_without_supply_two_consecutive_rounds_is_destroyed():
    r = m5(ld=3, source="none", unsupplied_last_round=True)
    assert r.outcome["stack_destroyed"] is True
    assert [e.kind for e in r.effects] == ["stack_destroyed"]
    assert r.outcome["attrition_roll"] is None


def test_stack_without_supply_first_round_rolls_supply_attrition():
    r = m5(ld=3, source="none")
    assert r.outcome["status"] == "none"
    assert r.outcome["stack_destroyed"] is False
    assert r.outcome["attrition_roll"] == "M6"
    assert r.outcome["attrition_causes"] == 1


@pytest.mark.parametrize(
    "kw,conditions",
    [
        ({"los_mp": 6}, ["line of supply of 6 MP or more"]),
        ({"los_mp": 5}, []),
        ({"los_through_desert": True}, ["line of supply through desert"]),
        ({"source_other_alliance": True}, ["source of supply owned by another alliance"]),
        ({"los_mp": 7, "los_through_desert": True}, ["line of supply of 6 MP or more", "line of supply through desert"]),
    ],
)
def test_weak_supply_conditions_on_land(kw, conditions):
    r = m5(ld=2, source="land", **kw)
    assert r.outcome["status"] == ("weak" if conditions else "full")
    assert r.outcome["reasons"] == conditions
    assert r.outcome["attrition_causes"] == len(conditions)


def test_rotw_detachments_ignore_the_6_mp_condition():
    r = m5(ld=2, source="land", los_mp=8, area="rotw", detachments_only=True)
    assert r.outcome["status"] == "full"


def test_naval_supplier_not_adjacent_to_a_port_gives_weak_supply():
    r = m5(ld=2, source="naval", naval_supplier="fleet_minus", naval_supplier_adjacent_to_port=False)
    assert r.outcome["status"] == "weak"


@pytest.mark.parametrize(
    "naval,ld,pashas,army,ok",
    [
        ("nde_only", 1, 0, False, True),
        ("nde_only", 2, 0, False, False),
        ("nd", 3, 0, False, True),
        ("nd", 3, 0, True, False),
        ("nd", 4, 0, False, False),
        ("fleet_minus", 5, 1, True, True),
        ("fleet_minus", 6, 0, True, False),
        ("fleet_minus", 5, 2, True, False),
        ("fleet_plus", 40, 3, True, True),
    ],
)
def test_naval_supply_size_table(naval, ld, pashas, army, ok):
    assert naval_stack_can_supply(naval, ld, pashas, army) is ok


def test_too_small_naval_supplier_means_no_supply():
    r = m5(ld=4, source="naval", naval_supplier="nd")
    assert r.outcome["status"] == "none"
    assert r.table_cell.value == "3 LD, no ARMY"


def test_besieged_stack_rolls_siege_attrition_instead_of_supply_attrition():
    r = m5(ld=2, source="land", los_mp=7, besieged=True)
    assert r.outcome["attrition_roll"] == "M7"


def test_besieged_stack_resupplied_by_sea_is_in_full_supply_and_does_not_roll():
    r = m5(ld=2, source="land", los_mp=7, besieged=True, fortress_resupplied_by_sea=True)
    assert r.outcome["attrition_roll"] is None
    assert r.outcome["status"] == "full"


def test_rotw_fort_supplies_ld_only():
    r = m5(ld=2, has_army=True, source="land", source_kind="fort", area="rotw")
    assert r.outcome["status"] == "none"


# --------------------------------------------------------------------------- M6

M6_MODS = [
    ({"causes": 3}, [(4, "2 cause(s) of attrition above the first")]),
    ({"ld": 6}, [(2, "massed forces (more than 5 LD and 1 Pasha)")]),
    ({"ld": 3, "pashas": 2}, [(2, "massed forces (more than 5 LD and 1 Pasha)")]),
    ({"ld": 5, "pashas": 1}, []),
    ({"no_los": True}, [(2, "no line of supply")]),
    ({"enemy_fortress": True}, [(2, "fortress of the province controlled by the enemy")]),
    ({"commander_man": 3}, [(-3, "MAN of the commander")]),
    ({"strait_fortifications": [{"area": "europe"}, {"area": "rotw", "level": 3}]},
     [(3, "strait fortifications on the naval LoS")]),
    ({"pillage_minus": 1, "revolt_minus": 1}, [(2, "2 Pillage-/Revolt-/unfriendly Rebellion- in the province")]),
    ({"pillage_plus": 2, "unfriendly_rebellion_plus": 1}, [(6, "3 Pillage+/Revolt+/unfriendly Rebellion+ in the province")]),
    ({"snowflakes": 2}, [(2, "snowflakes of the ROTW cold area")]),
]


@pytest.mark.parametrize("kw,expected", M6_MODS)
def test_supply_attrition_modifiers(kw, expected):
    base = {"ld": 2, "causes": 1} | kw
    mods = supply_attrition_modifiers(SupplyAttritionInputs.model_validate(base))
    assert [(m.value, m.reason) for m in mods] == expected
    assert all(m.rule == "eu:M6" for m in mods)


def test_supply_attrition_europe_mus_pillage_choice_has_no_foraging():
    r = EU.get("M6").resolve(
        {"ld": 7, "causes": 1, "technology": "MUS", "p_choice": "pillage", "province": "Artois"}, FixedDice([7])
    )
    # 7 + 2 massed = 9 → "2+P" in the ≥6 column
    assert r.total == 9
    assert r.table_cell.value == "2+P"
    assert r.outcome["ld_lost"] == 2
    assert r.outcome["p_resolution"]["foraging"] is False
    assert [(e.kind, e.marker) for e in r.effects] == [("ld_lost", None), ("marker_placed", "Pillage-")]


def test_supply_attrition_low_technology_p_merges_pillage():
    r = EU.get("M6").resolve({"ld": 2, "causes": 1, "technology": "ARQ", "pillage_minus": 1}, FixedDice([5]))
    # 5 + 1 (Pillage- in the province) = 6 → 2 LD column "P"
    assert r.outcome["ld_lost"] == 1
    assert r.outcome["p_resolution"]["pillage"] == "merged"


def test_supply_attrition_rotw_reads_remainders():
    r = EU.get("M6").resolve({"ld": 6, "causes": 1, "area": "rotw", "commander_man": 1}, FixedDice([9]))
    # 9 + 2 massed − 1 = 10 → 50% → 6D: 3 left
    assert r.total == 10
    assert r.outcome["percent"] == 50
    assert r.effects[0].amount == Fraction(3)


def test_supply_attrition_five_or_less_has_no_effect():
    r = EU.get("M6").resolve({"ld": 7, "causes": 1, "commander_man": 4}, FixedDice([7]))
    assert r.total == 5 and r.effects == ()


def test_supply_attrition_rejects_an_empty_stack_and_bad_technology():
    with pytest.raises(ValidationError):
        EU.get("M6").resolve({"ld": 0, "causes": 1}, FixedDice([5]))
    with pytest.raises(ValidationError):
        EU.get("M6").resolve({"ld": 2, "causes": 1, "technology": "XYZ"}, FixedDice([5]))
    with pytest.raises(ValidationError):
        EU.get("M6").resolve({"ld": -1, "causes": 1}, FixedDice([5]))


# --------------------------------------------------------------------------- M7

M7_MODS = [
    ({"besieged_leader_siege": 2}, [(-2, "siege value of a besieged leader")]),
    ({"besieger_leader_siege": 1}, [(1, "siege value of a besieging or blockading leader")]),
    ({"unblocked_port": True}, [(-3, "besieged in an unblocked port")]),
    ({"usure_minus": 2}, [(2, "2 Usure-")]),
    ({"usure_plus": 1}, [(3, "1 Usure+")]),
]


@pytest.mark.parametrize("kw,expected", M7_MODS)
def test_siege_attrition_modifiers(kw, expected):
    mods = siege_attrition_modifiers(SiegeAttritionInputs.model_validate({"ld": 2} | kw))
    assert [(m.value, m.reason) for m in mods] == expected


def test_siege_attrition_p_is_always_one_ld_for_the_besieged():
    r = EU.get("M7").resolve({"ld": 3, "technology": "L", "usure_plus": 1}, FixedDice([7]))
    # 7 + 3 = 10 → 3-5 column "1+P": 1 + 1 LD, no Pillage
    assert r.outcome["ld_lost"] == 2
    assert not any(e.marker for e in r.effects)


def test_siege_attrition_skipped_when_resupplied_by_sea():
    dice = FixedDice([])
    r = EU.get("M7").resolve({"ld": 3, "resupplied_by_sea": True}, dice)
    assert r.outcome["skipped"] is True and r.dice == ()


# --------------------------------------------------------------------------- invariants

_tech = st.sampled_from(["MED", "REN", "ARQ", "MUS", "BAR", "MAN", "L"])


@settings(max_examples=200)
@given(
    ld=st.integers(1, 25), lde=st.integers(0, 2), causes=st.integers(1, 4), man=st.integers(0, 6),
    tech=_tech, choice=st.sampled_from(["ld", "pillage"]), area=st.sampled_from(["europe", "rotw"]),
    minus=st.integers(0, 1), plus=st.integers(0, 2), die=st.integers(1, 10),
)
def test_supply_attrition_total_is_die_plus_modifiers_and_never_raises(ld, lde, causes, man, tech, choice, area,
                                                                      minus, plus, die):
    r = EU.get("M6").resolve(
        {"ld": ld, "lde": lde, "causes": causes, "commander_man": man, "technology": tech, "p_choice": choice,
         "area": area, "pillage_minus": minus, "pillage_plus": plus},
        FixedDice([die] + [5] * 10),
    )
    assert r.total == die + sum(m.value for m in r.modifiers)
    lost = sum((e.amount for e in r.effects if e.kind == "ld_lost"), Fraction(0))
    assert 0 <= lost <= ld + Fraction(lde, 3)
    r.model_dump(mode="json")
