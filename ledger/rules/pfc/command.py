"""C8 command points (pf-cohesion-wargame-tables.fr.txt, POINTS DE COMMANDEMENT)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Modifier, RulesError, Ruling, TableCell
from ledger.rules.pfc import PFC
from ledger.rules.pfc._common import section, table

SEC_CP = section("POINTS DE COMMANDEMENT")

ActionKind = Literal[
    "activate_commander_in_chief",  # with all the units stacked with him
    "activate_subordinate_general",  # with a stack of units
    "activate_force_without_general",
    "build_entrenchment",
]


class CommandAction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: ActionKind
    in_line_of_command: bool = Field(
        default=True, description="Inside a valid line of command (LdC) with the commander-in-chief"
    )


class CommandInputs(BaseModel):
    """One army's command-point roll, and optionally the actions it pays for (C8)."""

    model_config = ConfigDict(extra="forbid")

    commander_vc: int = Field(ge=0, description="Command value (VC) of the army's commander-in-chief")
    actions: list[CommandAction] = Field(default_factory=list, description="Actions to pay for, in order")


def action_cost(action: CommandAction) -> int:
    c = table("command.toml")["costs"][action.action]
    cost = c["in_line"] if action.in_line_of_command else c["out_of_line"]
    if cost < 0:
        raise RulesError(f"actions: {action.action} outside the line of command is not an action the table allows "
                         "(printed '-')", field="actions", rule="pfc:C8")
    return cost


@PFC.procedure("C8", title="Command points", seed=SEC_CP, inputs=CommandInputs)
def resolve_command_points(inputs: CommandInputs, dice: DiceSource) -> Ruling:
    """pfc:C8 — 1d6 per army + the commander-in-chief's VC; the listed actions' costs are deducted."""
    costs = [action_cost(a) for a in inputs.actions]  # reject impossible actions before rolling
    mods = (Modifier(value=inputs.commander_vc, reason="VC of the army's commander-in-chief", rule="pfc:C8",
                     section=SEC_CP),) if inputs.commander_vc else ()
    die = dice.roll("command points", sides=6)
    points = die.total + sum(m.value for m in mods)
    spent = sum(costs)
    outcome = {"command_points": points}
    if inputs.actions:
        outcome.update({
            "costs": [f"{a.action} ({'in' if a.in_line_of_command else 'outside'} LdC): {c} PC"
                      for a, c in zip(inputs.actions, costs)],
            "spent": spent,
            "remaining": points - spent,
            "within_budget": spent <= points,
        })
    summary = f"{points} command points" + (f", {spent} spent, {points - spent} left" if inputs.actions else "")
    return PFC.ruling("C8", inputs, modifiers=mods, dice=(die,), total=points,
                      table_cell=TableCell(table="pfc command points", row=str(die.total), value=points),
                      outcome=outcome, summary=summary)
