"""Peace phase (P3–P6): peace differential, permitted peaces and their conditions,
peace with a minor, and the consequences of a peace.

Seed: eu-redeployment-peace-interphase.tex, sections "The Formal Peace",
"Transfers of Provinces by Peaces", "Alliances of Major Powers", "General
Consequences of the Peace" and "Peace with Minor powers". Numbers live in
``tables/peace.toml``. Only P5 rolls a die; P3, P4 and P6 are deterministic
rulings. (P1, P2 — stability improvement and prosperity — are another module's.)
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step, TableCell, load_table, sum_modifiers
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import MINOR_TYPES, CountryCode, MajorCode, ProvinceName
from ledger.rules.names import board_countries, not_among, vocabulary

SEED = "eu-redeployment-peace-interphase.tex"
SEC_PD = f"{SEED} §The Formal Peace (Peace Differential)"
SEC_PERMITTED = f"{SEED} §The Formal Peace (Peaces that are permitted)"
SEC_MINOR = f"{SEED} §Peace with Minor powers"
SEC_TRANSFER = f"{SEED} §Transfers of Provinces by Peaces"
SEC_SEPARATE = f"{SEED} §Separate Peace"
SEC_CONSEQUENCES = f"{SEED} §General Consequences of the Peace"

Country = CountryCode
#: A name the game master gives (an alliance), shown, never looked up.
Label = Annotated[str, Field(min_length=1, max_length=40)]
Place = Annotated[str, Field(min_length=1, max_length=80)]
Count = Annotated[int, Field(ge=0, le=99)]
Ducats = Annotated[int, Field(ge=0, le=100_000)]
Stab = Annotated[int, Field(ge=-3, le=3)]
Side = Literal["a", "b"]
Condition = Literal["cession", "indemnity", "diplomatic"]


class _Inputs(BaseModel):
    model_config = ConfigDict(extra="forbid")


@cache
def peace_data() -> dict:
    return load_table("ledger.rules.eu", "peace.toml")


def _mod(value: int, reason: str, code: str, section: str) -> Modifier:
    return Modifier(value=value, reason=reason, rule=f"eu:{code}", section=section)


def _other(side: Side) -> Side:
    return "b" if side == "a" else "a"


# =========================================================================== P3


def alliance_stability(stabilities: list[int]) -> int:
    """P3: average of the allied majors' stability, to the nearest, halves down."""
    mean = Fraction(sum(stabilities), len(stabilities))
    return math.ceil(mean - Fraction(1, 2))


def military_bonus(difference: Fraction) -> int:
    """P3: +1 / +2 / +3 for at least 2 / 4 / 6 more provinces held."""
    for step in peace_data()["military_situation"]:
        if difference >= step["at_least"]:
            return step["bonus"]
    return 0


class AllianceSituation(_Inputs):
    name: Label = Field(description="The alliance (or its leading power)")
    major_stabilities: list[Stab] = Field(min_length=1, max_length=8, description="STAB of each major of the alliance")
    provinces_held: Count = Field(0, description="Enemy provinces controlled (capitals and COL/TP apart)")
    capitals_held: Count = Field(0, description="Capital cities of enemy majors controlled (count 2)")
    settlements_held: Count = Field(0, description="Enemy COL/TP controlled (half, full in overseas wars)")
    privateer_fleets: Count = Field(
        0, description="Enemy commercial fleets of level ≥ 4 reduced to 0/1 by this side's privateers this turn"
    )
    privateer_fleets_in_enemy_ctz: Count = Field(0, description="The same, in the enemy's CTZ (count 2)")


class PeaceDifferentialInputs(_Inputs):
    side_a: AllianceSituation
    side_b: AllianceSituation
    overseas_war: bool = False


def provinces_count(s: AllianceSituation, overseas: bool) -> Fraction:
    """P3: provinces held for the military situation (exact: COL/TP may count half)."""
    d = peace_data()
    settlement = Fraction(d["settlement_counts_overseas"] if overseas else d["settlement_counts"])
    count = s.provinces_held + d["capital_counts"] * s.capitals_held + settlement * s.settlements_held
    if overseas or not d["privateer_effect_overseas_only"]:
        count += (d["privateer_fleet_counts"] * s.privateer_fleets
                  + d["privateer_fleet_in_enemy_ctz_counts"] * s.privateer_fleets_in_enemy_ctz)
    return Fraction(count)


@EU.procedure("P3", title="Peace differential", seed=SEC_PD, inputs=PeaceDifferentialInputs)
def resolve_peace_differential(i: PeaceDifferentialInputs, dice: DiceSource) -> Ruling:
    """P3: each alliance's stability plus its military situation; PD = the difference."""
    counts = {"a": provinces_count(i.side_a, i.overseas_war), "b": provinces_count(i.side_b, i.overseas_war)}
    steps = []
    scores: dict[str, int] = {}
    for key, side in (("a", i.side_a), ("b", i.side_b)):
        stab = alliance_stability(side.major_stabilities)
        bonus = military_bonus(counts[key] - counts[_other(key)])
        mods = [_mod(stab, f"alliance stability (average of {side.major_stabilities}, halves down)", "P3", SEC_PD)]
        if bonus:
            diff = counts[key] - counts[_other(key)]
            mods.append(_mod(bonus, f"military situation: {diff} more province(s) held", "P3", SEC_PD))
        scores[key] = stab + bonus
        steps.append(Step(name=f"alliance {side.name}", side=key, modifiers=tuple(mods), total=scores[key],
                          outcome={"stability": stab, "provinces_held": str(counts[key]), "military_bonus": bonus}))
    pd = abs(scores["a"] - scores["b"])
    dominant = None if pd == 0 else ("a" if scores["a"] > scores["b"] else "b")
    name = {"a": i.side_a.name, "b": i.side_b.name}
    outcome = {"pd": pd, "dominant": dominant, "dominant_name": name.get(dominant or ""), "scores": scores}
    return EU.ruling("P3", i, steps=tuple(steps), total=pd, outcome=outcome,
                     summary=f"PD {pd}" + (f" in favour of {name[dominant]}" if dominant else " (balanced)"))


# =========================================================================== P4


class MajorOccupation(_Inputs):
    country: MajorCode
    side: Side
    capitals_controlled_by_enemy: bool = Field(description="Its capital (or both capitals) controlled by enemies")
    national_provinces: int = Field(ge=1, le=200)
    national_provinces_controlled_by_enemy: int = Field(ge=0, le=200)
    consecutive_turns_at_minus_3: int = Field(0, ge=0, le=50, description="Turns at STAB −3 against this enemy")
    russia_underdeveloped: bool = Field(False, description="Under-developed Russia (constrained after 3 turns)")

    @model_validator(mode="after")
    def _check(self) -> MajorOccupation:
        if self.national_provinces_controlled_by_enemy > self.national_provinces:
            raise ValueError("national_provinces_controlled_by_enemy: more than its national provinces")
        return self


class PeaceProposal(_Inputs):
    type: Literal["white", "negotiated", "conditional", "unconditional"]
    level: int = Field(ge=0, le=5, description="0 white, 1 negotiated, 1–5 conditional; ignored if unconditional")
    winner: Side | None = Field(None, description="The victorious side (none for a white peace)")
    conditions: list[Condition] = Field(default_factory=list, max_length=3)
    payer: MajorCode | None = Field(None, description="Losing major paying the indemnities")
    receiver: Country | None = Field(None, description="Victorious power receiving them")
    paid_now: int | None = Field(None, ge=0, le=10_000, description="Ducats paid now (default: all)")

    @model_validator(mode="after")
    def _check(self) -> PeaceProposal:
        if self.type == "white" and (self.level or self.winner or self.conditions):
            raise ValueError("type: a white peace has level 0, no winner and no condition")
        if self.type != "white" and self.winner is None:
            raise ValueError("winner: required except for a white peace")
        if self.type == "negotiated" and self.level != 1:
            raise ValueError("level: a negotiated peace is of level 1")
        if self.type == "conditional" and self.level < 1:
            raise ValueError("level: a conditional peace is of level 1 to 5")
        if "indemnity" in self.conditions and not (self.payer and self.receiver):
            raise ValueError("payer: indemnities need a payer and a receiver")
        return self

    @property
    def level_key(self) -> str:
        return "U" if self.type == "unconditional" else str(self.level)


class PermittedPeaceInputs(_Inputs):
    pd: int = Field(ge=0, le=20, description="Peace differential (P3)")
    dominant: Side | None = Field(None, description="The side with the highest score (P3); none when PD is 0")
    majors: list[MajorOccupation] = Field(default_factory=list, max_length=16)
    proposal: PeaceProposal | None = None

    @model_validator(mode="after")
    def _check(self) -> PermittedPeaceInputs:
        if (self.pd == 0) != (self.dominant is None):
            raise ValueError("dominant: a side dominates exactly when the PD is not 0")
        return self


def unconditional_against(m: MajorOccupation) -> bool:
    """P4: capital(s) and half the national provinces (rounded up) held by enemies."""
    return m.capitals_controlled_by_enemy and m.national_provinces_controlled_by_enemy >= -(-m.national_provinces // 2)


def constrained(m: MajorOccupation) -> bool:
    d = peace_data()
    turns = d["constrained_turns_russia_underdeveloped"] if m.russia_underdeveloped else d["constrained_turns_at_minus_3"]
    return m.consecutive_turns_at_minus_3 >= turns


def permitted_peaces(pd: int, dominant: Side | None, majors: list[MajorOccupation]) -> list[dict]:
    """P4: every peace the situation allows, as {type, level, winner}."""
    d = peace_data()
    out: list[dict] = []
    if pd <= d["white_or_negotiated_max_pd"]:
        out.append({"type": "white", "level": 0, "winner": None})
        out += [{"type": "negotiated", "level": 1, "winner": s} for s in ("a", "b")]
    if dominant:
        out += [{"type": "conditional", "level": lv, "winner": dominant}
                for lv in range(1, min(pd, d["max_conditional_level"]) + 1)]
    for loser in ("a", "b"):
        if any(unconditional_against(m) for m in majors if m.side == loser):
            out.append({"type": "unconditional", "level": 5, "winner": _other(loser)})
    return out


def worst_losing_peace(loser: Side, pd: int, dominant: Side | None, majors: list[MajorOccupation]) -> dict:
    """P4 constrained peace: the worst peace authorised against ``loser``."""
    if any(unconditional_against(m) for m in majors if m.side == loser):
        return {"type": "unconditional", "level": 5, "winner": _other(loser)}
    if dominant == _other(loser):
        return {"type": "conditional", "level": min(pd, peace_data()["max_conditional_level"]), "winner": dominant}
    return {"type": "white", "level": 0, "winner": None}


def indemnity_total(proposal: PeaceProposal) -> int:
    return peace_data()["levels"][proposal.level_key]["indemnity"] * proposal.conditions.count("indemnity")


@EU.procedure("P4", title="Permitted peaces and conditions", seed=SEC_PERMITTED, inputs=PermittedPeaceInputs)
def resolve_permitted_peace(i: PermittedPeaceInputs, dice: DiceSource) -> Ruling:
    """P4: which peaces are allowed, constrained peaces, and a proposal's conditions."""
    d = peace_data()
    allowed = permitted_peaces(i.pd, i.dominant, i.majors)
    constrained_sides = sorted({m.side for m in i.majors if constrained(m)})
    outcome: dict = {"permitted": allowed, "constrained": {}}
    for side in constrained_sides:
        outcome["constrained"][side] = worst_losing_peace(side, i.pd, i.dominant, i.majors)
    if len(constrained_sides) == 2:
        outcome["mandatory"] = {"type": "conditional" if i.pd else "white", "level": min(i.pd, 5),
                                "winner": i.dominant, "reason": "both alliances constrained: peace at the current PD"}
    effects: list[Effect] = []
    summary = f"PD {i.pd}: {len(allowed)} peace(s) permitted"
    if i.proposal:
        p = i.proposal
        wanted = {"type": p.type, "level": 5 if p.type == "unconditional" else p.level, "winner": p.winner}
        reasons = []
        if wanted not in allowed:
            reasons.append(f"{p.type} peace of level {wanted['level']} is not permitted at PD {i.pd}")
        max_conditions = d["levels"][p.level_key]["conditions"] if p.type != "white" else 0
        if len(p.conditions) > max_conditions:
            reasons.append(f"at most {max_conditions} condition(s) at this level")
        ok = not reasons
        total = indemnity_total(p) if ok else 0
        paid = min(total, total if p.paid_now is None else p.paid_now)
        outcome["proposal"] = {"permitted": ok, "reasons": reasons, "indemnity": total, "paid_now": paid,
                               "outstanding": total - paid, "due_within_turns": d["indemnity_turns"]}
        if ok:
            effects.append(Effect(kind="peace", detail={"type": p.type, "level": wanted["level"], "winner": p.winner,
                                                        "conditions": list(p.conditions)}))
            if paid:
                effects += [
                    Effect(kind="ducats", country=p.payer, ers_line="A30", amount=Fraction(-paid),
                           detail={"reason": "war indemnity paid"}),
                    Effect(kind="ducats", country=p.receiver, ers_line="A30", amount=Fraction(paid),
                           detail={"reason": "war indemnity received"}),
                ]
        summary += f"; proposal {'permitted' if ok else 'refused: ' + '; '.join(reasons)}"
    return EU.ruling("P4", i, total=i.pd, outcome=outcome, effects=tuple(effects), summary=summary)


# =========================================================================== P5


class MinorSituation(_Inputs):
    """What happened this turn (and, for provinces, in previous turns) — seed §Modifiers of Situation."""

    province_lost_by_minor: Count = Field(0, description="Provinces / TP+ / COL / ROTW cities lost by the minor")
    capital_lost_by_minor: Count = Field(0, description="Of which its capital (counts +4 instead of +2)")
    province_conquered_by_minor: Count = 0
    capital_conquered_by_minor: Count = 0
    tp_minus_lost_by_minor: Count = Field(0, description="TP− (or ROTW provinces without city) lost by the minor")
    tp_minus_conquered_by_minor: Count = 0
    minor_capital_conquered_this_turn: bool = Field(False, description="Conquered this turn, or captured then lost")
    major_capital_captured_by_minor: bool = Field(False, description="The minor captured a major's capital this turn")
    major_battle_won_by_minor: Count = 0
    major_battle_won_by_player: Count = 0
    battle_won_by_minor: Count = 0
    battle_won_by_player: Count = 0
    minor_leader_killed_or_captured: Count = 0
    minor_monarch_ransom_used: bool = False
    player_leader_killed_or_captured: Count = 0
    siege_won_by_player: Count = 0
    siege_won_by_minor: Count = 0
    heretic_minor: bool = False

    @model_validator(mode="after")
    def _check(self) -> MinorSituation:
        if self.capital_lost_by_minor > 1 or self.capital_conquered_by_minor > 1:
            raise ValueError("capital_lost_by_minor: a country has one capital")
        return self


def minor_names() -> dict[str, tuple[str, ...]]:
    """P5's minors: the board's countries a seed's "minor" names (tables/country_kinds.toml: minors, the rest of
    the world's, revolts', minormajors; never a major), by the seed's names (the board's French names, or the
    seed's where it differs), each with its board code, English name and board name as aliases."""
    seed = {code: name for name, code in peace_data()["minor"]["seed_names"].items()}
    out: dict[str, tuple[str, ...]] = {}
    for code, (french, english) in board_countries("eu", MINOR_TYPES).items():
        out[seed.get(code, french)] = (code, english, french) if code in seed else (code, english)
    return out


def minor_code(name: str) -> str:
    """The board code of a P5 minor named by its canonical (seed) name."""
    return minor_names()[name][0]


Minor = vocabulary("minor", minor_names(), "A minor of the board (never a major power), by the seed's name; its "
                   "board code or English name is accepted and recorded as the seed's name",
                   refused=not_among("eu", MINOR_TYPES, "a minor"))


class MinorPeaceInputs(_Inputs):
    minor: Minor = Field(description="The minor country (its nationality modifier is the seed's, by name)")
    player: MajorCode = Field(description="The major power proposing the peace (a player's country)")
    level: int = Field(ge=0, le=5, description="Peace level chosen by the player (0 = white)")
    favours: Literal["minor", "player"] = Field("player", description="Side the offered peace favours")
    brandenburg_after_iv11: bool = Field(False, description="Brandenburg's −3 applies after turn IV-11")
    overseas_war: bool = False
    separate_peace: bool = Field(False, description="The minor's controller is at war with the alliance")
    controller_pd: int | None = Field(
        None, ge=-20, le=20,
        description="PD of the controller towards the alliance, + when the proposing alliance dominates")
    situation: MinorSituation = Field(default_factory=MinorSituation)
    indemnity: Ducats = Field(0, description="Indemnities asked (ducats)")
    minor_income: Ducats = Field(0, description="Income of the minor (caps the indemnities it pays)")

    @model_validator(mode="after")
    def _check(self) -> MinorPeaceInputs:
        if self.controller_pd is not None and not self.separate_peace:
            raise ValueError("controller_pd: only when the controller is at war with the alliance (separate peace)")
        return self


def nationality_modifier(minor: str, brandenburg_after_iv11: bool) -> int:
    """The seed's nationality modifier of a minor named by its canonical (seed) name; 0 for the others."""
    if minor == "brandebourg" and not brandenburg_after_iv11:
        return 0
    return peace_data()["minor"]["nationality"].get(minor, 0)


_SITUATION_REASONS = {
    "province_lost_by_minor": "province/TP+/COL lost by the minor",
    "capital_lost_by_minor": "capital lost by the minor",
    "province_conquered_by_minor": "province/TP+/COL conquered by the minor",
    "capital_conquered_by_minor": "capital conquered by the minor",
    "tp_minus_lost_by_minor": "TP− lost by the minor",
    "tp_minus_conquered_by_minor": "TP− conquered by the minor",
    "minor_capital_conquered_this_turn": "capital of the minor conquered this turn",
    "major_capital_captured_by_minor": "the minor captured a major's capital this turn",
    "major_battle_won_by_minor": "major battle won by the minor",
    "major_battle_won_by_player": "major battle won by the player",
    "battle_won_by_minor": "battle won by the minor",
    "battle_won_by_player": "battle won by the player",
    "minor_leader_killed_or_captured": "minor leader killed or captured",
    "minor_monarch_ransom_used": "ransom of the minor's monarch used for peace",
    "player_leader_killed_or_captured": "player's leader killed or captured",
    "siege_won_by_player": "siege won by the player",
    "siege_won_by_minor": "siege won by the minor",
    "heretic_minor": "heretic minor (Religious Dissension)",
}


def minor_peace_modifiers(i: MinorPeaceInputs) -> list[Modifier]:
    """P5 modifier list: level, nationality, situation, separate peace, controller PD (±3)."""
    d = peace_data()["minor"]
    c, s = "P5", SEC_MINOR
    mods: list[Modifier] = []
    if i.level:
        v = d["level_multiplier"] * i.level
        mods.append(_mod(v if i.favours == "minor" else -v,
                         f"peace level {i.level} favourable to the {i.favours} (3 × level)", c, s))
    nat = nationality_modifier(i.minor, i.brandenburg_after_iv11)
    if nat:
        mods.append(_mod(nat, f"nationality: {i.minor}", c, s))
    sit = i.situation
    provinces = sit.province_lost_by_minor - sit.capital_lost_by_minor  # the capital counts 4, not 2
    conquered = sit.province_conquered_by_minor - sit.capital_conquered_by_minor
    counts = sit.model_dump()
    counts["province_lost_by_minor"] = max(provinces, 0)
    counts["province_conquered_by_minor"] = max(conquered, 0)
    for key, reason in _SITUATION_REASONS.items():
        n = int(counts[key])
        if n:
            per = d["situation"][key]
            mods.append(_mod(per * n, reason + (f" ×{n}" if n > 1 else ""), c, s))
    if i.separate_peace:
        mods.append(_mod(d["situation"]["separate_peace"], "attempt at a separate peace", c, s))
        if i.controller_pd:
            cap = d["controller_pd_cap"]
            # The controller's dominance makes the minor less willing: the sign follows
            # the proposing alliance's point of view (DECISIONS.md P5).
            v = max(-cap, min(cap, i.controller_pd))
            capped = " (capped at ±3)" if abs(i.controller_pd) > cap else ""
            mods.append(_mod(v, f"PD of the controller {i.controller_pd:+d}{capped}", c, s))
    return mods


@EU.procedure("P5", title="Peace with a minor", seed=SEC_MINOR, inputs=MinorPeaceInputs)
def resolve_minor_peace(i: MinorPeaceInputs, dice: DiceSource) -> Ruling:
    """P5: 1d10 + modifiers ≥ 6 signs the peace; an overseas white peace is always accepted."""
    d = peace_data()["minor"]
    mods = minor_peace_modifiers(i)
    indemnity = i.indemnity
    capped_indemnity = min(indemnity, d["max_indemnity_income_multiple"] * i.minor_income) \
        if i.favours == "player" else indemnity
    auto = i.overseas_war and i.level == 0 and not i.separate_peace
    if auto:
        signed, total, die_list = True, None, ()
    else:
        die = dice.roll(f"peace with {i.minor}")
        total = die.total + sum_modifiers(mods)
        signed, die_list = total >= d["target"], (die,)
    effects: list[Effect] = []
    if signed:
        effects.append(Effect(kind="peace", country=i.player, target=i.minor,
                              detail={"level": i.level, "favours": i.favours if i.level else None,
                                      "separate": i.separate_peace}))
        if indemnity and i.level:
            sign = 1 if i.favours == "player" else -1
            amount = capped_indemnity if sign > 0 else indemnity
            effects.append(Effect(kind="ducats", country=i.player, ers_line="A30", amount=Fraction(sign * amount),
                                  detail={"reason": "indemnity from the minor" if sign > 0 else "indemnity to the minor",
                                          "minor": i.minor}))
    outcome = {"signed": signed, "automatic": auto, "target": d["target"],
               "indemnity": capped_indemnity if i.level else 0,
               "indemnity_capped": i.favours == "player" and capped_indemnity < indemnity,
               "war_continues": not signed}
    summary = (f"Peace with {i.minor}: " + ("overseas white peace, accepted" if auto
               else f"{total} — {'signed' if signed else 'refused'}"))
    return EU.ruling("P5", i, modifiers=tuple(mods), dice=die_list, total=total,
                     table_cell=None if auto else TableCell(table="Peace with a minor", row=str(total),
                                                            value="signed" if signed else "refused"),
                     outcome=outcome, effects=tuple(effects), summary=summary)


# =========================================================================== P6


class Cession(_Inputs):
    province: ProvinceName
    from_country: Country
    to_country: Country
    kind: Literal["province", "COL", "TP"] = "province"
    col_level: int | None = Field(None, ge=1, le=6, description="Level of a ceded COL (level 6 counts full)")
    controlled_at_end: bool = Field(True, description="Controlled by the victor at the end of the conflict")
    conquered_this_war: bool = Field(False, description="Militarily conquered during the war")
    formerly_victor_owned: bool = Field(False, description="Belonged to the victor, annexed by the loser before")
    national_of_victor: bool = Field(False, description="A national province of the victorious alliance")
    settlement_claim: bool = Field(
        False, description="COL/TP occupied during the conflict, or the victor has/had a COL in the area")
    european_mainland: bool = Field(False, description="On the European mainland (barred in overseas wars)")


class Signatory(_Inputs):
    country: Country
    fully_at_peace: bool = Field(description="Now at peace with everyone")
    stability_gained_this_phase: bool = Field(False, description="Already gained +1 STAB from a peace this phase")
    separate_peace: bool = False
    constrained: bool = Field(False, description="Separate peace forced by a constrained peace (no penalty)")
    former_allies: list[Country] = Field(default_factory=list, max_length=8)


class PeaceConsequencesInputs(_Inputs):
    peace_with: Literal["player", "minor", "minor_by_event"] = "player"
    overseas_war: bool = False
    cessions: list[Cession] = Field(default_factory=list, max_length=10)
    victor_national_provinces_unchosen: Count = Field(
        0, description="Eligible national provinces of the victors not among the cessions (priority)")
    signatories: list[Signatory] = Field(default_factory=list, max_length=16)


def cession_weight(c: Cession) -> Fraction:
    """P6: a COL/TP controlled at the end counts half (a level-6 COL full); otherwise full."""
    if c.kind == "province" or not c.controlled_at_end or (c.kind == "COL" and c.col_level == 6):
        return Fraction(1)
    return Fraction(1, 2)


def cession_problems(i: PeaceConsequencesInputs) -> list[str]:
    """P6: the transfer rules a list of cessions breaks (empty when valid)."""
    problems = []
    for c in i.cessions:
        if c.kind == "province" and not ((c.conquered_this_war and c.controlled_at_end) or c.formerly_victor_owned):
            problems.append(f"{c.province}: neither conquered and still controlled nor formerly the victor's")
        if c.kind != "province" and not (c.settlement_claim or c.formerly_victor_owned):
            problems.append(f"{c.province}: COL/TP neither occupied during the war nor in an area with a COL")
        if i.overseas_war and c.european_mainland:
            problems.append(f"{c.province}: no European mainland province in an overseas war")
    if i.victor_national_provinces_unchosen and any(not c.national_of_victor for c in i.cessions):
        problems.append("the victors' national provinces must be chosen first")
    total = sum((cession_weight(c) for c in i.cessions), Fraction(0))
    if total > peace_data()["consequences"]["max_provinces"]:
        problems.append(f"{total} provinces ceded: at most 3")
    return problems


@EU.procedure("P6", title="Consequences of the peace", seed=SEC_CONSEQUENCES, inputs=PeaceConsequencesInputs)
def resolve_peace_consequences(i: PeaceConsequencesInputs, dice: DiceSource) -> Ruling:
    """P6: province transfers, separate peace penalties, stability for signatories at peace."""
    d = peace_data()["consequences"]
    problems = cession_problems(i)
    effects: list[Effect] = []
    if not problems:
        effects += [Effect(kind="province_ceded", country=c.to_country, target=c.province,
                           amount=cession_weight(c), detail={"from": c.from_country, "kind": c.kind})
                    for c in i.cessions]
    gains: dict[str, int] = {}
    for s in i.signatories:
        if s.separate_peace and not s.constrained:
            effects.append(Effect(kind="stability_changed", country=s.country,
                                  amount=Fraction(d["separate_peace_stability"]),
                                  detail={"reason": "separate peace", "alliance_broken": True}))
            effects += [Effect(kind="casus_belli", country=ally, target=s.country,
                               detail={"temporary": True, "valid": "next turn only", "reason": "separate peace"})
                        for ally in s.former_allies]
        # A peace with a minor gives no stability unless it declared war by an event.
        if s.fully_at_peace and i.peace_with != "minor" and not s.stability_gained_this_phase:
            gains[s.country] = min(d["stability_per_signatory_at_peace"], d["max_stability_gain_per_phase"])
            effects.append(Effect(kind="stability_changed", country=s.country, amount=Fraction(gains[s.country]),
                                  detail={"reason": "fully at peace"}))
    outcome = {"cessions_valid": not problems, "problems": problems,
               "provinces_ceded": str(sum((cession_weight(c) for c in i.cessions), Fraction(0))),
               "stability_gains": gains}
    return EU.ruling("P6", i, outcome=outcome, effects=tuple(effects),
                     summary="Peace consequences: " + ("; ".join(problems) if problems
                                                       else f"{len(i.cessions)} cession(s), STAB +1 for {sorted(gains)}"))
