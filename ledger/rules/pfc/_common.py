"""Helpers shared by the ``pfc`` resolvers: table reading, column lookup, cohesion averages."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from ledger.rules.core import load_table

SEED = "pf-cohesion-wargame-tables.fr.txt"
PACKAGE = "ledger.rules.pfc"

#: The four weathers of the weather table (Clair, Pluie, Boue, Neige).
Weather = Literal["clear", "rain", "mud", "snow"]
WEATHER_FR = {"clear": "Clair", "rain": "Pluie", "mud": "Boue", "snow": "Neige"}


def section(title: str) -> str:
    return f"{SEED} §{title}"


def table(name: str) -> dict[str, Any]:
    return load_table(PACKAGE, name)


def column_index(value: int | Fraction, lows: list[int]) -> int | None:
    """Index of the column whose range holds ``value`` (lows are each column's first value).

    None when the value is below the first column: the table prints nothing for it.
    """
    found = None
    for i, low in enumerate(lows):
        if value >= low:
            found = i
    return found


def read_cell(text: str) -> tuple[int, bool]:
    """A printed loss cell: '' → (0, False), '2' → (2, False), '3*' → (3, True)."""
    text = text.strip()
    star = text.endswith("*")
    number = text.rstrip("*").strip()
    return (int(number) if number else 0), star


def printed(text: str) -> str:
    """How a cell is shown in a ruling: the printed text, or '—' for a blank cell."""
    return text if text.strip() else "—"


def mean(values: list[int]) -> Fraction:
    return Fraction(sum(values), len(values))


def toward_zero(value: Fraction) -> int:
    """Truncate toward zero, so both sides of a cohesion difference get the same size (DECISIONS.md)."""
    return int(value)  # int() of a Fraction truncates toward zero


def fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
