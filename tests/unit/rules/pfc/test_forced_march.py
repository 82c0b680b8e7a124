"""pfc:C4 forced march (pf-cohesion-wargame-tables.fr.txt, TABLE DES MARCHES FORCÉES)."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, get_ruleset

C4 = get_ruleset("pfc").get("C4")
# As printed: die → cells for PF < 5, 5-8, 9+.
TABLE = {1: ["", "", ""], 2: ["", "", ""], 3: ["", "", ""], 4: ["", "1", "1"], 5: ["1", "1", "1"], 6: ["1", "1", "2"]}
BASE = {"unit_pf": 6, "unit_cohesion": 2}


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("pf,col", [(1, 0), (4, 0), (5, 1), (8, 1), (9, 2), (25, 2)])
def test_forced_march_table_every_cell(die, pf, col):
    r = C4.resolve({**BASE, "unit_pf": pf}, FixedDice([die]))
    assert r.outcome["pf_lost"] == (int(TABLE[die][col]) if TABLE[die][col] else 0)
    assert r.table_cell.column == ["<5", "5-8", "9+"][col]


@pytest.mark.parametrize(
    "flags,mods",
    [
        ({"general_vc_3_or_4_in_stack": True}, [-1]),
        ({"unit_cohesion": 4}, [-1]),
        ({"unit_cohesion": 5}, [-1]),
        ({"unit_cohesion": 3}, []),
        ({"weather": "snow"}, [1]),
        ({"weather": "mud"}, [2]),
        ({"weather": "rain"}, []),
        ({"general_vc_3_or_4_in_stack": True, "unit_cohesion": 4, "weather": "mud"}, [-1, -1, 2]),
    ],
)
def test_forced_march_modifiers(flags, mods):
    r = C4.resolve({**BASE, **flags}, FixedDice([4]))
    assert [m.value for m in r.modifiers] == mods and r.total == 4 + sum(mods)
    assert all(m.rule == "pfc:C4" for m in r.modifiers)


def test_forced_march_modified_die_is_clamped_to_the_rows():
    r = C4.resolve({**BASE, "unit_pf": 9, "weather": "mud"}, FixedDice([6]))
    assert r.total == 8 and r.table_cell.row == "6" and r.outcome["pf_lost"] == 2
    r = C4.resolve({**BASE, "unit_cohesion": 4, "general_vc_3_or_4_in_stack": True}, FixedDice([1]))
    assert r.total == -1 and r.table_cell.row == "1-3" and r.outcome["pf_lost"] == 0


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(0, 6), st.booleans(), st.sampled_from(["clear", "rain", "mud", "snow"]),
       st.integers(1, 6))
def test_forced_march_invariants(pf, cohesion, general, weather, die):
    r = C4.resolve({"unit_pf": pf, "unit_cohesion": cohesion, "general_vc_3_or_4_in_stack": general,
                    "weather": weather}, FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert 0 <= r.outcome["pf_lost"] <= 2
