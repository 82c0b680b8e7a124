"""M21 sieges (eu-military-rules.tex §Sieges; eu8 §2.3; TABLES.md Sieges)."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, sieges

M21 = EU.get("M21")
U = {"action": "undermine", "fortress_level": 1, "besieger_ld": 4}


@pytest.mark.parametrize("die,result", [(4, "nothing"), (5, "siegework_minus"), (8, "siegework_plus"), (10, "siegework_plus")])
def test_undermining_table(die, result):
    assert M21.resolve(U, FixedDice([die])).outcome["result"] == result


def test_undermining_breach_war_honours_rendition():
    inp = {**U, "siegeworks_plus": 2, "fortress_level": 1}
    assert M21.resolve(inp, FixedDice([6])).outcome["result"] == "breach"  # 6 − 1 + 6 = 11
    assert M21.resolve(inp, FixedDice([7])).outcome["result"] == "breach_or_war_honours"  # 12
    assert M21.resolve(inp, FixedDice([8])).outcome["result"] == "rendition"


@pytest.mark.parametrize(
    "extra,values",
    [
        ({"port": True}, [-1, -2]),
        ({"port": True, "clear_terrain": False}, [-1, -3]),
        ({"clear_terrain": False}, [-1, -2]),
        ({"clear_terrain": False, "port": True, "blockaded": True}, [-1, -2]),
        ({"breach": True, "bloody_assault_this_turn": True}, [-1, 2]),
        ({"bloody_assault_this_turn": True}, [-1, 1]),
        ({"siegeworks_minus": 1, "siegeworks_plus": 1}, [-1, 1, 3]),
        ({"besieger_leader_siege": 2, "besieged_leader_siege": 1}, [-1, -1, 2]),
        ({"artillery_value": 3, "artillery_source": "tables"}, [-1, 2]),
        ({"artillery_value": 3}, [-1]),  # eu8 (default): artillery acts on the assault fire only
    ],
)
def test_undermining_modifiers(extra, values):
    assert [m.value for m in M21.resolve({**U, **extra}, FixedDice([5])).modifiers] == values


@pytest.mark.parametrize("level,art,bonus", [(0, 1, 1), (2, 4, 2), (3, 7, 3), (5, 5, 0)])
def test_artillery_bonus(level, art, bonus):
    assert sieges.artillery_bonus(level, art) == bonus


def test_siege_upkeep_one_ld_per_level():
    r = M21.resolve({**U, "fortress_level": 3, "besieger_ld": 2}, FixedDice([]))
    assert r.outcome["siege_impossible"] is True and r.dice == ()
    assert r.effects[0].kind == "stack_retreats"


def test_capture_loses_two_levels_unless_garrisoned_map_minimum():
    base = {"action": "capture", "fortress_level": 4, "map_level": 1}
    assert M21.resolve(base, FixedDice([])).outcome["new_level"] == 2
    assert M21.resolve({**base, "map_level": 3}, FixedDice([])).outcome["new_level"] == 3
    g = M21.resolve({**base, "garrison": True}, FixedDice([]))
    assert g.outcome["new_level"] == 4 and any(e.kind == "ld_lost" and e.amount == 1 for e in g.effects)


def test_assault_fortress_holds_and_losses_on_troops_then_resistance():
    r = M21.resolve({"action": "assault", "fortress_level": 2, "besieger_ld": 8, "besieged_ld_inside": 2,
                     "artillery_value": 4, "artillery_source": "tables"}, FixedDice([9, 6, 9, 5]))
    losses = next(s for s in r.steps if s.name == "assault losses").outcome
    assert losses["on_troops_inside"] == "2" and losses["resistance"] == "2" and losses["resistance_left"] == "1"
    assert r.outcome["winner"] == "besieged"


def _besieger_mods(r, kind):
    step = next(s for s in r.steps if s.name == f"assault {kind} (besieger)")
    return [(m.value, m.section) for m in step.modifiers]


@pytest.mark.parametrize(
    "level,artillery,fire_bonus",
    [(2, 7, 0), (2, 8, 1), (2, 11, 1), (2, 12, 2), (1, 4, 1), (1, 6, 1), (3, 18, 2), (0, 10, 0)],
)
def test_eu8_artillery_reduces_the_fortress_malus_for_fire_only(level, artillery, fire_bonus):
    # eu8 §2.3.1: "l'artillerie de l'assiégeant peut réduire ce malus pour le tir uniquement": −1 at 4× the
    # level, −2 at 6×, never more than the malus (level 1: at most 1; a fort has none).
    r = M21.resolve({"action": "assault", "fortress_level": level, "besieger_ld": 8, "artillery_value": artillery},
                    FixedDice([5, 5, 5, 5]))
    assert r.inputs["artillery_source"] == "eu8"
    fire, shock = _besieger_mods(r, "fire"), _besieger_mods(r, "shock")
    assert sum(v for v, sec in fire if sec == sieges.SEC_FR) == fire_bonus
    assert not any(sec == sieges.SEC_FR for _, sec in shock)
    assert sum(v for v, _ in fire) - sum(v for v, _ in shock) == fire_bonus


def test_the_two_artillery_readings_differ_by_2_on_both_rolls_at_level_2_with_4_artillery():
    # Issue 18: TABLES.md's +2 went to fire AND shock; eu8 gives nothing below 4× the level (8).
    base = {"action": "assault", "fortress_level": 2, "besieger_ld": 8, "artillery_value": 4}
    eu8 = M21.resolve(base, FixedDice([5, 5, 5, 5]))
    tables = M21.resolve({**base, "artillery_source": "tables"}, FixedDice([5, 5, 5, 5]))
    for kind in ("fire", "shock"):
        assert sum(v for v, _ in _besieger_mods(tables, kind)) - sum(v for v, _ in _besieger_mods(eu8, kind)) == 2


def test_eu8_artillery_reduces_nothing_after_a_breach():
    r = M21.resolve({"action": "assault", "fortress_level": 2, "besieger_ld": 8, "artillery_value": 12, "breach": True},
                    FixedDice([5, 5, 5, 5]))
    assert [v for v, _ in _besieger_mods(r, "fire")] == [-1]  # Arquebus or better only: no level malus to reduce


def test_assault_breach_column_and_no_level_malus():
    r = M21.resolve({"action": "assault", "fortress_level": 2, "besieger_ld": 8, "breach": True}, FixedDice([10, 10, 3, 3]))
    bf = next(s for s in r.steps if s.name == "assault fire (besieged)")
    assert bf.table_cell.value == "1" and bf.outcome["morale_inflicted"] == 3
    f = next(s for s in r.steps if s.name == "assault fire (besieger)")
    assert [m.value for m in f.modifiers] == [-1]


def test_assault_besieged_routed_fortress_falls():
    r = M21.resolve({"action": "assault", "fortress_level": 1, "besieger_ld": 8, "besieged_morale": 2}, FixedDice([10, 3, 3, 3]))
    assert r.outcome["winner"] == "besieger" and any(e.kind == "control_changed" for e in r.effects)


def test_port_siegeworks_fire_like_presidio():
    r = M21.resolve({"action": "port_siegeworks_fire", "fortress_level": 2, "siegeworks_plus": 2}, FixedDice([9]))
    assert r.total == 11 and r.outcome["nd_lost"] == 1 and r.outcome["stopped"] and r.outcome["port_blockaded"] is False


@settings(max_examples=120, deadline=None)
@given(level=st.integers(0, 5), ld=st.integers(1, 12), inside=st.integers(0, 6), breach=st.booleans(),
       dice=st.lists(st.integers(1, 10), min_size=4, max_size=4), art=st.integers(0, 10))
def test_assault_never_raises(level, ld, inside, breach, dice, art):
    r = M21.resolve({"action": "assault", "fortress_level": level, "besieger_ld": ld, "besieged_ld_inside": inside,
                     "breach": breach, "artillery_value": art}, FixedDice(dice))
    assert r.outcome.get("siege_impossible") or r.outcome["winner"] in ("besieger", "besieged")
    r.model_dump(mode="json")


@settings(max_examples=100)
@given(die=st.integers(1, 9), level=st.integers(0, 5), sw=st.integers(0, 2))
def test_undermining_monotonic_in_die(die, level, sw):
    order = ["nothing", "siegework_minus", "siegework_plus", "breach", "breach_or_war_honours", "rendition"]
    inp = {**U, "fortress_level": level, "besieger_ld": 6, "siegeworks_plus": sw}
    a = M21.resolve(inp, FixedDice([die]))
    b = M21.resolve(inp, FixedDice([die + 1]))
    assert a.total == die + sum(m.value for m in a.modifiers)
    assert order.index(b.outcome["result"]) >= order.index(a.outcome["result"])
