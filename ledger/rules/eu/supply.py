"""Supply segment (eu): M5 supply status, M6 supply attrition, M7 siege attrition.

Seed: eu-military-rules.tex §Supply, §SoS, LoS, weak supply, §Supply Attrition,
§Result of attrition.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, RulesError, TableCell, load_table, sum_modifiers
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, ProvinceName
from ledger.rules.eu.attrition import (
    PACKAGE,
    LandTech,
    ProvincePillage,
    RemaindersVersion,
    StraitFortification,
    land_attrition_result,
)

SEC_SUPPLY = "eu-military-rules.tex §Supply"
SEC_LOS = "eu-military-rules.tex §SoS, LoS, weak supply (At land)"
SEC_ATTR = "eu-military-rules.tex §Supply Attrition"
SEC_RESULT = "eu-military-rules.tex §Result of attrition"

NavalSupplier = Literal["nde_only", "nd", "fleet_minus", "fleet_plus"]


def _naval_table() -> dict:
    return load_table(PACKAGE, "supply_naval_size.toml")


def naval_stack_can_supply(naval: NavalSupplier, ld: int, pashas: int, has_army: bool) -> bool:
    """Table Naval Supply: can this naval stack supply that land stack? (M5)"""
    row = _naval_table()["naval_stack"][naval]
    if row["max_ld"] >= 0 and ld > row["max_ld"]:
        return False
    if row["pashas"] >= 0 and pashas > row["pashas"]:
        return False
    return not (has_army and not row["army"])


def massed_forces(ld: int, pashas: int) -> bool:
    """More than a small stack (5 LD and 1 Pasha): 6+ LD outside Pashas, or 2+ Pashas.
    For supply and siege attrition this holds even without logistics (design note)."""
    return ld >= 6 or pashas >= 2


# --------------------------------------------------------------------------- M5


class SupplyInputs(BaseModel):
    """What the game master knows of one phasing land stack at the supply segment."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80, description="Stack identifier")
    area: Literal["europe", "rotw"] = "europe"
    detachments_only: bool = Field(
        default=False, description="The stack holds only LD/LDE (no ARMY): ROTW exceptions apply"
    )
    ld: int = Field(ge=0, le=200, description="LD in the stack (outside Pashas)")
    pashas: int = Field(default=0, ge=0, le=20)
    has_army: bool = False
    source: Literal["none", "land", "naval"] = Field(description="Source of supply found for the stack")
    source_kind: Literal["city", "tp", "col", "fort", "mission"] | None = Field(
        default=None, description="Kind of land SoS (ROTW forts and missions supply LD only)"
    )
    los_mp: int = Field(default=0, ge=0, le=60, description="Length of the line of supply in MP")
    los_through_desert: bool = False
    source_other_alliance: bool = Field(default=False, description="SoS not owned by the stack's alliance")
    naval_supplier: NavalSupplier | None = Field(default=None, description="Size of the supplying naval stack")
    naval_supplier_adjacent_to_port: bool = Field(
        default=True, description="The supplying naval stack is adjacent to a port/arsenal able to supply it"
    )
    unsupplied_last_round: bool = Field(default=False, description="The stack had no supply in the previous round")
    besieged: bool = False
    fortress_resupplied_by_sea: bool = Field(
        default=False, description="The besieged fortress was supplied by sea during the previous round"
    )

    @model_validator(mode="after")
    def _check(self) -> SupplyInputs:
        if self.source == "naval" and self.naval_supplier is None:
            raise RulesError("a naval source of supply needs the naval_supplier size", field="naval_supplier")
        if self.ld == 0 and self.pashas == 0 and not self.detachments_only:
            raise RulesError("the stack has no land unit", field="ld")
        return self


def weak_supply_conditions(i: SupplyInputs) -> list[str]:
    """The weak-supply conditions that hold (eu-military-rules.tex §SoS, LoS, weak supply)."""
    rotw_ld = i.area == "rotw" and i.detachments_only
    out = []
    if i.source == "land" and i.los_mp >= 6 and not rotw_ld:
        out.append("line of supply of 6 MP or more")
    if i.los_through_desert:
        out.append("line of supply through desert")
    if i.source_other_alliance:
        out.append("source of supply owned by another alliance")
    if i.source == "naval" and not i.naval_supplier_adjacent_to_port and not rotw_ld:
        out.append("naval supplier not adjacent to a port able to supply it")
    return out


@EU.procedure("M5", title="Supply", seed="eu-military-rules.tex §Supply", inputs=SupplyInputs)
def resolve_supply(inputs: SupplyInputs, dice: DiceSource) -> Ruling:
    """M5: supply status, destruction after two rounds without supply, which attrition to roll. No die."""
    i = inputs
    reasons: list[str] = []
    status: Literal["full", "weak", "none"]
    supplied = i.source != "none"
    cell = None
    if i.source == "naval":
        assert i.naval_supplier is not None
        ok = naval_stack_can_supply(i.naval_supplier, i.ld, i.pashas, i.has_army)
        row = _naval_table()["naval_stack"][i.naval_supplier]
        cell = TableCell(
            table="Naval Supply", row=row["label"], column="land supplied",
            value="all" if row["max_ld"] < 0 else f"{row['max_ld']} LD" + ("" if row["army"] else ", no ARMY"),
        )
        if not ok:
            supplied = False
            reasons.append(f"a {row['label']} naval stack cannot supply this land stack")
    if i.source == "land" and i.area == "rotw" and i.source_kind in {"fort", "mission"} and (i.has_army or i.pashas):
        supplied = False
        reasons.append("in the ROTW forts and missions supply LD only")
    weak = weak_supply_conditions(i) if supplied else []
    if not supplied:
        status = "none"
        reasons.append("no source of supply" if i.source == "none" else "source cannot supply the stack")
    elif weak:
        status = "weak"
        reasons.extend(weak)
    else:
        status = "full"

    effects: list[Effect] = []
    destroyed = status == "none" and i.unsupplied_last_round
    if destroyed:
        effects.append(Effect(kind="stack_destroyed", country=i.country, target=i.stack,
                              detail={"reason": "no supply for two consecutive rounds"}))

    roll: str | None = None
    causes = 0
    if not destroyed:
        if i.besieged:
            if i.fortress_resupplied_by_sea:
                status = "full"
                reasons.append("fortress resupplied by sea last round: full supply, no siege attrition")
            else:
                roll = "M7"  # siege attrition replaces any supply attrition
        elif status != "full":
            roll = "M6"
            causes = max(1, len(weak)) if status == "weak" else 1
    outcome = {
        "status": status,
        "reasons": reasons,
        "stack_destroyed": destroyed,
        "attrition_roll": roll,
        "attrition_causes": causes,
        "no_los": status == "none",
    }
    summary = f"supply {status}" + (": stack destroyed (two rounds without supply)" if destroyed else "")
    if roll:
        summary += f"; rolls {'siege' if roll == 'M7' else 'supply'} attrition ({roll})"
    return EU.ruling("M5", i, table_cell=cell, outcome=outcome, effects=tuple(effects), summary=summary)


# --------------------------------------------------------------------------- M6


class LandStackInputs(BaseModel):
    """A land stack rolling attrition (shared by M6, M7, M10)."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80)
    province: ProvinceName | None = None
    area: Literal["europe", "rotw"] = Field(
        default="europe", description="Europe column by stack size, or the ROTW percentage (COL 6 count as Europe)"
    )
    ld: int = Field(ge=0, le=200, description="LD in the stack")
    lde: int = Field(default=0, ge=0, le=30, description="LDE (one third of a LD), ROTW")
    technology: LandTech = "MED"
    p_choice: Literal["ld", "pillage"] | None = Field(
        default=None, description="Controller's choice for a 'P' with technology MUS or better"
    )
    remainders_version: RemaindersVersion = "2016"

    @model_validator(mode="after")
    def _size(self):
        if self.ld + self.lde == 0:
            raise RulesError("the stack has no LD or LDE", field="ld")
        return self


class SupplyAttritionInputs(LandStackInputs):
    pashas: int = Field(default=0, ge=0, le=20)
    causes: int = Field(ge=1, le=6, description="Causes of attrition (M5 attrition_causes)")
    no_los: bool = False
    enemy_fortress: bool = Field(default=False, description="The province's fortress is controlled by the enemy")
    commander_man: int = Field(default=0, ge=0, le=9, description="MAN of the stack's commander (0 without)")
    strait_fortifications: list[StraitFortification] = Field(
        default_factory=list, description="Closed strait fortifications on the supplying naval stack's LoS"
    )
    pillage_minus: int = Field(default=0, ge=0, le=1)
    pillage_plus: int = Field(default=0, ge=0, le=2)
    revolt_minus: int = Field(default=0, ge=0, le=1)
    revolt_plus: int = Field(default=0, ge=0, le=1)
    unfriendly_rebellion_minus: int = Field(default=0, ge=0, le=1)
    unfriendly_rebellion_plus: int = Field(default=0, ge=0, le=1)
    snowflakes: int = Field(
        default=0, ge=0, le=2, description="Snowflakes of the area, uncontrolled ROTW cold-area province only"
    )


def supply_attrition_modifiers(i: SupplyAttritionInputs) -> list[Modifier]:
    """M6 modifier list (eu-military-rules.tex §Supply Attrition)."""
    r = "eu:M6"
    mods: list[Modifier] = []
    if i.causes > 1:
        mods.append(Modifier(value=2 * (i.causes - 1), reason=f"{i.causes - 1} cause(s) of attrition above the first", rule=r, section=SEC_ATTR))
    if massed_forces(i.ld, i.pashas):
        mods.append(Modifier(value=2, reason="massed forces (more than 5 LD and 1 Pasha)", rule=r, section=SEC_ATTR))
    if i.no_los:
        mods.append(Modifier(value=2, reason="no line of supply", rule=r, section=SEC_ATTR))
    if i.enemy_fortress:
        mods.append(Modifier(value=2, reason="fortress of the province controlled by the enemy", rule=r, section=SEC_ATTR))
    if i.commander_man:
        mods.append(Modifier(value=-i.commander_man, reason="MAN of the commander", rule=r, section=SEC_ATTR))
    strait = sum(f.drm for f in i.strait_fortifications)
    if strait:
        mods.append(Modifier(value=strait, reason="strait fortifications on the naval LoS", rule=r, section=SEC_ATTR))
    minus = i.pillage_minus + i.revolt_minus + i.unfriendly_rebellion_minus
    plus = i.pillage_plus + i.revolt_plus + i.unfriendly_rebellion_plus
    if minus:
        mods.append(Modifier(value=minus, reason=f"{minus} Pillage-/Revolt-/unfriendly Rebellion- in the province", rule=r, section=SEC_ATTR))
    if plus:
        mods.append(Modifier(value=2 * plus, reason=f"{plus} Pillage+/Revolt+/unfriendly Rebellion+ in the province", rule=r, section=SEC_ATTR))
    if i.snowflakes:
        mods.append(Modifier(value=i.snowflakes, reason="snowflakes of the ROTW cold area", rule=r, section=SEC_ATTR))
    return mods


@EU.procedure("M6", title="Supply attrition", seed=SEC_ATTR, inputs=SupplyAttritionInputs,
              options=("remainders_version",))
def resolve_supply_attrition(inputs: SupplyAttritionInputs, dice: DiceSource) -> Ruling:
    """M6: 1d10 + modifiers on the Discoveries and Attrition table; 'P' by technology (no foraging)."""
    i = inputs
    mods = supply_attrition_modifiers(i)
    die = dice.roll("supply attrition")
    total = die.total + sum_modifiers(mods)
    province = ProvincePillage(province=i.province, pillage_minus=i.pillage_minus, pillage_plus=i.pillage_plus)
    res = land_attrition_result(
        total, area=i.area, ld=i.ld, lde=i.lde, dice=dice, technology=i.technology, context="supply",
        p_choice=i.p_choice, province=province, version=i.remainders_version, country=i.country,
        stack=i.stack, purpose="supply attrition",
    )
    return EU.ruling(
        "M6", i, modifiers=tuple(mods), dice=(die, *res.dice), total=total, table_cell=res.table_cells[0],
        outcome={**res.outcome, "table_cells": [c.model_dump(mode="json") for c in res.table_cells]},
        effects=res.effects, summary=f"supply attrition {total}: {res.summary}",
    )


# --------------------------------------------------------------------------- M7


class SiegeAttritionInputs(LandStackInputs):
    besieged_leader_siege: int = Field(default=0, ge=0, le=9, description="Siege value of one besieged leader")
    besieger_leader_siege: int = Field(
        default=0, ge=0, le=9, description="Siege value of one besieging or blockading leader"
    )
    unblocked_port: bool = Field(default=False, description="Besieged in a port that is not blockaded")
    usure_minus: int = Field(default=0, ge=0, le=4)
    usure_plus: int = Field(default=0, ge=0, le=4)
    resupplied_by_sea: bool = Field(
        default=False, description="The fortress was supplied by sea during the previous round: no roll"
    )


def siege_attrition_modifiers(i: SiegeAttritionInputs) -> list[Modifier]:
    """M7 modifier list (eu-military-rules.tex §Supply Attrition, siege attrition)."""
    r = "eu:M7"
    mods: list[Modifier] = []
    if i.besieged_leader_siege:
        mods.append(Modifier(value=-i.besieged_leader_siege, reason="siege value of a besieged leader", rule=r, section=SEC_ATTR))
    if i.besieger_leader_siege:
        mods.append(Modifier(value=i.besieger_leader_siege, reason="siege value of a besieging or blockading leader", rule=r, section=SEC_ATTR))
    if i.unblocked_port:
        mods.append(Modifier(value=-3, reason="besieged in an unblocked port", rule=r, section=SEC_ATTR))
    if i.usure_minus:
        mods.append(Modifier(value=i.usure_minus, reason=f"{i.usure_minus} Usure-", rule=r, section=SEC_ATTR))
    if i.usure_plus:
        mods.append(Modifier(value=3 * i.usure_plus, reason=f"{i.usure_plus} Usure+", rule=r, section=SEC_ATTR))
    return mods


@EU.procedure("M7", title="Siege attrition (besieged)", seed=SEC_ATTR, inputs=SiegeAttritionInputs,
              options=("remainders_version",))
def resolve_siege_attrition(inputs: SiegeAttritionInputs, dice: DiceSource) -> Ruling:
    """M7: as supply attrition with the siege modifiers; a 'P' is always 1 LD (no Pillage)."""
    i = inputs
    if i.resupplied_by_sea:
        return EU.ruling(
            "M7", i, outcome={"skipped": True, "reason": "fortress resupplied by sea last round: full supply"},
            summary="no siege attrition: fortress resupplied by sea",
        )
    mods = siege_attrition_modifiers(i)
    die = dice.roll("siege attrition")
    total = die.total + sum_modifiers(mods)
    res = land_attrition_result(
        total, area=i.area, ld=i.ld, lde=i.lde, dice=dice, technology=i.technology, context="siege",
        p_choice=None, province=ProvincePillage(province=i.province), version=i.remainders_version,
        country=i.country, stack=i.stack, purpose="siege attrition",
    )
    return EU.ruling(
        "M7", i, modifiers=tuple(mods), dice=(die, *res.dice), total=total, table_cell=res.table_cells[0],
        outcome={"skipped": False, **res.outcome, "table_cells": [c.model_dump(mode="json") for c in res.table_cells]},
        effects=res.effects, summary=f"siege attrition {total}: {res.summary}",
    )
