"""M12 movement attrition at sea."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu import EU
from ledger.rules.eu.naval import (
    SeaAttritionInputs,
    SeaZone,
    distance_modifier,
    greatest_sea_difficulty,
    sea_attrition_modifiers,
    start_distance_modifier,
)

BASE = {"nd": 2, "zones": [{"difficulty": 0}], "zones_entered": 1}


def mods_of(**kw):
    return [(m.value, m.reason) for m in sea_attrition_modifiers(SeaAttritionInputs.model_validate(BASE | kw))]


def test_greatest_sea_difficulty_example_5_with_port_and_4_without_gives_4():
    assert greatest_sea_difficulty([SeaZone(difficulty=5, supply_port=True), SeaZone(difficulty=4)]) == 4


@pytest.mark.parametrize(
    "zones,fleets,mod",
    [(3, 0, 0), (4, 1, 1), (9, 1, 2), (1, 2, 0), (2, 2, 2), (5, 2, 4), (1, 3, 0), (3, 3, 4), (4, 5, 8)],
)
def test_distance_modifier_by_fleet_counters(zones, fleets, mod):
    assert distance_modifier(zones, fleets) == mod


@pytest.mark.parametrize("dist,mod", [(0, 0), (1, 3), (2, 6), (4, 6), (5, 9), (12, 9)])
def test_start_distance_from_port(dist, mod):
    assert start_distance_modifier(dist) == mod


M12_MODS = [
    ({}, [(-6, "always")]),
    ({"commander_man": 3}, [(-6, "always"), (-3, "MAN of the commanding leader")]),
    ({"strait_fortifications": [{"area": "rotw", "level": 4}]},
     [(-6, "always"), (2, "closed strait fortifications on the LoS")]),
    ({"zone_maluses_entered": [1, 2]}, [(-6, "always"), (3, "maluses of the sea zones entered")]),
    ({"technology": "CAR"}, [(-6, "always"), (1, "technology CAR (NWD)")]),
    ({"technology": "CAR", "has_nwd": False}, [(-6, "always")]),
    ({"technology": "BAT"}, [(-6, "always"), (-1, "technology BAT")]),
    ({"technology": "VE"}, [(-6, "always"), (-2, "technology VE")]),
    ({"technology": "TD"}, [(-6, "always"), (-2, "technology TD")]),
    ({"technology": "SF"}, [(-6, "always"), (-3, "technology 74S")]),
    ({"bad_weather": True}, [(-6, "always"), (2, "bad weather")]),
    ({"zones": [{"difficulty": 6, "supply_port": True}]},
     [(-6, "always"), (4, "greatest sea difficulty (−2 next to a supply port)")]),
    ({"zones_entered": 4, "fleet_counters": 3},
     [(-6, "always"), (8, "4 zones entered with 3 FLEET counter(s)")]),
    ({"fleet_counters": 2, "arsenal_to_arsenal": True},
     [(-6, "always"), (-1, "several FLEET counters from an arsenal to another")]),
    ({"fleet_counters": 1, "arsenal_to_arsenal": True}, [(-6, "always")]),
    ({"start_distance_from_port": 3}, [(-6, "always"), (6, "started 3 zone(s) away from its port")]),
    ({"corsairs_minus": 1, "corsairs_plus": 1},
     [(-6, "always"), (1, "1 unfriendly Corsair- along the path"), (2, "1 unfriendly Corsair+ along the path")]),
    ({"blockading_at_start": True, "blockading_leader_siege": 2, "blockaded_fortress_level": 3},
     [(-6, "always"), (-2, "siege value of the blockading leader"),
      (2, "half the level of the blockaded fortress (round up)")]),
    ({"blockading_at_start": False, "blockaded_fortress_level": 3}, [(-6, "always")]),
]


@pytest.mark.parametrize("kw,expected", M12_MODS)
def test_sea_attrition_modifiers(kw, expected):
    assert mods_of(**kw) == expected


def test_sea_attrition_reads_remainders_per_10_nd():
    # 12 ND + 1 NDE; 9 − 6 + 4 (difficulty 6 with port) + 2 (2 FLEET, 3 zones) + 3 (1 zone from port) = 12 → 70%
    r = EU.get("M12").resolve(
        {"nd": 12, "nde": 1, "zones": [{"difficulty": 6, "supply_port": True}], "zones_entered": 3,
         "fleet_counters": 2, "start_distance_from_port": 1}, FixedDice([9]))
    assert r.total == 12 and r.table_cell.value == "70%"
    assert [b["cell"] for b in r.outcome["blocks"]] == ["3", "2d", "-"]
    assert r.outcome["left"] == "11/3"
    assert r.effects[0].kind == "nd_lost" and r.effects[0].amount == Fraction(26, 3)


def test_ntd_losing_one_nde_is_destroyed_whole():
    # 2 NTD alone at 10%: "2★", star die 1 → one NDE lost → one NTD destroyed
    r = EU.get("M12").resolve({"nd": 2, "ntd": 2, "has_nwd": False, "zones": [{"difficulty": 3}],
                               "zones_entered": 1}, FixedDice([9, 1]))
    assert r.total == 6
    assert r.outcome["ntd_destroyed"] == 1
    assert r.outcome["left_after_ntd"] == "1"
    assert [(e.kind, e.amount) for e in r.effects] == [("ntd_lost", 1)]


def test_controller_may_put_loss_on_ntd_within_bounds():
    kw = {"nd": 3, "ntd": 1, "zones": [{"difficulty": 2}], "zones_entered": 1}
    # 10 − 6 + 2 = 6 → 10%; 3D at 10%: "2+2d" → 1/3 lost
    r = EU.get("M12").resolve(kw | {"ntd_loss_thirds": 1}, FixedDice([10]))
    assert r.outcome["ntd_destroyed"] == 1 and r.outcome["other_nd_lost"] == "0"
    with pytest.raises(RulesError):
        EU.get("M12").resolve(kw | {"ntd_loss_thirds": 3}, FixedDice([10]))


def test_sea_attrition_gives_the_percentage_for_the_carried_land_stack():
    r = EU.get("M12").resolve(BASE | {"zones": [{"difficulty": 8}]}, FixedDice([7]))  # 7 − 6 + 8 = 9
    assert r.outcome["carried_land_percent"] == 40


@settings(max_examples=200)
@given(nd=st.integers(0, 25), nde=st.integers(0, 2), man=st.integers(0, 6), die=st.integers(1, 10),
       diff=st.integers(0, 6), fleets=st.integers(0, 4), zones=st.integers(0, 10),
       tech=st.sampled_from(["GA", "CAR", "Nau", "GAL", "BAT", "VE", "TD", "74s", "SF"]))
def test_sea_attrition_total_is_die_plus_modifiers_and_never_raises(nd, nde, man, die, diff, fleets, zones, tech):
    if nd + nde == 0:
        nd = 1
    r = EU.get("M12").resolve({"nd": nd, "nde": nde, "commander_man": man, "technology": tech,
                               "zones": [{"difficulty": diff}], "zones_entered": zones, "fleet_counters": fleets},
                              FixedDice([die] + [5] * 5))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert Fraction(r.outcome["lost"]) <= nd + Fraction(nde, 3)
    r.model_dump(mode="json")
