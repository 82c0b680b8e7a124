"""C5 reconnaissance (pf-cohesion-wargame-tables.fr.txt, TABLE DE RECONNAISSANCE, voir 6.3)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Modifier, RulesError, Ruling, TableCell, clamp
from ledger.rules.pfc import PFC
from ledger.rules.pfc._common import column_index, fraction_text, mean, printed, read_cell, section, table, toward_zero

SEC_RECON = section("TABLE DE RECONNAISSANCE (voir 6.3)")


class ReconnaissanceInputs(BaseModel):
    """A reconnaissance against a screen (C5)."""

    model_config = ConfigDict(extra="forbid")

    recon_cavalry_pf: int = Field(ge=1, description="Cavalry PF of the unit(s) attempting the reconnaissance")
    screen_cavalry_pf: int = Field(ge=0, description="Cavalry PF of the screening unit(s)")
    recon_cohesions: list[int] = Field(min_length=1, description="Cohesion of each reconnoitring unit")
    screen_cohesions: list[int] = Field(min_length=1, description="Cohesion of each screening unit")


@PFC.procedure("C5", title="Reconnaissance", seed=SEC_RECON, inputs=ReconnaissanceInputs)
def resolve_reconnaissance(inputs: ReconnaissanceInputs, dice: DiceSource) -> Ruling:
    """pfc:C5 — 1d6 + cohesion difference in the cavalry PF differential column (rows 0–8)."""
    t = table("reconnaissance.toml")
    differential = inputs.recon_cavalry_pf - inputs.screen_cavalry_pf
    col = column_index(differential, t["column_low"])
    if col is None:
        raise RulesError(
            f"recon_cavalry_pf: the reconnaissance table prints no column for a cavalry PF differential of "
            f"{differential} (its first column is 1-2)", field="recon_cavalry_pf", rule="pfc:C5")
    if any(c < 0 for c in inputs.recon_cohesions + inputs.screen_cohesions):
        raise RulesError("cohesions cannot be negative", field="recon_cohesions", rule="pfc:C5")
    own, their = mean(inputs.recon_cohesions), mean(inputs.screen_cohesions)
    diff = toward_zero(own - their)
    mods = []
    if diff:
        mods.append(Modifier(value=diff, reason=f"average cohesion: reconnoitring {fraction_text(own)} − screen "
                             f"{fraction_text(their)} (truncated toward zero)", rule="pfc:C5", section=SEC_RECON))
    die = dice.roll("reconnaissance", sides=6)
    total = die.total + sum(m.value for m in mods)
    row = str(clamp(total, t["die_min"], t["die_max"]))
    cell = t["rows"][row][col]
    result, _ = read_cell(cell)
    return PFC.ruling(
        "C5", inputs, modifiers=tuple(mods), dice=(die,), total=total,
        table_cell=TableCell(table="pfc reconnaissance", row=row, column=t["columns"][col], value=printed(cell)),
        outcome={"result": result, "cavalry_pf_differential": differential,
                 "meaning": "read per rule 6.3 (not in the seed)"},
        effects=(Effect(kind="note", detail={"reconnaissance_result": result, "rule": "pfc:C5"}),),
        summary=f"reconnaissance (differential {differential}): result {result}",
    )
