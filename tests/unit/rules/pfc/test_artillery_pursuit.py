"""pfc:C2 artillery and pfc:C3 pursuit (pf-cohesion-wargame-tables.fr.txt)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, get_ruleset

C2 = get_ruleset("pfc").get("C2")
C3 = get_ruleset("pfc").get("C3")

# TABLE D'ARTILLERIE as printed: die → cells for BA 1-4, 5-8, 9+ ("" = nothing).
ARTILLERY = {1: ["", "", ""], 2: ["", "", ""], 3: ["", "", ""], 4: ["", "1", "1"], 5: ["1", "1", "1"], 6: ["1", "1", "2*"]}
# TABLE DE POURSUITE as printed: die → cells for BC 1-4, 5-8, 9+.
PURSUIT = {1: ["", "", ""], 2: ["", "", ""], 3: ["", "1", "1"], 4: ["", "1", "1"], 5: ["1", "1", "1"], 6: ["1", "1", "2"]}
BONUS_EDGES = [(1, 0), (4, 0), (5, 1), (8, 1), (9, 2), (30, 2)]


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("ba,col", BONUS_EDGES)
def test_artillery_table_every_cell(die, ba, col):
    r = C2.resolve({"artillery_bonus": ba, "sequence": 2}, FixedDice([die]))
    cell = ARTILLERY[die][col]
    assert r.outcome["pf_lost"] == (int(cell.rstrip("*")) if cell else 0)
    assert r.outcome["morale_test"] is cell.endswith("*")
    assert r.table_cell.column == ["1-4", "5-8", "9+"][col]


@pytest.mark.parametrize("sequence", [1, 3])
def test_artillery_rejected_in_odd_sequences(sequence):
    with pytest.raises(RulesError) as e:
        C2.resolve({"artillery_bonus": 5, "sequence": sequence}, FixedDice([6]))
    assert e.value.field == "sequence" and e.value.rule == "pfc:C2"
    assert "sequence" in str(e.value) and "even" in str(e.value)


@pytest.mark.parametrize("sequence", [2, 4])
def test_artillery_fires_in_even_sequences(sequence):
    assert C2.resolve({"artillery_bonus": 5, "sequence": sequence}, FixedDice([5])).outcome["pf_lost"] == 1


def test_artillery_snow_is_minus_1_to_the_die():
    r = C2.resolve({"artillery_bonus": 9, "sequence": 2, "weather": "snow"}, FixedDice([6]))
    assert [m.value for m in r.modifiers] == [-1] and r.total == 5
    assert r.outcome == {"target": "defender", "pf_lost": 1, "morale_test": False}


def test_artillery_snow_die_1_reads_the_first_row():
    r = C2.resolve({"artillery_bonus": 9, "sequence": 2, "weather": "snow"}, FixedDice([1]))
    assert r.total == 0 and r.table_cell.row == "1-3" and r.outcome["pf_lost"] == 0


def test_artillery_no_fourth_sequence_in_snow():
    with pytest.raises(RulesError) as e:
        C2.resolve({"artillery_bonus": 9, "sequence": 4, "weather": "snow"}, FixedDice([6]))
    assert e.value.field == "sequence"


def test_artillery_star_orders_a_morale_test_of_the_side_fired_upon():
    r = C2.resolve({"artillery_bonus": 9, "sequence": 4, "firing_side": "defender"}, FixedDice([6]))
    assert [(e.kind, e.target, e.amount) for e in r.effects] == [
        ("pf_lost", "attacker", Fraction(2)), ("morale_test", "attacker", None)]


@pytest.mark.parametrize("weather", ["clear", "rain", "mud"])
def test_artillery_other_weathers_have_no_modifier(weather):
    assert C2.resolve({"artillery_bonus": 2, "sequence": 2, "weather": weather}, FixedDice([4])).modifiers == ()


def test_artillery_bonus_0_is_rejected():
    with pytest.raises(ValueError):
        C2.resolve({"artillery_bonus": 0, "sequence": 2}, FixedDice([4]))


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("bc,col", BONUS_EDGES)
def test_pursuit_table_every_cell(die, bc, col):
    r = C3.resolve({"cavalry_bonus": bc}, FixedDice([die]))
    cell = PURSUIT[die][col]
    assert r.outcome["pf_lost"] == (int(cell) if cell else 0)
    assert r.table_cell.column == ["1-4", "5-8", "9+"][col]


def test_pursuit_none_in_mud():
    dice = FixedDice([6])
    r = C3.resolve({"cavalry_bonus": 12, "weather": "mud"}, dice)
    assert r.outcome["pursuit"] is False and r.outcome["pf_lost"] == 0
    assert r.dice == () and dice.unused == 1 and r.effects == ()


@pytest.mark.parametrize("weather,mod", [("rain", -1), ("snow", -1), ("clear", 0)])
def test_pursuit_rain_or_snow_minus_1(weather, mod):
    r = C3.resolve({"cavalry_bonus": 9, "weather": weather}, FixedDice([6]))
    assert sum(m.value for m in r.modifiers) == mod and r.total == 6 + mod
    assert r.outcome["pf_lost"] == (2 if mod == 0 else 1)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.sampled_from([2, 4]), st.sampled_from(["clear", "rain", "mud", "snow"]),
       st.sampled_from(["attacker", "defender"]), st.integers(1, 6))
def test_artillery_invariants(ba, sequence, weather, side, die):
    if weather == "snow" and sequence == 4:
        sequence = 2
    r = C2.resolve({"artillery_bonus": ba, "sequence": sequence, "weather": weather, "firing_side": side},
                   FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert 0 <= r.outcome["pf_lost"] <= 2


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.sampled_from(["clear", "rain", "mud", "snow"]), st.integers(1, 6))
def test_pursuit_invariants(bc, weather, die):
    r = C3.resolve({"cavalry_bonus": bc, "weather": weather}, FixedDice([die]))
    if r.dice:
        assert r.total == die + sum(m.value for m in r.modifiers)
    assert 0 <= r.outcome["pf_lost"] <= 2
