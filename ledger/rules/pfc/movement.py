"""C4 forced march and C7 terrain, movement points and stacking (pf-cohesion-wargame-tables.fr.txt)."""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, TableCell, clamp
from ledger.rules.pfc import PFC
from ledger.rules.pfc._common import WEATHER_FR, Weather, column_index, printed, read_cell, section, table

SEC_FM = section("TABLE DES MARCHES FORCÉES (voir 5.5.2 et 5.5.3)")
SEC_MOVE = section("TABLE DES MOUVEMENTS")
SEC_TERRAIN = section("TABLE D'EFFETS DU TERRAIN")

UnitType = Literal["general", "cavalry", "infantry", "artillery_reserve"]


# --------------------------------------------------------------------------- C4 forced march


class ForcedMarchInputs(BaseModel):
    """One combat unit's forced-march roll (C4); see DECISIONS.md for the per-unit reading."""

    model_config = ConfigDict(extra="forbid")

    unit_pf: int = Field(ge=1, description="Strength points (PF) of the combat unit")
    unit_cohesion: int = Field(ge=0, description="Cohesion of the combat unit")
    general_vc_3_or_4_in_stack: bool = Field(default=False, description="A general of VC 3 or 4 is in the stack")
    weather: Weather = "clear"


@PFC.procedure("C4", title="Forced march", seed=SEC_FM, inputs=ForcedMarchInputs)
def resolve_forced_march(inputs: ForcedMarchInputs, dice: DiceSource) -> Ruling:
    """pfc:C4 — 1d6 in the unit's PF column; result = PF lost by the combat unit."""
    t = table("forced_march.toml")
    m = t["die_modifiers"]
    mods = []
    if inputs.general_vc_3_or_4_in_stack:
        mods.append(Modifier(value=m["general_vc_3_or_4"], reason="general of VC 3 or 4 in the stack",
                             rule="pfc:C4", section=SEC_FM))
    if inputs.unit_cohesion >= m["cohesion_threshold"]:
        mods.append(Modifier(value=m["cohesion_4_or_more"], reason=f"unit of cohesion {inputs.unit_cohesion} (4 or more)",
                             rule="pfc:C4", section=SEC_FM))
    if inputs.weather == "snow":
        mods.append(Modifier(value=m["snow"], reason="snow (Neige +1)", rule="pfc:C4", section=SEC_FM))
    if inputs.weather == "mud":
        mods.append(Modifier(value=m["mud"], reason="mud (Boue +2)", rule="pfc:C4", section=SEC_FM))
    die = dice.roll("forced march", sides=6)
    total = die.total + sum(x.value for x in mods)
    row = t["row_labels"][clamp(total, t["die_min"], t["die_max"]) - 1]
    col = column_index(inputs.unit_pf, t["column_low"])
    cell = t["rows"][row][col]
    lost, _ = read_cell(cell)
    effects = (Effect(kind="pf_lost", target="unit", amount=Fraction(lost), detail={"rule": "pfc:C4"}),) if lost else ()
    return PFC.ruling(
        "C4", inputs, modifiers=tuple(mods), dice=(die,), total=total,
        table_cell=TableCell(table="pfc forced march", row=row, column=t["columns"][col], value=printed(cell)),
        outcome={"pf_lost": lost},
        effects=effects,
        summary=f"forced march of a {inputs.unit_pf} PF unit: loses {lost} PF",
    )


# --------------------------------------------------------------------------- C7 terrain and movement


class PathStep(BaseModel):
    """One stretch of a move: the way taken and the watercourse crossed, if any."""

    model_config = ConfigDict(extra="forbid")

    way: Literal["road", "bad_road"] = Field(description="Route (road) or mauvaise route (bad road)")
    crossing: Literal["none", "bridge", "river", "great_river"] = Field(
        default="none",
        description="none; bridge (over a river or great river, incl. a pontoon bridge on a ford); "
        "river without a bridge; great_river (fleuve) without a bridge",
    )


class Stack(BaseModel):
    """The units of a moving stack, for the stacking limits (C7)."""

    model_config = ConfigDict(extra="forbid")

    infantry: int = Field(default=0, ge=0)
    cavalry: int = Field(default=0, ge=0)
    decoys: int = Field(default=0, ge=0, description="Leurres: they count in the stacking")
    artillery_reserves: int = Field(default=0, ge=0, description="Do not count in the stacking")
    generals: int = Field(default=0, ge=0, description="Do not count in the stacking")
    commander_in_chief_present: bool = Field(default=False, description="No limit with the commander-in-chief")


class MovementInputs(BaseModel):
    """A unit type's movement allowance, optionally a path's cost and a stack's legality (C7)."""

    model_config = ConfigDict(extra="forbid")

    unit_type: UnitType
    weather: Weather = "clear"
    commanded: bool = Field(default=True, description="False: the unit is not commanded (−1 PM)")
    path: list[PathStep] = Field(default_factory=list, description="Stretches of the intended move, in order")
    stack: Stack | None = Field(default=None, description="The moving stack, to check the stacking limits")


def movement_allowance(unit_type: str, weather: str, commanded: bool) -> tuple[int, list[Modifier]]:
    t = table("movement.toml")
    # No die: the base allowance is listed first so that the total is the sum of the modifiers.
    mods = [Modifier(value=t["allowance"][unit_type], reason=f"base PM of {unit_type.replace('_', ' ')}",
                     rule="pfc:C7", section=SEC_MOVE)]
    if not commanded:
        mods.append(Modifier(value=t["allowance"]["uncommanded"], reason="unit not commanded (Retirer 1 PM)",
                             rule="pfc:C7", section=SEC_MOVE))
    w = t["weather_allowance"][weather][unit_type]
    if w:
        mods.append(Modifier(value=w, reason=f"weather {WEATHER_FR[weather]} for {unit_type.replace('_', ' ')}",
                             rule="pfc:C7", section=f"{SEC_MOVE} / Effets météo"))
    return sum(m.value for m in mods), mods


def stack_allowed(stack: Stack) -> tuple[bool, str]:
    """Stacking for movement: within one of the maximum compositions; decoys fill any free slot."""
    if stack.commander_in_chief_present:
        return True, "no limit: the commander-in-chief is in the stack"
    for limit in table("movement.toml")["stack_limits"]:
        if (stack.infantry <= limit["infantry"] and stack.cavalry <= limit["cavalry"]
                and stack.infantry + stack.cavalry + stack.decoys <= limit["infantry"] + limit["cavalry"]):
            return True, f"within {limit['infantry']} infantry + {limit['cavalry']} cavalry"
    return False, ("exceeds every maximum composition (2 infantry + 1 cavalry, 1 infantry + 2 cavalry, 3 cavalry; "
                   "decoys count, artillery reserves and generals do not)")


@PFC.procedure("C7", title="Terrain and movement", seed=f"{SEC_MOVE}; {SEC_TERRAIN}", inputs=MovementInputs)
def resolve_movement(inputs: MovementInputs, dice: DiceSource) -> Ruling:
    """pfc:C7 — no die: movement points by unit type and weather, path cost, stacking."""
    t = table("movement.toml")
    allowance, mods = movement_allowance(inputs.unit_type, inputs.weather, inputs.commanded)
    outcome: dict = {"base_mp": t["allowance"][inputs.unit_type], "mp_allowance": allowance}
    if inputs.path:
        cost = 0
        impassable = []
        details = []
        for i, step in enumerate(inputs.path):
            c = t["way_cost"][step.way]
            if step.crossing == "river":
                c += t["river_crossing_cost"][inputs.weather]
            if step.crossing == "great_river":
                impassable.append(i)
            cost += c
            details.append(c)
        outcome.update({
            "path_costs": details,
            "path_cost": cost,
            "path_passable": not impassable,
            "path_within_allowance": not impassable and cost <= allowance,
        })
        if impassable:
            outcome["impassable_stretches"] = impassable
            outcome["reason"] = "a great river (fleuve) is crossed only by a bridge or a pontoon bridge on a ford (6.4)"
    if inputs.stack is not None:
        ok, why = stack_allowed(inputs.stack)
        outcome["stack_allowed"] = ok
        outcome["stack_reason"] = why
    summary = f"{inputs.unit_type.replace('_', ' ')} in {WEATHER_FR[inputs.weather]}: {allowance} PM"
    if inputs.path:
        summary += f"; path costs {outcome['path_cost']} PM" + ("" if outcome["path_passable"] else " (impassable)")
    if inputs.stack is not None:
        summary += f"; stack {'allowed' if outcome['stack_allowed'] else 'over the limit'}"
    return PFC.ruling(
        "C7", inputs, modifiers=tuple(mods), total=allowance,
        table_cell=TableCell(table="pfc movement", row=inputs.unit_type, column=inputs.weather, value=allowance),
        outcome=outcome, summary=summary,
    )
