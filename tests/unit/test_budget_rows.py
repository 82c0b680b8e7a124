"""The budget view stores each sheet as ``sheet_json`` gives it: its fast path writes exactly the same text.

``sheet_rows`` serialises a sheet from its cells directly (for a rebuild's speed); these hold it equal to
serialising ``sheet_json``'s answer, on sheets with every kind of line: entered with lineage, derived, ticks,
corrections, unbooked entries, a closing value that does not match, an alert, and a sheet that cannot be computed.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.economy.sheets import Cell, Sheet, budget, sheet_json
from projections.budget_view import sheet_rows
from tests.unit.test_budget import campaign, entry


def plain_rows(s):
    """The rows as the view wrote them before: ``sheet_json``'s answer, each part serialised on its own."""
    j = sheet_json(s)
    dumps = orjson.dumps
    return (dumps({k: j[k] for k in ("error", "unbooked", "phases_closed")}).decode(),
            [(seq, line["code"], line["amount"], line["kind"], dumps(line["events"]).decode(),
              dumps(line["sources"]).decode(), dumps(line).decode()) for seq, line in enumerate(j["lines"])])


CAMPAIGNS = {
    "entries, ticks and an alert": campaign(entry("A1", 10), entry("B40", 2), entry("A5", 500), entry("A9", 3)),
    "a correction and an unbooked entry": campaign(
        entry("A1", 100), entry("A9", 35), entry("A13", 7),
        ("CorrectionRecorded", {"corrects": 4, "reason": "loot was 30", "replacement": {"amount": 30}})),
    "a phase closed (an older one, with figures the budget does not read)": campaign(
        entry("A1", 100), ("PhaseClosed", {"turn": 1, "phase": "diplomacy", "ers": {"FRA": {"A8": 90, "A1": 100}}}),
        ("TurnOpened", {"turn": 2}), entry("A1", 5, turn=2)),
    "a sheet that cannot be computed": campaign(("TurnOpened", {"turn": 2})),
}


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_the_stored_rows_of_a_sheet_are_its_sheet_json(name):
    b = budget(CAMPAIGNS[name])
    assert b.sheets
    for s in b.sheets.values():
        assert sheet_rows(s) == plain_rows(s)


def test_an_alert_and_ticks_are_in_the_rows():
    rows = [orjson.loads(line[-1]) for line in sheet_rows(budget(CAMPAIGNS["entries, ticks and an alert"]).sheet(
        "FRA", 1))[1]]
    assert any(line["alert"] for line in rows) and any(line["ticks"] == 2 for line in rows)


_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # quotes, backslashes, controls, any script
_LINES = st.builds(
    Cell, code=st.sampled_from(["A1", "A9", "B40", 'Q"1']), name=_TEXT, sheet=st.sampled_from(["ERS", "x\\y"]),
    kind=st.sampled_from(["entered", "derived"]), unit=_TEXT,
    value=st.one_of(st.integers(-10**12, 10**12), st.booleans()), ticks=st.one_of(st.none(), st.integers(0, 9)),
    formula=st.one_of(st.none(), _TEXT), sources=st.lists(_TEXT, max_size=3).map(tuple),
    events=st.lists(st.integers(1, 10**9), max_size=4).map(tuple), defaulted=st.booleans(),
    alert=st.one_of(st.none(), _TEXT),
    at_close=st.one_of(st.none(), st.fixed_dictionaries({"value": st.integers(-99, 99), "matches": st.booleans()})))


@given(cells=st.lists(_LINES, max_size=6, unique_by=lambda c: c.code))
def test_every_stored_line_is_its_sheet_json_line_whatever_its_texts_and_figures(cells):
    """``sheet_rows`` builds each line's text from the cell, not from ``sheet_json``'s dicts: it is still exactly
    that line serialised, for any name, unit, formula or alert text (quotes, backslashes, controls) and figures."""
    s = Sheet("FRA", 3, {c.code: c for c in cells})
    assert sheet_rows(s) == plain_rows(s)
