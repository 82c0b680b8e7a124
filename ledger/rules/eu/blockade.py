"""Naval stops: M13 Blockade escape, M16 Presidio / strait fortification
interception, M17 Convoy attacks by corsairs (eu-military-rules.tex §Movements).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, TableCell
from ledger.rules.eu import EU

SEED = "eu-military-rules.tex"
SEC_BLOCKADE = f"{SEED} §Movements/Sea (blockade escape)"
SEC_PRESIDIO = f"{SEED} §Interception/Presidios and Strait fortifications"
SEC_CONVOY = f"{SEED} §Interception/Convoys"

#: Naval technologies, oldest first (TABLES.md naval technology table); 74s = \TSF.
NavalTech = Literal["GA", "CAR", "Nau", "GAL", "BAT", "VE", "TD", "74s"]


# --------------------------------------------------------------------------- M13


class BlockadeEscapeInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    direction: Literal["exit", "enter"] = Field(description="Trying to exit or to enter the blockaded port")
    moving_man: int = Field(ge=0, le=9, description="MAN of the moving stack's leader (0 without one)")
    blockader_man: int = Field(ge=0, le=9, description="MAN of the blockading stack's leader (0 without one)")
    moving_nd: int = Field(ge=0, le=99, description="Number of ND in the moving stack")
    blockader_nd: int = Field(ge=1, le=99, description="Number of ND in the blockading stack")
    blockader_all_nwd: bool = Field(description="The blockading stack is composed of NWD (warships)")
    blockader_technology: NavalTech = Field(description="Naval technology of the blockading stack")


def blockade_escape_modifiers(inputs: BlockadeEscapeInputs) -> list[Modifier]:
    mods = []
    diff = inputs.moving_man - inputs.blockader_man
    if diff > 0:  # only counted when the moving leader has more MAN
        mods.append(Modifier(value=diff, reason="MAN differential (moving − blockading, positive only)", rule="eu:M13", section=SEC_BLOCKADE))
    if inputs.blockader_nd < inputs.moving_nd:
        mods.append(Modifier(value=1, reason="blockading stack smaller (in ND)", rule="eu:M13", section=SEC_BLOCKADE))
    if inputs.blockader_all_nwd and inputs.blockader_technology != "74s":
        mods.append(Modifier(value=1, reason="blockading stack of NWD without technology 74s", rule="eu:M13", section=SEC_BLOCKADE))
    return mods


@EU.procedure("M13", title="Blockade escape", seed=SEC_BLOCKADE, inputs=BlockadeEscapeInputs)
def resolve_blockade_escape(inputs: BlockadeEscapeInputs, dice: DiceSource) -> Ruling:
    """M13: 1d10 + modifiers; ≥ 8 escapes, 6-7 stopped, ≤ 5 stopped and the
    blockader may force an interception battle (automatic interception)."""
    mods = blockade_escape_modifiers(inputs)
    die = dice.roll("blockade escape")
    total = die.total + sum(m.value for m in mods)
    if total >= 8:
        row, result = "≥8", "escaped"
    elif total >= 6:
        row, result = "6–7", "stopped"
    else:
        row, result = "≤5", "forced_battle"
    escaped = result == "escaped"
    if escaped:
        consequence = "may pursue its movement as wanted"
    elif inputs.direction == "exit":
        consequence = "stays in port; its movement ends"
    else:
        consequence = "stops moving or returns to the closest friendly port/arsenal; no action"
    outcome = {
        "escaped": escaped,
        "result": result,
        "direction": inputs.direction,
        "consequence": consequence,
        "blockader_may_force_battle": result == "forced_battle",
    }
    effects: list[Effect] = []
    if not escaped:
        effects.append(Effect(kind="stack_stopped", target="moving stack", detail={"direction": inputs.direction, "no_action": True, "reason": consequence}))
    if result == "forced_battle":
        # The blockader's option: its interception automatically succeeds if it
        # is still allowed to intercept (not already engaged in battle).
        effects.append(Effect(kind="battle_forced", target="moving stack", detail={"by": "blockading stack", "optional": True, "as": "interception battle (automatic success)"}))
    return EU.ruling(
        "M13",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Blockade escape", row=row, value=result),
        outcome=outcome,
        effects=tuple(effects),
        summary=f"Blockade escape ({inputs.direction}): die {die.total}, total {total} → {result.replace('_', ' ')}",
    )


# --------------------------------------------------------------------------- M16


class FortInterceptionInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fortification: Literal["presidio", "strait_europe", "strait_rotw"] = Field(
        description="A Presidio (stack entering or exiting the port), or a Strait fortification on the European or ROTW map"
    )
    presidio_level: int | None = Field(default=None, ge=1, le=5, description="Level of the Presidio")
    rotw_fortress_level: int | None = Field(
        default=None, ge=0, le=5, description="Level of the fortress controlling the ROTW strait fortification"
    )
    moving_has_fleet: bool = Field(description="The moving stack contains at least one FLEET counter")
    target_is_corsair: bool = Field(default=False, description="The moving stack is a corsair (losses are corsair sides)")

    @model_validator(mode="after")
    def _levels(self) -> "FortInterceptionInputs":
        if self.fortification == "presidio" and self.presidio_level is None:
            raise ValueError("presidio_level: required for a Presidio")
        if self.fortification != "presidio" and self.presidio_level is not None:
            raise ValueError("presidio_level: only for a Presidio")
        if self.fortification == "strait_rotw" and self.rotw_fortress_level is None:
            raise ValueError("rotw_fortress_level: required for a ROTW strait fortification")
        if self.fortification != "strait_rotw" and self.rotw_fortress_level is not None:
            raise ValueError("rotw_fortress_level: only for a ROTW strait fortification")
        return self


def fort_interception_modifiers(inputs: FortInterceptionInputs) -> list[Modifier]:
    mods = []
    if inputs.fortification == "presidio":
        mods.append(Modifier(value=inputs.presidio_level or 0, reason=f"Presidio level {inputs.presidio_level}", rule="eu:M16", section=SEC_PRESIDIO))
    elif inputs.fortification == "strait_europe":
        mods.append(Modifier(value=2, reason="strait fortification on the European map", rule="eu:M16", section=SEC_PRESIDIO))
    else:
        level = inputs.rotw_fortress_level or 0
        if level // 2:
            mods.append(Modifier(value=level // 2, reason=f"half the level {level} of the fortress controlling the ROTW strait (rounded down)", rule="eu:M16", section=SEC_PRESIDIO))
    if inputs.moving_has_fleet:
        mods.append(Modifier(value=1, reason="moving stack contains a FLEET counter", rule="eu:M16", section=SEC_PRESIDIO))
    return mods


@EU.procedure("M16", title="Presidio / strait fortification interception", seed=SEC_PRESIDIO, inputs=FortInterceptionInputs)
def resolve_fort_interception(inputs: FortInterceptionInputs, dice: DiceSource) -> Ruling:
    """M16: 1d10 + modifiers; ≥ 9 stopped (no battle), ≥ 11 one ND lost, ≥ 13 two."""
    mods = fort_interception_modifiers(inputs)
    die = dice.roll("presidio / strait fortification interception")
    total = die.total + sum(m.value for m in mods)
    stopped = total >= 9
    lost = 2 if total >= 13 else 1 if total >= 11 else 0
    row = "≥13" if total >= 13 else "11–12" if total >= 11 else "9–10" if stopped else "≤8"
    unit = "corsair side" if inputs.target_is_corsair else "ND"
    effects: list[Effect] = []
    if stopped:
        effects.append(Effect(kind="stack_stopped", target="moving stack", detail={"before": inputs.fortification, "roll_attrition": True, "no_action_this_round": True}))
    if lost and inputs.target_is_corsair:
        effects.append(Effect(kind="marker_flipped", target="corsair", marker="corsair", amount=lost, detail={"sides_lost": lost}))
    elif lost:
        effects.append(Effect(kind="nd_lost", target="moving stack", amount=lost))
    outcome = {
        "stopped": stopped,
        "losses": lost,
        "loss_unit": unit,
        "battle": False,
        "consequence": "stops before crossing, rolls for attrition as usual, no action this round" if stopped else "passes",
    }
    return EU.ruling(
        "M16",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Presidio / strait fortification interception", row=row, value={"stopped": stopped, "losses": lost}),
        outcome=outcome,
        effects=tuple(effects),
        summary=f"{inputs.fortification.replace('_', ' ')}: die {die.total}, total {total} → "
        + (f"stopped, {lost} {unit}{'s' if lost > 1 else ''} lost" if lost else "stopped" if stopped else "passes"),
    )
