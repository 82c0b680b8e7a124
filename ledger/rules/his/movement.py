"""H1 Land movement procedure (his-land-movement.ru.txt §Процедура сухопутного движения).

One ruling with one Step per procedure step (1 declare the formation, 2 declare an adjacent
destination, 3 spend 1 CP or 2 across a mountain pass, 4 response cards, 5 interceptions
(H2, dice), 6 avoid battle (H3), 7 withdraw into fortifications (H4), 8 field battle). A step
that does not happen says so and why. Everything the game master declares for the later steps
(avoid-battle choices, withdrawal choices) is given up front and validated up front.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step
from ledger.rules.his import HIS
from ledger.rules.his._shared import (
    SEC_PROCEDURE,
    Formation,
    Power,
    impulse_order,
    in_impulse_order,
    movement_table,
    reject,
)
from ledger.rules.his.avoid_battle import MISSING_ROLL, AvoidTarget, avoid_effects, avoid_step, check_lone_leader, \
    check_target, gm_lines
from ledger.rules.his.avoid_battle import RULE as H3
from ledger.rules.his.interception import InterceptionAttempt, InterceptionContext, interception_effects, \
    run_attempts, summarise
from ledger.rules.his.interception import RULE as H2
from ledger.rules.his.withdraw import RULE as H4
from ledger.rules.his.withdraw import WithdrawFormation, check_withdrawal, withdraw_effects, withdraw_outcome

RULE = "his:H1"
THWARTED = "the move action was thwarted by a response card (step 4)"
INTERCEPTED = "an interception succeeded: go to step 8 (step 5)"


class Defender(BaseModel):
    """An enemy formation in the destination, outside any fortifications, when the move starts."""

    model_config = ConfigDict(extra="forbid")

    power: Power = Field(description="The power owning these units (its associated minors' units included)")
    formation: Formation = Field(description="Its land units and army leaders in the destination")
    avoid: AvoidTarget | None = Field(
        default=None, description="Its avoid-battle attempt (step 6), with the result the game master read; "
        "null when it does not try"
    )
    withdraw: bool = Field(default=False, description="It withdraws into the fortifications if allowed (step 7)")


class LandMoveInputs(BaseModel):
    """H1: what the game master knows when a power moves a formation by land."""

    model_config = ConfigDict(extra="forbid")

    moving_power: Power = Field(description="The active power")
    formation: Formation = Field(description="The moving formation (step 1)")
    from_space: str = Field(min_length=1, description="Where the formation starts")
    to_space: str = Field(min_length=1, description="The destination (step 2)")
    destination_adjacent: bool = Field(description="to_space is adjacent to from_space")
    across_pass: bool = Field(default=False, description="The move crosses a mountain pass (2 CP instead of 1)")
    cp_available: int = Field(ge=0, description="Command points the active power has left for this impulse")
    response_card: Literal["Storms"] | None = Field(
        default=None, description="Response card played in step 4 to thwart the move (the seed names only 'Storms')"
    )
    response_card_played_by: Power | None = Field(default=None, description="The power that played it")
    destination_fortified: bool = Field(default=False, description="to_space is a fortified space")
    moving_into_own_unbesieged_fortified_space: bool = Field(
        default=False, description="to_space is a fortified space of the active power that is not besieged"
    )
    destination_has_friendly_units: bool = Field(
        default=False, description="to_space already holds land units of the active power or its allies"
    )
    destination_has_besieged_units: bool = Field(
        default=False, description="to_space holds besieged units (of any power) when the move starts"
    )
    interceptions: list[InterceptionAttempt] = Field(
        default_factory=list, description="Interception attempts declared against this move (step 5, his:H2)"
    )
    defenders: list[Defender] = Field(
        default_factory=list, description="Enemy formations in to_space outside the fortifications, one per power"
    )
    impulse_order: list[Power] | None = Field(
        default=None, description="Impulse order of the powers; the published order when left out (DECISIONS.md)"
    )


# --------------------------------------------------------------------------- validation


def _validate(i: LandMoveInputs) -> None:
    """Declarations impossible whatever the dice: RulesError naming the field and rule."""
    if not i.destination_adjacent:
        raise reject(RULE, "destination_adjacent", "the destination must be adjacent to the formation's space (step 2)")
    if i.to_space == i.from_space:
        raise reject(RULE, "to_space", "the destination must be another space than from_space (step 2)")
    if i.moving_into_own_unbesieged_fortified_space and not i.destination_fortified:
        raise reject(RULE, "moving_into_own_unbesieged_fortified_space",
                     "contradicts destination_fortified = false")
    if (i.response_card is None) != (i.response_card_played_by is None):
        raise reject(RULE, "response_card_played_by", "give both response_card and response_card_played_by, or neither")
    if i.response_card_played_by == i.moving_power:
        raise reject(RULE, "response_card_played_by", "only other powers play a response card against the move (step 4)")
    seen: dict[str, int] = {}
    for n, d in enumerate(i.defenders):
        f = f"defenders[{n}]"
        if d.power == i.moving_power:
            raise reject(RULE, f"{f}.power", f"{d.power} is the active power: defenders are enemy formations")
        if d.power in seen:
            raise reject(RULE, f"{f}.power", f"{d.power} is listed twice (defenders[{seen[d.power]}]): one per power")
        seen[d.power] = n
        if d.avoid is not None:
            check_lone_leader(d.formation, f, H3)
            check_target(d.avoid, f"{f}.avoid", H3)
        if d.withdraw and not i.destination_fortified:
            raise reject(H4, f"{f}.withdraw", "units withdraw into fortifications only in a fortified space")


def _context(i: LandMoveInputs) -> InterceptionContext:
    return InterceptionContext(
        moving_power=i.moving_power, moving_formation=i.formation, destination=i.to_space, move_kind="move_action",
        moving_into_own_unbesieged_fortified_space=i.moving_into_own_unbesieged_fortified_space,
        destination_has_land_units=bool(i.defenders) or i.destination_has_friendly_units
        or i.destination_has_besieged_units,
        destination_has_besieged_units=i.destination_has_besieged_units,
        impulse_order=i.impulse_order,
    )


def _skipped(name: str, reason: str) -> Step:
    return Step(name=name, outcome={"skipped": True, "reason": reason})


# --------------------------------------------------------------------------- the steps


def _interception_step(i: LandMoveInputs, dice: DiceSource) -> tuple[Step, list[Effect], dict, list[Formation]]:
    """Step 5, embedding the H2 attempts: all their dice and modifiers, and one line each."""
    name = "5. interceptions"
    if not i.interceptions:
        out = {"attempts": [], "intercepted": False, "placed_in": i.to_space, "next_step": 6}
        return Step(name=name, outcome=out), [], out, []
    results = run_attempts(_context(i), i.interceptions, dice, prefix="interceptions", rule=H2)
    summary = summarise(results)
    attempts: list[dict[str, Any]] = []
    mods: list[Modifier] = []
    for r in results:
        who = f"{r.attempt.power} from {r.attempt.from_space}"
        row: dict[str, Any] = {"power": r.attempt.power, "from_space": r.attempt.from_space, "rolled": r.rolled}
        if r.rolled:
            row |= {"dice": list(r.step.dice[0].values), "modifiers": sum(m.value for m in r.step.modifiers),
                    "total": r.step.total}
            mods += [m.model_copy(update={"reason": f"{who}: {m.reason}"}) for m in r.step.modifiers]
        row |= {"success": r.success, "reason": r.step.outcome["reason"]}
        attempts.append(row)
    rolled = [r for r in results if r.rolled]
    out = {**summary, "attempts": attempts, "placed_in": i.to_space, "next_step": 8 if summary["intercepted"] else 6}
    step = Step(name=name, side=None, dice=tuple(d for r in rolled for d in r.step.dice), modifiers=tuple(mods),
                total=rolled[0].step.total if len(rolled) == 1 else None, outcome=out)
    fighters = [r.attempt.formation for r in results if r.success]
    return step, interception_effects(_context(i), results), out, fighters


@HIS.procedure("H1", title="Land movement", inputs=LandMoveInputs, seed=SEC_PROCEDURE)
def resolve_land_move(inputs: LandMoveInputs, dice: DiceSource) -> Ruling:
    """H1: the eight steps of one land move action."""
    i = inputs
    _validate(i)
    steps: list[Step] = []
    effects: list[Effect] = []
    gm: tuple[str, ...] = ()

    # 1–2: declarations.
    steps.append(Step(name="1. declare formation", side=i.moving_power,
                      outcome={"formation": i.formation.describe(), "from_space": i.from_space}))
    steps.append(Step(name="2. declare destination", side=i.moving_power,
                      outcome={"to_space": i.to_space, "adjacent": True, "across_pass": i.across_pass}))

    # 3: command points.
    t = movement_table()["movement"]
    cost = t["cp_cost_across_pass"] if i.across_pass else t["cp_cost"]
    if i.cp_available < cost:
        raise reject(RULE, "cp_available", f"the move costs {cost} CP"
                     f"{' (across a mountain pass)' if i.across_pass else ''}; only {i.cp_available} available (step 3)")
    steps.append(Step(name="3. spend command points", side=i.moving_power,
                      outcome={"cp_cost": cost, "reason": "across a mountain pass" if i.across_pass else "no mountain pass",
                               "cp_left": i.cp_available - cost}))
    effects.append(Effect(kind="cp_spent", country=i.moving_power, amount=cost,
                          detail={"action": "land move", "from_space": i.from_space, "to_space": i.to_space}))

    # 4: response cards. The seed: played "to thwart this move action" (DECISIONS.md).
    if i.response_card:
        steps.append(Step(name="4. response cards", side=i.response_card_played_by,
                          outcome={"card": i.response_card, "played_by": i.response_card_played_by,
                                   "move_cancelled": True}))
        steps += [_skipped(n, THWARTED) for n in ("5. interceptions", "6. avoid battle",
                                                   "7. withdraw into fortifications", "8. field battle")]
        effects.append(Effect(kind="stack_stopped", country=i.moving_power, target=i.from_space,
                              detail={"reason": f"{i.response_card} played by {i.response_card_played_by}",
                                      "cp_spent": cost}))
        return HIS.ruling("H1", i, steps=tuple(steps), effects=tuple(effects),
                          outcome={"moved": False, "cp_spent": cost, "cancelled_by": i.response_card,
                                   "intercepted": False, "field_battle": False},
                          summary=f"{i.moving_power} move {i.from_space} → {i.to_space} thwarted by "
                          f"{i.response_card} ({i.response_card_played_by}); {cost} CP spent")
    steps.append(Step(name="4. response cards", outcome={"card": None, "move_cancelled": False}))

    # 5: interceptions, then the moving formation is placed in the destination.
    step5, int_effects, int_out, interceptors = _interception_step(i, dice)
    steps.append(step5)
    effects += int_effects
    effects.append(Effect(kind="formation_moved", country=i.moving_power, target=i.to_space,
                          detail={"from_space": i.from_space, "reason": "move_action",
                                  "land_units": i.formation.land_units,
                                  "leaders": [l.name for l in i.formation.leaders]}))
    intercepted = int_out["intercepted"]

    # 6: avoid battle (H3): results are the game master's (the seed's roll is missing).
    order = impulse_order(i.impulse_order, field="impulse_order", rule=RULE)
    ordered = in_impulse_order(i.defenders, lambda d: d.power, order, field="defenders", rule=RULE)
    avoided: set[int] = set()
    if intercepted:
        steps.append(_skipped("6. avoid battle", INTERCEPTED))
    elif not i.defenders:
        steps.append(_skipped("6. avoid battle", "no enemy land units in the destination"))
    elif all(d.avoid is None for d in i.defenders):
        steps.append(_skipped("6. avoid battle", "no avoid-battle attempt declared (avoiding battle is voluntary)"))
    else:
        results = [(n, avoid_step(d.power, d.formation, d.avoid)) for n, d in ordered if d.avoid is not None]
        avoided = {n for n, r in results if r.success}
        steps.append(Step(name="6. avoid battle", outcome={
            "attempts": [{"power": r.power, "to_space": r.target.to_space, "success": r.success} for _, r in results],
            "avoided": [r.power for _, r in results if r.success], "reason": MISSING_ROLL}))
        effects += avoid_effects([r for _, r in results], i.to_space)
        gm = gm_lines([r for _, r in results])

    # 7: withdraw into fortifications (H4), for the enemy group still in the space.
    remaining = [(n, d) for n, d in ordered if n not in avoided]
    group = [WithdrawFormation(power=d.power, formation=d.formation, withdraw=d.withdraw) for _, d in remaining]
    withdrawn: set[int] = set()
    captured: list[str] = []
    if intercepted:
        steps.append(_skipped("7. withdraw into fortifications", INTERCEPTED))
    elif not remaining:
        steps.append(_skipped("7. withdraw into fortifications", "no enemy units left in the destination"))
    elif not i.destination_fortified:
        # A leader alone in an unfortified space is captured (13.1, quoted in the avoid battle restrictions).
        if sum(d.formation.land_units for _, d in remaining) == 0:
            for _, d in remaining:
                for leader in d.formation.leaders:
                    captured.append(leader.name)
                    effects.append(Effect(kind="leader_captured", country=d.power, target=leader.name,
                                          detail={"space": i.to_space, "by": i.moving_power, "rule": "13.1"}))
        steps.append(Step(name="7. withdraw into fortifications",
                          outcome={"skipped": True, "reason": "the destination is not fortified",
                                   **({"captured_leaders": captured} if captured else {})}))
    else:
        check_withdrawal(group, prefix="defenders", indices=[n for n, _ in remaining])
        withdrawn = {n for n, d in remaining if d.withdraw}
        steps.append(Step(name="7. withdraw into fortifications", outcome=withdraw_outcome(group)))
        effects += withdraw_effects(group, i.to_space)

    # 8: field battle if enemy land units are still in the space outside the fortifications.
    outside = [d for n, d in remaining if n not in withdrawn and not captured]
    units = sum(f.land_units for f in interceptors) + sum(d.formation.land_units for d in outside)
    against = sorted({r["power"] for r in int_out.get("attempts", []) if r["success"]} | {d.power for d in outside},
                     key=order.index)
    if units:
        steps.append(Step(name="8. field battle", outcome={
            "field_battle": True, "space": i.to_space, "against": against, "enemy_land_units": units,
            "reason": "enemy land units remain outside the fortifications; the battle itself (section 14) "
                      "is not in the seed"}))
        effects.append(Effect(kind="battle_forced", target=i.to_space,
                              detail={"battle": "field battle (section 14, not in the seed)",
                                      "attacker": i.moving_power, "defenders": against,
                                      "interceptors_may_not_avoid_or_withdraw": intercepted}))
    else:
        steps.append(Step(name="8. field battle", outcome={
            "field_battle": False, "reason": "no enemy land units outside fortifications in the destination"}))

    outcome = {
        "moved": True, "cp_spent": cost, "intercepted": intercepted,
        "intercepting_power": int_out.get("intercepting_power"),
        "avoided": [i.defenders[n].power for n in sorted(avoided, key=lambda n: order.index(i.defenders[n].power))],
        "withdrawn": [i.defenders[n].power for n, _ in remaining if n in withdrawn],
        "captured_leaders": captured, "field_battle": bool(units),
    }
    bits = [f"{i.moving_power} moves {i.from_space} → {i.to_space} ({cost} CP)"]
    if intercepted:
        bits.append(f"intercepted by {outcome['intercepting_power']}")
    if outcome["avoided"]:
        bits.append("avoided by " + ", ".join(outcome["avoided"]))
    if outcome["withdrawn"]:
        bits.append("withdrawn: " + ", ".join(outcome["withdrawn"]))
    if captured:
        bits.append("captured: " + ", ".join(captured))
    bits.append("field battle" if units else "no field battle")
    return HIS.ruling("H1", i, steps=tuple(steps), effects=tuple(effects), outcome=outcome, gm_supplied=gm,
                      summary="; ".join(bits))
