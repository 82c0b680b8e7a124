"""pfc:C7 terrain, movement points and stacking (TABLE DES MOUVEMENTS, TABLE D'EFFETS DU TERRAIN)."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, get_ruleset

C7 = get_ruleset("pfc").get("C7")
BASE = {"general": 8, "cavalry": 8, "infantry": 6, "artillery_reserve": 6}
WEATHER = {  # Effets météo
    "clear": {"general": 0, "cavalry": 0, "infantry": 0, "artillery_reserve": 0},
    "rain": {"general": -1, "cavalry": -1, "infantry": -1, "artillery_reserve": -1},
    "snow": {"general": -1, "cavalry": -1, "infantry": -1, "artillery_reserve": -1},
    "mud": {"general": -2, "cavalry": -2, "infantry": -1, "artillery_reserve": -3},
}


def move(**inputs):
    return C7.resolve(inputs, FixedDice([]))


@pytest.mark.parametrize("weather", list(WEATHER))
@pytest.mark.parametrize("unit_type", list(BASE))
def test_movement_points_by_unit_type_and_weather(unit_type, weather):
    r = move(unit_type=unit_type, weather=weather)
    assert r.outcome["mp_allowance"] == BASE[unit_type] + WEATHER[weather][unit_type] == r.total
    assert r.dice == ()


def test_movement_uncommanded_unit_loses_1_mp():
    r = move(unit_type="infantry", weather="mud", commanded=False)
    assert r.outcome["mp_allowance"] == 6 - 1 - 1
    assert [m.value for m in r.modifiers] == [6, -1, -1] and r.total == sum(m.value for m in r.modifiers)


@pytest.mark.parametrize(
    "weather,path,cost",
    [
        ("clear", [{"way": "road"}, {"way": "bad_road"}], 3),
        ("clear", [{"way": "road", "crossing": "river"}], 1),
        ("rain", [{"way": "road", "crossing": "river"}], 2),
        ("mud", [{"way": "bad_road", "crossing": "river"}], 3),
        ("snow", [{"way": "road", "crossing": "river"}], 1),
        ("mud", [{"way": "road", "crossing": "bridge"}], 1),
    ],
)
def test_movement_path_costs(weather, path, cost):
    r = move(unit_type="infantry", weather=weather, path=path)
    assert r.outcome["path_cost"] == cost and r.outcome["path_passable"] is True


def test_movement_great_river_only_by_a_bridge():
    r = move(unit_type="cavalry", path=[{"way": "road"}, {"way": "road", "crossing": "great_river"}])
    assert r.outcome["path_passable"] is False and r.outcome["impassable_stretches"] == [1]
    assert r.outcome["path_within_allowance"] is False
    assert move(unit_type="cavalry", path=[{"way": "road", "crossing": "bridge"}]).outcome["path_passable"] is True


def test_movement_path_beyond_the_allowance():
    r = move(unit_type="artillery_reserve", weather="mud", path=[{"way": "bad_road"}, {"way": "bad_road"}])
    assert r.outcome["mp_allowance"] == 3 and r.outcome["path_cost"] == 4 and r.outcome["path_within_allowance"] is False


@pytest.mark.parametrize(
    "stack,allowed",
    [
        ({"infantry": 2, "cavalry": 1}, True),
        ({"infantry": 1, "cavalry": 2}, True),
        ({"cavalry": 3}, True),
        ({"infantry": 3}, False),
        ({"infantry": 2, "cavalry": 2}, False),
        ({"cavalry": 4}, False),
        ({"infantry": 2, "cavalry": 1, "artillery_reserves": 3, "generals": 2}, True),  # they do not count
        ({"infantry": 2, "cavalry": 1, "decoys": 1}, False),  # decoys count
        ({"infantry": 1, "decoys": 2}, True),
        ({"infantry": 4, "cavalry": 4, "decoys": 2, "commander_in_chief_present": True}, True),
    ],
)
def test_movement_stack_limits(stack, allowed):
    assert move(unit_type="general", stack=stack).outcome["stack_allowed"] is allowed


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(list(BASE)), st.sampled_from(list(WEATHER)), st.booleans(),
       st.lists(st.fixed_dictionaries({"way": st.sampled_from(["road", "bad_road"]),
                                       "crossing": st.sampled_from(["none", "bridge", "river", "great_river"])}),
                max_size=5))
def test_movement_invariants(unit_type, weather, commanded, path):
    r = move(unit_type=unit_type, weather=weather, commanded=commanded, path=path)
    assert r.total == sum(m.value for m in r.modifiers) >= 1
    if path:
        assert r.outcome["path_cost"] >= len(path)
