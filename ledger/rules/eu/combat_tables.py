"""Combat Results table, technology columns and the loss arithmetic of fast combat (eu).

Shared by M19 (battles), M20 (naval battles) and M21 (sieges). Pure lookups over the data
files in ``tables/``; every loss is an exact ``Fraction`` (thirds and halves), never a float.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from ledger.rules.core import Loss, RulesError, TableCell, clamp, load_table, parse_loss
from ledger.rules.eu.vocabularies import LandTech, NavalTech  # noqa: F401 (the battle inputs' types)

PKG = "ledger.rules.eu"

Column = Literal["A", "B", "C", "D", "E"]

SEC_FAST = "eu8-fast-combat-and-tables.fr.txt §2.2 Le combat rapide"
SEC_ROUNDS = "eu8-fast-combat-and-tables.fr.txt §2.2.3 Pendant les rounds de combat"
SEC_LOSSES = "eu8-fast-combat-and-tables.fr.txt §2.2.4 Variation des pertes"
SEC_TABLES = "TABLES.md Combat results / Land technology / Naval technology"

THIRD = Fraction(1, 3)
HALF = Fraction(1, 2)


def frac(text: str) -> Fraction:
    return Fraction(text)


# --------------------------------------------------------------------------- combat results


def combat_result(column: str, total: int, *, table: str = "Combat Results") -> tuple[Loss, TableCell]:
    """Read the Combat Results table: column A–E, modified roll clamped to ≤3 … ≥14."""
    data = load_table(PKG, "combat_results.toml")
    if column not in data["columns"]:
        raise RulesError(f"no Combat Results column {column!r}", field="column")
    row = clamp(total, data["min_row"], data["max_row"])
    text = data["rows"][str(row)][data["columns"].index(column)]
    label = "≤3" if row == data["min_row"] else "≥14" if row == data["max_row"] else str(row)
    return parse_loss(text), TableCell(table=table, row=label, column=column, value=text)


# --------------------------------------------------------------------------- technology


def land_columns(own: str, enemy: str) -> tuple[str | None, str]:
    """(fire column or None for '–', shock column) from the Land Technology table."""
    data = load_table(PKG, "combat_land_technology.toml")
    cell = data["columns"][own][data["order"].index(enemy)]
    fire, shock = cell.split("/")
    return (None if fire == "–" else fire), shock


def land_morale(own: str, enemy: str, *, veteran: bool = False, tercios: bool = False) -> int:
    """Starting morale of a land stack (Land Technology table, last column, and its notes)."""
    data = load_table(PKG, "combat_land_technology.toml")["morale"]
    morale = data[own]
    if own == "REN" and enemy == "MED":
        morale = data["renaissance_vs_medieval"]
    if tercios and own in data["tercios_bonus_techs"]:
        morale += 1
    return morale + (1 if veteran else 0)


def naval_columns(own: str, enemy: str) -> tuple[str | None, str]:
    """(fire column or None, boarding column) from the Naval Technology table."""
    data = load_table(PKG, "combat_naval_technology.toml")
    cell = data["columns"][own][data["order"].index(enemy)]
    fire, board = cell.split("/")
    return (None if fire == "–" else fire), board


def naval_morale(own: str, *, veteran: bool = False) -> int:
    data = load_table(PKG, "combat_naval_technology.toml")["morale"]
    bonus = 1 if veteran and own in data["veteran_bonus"] else 0
    return data[own] + bonus


# --------------------------------------------------------------------------- fire special rules


def floor_third(x: Fraction) -> Fraction:
    """Round down to a whole third (Arquebus: 'round to lesser ⅓')."""
    return Fraction((x * 3).numerator // (x * 3).denominator, 3)


def ceil_third(x: Fraction) -> Fraction:
    """Round up to a whole third (Galleys: 'round to larger ⅓')."""
    return -floor_third(-x)


def land_fire_rule(tech: str, loss: Loss) -> tuple[Loss, str]:
    """Apply the technology rule of the fire segment to a table cell (eu8 §2.2.3 point 1).

    Renaissance: only the morale stars. Arquebus: losses halved, rounded down (to a third).
    Later technologies: the losses as printed. (Medieval never fires: handled by the caller.)
    """
    if tech == "REN":
        return Loss(Fraction(0), loss.morale), "Renaissance: only the morale losses (★) of the fire"
    if tech == "ARQ":
        return Loss(floor_third(loss.amount / 2), loss.morale), "Arquebus: fire losses halved, rounded down"
    return loss, "losses as printed"


def renaissance_fires(has_army: bool, vs_native_medieval: bool) -> bool:
    """A Renaissance force uses the fire table if it has ARMY counters, or if it fights
    natives / non-European Medieval countries (eu8 §2.2.3 point 1)."""
    return has_army or vs_native_medieval


# --------------------------------------------------------------------------- losses variation


def small_stack_reduction(ld: int, lde: int = 0) -> Fraction | None:
    """Losses removed from what a land stack smaller than 8 LD inflicts (<L1>).

    ``None`` means 7 LD: the reduction then depends on a die (−⅓ if odd).
    """
    thirds = ld * 3 + lde
    if ld >= 8:
        return Fraction(0)
    if ld == 7:
        return None
    data = load_table(PKG, "combat_small_stack.toml")["land"]
    # Between the printed sizes (e.g. 2 LD + LDE), read the largest printed size not above.
    keys = sorted(int(k) for k in data if k.isdigit())
    usable = [k for k in keys if k <= thirds]
    if not usable:
        return Fraction(0) if thirds == 0 else frac(data[str(keys[0])])
    return frac(data[str(usable[-1])])


def seven_ld_odd_reduction() -> Fraction:
    return frac(load_table(PKG, "combat_small_stack.toml")["land"]["seven_ld_odd_die"])


def naval_small_stack_reduction(nd: int) -> Fraction:
    data = load_table(PKG, "combat_small_stack.toml")["sea"]
    return frac(data[str(nd)]) if str(nd) in data else Fraction(0)


def _french(name: str):
    """The shared lookup of ``french_tables`` (M22) if that module provides it."""
    try:
        from ledger.rules.eu import french_tables
    except ImportError:  # pragma: no cover - the M22 helper's module is absent
        return None
    return getattr(french_tables, name, None)


def size_comparison(inflicter_size: int, sufferer_size: int) -> int:
    """Delegates to ``french_tables.size_comparison`` (M22 helper) when present.

    Row of the losses-variation table: inflicting army's class size (row) vs the suffering
    army's (column), 'Comparaison des tailles' (eu8 §2.2.5)."""
    for name, value in (("inflicter_size", inflicter_size), ("sufferer_size", sufferer_size)):
        if not 0 <= value <= 7:
            raise RulesError(f"army class size must be 0–7, got {value}", field=name, rule="eu:M19")
    shared = _french("size_comparison")
    if shared:
        return shared(inflicter_size, sufferer_size)
    return load_table(PKG, "combat_size_comparison.toml")["rows"][str(inflicter_size)][sufferer_size]


def losses_variation(losses: Fraction, row: int) -> Fraction:
    """Losses actually inflicted: read ``losses`` on row 0 of 'Variation de pertes selon la
    taille' and return the value on ``row`` (−2 … +2).

    Losses between two printed columns (the Combat Results table gives thirds, the variation
    table halves) are interpolated linearly between the neighbouring columns, (0, 0) being
    the origin; above 8 the last column's adjustment is added (DECISIONS.md, M19).
    """
    if row not in (-2, -1, 0, 1, 2):
        raise RulesError(f"losses-variation row must be −2…+2, got {row}", field="row", rule="eu:M19")
    if losses <= 0:
        return Fraction(0)
    shared = _french("losses_variation")
    if shared:  # the M22 helper's reading (nearest half column) is the ruleset's reading
        return shared(losses, row)
    data = load_table(PKG, "combat_losses_variation.toml")
    xs = [Fraction(0)] + [frac(c) for c in data["columns"]]
    ys = [Fraction(0)] + [frac(c) for c in data["rows"][str(row)]]
    if losses >= xs[-1]:
        return max(Fraction(0), losses + frac(data["above_8"][str(row)])) if losses > xs[-1] else ys[-1]
    for i in range(1, len(xs)):
        if losses <= xs[i]:
            x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
            return y0 + (y1 - y0) * (losses - x0) / (x1 - x0)
    raise AssertionError("unreachable")


def naval_losses_by_size(losses: Fraction, line: int) -> Fraction:
    """<L2/S2> 'Loss Modification by Size' for fleets of 7 ND or more (eu-military-rules.tex
    §Les batailles navales): the whole part and the third are each read on the line and
    summed; above 6, the last column's adjustment is added to the whole part."""
    data = load_table(PKG, "naval_combat_size_lines.toml")
    if str(line) not in data["lines"]:
        raise RulesError(f"no naval size line {line}", field="line", rule="eu:M20")
    cells = data["lines"][str(line)]
    whole = int(losses)
    rest = losses - whole
    value = Fraction(0)
    if rest == THIRD:
        value += frac(cells["third"])
    elif rest == 2 * THIRD:
        value += frac(cells["two_thirds"])
    else:
        value += rest
    if whole:
        if whole <= 6:
            value += frac(cells[str(whole)])
        else:
            value += whole + frac(cells["above_6"])
    return max(Fraction(0), value)


def naval_size_line(nd: int) -> int:
    """Line of <L2/S2> by ND count (NDE ignored): 7–12 → +1, 13–18 → +2, 19+ → +3."""
    if nd >= 19:
        return 3
    if nd >= 13:
        return 2
    if nd >= 7:
        return 1
    return 0


# --------------------------------------------------------------------------- rounding


def round_losses(x: Fraction) -> int:
    """Step F: losses rounded down, except ½ which becomes 1 (read: a total from ½ up to
    but excluding 1 becomes 1; DECISIONS.md, M19)."""
    if HALF <= x < 1:
        return 1
    return int(x // 1)


def fmt(x: Fraction | int) -> str:
    """Fractions as strings for outcomes ('4/3')."""
    return str(Fraction(x))
