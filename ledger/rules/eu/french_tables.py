"""M22: the tables of the French seed (eu8-fast-combat-and-tables.fr.txt §2.2-2.8
and annexes).

Two halves:

* a small lookup API over the static tables (data files ``tables/fr_*.toml``)
  that other procedure families import: ``size_comparison``,
  ``losses_variation``, ``army_class_value``, ``cavalry_per_detachment``,
  ``artillery_per_army``, ``sea_transport_points``, ``naval_loss_multiplier``,
  ``naval_loss_distribution``, ``recruitment_limit``, ``fortress_cost``,
  ``monarch_average_value``, ``country_costs``;
* procedure ``M22`` which resolves the die-driven tables, the ``table`` input
  naming which one (see ``DIE_TABLES``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.rules.core import RulesError, load_table

PKG = "ledger.rules.eu"
SEED = "eu8-fast-combat-and-tables.fr.txt"

PERIODS = ("I", "II", "III", "IV", "V", "VI", "VII")


def _t(name: str) -> Any:
    return load_table(PKG, name)


def _period_index(period: str) -> int:
    try:
        return PERIODS.index(period)
    except ValueError:
        raise RulesError(f"unknown period {period!r} (I-VII)", field="period", rule="eu:M22") from None


# --------------------------------------------------------------------------- combat


def size_comparison(inflicting: int, receiving: int) -> int:
    """Size-comparison modifier (-2..+2) of the army inflicting losses (eu:M22, §2.2.4).

    ``inflicting`` and ``receiving`` are size values 0-7 (army class values by
    period, see ``army_class_value``).
    """
    table = _t("fr_size_comparison.toml")
    for name, value in (("inflicting", inflicting), ("receiving", receiving)):
        if not isinstance(value, int) or not 0 <= value <= 7:
            raise RulesError(f"size value {value!r} outside 0-7", field=name, rule="eu:M22")
    return table["rows"][str(inflicting)][table["columns"].index(receiving)]


def losses_column(losses: Fraction | int) -> Fraction:
    """The column of the losses-variation table a computed loss is read in.

    Combat cells are in thirds, the table's columns in halves: a loss is read
    in the column of the nearest half (a third is never half-way between two
    halves, so this is unambiguous; an exact quarter goes up). See DECISIONS.md
    (M22 losses variation).
    """
    losses = Fraction(losses)
    if losses < 0:
        raise RulesError(f"negative losses {losses}", field="losses", rule="eu:M22")
    doubled = losses * 2
    nearest = int(doubled + Fraction(1, 2)) if doubled.denominator != 1 else int(doubled)
    return Fraction(nearest, 2)


def losses_variation(losses: Fraction | int, modifier: int) -> Fraction:
    """Losses actually inflicted once the size comparison is applied (eu:M22, §2.2.4).

    ``losses`` is the total of fire, shock and pursuit (step A), exact
    fraction; ``modifier`` the size-comparison result (-2..+2). Returns an
    exact fraction in halves. Losses above 8 use the printed "8 et +" column
    (the row adds its signed amount). The cap by the size of the inflicting
    army and the final rounding (step F) are the combat procedure's business.
    """
    table = _t("fr_losses_variation.toml")
    if modifier not in range(-2, 3):
        raise RulesError(
            f"size-comparison modifier {modifier} outside -2..+2", field="modifier", rule="eu:M22"
        )
    row = table["rows"][str(modifier)]
    column = losses_column(losses)
    if column == 0:
        return Fraction(0)
    if column > 8:
        return max(Fraction(0), column + Fraction(row["beyond_8"]))
    index = [Fraction(c) for c in table["columns"]].index(column)
    return Fraction(row["cells"][index])
