"""I4 inflation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu.inflation import (
    InflationInputs,
    boxes,
    country_rate,
    increase_threshold,
    inflation_loss,
    resolve_inflation,
)


def _run(box: int, die: int, gold: int = 0, countries=(), minimum_loss: bool = False):
    return resolve_inflation(
        InflationInputs(box=box, rotw_gold_this_turn=gold, countries=list(countries), minimum_loss=minimum_loss),
        FixedDice([die]),
    )


def test_inflation_track():
    assert boxes() == [5, 5, 5, 10, 10, 10, 20, 20, 25, 33]


@pytest.mark.parametrize("gold, threshold", [(0, 7), (100, 7), (101, 3), (400, 3)])
def test_inflation_threshold_drops_to_three_above_100_ducats_of_rotw_gold(gold, threshold):
    assert increase_threshold(gold) == threshold


@pytest.mark.parametrize(
    "box, die, gold, new_box",
    [(3, 7, 0, 4), (3, 6, 0, 3), (3, 3, 101, 4), (3, 2, 101, 3), (3, 3, 100, 3), (0, 10, 0, 1)],
)
def test_inflation_increase_roll_moves_one_box_right(box, die, gold, new_box):
    r = _run(box, die, gold)
    assert r.outcome["box"] == new_box
    assert r.outcome["increased"] is (new_box != box)
    assert [e.kind for e in r.effects] == (["inflation_changed"] if new_box != box else [])


def test_inflation_at_the_33_percent_cap_does_not_move():
    r = _run(9, 10, 500, [{"country": "SPA", "royal_treasury": 300, "produces_american_gold": True}])
    assert r.outcome["box"] == 9 and r.outcome["percent"] == 33
    assert r.steps[0].outcome["success"] is True and r.steps[0].outcome["at_maximum"] is True
    # 33% of 300 = 99
    assert r.outcome["countries"]["SPA"] == {"percent": 33, "loss": 99, "limited": False}


def test_inflation_at_the_5_percent_floor_for_countries_without_american_gold():
    # counter on the first box (5%): the box to the left does not exist, minimum 5%
    r = _run(0, 1, 0, [{"country": "POL", "royal_treasury": 250, "produces_american_gold": False}])
    assert r.outcome["countries"]["POL"] == {"percent": 5, "loss": 12, "limited": True}  # 12.5 → 12
    assert country_rate(0, False) == 5


@pytest.mark.parametrize(
    "box, gold_country, rate",
    [(9, True, 33), (9, False, 25), (8, False, 20), (6, False, 10), (6, True, 20), (3, False, 5), (1, False, 5)],
)
def test_limited_inflation_reads_the_box_to_the_left(box, gold_country, rate):
    assert country_rate(box, gold_country) == rate


def test_inflation_increase_happens_before_the_loss():
    # counter at 25% (box 8), success → 33%; Spain (American gold) loses 33% of 100 = 33;
    # France (no American gold) reads 25%: 25% of 100 = 25
    r = _run(8, 9, 0, [
        {"country": "SPA", "royal_treasury": 100, "produces_american_gold": True},
        {"country": "FRA", "royal_treasury": 100, "produces_american_gold": False},
    ])
    assert r.outcome["countries"]["SPA"]["loss"] == 33
    assert r.outcome["countries"]["FRA"]["loss"] == 25
    a32 = {(e.country, e.ers_line): e.amount for e in r.effects if e.ers_line}
    # only the percentage is entered: A32 itself is derived from A31 on the sheet
    assert a32 == {("SPA", "A32_pct"): 33, ("FRA", "A32_pct"): 25}


def test_inflation_loss_is_on_the_absolute_treasury_and_rounded_down():
    assert inflation_loss(-57, 10) == 5
    assert inflation_loss(57, 10) == 5
    assert inflation_loss(0, 20) == 0


def test_inflation_minimum_loss_option_2020():
    assert inflation_loss(40, 5, minimum_loss=True) == 5
    assert inflation_loss(0, 10, minimum_loss=True) == 10
    assert inflation_loss(400, 10, minimum_loss=True) == 40
    r = _run(3, 1, 0, [{"country": "VEN", "royal_treasury": 30, "produces_american_gold": True}], minimum_loss=True)
    assert r.outcome["countries"]["VEN"]["loss"] == 10  # 10% of 30 = 3, at least 10


@pytest.mark.parametrize("kw", [{"box": 10}, {"box": -1}, {"rotw_gold_this_turn": -5}])
def test_inflation_rejects_impossible_inputs(kw):
    data = {"box": 0, "rotw_gold_this_turn": 0}
    data.update(kw)
    with pytest.raises(ValidationError):
        InflationInputs(**data)


def test_inflation_rejects_a_country_listed_twice():
    c = {"country": "FRA", "royal_treasury": 1, "produces_american_gold": False}
    with pytest.raises(ValidationError):
        InflationInputs(box=0, rotw_gold_this_turn=0, countries=[c, c])


@settings(max_examples=150, deadline=None)
@given(box=st.integers(0, 9), die=st.integers(1, 10), gold=st.integers(0, 300),
       rt=st.integers(-1000, 3000), american=st.booleans())
def test_inflation_invariants(box, die, gold, rt, american):
    r = _run(box, die, gold, [{"country": "FRA", "royal_treasury": rt, "produces_american_gold": american}])
    assert r.outcome["box"] in (box, box + 1)
    assert 5 <= r.outcome["countries"]["FRA"]["percent"] <= 33
    assert 0 <= r.outcome["countries"]["FRA"]["loss"] <= abs(rt)
    if die < 10:
        assert _run(box, die + 1, gold).outcome["box"] >= r.outcome["box"]
    r.model_dump(mode="json")
