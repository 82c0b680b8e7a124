"""Exploration (eu): M18.

Seed: eu-military-rules.tex §Exploration. The roll is read both in the Discovery
column (sea or land) and in the "ROTW or Sea" column (losses as attrition).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, RulesError, Step, TableCell, sum_modifiers
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, PlaceName
from ledger.rules.eu.attrition import (
    RemaindersVersion,
    apply_remainders,
    discovery_reading,
    half_reroll_reading,
    rotw_percent,
    rotw_table_cell,
    to_thirds,
)
from ledger.rules.eu.naval import NAVAL_TECH_DRM, NavalTech

SEC_EXP = "eu-military-rules.tex §Exploration"

LeaderKind = Literal["explorer", "conquistador", "governor", "general", "admiral", "none"]


class ExplorationInputs(BaseModel):
    """A phasing stack (or a leader alone) explores an adjacent unknown sea zone or province."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80)
    zone: PlaceName | None = Field(default=None, description="Sea zone or province explored")
    kind: Literal["sea", "land"]
    leader_kind: LeaderKind = Field(default="none", description="Commanding leader")
    leader: str | None = Field(default=None, max_length=80, description="Commanding leader's name")
    leader_man: int = Field(default=0, ge=0, le=9, description="MAN of the commanding leader")
    missionary_man: int | None = Field(default=None, ge=0, le=9, description="MAN of a missionary in the stack")
    use_missionary: bool = Field(default=False, description="Use the missionary's MAN instead of the commander's")
    leader_alone: bool = False
    ld: int = Field(default=0, ge=0, le=60, description="LD (land exploration)")
    lde: int = Field(default=0, ge=0, le=30)
    nd: int = Field(default=0, ge=0, le=100, description="ND (sea exploration)")
    nde: int = Field(default=0, ge=0, le=30)
    zone_malus: int = Field(default=0, ge=0, le=9, description="Malus of the sea zone explored")
    technology: NavalTech | None = Field(default=None, description="Naval technology of the exploring stack")
    bad_weather: bool = False
    known_by_another_country: bool = Field(
        default=False, description="Period IV or later and the sea zone is known by another country"
    )
    neutral_establishment: bool = Field(
        default=False, description="The explored province holds a neutral establishment: the stack stays in place"
    )
    remainders_version: RemaindersVersion = "2016"

    @model_validator(mode="after")
    def _check(self) -> ExplorationInputs:
        if self.use_missionary and self.missionary_man is None:
            raise RulesError("no missionary's MAN given", field="missionary_man")
        if self.leader_alone:
            if self.leader_kind == "none":
                raise RulesError("a leader alone needs a leader", field="leader_kind")
            if self.ld or self.lde or self.nd or self.nde:
                raise RulesError("a leader alone has no troops", field="leader_alone")
        elif self.kind == "land" and not (self.ld or self.lde):
            raise RulesError("a land exploration needs LD or LDE (or a leader alone)", field="ld")
        elif self.kind == "sea" and not (self.nd or self.nde):
            raise RulesError("a sea exploration needs ND or NDE (or a leader alone)", field="nd")
        if self.kind == "land" and (self.nd or self.nde):
            raise RulesError("a land exploration counts LD/LDE, not ND", field="nd")
        if self.kind == "sea" and (self.ld or self.lde):
            raise RulesError("give the carried land stack's losses from carried_land_percent", field="ld")
        return self


def man_used(i: ExplorationInputs) -> tuple[int, str | None]:
    """(MAN used, whose): a missionary's if chosen; explorers/conquistadors/governors only;
    generals and admirals count 0; explorers on land are halved (round down)."""
    if i.use_missionary:
        return i.missionary_man or 0, "missionary"
    if i.leader_kind == "none":
        return 0, None
    if i.leader_kind in {"general", "admiral"}:
        return 0, i.leader_kind
    if i.leader_kind == "explorer" and i.kind == "land":
        return i.leader_man // 2, "explorer"
    return i.leader_man, i.leader_kind


def exploration_modifiers(i: ExplorationInputs) -> list[Modifier]:
    """M18 modifier list (eu-military-rules.tex §Exploration)."""
    r, s = "eu:M18", SEC_EXP
    mods = [Modifier(value=4, reason="all explorations", rule=r, section=s)]
    man, who = man_used(i)
    if man:
        halved = " (halved on land)" if who == "explorer" and i.kind == "land" else ""
        mods.append(Modifier(value=-man, reason=f"MAN of the {who}{halved}", rule=r, section=s))
    if i.kind == "sea":
        if i.zone_malus:
            mods.append(Modifier(value=i.zone_malus, reason="malus of the sea zone explored", rule=r, section=s))
        tech = NAVAL_TECH_DRM.get(i.technology or "", 0)
        if tech:
            mods.append(Modifier(value=tech, reason=f"technology {i.technology}", rule=r, section=s))
        if i.bad_weather:
            mods.append(Modifier(value=2, reason="bad weather", rule=r, section=s))
        if i.known_by_another_country:
            mods.append(Modifier(value=-2, reason="period IV+, zone already known by another country", rule=r, section=s))
    return mods


@EU.procedure("M18", title="Exploration", seed=SEC_EXP, inputs=ExplorationInputs,
              options=("remainders_version",))
def resolve_exploration(inputs: ExplorationInputs, dice: DiceSource) -> Ruling:
    """M18: Discovery column + losses; ½ re-roll with an unmodified die; leader death test."""
    i = inputs
    mods = exploration_modifiers(i)
    die = dice.roll("exploration")
    total = die.total + sum_modifiers(mods)
    reading, cell = discovery_reading(total, i.kind)
    steps = [Step(name="exploration roll", modifiers=tuple(mods), dice=(die,), total=total, table_cell=cell,
                  outcome={"reading": reading.text})]
    if reading.result == "H":
        re_die = dice.roll("exploration ½ re-roll (unmodified)")
        reading = half_reroll_reading(re_die.total)
        steps.append(Step(name="½ re-roll", dice=(re_die,), total=re_die.total,
                          table_cell=TableCell(table="Discoveries and Attrition ½", row=str(re_die.total),
                                               value=reading.text),
                          outcome={"reading": reading.text}))
    success = reading.result == "S"
    effects: list[Effect] = []

    # Losses: the "ROTW or Sea" percentage applied as attrition.
    percent = rotw_percent(total)
    losses: dict = {"percent": percent}
    if not i.leader_alone:
        whole, d = (i.ld, i.lde) if i.kind == "land" else (i.nd, i.nde)
        rem = apply_remainders(to_thirds(whole, d), percent, dice, version=i.remainders_version,
                               purpose="exploration losses")
        losses = rem.outcome()
        steps.append(Step(name="losses", dice=rem.dice, table_cell=rotw_table_cell(total), outcome=losses))
        if rem.lost:
            effects.append(Effect(kind="ld_lost" if i.kind == "land" else "nd_lost", country=i.country,
                                  target=i.stack, amount=rem.lost,
                                  detail={"cause": "exploration", "percent": percent}))
        if i.kind == "sea":
            losses["carried_land_percent"] = percent  # carried troops and gold lose the same share

    # Leader death test: † always; × only for a leader alone.
    man, who = man_used(i)
    death: dict = {"tested": False}
    if who is not None and (reading.mark == "†" or (reading.mark == "×" and i.leader_alone)):
        if man == 0:
            death = {"tested": True, "man": 0, "dies": True, "reason": "MAN 0 for exploration: fails automatically"}
            steps.append(Step(name="leader death test", outcome=death))
        else:
            d_die = dice.roll("explorer death test")
            dies = d_die.total > man
            death = {"tested": True, "man": man, "die": d_die.total, "dies": dies}
            steps.append(Step(name="leader death test", dice=(d_die,), total=d_die.total, outcome=death,
                              table_cell=TableCell(table="Leader death test", row=str(d_die.total),
                                                   column=f"MAN {man}", value="dies" if dies else "survives")))
        if death["dies"]:
            victim = "missionary" if who == "missionary" else (i.leader or who)
            effects.append(Effect(kind="leader_killed", country=i.country, target=victim,
                                  detail={"cause": "exploration"}))

    if success:
        effects.append(Effect(kind="discovery", country=i.country, target=i.zone, detail={
            "kind": i.kind, "known_only_to_stack": i.stack, "brought_home": False,
            "stack_moves_in": not i.neutral_establishment}))
    outcome = {
        "result": reading.result,
        "reading": reading.text,
        "success": success,
        "stack_moves_in": success and not i.neutral_establishment,
        "losses": losses,
        "death_test": death,
        "hidden": success,  # known only to the stack until brought home
    }
    summary = (f"exploration {total}: {reading.text}, {'success' if success else 'failure'}, {percent}% losses"
               + ("; leader dies" if death.get("dies") else ""))
    all_dice = tuple(d for s in steps for d in s.dice)
    return EU.ruling("M18", i, modifiers=tuple(mods), dice=all_dice, total=total, table_cell=cell,
                     steps=tuple(steps), outcome=outcome, effects=tuple(effects), summary=summary)
