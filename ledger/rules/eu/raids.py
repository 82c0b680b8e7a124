"""The Pirates / Natives raids table (end-of-turn attacks), as a small lookup API.

Read by R1 (attacks by natives), R2 (pirates and privateers: trade zones and
looting) and M17 (convoy attacks by corsairs, column Trade FLEET+).
No procedure is registered here: the module only reads ``tables/raids.toml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from ledger.rules.core import TableCell, load_table

TABLE_FILE = "raids.toml"
TABLE_NAME = "Pirates / Natives raids"

#: Column keys of the table, and the heading each prints in a TableCell.
RaidsColumn = Literal[
    "trade_fleet_plus", "trade_fleet_minus", "permanent_loss", "settlement", "land_losses"
]
COLUMN_TITLES: dict[str, str] = {
    "trade_fleet_plus": "vs Trade FLEET+",
    "trade_fleet_minus": "vs Trade FLEET−",
    "permanent_loss": "permanent loss",
    "settlement": "pillage on TP/COL",
    "land_losses": "permanent land losses",
}


@dataclass(frozen=True)
class RaidsRow:
    """One row of the raids table.

    ``settlement_levels`` is the number printed in the "pillage on TP/COL"
    column; ``pillage`` its mark: ``"+"`` for ‡ (Pillage+, full looting),
    ``"-"`` for † (Pillage−, weak looting), ``None`` when unmarked (no looting).
    """

    label: str
    low: int | None
    high: int | None
    trade_fleet_plus: int
    trade_fleet_minus: int
    permanent_loss: int
    settlement: str
    land_losses: int

    @property
    def settlement_levels(self) -> int:
        return int(self.settlement.rstrip("‡†"))

    @property
    def pillage(self) -> Literal["+", "-"] | None:
        if self.settlement.endswith("‡"):
            return "+"
        if self.settlement.endswith("†"):
            return "-"
        return None

    def value(self, column: RaidsColumn) -> int | str:
        return getattr(self, column)

    def cell(self, column: RaidsColumn) -> TableCell:
        """The TableCell a ruling records for this row and column."""
        value = self.value(column)
        if column == "permanent_loss":
            value = "★" * self.permanent_loss or "–"
        elif column == "land_losses":
            value = f"{self.land_losses} LD"
        return TableCell(table=TABLE_NAME, row=self.label, column=COLUMN_TITLES[column], value=value)


@cache
def _rows() -> tuple[RaidsRow, ...]:
    data = load_table("ledger.rules.eu", TABLE_FILE)
    return tuple(
        RaidsRow(
            label=r["label"],
            low=r.get("low"),
            high=r.get("high"),
            trade_fleet_plus=r["trade_fleet_plus"],
            trade_fleet_minus=r["trade_fleet_minus"],
            permanent_loss=r["permanent_loss"],
            settlement=r["settlement"],
            land_losses=r["land_losses"],
        )
        for r in data["rows"]
    )


def read_raids(modified_roll: int) -> RaidsRow:
    """The row of the raids table for a modified 1d10 (open-ended: ≤0 and ≥16)."""
    for row in _rows():
        if (row.low is None or modified_roll >= row.low) and (
            row.high is None or modified_roll <= row.high
        ):
            return row
    raise AssertionError(f"raids table has no row for {modified_roll}")  # rows cover all ints


__all__ = ["COLUMN_TITLES", "TABLE_NAME", "RaidsColumn", "RaidsRow", "read_raids"]
