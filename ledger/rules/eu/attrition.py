"""Shared attrition readings (eu): the Discoveries-and-Attrition table, the
remainders table read by 10-D blocks with the ★ second die, and 'P' by technology.

Used by supply (M5-M7), movement (M9-M11), naval attrition (M12), exploration
(M18) and other helpers: keep the public function names stable.

* ``read_attrition_row(total)``           → the row of the Discoveries and Attrition table
* ``europe_result(total, ld)``            → the "Land, Europe" cell (n LD lost, P)
* ``rotw_percent(total)``                 → the "ROTW or Sea" percentage
* ``discovery_reading(total, kind)``      → the Discovery cell (S / F / ½, †, ×)
* ``half_reroll_reading(value)``          → the ½ re-roll table (unmodified die)
* ``read_remainders(size, percent)``      → one cell of the remainders table
* ``apply_remainders(d_units, ...)``      → blocks, ★ dice and what is left
* ``resolve_p(...)``                      → 'P' by technology and the Pillage markers
* ``add_pillage_minus(state, ...)``       → place a Pillage−, merging two into a Pillage+
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Die, Effect, RulesError, TableCell, clamp, load_table
from ledger.rules.eu.vocabularies import LandTech, ProvinceName

PACKAGE = "ledger.rules.eu"
SEED = "eu-military-rules.tex"

LOW_TECH = frozenset({"MED", "REN", "ARQ"})
#: Remainders table versions: the 2016 English table and the older French one.
RemaindersVersion = Literal["2016", "fr"]
REMAINDERS_FILES = {"2016": "attrition_remainders_2016.toml", "fr": "attrition_remainders_fr.toml"}
ATTRITION_TABLE = "Discoveries and Attrition"
REMAINDERS_TABLE = "Attrition ROTW Remainders"

# --------------------------------------------------------------------------- main table


def _main_table() -> dict:
    return load_table(PACKAGE, "attrition_discoveries.toml")


def attrition_row_key(total: int) -> int:
    """The printed row a modified roll reads: ≤5 … ≥15."""
    t = _main_table()
    return clamp(total, t["min_roll"], t["max_roll"])


def _row_label(key: int) -> str:
    t = _main_table()
    if key == t["min_roll"]:
        return f"≤{key}"
    if key == t["max_roll"]:
        return f"≥{key}"
    return str(key)


def read_attrition_row(total: int) -> dict:
    """The whole row of the Discoveries and Attrition table for a modified roll."""
    return dict(_main_table()["rows"][str(attrition_row_key(total))])


def europe_column(ld: int) -> str:
    """Stack-size column of "Land, Europe": 1, 2, 3–5, ≥6 LD."""
    if ld < 1:
        raise RulesError("a stack rolling attrition in Europe has at least 1 LD", field="ld")
    if ld == 1:
        return "1"
    if ld == 2:
        return "2"
    if ld <= 5:
        return "3-5"
    return "6+"


@dataclass(frozen=True)
class EuropeResult:
    """A "Land, Europe" cell: LD lost immediately and whether a 'P' applies."""

    cell: str
    ld_lost: int
    p: bool
    table_cell: TableCell


def parse_europe_cell(cell: str) -> tuple[int, bool]:
    """'-' → (0, False); 'P' → (0, True); '2' → (2, False); '1+P' → (1, True)."""
    cell = cell.strip()
    if cell in {"-", "—", ""}:
        return 0, False
    m = re.fullmatch(r"(?:(\d+))?(?:\+?(P))?", cell)
    if not m or not (m[1] or m[2]):
        raise ValueError(f"unreadable Europe attrition cell {cell!r}")
    return int(m[1] or 0), bool(m[2])


def europe_result(total: int, ld: int) -> EuropeResult:
    """Read the "Land, Europe" column for the stack size (M6, M7, M10)."""
    key = attrition_row_key(total)
    column = europe_column(ld)
    idx = _main_table()["europe_columns"].index(column)
    cell = _main_table()["rows"][str(key)]["europe"][idx]
    lost, p = parse_europe_cell(cell)
    return EuropeResult(
        cell=cell,
        ld_lost=lost,
        p=p,
        table_cell=TableCell(
            table=ATTRITION_TABLE, row=_row_label(key), column=f"Land, Europe {column} LD", value=cell
        ),
    )


def rotw_percent(total: int) -> int:
    """The "ROTW or Sea" percentage lost for a modified roll."""
    return int(read_attrition_row(total)["rotw_sea"])


def rotw_table_cell(total: int) -> TableCell:
    key = attrition_row_key(total)
    return TableCell(
        table=ATTRITION_TABLE, row=_row_label(key), column="ROTW or Sea", value=f"{rotw_percent(total)}%"
    )


@dataclass(frozen=True)
class DiscoveryReading:
    """A Discovery cell: 'S', 'F' or 'H' (½), with the † / × death-test mark."""

    result: Literal["S", "F", "H"]
    mark: Literal["", "†", "×"]

    @property
    def text(self) -> str:
        return ("½" if self.result == "H" else self.result) + self.mark


def _parse_discovery(cell: str) -> DiscoveryReading:
    result, mark = cell[0], cell[1:]
    if result not in {"S", "F", "H"} or mark not in {"", "†", "×"}:
        raise ValueError(f"unreadable discovery cell {cell!r}")
    return DiscoveryReading(result, mark)  # type: ignore[arg-type]


def discovery_reading(total: int, kind: Literal["sea", "land"]) -> tuple[DiscoveryReading, TableCell]:
    """The Discovery column (sea or land) for a modified roll (M18)."""
    key = attrition_row_key(total)
    cell = _main_table()["rows"][str(key)][f"discovery_{kind}"]
    reading = _parse_discovery(cell)
    return reading, TableCell(
        table=ATTRITION_TABLE, row=_row_label(key), column=f"Discovery {kind}", value=reading.text
    )


def half_reroll_reading(value: int) -> DiscoveryReading:
    """The ½ small table, read with an UNMODIFIED die: 1–3 F†, 4–5 F×, 6–8 S†, 9–10 S×."""
    if not 1 <= value <= 10:
        raise RulesError(f"a d10 cannot show {value}", field="dice")
    return _parse_discovery(_main_table()["half_reroll"][str(value)])


# --------------------------------------------------------------------------- remainders


@dataclass(frozen=True)
class RemaindersCell:
    """What is left of one block: ``whole`` D and ``d`` LDE/NDE; ★ = 50% one d more lost."""

    text: str
    whole: int
    d: int
    star: bool

    @property
    def thirds(self) -> int:
        return 3 * self.whole + self.d


def parse_remainders_cell(cell: str) -> RemaindersCell:
    """'1+2d★' → 1 D and 2 d left, with a ★; '-' → nothing left."""
    text = cell.strip()
    star = text.endswith("★")
    body = text.rstrip("★")
    if body in {"-", "—", "–", ""}:
        return RemaindersCell(text, 0, 0, star)
    whole = d = 0
    for part in body.split("+"):
        if part in {"d", "2d"}:
            d = 1 if part == "d" else 2
        elif part.isdigit():
            whole = int(part)
        else:
            raise ValueError(f"unreadable remainders cell {cell!r}")
    return RemaindersCell(text, whole, d, star)


def _remainders(version: str) -> dict:
    try:
        return load_table(PACKAGE, REMAINDERS_FILES[version])
    except KeyError:
        raise RulesError(f"unknown remainders table version {version!r}", field="remainders_version") from None


def read_remainders(size: str, percent: int, version: RemaindersVersion = "2016") -> RemaindersCell:
    """One cell: ``size`` is 'd', '2d' or '1'..'10' (D); ``percent`` 10..90."""
    table = _remainders(version)
    if size not in table["rows"]:
        raise RulesError(f"the remainders table has no row {size!r}", field="size")
    cols = table["percent_columns"]
    if percent not in cols:
        raise RulesError(f"the remainders table has no {percent}% column", field="percent")
    return parse_remainders_cell(table["rows"][size][cols.index(percent)])


@dataclass(frozen=True)
class BlockReading:
    """One block read on the remainders table (and its ★ die, if any)."""

    size: str  # row read: 'd', '2d', '1'..'10'
    thirds_before: int
    cell: RemaindersCell | None  # None at 0% / 100% (no table read)
    star_die: Die | None
    star_lost: bool
    thirds_left: int

    def as_dict(self) -> dict:
        return {
            "row": self.size,
            "before": str(Fraction(self.thirds_before, 3)),
            "cell": self.cell.text if self.cell else None,
            "star_die": self.star_die.total if self.star_die else None,
            "star_extra_d_lost": self.star_lost,
            "left": str(Fraction(self.thirds_left, 3)),
        }


@dataclass(frozen=True)
class RemaindersResult:
    """Losses through the remainders table, in D (thirds are d: LDE or NDE)."""

    percent: int
    version: str
    blocks: tuple[BlockReading, ...]
    dice: tuple[Die, ...]
    cells: tuple[TableCell, ...] = field(default=())

    @property
    def thirds_before(self) -> int:
        return sum(b.thirds_before for b in self.blocks)

    @property
    def thirds_left(self) -> int:
        return sum(b.thirds_left for b in self.blocks)

    @property
    def left(self) -> Fraction:
        return Fraction(self.thirds_left, 3)

    @property
    def lost(self) -> Fraction:
        return Fraction(self.thirds_before - self.thirds_left, 3)

    def outcome(self) -> dict:
        return {
            "percent": self.percent,
            "remainders_version": self.version,
            "blocks": [b.as_dict() for b in self.blocks],
            "before": str(Fraction(self.thirds_before, 3)),
            "left": str(self.left),
            "lost": str(self.lost),
        }


def split_blocks(d_units: int) -> list[tuple[str, int]]:
    """Split a stack measured in thirds (1 D = 3 d) into table rows.

    Whole D are read by blocks of 10 D and the remainder; the leftover one or two
    d are read on the 'd' / '2d' rows (3 d count as 1 D). See DECISIONS.md (M10).
    """
    if d_units < 0:
        raise RulesError("a stack cannot have a negative size", field="size")
    whole, d = divmod(d_units, 3)
    rows: list[tuple[str, int]] = []
    while whole > 10:
        rows.append(("10", 30))
        whole -= 10
    if whole:
        rows.append((str(whole), 3 * whole))
    if d:
        rows.append(("d" if d == 1 else "2d", d))
    return rows


def star_die_loses(value: int) -> bool:
    """The ★ second die: the extra d is lost on ``lose_max`` or less (50%)."""
    return value <= load_table(PACKAGE, "attrition_star_die.toml")["lose_max"]


def apply_remainders(
    d_units: int,
    percent: int,
    dice: DiceSource,
    *,
    version: RemaindersVersion = "2016",
    purpose: str = "attrition",
) -> RemaindersResult:
    """Apply a percentage to a stack of ``d_units`` thirds (3 × D + d).

    0% loses nothing and 100% loses everything without reading the table;
    otherwise each block is read and a ★ draws a second die (one per block).
    """
    if percent % 10 or not 0 <= percent <= 100:
        raise RulesError(f"attrition percentage must be a multiple of 10 in 0..100, not {percent}", field="percent")
    blocks: list[BlockReading] = []
    drawn: list[Die] = []
    cells: list[TableCell] = []
    for size, before in split_blocks(d_units):
        if percent == 0:
            blocks.append(BlockReading(size, before, None, None, False, before))
            continue
        if percent == 100:
            blocks.append(BlockReading(size, before, None, None, False, 0))
            continue
        cell = read_remainders(size, percent, version)
        cells.append(
            TableCell(
                table=f"{REMAINDERS_TABLE} ({version})",
                row=size if size in {"d", "2d"} else f"{size}D",
                column=f"{percent}%",
                value=cell.text,
            )
        )
        left = cell.thirds
        star_die = None
        star_lost = False
        if cell.star and left > 0:
            # ★ with nothing left cannot take a further d: no die is drawn.
            star_die = dice.roll(f"{purpose}: ★ extra d ({size} block, {percent}%)")
            drawn.append(star_die)
            star_lost = star_die_loses(star_die.total)
            if star_lost:
                left -= 1
        blocks.append(BlockReading(size, before, cell, star_die, star_lost, left))
    return RemaindersResult(percent, version, tuple(blocks), tuple(drawn), tuple(cells))


def to_thirds(whole: int, d: int = 0) -> int:
    """Stack size in thirds: whole D (LD/ND) and d (LDE/NDE)."""
    return 3 * whole + d


# --------------------------------------------------------------------------- P and Pillage


class ProvincePillage(BaseModel):
    """Pillage markers already in the province where a 'P' would place one."""

    model_config = ConfigDict(extra="forbid")

    province: ProvinceName | None = Field(default=None, description="Province name (for the effect)")
    pillage_minus: int = Field(default=0, ge=0, le=1, description="Pillage− already there (two merge at once)")
    pillage_plus: int = Field(default=0, ge=0, le=2, description="Pillage+ already there (at most two)")


@dataclass(frozen=True)
class PillageResult:
    placed: bool
    merged: bool
    blocked: bool
    effects: tuple[Effect, ...]


def add_pillage_minus(state: ProvincePillage, *, country: str | None = None) -> PillageResult:
    """Place a Pillage−; two Pillage− merge at once into a Pillage+; no Pillage at all
    in a province that already holds two Pillage+ (eu-military-rules.tex §Attrition, Land)."""
    if state.pillage_plus >= 2:
        return PillageResult(False, False, True, ())
    if state.pillage_minus >= 1:
        effects = (
            Effect(kind="marker_removed", country=country, target=state.province, marker="Pillage-",
                   detail={"reason": "two Pillage- merge into a Pillage+"}),
            Effect(kind="marker_placed", country=country, target=state.province, marker="Pillage+",
                   detail={"merged_from": "2 Pillage-"}),
        )
        return PillageResult(True, True, False, effects)
    return PillageResult(
        True, False, False, (Effect(kind="marker_placed", country=country, target=state.province, marker="Pillage-"),)
    )


PContext = Literal["supply", "siege", "movement"]


@dataclass(frozen=True)
class PResult:
    """How a 'P' was resolved: one more LD lost and/or a Pillage− (and foraging)."""

    ld_lost: int
    pillage: Literal["none", "placed", "merged", "blocked"]
    foraging: bool
    reason: str
    effects: tuple[Effect, ...]

    def outcome(self) -> dict:
        return {"ld_lost": self.ld_lost, "pillage": self.pillage, "foraging": self.foraging, "reason": self.reason}


def resolve_p(
    technology: LandTech,
    context: PContext,
    choice: Literal["ld", "pillage"] | None,
    province: ProvincePillage,
    *,
    country: str | None = None,
    stack: str | None = None,
) -> PResult:
    """'P' by technology (M6/M7 §Result of attrition; M10 §Attrition, Land).

    * besieged (siege attrition): always 1 LD, never a Pillage;
    * MED / REN / ARQ: 1 LD and a Pillage− (no extra effect if it cannot be placed);
    * movement, MUS / BAR / MAN: 1 LD, or a Pillage− and foraging in the next battle of the impulse;
    * movement, L; supply, MUS or better: 1 LD or a Pillage−;
    * a Pillage− that cannot be placed (two Pillage+ already) turns the choice into 1 LD.
    """
    ld_effect = Effect(kind="ld_lost", country=country, target=stack, amount=Fraction(1), detail={"cause": "P"})
    if context == "siege":
        return PResult(1, "none", False, "besieged troops cannot pillage: 1 LD", (ld_effect,))
    if technology in LOW_TECH:
        pil = add_pillage_minus(province, country=country)
        state = "blocked" if pil.blocked else ("merged" if pil.merged else "placed")
        why = f"{technology}: 1 LD and a Pillage-" + (" (no room for a Pillage: no extra effect)" if pil.blocked else "")
        return PResult(1, state, False, why, (ld_effect, *pil.effects))
    if choice is None:
        raise RulesError(
            f"technology {technology}: the controller chooses 1 LD or a Pillage- for the 'P'", field="p_choice"
        )
    if choice == "ld":
        return PResult(1, "none", False, f"{technology}: controller chose 1 LD", (ld_effect,))
    pil = add_pillage_minus(province, country=country)
    if pil.blocked:
        return PResult(1, "blocked", False, "two Pillage+ already in the province: 1 LD instead", (ld_effect,))
    foraging = context == "movement" and technology in {"MUS", "BAR", "MAN"}
    effects = list(pil.effects)
    if foraging:
        effects.append(
            Effect(kind="marker_placed", country=country, target=stack, marker="Foraging",
                   detail={"applies_to": "next battle of this impulse only"})
        )
    why = f"{technology}: controller chose a Pillage-" + (" and foraging in the next battle" if foraging else "")
    return PResult(0, "merged" if pil.merged else "placed", foraging, why, tuple(effects))


# --------------------------------------------------------------------------- shared modifiers


class StraitFortification(BaseModel):
    """A closed strait fortification on a naval line of supply: +2 in Europe, +level/2 in the ROTW."""

    model_config = ConfigDict(extra="forbid")

    area: Literal["europe", "rotw"]
    level: int = Field(default=0, ge=0, le=5, description="Fortress level (ROTW only)")

    @property
    def drm(self) -> int:
        return 2 if self.area == "europe" else self.level // 2


# --------------------------------------------------------------------------- land result


@dataclass(frozen=True)
class LandAttritionResult:
    """A land attrition roll read in Europe (by stack size, with 'P') or in the ROTW
    (percentage through the remainders table). Shared by M4, M6, M7, M10."""

    table_cells: tuple[TableCell, ...]
    dice: tuple[Die, ...]
    outcome: dict
    effects: tuple[Effect, ...]
    summary: str


def land_attrition_result(
    total: int,
    *,
    area: Literal["europe", "rotw"],
    ld: int,
    lde: int,
    dice: DiceSource,
    technology: LandTech,
    context: PContext,
    p_choice: Literal["ld", "pillage"] | None,
    province: ProvincePillage,
    version: RemaindersVersion = "2016",
    country: str | None = None,
    stack: str | None = None,
    purpose: str = "attrition",
) -> LandAttritionResult:
    """Read a modified attrition roll for a land stack and list its effects."""
    if area == "europe":
        # LDE only exist outside Europe (COL 6 use this procedure): a lone LDE reads
        # the 1 LD column; LDE never take the numbered losses here.
        res = europe_result(total, max(ld, 1))
        lost = min(res.ld_lost, ld)
        effects: list[Effect] = []
        if lost:
            effects.append(Effect(kind="ld_lost", country=country, target=stack, amount=Fraction(lost),
                                  detail={"cause": "attrition", "chosen_by": "controller"}))
        outcome: dict = {"column": "europe", "cell": res.cell, "ld_lost": lost, "p": res.p}
        summary = f"Europe {europe_column(max(ld, 1))} LD: {res.cell}"
        if res.p and ld - lost > 0:
            p = resolve_p(technology, context, p_choice, province, country=country, stack=stack)
            outcome["p_resolution"] = p.outcome()
            outcome["ld_lost"] = lost + p.ld_lost
            effects.extend(p.effects)
            summary += f"; P: {p.reason}"
        elif res.p:
            outcome["p_resolution"] = {"reason": "the stack is already destroyed: P has no effect"}
        if lost + outcome.get("p_resolution", {}).get("ld_lost", 0) >= ld and lde == 0 and ld > 0:
            outcome["stack_destroyed"] = True
        return LandAttritionResult((res.table_cell,), (), outcome, tuple(effects), summary)

    percent = rotw_percent(total)
    rem = apply_remainders(to_thirds(ld, lde), percent, dice, version=version, purpose=purpose)
    effects = []
    if rem.lost:
        effects.append(Effect(kind="ld_lost", country=country, target=stack, amount=rem.lost,
                              detail={"cause": "attrition", "percent": percent, "left": str(rem.left)}))
    outcome = {"column": "rotw", **rem.outcome(), "stack_destroyed": rem.thirds_left == 0}
    summary = f"ROTW {percent}%: {rem.lost} LD lost, {rem.left} left"
    return LandAttritionResult(
        (rotw_table_cell(total), *rem.cells), rem.dice, outcome, tuple(effects), summary
    )
