"""Naval stops: M13 Blockade escape, M16 Presidio / strait fortification
interception, M17 Convoy attacks by corsairs (eu-military-rules.tex §Movements).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step, TableCell
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, MajorCode, NavalTech

SEED = "eu-military-rules.tex"
SEC_BLOCKADE = f"{SEED} §Movements/Sea (blockade escape)"
SEC_PRESIDIO = f"{SEED} §Interception/Presidios and Strait fortifications"
SEC_CONVOY = f"{SEED} §Interception/Convoys"



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
    if inputs.blockader_all_nwd and inputs.blockader_technology != "74S":
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


# --------------------------------------------------------------------------- M17

SEC_RAIDS = "eu-redeployment-peace-interphase.tex §Attacks by Pirates & Privateers"
GOLD_PER_NTD = 15  # "the number corresponds to the number of NTD captured (each with 15 ducats)"


class ConvoyAttackInputs(BaseModel):
    """A corsair (Face+) attacks a convoy / gold-carrying stack entering a sea
    zone of the STZ/CTZ where it acts."""

    model_config = ConfigDict(extra="forbid")

    corsair_owner: Literal["pirates", "minor", "major"] = Field(description="Pirates, or the privateer's country kind")
    controller: MajorCode | None = Field(default=None, description="Major controlling the corsair (gold goes to its ERS A9)")
    corsair_admiral_man: int | None = Field(default=None, ge=0, le=9, description="MAN of the corsair's admiral; none: pirates use 2, others 0")
    convoy_admiral_man: int = Field(default=0, ge=0, le=9, description="MAN of the convoy's admiral (0 without one)")
    convoy_ntd: int = Field(ge=1, le=20, description="Gold-laden NTD in the attacked stack (a convoy counter holds 5)")
    # M15 interception modifiers that may apply
    bad_weather: bool = False
    tech_advantage_6_levels: bool = Field(default=False, description="Corsair's technology at least 6 levels above the convoy's")
    same_sea_zone: bool = Field(default=False, description="The corsair is in the sea zone the convoy enters")
    # Defender's reduction roll (Pirate ou Corsaire réduit sur 8+) and raid roll
    escort_fleets_minus: int = Field(default=0, ge=0, le=10, description="FLEET− with the convoy")
    escort_fleets_plus: int = Field(default=0, ge=0, le=10, description="FLEET+ with the convoy")
    escort_nd_without_fleet: bool = Field(default=False, description="ND with the convoy but no FLEET counter")
    naval_battle_in_zone: bool = Field(default=False, description="A naval battle occurred in the sea this turn")
    target_sides: int = Field(default=2, ge=1, le=20, description="Sides of target Trade FLEET / FLEET (a convoy counts 2)")
    corsair_not_in_stz_zone: bool = Field(default=False, description="Corsair not exactly in the sea zone of the STZ")
    knights_with_christian_port: bool = False

    @model_validator(mode="after")
    def _owner(self) -> "ConvoyAttackInputs":
        if self.corsair_owner == "major" and not self.controller:
            raise ValueError("controller: a major's corsair brings the gold to its controller")
        if self.corsair_owner == "pirates" and self.controller:
            raise ValueError("controller: pirates have no controller")
        if self.escort_nd_without_fleet and (self.escort_fleets_minus or self.escort_fleets_plus):
            raise ValueError("escort_nd_without_fleet: contradicts FLEET counters with the convoy")
        return self

    @property
    def corsair_man(self) -> int:
        if self.corsair_admiral_man is not None:
            return self.corsair_admiral_man
        return 2 if self.corsair_owner == "pirates" else 0


def convoy_raid_modifiers(i: ConvoyAttackInputs) -> list[Modifier]:
    """The R2 trade-attack list as it applies to a convoy attack (no rounds at sea)."""
    def m(value: int, reason: str) -> Modifier:
        return Modifier(value=value, reason=reason, rule="eu:M17", section=SEC_RAIDS)

    mods = []
    if i.corsair_not_in_stz_zone:
        mods.append(m(2, "corsair not exactly in the sea zone of the STZ"))
    # The corsair was reduced to Face− by its successful interception: one Corsair−.
    mods.append(m(3, "only one Corsair− (reduced after intercepting)"))
    mods.append(m(i.target_sides, f"{i.target_sides} side(s) of target (a convoy counts 2)"))
    if i.escort_nd_without_fleet:
        mods.append(m(1, "ND in defence and no FLEET"))
    if i.escort_fleets_minus:
        mods.append(m(2 * i.escort_fleets_minus, f"{i.escort_fleets_minus} FLEET− defending (+2 each)"))
    if i.escort_fleets_plus:
        mods.append(m(4 * i.escort_fleets_plus, f"{i.escort_fleets_plus} FLEET+ defending (+4 each)"))
    if i.convoy_admiral_man:
        mods.append(m(i.convoy_admiral_man, "MAN of the defending admiral"))
    if i.corsair_man:
        mods.append(m(-i.corsair_man, "MAN of the corsair admiral" + (" (pirates without admiral: 2)" if i.corsair_admiral_man is None else "")))
    if i.naval_battle_in_zone:
        mods.append(m(1, "a naval battle occurred in the sea"))
    if i.knights_with_christian_port:
        mods.append(m(-2, "Knights with a Christian port on the Aegean / eastern Mediterranean"))
    return mods


def _step(name: str, ruling: Ruling, side: str) -> Step:
    return Step(name=name, side=side, modifiers=ruling.modifiers, dice=ruling.dice, total=ruling.total, table_cell=ruling.table_cell, outcome=ruling.outcome)


@EU.procedure("M17", title="Convoy attacks by corsairs", seed=SEC_CONVOY, inputs=ConvoyAttackInputs)
def resolve_convoy_attack(inputs: ConvoyAttackInputs, dice: DiceSource) -> Ruling:
    """M17: (1) naval interception by the corsair (M15; pirates without admiral
    MAN 2); (2) on success the corsair is reduced to Face−; (3) the attacked
    stack's reduction roll (8+) stops the attack; (4) otherwise the raids
    table, column Trade FLEET+, gives the NTD captured, 15 ducats each, to the
    ERS A9 of a major's controller. The movement is never stopped."""
    from ledger.rules.eu.french_tables import FrenchTableInputs, resolve_french_table
    from ledger.rules.eu.interception import SeaInterceptionInputs, resolve_sea_interception
    from ledger.rules.eu.raids import read_raids

    steps: list[Step] = []
    effects: list[Effect] = []
    # A corsair's attack is not a campaign interception: it is always eligible
    # (DECISIONS.md M17), hence last_campaign "active".
    interception = resolve_sea_interception(
        SeaInterceptionInputs(
            interceptor_man=inputs.corsair_man,
            target_man=inputs.convoy_admiral_man,
            last_campaign="active",
            tech_advantage_6_levels=inputs.tech_advantage_6_levels,
            bad_weather=inputs.bad_weather,
            same_sea_zone=inputs.same_sea_zone,
        ),
        dice,
    )
    steps.append(_step("corsair interception (M15)", interception, "corsair"))
    outcome: dict = {"intercepted": interception.outcome["success"], "movement_stopped": False}
    captured = 0
    if not interception.outcome["success"]:
        outcome.update(result="interception failed: the attack stops", captured_ntd=0, ducats=0)
    else:
        effects.append(Effect(kind="marker_flipped", marker="corsair", target="corsair", detail={"to": "-"}))
        reduction = resolve_french_table(
            FrenchTableInputs.model_validate(
                {
                    "table": "pirate_reduction",
                    "fleets_minus": inputs.escort_fleets_minus,
                    "fleets_plus": inputs.escort_fleets_plus,
                    "naval_units_present": inputs.escort_nd_without_fleet or bool(inputs.escort_fleets_minus or inputs.escort_fleets_plus),
                    "man_differential": inputs.convoy_admiral_man - inputs.corsair_man,
                    "corsair_face": "-",
                    "naval_battle_in_zone": inputs.naval_battle_in_zone,
                }
            ),
            dice,
        )
        steps.append(_step("defender's reduction roll (8+)", reduction, "convoy"))
        if reduction.outcome["success"]:
            outcome.update(result="reduction roll succeeded: the attack stops", captured_ntd=0, ducats=0)
        else:
            mods = convoy_raid_modifiers(inputs)
            die = dice.roll("convoy raid")
            total = die.total + sum(m.value for m in mods)
            row = read_raids(total)
            captured = min(row.trade_fleet_plus, inputs.convoy_ntd)
            cell = row.cell("trade_fleet_plus")
            steps.append(Step(name="raid (Trade FLEET+ column)", side="corsair", modifiers=tuple(mods), dice=(die,), total=total, table_cell=cell, outcome={"ntd_captured": captured, "table_value": row.trade_fleet_plus}))
            ducats = captured * GOLD_PER_NTD
            outcome.update(result=f"{captured} NTD captured", captured_ntd=captured, gold=ducats)
            if captured:
                effects.append(Effect(kind="units_captured", target="convoy", amount=captured, detail={"unit": "NTD", "gold_ducats": ducats}))
                if inputs.corsair_owner == "major":
                    effects.append(Effect(kind="ducats", country=inputs.controller, ers_line="A9", amount=ducats, detail={"reason": "gold captured by a corsair"}))
            outcome["ducats"] = ducats if inputs.corsair_owner == "major" else 0
            outcome["gold_lost"] = ducats if inputs.corsair_owner == "minor" else 0
    if interception.outcome["success"] and inputs.corsair_owner != "pirates":
        effects.append(Effect(kind="stack_retreats", target="corsair", detail={"to": "port", "may_not_act_again_this_turn": True}))
        outcome["corsair_after"] = "returns to port; may not act again this turn"
    elif inputs.corsair_owner == "pirates":
        outcome["corsair_after"] = "stays in the sea zone and may act again"
    return EU.ruling(
        "M17",
        inputs,
        steps=tuple(steps),
        outcome=outcome,
        effects=tuple(effects),
        summary=f"Convoy attack by {inputs.corsair_owner} corsair: {outcome['result']}",
    )
