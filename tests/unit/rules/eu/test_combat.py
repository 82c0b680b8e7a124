"""M19 battles: fast-combat sequence A–G (eu8-fast-combat-and-tables.fr.txt §2.2)."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, combat  # noqa: F401
from ledger.rules.eu import combat_tables as ct

M19 = EU.get("M19")


def side(**k):
    return {"technology": "MUS", "ld": 8, "army_class": "iv", "class_size": 2, "leader_man": 3, **k}


def battle(**k):
    return {"attacker": side(), "defender": side(), "terrain": "mountain", "period": 2,
            "attacker_phasing_not_intercepted": False, **k}


def names(r):
    return [s.name for s in r.steps]


def test_combat_results_table_cells():
    assert ct.combat_result("A", 10)[0] == ct.Loss(F(7, 3), 2)
    assert ct.combat_result("E", 2)[1].row == "≤3"
    assert ct.combat_result("C", 20)[0] == ct.Loss(F(3), 3)


@pytest.mark.parametrize("own,enemy,fire,shock", [("MED", "L", None, "E"), ("REN", "REN", "C", "A"), ("BAR", "MAN", "D", "B"), ("L", "MED", "A", "A")])
def test_land_technology_columns(own, enemy, fire, shock):
    assert ct.land_columns(own, enemy) == (fire, shock)


def test_land_morale_renaissance_vs_medieval_and_tercios():
    assert ct.land_morale("REN", "MED") == 1
    assert ct.land_morale("REN", "MUS") == 2
    assert ct.land_morale("ARQ", "MUS", tercios=True, veteran=True) == 4


def test_arquebus_halves_fire_losses_rounded_down():
    assert ct.land_fire_rule("ARQ", ct.Loss(F(1), 1))[0] == ct.Loss(F(1, 3), 1)
    assert ct.land_fire_rule("ARQ", ct.Loss(F(4, 3), 1))[0] == ct.Loss(F(2, 3), 1)


def test_renaissance_fire_only_morale():
    assert ct.land_fire_rule("REN", ct.Loss(F(5, 3), 2))[0] == ct.Loss(F(0), 2)


@pytest.mark.parametrize("x,out", [(F(1, 3), 0), (F(1, 2), 1), (F(2, 3), 1), (F(7, 3), 2), (F(5, 2), 2), (F(3), 3)])
def test_rounding_down_except_half_becomes_one(x, out):
    assert ct.round_losses(x) == out


def test_small_stack_reduction_and_seven_ld_die():
    assert ct.small_stack_reduction(2) == F(-4, 3)
    assert ct.small_stack_reduction(8) == 0
    assert ct.small_stack_reduction(7) is None


def test_battle_steps_are_named_and_ordered():
    # Even fight, nobody routs: 4 rounds, lower morale loses (C.2).
    dice = [5, 5, 7, 5, 5, 5, 5, 5, 6, 5, 5, 5]
    r = M19.resolve(battle(), FixedDice(dice))
    n = names(r)
    assert n[0] == "A.1 fire (attacker)" and "A.2 shock (defender)" in n
    assert "A.3 fire, second round (attacker)" in n and "A.4 shock, second round (defender)" in n
    assert n.index("F. rounding") > n.index("E. retreat attrition (defender)") > n.index("C. pursuit (attacker)")
    assert r.outcome["case"] == "C.2" and r.outcome["winner"] == "attacker"
    r.model_dump(mode="json")


def test_second_round_at_minus_one():
    r = M19.resolve(battle(), FixedDice([5] * 12))
    a3 = next(s for s in r.steps if s.name == "A.3 fire, second round (attacker)")
    assert [m.value for m in a3.modifiers] == [-1] and a3.total == 4


def test_rout_goes_to_pursuit_with_broke_bonuses():
    # Defender MUS morale 3; attacker fire 10 on C → 1⅔★★, shock 10 on B → 2★★: routed in round 1 at shock.
    r = M19.resolve(battle(), FixedDice([10, 1, 10, 1, 5, 5, 5, 5, 5]))
    p = next(s for s in r.steps if s.name == "C. pursuit (attacker)")
    assert [m.value for m in p.modifiers] == [-1, 2]  # mountain, broke in first two rounds
    assert r.outcome["case"].startswith("C.1") and r.outcome["routed"] == ["defender"]
    e = next(s for s in r.steps if s.name == "E. retreat attrition (defender)")
    assert e.modifiers == ()  # routed: no MAN


def test_break_off_success_makes_breaker_the_loser():
    inp = battle(defender=side(attempts_break_off=True))
    # round 1: 5,5 / 5,5 → nothing; break-off die 2 < MAN 3 + morale 3
    r = M19.resolve(inp, FixedDice([5, 5, 5, 5, 2] + [5] * 6))
    assert r.outcome["broke_off"] == "defender" and r.outcome["winner"] == "attacker"
    assert "B. break-off (defender)" in names(r)


def test_failed_break_off_gives_enemy_plus_2_to_next_fire():
    inp = battle(defender=side(attempts_break_off=True))
    r = M19.resolve(inp, FixedDice([5, 5, 5, 5, 9] + [5] * 10))
    a3 = next(s for s in r.steps if s.name == "A.3 fire, second round (attacker)")
    assert sorted(m.value for m in a3.modifiers) == [-1, 2]


def test_cavalry_advantage_shock_in_plain():
    inp = battle(terrain="plain", period=1, attacker=side(cavalry_per_detachment="3", army_class="iii"),
                 defender=side(army_class="iii"))
    r = M19.resolve(inp, FixedDice([5] * 14))
    a2 = next(s for s in r.steps if s.name == "A.2 shock (attacker)")
    assert [m.reason for m in a2.modifiers] == ["cavalry advantage (at least twice the enemy's cavalry)"]


@pytest.mark.parametrize(
    "attacker,terrain,period,value",
    [
        ({"army_class": "iim"}, "plain", 3, 1),
        ({"army_class": "iiim"}, "western_forest", 4, 1),
        ({"army_class": "iv"}, "plain", 3, 1),
        ({"swedish": True, "army_class": "iiim"}, "northern_forest", 2, 1),
        ({"sipahi": True, "army_class": "i"}, "desert", 1, 1),
    ],
)
def test_army_class_shock_bonuses(attacker, terrain, period, value):
    mods = combat.class_shock_bonuses(combat.BattleSide(**side(**attacker)), combat.BattleSide(**side(army_class="iii")), terrain, period)
    assert [m.value for m in mods] == [value]


def test_tercios_malus_except_eastern_classes():
    terc = combat.BattleSide(**side(tercios=True, army_class="iii"))
    assert [m.value for m in combat.class_shock_bonuses(combat.BattleSide(**side(army_class="iv")), terc, "mountain", 2)] == [-1]
    assert combat.class_shock_bonuses(combat.BattleSide(**side(army_class="iim")), terc, "mountain", 2) == []


def test_losses_capped_by_size_of_inflicting_army():
    small = side(ld=1, class_size=2)
    adj, steps, _ = combat.adjust_losses(combat.BattleSide(**small), combat.BattleSide(**side()), F(4), FixedDice([]), "defender's losses")
    d1 = steps[0].outcome
    assert d1["reduction"] == "-2" and d1["after_reduction"] == "2" and d1["losses"] == "1"


def test_no_leader_test_when_enemy_had_fewer_than_3_ld():
    inp = battle(defender=side(ld=2))
    r = M19.resolve(inp, FixedDice([5] * 16))
    g = next(s for s in r.steps if s.name == "G. leader test (attacker)")
    assert g.outcome == {"tested": False, "reason": "enemy had fewer than 3 LD"} and g.dice == ()


def test_gm_leader_reading_becomes_effect():
    r = M19.resolve(battle(leader_readings={"defender": "killed"}), FixedDice([5] * 16))
    assert any(e.kind == "leader_killed" and e.target == "defender" for e in r.effects)
    assert r.gm_supplied == ("leader test (defender): killed",)


def test_major_victory_threshold_three_ld_after_rout():
    inp = battle(terrain="plain", defender=side(technology="ARQ"))
    r = M19.resolve(inp, FixedDice([10, 1, 10, 1, 10, 9, 5, 5, 5]))
    assert r.outcome["routed"] == ["defender"]
    diff = r.outcome["ld_lost"]["defender"] - r.outcome["ld_lost"]["attacker"]
    assert r.outcome["major_victory"] is (diff >= 3)


def test_a_winner_taking_a_third_on_line_0_loses_no_ld():
    # Issue 18, 8 LD vs 8 LD, size comparison 0: the defender wins having taken only the attacker's
    # second-round fire (⅓). Line 0 keeps ⅓ (not read as ½) and step F rounds it down to 0.
    inp = battle(terrain="plain")
    r = M19.resolve(inp, FixedDice([4, 7, 1, 8, 6, 10, 9, 4, 9, 7]))
    d2 = next(s for s in r.steps if s.name == "D.2 class comparison (defender's losses)")
    assert d2.outcome == {"size_comparison": 0, "losses_before": "1/3", "losses": "1/3"}
    assert r.outcome["winner"] == "defender"
    assert r.outcome["ld_lost"] == {"attacker": 5, "defender": 0}
    assert not any(e.kind == "ld_lost" and e.target == "defender" for e in r.effects)


def test_a_3_ld_loser_losing_3_ld_is_destroyed_not_retreating():
    # Issue 18: the loser's stack was reported as retreating with no LD left.
    inp = battle(terrain="plain", defender=side(ld=3))
    r = M19.resolve(inp, FixedDice([8, 9, 9, 8, 7, 3, 4, 3]))
    assert r.outcome["loser"] == "defender" and r.outcome["ld_lost"]["defender"] == 3
    assert r.outcome["destroyed"] == ["defender"]
    assert [(e.kind, e.target) for e in r.effects if e.kind.startswith("stack_")] == [("stack_destroyed", "defender")]
    assert r.summary.endswith("; defender destroyed")


def test_battle_rejects_impossible_inputs():
    with pytest.raises(ValidationError, match="technology"):
        M19.resolve(battle(attacker=side(technology="XYZ")), FixedDice([]))
    with pytest.raises(ValidationError, match="ld"):
        M19.resolve(battle(attacker=side(ld=-1)), FixedDice([]))


techs = st.sampled_from(["MED", "REN", "ARQ", "MUS", "BAR", "MAN", "L"])


@settings(max_examples=100, deadline=None)
@given(
    at=techs, dt=techs, ald=st.integers(1, 10), dld=st.integers(1, 10),
    asz=st.integers(0, 7), dsz=st.integers(0, 7), terrain=st.sampled_from(["plain", "desert", "swamp", "mountain", "eastern_forest"]),
    dice=st.lists(st.integers(1, 10), min_size=25, max_size=25),
    brk=st.booleans(),
)
def test_battle_never_raises_and_steps_add_up(at, dt, ald, dld, asz, dsz, terrain, dice, brk):
    inp = battle(attacker=side(technology=at, ld=ald, class_size=asz, attempts_break_off=brk),
                 defender=side(technology=dt, ld=dld, class_size=dsz), terrain=terrain)
    r = M19.resolve(inp, FixedDice(dice))
    for s in r.steps:
        if s.total is not None and s.dice and s.name.startswith("A."):
            assert s.total == sum(d.total for d in s.dice) + sum(m.value for m in s.modifiers)
    assert 0 <= r.outcome["ld_lost"]["attacker"] <= ald and 0 <= r.outcome["ld_lost"]["defender"] <= dld
    assert r.steps[-1].name == "G. major victory"
    for w, ld in (("attacker", ald), ("defender", dld)):  # a stack either retreats, stays or is destroyed
        kinds = {e.kind for e in r.effects if e.target == w and e.kind.startswith("stack_")}
        assert ("stack_destroyed" in kinds) == (r.outcome["ld_lost"][w] >= ld)
        assert not {"stack_destroyed", "stack_retreats"} <= kinds
    r.model_dump(mode="json")
