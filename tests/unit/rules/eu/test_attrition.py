"""Shared attrition readings: Discoveries and Attrition table, remainders table
(10-D blocks, ★ second die, two versions), 'P' by technology and Pillage merges."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu.attrition import (
    ProvincePillage,
    add_pillage_minus,
    apply_remainders,
    discovery_reading,
    europe_column,
    europe_result,
    half_reroll_reading,
    land_attrition_result,
    parse_remainders_cell,
    read_remainders,
    resolve_p,
    rotw_percent,
    split_blocks,
    star_die_loses,
)

# --------------------------------------------------------------------------- main table

EUROPE = [
    # total, ld, cell, lost, p
    (3, 6, "-", 0, False),
    (5, 1, "-", 0, False),
    (6, 1, "-", 0, False),
    (6, 2, "P", 0, True),
    (6, 4, "P", 0, True),
    (6, 6, "1+P", 1, True),
    (9, 1, "P", 0, True),
    (9, 5, "1+P", 1, True),
    (10, 9, "2+P", 2, True),
    (11, 2, "1", 1, False),
    (14, 3, "1+P", 1, True),
    (15, 1, "1+P", 1, True),
    (20, 8, "3+P", 3, True),
]


@pytest.mark.parametrize("total,ld,cell,lost,p", EUROPE)
def test_europe_column_reads_the_cell_by_stack_size(total, ld, cell, lost, p):
    res = europe_result(total, ld)
    assert (res.cell, res.ld_lost, res.p) == (cell, lost, p)


@pytest.mark.parametrize("ld,col", [(1, "1"), (2, "2"), (3, "3-5"), (5, "3-5"), (6, "6+"), (40, "6+")])
def test_europe_size_columns_are_1_2_3to5_6plus(ld, col):
    assert europe_column(ld) == col


@pytest.mark.parametrize("total,pct", [(-4, 0), (5, 0), (6, 10), (10, 50), (14, 90), (15, 100), (30, 100)])
def test_rotw_or_sea_column_gives_10_percent_per_point_above_5(total, pct):
    assert rotw_percent(total) == pct


@pytest.mark.parametrize(
    "total,kind,text",
    [(5, "sea", "S"), (7, "sea", "S†"), (8, "land", "S×"), (9, "land", "½"), (11, "sea", "F×"),
     (11, "land", "F†"), (13, "sea", "F†"), (17, "land", "F†")],
)
def test_discovery_columns_sea_and_land(total, kind, text):
    reading, cell = discovery_reading(total, kind)
    assert reading.text == text
    assert cell.column == f"Discovery {kind}"


@pytest.mark.parametrize("die,text", [(1, "F†"), (3, "F†"), (4, "F×"), (5, "F×"), (6, "S†"), (8, "S†"), (9, "S×"), (10, "S×")])
def test_half_reroll_small_table(die, text):
    assert half_reroll_reading(die).text == text


# --------------------------------------------------------------------------- remainders


@pytest.mark.parametrize(
    "cell,whole,d,star",
    [("-", 0, 0, False), ("d★", 0, 1, True), ("2d", 0, 2, False), ("1+2d", 1, 2, False), ("2★", 2, 0, True),
     ("10", 10, 0, False), ("6+d", 6, 1, False)],
)
def test_remainders_cells_parse(cell, whole, d, star):
    c = parse_remainders_cell(cell)
    assert (c.whole, c.d, c.star) == (whole, d, star)


def test_remainders_6_ld_at_80_and_30_percent_leave_1_and_4():
    assert read_remainders("6", 80).text == "1"
    assert read_remainders("6", 30).text == "4"


def test_remainders_2016_and_french_versions_differ_only_at_2d_20_percent():
    diffs = []
    for size in ["d", "2d"] + [str(n) for n in range(1, 11)]:
        for pct in range(10, 100, 10):
            a, b = read_remainders(size, pct, "2016").text, read_remainders(size, pct, "fr").text
            if a != b:
                diffs.append((size, pct, a, b))
    assert diffs == [("2d", 20, "2d★", "d★")]


def test_remainders_7D_80_is_1_plus_d_in_2016():
    assert read_remainders("7", 80).text == "1+d"
    assert read_remainders("8", 80).text == "1"


@pytest.mark.parametrize(
    "thirds,blocks",
    [(3, [("1", 3)]), (1, [("d", 1)]), (5, [("1", 3), ("2d", 2)]), (30, [("10", 30)]),
     (3 * 23 + 2, [("10", 30), ("10", 30), ("3", 9), ("2d", 2)]), (0, [])],
)
def test_stacks_are_read_by_10_D_blocks_and_the_remainder(thirds, blocks):
    assert split_blocks(thirds) == blocks


def test_23_ld_at_40_percent_reads_two_10D_blocks_and_a_3D_block():
    res = apply_remainders(69, 40, FixedDice([]))
    assert [b.cell.text for b in res.blocks] == ["6", "6", "2"]
    assert res.left == 14
    assert res.lost == 9


def test_star_draws_a_second_die_and_loses_one_d_on_1_to_5():
    lost = apply_remainders(6, 10, FixedDice([5]))  # 2D at 10%: "2★"
    kept = apply_remainders(6, 10, FixedDice([6]))
    assert lost.left == Fraction(5, 3) and lost.dice[0].values == (5,)
    assert kept.left == 2 and kept.blocks[0].star_lost is False


def test_each_block_with_a_star_has_its_own_die():
    # 19 D at 90%: 10D → "1", 9D → "1★"
    res = apply_remainders(57, 90, FixedDice([2]))
    assert len(res.dice) == 1
    assert res.left == Fraction(1) + Fraction(2, 3)


def test_zero_and_hundred_percent_read_no_cell():
    assert apply_remainders(12, 0, FixedDice([])).lost == 0
    assert apply_remainders(12, 100, FixedDice([])).left == 0


def test_star_die_threshold_is_half_of_a_d10():
    assert [star_die_loses(v) for v in range(1, 11)] == [True] * 5 + [False] * 5


@settings(max_examples=200)
@given(st.integers(1, 120), st.sampled_from(list(range(0, 101, 10))), st.integers(1, 10))
def test_remainders_never_leave_more_than_before(thirds, pct, die):
    res = apply_remainders(thirds, pct, FixedDice([die] * 20))
    assert 0 <= res.thirds_left <= res.thirds_before == thirds


@settings(max_examples=100)
@given(st.integers(1, 60))
def test_remainders_losses_grow_with_the_percentage(thirds):
    # ★ dice fixed at 10 (never lose) so only the table speaks.
    lefts = [apply_remainders(thirds, p, FixedDice([10] * 20)).thirds_left for p in range(0, 101, 10)]
    unlucky = [apply_remainders(thirds, p, FixedDice([1] * 20)).thirds_left for p in range(0, 101, 10)]
    assert lefts[0] == thirds and lefts[-1] == 0
    assert all(a >= b for a, b in zip(lefts, lefts[1:]))
    assert all(a >= b for a, b in zip(unlucky, unlucky[1:]))
    assert all(u <= k for u, k in zip(unlucky, lefts))


# --------------------------------------------------------------------------- P and Pillage


def test_two_pillage_minus_merge_into_a_pillage_plus():
    res = add_pillage_minus(ProvincePillage(province="Artois", pillage_minus=1))
    assert res.merged
    assert [(e.kind, e.marker) for e in res.effects] == [("marker_removed", "Pillage-"), ("marker_placed", "Pillage+")]


def test_no_pillage_in_a_province_with_two_pillage_plus():
    res = add_pillage_minus(ProvincePillage(pillage_plus=2))
    assert res.blocked and res.effects == ()


P_CASES = [
    # tech, context, choice, minus, plus -> ld, pillage, foraging
    ("MED", "movement", None, 0, 0, 1, "placed", False),
    ("REN", "supply", None, 1, 0, 1, "merged", False),
    ("ARQ", "movement", None, 0, 2, 1, "blocked", False),
    ("MUS", "movement", "pillage", 0, 0, 0, "placed", True),
    ("BAR", "movement", "ld", 0, 0, 1, "none", False),
    ("MAN", "movement", "pillage", 1, 1, 0, "merged", True),
    ("L", "movement", "pillage", 0, 0, 0, "placed", False),
    ("L", "movement", "ld", 0, 0, 1, "none", False),
    ("MUS", "supply", "pillage", 0, 0, 0, "placed", False),
    ("MUS", "supply", "pillage", 0, 2, 1, "blocked", False),
    ("L", "siege", None, 0, 0, 1, "none", False),
    ("MED", "siege", None, 0, 0, 1, "none", False),
]


@pytest.mark.parametrize("tech,context,choice,minus,plus,ld,pillage,foraging", P_CASES)
def test_p_by_technology(tech, context, choice, minus, plus, ld, pillage, foraging):
    res = resolve_p(tech, context, choice, ProvincePillage(pillage_minus=minus, pillage_plus=plus))
    assert (res.ld_lost, res.pillage, res.foraging) == (ld, pillage, foraging)
    assert any(e.marker == "Foraging" for e in res.effects) == foraging


def test_p_with_a_choice_needs_the_controllers_choice():
    with pytest.raises(RulesError) as err:
        resolve_p("BAR", "movement", None, ProvincePillage())
    assert err.value.field == "p_choice"


def test_land_result_in_europe_caps_losses_at_the_stack():
    res = land_attrition_result(20, area="europe", ld=2, lde=0, dice=FixedDice([]), technology="MED",
                                context="movement", p_choice=None, province=ProvincePillage())
    assert res.outcome["ld_lost"] == 1 + 1  # "1+P" on 2 LD, P → 1 more LD (MED)
    assert res.outcome["stack_destroyed"] is True
