"""The ERS lines a phase of the sequence of play completes (TABLES.md "Sequence of play").

A turn runs through eight phases in order; closing one records, for every
country, the lines it completes as the budget computes them at that moment: A8
after diplomacy, A9 and A10 when redeployment ends, A13 (RT before the
exchequer test, exceptional taxes included) and A25 after the exchequer, A31
after peace, A32 and A33 at the end of the interphase. A later correction
changes the budget, never these recorded figures: the budget shows both
(``at_close``).
"""

from __future__ import annotations

from typing import Any

from ledger.domain.commands import PHASES
from ledger.i18n import N_
from ledger.economy.sheets import Budget

TITLES = {
    "events": N_("Events"),
    "diplomacy": N_("Diplomacy"),
    "incomes": N_("Incomes / Administration / Logistics"),
    "military": N_("Military"),
    "redeployment": N_("Redeployment"),
    "exchequer": N_("Exchequer"),
    "peace": N_("Peace"),
    "interphase": N_("Interphase"),
}
#: The ERS lines a phase completes, recorded when it closes.
MILESTONES: dict[str, tuple[str, ...]] = {
    "diplomacy": ("A8",),
    # A13 is "RT before the Exchequer TEST": it includes the exceptional taxes (A12), levied in the
    # exchequer phase itself (DECISIONS.md "Phases"), so it is recorded with A25 when that phase closes.
    "redeployment": ("A9", "A10"),
    "exchequer": ("A13", "A25"),
    "peace": ("A31",),
    "interphase": ("A32", "A33"),
}
__all__ = ["PHASES", "TITLES", "MILESTONES", "recorded"]


def recorded(budget: Budget, countries: tuple[str, ...], turn: int, phase: str) -> dict[str, Any]:
    """What closing ``phase`` records: each country's completed lines, or why its sheet has none."""
    codes = MILESTONES.get(phase)
    if not codes:
        return {}
    out: dict[str, Any] = {}
    for country in countries:
        sheet = budget.sheet(country, turn)
        if sheet is None or sheet.cells is None:
            out[country] = {"error": sheet.error["message"] if sheet and sheet.error else "no sheet"}
        else:
            out[country] = {code: sheet.cells[code].value for code in codes}
    return out
