"""A seeded history's sheets decoded from the budget view's stored lines (projections/history.py ``_cells``)."""

from __future__ import annotations

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from ledger.economy.sheets import Cell, Sheet, sheet_json
from projections.history import _cells

_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_CELL = st.builds(
    Cell, code=st.sampled_from(["A1", "A9", "B3", "C2"]), name=_TEXT, sheet=st.sampled_from("ABC"),
    kind=st.sampled_from(["entered", "derived"]), unit=st.sampled_from(["ducats", "percent"]),
    value=st.integers(-10**12, 10**12), ticks=st.none() | st.integers(0, 99), formula=st.none() | _TEXT,
    sources=st.lists(_TEXT, max_size=3).map(tuple), events=st.lists(st.integers(1, 10**6), max_size=4).map(tuple),
    defaulted=st.booleans(), alert=st.none() | _TEXT,
    at_close=st.none() | st.fixed_dictionaries({"phase": _TEXT, "position": st.integers(1, 99),
                                                "value": st.integers(-99, 99), "matches": st.booleans()}))


@given(st.lists(_CELL, max_size=5, unique_by=lambda c: c.code))
@example([Cell("A9", '"amount":1', "A", "entered", "ducats", 5, None, 'x "amount": y', ('"amount":',), (4,), False,
               None, {"phase": '"amount":', "position": 4, "value": 5, "matches": True})])
def test_stored_lines_decode_to_the_cells_they_were_written_from(cells):
    # As the budget view stores them: each line's ``sheet_json`` text, joined into one array per sheet (texts
    # named "amount", quotes and all, stay texts).
    lines = sheet_json(Sheet("FRA", 1, {c.code: c for c in cells}))["lines"]
    array = "[" + ",".join(orjson.dumps(line).decode() for line in lines) + "]"
    assert _cells(array) == {c.code: c for c in cells}
    assert list(_cells(array)) == [c.code for c in cells]


def test_a_line_stored_otherwise_is_read_from_its_fields():
    line = {"code": "A9", "name": "n", "sheet": "A", "kind": "entered", "unit": "ducats", "amount": 2.0,
            "ticks": None, "formula": None, "sources": [], "events": [3], "defaulted": False, "alert": None,
            "at_close": None}
    assert _cells(orjson.dumps([line]).decode()) == {
        "A9": Cell("A9", "n", "A", "entered", "ducats", 2.0, None, None, (), (3,), False, None, None)}
    assert _cells(None) == {}
