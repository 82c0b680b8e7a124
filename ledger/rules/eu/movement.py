"""Land movement (eu): M9 land movement, M10 movement attrition on land, M11 the
Conquistador table.

Seed: eu-military-rules.tex §Movements (Land), §Attrition (Land).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ledger.rules.core import (
    DiceSource,
    Effect,
    Modifier,
    Ruling,
    RulesError,
    Step,
    TableCell,
    load_table,
    sum_modifiers,
)
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, ProvinceName
from ledger.rules.eu.attrition import (
    PACKAGE,
    ProvincePillage,
    RemaindersVersion,
    StraitFortification,
    apply_remainders,
    land_attrition_result,
    to_thirds,
)
from ledger.rules.eu.supply import LandStackInputs

SEC_LAND = "eu-military-rules.tex §Movement (Land)"
SEC_ATTR = "eu-military-rules.tex §Attrition (Land)"
SEC_CONQ = "eu-military-rules.tex §Movement (Land), Conquistador table"


def _costs() -> dict:
    return load_table(PACKAGE, "movement_costs.toml")


def _thresholds() -> dict:
    return load_table(PACKAGE, "movement_thresholds.toml")


# --------------------------------------------------------------------------- MP costs


class ProvinceEntry(BaseModel):
    """One province entered (or one naval move) during a land move."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["land", "naval"] = "land"
    area: Literal["europe", "rotw"] = "europe"
    terrain: Literal["clear", "mountain", "rough"] = Field(
        default="clear", description="clear, mountain, or other rough terrain"
    )
    enemy: bool = Field(default=False, description="Enemy province (else friendly)")
    crossing: bool = Field(default=False, description="Entered across a strait, river or pass")
    swamp: bool = Field(default=False, description="Moving in or out of a swamp")
    both_friendly_ports: bool = Field(default=False, description="Naval move between two friendly ports")


def mp_cost(entry: ProvinceEntry, *, native_troops: bool = False) -> int:
    """Table Movement points costs (M9)."""
    t = _costs()[entry.area]
    if entry.kind == "naval":
        return t["naval_friendly_ports"] if entry.both_friendly_ports else t["naval"]
    if entry.terrain == "clear":
        base = t["enemy_clear"] if entry.enemy else t["friendly_clear"]
    elif entry.terrain == "mountain" and entry.enemy:
        base = t["enemy_mountain"]
    else:
        base = t["other_rough_natives"] if native_troops else t["other_rough"]
    return base + (t["crossing"] if entry.crossing else 0) + (t["swamp"] if entry.swamp else 0)


# --------------------------------------------------------------------------- M9


class Leg(BaseModel):
    """A part of the move: from the start (or an interception) to the next interception or the end."""

    model_config = ConfigDict(extra="forbid")

    entries: list[ProvinceEntry] = Field(default_factory=list, max_length=40)
    mp: int | None = Field(default=None, ge=0, le=20, description="MP spent, when entries are not given")
    naval_uncontrolled_endpoint: bool = Field(
        default=False, description="A naval transport in this leg has an endpoint that is not a large enough controlled port"
    )
    ends_with: Literal["end", "interception_won", "interception_lost"] = "end"

    @model_validator(mode="after")
    def _mp_or_entries(self) -> Leg:
        if self.mp is None and not self.entries:
            raise RulesError("a leg needs its MP or its province entries", field="mp")
        if self.mp is not None and self.entries:
            raise RulesError("give a leg's MP or its entries, not both", field="mp")
        return self


class Overrun(BaseModel):
    model_config = ConfigDict(extra="forbid")

    declared_by: Literal["phasing", "non_phasing"] = "phasing"
    phasing_ld: int = Field(ge=0, le=200, description="LD of the moving stack")
    non_phasing_ld: int = Field(ge=0, le=200, description="LD of the non-phasing forces in the province")
    friendly_ld_in_province: int = Field(
        default=0, ge=0, le=200, description="LD friendly to the moving stack already there (even besieged)"
    )


class LeavingSiege(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fortress_level: int = Field(ge=0, le=5, description="Level of the uncontrolled fortress (0 = fort)")
    stack_ld: int = Field(ge=0, le=200, description="LD of the stack in the province")
    empty_province: bool = Field(default=False, description="The stack leaves entirely, lifting the siege")


class NativesActivation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    province: ProvinceName | None = None
    tolerance: int = Field(ge=0, le=10, description="Tolerance of the Area (its third value)")
    attack_natives: bool = Field(default=False, description="The stack attacks the natives instead of testing")
    trade_agreement: bool = Field(default=False, description="Natives of a ROTW country with an AT: no test")
    conquistador_attempt: bool = Field(default=False, description="M11 is used instead: activation is automatic")


class LandMovementInputs(BaseModel):
    """One land move, as the game master sees it, split into legs at each interception."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80)
    leader_alone: bool = False
    native_troops: bool = Field(default=False, description="Native troops (ROTW rough terrain costs 4)")
    ld: int = Field(default=0, ge=0, le=200, description="LD of the moving stack, outside Pashas")
    pashas: int = Field(default=0, ge=0, le=20)
    without_logistics: bool = Field(default=False, description="Campaign without logistics")
    legs: list[Leg] = Field(min_length=1, max_length=12)
    overrun: Overrun | None = None
    leaving_siege: LeavingSiege | None = None
    natives: NativesActivation | None = None

    @field_validator("legs")
    @classmethod
    def _legs_order(cls, legs: list[Leg]) -> list[Leg]:
        for n, leg in enumerate(legs[:-1], start=1):
            if leg.ends_with != "interception_won":
                raise RulesError(
                    f"leg {n} ends with {leg.ends_with}: only a won interception lets the move go on",
                    field="legs",
                )
        if legs[-1].ends_with == "interception_won":
            raise RulesError("the last leg ends the move (end or lost interception)", field="legs")
        return legs


def leg_mp(leg: Leg, native_troops: bool = False) -> int:
    return leg.mp if leg.mp is not None else sum(mp_cost(e, native_troops=native_troops) for e in leg.entries)


def large_stack(ld: int, pashas: int) -> bool:
    t = _thresholds()["attrition_triggers"]
    return ld >= t["large_stack_ld"] or pashas >= t["large_stack_pashas"]


def attrition_causes(mp: int, naval_uncontrolled: bool, without_logistics: bool, large: bool) -> list[str]:
    """Causes of movement attrition (eu-military-rules.tex §Movement, Land); each bullet is one cause."""
    t = _thresholds()["attrition_triggers"]
    causes = []
    if large:
        causes.append("large stack (6+ LD or 2+ Pashas)")
    if mp >= t["mp"]:
        causes.append(f"moved {mp} MP (6 or more)")
    if without_logistics and mp >= t["mp_without_logistics"]:
        causes.append(f"moved {mp} MP without logistics (3 or more)")
    if naval_uncontrolled:
        causes.append("naval move with an uncontrolled endpoint")
    return causes


def attrition_checks(
    legs: list[Leg], *, ld: int, pashas: int, without_logistics: bool, native_troops: bool = False
) -> list[dict]:
    """When a moving land stack rolls attrition (M9), leg by leg.

    * a leg ended by an interception: its own causes, the large stack not being
      enough to trigger but counted as an extra cause; rolled before the battle;
    * the last leg (end of move or lost interception): its own causes likewise,
      rolled at the end (after a lost battle);
    * otherwise, if nothing was rolled during the move and the whole move has a
      cause (the large stack included), one final roll at the end.
    """
    large = large_stack(ld, pashas)
    checks: list[dict] = []
    rolled = False
    total_mp = 0
    any_naval = False
    for n, leg in enumerate(legs, start=1):
        mp = leg_mp(leg, native_troops)
        total_mp += mp
        any_naval |= leg.naval_uncontrolled_endpoint
        own = attrition_causes(mp, leg.naval_uncontrolled_endpoint, without_logistics, False)
        when = "at the end of the move" if leg.ends_with == "end" else "before the interception battle"
        if own:
            causes = own + (["large stack (6+ LD or 2+ Pashas)"] if large else [])
            checks.append({"leg": n, "scope": "leg", "mp": mp, "roll": True, "when": when,
                           "causes": causes, "cause_count": len(causes)})
            rolled = True
        else:
            checks.append({"leg": n, "scope": "leg", "mp": mp, "roll": False, "causes": [], "cause_count": 0})
    if not rolled:
        whole = attrition_causes(total_mp, any_naval, without_logistics, large)
        if whole:
            last = legs[-1]
            when = "after the lost battle" if last.ends_with == "interception_lost" else "at the end of the move"
            checks.append({"leg": None, "scope": "whole move", "mp": total_mp, "roll": True, "when": when,
                           "causes": whole, "cause_count": len(whole)})
    return checks


def overrun_result(o: Overrun) -> dict:
    """Overrun: ×4 LD → immediate battle as an interception battle; ×8 → destroyed without battle."""
    t = _thresholds()["overrun"]
    if o.declared_by == "phasing":
        strong, weak = o.phasing_ld, o.non_phasing_ld
    else:
        # Forces friendly to the moving stack already there are counted with it (DECISIONS.md, M9).
        strong, weak = o.non_phasing_ld, o.phasing_ld + o.friendly_ld_in_province
    if weak == 0 or strong >= t["destroy_ratio"] * weak:
        result = "destroyed_without_battle"
    elif strong >= t["battle_ratio"] * weak:
        result = "immediate_battle"
    else:
        result = "not_allowed"
    return {"declared_by": o.declared_by, "strong_ld": strong, "weak_ld": weak,
            "ratio": str(Fraction(strong, weak)) if weak else None, "result": result}


def siege_left_behind(level: int) -> int:
    """LD to leave behind to keep a siege: 1 per level (a fort needs one detachment)."""
    t = _thresholds()["siege"]
    return max(t["fort_minimum"], t["ld_per_fortress_level"] * level)


@EU.procedure("M9", title="Land movement", seed=SEC_LAND, inputs=LandMovementInputs)
def resolve_land_movement(inputs: LandMovementInputs, dice: DiceSource) -> Ruling:
    """M9: MP spent, when attrition is rolled, overrun, leaving a siege, natives activation."""
    i = inputs
    steps: list[Step] = []
    effects: list[Effect] = []
    limits = _costs()["limits"]
    limit = limits["leader_alone"] if i.leader_alone else limits["stack"]
    mps = [leg_mp(leg, i.native_troops) for leg in i.legs]
    total_mp = sum(mps)
    if total_mp > limit:
        raise RulesError(f"the move costs {total_mp} MP, more than the {limit} MP allowed", field="legs")
    steps.append(Step(name="movement points", total=total_mp,
                      outcome={"legs_mp": mps, "total_mp": total_mp, "limit": limit}))

    if i.leader_alone:
        checks: list[dict] = []
        steps.append(Step(name="attrition checks", outcome={"checks": [], "reason": "a leader alone never rolls"}))
    else:
        checks = attrition_checks(i.legs, ld=i.ld, pashas=i.pashas, without_logistics=i.without_logistics,
                                  native_troops=i.native_troops)
        steps.append(Step(name="attrition checks", outcome={"checks": checks}))
    if i.legs[-1].ends_with == "interception_lost":
        effects.append(Effect(kind="stack_stopped", country=i.country, target=i.stack,
                              detail={"reason": "lost an interception battle"}))

    outcome: dict = {"total_mp": total_mp, "attrition_rolls": [c for c in checks if c["roll"]]}
    summary = [f"{total_mp} MP", f"{len(outcome['attrition_rolls'])} attrition roll(s)"]

    if i.overrun:
        ov = overrun_result(i.overrun)
        steps.append(Step(name="overrun", outcome=ov))
        outcome["overrun"] = ov["result"]
        victim = "non-phasing stack" if i.overrun.declared_by == "phasing" else "moving stack"
        if ov["result"] == "destroyed_without_battle":
            effects.append(Effect(kind="stack_destroyed", target=victim, detail={
                "reason": "overrun ×8 without battle", "leader": "rolls for wounds as if all troops were destroyed"}))
            if i.overrun.declared_by == "phasing":
                outcome["overrun_note"] = "no attrition before the overrun; the stack may continue moving"
        elif ov["result"] == "immediate_battle":
            effects.append(Effect(kind="battle_forced", target=victim, detail={
                "reason": "overrun ×4", "as": "interception battle",
                "winner_continues": i.overrun.declared_by == "phasing"}))
        summary.append(f"overrun: {ov['result']}")

    if i.leaving_siege:
        s = i.leaving_siege
        need = siege_left_behind(s.fortress_level)
        if s.empty_province:
            res = {"siege_lifted": True, "ld_left_behind": 0}
        elif s.stack_ld <= need:
            raise RulesError(
                f"keeping the siege of a level {s.fortress_level} fortress needs {need} LD left behind: "
                f"the stack must stay or empty the province", field="leaving_siege")
        else:
            res = {"siege_lifted": False, "ld_left_behind": need, "ld_moving": s.stack_ld - need}
        steps.append(Step(name="leaving a siege", outcome={"fortress_level": s.fortress_level, **res}))
        outcome["leaving_siege"] = res
        summary.append("siege lifted" if s.empty_province else f"{need} LD left to keep the siege")

    if i.natives:
        n = i.natives
        exempt = ("leader alone" if i.leader_alone else "trade agreement" if n.trade_agreement else
                  "the stack attacks the natives" if n.attack_natives else
                  "conquistador table used: natives activated automatically" if n.conquistador_attempt else None)
        if exempt:
            nat = {"tested": False, "reason": exempt, "activated": n.attack_natives or n.conquistador_attempt}
            if n.attack_natives:
                effects.append(Effect(kind="stack_stopped", country=i.country, target=i.stack,
                                      detail={"reason": "attacks the natives (regular battle, still a passive move)"}))
                effects.append(Effect(kind="battle_forced", target=n.province,
                                      detail={"against": "natives", "as": "regular battle"}))
            steps.append(Step(name="natives activation", outcome=nat))
        else:
            die = dice.roll("natives activation")
            activated = die.total <= n.tolerance
            nat = {"tested": True, "tolerance": n.tolerance, "activated": activated}
            steps.append(Step(name="natives activation", dice=(die,), total=die.total, outcome=nat,
                              table_cell=TableCell(table="Natives activation", row=str(die.total),
                                                   column=f"tolerance {n.tolerance}",
                                                   value="activated" if activated else "quiet")))
            if activated:
                effects.append(Effect(kind="battle_forced", target=n.province,
                                      detail={"interceptor": "natives", "as": "interception battle"}))
        outcome["natives"] = nat
        summary.append("natives activated" if nat["activated"] else "natives quiet")

    return EU.ruling("M9", i, steps=tuple(steps), outcome=outcome, effects=tuple(effects),
                     summary="; ".join(summary))


# --------------------------------------------------------------------------- M10


class MovementAttritionInputs(LandStackInputs):
    """A land stack rolling movement attrition (M9 decided that it rolls and its causes)."""

    causes: int = Field(ge=1, le=6, description="Causes of attrition (M9 cause_count)")
    commander_man: int = Field(default=0, ge=0, le=9, description="MAN of the commanding leader (0 without)")
    no_los_at_start: bool = False
    strait_fortifications: list[StraitFortification] = Field(
        default_factory=list, description="Closed strait fortifications on the naval LoS at the start of the move"
    )
    entered_enemy_province: bool = False
    path_minus_markers: int = Field(
        default=0, ge=0, le=40, description="Pillage-/Revolt-/unfriendly Rebellion- in every province exited or entered"
    )
    path_plus_markers: int = Field(
        default=0, ge=0, le=40, description="Pillage+/Revolt+/unfriendly Rebellion+ in every province exited or entered"
    )
    snowflakes: int = Field(
        default=0, ge=0, le=40, description="Snowflakes summed over uncontrolled ROTW cold-area provinces of the path"
    )
    pillage_province: ProvincePillage = Field(
        default_factory=ProvincePillage, description="Province of the move chosen for a 'P' Pillage-, with its markers"
    )


def movement_attrition_modifiers(i: MovementAttritionInputs) -> list[Modifier]:
    """M10 modifier list (eu-military-rules.tex §Attrition, Land)."""
    r = "eu:M10"
    mods: list[Modifier] = []
    if i.causes > 1:
        mods.append(Modifier(value=2 * (i.causes - 1), reason=f"{i.causes - 1} cause(s) of attrition above the first", rule=r, section=SEC_ATTR))
    if i.commander_man:
        mods.append(Modifier(value=-i.commander_man, reason="MAN of the commanding leader", rule=r, section=SEC_ATTR))
    if i.no_los_at_start:
        mods.append(Modifier(value=2, reason="no line of supply at the beginning of the move", rule=r, section=SEC_ATTR))
    strait = sum(f.drm for f in i.strait_fortifications)
    if strait:
        mods.append(Modifier(value=strait, reason="closed strait fortifications on the naval LoS", rule=r, section=SEC_ATTR))
    if i.entered_enemy_province:
        mods.append(Modifier(value=2, reason="entered at least one enemy province", rule=r, section=SEC_ATTR))
    if i.path_minus_markers:
        mods.append(Modifier(value=i.path_minus_markers, reason=f"{i.path_minus_markers} Pillage-/Revolt-/Rebellion- along the path", rule=r, section=SEC_ATTR))
    if i.path_plus_markers:
        mods.append(Modifier(value=2 * i.path_plus_markers, reason=f"{i.path_plus_markers} Pillage+/Revolt+/Rebellion+ along the path", rule=r, section=SEC_ATTR))
    if i.snowflakes:
        mods.append(Modifier(value=i.snowflakes, reason="snowflakes of the ROTW cold area along the path", rule=r, section=SEC_ATTR))
    return mods


@EU.procedure("M10", title="Movement attrition on land", seed=SEC_ATTR, inputs=MovementAttritionInputs,
              options=("remainders_version",))
def resolve_movement_attrition(inputs: MovementAttritionInputs, dice: DiceSource) -> Ruling:
    """M10: Europe column by stack size with 'P' by technology, or the ROTW percentage
    through the remainders table by 10-LD blocks."""
    i = inputs
    mods = movement_attrition_modifiers(i)
    die = dice.roll("movement attrition")
    total = die.total + sum_modifiers(mods)
    res = land_attrition_result(
        total, area=i.area, ld=i.ld, lde=i.lde, dice=dice, technology=i.technology, context="movement",
        p_choice=i.p_choice, province=i.pillage_province, version=i.remainders_version,
        country=i.country, stack=i.stack, purpose="movement attrition",
    )
    return EU.ruling(
        "M10", i, modifiers=tuple(mods), dice=(die, *res.dice), total=total, table_cell=res.table_cells[0],
        outcome={**res.outcome, "table_cells": [c.model_dump(mode="json") for c in res.table_cells]},
        effects=res.effects, summary=f"movement attrition {total}: {res.summary}",
    )


# --------------------------------------------------------------------------- M11

_READING_TOKEN = re.compile(r"^(?P<kind>[RD])(?P<pct>\d{1,3})$")


def parse_conquistador_reading(text: str) -> dict:
    """'R30/D80' → {'R': 30, 'D': 80}; '—' → R0 (all resist); '†' → R100 (none resist)."""
    out: dict[str, int] = {}
    for raw in text.replace(" ", "").split("/"):
        if raw in {"—", "-", "---", "–"}:
            token = ("R", 0)
        elif raw in {"†", "dagger"}:
            token = ("R", 100)
        else:
            m = _READING_TOKEN.match(raw.upper())
            if not m:
                raise RulesError(f"unreadable Conquistador reading {text!r}", field="gm_reading", rule="eu:M11")
            token = (m["kind"], int(m["pct"]))
        kind, pct = token
        if pct > 100 or pct % 10:
            raise RulesError(f"percentage {pct} is not 0..100 by tens", field="gm_reading", rule="eu:M11")
        if kind in out:
            raise RulesError(f"{kind} given twice in {text!r}", field="gm_reading", rule="eu:M11")
        out[kind] = pct
    if not out:
        raise RulesError("empty Conquistador reading", field="gm_reading", rule="eu:M11")
    return out


class ConquistadorInputs(BaseModel):
    """A leader tries the Conquistador table on the natives of a ROTW province (not yet activated)."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80)
    province: ProvinceName | None = None
    natives_ld: int = Field(ge=0, le=60, description="LD of natives in the province")
    leader_kind: Literal["conquistador", "explorer"] = "conquistador"
    leader_stats_sum: int = Field(ge=0, le=30, description="Sum of the leader's values")
    previous_uses_in_area: int = Field(default=0, ge=0, le=30, description="Previous uses of the table in the Area")
    missionary_in_stack: bool = False
    stack_ld: int = Field(default=0, ge=0, le=60, description="LD in the stack (4+ gives +1)")
    stack_has_army: bool = Field(default=False, description="An ARMY counter of an actual country in the stack")
    gm_reading: str = Field(
        min_length=1, max_length=20,
        description="The Conquistador table cell read by the game master: '—', '†', 'Rxx', 'Dxx' or 'Rxx/Dxx'",
    )
    gm_reading_total: int | None = Field(
        default=None, ge=-20, le=40, description="Modified roll the game master read the cell for (checked)"
    )
    remainders_version: RemaindersVersion = "2016"

    @field_validator("gm_reading")
    @classmethod
    def _reading(cls, v: str) -> str:
        parse_conquistador_reading(v)
        return v


def leader_column(i: ConquistadorInputs) -> int:
    """Column of the table: the leader's sum of values (explorers: half, rounded down)."""
    return i.leader_stats_sum // 2 if i.leader_kind == "explorer" else i.leader_stats_sum


def conquistador_modifiers(i: ConquistadorInputs) -> list[Modifier]:
    r = "eu:M11"
    mods: list[Modifier] = []
    if i.previous_uses_in_area:
        mods.append(Modifier(value=i.previous_uses_in_area, reason="previous uses of the table in the Area", rule=r, section=SEC_CONQ))
    if i.missionary_in_stack:
        mods.append(Modifier(value=-1, reason="missionary in the stack", rule=r, section=SEC_CONQ))
    if i.stack_ld >= 4:
        mods.append(Modifier(value=1, reason="stack of at least 4 LD", rule=r, section=SEC_CONQ))
    if not i.stack_has_army:
        mods.append(Modifier(value=-1, reason="no ARMY counter in the stack", rule=r, section=SEC_CONQ))
    if i.leader_stats_sum <= 6:
        mods.append(Modifier(value=1, reason="leader's sum of values 6 or less", rule=r, section=SEC_CONQ))
    return mods


@EU.procedure("M11", title="Conquistador table", seed=SEC_CONQ, inputs=ConquistadorInputs,
              options=("remainders_version",))
def resolve_conquistador(inputs: ConquistadorInputs, dice: DiceSource) -> Ruling:
    """M11: 1d10 + modifiers; the cell (table absent from the sources) is the game
    master's reading; Dxx then Ryy go through the remainders table on the natives."""
    i = inputs
    mods = conquistador_modifiers(i)
    die = dice.roll("conquistador table")
    total = die.total + sum_modifiers(mods)
    if i.gm_reading_total is not None and i.gm_reading_total != total:
        raise RulesError(
            f"the reading was given for a modified roll of {i.gm_reading_total}, the roll is {total}",
            field="gm_reading_total", rule="eu:M11")
    reading = parse_conquistador_reading(i.gm_reading)
    natives = to_thirds(i.natives_ld)
    steps: list[Step] = [Step(name="conquistador roll", modifiers=tuple(mods), dice=(die,), total=total,
                              table_cell=TableCell(table="Conquistadors Effects", row=str(total),
                                                   column=str(leader_column(i)), value=i.gm_reading),
                              outcome={"reading": reading})]
    deserters = 0
    if "D" in reading:  # the D is applied first
        rem = apply_remainders(natives, reading["D"], dice, version=i.remainders_version, purpose="conquistador D")
        deserters = rem.thirds_left
        steps.append(Step(name=f"deserters D{reading['D']}", dice=rem.dice,
                          table_cell=rem.cells[0] if rem.cells else None, outcome=rem.outcome()))
    resisters = 0
    if "R" in reading:
        rem = apply_remainders(natives, reading["R"], dice, version=i.remainders_version, purpose="conquistador R")
        # Deserters are gone first: at most the natives still there resist (DECISIONS.md, M11).
        resisters = min(rem.thirds_left, natives - deserters)
        steps.append(Step(name=f"resisters R{reading['R']}", dice=rem.dice,
                          table_cell=rem.cells[0] if rem.cells else None, outcome=rem.outcome()))
    eliminated = natives - deserters - resisters
    f = lambda t: Fraction(t, 3)  # noqa: E731 - thirds to LD
    effects: list[Effect] = []
    if deserters:
        effects.append(Effect(kind="note", country=i.country, target=i.stack, amount=f(deserters), detail={
            "event": "natives desert and join the stack", "natives_ld": str(f(deserters)),
            "constraints": "stay with the leader, no naval transport, disbanded at end of turn"}))
    if eliminated:
        effects.append(Effect(kind="ld_lost", country="natives", target=i.province, amount=f(eliminated),
                              detail={"cause": "conquistador table", "returns": "end of turn, normal rules"}))
    if resisters:
        effects.append(Effect(kind="battle_forced", target=i.province, amount=f(resisters), detail={
            "interceptor": "natives", "natives_ld": str(f(resisters)), "as": "interception battle"}))
    outcome = {
        "natives_activated": True,
        "leader_column": leader_column(i),
        "deserters": str(f(deserters)),
        "resisters": str(f(resisters)),
        "eliminated": str(f(eliminated)),
    }
    summary = (f"conquistador {total} ({i.gm_reading}): {f(deserters)} desert, "
               f"{f(resisters)} resist, {f(eliminated)} eliminated")
    all_dice = tuple(d for s in steps for d in s.dice)
    return EU.ruling("M11", i, modifiers=tuple(mods), dice=all_dice, total=total, table_cell=steps[0].table_cell,
                     steps=tuple(steps), outcome=outcome, effects=tuple(effects),
                     gm_supplied=("gm_reading",), summary=summary)
