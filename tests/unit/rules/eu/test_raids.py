"""The Pirates / Natives raids table (TABLES.md) and its lookup API."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.eu.raids import read_raids

# modified roll -> (label, FLEET+, FLEET-, permanent stars, settlement cell, land LD)
RAIDS_ROWS = [
    (-5, "≤0", 5, 2, 2, "6‡", 8),
    (0, "≤0", 5, 2, 2, "6‡", 8),
    (1, "1–3", 4, 1, 1, "6†", 8),
    (3, "1–3", 4, 1, 1, "6†", 8),
    (4, "4–6", 3, 1, 1, "4†", 4),
    (6, "4–6", 3, 1, 1, "4†", 4),
    (7, "7–9", 2, 1, 0, "3", 2),
    (9, "7–9", 2, 1, 0, "3", 2),
    (10, "10–11", 2, 0, 0, "2", 1),
    (11, "10–11", 2, 0, 0, "2", 1),
    (12, "12–13", 1, 0, 0, "1", 1),
    (13, "12–13", 1, 0, 0, "1", 1),
    (14, "14–15", 0, 0, 0, "0", 1),
    (15, "14–15", 0, 0, 0, "0", 1),
    (16, "≥16", 0, 0, 0, "0", 0),
    (25, "≥16", 0, 0, 0, "0", 0),
]


@pytest.mark.parametrize("roll,label,plus,minus,stars,settlement,land", RAIDS_ROWS)
def test_raids_table_rows_match_the_printed_table(roll, label, plus, minus, stars, settlement, land):
    row = read_raids(roll)
    assert (row.label, row.trade_fleet_plus, row.trade_fleet_minus) == (label, plus, minus)
    assert (row.permanent_loss, row.settlement, row.land_losses) == (stars, settlement, land)


@pytest.mark.parametrize(
    "roll,levels,pillage",
    [(0, 6, "+"), (2, 6, "-"), (5, 4, "-"), (8, 3, None), (11, 2, None), (13, 1, None), (15, 0, None)],
)
def test_raids_settlement_cell_reads_levels_and_pillage_mark(roll, levels, pillage):
    row = read_raids(roll)
    assert row.settlement_levels == levels
    assert row.pillage == pillage


def test_raids_cell_records_table_row_column_and_printed_value():
    cell = read_raids(2).cell("permanent_loss")
    assert (cell.table, cell.row, cell.column, cell.value) == (
        "Pirates / Natives raids", "1–3", "permanent loss", "★")
    assert read_raids(8).cell("permanent_loss").value == "–"
    assert read_raids(5).cell("land_losses").value == "4 LD"
    assert read_raids(5).cell("trade_fleet_plus").value == 3
    assert read_raids(0).cell("settlement").value == "6‡"


@given(st.integers(-50, 60), st.integers(-50, 60))
def test_raids_losses_never_increase_with_a_higher_roll(a, b):
    low, high = read_raids(min(a, b)), read_raids(max(a, b))
    assert high.trade_fleet_plus <= low.trade_fleet_plus
    assert high.trade_fleet_minus <= low.trade_fleet_minus
    assert high.permanent_loss <= low.permanent_loss
    assert high.settlement_levels <= low.settlement_levels
    assert high.land_losses <= low.land_losses


@given(st.integers(-1000, 1000))
def test_raids_every_integer_roll_has_exactly_one_row(roll):
    row = read_raids(roll)
    assert (row.low is None or roll >= row.low) and (row.high is None or roll <= row.high)
