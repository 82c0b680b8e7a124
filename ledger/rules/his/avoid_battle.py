"""H3 Avoid battle (his-land-movement.ru.txt §Уклонение от сражения).

The seed prints who may try, in which order and the restrictions, then stops: the roll, its
modifiers and threshold (the rest of section 13.3) are missing. The game master therefore
supplies each attempt's result (`gm_result`), listed in the ruling's `gm_supplied`; no die is
drawn here (DECISIONS.md). The restrictions are input validation (RulesError naming the
field and his:H3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Ruling, Step
from ledger.rules.his import HIS
from ledger.rules.his._shared import (
    SEC_AVOID,
    Formation,
    Power,
    impulse_order,
    in_impulse_order,
    reject,
)

RULE = "his:H3"
MISSING_ROLL = "game master's reading: the seed stops before the avoid-battle roll (DECISIONS.md)"

TargetControl = Literal["own", "ally", "independent", "not_allied"]


class AvoidTarget(BaseModel):
    """Where a formation tries to avoid battle to, and the result the game master read."""

    model_config = ConfigDict(extra="forbid")

    to_space: str = Field(min_length=1, description="The space the formation tries to move to")
    to_space_adjacent: bool = Field(default=True, description="to_space is adjacent to the battle space")
    to_space_control: TargetControl = Field(
        description="Control of to_space seen from the avoiding power: own, ally, independent, or a power "
        "that is not its ally (the last two forbid it)"
    )
    to_space_in_unrest: bool = Field(default=False, description="to_space is in unrest")
    to_space_has_enemy_units: bool = Field(default=False, description="to_space holds enemy units")
    to_space_is_sea_zone: bool = Field(default=False, description="to_space is a sea zone")
    to_space_just_left_by_moving_formation: bool = Field(
        default=False, description="to_space is the space the enemy formation being avoided has just left"
    )
    gm_result: Literal["success", "failure"] = Field(
        description="Result of the avoid-battle attempt as the game master resolved it (the seed prints no roll)"
    )


class AvoidAttempt(AvoidTarget):
    """H3: one power's attempt (the power's units that try, with their leaders)."""

    power: Power = Field(description="The avoiding power (its associated minor powers' units avoid with it)")
    formation: Formation = Field(description="The units and leaders that try to avoid battle")
    besieged: bool = Field(default=False, description="These units and leaders are currently besieged")
    power_intercepted_this_move: bool = Field(
        default=False, description="Units of this power intercepted into the battle space during this move action"
    )


class AvoidBattleInputs(BaseModel):
    """H3: the avoid-battle attempts against one move."""

    model_config = ConfigDict(extra="forbid")

    moving_power: Power = Field(description="The active power, whose formation entered the space")
    battle_space: str = Field(min_length=1, description="The space the active formation entered")
    any_interception_succeeded: bool = Field(
        default=False, description="An interception into battle_space succeeded during this move"
    )
    attempts: list[AvoidAttempt] = Field(min_length=1, description="One attempt per power, any order")
    impulse_order: list[Power] | None = Field(
        default=None, description="Impulse order of the powers; the published order when left out (DECISIONS.md)"
    )


def check_target(t: AvoidTarget, f: str, rule: str = RULE) -> None:
    """The restrictions on where a formation may avoid battle to (§Уклонение от сражения, Ограничения)."""
    if not t.to_space_adjacent:
        raise reject(rule, f"{f}.to_space_adjacent", "a formation avoids battle into an adjacent space only")
    if t.to_space_control == "independent":
        raise reject(rule, f"{f}.to_space_control", "units may not avoid battle into an independent space")
    if t.to_space_control == "not_allied":
        raise reject(rule, f"{f}.to_space_control",
                     "units may not avoid battle into a space controlled by another power that is not their ally")
    if t.to_space_in_unrest:
        raise reject(rule, f"{f}.to_space_in_unrest", "units may not avoid battle into a space in unrest")
    if t.to_space_has_enemy_units:
        raise reject(rule, f"{f}.to_space_has_enemy_units", "units may not avoid battle into a space with enemy units")
    if t.to_space_is_sea_zone:
        raise reject(rule, f"{f}.to_space_is_sea_zone", "land units may not avoid battle into a sea zone")
    if t.to_space_just_left_by_moving_formation:
        raise reject(rule, f"{f}.to_space_just_left_by_moving_formation",
                     "units may not avoid battle into the space the enemy formation they avoid has just left")


def check_lone_leader(formation: Formation, f: str, rule: str = RULE) -> None:
    if formation.land_units == 0:
        raise reject(rule, f"{f}.formation.land_units",
                     "an army leader alone in the space may not avoid battle: he is captured if the space is "
                     "unfortified (13.1), and must withdraw into the fortifications if it is fortified (his:H4)")


def check_attempts(inputs: AvoidBattleInputs) -> None:
    if inputs.any_interception_succeeded:
        raise reject(RULE, "any_interception_succeeded",
                     "an interception succeeded: the procedure goes straight to the field battle (his:H1 step 5)")
    seen: dict[str, int] = {}
    for i, a in enumerate(inputs.attempts):
        f = f"attempts[{i}]"
        if a.power == inputs.moving_power:
            raise reject(RULE, f"{f}.power", f"{a.power} is the active power: only enemy units avoid battle")
        if a.power in seen:
            raise reject(RULE, f"{f}.power", f"{a.power} already declared an attempt (attempts[{seen[a.power]}]): "
                         "one attempt per power")
        seen[a.power] = i
        check_lone_leader(a.formation, f)
        if a.besieged:
            raise reject(RULE, f"{f}.besieged", "besieged units and leaders may not avoid battle")
        if a.power_intercepted_this_move:
            raise reject(RULE, f"{f}.power_intercepted_this_move",
                         "a power whose units intercepted into the battle space during this move may not avoid battle")
        check_target(a, f)


@dataclass(frozen=True)
class AvoidResult:
    power: str
    formation: Formation
    target: AvoidTarget
    step: Step
    success: bool


def avoid_step(power: str, formation: Formation, t: AvoidTarget) -> AvoidResult:
    success = t.gm_result == "success"
    step = Step(name=f"avoid battle: {power} to {t.to_space}", side=power,
                outcome={"success": success, "to_space": t.to_space, "reason": MISSING_ROLL})
    return AvoidResult(power, formation, t, step, success)


def avoid_effects(results: list[AvoidResult], battle_space: str) -> list[Effect]:
    return [
        Effect(kind="formation_moved", country=r.power, target=r.target.to_space,
               detail={"from_space": battle_space, "reason": "avoid_battle", "land_units": r.formation.land_units,
                       "leaders": [l.name for l in r.formation.leaders]})
        for r in results if r.success
    ]


def gm_lines(results: list[AvoidResult]) -> tuple[str, ...]:
    return tuple(f"avoid battle result, {r.power} to {r.target.to_space}: {r.target.gm_result}" for r in results)


@HIS.procedure("H3", title="Avoid battle", inputs=AvoidBattleInputs, seed=f"{SEC_AVOID}, Ограничения")
def resolve_avoid_battle(inputs: AvoidBattleInputs, dice: DiceSource) -> Ruling:
    """H3: restrictions checked, attempts in impulse order, results as the game master read them."""
    check_attempts(inputs)
    order = impulse_order(inputs.impulse_order, field="impulse_order", rule=RULE)
    results = [avoid_step(a.power, a.formation, a)
               for _, a in in_impulse_order(inputs.attempts, lambda a: a.power, order, field="attempts", rule=RULE)]
    outcome = {
        "avoided": [r.power for r in results if r.success],
        "failed": [r.power for r in results if not r.success],
        "roll": MISSING_ROLL,
    }
    return HIS.ruling(
        "H3", inputs, steps=tuple(r.step for r in results), outcome=outcome,
        effects=tuple(avoid_effects(results, inputs.battle_space)), gm_supplied=gm_lines(results),
        summary=f"Avoid battle in {inputs.battle_space}: "
        + "; ".join(f"{r.power} to {r.target.to_space} {'succeeds' if r.success else 'fails'}" for r in results),
    )
