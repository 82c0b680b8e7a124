"""C1 combat, C2 artillery and C3 pursuit (pf-cohesion-wargame-tables.fr.txt).

C1: both sides fire in the same combat sequence (the seed's modifiers are given for
"A" and "D"), each with its own 1d10 read in the column of its own (multiplied) PF;
one ruling with two steps, the attacker's fire first. Results are PF lost by the side
fired upon; a starred cell orders an immediate morale test of that side.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, RulesError, Ruling, Step, TableCell, clamp
from ledger.rules.pfc import PFC
from ledger.rules.pfc._common import (
    Weather,
    column_index,
    fraction_text,
    mean,
    printed,
    read_cell,
    section,
    table,
    toward_zero,
)

Side = Literal["attacker", "defender"]
#: Terrain of the battle (the defender's terrain): clear, mountainous, defensive, or any other.
Terrain = Literal["clear", "mountain", "defensive", "other"]

SEC_TABLE = section("TABLE DE COMBAT")
SEC_PF = section("TABLE DE COMBAT / Modificateurs au nombre de PF")
SEC_COL = section("TABLE DE COMBAT / Modificateurs aux colonnes")
SEC_DIE = section("TABLE DE COMBAT / Modificateurs au dé")
SEC_WEATHER = section("TABLE DE COMBAT / Modificateurs Météo")
SEC_ART = section("TABLE D'ARTILLERIE")
SEC_PURSUIT = section("TABLE DE POURSUITE")


def _other(side: Side) -> Side:
    return "defender" if side == "attacker" else "attacker"


def sequences_in_battle(battle_sequences: int, weather: str) -> int:
    """Snow: "le nombre de séquences de chaque bataille est réduit de 1 (le minimum restant de 1)"."""
    b = table("combat.toml")["battle"]
    if weather == "snow":
        return max(b["min_sequences"], battle_sequences - b["snow_sequence_reduction"])
    return battle_sequences


# --------------------------------------------------------------------------- C1 combat


class CombatInputs(BaseModel):
    """What the game master knows for one combat sequence of a battle (C1)."""

    model_config = ConfigDict(extra="forbid")

    attacker_pf: int = Field(ge=1, description="Strength points (PF) of the attacking Force(s)")
    attacker_cavalry_pf: int = Field(default=0, ge=0, description="Part of attacker_pf that is cavalry")
    defender_pf: int = Field(ge=1, description="Strength points (PF) of the defending Force(s)")
    defender_cavalry_pf: int = Field(default=0, ge=0, description="Part of defender_pf that is cavalry")
    attacker_cohesions: list[int] = Field(min_length=1, description="Cohesion of each attacking unit")
    defender_cohesions: list[int] = Field(min_length=1, description="Cohesion of each defending unit")
    attacker_tactical_bonus: int = Field(
        default=0, ge=0, description="Tactical bonus of the attacker's highest-ranking leader (tie: the best)"
    )
    defender_tactical_bonus: int = Field(
        default=0, ge=0, description="Tactical bonus of the defender's highest-ranking leader (tie: the best)"
    )
    terrain: Terrain = Field(description="Defender's terrain: clear, mountain, defensive, or other")
    attacker_tired: bool = Field(default=False, description="Attaquant fatigué")
    defender_in_fortified_town: bool = Field(default=False, description="Défenseur dans une ville fortifiée")
    flank_attack: bool = Field(default=False, description="Attaque de flanc")
    defender_encircled: bool = Field(default=False, description="Défenseur encerclé")
    defender_entrenched: bool = Field(default=False, description="Défenseur retranché")
    across_bridge: bool = Field(
        default=False, description="At least one attacking Force attacks across a bridge (A −2)"
    )
    sequence: int = Field(ge=1, le=4, description="Combat sequence of the battle, 1st to 4th")
    battle_sequences: int = Field(
        default=4, ge=1, le=4, description="Sequences the battle has before the snow reduction (the 4th is the last)"
    )
    weather: Weather = "clear"

    @model_validator(mode="after")
    def _cavalry_within_pf(self) -> CombatInputs:
        for side in ("attacker", "defender"):
            if getattr(self, f"{side}_cavalry_pf") > getattr(self, f"{side}_pf"):
                raise ValueError(f"{side}_cavalry_pf cannot exceed {side}_pf")
            if any(c < 0 for c in getattr(self, f"{side}_cohesions")):
                raise ValueError(f"{side}_cohesions cannot be negative")
        if self.sequence > self.battle_sequences:
            raise ValueError(f"sequence {self.sequence} is beyond the battle's {self.battle_sequences} sequences")
        return self


def effective_pf(inputs: CombatInputs, side: Side) -> tuple[Fraction, int, list[dict]]:
    """C1 PF multipliers, cumulative: exact product, rounded down once (DECISIONS.md)."""
    t = table("combat.toml")["multipliers"]
    pf = getattr(inputs, f"{side}_pf")
    cavalry = getattr(inputs, f"{side}_cavalry_pf")
    applied: list[dict] = []
    exact = Fraction(pf)
    if cavalry and inputs.terrain in ("mountain", "defensive"):
        f = Fraction(t["cavalry_in_mountain_or_defensive"])
        exact = Fraction(pf - cavalry) + cavalry * f
        applied.append(
            {"factor": fraction_text(f), "on": f"{cavalry} cavalry PF",
             "reason": f"cavalry PF in {inputs.terrain} terrain (A et D x 0,5)", "rule": "pfc:C1", "section": SEC_PF}
        )
    if side == "attacker" and inputs.attacker_tired:
        f = Fraction(t["attacker_tired"])
        exact *= f
        applied.append({"factor": fraction_text(f), "on": "attacker PF", "reason": "attacker tired (A x 0,5)",
                        "rule": "pfc:C1", "section": SEC_PF})
    if side == "attacker" and inputs.defender_in_fortified_town:
        f = Fraction(t["defender_in_fortified_town"])
        exact *= f
        applied.append({"factor": fraction_text(f), "on": "attacker PF",
                        "reason": "defender in a fortified town (A x 0,25)", "rule": "pfc:C1", "section": SEC_PF})
    return exact, math.floor(exact), applied


def column_shifts(inputs: CombatInputs, side: Side) -> list[dict]:
    """C1 column shifts of one side's fire (+ right, − left); flank and encircled do not add up."""
    s = table("combat.toml")["shifts"]
    shifts: list[tuple[int, str]] = []
    if side == "attacker":
        if inputs.flank_attack and inputs.defender_encircled:
            # "SAUF Attaque de flanc avec Défenseur encerclé": only the larger shift applies.
            best = max(s["flank_attack"], s["defender_encircled"])
            shifts.append((best, "defender encircled (A +3Dr; not cumulative with the flank attack)"
                           if best == s["defender_encircled"] else "flank attack (A +2Dr; not cumulative with encircled)"))
        elif inputs.flank_attack:
            shifts.append((s["flank_attack"], "flank attack (A +2Dr)"))
        elif inputs.defender_encircled:
            shifts.append((s["defender_encircled"], "defender encircled (A +3Dr)"))
        if inputs.terrain == "mountain":
            shifts.append((s["defender_mountain"], "defender in mountain terrain (A −1Ga)"))
        if inputs.terrain == "defensive":
            shifts.append((s["defender_defensive_attacker"], "defender in defensive terrain (A −1Ga)"))
        if inputs.defender_entrenched:
            shifts.append((s["defender_entrenched"], "defender entrenched (A −1Ga)"))
    else:
        if inputs.terrain == "defensive":
            shifts.append((s["defender_defensive_defender"], "defender in defensive terrain (D +1Dr)"))
    if inputs.sequence == 4:
        shifts.append((s["fourth_sequence"], "fourth combat sequence of the battle (A −1Ga et D −1Ga)"))
    return [{"value": v, "reason": r, "rule": "pfc:C1", "section": SEC_COL} for v, r in shifts]


def die_modifiers(inputs: CombatInputs, side: Side) -> list[Modifier]:
    """C1 die modifiers of one side's fire, cumulative."""
    d = table("combat.toml")["die_modifiers"]
    mods: list[Modifier] = []
    bonus = getattr(inputs, f"{side}_tactical_bonus")
    if bonus:
        mods.append(Modifier(value=bonus, reason=f"{side}'s highest-ranking leader's tactical bonus",
                             rule="pfc:C1", section=SEC_DIE))
    own = mean(getattr(inputs, f"{side}_cohesions"))
    their = mean(getattr(inputs, f"{_other(side)}_cohesions"))
    diff = toward_zero(own - their)
    if diff:
        mods.append(Modifier(value=diff, reason=f"average cohesion difference ({fraction_text(own)} − "
                             f"{fraction_text(their)}, truncated toward zero)", rule="pfc:C1", section=SEC_DIE))
    if side == "attacker" and inputs.across_bridge:
        mods.append(Modifier(value=d["across_bridge"], reason="attack across a bridge (A −2)",
                             rule="pfc:C1", section=SEC_DIE))
    if side == "defender" and inputs.terrain == "clear":
        mods.append(Modifier(value=d["defence_in_clear_terrain"], reason="defence in clear terrain (D +1)",
                             rule="pfc:C1", section=SEC_DIE))
    if inputs.sequence in (3, 4):
        mods.append(Modifier(value=d["third_or_fourth_sequence"],
                             reason=f"{'third' if inputs.sequence == 3 else 'fourth'} combat sequence (A −1 et D −1)",
                             rule="pfc:C1", section=SEC_DIE))
    return mods


def combat_cell(pf: int, shift: int, row: int) -> tuple[str, str]:
    """Column label and printed cell for a (positive) PF, a total column shift and a clamped row."""
    t = table("combat.toml")
    base = column_index(pf, t["column_low"])
    assert base is not None
    col = clamp(base + shift, 0, len(t["columns"]) - 1)
    return t["columns"][col], t["rows"][str(row)][col]


def _fire(inputs: CombatInputs, side: Side, dice: DiceSource) -> Step:
    t = table("combat.toml")
    target = _other(side)
    exact, pf, multipliers = effective_pf(inputs, side)
    shifts = column_shifts(inputs, side)
    mods = die_modifiers(inputs, side)
    base_outcome = {
        "pf": getattr(inputs, f"{side}_pf"),
        "pf_multiplied": fraction_text(exact),
        "pf_effective": pf,
        "multipliers": [f"×{m['factor']} on {m['on']}: {m['reason']}" for m in multipliers],
    }
    if pf < 1:
        # The table's first column is 1-3: a side whose multiplied PF rounds down to 0 does not fire.
        return Step(name=f"{side}'s fire", side=side, modifiers=tuple(mods),
                    outcome={**base_outcome, "fires": False, "reason": "multiplied PF below 1: no column",
                             "target": target, "pf_lost": 0, "morale_test": False})
    die = dice.roll(f"combat: {side}'s fire", sides=10)
    total = die.total + sum(m.value for m in mods)
    row = clamp(total, t["die_min"], t["die_max"])
    base_col = t["columns"][column_index(pf, t["column_low"])]
    shift = sum(s["value"] for s in shifts)
    column, cell = combat_cell(pf, shift, row)
    lost, star = read_cell(cell)
    return Step(
        name=f"{side}'s fire",
        side=side,
        dice=(die,),
        modifiers=tuple(mods),
        total=total,
        table_cell=TableCell(table="pfc combat", row=str(row), column=column, value=printed(cell)),
        outcome={
            **base_outcome,
            "fires": True,
            "base_column": base_col,
            "column_shift": shift,
            "shifts": [f"{s['value']:+d}: {s['reason']}" for s in shifts],
            "column": column,
            "row": row,
            "target": target,
            "pf_lost": lost,
            "morale_test": star,
        },
    )


@PFC.procedure("C1", title="Combat (one combat sequence)", seed=f"{SEC_TABLE} and its modifiers", inputs=CombatInputs)
def resolve_combat(inputs: CombatInputs, dice: DiceSource) -> Ruling:
    """pfc:C1 — both sides fire; each step reads the combat table for the side fired upon."""
    n = sequences_in_battle(inputs.battle_sequences, inputs.weather)
    if inputs.sequence > n:
        raise RulesError(
            f"pfc:C1: sequence {inputs.sequence} does not exist: in snow this battle has {n} sequence(s) "
            "(Neige: séquences réduites de 1, minimum 1)", field="sequence", rule="pfc:C1")
    steps = (_fire(inputs, "attacker", dice), _fire(inputs, "defender", dice))
    lost = {s.outcome["target"]: s.outcome["pf_lost"] for s in steps}
    morale = {s.outcome["target"]: s.outcome["morale_test"] for s in steps}
    effects: list[Effect] = []
    for side in ("attacker", "defender"):
        if lost[side]:
            effects.append(Effect(kind="pf_lost", target=side, amount=Fraction(lost[side])))
        if morale[side]:
            effects.append(Effect(kind="morale_test", target=side, detail={"immediate": True, "rule": "pfc:C1"}))
    outcome = {
        "attacker_pf_lost": lost["attacker"],
        "defender_pf_lost": lost["defender"],
        "attacker_morale_test": morale["attacker"],
        "defender_morale_test": morale["defender"],
        "sequence": inputs.sequence,
        "sequences_in_battle": n,
        "last_sequence": inputs.sequence == n,
    }
    if inputs.weather == "snow" and n < inputs.battle_sequences:
        outcome["snow"] = f"battle reduced from {inputs.battle_sequences} to {n} sequences ({SEC_WEATHER})"
    tests = [s for s in ("attacker", "defender") if morale[s]]
    summary = (f"sequence {inputs.sequence}: attacker loses {lost['attacker']} PF, defender loses {lost['defender']} PF"
               + (f"; immediate morale test: {', '.join(tests)}" if tests else ""))
    return PFC.ruling("C1", inputs, steps=steps, outcome=outcome, effects=tuple(effects), summary=summary)


# --------------------------------------------------------------------------- C2 artillery


class ArtilleryInputs(BaseModel):
    """One side's artillery fire in a battle sequence (C2)."""

    model_config = ConfigDict(extra="forbid")

    firing_side: Side = Field(default="attacker", description="Side whose artillery fires")
    artillery_bonus: int = Field(ge=1, description="Artillery bonus (BA) of the firing side")
    sequence: int = Field(ge=1, le=4, description="Combat sequence of the battle; artillery fires in the 2nd and 4th")
    weather: Weather = "clear"


@PFC.procedure("C2", title="Artillery fire", seed=SEC_ART, inputs=ArtilleryInputs)
def resolve_artillery(inputs: ArtilleryInputs, dice: DiceSource) -> Ruling:
    """pfc:C2 — 1d6 in the BA column, even sequences only; snow −1 to the die."""
    t = table("artillery.toml")
    if inputs.sequence not in t["even_sequences"]:
        raise RulesError(
            f"pfc:C2: sequence must be 2 or 4, got {inputs.sequence} (the artillery table is used only in "
            "the even sequences of a battle, 2nd and 4th)", field="sequence", rule="pfc:C2")
    if inputs.sequence > sequences_in_battle(4, inputs.weather):
        raise RulesError("pfc:C1: sequence 4 does not exist in snow (a battle has at most 3 sequences), "
                         "so there is no 4th-sequence artillery fire",
                         field="sequence", rule="pfc:C1")
    mods = []
    if inputs.weather == "snow":
        mods.append(Modifier(value=t["snow_die_modifier"], reason="snow (Neige : −1 au dé)", rule="pfc:C2", section=SEC_ART))
    die = dice.roll(f"artillery: {inputs.firing_side}'s fire", sides=6)
    total = die.total + sum(m.value for m in mods)
    row = t["row_labels"][clamp(total, t["die_min"], t["die_max"]) - 1]
    col = column_index(inputs.artillery_bonus, t["column_low"])
    cell = t["rows"][row][col]
    lost, star = read_cell(cell)
    target = _other(inputs.firing_side)
    effects = []
    if lost:
        effects.append(Effect(kind="pf_lost", target=target, amount=Fraction(lost)))
    if star:
        effects.append(Effect(kind="morale_test", target=target, detail={"immediate": True, "rule": "pfc:C2"}))
    return PFC.ruling(
        "C2", inputs, modifiers=tuple(mods), dice=(die,), total=total,
        table_cell=TableCell(table="pfc artillery", row=row, column=t["columns"][col], value=printed(cell)),
        outcome={"target": target, "pf_lost": lost, "morale_test": star},
        effects=tuple(effects),
        summary=f"{inputs.firing_side}'s artillery (BA {inputs.artillery_bonus}): {target} loses {lost} PF"
        + ("; immediate morale test" if star else ""),
    )


# --------------------------------------------------------------------------- C3 pursuit


class PursuitInputs(BaseModel):
    """A pursuit by a Force with cavalry (C3)."""

    model_config = ConfigDict(extra="forbid")

    cavalry_bonus: int = Field(ge=1, description="Cavalry bonus (BC) of the pursuing Force")
    weather: Weather = "clear"


@PFC.procedure("C3", title="Pursuit", seed=SEC_PURSUIT, inputs=PursuitInputs)
def resolve_pursuit(inputs: PursuitInputs, dice: DiceSource) -> Ruling:
    """pfc:C3 — 1d6 in the BC column; no pursuit in mud (no die); snow or rain −1."""
    t = table("pursuit.toml")
    if inputs.weather in t["no_pursuit_weather"]:
        return PFC.ruling("C3", inputs, outcome={"pursuit": False, "pf_lost": 0,
                                                  "reason": "no pursuit in mud (Pas de poursuite si la météo indique Boue)"},
                          summary="no pursuit: the weather is mud")
    mods = []
    if inputs.weather in ("rain", "snow"):
        mods.append(Modifier(value=t["rain_or_snow_die_modifier"], reason=f"{inputs.weather} (Neige ou Pluie : −1 au dé)",
                             rule="pfc:C3", section=SEC_PURSUIT))
    die = dice.roll("pursuit", sides=6)
    total = die.total + sum(m.value for m in mods)
    row = t["row_labels"][clamp(total, t["die_min"], t["die_max"]) - 1]
    col = column_index(inputs.cavalry_bonus, t["column_low"])
    cell = t["rows"][row][col]
    lost, _ = read_cell(cell)
    effects = (Effect(kind="pf_lost", target="pursued", amount=Fraction(lost)),) if lost else ()
    return PFC.ruling(
        "C3", inputs, modifiers=tuple(mods), dice=(die,), total=total,
        table_cell=TableCell(table="pfc pursuit", row=row, column=t["columns"][col], value=printed(cell)),
        outcome={"pursuit": True, "target": "pursued", "pf_lost": lost},
        effects=effects,
        summary=f"pursuit (BC {inputs.cavalry_bonus}): the pursued Force loses {lost} PF",
    )
