"""The budget view stores each sheet as ``sheet_json`` gives it: its fast path writes exactly the same text.

``sheet_rows`` serialises a sheet from its cells directly (for a rebuild's speed); these hold it equal to
serialising ``sheet_json``'s answer, on sheets with every kind of line: entered with lineage, derived, ticks,
corrections, unbooked entries, a closing value that does not match, an alert, and a sheet that cannot be computed.
"""

from __future__ import annotations

import orjson
import pytest

from ledger.economy.sheets import budget, sheet_json
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
    "a phase closed with other figures": campaign(
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


def test_an_alert_and_a_mismatched_closing_value_are_in_the_rows():
    rows = [orjson.loads(line[-1]) for s in budget(CAMPAIGNS["a phase closed with other figures"]).sheets.values()
            for line in sheet_rows(s)[1]]
    assert any(line["at_close"] and line["at_close"]["matches"] is False for line in rows)
    rows = [orjson.loads(line[-1]) for line in sheet_rows(budget(CAMPAIGNS["entries, ticks and an alert"]).sheet(
        "FRA", 1))[1]]
    assert any(line["alert"] for line in rows) and any(line["ticks"] == 2 for line in rows)
