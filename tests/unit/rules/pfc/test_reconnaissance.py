"""pfc:C5 reconnaissance (pf-cohesion-wargame-tables.fr.txt, TABLE DE RECONNAISSANCE)."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, get_ruleset

C5 = get_ruleset("pfc").get("C5")
# As printed: row → cells for differential 1-2, 3-4, 5+.
TABLE = {0: ["", "", ""], 1: ["", "", "1"], 2: ["", "1", "1"], 3: ["1", "1", "1"], 4: ["1", "1", "2"],
         5: ["1", "2", "2"], 6: ["2", "2", "3"], 7: ["2", "2", "3"], 8: ["2", "3", "4"]}


def recon(differential, row):
    """Inputs reaching ``row`` with die ``d``: cohesion difference row − d."""
    die = min(max(row, 1), 6)
    diff = row - die
    inputs = {"recon_cavalry_pf": differential + 2, "screen_cavalry_pf": 2,
              "recon_cohesions": [3 + max(diff, 0)], "screen_cohesions": [3 - min(diff, 0)]}
    return C5.resolve(inputs, FixedDice([die]))


@pytest.mark.parametrize("row", range(0, 9))
@pytest.mark.parametrize("differential,col", [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (12, 2)])
def test_reconnaissance_table_every_cell(row, differential, col):
    r = recon(differential, row)
    assert r.total == row and r.table_cell.row == str(row)
    assert r.table_cell.column == ["1-2", "3-4", "5+"][col]
    assert r.outcome["result"] == (int(TABLE[row][col]) if TABLE[row][col] else 0)


def test_reconnaissance_cohesion_modifier_is_recon_average_minus_screen_average():
    r = C5.resolve({"recon_cavalry_pf": 6, "screen_cavalry_pf": 0, "recon_cohesions": [5, 4],
                    "screen_cohesions": [2, 2, 3]}, FixedDice([3]))
    # 4.5 − 7/3 = 13/6 → 2
    assert [m.value for m in r.modifiers] == [2] and r.total == 5 and r.outcome["result"] == 2


def test_reconnaissance_modified_die_is_clamped_to_rows_0_to_8():
    r = C5.resolve({"recon_cavalry_pf": 6, "screen_cavalry_pf": 0, "recon_cohesions": [6], "screen_cohesions": [0]},
                   FixedDice([6]))
    assert r.total == 12 and r.table_cell.row == "8" and r.outcome["result"] == 4
    r = C5.resolve({"recon_cavalry_pf": 6, "screen_cavalry_pf": 0, "recon_cohesions": [0], "screen_cohesions": [6]},
                   FixedDice([1]))
    assert r.total == -5 and r.table_cell.row == "0" and r.outcome["result"] == 0


@pytest.mark.parametrize("recon,screen", [(3, 3), (2, 5)])
def test_reconnaissance_without_cavalry_superiority_has_no_column(recon, screen):
    with pytest.raises(RulesError) as e:
        C5.resolve({"recon_cavalry_pf": recon, "screen_cavalry_pf": screen, "recon_cohesions": [3],
                    "screen_cohesions": [3]}, FixedDice([4]))
    assert e.value.field == "recon_cavalry_pf" and e.value.rule == "pfc:C5"


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 20), st.integers(1, 15), st.lists(st.integers(0, 6), min_size=1, max_size=4),
       st.lists(st.integers(0, 6), min_size=1, max_size=4), st.integers(1, 6))
def test_reconnaissance_invariants(screen, lead, recon_c, screen_c, die):
    r = C5.resolve({"recon_cavalry_pf": screen + lead, "screen_cavalry_pf": screen, "recon_cohesions": recon_c,
                    "screen_cohesions": screen_c}, FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert 0 <= r.outcome["result"] <= 4
