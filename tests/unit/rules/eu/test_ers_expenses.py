"""ERS expenses have one sign convention: an expense line takes the expense as a positive number (issue 36,
item 4). Which lines are expenses is ruleset data (``expense = true`` in tables/ers.toml), held here to the
sheet's own formulas."""

from __future__ import annotations

import pytest

from ledger.rules.core import RulesError
from ledger.rules.eu.ers import compute_sheet, ers_definition, parse_definition

#: A first-turn sheet where every line reaches the Royal Treasury at the end (A33): income counts through a
#: 100% regular income, the prestige and loan boxes have room, no inflation.
BASE = {"A1": 1000, "A15_pct": 100, "A16_pct": 10, "A17_pct": 10, "A18": 100, "B1": 500, "B30": 900}


def _ducat_lines() -> list[str]:
    # Entered lines only: a carried balance typed on the first turn (A1, C5) is a stock, not an expense.
    return [d.code for d in ers_definition().lines
            if d.kind == "entered" and d.unit in ("ducats", "ticks") and d.allowed is None]


@pytest.mark.parametrize("code", _ducat_lines())
def test_an_expense_line_is_one_whose_larger_amount_leaves_less_in_the_treasury(code):
    defn = ers_definition()
    before = compute_sheet(BASE, None, amounts_only=True)
    after = compute_sheet({**BASE, code: before[code] + 10}, None, amounts_only=True)
    lowers = after["A33"] < before["A33"]
    assert defn.get(code).expense == lowers, (
        f"{code} ({defn.get(code).name}): 10 more changes A33 from {before['A33']} to {after['A33']}, "
        f"but ers.toml says expense = {defn.get(code).expense}")


def test_stability_improvement_is_an_expense_paid_from_the_treasury():
    # A29 takes only 0, 30, 50 or 100: the parametrised test above cannot add 10 to it.
    before = compute_sheet(BASE, None, amounts_only=True)
    after = compute_sheet({**BASE, "A29": 30}, None, amounts_only=True)
    assert after["A33"] == before["A33"] - 30 and ers_definition().get("A29").expense


def test_only_an_entered_line_is_an_expense():
    with pytest.raises(RulesError, match="only an entered line is an expense"):
        parse_definition({"line": [{"code": "B5", "sheet": "B", "name": "x", "kind": "derived", "formula": "1",
                                    "expense": True}]})
    with pytest.raises(RulesError, match="expense is true or false"):
        parse_definition({"line": [{"code": "B30", "sheet": "B", "name": "x", "kind": "entered", "expense": 1}]})
