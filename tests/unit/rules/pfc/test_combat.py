"""pfc:C1 combat (pf-cohesion-wargame-tables.fr.txt, TABLE DE COMBAT and its modifiers)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, get_ruleset

C1 = get_ruleset("pfc").get("C1")

# The seed's printed table, copied as printed (tab-separated, blank = no loss), independent of tables/combat.toml.
SEED_TABLE = """\
DÉ\t1-3\t4-6\t7-10\t11-15\t16-21\t22-29\t30-40\t41-60\t61-80\t81 et +
-1\t\t\t\t\t\t\t\t\t\t1
0\t\t\t\t\t\t\t\t\t1\t1
1\t\t\t\t\t\t\t\t1\t1\t1
2\t\t\t\t\t\t\t1\t1\t1\t1
3\t\t\t\t\t\t1\t1\t1\t1\t2
4\t\t\t\t\t1\t1\t1\t1\t2\t2
5\t\t\t\t1\t1\t1\t1\t2\t2\t2*
6\t\t\t1\t1\t1\t1\t2\t2\t3*\t3
7\t\t1\t1\t1\t1\t2\t2\t2*\t3\t3
8\t1\t1\t1\t1\t2\t2\t3*\t3\t3\t4
9\t1\t1\t1\t2\t2\t2*\t3\t3\t4\t4
10\t1\t1\t2\t2\t3*\t3\t3\t4\t4\t5"""
_LINES = [line.split("\t") for line in SEED_TABLE.splitlines()]
COLUMNS = [(int(h.split("-")[0]), int(h.split("-")[1])) if "-" in h else (81, 200) for h in _LINES[0][1:]]
LABELS = ["1-3", "4-6", "7-10", "11-15", "16-21", "22-29", "30-40", "41-60", "61-80", "81+"]
CELLS = [(int(row[0]), c, cell) for row in _LINES[1:] for c, cell in enumerate(row[1:])]

# Neutral inputs: no multiplier, no shift, no die modifier for either side.
NEUTRAL = {
    "attacker_pf": 12,
    "defender_pf": 12,
    "attacker_cohesions": [3],
    "defender_cohesions": [3],
    "terrain": "other",
    "sequence": 1,
}


def fire(inputs, attacker_die=5, defender_die=5):
    r = C1.resolve({**NEUTRAL, **inputs}, FixedDice([attacker_die, defender_die]))
    return r, r.steps[0], r.steps[1]


def _die_for_row(row):
    """Die and bridge flag giving a modified total of ``row`` to the attacker (−2 for the bridge)."""
    return (row, False) if row >= 1 else (row + 2, True)


@pytest.mark.parametrize("row,col,cell", CELLS)
def test_combat_table_every_cell_matches_the_seed_at_both_ends_of_the_column(row, col, cell):
    die, bridge = _die_for_row(row)
    expected_lost = int(cell.rstrip("*")) if cell else 0
    for pf in COLUMNS[col]:
        r, a, _ = fire({"attacker_pf": pf, "across_bridge": bridge}, attacker_die=die)
        assert a.total == row
        assert a.table_cell.row == str(row) and a.table_cell.column == LABELS[col]
        assert a.outcome["pf_lost"] == expected_lost
        assert a.outcome["morale_test"] is cell.endswith("*")
        assert r.outcome["defender_pf_lost"] == expected_lost
        assert r.outcome["defender_morale_test"] is cell.endswith("*")


@pytest.mark.parametrize("low,high", [(3, 4), (6, 7), (10, 11), (15, 16), (21, 22), (29, 30), (40, 41), (60, 61), (80, 81)])
def test_combat_column_boundaries(low, high):
    i = [c[1] for c in COLUMNS].index(low)
    assert fire({"attacker_pf": low})[1].table_cell.column == LABELS[i]
    assert fire({"attacker_pf": high})[1].table_cell.column == LABELS[i + 1]


def test_combat_81_and_more_is_the_last_column_however_large():
    assert fire({"attacker_pf": 500})[1].table_cell.column == "81+"


def test_combat_die_below_minus_1_reads_row_minus_1():
    # die 1, bridge −2, third sequence −1, cohesion 1 vs 4 → −3: total −5, row −1.
    r, a, _ = fire({"attacker_pf": 90, "across_bridge": True, "sequence": 3,
                    "attacker_cohesions": [1], "defender_cohesions": [4]}, attacker_die=1)
    assert a.total == 1 - 2 - 1 - 3 == -5
    assert a.table_cell.row == "-1" and a.outcome["pf_lost"] == 1


def test_combat_die_above_10_reads_row_10():
    r, a, _ = fire({"attacker_pf": 16, "attacker_tactical_bonus": 3}, attacker_die=10)
    assert a.total == 13 and a.table_cell.row == "10"
    assert a.outcome["pf_lost"] == 3 and a.outcome["morale_test"] is True


# --------------------------------------------------------------------------- PF multipliers


def test_combat_attacker_tired_halves_attacker_pf():
    _, a, d = fire({"attacker_pf": 20, "attacker_tired": True})
    assert a.outcome["pf_effective"] == 10 and a.outcome["base_column"] == "7-10"
    assert d.outcome["pf_effective"] == 12


def test_combat_defender_in_fortified_town_quarters_attacker_pf():
    _, a, d = fire({"attacker_pf": 20, "defender_in_fortified_town": True})
    assert a.outcome["pf_effective"] == 5 and a.outcome["base_column"] == "4-6"
    assert d.outcome["pf_effective"] == 12


def test_combat_pf_multipliers_are_cumulative_and_rounded_down_once():
    _, a, _ = fire({"attacker_pf": 20, "attacker_tired": True, "defender_in_fortified_town": True})
    assert a.outcome["pf_multiplied"] == "5/2" and a.outcome["pf_effective"] == 2
    assert a.outcome["base_column"] == "1-3"


def test_combat_multiplied_pf_is_rounded_down():
    _, a, _ = fire({"attacker_pf": 7, "attacker_tired": True})
    assert a.outcome["pf_multiplied"] == "7/2" and a.outcome["pf_effective"] == 3 and a.outcome["base_column"] == "1-3"


@pytest.mark.parametrize("terrain", ["mountain", "defensive"])
def test_combat_cavalry_pf_halved_for_both_sides_in_mountain_or_defensive_terrain(terrain):
    _, a, d = fire({"terrain": terrain, "attacker_pf": 20, "attacker_cavalry_pf": 10,
                    "defender_pf": 12, "defender_cavalry_pf": 12})
    assert a.outcome["pf_effective"] == 15 and a.outcome["base_column"] == "11-15"
    assert d.outcome["pf_effective"] == 6 and d.outcome["base_column"] == "4-6"


@pytest.mark.parametrize("terrain", ["clear", "other"])
def test_combat_cavalry_pf_not_halved_elsewhere(terrain):
    _, a, d = fire({"terrain": terrain, "attacker_pf": 20, "attacker_cavalry_pf": 10, "defender_cavalry_pf": 12})
    assert a.outcome["pf_effective"] == 20 and d.outcome["pf_effective"] == 12 and a.outcome["multipliers"] == []


def test_combat_cavalry_halving_combines_with_tired_and_fortified():
    # (10 + 10/2) × 1/2 × 1/4 = 15/8 → 1
    _, a, _ = fire({"terrain": "mountain", "attacker_pf": 20, "attacker_cavalry_pf": 10,
                    "attacker_tired": True, "defender_in_fortified_town": True})
    assert a.outcome["pf_multiplied"] == "15/8" and a.outcome["pf_effective"] == 1 and len(a.outcome["multipliers"]) == 3


def test_combat_side_whose_multiplied_pf_rounds_to_zero_does_not_fire_nor_roll():
    r = C1.resolve({**NEUTRAL, "attacker_pf": 1, "attacker_tired": True, "defender_in_fortified_town": True},
                   FixedDice([10]))
    a, d = r.steps
    assert a.outcome["fires"] is False and a.dice == () and a.outcome["pf_lost"] == 0
    assert d.dice[0].values == (10,) and d.dice[0].purpose == "combat: defender's fire"
    assert r.outcome["defender_pf_lost"] == 0


# --------------------------------------------------------------------------- column shifts


@pytest.mark.parametrize(
    "flags,attacker_shift,defender_shift",
    [
        ({"flank_attack": True}, 2, 0),
        ({"defender_encircled": True}, 3, 0),
        ({"flank_attack": True, "defender_encircled": True}, 3, 0),  # not cumulative
        ({"terrain": "mountain"}, -1, 0),
        ({"terrain": "defensive"}, -1, 1),
        ({"defender_entrenched": True}, -1, 0),
        ({"sequence": 4}, -1, -1),
        ({"sequence": 3}, 0, 0),
        ({"terrain": "clear"}, 0, 0),
        ({"defender_encircled": True, "defender_entrenched": True, "terrain": "mountain"}, 1, 0),  # cumulative
    ],
)
def test_combat_column_shifts(flags, attacker_shift, defender_shift):
    _, a, d = fire(flags)
    assert a.outcome["column_shift"] == attacker_shift
    assert d.outcome["column_shift"] == defender_shift
    # 12 PF is column 11-15 (index 3): the shift moves the column read.
    assert a.table_cell.column == LABELS[3 + attacker_shift]
    assert d.table_cell.column == LABELS[3 + defender_shift]


def test_combat_flank_with_encircled_is_not_plus_5():
    _, a, _ = fire({"flank_attack": True, "defender_encircled": True})
    assert a.outcome["column_shift"] == 3 and len(a.outcome["shifts"]) == 1 and "encircled" in a.outcome["shifts"][0]


def test_combat_column_shift_stops_at_the_table_edges():
    _, a, _ = fire({"attacker_pf": 100, "defender_encircled": True})
    assert a.table_cell.column == "81+"
    _, a, _ = fire({"attacker_pf": 2, "terrain": "mountain", "defender_entrenched": True, "sequence": 4})
    assert a.outcome["column_shift"] == -3 and a.table_cell.column == "1-3"


# --------------------------------------------------------------------------- die modifiers


@pytest.mark.parametrize(
    "flags,attacker_mods,defender_mods",
    [
        ({"attacker_tactical_bonus": 2}, [2], []),
        ({"defender_tactical_bonus": 1}, [], [1]),
        ({"attacker_cohesions": [4, 4], "defender_cohesions": [2]}, [2], [-2]),
        ({"attacker_cohesions": [4, 3], "defender_cohesions": [3]}, [], []),  # 3.5 − 3 truncated to 0
        ({"attacker_cohesions": [5, 4], "defender_cohesions": [3]}, [1], [-1]),  # 1.5 → 1, −1.5 → −1
        ({"across_bridge": True}, [-2], []),
        ({"terrain": "clear"}, [], [1]),
        ({"sequence": 2}, [], []),
        ({"sequence": 3}, [-1], [-1]),
        ({"sequence": 4}, [-1], [-1]),
    ],
)
def test_combat_die_modifiers(flags, attacker_mods, defender_mods):
    _, a, d = fire(flags, attacker_die=6, defender_die=4)
    assert [m.value for m in a.modifiers] == attacker_mods
    assert [m.value for m in d.modifiers] == defender_mods
    assert a.total == 6 + sum(attacker_mods) and d.total == 4 + sum(defender_mods)
    assert all(m.rule == "pfc:C1" and "Modificateurs au dé" in m.section for m in a.modifiers + d.modifiers)


def test_combat_die_modifiers_are_cumulative():
    _, a, _ = fire({"attacker_tactical_bonus": 1, "across_bridge": True, "sequence": 3,
                    "attacker_cohesions": [5], "defender_cohesions": [3]}, attacker_die=7)
    assert [m.value for m in a.modifiers] == [1, 2, -2, -1] and a.total == 7


# --------------------------------------------------------------------------- simultaneous fire, snow, effects


def test_combat_both_sides_fire_attacker_die_first():
    r, a, d = fire({"attacker_pf": 30, "defender_pf": 16}, attacker_die=8, defender_die=10)
    assert [s.side for s in r.steps] == ["attacker", "defender"]
    assert [x.values[0] for x in r.all_dice()] == [8, 10]
    assert a.outcome["target"] == "defender" and d.outcome["target"] == "attacker"
    # attacker 30 PF, row 8 → 3★ ; defender 16 PF, row 10 → 3★
    assert r.outcome["defender_pf_lost"] == 3 and r.outcome["attacker_pf_lost"] == 3
    kinds = [(e.kind, e.target, e.amount) for e in r.effects]
    assert kinds == [("pf_lost", "attacker", Fraction(3)), ("morale_test", "attacker", None),
                     ("pf_lost", "defender", Fraction(3)), ("morale_test", "defender", None)]


def test_combat_snow_removes_one_sequence_from_the_battle():
    r, _, _ = fire({"weather": "snow", "sequence": 3})
    assert r.outcome["sequences_in_battle"] == 3 and r.outcome["last_sequence"] is True
    with pytest.raises(RulesError) as e:
        fire({"weather": "snow", "sequence": 4})
    assert e.value.field == "sequence" and e.value.rule == "pfc:C1"


def test_combat_snow_leaves_at_least_one_sequence():
    r, _, _ = fire({"weather": "snow", "sequence": 1, "battle_sequences": 1})
    assert r.outcome["sequences_in_battle"] == 1 and r.outcome["last_sequence"] is True


def test_combat_without_snow_the_battle_keeps_its_sequences():
    r, _, _ = fire({"weather": "rain", "sequence": 4})
    assert r.outcome["sequences_in_battle"] == 4 and r.outcome["last_sequence"] is True


@pytest.mark.parametrize("bad", [{"attacker_pf": 0}, {"attacker_cavalry_pf": 13}, {"sequence": 5},
                                 {"terrain": "swamp"}, {"attacker_cohesions": []}, {"attacker_tactical_bonus": -1},
                                 {"sequence": 4, "battle_sequences": 3}, {"unknown": 1}])
def test_combat_rejects_impossible_inputs(bad):
    with pytest.raises(ValueError):
        C1.resolve({**NEUTRAL, **bad}, FixedDice([5, 5]))


# --------------------------------------------------------------------------- invariants

combat_inputs = st.fixed_dictionaries({
    "attacker_pf": st.integers(1, 150),
    "defender_pf": st.integers(1, 150),
    "attacker_cohesions": st.lists(st.integers(0, 6), min_size=1, max_size=4),
    "defender_cohesions": st.lists(st.integers(0, 6), min_size=1, max_size=4),
    "attacker_tactical_bonus": st.integers(0, 4),
    "defender_tactical_bonus": st.integers(0, 4),
    "terrain": st.sampled_from(["clear", "mountain", "defensive", "other"]),
    "attacker_tired": st.booleans(),
    "defender_in_fortified_town": st.booleans(),
    "flank_attack": st.booleans(),
    "defender_encircled": st.booleans(),
    "defender_entrenched": st.booleans(),
    "across_bridge": st.booleans(),
    "sequence": st.integers(1, 3),
    "weather": st.sampled_from(["clear", "rain", "mud", "snow"]),
    "cav": st.tuples(st.floats(0, 1), st.floats(0, 1)),
})


@settings(max_examples=200, deadline=None)
@given(combat_inputs, st.integers(1, 10), st.integers(1, 10))
def test_combat_invariants_no_valid_input_raises_and_total_is_die_plus_modifiers(data, d1, d2):
    fa, fd = data.pop("cav")
    data["attacker_cavalry_pf"] = int(data["attacker_pf"] * fa)
    data["defender_cavalry_pf"] = int(data["defender_pf"] * fd)
    r = C1.resolve(data, FixedDice([d1, d2]))
    for s in r.steps:
        if s.dice:
            assert s.total == s.dice[0].total + sum(m.value for m in s.modifiers)
            assert int(s.table_cell.row) == max(-1, min(10, s.total))
            assert s.table_cell.column in LABELS
        assert s.outcome["pf_lost"] >= 0
    assert r.model_dump(mode="json")["procedure"] == "C1"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150), st.integers(1, 9))
def test_combat_losses_never_decrease_with_the_die(pf, die):
    lo = fire({"attacker_pf": pf}, attacker_die=die)[1].outcome["pf_lost"]
    hi = fire({"attacker_pf": pf}, attacker_die=die + 1)[1].outcome["pf_lost"]
    assert hi >= lo
