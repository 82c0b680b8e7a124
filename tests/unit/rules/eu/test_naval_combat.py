"""M20 naval battles (eu-military-rules.tex §Les batailles navales)."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, naval_combat as nc
from ledger.rules.eu import combat_tables as ct

M20 = EU.get("M20")


def test_seed_example_3_two_thirds_losses_against_losing_nd():
    """Seed: 3⅔ losses against losing ND: 2 ND + 2 NDE Damaged, 1 Destroyed."""
    assert nc.split_losses(F(11, 3), winner=False, galleys=False) == {
        "damaged": {"nd": 2, "nde": 2}, "destroyed": {"nd": 1, "nde": 0}, "refitted": {"nd": 0, "nde": 0}}


def test_seed_example_4_one_third_losses_against_winning_ngd():
    """Seed: 4⅓ losses against winning NGD = 5 losses: 2 Damaged, 2 Destroyed (one refitted)."""
    assert nc.split_losses(F(13, 3), winner=True, galleys=True) == {
        "damaged": {"nd": 2, "nde": 0}, "destroyed": {"nd": 2, "nde": 0}, "refitted": {"nd": 1, "nde": 0}}


@pytest.mark.parametrize("own,enemy,bonus", [(5, 5, (0, 0, 0)), (6, 5, (0, 1, 0)), (8, 5, (1, 1, 0)), (10, 5, (1, 1, 1)), (12, 5, (1, 2, 1))])
def test_size_difference_bonuses(own, enemy, bonus):
    b = nc.size_bonus(own, enemy)
    assert (b["fire"], b["shock"], b["pursuit"]) == bonus


@pytest.mark.parametrize("nd,line", [(6, 0), (7, 1), (12, 1), (13, 2), (19, 3)])
def test_naval_size_lines(nd, line):
    assert ct.naval_size_line(nd) == line


def test_naval_loss_variation_small_fleet_and_cap_and_rout_minimum():
    four = nc.NavalSide(technology="GAL", nd=4)
    assert nc.modify_losses(four, F(2), False)[0] == F(4, 3)
    one_nde = nc.NavalSide(technology="GAL", nde=1)
    assert nc.modify_losses(one_nde, F(4), False)[0] == F(1)
    assert nc.modify_losses(four, F(1, 3), True)[0] == F(1)


def test_naval_technology_columns_and_morale():
    assert ct.naval_columns("CAR", "74S") == (None, "E")
    assert ct.naval_morale("GA", veteran=True) == 3 and ct.naval_morale("CAR", veteran=True) == 1


def test_forced_flight_ends_battle_with_pursuit_and_captures():
    inp = {"attacker": {"technology": "GAL", "nd": 8, "leader_man": 2, "pursuit_prizes": ["gold"]},
           "defender": {"technology": "NAU", "nd": 4, "ntd": 2, "gold_ntd": 2}}
    r = M20.resolve(inp, FixedDice([9, 5, 8]))
    assert r.outcome["flight"] == {"defender": "forced"} and r.outcome["winner"] == "attacker"
    p = next(s for s in r.steps if s.name == "pursuit (attacker)")
    assert p.outcome["captures"] == [{"star": 1, "prize": "gold", "ntd_captured": 2, "ducats_captured": 20, "ducats_sunk": 10}]
    r.model_dump(mode="json")


def test_two_days_and_equal_morale_means_no_winner():
    inp = {"attacker": {"technology": "BAT", "nd": 3}, "defender": {"technology": "BAT", "nd": 3}}
    r = M20.resolve(inp, FixedDice([3] * 8))
    assert r.outcome["winner"] is None
    d2 = next(s for s in r.steps if s.name == "day 2 fire (attacker)")
    assert [m.value for m in d2.modifiers] == [-1]


def test_voluntary_flight_after_day_one():
    inp = {"attacker": {"technology": "BAT", "nd": 3}, "defender": {"technology": "BAT", "nd": 3, "retreats_after_day_one": True}}
    r = M20.resolve(inp, FixedDice([3, 3, 3, 3, 5]))
    assert r.outcome["flight"] == {"defender": "voluntary"} and r.outcome["winner"] == "attacker"


def test_galleys_in_front_halve_fire_rounded_up():
    inp = {"attacker": {"technology": "GA", "ngd": 6, "galleys_in_front": True}, "defender": {"technology": "GA", "ngd": 6}}
    r = M20.resolve(inp, FixedDice([9] + [3] * 10))
    f = next(s for s in r.steps if s.name == "day 1 fire (attacker)")
    # GA vs GA fires on column E: 9 → 1★, halved and rounded up to a third: ⅔.
    assert f.table_cell.value == "1★" and f.outcome["losses_inflicted"] == "2/3"


def test_refit_cost_is_half_purchase_cost():
    inp = {"attacker": {"technology": "GAL", "nd": 8}, "defender": {"technology": "NAU", "nd": 4, "nd_purchase_cost": 30}}
    r = M20.resolve(inp, FixedDice([9, 5, 8]))
    s = next(s for s in r.steps if s.name == "losses variation and split (defender's losses)")
    assert s.outcome["refit_cost_ducats"] == str(F(15) * s.outcome["split"]["damaged"]["nd"] + F(5) * s.outcome["split"]["damaged"]["nde"])


def test_naval_rejects_empty_fleet():
    with pytest.raises(ValidationError):
        M20.resolve({"attacker": {"technology": "GAL"}, "defender": {"technology": "GAL", "nd": 1}}, FixedDice([]))


@settings(max_examples=80, deadline=None)
@given(an=st.integers(0, 20), dn=st.integers(1, 20), dice=st.lists(st.integers(1, 10), min_size=12, max_size=12),
       tech=st.sampled_from(["GA", "CAR", "NAU", "GAL", "BAT", "VE", "TD", "74S"]))
def test_naval_never_raises_and_split_adds_up(an, dn, dice, tech):
    r = M20.resolve({"attacker": {"technology": tech, "nd": an, "nde": 1}, "defender": {"technology": "GAL", "nd": dn}}, FixedDice(dice))
    for s in r.steps:
        if s.name.startswith("losses variation and split"):
            sp = s.outcome["split"]
            total = sum(F(v["nd"]) + F(v["nde"], 3) for v in sp.values())
            assert total == F(s.outcome["losses"])
    r.model_dump(mode="json")
