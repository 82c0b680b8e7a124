"""A one-procedure ruleset for store tests, independent of the real rules."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Modifier, Ruleset, Ruling, TableCell, register_ruleset

CHECK = register_ruleset(Ruleset(id="check", version="1", title="Test ruleset: a die against a target"))


class CheckInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bonus: int = Field(ge=-5, le=5)
    target: int = Field(ge=2, le=20)


@CHECK.procedure("T1", title="Roll against a target", seed="tests", inputs=CheckInputs)
def resolve_check(inputs: CheckInputs, dice: DiceSource) -> Ruling:
    die = dice.roll("check")
    mods = (Modifier(value=inputs.bonus, reason="bonus", rule="check:T1"),) if inputs.bonus else ()
    total = die.total + inputs.bonus
    return CHECK.ruling("T1", inputs, dice=(die,), modifiers=mods, total=total,
                        table_cell=TableCell(table="target", row=str(total), value=total >= inputs.target),
                        outcome={"success": total >= inputs.target})


class CountInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(default=0, ge=0)


@CHECK.procedure("T2", title="Count the rulings of a series", seed="tests", inputs=CountInputs, carry=("count",))
def resolve_count(inputs: CountInputs, dice: DiceSource) -> Ruling:
    die = dice.roll("count")
    return CHECK.ruling("T2", inputs, dice=(die,), total=die.total,
                        outcome={"count": inputs.count, "carry": {"count": inputs.count + 1}})
