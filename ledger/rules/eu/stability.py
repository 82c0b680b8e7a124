"""Stability: improvement (P1), prosperity (P2), wars (I1), ransom (I2).

Sources: seed eu-redeployment-peace-interphase.tex §Stability Improvement
action, §Prosperity and Stability adjustment, §Placement of leaders (Ransom
of Leaders); BAMGames/europa-universalis-rules rules/engBudget.tex
§Stability Improvement (prosperity examples). Table: ``tables/stability.toml``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, RulesError, TableCell, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import MAJOR_TYPES, MINOR_TYPES, CountryCode, country_type
from ledger.rules.names import TYPE_WORDS

PACKAGE = "ledger.rules.eu"
SEED = "eu-redeployment-peace-interphase.tex"
SECTION_P1 = f"{SEED} §Stability Improvement action"
SECTION_P2 = f"{SEED} §Stability Improvement action (Prosperity)"
SECTION_I1 = f"{SEED} §Prosperity and Stability adjustment"
SECTION_I2 = f"{SEED} §Placement of leaders (Ransom of Leaders)"

Prosperity = Literal["prosperous", "neutral", "anti_prosperous"]


def _table() -> dict:
    return load_table(PACKAGE, "stability.toml")


def clamp_stability(value: int) -> int:
    """STAB varies from −3 to +3."""
    lim = _table()["limits"]
    return max(lim["min"], min(lim["max"], value))


# --------------------------------------------------------------------------- P1


def improvement_change(modified_roll: int) -> int:
    """P1 result bands: ≤5 −1; 6–10 0; 11–14 +1; 15–17 +2; ≥18 +3."""
    for band in _table()["improvement"]["bands"]:
        if modified_roll <= band["max"]:
            return band["change"]
    raise AssertionError("the last band is open-ended")


def _band_label(modified_roll: int) -> str:
    if modified_roll <= 5:
        return "≤5"
    if modified_roll <= 10:
        return "6–10"
    if modified_roll <= 14:
        return "11–14"
    if modified_roll <= 17:
        return "15–17"
    return "≥18"


class StabilityImprovementInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    stability: int = Field(ge=-3, le=3, description="STAB before the action")
    investment: Literal[30, 50, 100] = Field(description="Ducats invested, written on ERS A29")
    adm: int = Field(ge=0, le=9, description="ADM of the monarch")
    victim_of_declaration: bool = Field(
        default=False,
        description="Victim of a declaration of war this turn, without having broken an alliance "
        "nor declared war itself",
    )
    war: Literal["none", "minor", "players"] = Field(
        default="none", description="At war with a minor only, or with one or more players"
    )
    enemy_army_in_city: Literal["none", "national", "owned_non_national"] = Field(
        default="none",
        description="An enemy ARMY controls a city of a national (or, for Spain's empire rule, "
        "other owned) province; not during a Religious/Civil War, rebels excluded",
    )
    spanish_empire: bool = Field(
        default=False, description="Spain before Olivares (applied) or the WoSS: −3 on any owned territory"
    )
    prosperity: Prosperity = "neutral"
    event_modifier: int = Field(default=0, ge=-10, le=10, description="± by event")
    monarch_overthrown_by_revolts: bool = Field(
        default=False, description="Monarch executed by revolts this turn: no improvement allowed"
    )

    @model_validator(mode="after")
    def _spain(self) -> StabilityImprovementInputs:
        if self.enemy_army_in_city == "owned_non_national" and not self.spanish_empire:
            raise ValueError("an enemy ARMY outside national provinces only counts for Spain's empire rule")
        return self


def improvement_modifiers(inputs: StabilityImprovementInputs) -> list[Modifier]:
    """Every applicable P1 modifier, each with its reason."""
    t = _table()["improvement"]
    m = t["modifiers"]
    rule = "eu:P1"
    mods: list[Modifier] = []

    def add(value: int, reason: str) -> None:
        if value:
            mods.append(Modifier(value=value, reason=reason, rule=rule, section=SECTION_P1))

    add(inputs.adm, "ADM of the monarch")
    add(t["investments"][str(inputs.investment)], f"{'medium' if inputs.investment == 50 else 'strong'} investment")
    if inputs.victim_of_declaration:
        add(m["victim_of_declaration"], "victim of a declaration of war")
    if inputs.war == "players":
        add(m["war_with_players"], "at war with one or more players")
    elif inputs.war == "minor":
        add(m["war_with_minor"], "at war with a minor country")
    if inputs.enemy_army_in_city != "none":
        if inputs.spanish_empire:
            add(m["enemy_army_controls_city_spanish_empire"], "enemy ARMY controls a city of the Spanish empire")
        else:
            add(m["enemy_army_controls_national_city"], "enemy ARMY controls a national city")
    if inputs.prosperity == "prosperous":
        add(m["prosperous"], "prosperous power")
    elif inputs.prosperity == "anti_prosperous":
        add(m["anti_prosperous"], "anti-prosperous power")
    add(inputs.event_modifier, "event")
    return mods


@EU.procedure(
    "P1",
    title="Stability improvement",
    seed=f"{SECTION_P1}; engBudget.tex §Stability Improvement",
    inputs=StabilityImprovementInputs,
)
def resolve_stability_improvement(inputs: StabilityImprovementInputs, dice: DiceSource) -> Ruling:
    """P1: 1d10 + ADM + modifiers; the band gives the change, STAB stays in −3..+3."""
    if inputs.monarch_overthrown_by_revolts:
        raise RulesError(
            "a country whose monarch was just overthrown by revolts may not improve its stability",
            field="monarch_overthrown_by_revolts",
            rule="eu:P1",
        )
    mods = improvement_modifiers(inputs)
    die = dice.roll("stability improvement")
    total = die.total + sum(m.value for m in mods)
    change = improvement_change(total)
    new = clamp_stability(inputs.stability + change)
    effects = [
        Effect(kind="ers_entry", country=inputs.country, ers_line="A29", amount=inputs.investment,
               detail={"reason": "stability improvement investment"}),
    ]
    if new != inputs.stability:
        effects.append(
            Effect(kind="stability_changed", country=inputs.country, amount=new - inputs.stability,
                   detail={"from": inputs.stability, "to": new})
        )
    return EU.ruling(
        "P1",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Stability improvement result", row=_band_label(total), value=change),
        outcome={"change": change, "applied": new - inputs.stability, "stability": new},
        effects=tuple(effects),
        summary=f"{inputs.country}: stability improvement ({inputs.investment} ducats) "
        f"rolled {die.total} → {total}: {change:+d}, STAB {inputs.stability:+d} → {new:+d}",
    )


# --------------------------------------------------------------------------- P2


def prosperity(gross_incomes: tuple[int, int, int]) -> Prosperity:
    """P2 from the gross income (A14) of two turns ago, last turn and this turn.

    Prosperous: no decrease in the last two turns and at least one increase.
    Anti-prosperous: two consecutive decreases.
    """
    a, b, c = gross_incomes
    if b >= a and c >= b and (b > a or c > b):
        return "prosperous"
    if b < a and c < b:
        return "anti_prosperous"
    return "neutral"


class ProsperityInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    gross_incomes: tuple[int, int, int] = Field(
        description="ERS A14 of two turns ago, last turn and the turn just played"
    )


@EU.procedure("P2", title="Prosperity", seed=f"{SECTION_P2}; engBudget.tex §Prosperity", inputs=ProsperityInputs)
def resolve_prosperity(inputs: ProsperityInputs, dice: DiceSource) -> Ruling:
    """P2: a reading of the gross-income history; no die."""
    status = prosperity(inputs.gross_incomes)
    t = _table()["prosperity"]
    modifier = {"prosperous": t["modifier_prosperous"], "anti_prosperous": t["modifier_anti_prosperous"]}.get(
        status, 0
    )
    a, b, c = inputs.gross_incomes
    return EU.ruling(
        "P2",
        inputs,
        outcome={"prosperity": status, "stability_improvement_modifier": modifier, "deltas": [b - a, c - b]},
        effects=(
            Effect(kind="note", country=inputs.country, detail={"prosperity": status, "modifier": modifier}),
        ),
        summary=f"{inputs.country}: gross income {a}, {b}, {c} → {status.replace('_', '-')}",
    )


# --------------------------------------------------------------------------- I1


class WarInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="The war (for the record)")
    consecutive_turns: int = Field(ge=1, description="Consecutive turns of this war, this one included")
    overseas: bool = False


class WarStabilityInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    stability: int = Field(ge=-3, le=3)
    wars: list[WarInput] = Field(default_factory=list)
    continuing_limited_intervention: bool = Field(
        default=False, description="A limited intervention continued from last turn"
    )
    turkey_hit_by_knights: bool = Field(
        default=False,
        description="Turkey, neither at war nor anti-prosperous, lost trade fleets to the Knights' pirate",
    )
    habsburg_and_turkey_holds_vienna: bool = Field(
        default=False, description="This country is the Habsburg (Spain or Austria) and Turkey controls Vienna"
    )


def war_loss(consecutive_turns: int, overseas: bool = False) -> int:
    """I1: levels lost this turn for one war: 1, 2, 3, 4, 4, 4... (overseas: 1, 2, 2...)."""
    w = _table()["war"]
    return min(consecutive_turns, w["overseas_cap"] if overseas else w["cap"])


@EU.procedure("I1", title="Stability from wars", seed=SECTION_I1, inputs=WarStabilityInputs)
def resolve_war_stability(inputs: WarStabilityInputs, dice: DiceSource) -> Ruling:
    """I1: only the hardest war counts; a continued limited intervention is a −1 candidate."""
    w = _table()["war"]
    candidates = [
        (war_loss(war.consecutive_turns, war.overseas),
         f"war {war.name!r}, turn {war.consecutive_turns}{' (overseas)' if war.overseas else ''}")
        for war in inputs.wars
    ]
    if inputs.continuing_limited_intervention:
        candidates.append((w["continuing_limited_intervention"], "continuing limited intervention"))
    mods: list[Modifier] = []
    hardest = max(candidates, default=None, key=lambda c: c[0])
    if hardest:
        mods.append(Modifier(value=-hardest[0], reason=f"{hardest[1]} (hardest)", rule="eu:I1", section=SECTION_I1))
    if inputs.turkey_hit_by_knights:
        mods.append(Modifier(value=-w["turkey_knights"], reason="Turkey: losses to the Knights' pirate",
                             rule="eu:I1", section=SECTION_I1))
    if inputs.habsburg_and_turkey_holds_vienna:
        mods.append(Modifier(value=-w["vienna"], reason="Turkey controls Vienna", rule="eu:I1", section=SECTION_I1))
    loss = -sum(m.value for m in mods)
    new = clamp_stability(inputs.stability - loss)
    effects = []
    if new != inputs.stability:
        effects.append(Effect(kind="stability_changed", country=inputs.country, amount=new - inputs.stability,
                              detail={"from": inputs.stability, "to": new}))
    return EU.ruling(
        "I1",
        inputs,
        modifiers=tuple(mods),
        total=-loss,
        outcome={
            "loss": loss,
            "applied": new - inputs.stability,
            "stability": new,
            "candidates": [{"reason": r, "loss": v} for v, r in candidates],
        },
        effects=tuple(effects),
        summary=f"{inputs.country}: stability from wars −{loss}, STAB {inputs.stability:+d} → {new:+d}",
    )


# --------------------------------------------------------------------------- I2


class RansomInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    monarch_of: CountryCode = Field(description="Country whose monarch is ransomed")
    captor: CountryCode = Field(description="Country holding the monarch")
    power: Literal["major", "minor"]
    stability: int | None = Field(default=None, ge=-3, le=3, description="STAB of a major ransoming its monarch")
    use_for_peace: bool = Field(
        default=False, description="Minor's monarch kept for +2 at the Peace segment instead of 50 ducats"
    )

    @model_validator(mode="after")
    def _needs(self) -> RansomInputs:
        if self.power == "major" and self.stability is None:
            raise ValueError("stability is required to ransom a major's monarch")
        if self.power == "major" and self.use_for_peace:
            raise ValueError("only a minor's monarch may be used for the peace modifier")
        if self.monarch_of == self.captor:
            raise ValueError("a country cannot ransom its monarch from itself")
        kind = country_type(self.monarch_of)
        if kind not in (MAJOR_TYPES if self.power == "major" else MINOR_TYPES):
            raise ValueError(f"power: {self.monarch_of} is {TYPE_WORDS.get(kind, kind)} on the board, "
                             f"not a {'major power' if self.power == 'major' else 'minor'}")
        return self


@EU.procedure("I2", title="Ransom of monarchs", seed=SECTION_I2, inputs=RansomInputs)
def resolve_ransom(inputs: RansomInputs, dice: DiceSource) -> Ruling:
    """I2: a major pays 2 STAB and 200 ducats (mandatory); a minor 50 ducats (ERS A30)."""
    r = _table()["ransom"]
    effects: list[Effect] = []
    if inputs.power == "major":
        assert inputs.stability is not None
        new = clamp_stability(inputs.stability - r["major_stability"])
        if new != inputs.stability:
            effects.append(Effect(kind="stability_changed", country=inputs.monarch_of,
                                  amount=new - inputs.stability, detail={"from": inputs.stability, "to": new}))
        effects += [
            Effect(kind="ducats", country=inputs.monarch_of, ers_line="A30", amount=-r["major_ducats"],
                   detail={"reason": "ransom of the monarch", "to": inputs.captor}),
            Effect(kind="ducats", country=inputs.captor, ers_line="A30", amount=r["major_ducats"],
                   detail={"reason": "ransom received", "from": inputs.monarch_of}),
        ]
        outcome = {"stability": new, "ducats": r["major_ducats"]}
        summary = f"{inputs.monarch_of} ransoms its monarch: −{r['major_stability']} STAB, {r['major_ducats']} ducats to {inputs.captor}"
    elif inputs.use_for_peace:
        outcome = {"peace_modifier": r["minor_peace_modifier"], "ducats": 0}
        effects.append(Effect(kind="note", country=inputs.captor,
                              detail={"peace_modifier": r["minor_peace_modifier"], "against": inputs.monarch_of}))
        summary = f"{inputs.captor} keeps {inputs.monarch_of}'s monarch for +{r['minor_peace_modifier']} at the peace"
    else:
        # Minors keep no ERS: only the captor's A30 records the ransom.
        effects.append(Effect(kind="ducats", country=inputs.captor, ers_line="A30", amount=r["minor_ducats"],
                              detail={"reason": "ransom received", "from": inputs.monarch_of}))
        outcome = {"ducats": r["minor_ducats"]}
        summary = f"{inputs.monarch_of} ransoms its monarch for {r['minor_ducats']} ducats to {inputs.captor}"
    return EU.ruling("I2", inputs, outcome=outcome, effects=tuple(effects), summary=summary)
