"""H4 Withdraw into fortifications (his-land-movement.ru.txt, land movement step 7).

The seed prints only step 7 of the land movement procedure (section 13.4 itself is not in the
extract): when interception and avoid battle did not clear the space, an enemy group of 4 land
units or fewer in a fortified destination may withdraw into the fortifications. Two more
constraints come from elsewhere in the seed: an intercepting power's units must fight (they
may not withdraw), and an army leader alone in a fortified space must withdraw. No die.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Ruling, Step
from ledger.rules.his import HIS
from ledger.rules.his._shared import SEC_WITHDRAW, Formation, Power, movement_table, reject

RULE = "his:H4"


class WithdrawFormation(BaseModel):
    """One power's units and leaders in the space (outside the fortifications), and its choice."""

    model_config = ConfigDict(extra="forbid")

    power: Power = Field(description="The power the units belong to (its associated minors' units included)")
    formation: Formation = Field(description="Its land units and army leaders outside the fortifications")
    withdraw: bool = Field(description="The power chooses to withdraw into the fortifications")
    intercepted_this_move: bool = Field(
        default=False, description="These units intercepted into the space during this move action"
    )


class WithdrawInputs(BaseModel):
    """H4: the enemy group still in the destination after interception and avoid battle."""

    model_config = ConfigDict(extra="forbid")

    moving_power: Power = Field(description="The active power")
    space: str = Field(min_length=1, description="The destination space")
    space_fortified: bool = Field(description="The space is fortified")
    any_interception_succeeded: bool = Field(
        default=False, description="An interception into the space succeeded during this move"
    )
    formations: list[WithdrawFormation] = Field(
        min_length=1, description="The enemy group left in the space (not yet inside the fortifications), one per power"
    )


def group_units(formations: list[WithdrawFormation]) -> int:
    return sum(f.formation.land_units for f in formations)


def check_withdrawal(formations: list[WithdrawFormation], *, prefix: str = "formations",
                     indices: list[int] | None = None) -> None:
    """Raise RulesError for a choice the seed forbids in a fortified space (``indices``: input positions)."""
    where = indices if indices is not None else list(range(len(formations)))
    limit = movement_table()["withdraw"]["max_units"]
    units = group_units(formations)
    for i, f in zip(where, formations):
        field = f"{prefix}[{i}].withdraw"
        if f.withdraw and f.intercepted_this_move:
            raise reject(RULE, field, "units that intercepted during this move must fight the field battle: "
                         "they may not withdraw into the fortifications")
        if f.withdraw and units > limit:
            raise reject(RULE, field, f"the enemy group has {units} land units, more than {limit}: "
                         "it may not withdraw into the fortifications")
        if units == 0 and not f.withdraw:
            raise reject(RULE, field, "an army leader alone in a fortified space must withdraw into the "
                         "fortifications (avoid battle restrictions)")


def withdraw_effects(formations: list[WithdrawFormation], space: str) -> list[Effect]:
    return [
        Effect(kind="withdrew_into_fortifications", country=f.power, target=space,
               detail={"land_units": f.formation.land_units, "leaders": [l.name for l in f.formation.leaders]})
        for f in formations if f.withdraw
    ]


def withdraw_outcome(formations: list[WithdrawFormation]) -> dict:
    return {
        "group_units": group_units(formations),
        "limit": movement_table()["withdraw"]["max_units"],
        "withdrawn": [f.power for f in formations if f.withdraw],
        "stay_outside": [f.power for f in formations if not f.withdraw],
        "units_outside": sum(f.formation.land_units for f in formations if not f.withdraw),
    }


@HIS.procedure("H4", title="Withdraw into fortifications", inputs=WithdrawInputs, seed=SEC_WITHDRAW)
def resolve_withdraw(inputs: WithdrawInputs, dice: DiceSource) -> Ruling:
    """H4: check the withdrawal choices against the seed; no die."""
    if inputs.any_interception_succeeded:
        raise reject(RULE, "any_interception_succeeded",
                     "an interception succeeded: the procedure goes straight to the field battle (his:H1 step 5)")
    if not inputs.space_fortified:
        raise reject(RULE, "space_fortified", "units withdraw into fortifications only in a fortified space")
    seen: dict[str, int] = {}
    for i, f in enumerate(inputs.formations):
        if f.power == inputs.moving_power:
            raise reject(RULE, f"formations[{i}].power", f"{f.power} is the active power: only enemy units withdraw")
        if f.power in seen:
            raise reject(RULE, f"formations[{i}].power", f"{f.power} is listed twice (formations[{seen[f.power]}])")
        seen[f.power] = i
    check_withdrawal(inputs.formations)
    outcome = withdraw_outcome(inputs.formations)
    outcome["field_battle"] = outcome["units_outside"] > 0
    steps = tuple(
        Step(name=f"withdraw: {f.power}", side=f.power,
             outcome={"withdraws": f.withdraw, "land_units": f.formation.land_units})
        for f in inputs.formations
    )
    return HIS.ruling(
        "H4", inputs, steps=steps, outcome=outcome, effects=tuple(withdraw_effects(inputs.formations, inputs.space)),
        summary=f"Withdraw into the fortifications of {inputs.space} ({outcome['group_units']} units, limit "
        f"{outcome['limit']}): " + (", ".join(outcome["withdrawn"]) or "nobody") + " withdraws"
        + ("; a field battle follows" if outcome["field_battle"] else ""),
    )
