"""M14 Land interception and M15 Sea interception (eu-military-rules.tex §Interception).

Both: 1d10 + modifiers; success on an unmodified 10 or a modified 8 or more. Eligibility by
the campaign paid at the previous impulse is checked first: an ineligible stack rolls no die
and the ruling records the ineligibility as its outcome.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, TableCell, load_table
from ledger.rules.eu import EU

SEC_GEN = "eu-military-rules.tex §Interception / Generalities"
SEC_LAND = "eu-military-rules.tex §Interception / Land"
SEC_SEA = "eu-military-rules.tex §Interception / Sea"

Campaign = Literal["none", "passive", "active", "active_without_logistics", "major", "multiple"]


def _table() -> dict:
    return load_table("ledger.rules.eu", "interception_rules.toml")


def _succeeds(die: int, total: int) -> tuple[bool, str]:
    t = _table()
    if die == t["automatic_die"]:
        return True, "unmodified 10"
    if total >= t["success_at"]:
        return True, f"modified roll {total} ≥ {t['success_at']}"
    return False, f"modified roll {total} < {t['success_at']}"


def _campaign_class(campaign: str, first_round_no_impulse: bool) -> str:
    # First round of the turn, no impulse yet: treated as a passive campaign (seed, Land/Sea).
    if first_round_no_impulse:
        return "passive"
    return "none" if campaign == "none" else "passive" if campaign == "passive" else "active"


# --------------------------------------------------------------------------- M14 land


class LandInterceptionInputs(BaseModel):
    """What the game master knows when a land stack tries to intercept (M14)."""

    model_config = ConfigDict(extra="forbid")

    interceptor_man: int = Field(ge=0, le=9, description="MAN of the commander of the intercepting stack")
    target_man: int = Field(ge=0, le=9, description="MAN of the commander of the intercepted stack")
    last_campaign: Campaign = Field(description="Campaign the interceptor's country paid at its previous impulse")
    first_round_no_impulse_yet: bool = Field(
        default=False, description="First round of the turn and the country had no impulse yet (counts as passive)"
    )
    target_province_friendly: bool = Field(
        default=True, description="Target province has no enemy presence at all, even besieged (passive campaigns)"
    )
    counter_interception: bool = Field(default=False, description="A phasing stack counter-intercepts")
    engaged_in_battle: bool = Field(default=False, description="Interceptor is already engaged in a battle to come")
    fought_without_winning_this_impulse: bool = Field(
        default=False, description="Interceptor already fought a battle this impulse without winning it"
    )
    locked_with_phasing_stack: bool = Field(
        default=False, description="Interceptor shares its province with a non-besieged, non-moving phasing stack"
    )
    tech_advantage_6_levels: bool = Field(default=False, description="Interceptor's technology ≥ 6 levels above the target's")
    friendly_force_or_city_in_target: bool = Field(
        default=False, description="Target province holds another friendly force or a city (even besieged)"
    )
    same_province: bool = Field(default=False, description="Intercepting in the interceptor's own province")
    target_swamp: bool = Field(default=False, description="Target province contains swamps")
    interceptor_in_swamp_or_flooded: bool = Field(default=False, description="Interceptor is in a swamp or flooded province")
    bad_weather: bool = Field(default=False)
    across_river_or_pass: bool = Field(default=False, description="Interception across a river or mountain pass")
    other_unbesieged_enemy_in_target: bool = Field(
        default=False, description="Target province holds an unbesieged enemy force other than the intercepted one"
    )
    interceptor_besieging: bool = Field(default=False)
    european_country: bool = Field(default=True, description="The intercepting side has troops of a European country")
    side_ld: int | None = Field(
        default=None, ge=0, le=60,
        description="LD of the side once all interceptions succeed; without it the fight limit is stated, not computed",
    )
    side_pashas: int = Field(default=0, ge=0, le=10, description="Pashas of that side")


def land_modifiers(i: LandInterceptionInputs) -> list[Modifier]:
    """The M14 modifier list, all cumulative; only those that apply are listed."""
    t = _table()["land"]
    m: list[Modifier] = []

    def add(value: int, reason: str) -> None:
        m.append(Modifier(value=value, reason=reason, rule="eu:M14", section=SEC_LAND))

    diff = i.interceptor_man - i.target_man
    if diff:
        label = "merged interceptors' commander" if i.counter_interception else "interceptor"
        add(diff, f"MAN differential ({label} {i.interceptor_man} − target {i.target_man})")
    if i.tech_advantage_6_levels:
        add(t["tech_advantage"], "technology at least 6 levels above the target's")
    if i.friendly_force_or_city_in_target:
        add(t["friendly_in_target"], "friendly force or city in the target province")
    if i.same_province:
        add(t["same_province"], "intercepting in the same province")
    if i.target_swamp:
        add(t["target_swamp"], "target province contains swamps")
    if i.interceptor_in_swamp_or_flooded:
        add(t["interceptor_swamp"], "interceptor in a swamp or flooded province")
    if i.bad_weather:
        add(t["bad_weather"], "bad weather")
    if i.across_river_or_pass:
        add(t["river_or_pass"], "across a river or mountain pass")
    if i.other_unbesieged_enemy_in_target:
        add(t["other_enemy"], "another unbesieged enemy force in the target province")
    if i.interceptor_besieging:
        add(t["besieging"], "interceptor is besieging")
    return m


def land_ineligibility(i: LandInterceptionInputs) -> str | None:
    campaign = _campaign_class(i.last_campaign, i.first_round_no_impulse_yet)
    if campaign == "none":
        return "no campaign at the previous impulse: the stack may not intercept at all"
    if campaign == "passive" and not i.target_province_friendly:
        return "passive campaign: interception only into a friendly province (no enemy presence, even besieged)"
    if i.engaged_in_battle:
        return "a stack already engaged in a battle may not intercept"
    if i.locked_with_phasing_stack:
        return "a stack sharing its province with a non-besieged, non-moving phasing stack is engaged in battle"
    if i.fought_without_winning_this_impulse:
        return "a stack that fought without winning this impulse may not intercept"
    return None


def fight_limit(european: bool, ld: int | None, pashas: int) -> dict:
    """Troops of a European country beyond 8 LD + 2 Pashas do not fight (M14). Without the side's LD the
    limit is stated as the rule, never as "0 LD fight"."""
    t = _table()["fight_limit"]
    if ld is None:
        rule = f"at most {t['ld']} LD and {t['pashas']} Pashas fight" if european else "every troop fights"
        return {"rule": rule, "fighting_ld": None, "side_ld": "not given"}
    if not european:
        return {"fighting_ld": ld, "fighting_pashas": pashas, "idle_ld": 0, "idle_pashas": 0}
    return {
        "fighting_ld": min(ld, t["ld"]),
        "fighting_pashas": min(pashas, t["pashas"]),
        "idle_ld": max(0, ld - t["ld"]),
        "idle_pashas": max(0, pashas - t["pashas"]),
    }


@EU.procedure(
    "M14",
    title="Land interception",
    seed="eu-military-rules.tex §Interception (Land)",
    inputs=LandInterceptionInputs,
)
def resolve_land_interception(inputs: LandInterceptionInputs, dice: DiceSource) -> Ruling:
    """M14: eligibility, then 1d10 + modifiers; unmodified 10 or ≥ 8 succeeds."""
    kind = "counter-interception" if inputs.counter_interception else "interception"
    reason = land_ineligibility(inputs)
    if reason:
        return EU.ruling(
            "M14",
            inputs,
            outcome={"eligible": False, "success": False, "reason": reason, "kind": kind},
            summary=f"Land {kind} not allowed: {reason}",
        )
    mods = land_modifiers(inputs)
    die = dice.roll(f"land {kind}")
    total = die.total + sum(m.value for m in mods)
    success, why = _succeeds(die.total, total)
    limit = fight_limit(inputs.european_country, inputs.side_ld, inputs.side_pashas)
    outcome = {
        "eligible": True,
        "success": success,
        "reason": why,
        "kind": kind,
        "unmodified_die": die.total,
        "battle": "immediate interception battle" if success else None,
        "fight_limit": limit if success else None,
        "one_alliance_per_zone": success,
        "counter_interception_allowed": success and not inputs.counter_interception,
    }
    effects = []
    if success:
        effects.append(Effect(kind="interception_succeeded", detail={"kind": kind, "moves_into_target": True}))
        effects.append(Effect(kind="battle_forced", detail={"type": "interception battle", **limit}))
    return EU.ruling(
        "M14",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Interception", row=str(total), column="land", value="success" if success else "failure"),
        outcome=outcome,
        effects=tuple(effects),
        summary=f"Land {kind}: die {die.total}, total {total} → {'success' if success else 'failure'} ({why})",
    )


# --------------------------------------------------------------------------- M15 sea


class SeaInterceptionInputs(BaseModel):
    """What the game master knows when a naval stack tries to intercept (M15)."""

    model_config = ConfigDict(extra="forbid")

    interceptor_man: int = Field(ge=0, le=9, description="MAN of the intercepting admiral (pirates without admiral: 2)")
    target_man: int = Field(ge=0, le=9, description="MAN of the intercepted admiral")
    last_campaign: Campaign
    first_round_no_impulse_yet: bool = False
    interceptor_fleets: int = Field(default=1, ge=0, le=20, description="FLEET counters in the intercepting stack")
    engaged_in_battle: bool = False
    lost_battle_this_impulse: bool = False
    target_blockading: bool = Field(default=False, description="The target is blockading: automatic success")
    forced_battle_after_failed_escape: bool = Field(
        default=False, description="The target failed a blockade escape with 5 or less: automatic success"
    )
    mutual_interception: bool = Field(default=False, description="Both stacks want to intercept each other: automatic")
    tech_advantage_6_levels: bool = False
    bad_weather: bool = False
    interceptor_blockading: bool = False
    interceptor_three_decker_or_better: bool = Field(default=False, description="Technology Three-decker (TD) or 74s")
    same_sea_zone: bool = False
    landing_close_by: bool = Field(
        default=False,
        description="Target announced a landing from the interceptor's sea zone, in the province of its port, "
        "or from a sea zone adjacent to its arsenal",
    )
    interceptor_in_port: bool = Field(default=False, description="Interceptor at port (not an arsenal)")
    interceptor_in_arsenal: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> "SeaInterceptionInputs":
        if self.interceptor_in_port and self.interceptor_in_arsenal:
            raise ValueError("interceptor_in_port means a port that is not an arsenal: not both")
        if self.same_sea_zone and (self.interceptor_in_port or self.interceptor_in_arsenal):
            raise ValueError("a stack at port or in an arsenal is not in the sea zone (same_sea_zone)")
        return self


def sea_modifiers(i: SeaInterceptionInputs) -> list[Modifier]:
    """Cumulative modifiers, then at most one non-cumulative one.

    Non-cumulative reading (DECISIONS.md, M15): the landing +2 replaces everything else in the
    list (Cornwall: the port −3 'disappears, replaced by +2'; Celtic Sea: the +1 'is replaced by
    +2'); failing that, the port −3; failing that, +1 for the same sea zone or TTD (never +2).
    """
    t = _table()["sea"]
    m: list[Modifier] = []

    def add(value: int, reason: str) -> None:
        m.append(Modifier(value=value, reason=reason, rule="eu:M15", section=SEC_SEA))

    diff = i.interceptor_man - i.target_man
    if diff:
        add(diff, f"MAN differential (interceptor {i.interceptor_man} − target {i.target_man})")
    if i.tech_advantage_6_levels:
        add(t["tech_advantage"], "technology at least 6 levels above the target's")
    if i.bad_weather:
        add(t["bad_weather"], "bad weather")
    if i.interceptor_blockading:
        add(t["blockading"], "interceptor is blockading")
    # One non-cumulative modifier at most.
    if i.landing_close_by:
        add(t["landing"], "landing announced close by (non-cumulative; replaces port −3 / +1)")
    elif i.interceptor_in_port:
        add(t["port"], "interceptor in a port, not an arsenal (non-cumulative)")
    elif i.same_sea_zone:
        add(t["same_zone"], "intercepting in the same sea zone (non-cumulative)")
    elif i.interceptor_three_decker_or_better:
        add(t["three_decker"], "technology Three-decker or better (non-cumulative)")
    return m


def sea_ineligibility(i: SeaInterceptionInputs) -> str | None:
    campaign = _campaign_class(i.last_campaign, i.first_round_no_impulse_yet)
    if campaign == "none":
        return "no campaign at the previous impulse: the stack may not intercept at all"
    if campaign == "passive" and i.interceptor_fleets > _table()["sea"]["passive_max_fleets"]:
        return "passive campaign: only stacks of at most 1 FLEET may intercept"
    if i.engaged_in_battle:
        return "a stack already engaged in a battle may not intercept"
    if i.lost_battle_this_impulse:
        return "a stack that lost a battle this impulse may not intercept"
    return None


@EU.procedure(
    "M15",
    title="Sea interception",
    seed="eu-military-rules.tex §Interception (Sea)",
    inputs=SeaInterceptionInputs,
)
def resolve_sea_interception(inputs: SeaInterceptionInputs, dice: DiceSource) -> Ruling:
    """M15: eligibility; automatic success against a blockading target (or a forced battle, or a
    mutual interception); otherwise 1d10 + modifiers, unmodified 10 or ≥ 8 succeeds."""
    reason = sea_ineligibility(inputs)
    if reason:
        return EU.ruling(
            "M15",
            inputs,
            outcome={"eligible": False, "success": False, "reason": reason},
            summary=f"Sea interception not allowed: {reason}",
        )
    automatic = (
        "target is blockading" if inputs.target_blockading
        else "forced battle after a failed blockade escape" if inputs.forced_battle_after_failed_escape
        else "both stacks intercept each other" if inputs.mutual_interception
        else None
    )
    effects = (
        Effect(kind="interception_succeeded", detail={"kind": "sea interception"}),
        Effect(kind="battle_forced", detail={"type": "naval interception battle"}),
    )
    if automatic:
        return EU.ruling(
            "M15",
            inputs,
            outcome={"eligible": True, "success": True, "reason": f"automatic: {automatic}", "automatic": True},
            effects=effects,
            summary=f"Sea interception succeeds automatically ({automatic})",
        )
    mods = sea_modifiers(inputs)
    die = dice.roll("sea interception")
    total = die.total + sum(m.value for m in mods)
    success, why = _succeeds(die.total, total)
    return EU.ruling(
        "M15",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Interception", row=str(total), column="sea", value="success" if success else "failure"),
        outcome={
            "eligible": True,
            "success": success,
            "reason": why,
            "automatic": False,
            "unmodified_die": die.total,
            "counter_interception_allowed": False,
        },
        effects=effects if success else (),
        summary=f"Sea interception: die {die.total}, total {total} → {'success' if success else 'failure'} ({why})",
    )
