"""H2 Interception (his-land-movement.ru.txt §Перехват, §Процедура перехвата).

Each attempt: 2d6 + the best battle rating of an army leader in the intercepting formation;
Ottoman +1 with cavalry; a non-Ottoman power −1 against Ottoman cavalry; Telescope +1;
success on a modified 9 or more. Attempts are resolved one by one in impulse order; once one
power succeeds no other power may attempt, while that power's other formations still may.
The seed's restrictions are input validation (RulesError naming the field and his:H2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step, TableCell, sum_modifiers
from ledger.rules.his import HIS
from ledger.rules.his._shared import (
    SEC_INTERCEPTION,
    SEC_INTERCEPTION_ROLL,
    Formation,
    Power,
    impulse_order,
    in_impulse_order,
    movement_table,
    reject,
)

RULE = "his:H2"

MoveKind = Literal["move_action", "avoid_battle", "interception", "retreat"]
Control = Literal["own", "ally", "enemy", "neither"]


class InterceptionAttempt(BaseModel):
    """One formation trying to intercept, with what the game master checks at the table."""

    model_config = ConfigDict(extra="forbid")

    power: Power = Field(description="The intercepting power")
    from_space: str = Field(min_length=1, description="Space adjacent to the destination the formation starts in")
    formation: Formation = Field(description="The intercepting formation (need not include every unit present)")
    telescope: bool = Field(default=False, description="The power holds the 'Telescope' science bonus (+1)")
    destination_control: Control = Field(
        description="Who controls the destination, seen from the intercepting power: its own, an ally, an enemy, "
        "or a power that is neither (the last forbids the interception)"
    )
    across_pass: bool = Field(default=False, description="from_space and the destination are joined by a mountain pass")
    at_war_with_moving_power: bool = Field(default=True, description="The power is at war with the active power")
    already_attempted_this_impulse: bool = Field(
        default=False, description="Some of these units or leaders already tried to intercept this impulse"
    )
    besieged: bool = Field(default=False, description="The formation is currently besieged")
    was_besieged_by_moving_formation: bool = Field(
        default=False,
        description="The formation was besieged in from_space by the moving formation, which is now leaving it",
    )
    formation_starts_in_one_space: bool = Field(default=True, description="All its units and leaders start in from_space")
    formation_may_move_together: bool = Field(default=True, description="They may legally move as one formation")
    friendly_units_in_destination: bool = Field(
        default=False, description="The destination already holds land units of this power or of its ally"
    )


class InterceptionContext(BaseModel):
    """The move being intercepted (shared by H1 and H2)."""

    model_config = ConfigDict(extra="forbid")

    moving_power: Power = Field(description="The active power")
    moving_formation: Formation = Field(description="The moving formation (its cavalry matters for −1)")
    destination: str = Field(min_length=1, description="The destination space of the move")
    move_kind: MoveKind = Field(
        default="move_action", description="Why the formation moves: a move action, avoid battle, interception, retreat"
    )
    moving_into_own_unbesieged_fortified_space: bool = Field(
        default=False, description="The destination is a fortified space of the active power, not under siege"
    )
    destination_has_land_units: bool = Field(
        default=False, description="Land units (of any power) are already in the destination"
    )
    destination_has_besieged_units: bool = Field(
        default=False, description="Besieged units (of any power) are in the destination when the move starts"
    )
    impulse_order: list[Power] | None = Field(
        default=None, description="Impulse order of the powers; the published order when left out (DECISIONS.md)"
    )

    @model_validator(mode="after")
    def _besieged_units_are_land_units(self) -> "InterceptionContext":
        if self.destination_has_besieged_units and not self.destination_has_land_units:
            raise ValueError(f"{RULE}: destination_has_besieged_units requires destination_has_land_units")
        return self


class InterceptionInputs(InterceptionContext):
    """H2: every interception attempt against one move."""

    attempts: list[InterceptionAttempt] = Field(min_length=1, description="Attempts, any order (sorted by impulse)")


# --------------------------------------------------------------------------- restrictions


def check_restrictions(
    ctx: InterceptionContext, attempts: list[InterceptionAttempt], *, prefix: str = "attempts", rule: str = RULE
) -> None:
    """Raise RulesError for the first seed restriction an attempt breaks (§Перехват, Ограничения)."""
    if not attempts:
        return
    if ctx.move_kind != "move_action":
        raise reject(rule, "move_kind", "formations moving as a result of avoid battle, interception or retreat "
                     f"cannot be intercepted (this one moves by {ctx.move_kind.replace('_', ' ')})")
    if ctx.moving_into_own_unbesieged_fortified_space:
        raise reject(rule, "moving_into_own_unbesieged_fortified_space",
                     "a formation moving into its own fortified space that is not besieged cannot be intercepted")
    if ctx.destination_has_besieged_units:
        raise reject(rule, "destination_has_besieged_units",
                     "no interception into a space holding besieged units (of any power) when the move starts")
    seen: dict[str, int] = {}
    for i, a in enumerate(attempts):
        f = f"{prefix}[{i}]"
        if a.power == ctx.moving_power:
            raise reject(rule, f"{f}.power", f"{a.power} is the active power and cannot intercept its own move")
        if a.across_pass:
            raise reject(rule, f"{f}.across_pass", "formations never intercept across a mountain pass")
        if not a.at_war_with_moving_power:
            raise reject(rule, f"{f}.at_war_with_moving_power",
                         f"only units of a power at war with the active power ({ctx.moving_power}) may intercept")
        if a.already_attempted_this_impulse:
            raise reject(rule, f"{f}.already_attempted_this_impulse",
                         "units and leaders that already tried to intercept this impulse (successfully or not) "
                         "may not try again")
        if a.besieged:
            raise reject(rule, f"{f}.besieged", "besieged units and leaders may not intercept")
        if a.was_besieged_by_moving_formation:
            raise reject(rule, f"{f}.was_besieged_by_moving_formation",
                         "a formerly besieged formation may not intercept the besiegers moving out of its fortified space")
        if not a.formation_starts_in_one_space:
            raise reject(rule, f"{f}.formation_starts_in_one_space",
                         "all units and leaders of an intercepting formation must start in the same space")
        if not a.formation_may_move_together:
            raise reject(rule, f"{f}.formation_may_move_together",
                         "the intercepting units and leaders must be allowed to move as one formation")
        if a.friendly_units_in_destination and not ctx.destination_has_land_units:
            raise reject(rule, f"{f}.friendly_units_in_destination",
                         "friendly units in the destination contradicts destination_has_land_units = false")
        if a.formation.land_units == 0 and not a.friendly_units_in_destination:
            raise reject(rule, f"{f}.formation.land_units",
                         "army leaders may not intercept alone unless the destination holds units friendly to them")
        if ctx.destination_has_land_units and not a.friendly_units_in_destination:
            raise reject(rule, f"{f}.friendly_units_in_destination",
                         "into a space already holding land units, only the power of those units or its ally may intercept")
        if a.destination_control == "neither":
            raise reject(rule, f"{f}.destination_control",
                         "no interception into a space controlled by a power that is neither an enemy nor an ally")
        # Procedure step 4: no further attempt from a space already chosen.
        if a.from_space in seen:
            raise reject(rule, f"{f}.from_space",
                         f"a second attempt from {a.from_space} (already chosen by attempt {seen[a.from_space]}) "
                         "is not allowed")
        seen[a.from_space] = i


# --------------------------------------------------------------------------- the roll


def interception_modifiers(ctx: InterceptionContext, a: InterceptionAttempt, rule: str = RULE) -> list[Modifier]:
    """The step-2 modifiers that apply to one attempt, in the seed's order."""
    t = movement_table()["interception"]
    mods: list[Modifier] = []
    best = a.formation.best_leader()
    if best is not None:
        mods.append(Modifier(value=best.battle_rating, rule=rule, section=SEC_INTERCEPTION_ROLL,
                             reason=f"best battle rating of an army leader in the formation ({best.name})"))
    if a.power == "Ottoman" and a.formation.cavalry >= 1:
        mods.append(Modifier(value=t["ottoman_with_cavalry"], rule=rule, section=SEC_INTERCEPTION_ROLL,
                             reason="Ottoman intercepting formation with at least 1 cavalry unit"))
    if a.power != "Ottoman" and ctx.moving_power == "Ottoman" and ctx.moving_formation.cavalry >= 1:
        mods.append(Modifier(value=t["against_ottoman_cavalry"], rule=rule, section=SEC_INTERCEPTION_ROLL,
                             reason="non-Ottoman power intercepting a formation with Ottoman cavalry"))
    if a.telescope:
        mods.append(Modifier(value=t["telescope"], rule=rule, section=SEC_INTERCEPTION_ROLL,
                             reason="'Telescope' science bonus"))
    return mods


@dataclass(frozen=True)
class AttemptResult:
    index: int  # position in the inputs' list
    attempt: InterceptionAttempt
    step: Step
    rolled: bool
    success: bool


def run_attempts(
    ctx: InterceptionContext, attempts: list[InterceptionAttempt], dice: DiceSource,
    *, prefix: str = "attempts", rule: str = RULE,
) -> list[AttemptResult]:
    """Validate, then roll the attempts in impulse order; the first successful power stops the others."""
    check_restrictions(ctx, attempts, prefix=prefix, rule=rule)
    order = impulse_order(ctx.impulse_order, field="impulse_order", rule=rule)
    t = movement_table()["interception"]
    winner: str | None = None
    results: list[AttemptResult] = []
    for i, a in in_impulse_order(attempts, lambda a: a.power, order, field=prefix, rule=rule):
        name = f"interception: {a.power} from {a.from_space}"
        if winner is not None and a.power != winner:
            reason = f"not rolled: {winner} already intercepted"
            step = Step(name=name, side=a.power, outcome={"rolled": False, "success": False, "reason": reason})
            results.append(AttemptResult(i, a, step, rolled=False, success=False))
            continue
        mods = interception_modifiers(ctx, a, rule)
        die = dice.roll(name, sides=t["sides"], count=t["dice"])
        total = die.total + sum_modifiers(mods)
        success = total >= t["success_at"]
        reason = f"modified roll {total} {'≥' if success else '<'} {t['success_at']}"
        step = Step(
            name=name, side=a.power, dice=(die,), modifiers=tuple(mods), total=total,
            table_cell=TableCell(table=f"Interception ({t['dice']}d{t['sides']}, success on {t['success_at']}+)",
                                 row=str(total), value="success" if success else "failure"),
            outcome={"rolled": True, "success": success, "reason": reason},
        )
        results.append(AttemptResult(i, a, step, rolled=True, success=success))
        if success:
            winner = a.power
    return results


def interception_effects(ctx: InterceptionContext, results: list[AttemptResult]) -> list[Effect]:
    """Successful formations are placed in the destination (procedure step 3)."""
    return [
        Effect(kind="interception_succeeded", country=r.attempt.power, target=ctx.destination,
               detail={"from_space": r.attempt.from_space, "land_units": r.attempt.formation.land_units,
                       "cavalry": r.attempt.formation.cavalry,
                       "leaders": [l.name for l in r.attempt.formation.leaders]})
        for r in results if r.success
    ]


def summarise(results: list[AttemptResult]) -> dict:
    winners = [r for r in results if r.success]
    return {
        "intercepted": bool(winners),
        "intercepting_power": winners[0].attempt.power if winners else None,
        "successful_from": [r.attempt.from_space for r in winners],
        "attempted_from": [r.attempt.from_space for r in results if r.rolled],
        "not_rolled_from": [r.attempt.from_space for r in results if not r.rolled],
    }


@HIS.procedure("H2", title="Interception", inputs=InterceptionInputs,
               seed=f"{SEC_INTERCEPTION}, Ограничения, Процедура перехвата")
def resolve_interception(inputs: InterceptionInputs, dice: DiceSource) -> Ruling:
    """H2: every interception attempt against one move, in impulse order."""
    results = run_attempts(inputs, inputs.attempts, dice)
    outcome = summarise(results)
    intercepted = outcome["intercepted"]
    # Procedure step 5: a successful interception means a field battle in the destination,
    # and the intercepting power's units may neither avoid battle nor withdraw.
    outcome |= {
        "field_battle": intercepted,
        "interceptors_may_not_avoid_or_withdraw": intercepted,
        "next_step": 8 if intercepted else 6,
    }
    effects = interception_effects(inputs, results)
    if intercepted:
        effects.append(Effect(kind="battle_forced", target=inputs.destination,
                              detail={"battle": "field battle (section 14, not in the seed)",
                                      "intercepting_power": outcome["intercepting_power"],
                                      "interceptors_may_not_avoid_or_withdraw": True}))
    lines = [f"{r.attempt.power} from {r.attempt.from_space}: "
             + (f"{r.step.total} → {'success' if r.success else 'failure'}" if r.rolled else "not rolled")
             for r in results]
    return HIS.ruling(
        "H2", inputs, steps=tuple(r.step for r in results), outcome=outcome, effects=tuple(effects),
        summary=f"Interception of {inputs.moving_power} into {inputs.destination}: " + "; ".join(lines),
    )
