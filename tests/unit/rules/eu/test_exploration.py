"""M18 exploration."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU
from ledger.rules.eu.exploration import ExplorationInputs, exploration_modifiers

import ledger.rules.eu.exploration  # noqa: F401


def explore(kw, dice):
    return EU.get("M18").resolve(kw, FixedDice(dice))


SEA = {"kind": "sea", "nd": 2, "leader_kind": "explorer", "leader_man": 3, "zone": "Caraibes"}
LAND = {"kind": "land", "ld": 2, "leader_kind": "conquistador", "leader_man": 3, "zone": "Yucatan~N"}

M18_MODS = [
    (LAND, [(4, "all explorations"), (-3, "MAN of the conquistador")]),
    (LAND | {"leader_kind": "explorer", "leader_man": 5}, [(4, "all explorations"), (-2, "MAN of the explorer (halved on land)")]),
    (LAND | {"leader_kind": "general", "leader_man": 5}, [(4, "all explorations")]),
    (LAND | {"missionary_man": 4, "use_missionary": True}, [(4, "all explorations"), (-4, "MAN of the missionary")]),
    (SEA, [(4, "all explorations"), (-3, "MAN of the explorer")]),
    (SEA | {"zone_malus": 2}, [(4, "all explorations"), (-3, "MAN of the explorer"), (2, "malus of the sea zone explored")]),
    (SEA | {"technology": "CAR"}, [(4, "all explorations"), (-3, "MAN of the explorer"), (1, "technology CAR")]),
    (SEA | {"technology": "SF"}, [(4, "all explorations"), (-3, "MAN of the explorer"), (-3, "technology 74S")]),
    (SEA | {"bad_weather": True}, [(4, "all explorations"), (-3, "MAN of the explorer"), (2, "bad weather")]),
    (SEA | {"known_by_another_country": True},
     [(4, "all explorations"), (-3, "MAN of the explorer"), (-2, "period IV+, zone already known by another country")]),
    (LAND | {"bad_weather": True, "zone_malus": 3}, [(4, "all explorations"), (-3, "MAN of the conquistador")]),
]


@pytest.mark.parametrize("kw,expected", M18_MODS)
def test_exploration_modifiers(kw, expected):
    assert [(m.value, m.reason) for m in exploration_modifiers(ExplorationInputs.model_validate(kw))] == expected


def test_success_records_a_hidden_discovery_and_moves_the_stack():
    r = explore(SEA, [3])  # 3 + 4 − 3 = 4 → S, 0%
    assert r.outcome["success"] is True and r.outcome["stack_moves_in"] is True
    disc = [e for e in r.effects if e.kind == "discovery"]
    assert disc[0].target == "Caraibes" and disc[0].detail["brought_home"] is False
    assert r.outcome["hidden"] is True


def test_success_next_to_a_neutral_establishment_stays_in_place():
    r = explore(LAND | {"neutral_establishment": True}, [3])
    assert r.outcome["success"] is True and r.outcome["stack_moves_in"] is False


def test_half_is_rerolled_with_an_unmodified_die():
    # 8 + 4 − 3 = 9 → ½; re-roll 9 → S× (stack with troops: no death test); 40% on 2 LD → "1+d"
    r = explore(SEA, [8, 9])
    assert r.outcome["reading"] == "S×"
    assert r.outcome["success"] is True
    assert r.outcome["death_test"] == {"tested": False}
    assert r.outcome["losses"]["left"] == "4/3"
    assert [d.values for d in r.all_dice()] == [(8,), (9,)]


def test_dagger_tests_the_leaders_death_on_1d10_above_man():
    # 10 + 4 − 3 = 11 → sea F×; land F† → death test
    dies = explore(LAND, [10, 4])
    lives = explore(LAND, [10, 3])
    assert dies.outcome["death_test"]["dies"] is True
    assert lives.outcome["death_test"]["dies"] is False
    assert [e.kind for e in dies.effects if e.kind == "leader_killed"] == ["leader_killed"]


def test_explorer_on_land_dies_on_more_than_half_his_man():
    # MAN 5 halved to 2: 7 + 4 − 2 = 9 → ½, re-roll 2 → F†, death die 3 > 2 → dies
    r = explore(LAND | {"leader_kind": "explorer", "leader_man": 5}, [7, 2, 3])
    assert r.outcome["death_test"] == {"tested": True, "man": 2, "die": 3, "dies": True}


def test_cross_tests_death_only_for_a_leader_alone():
    alone = {"kind": "sea", "leader_kind": "explorer", "leader_man": 3, "leader_alone": True}
    r = explore(alone, [10, 9])  # 11 → F×, leader alone → test; die 9 > 3 → dies; no losses read
    assert r.outcome["death_test"]["dies"] is True
    assert r.outcome["losses"] == {"percent": 60}
    with_troops = explore(SEA, [10])  # F× with troops: no test; 60% of 2 ND → "1"
    assert with_troops.outcome["death_test"] == {"tested": False}
    assert [e.amount for e in with_troops.effects if e.kind == "nd_lost"] == [Fraction(1)]


def test_general_exploring_fails_the_death_test_automatically():
    r = explore(LAND | {"leader_kind": "general", "leader_man": 6}, [9])  # 13 → F†
    assert r.outcome["death_test"]["dies"] is True and len(r.all_dice()) == 1


def test_exploration_rejects_impossible_stacks():
    with pytest.raises(ValidationError):
        explore({"kind": "land"}, [5])
    with pytest.raises(ValidationError):
        explore({"kind": "sea", "leader_alone": True, "leader_kind": "explorer", "nd": 1}, [5])
    with pytest.raises(ValidationError):
        explore(LAND | {"leader_man": 12}, [5])


@settings(max_examples=200)
@given(kind=st.sampled_from(["sea", "land"]), size=st.integers(1, 20), man=st.integers(0, 6),
       leader=st.sampled_from(["explorer", "conquistador", "governor", "general", "admiral", "none"]),
       dice=st.lists(st.integers(1, 10), min_size=6, max_size=6))
def test_exploration_total_is_die_plus_modifiers_and_never_raises(kind, size, man, leader, dice):
    kw = {"kind": kind, "leader_kind": leader, "leader_man": man, ("ld" if kind == "land" else "nd"): size}
    r = explore(kw, dice)
    assert r.total == dice[0] + sum(m.value for m in r.modifiers)
    assert r.outcome["success"] == any(e.kind == "discovery" for e in r.effects)
    r.model_dump(mode="json")
