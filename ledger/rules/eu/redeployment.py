"""Redeployment phase (R1–R6): natives, pirates and privateers, revolts, land
looting, mandatory retreats and presidios, return to port and gold repatriation.

Seed: eu-redeployment-peace-interphase.tex, section "Redeployment Phase".
Die-driven procedures (R1, R2) read the Pirates / Natives raids table
(``raids.py``); the others are deterministic rulings (no dice) that record the
flow-changing consequences as effects. Attrition rolls caused by a redeployment
(R5, R6) are resolved by the movement-attrition procedures: these rulings
record the modifier the redeployment adds and, when a game master resolved the
roll elsewhere, the reading he supplies.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, RulesError, sum_modifiers
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, ProvinceName, TradeZone
from ledger.rules.eu.attrition import (
    LandTech,
    ProvincePillage,
    apply_remainders,
    land_attrition_result,
    rotw_percent,
    rotw_table_cell,
    to_thirds,
)
from ledger.rules.eu.raids import read_raids

SEED = "eu-redeployment-peace-interphase.tex"
SEC_NATIVES = f"{SEED} §Attacks by Natives"
SEC_CORSAIRS = f"{SEED} §Attacks by Pirates & Privateers"
SEC_REVOLTS = f"{SEED} §Extension of Revolts"
SEC_EXECUTION = f"{SEED} §Execution of the Monarch"
SEC_LOOTING = f"{SEED} §Land Military Looting"
SEC_RETREAT = f"{SEED} §Mandatory Retreat of Sieges, Presidios"
SEC_PORT = f"{SEED} §Return to Port"
SEC_GOLD = f"{SEED} §Gold repatriation"

#: Rounds at sea / in a province count −1 each, at most −3 (R2).
MAX_ROUND_MALUS = 3
#: Minors against piracy succeed on 8 or more (R2).
MINORS_VS_PIRATES_TARGET = 8
#: Revolts cost at most 3 stability levels (R3).
MAX_REVOLT_STABILITY_LOSS = 3

Country = CountryCode
Place = Annotated[str, Field(min_length=1, max_length=80)]
Man = Annotated[int, Field(ge=0, le=9)]
Count = Annotated[int, Field(ge=0, le=99)]
Ducats = Annotated[int, Field(ge=0, le=100_000)]


class _Inputs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _mod(value: int, reason: str, code: str, section: str) -> Modifier:
    return Modifier(value=value, reason=reason, rule=f"eu:{code}", section=section)


def _half_down(amount: int) -> int:
    """Half an income, rounded down (DECISIONS.md, R2/R4 halves)."""
    return amount // 2


# =========================================================================== R1


class NativeAttackInputs(_Inputs):
    """An attack by activated natives (and/or a ROTW minor) on one COL or TP."""

    settlement: Literal["COL", "TP"] = Field(description="The attacked establishment")
    settlement_level: int = Field(ge=1, le=6, description="Level of the COL / TP before the attack")
    province: ProvinceName = Field(description="Province of the settlement")
    owner: Country = Field(description="Owner of the settlement")
    defending_ld: Count = Field(0, description="LD in defence, besieged included (+1 each)")
    defending_armies_minus: Count = Field(0, description="ARMY− counters in defence (+2 each)")
    defending_armies_plus: Count = Field(0, description="ARMY+ counters in defence (+4 each)")
    fortress_level: int = Field(0, ge=0, le=5, description="Fortress level (+N); 0 for none or a fort")
    defending_leader_man: Man | None = Field(None, description="MAN of a land leader in defence")
    attacking_ld: Count = Field(description="Full LD of the natives and attacking minor (−1 each)")
    foreign_settlements_in_area: Count = Field(0, description="Foreign COL/TP in the same area (−1 each)")
    attacking_leader_man: Man | None = Field(None, description="MAN of the native or attacking leader")
    natives_beaten: Literal["no", "defeated", "routed"] = Field(
        "no", description="Natives defeated in the province this turn (+3), or defeated and routed (+6)"
    )


def native_attack_modifiers(i: NativeAttackInputs) -> list[Modifier]:
    """R1 modifier list (seed §Attacks by Natives)."""
    s, c = SEC_NATIVES, "R1"
    mods: list[Modifier] = []
    if i.defending_ld:
        mods.append(_mod(i.defending_ld, f"{i.defending_ld} LD in defence (+1 each)", c, s))
    if i.defending_armies_minus:
        mods.append(_mod(2 * i.defending_armies_minus, f"{i.defending_armies_minus} ARMY− in defence (+2 each)", c, s))
    if i.defending_armies_plus:
        mods.append(_mod(4 * i.defending_armies_plus, f"{i.defending_armies_plus} ARMY+ in defence (+4 each)", c, s))
    if i.fortress_level:
        mods.append(_mod(i.fortress_level, f"fortress level {i.fortress_level}", c, s))
    if i.defending_leader_man:
        mods.append(_mod(i.defending_leader_man, "MAN of the defending land leader", c, s))
    if i.attacking_ld:
        mods.append(_mod(-i.attacking_ld, f"{i.attacking_ld} full LD of natives/attackers (−1 each)", c, s))
    if i.foreign_settlements_in_area:
        n = i.foreign_settlements_in_area
        mods.append(_mod(-n, f"{n} foreign COL/TP in the area (−1 each)", c, s))
    if i.attacking_leader_man:
        mods.append(_mod(-i.attacking_leader_man, "MAN of the native/attacking leader", c, s))
    if i.natives_beaten == "defeated":
        mods.append(_mod(3, "natives defeated in the province this turn, not routed", c, s))
    elif i.natives_beaten == "routed":
        mods.append(_mod(6, "natives defeated and routed in the province this turn", c, s))
    return mods


@EU.procedure("R1", title="Attack by natives", seed=SEC_NATIVES, inputs=NativeAttackInputs)
def resolve_native_attack(i: NativeAttackInputs, dice: DiceSource) -> Ruling:
    """R1: one roll on the raids table; settlement levels and land losses."""
    mods = native_attack_modifiers(i)
    die = dice.roll("attack by natives")
    total = die.total + sum_modifiers(mods)
    row = read_raids(total)
    levels_lost = min(row.settlement_levels, i.settlement_level)
    new_level = i.settlement_level - levels_lost
    destroyed = new_level == 0
    has_defence = bool(i.defending_ld or i.defending_armies_minus or i.defending_armies_plus or i.fortress_level)
    land_loss = row.land_losses if has_defence else 0
    effects: list[Effect] = []
    if levels_lost:
        effects.append(
            Effect(kind="settlement_reduced", country=i.owner, target=i.province, amount=Fraction(levels_lost),
                   detail={"settlement": i.settlement, "new_level": new_level, "destroyed": destroyed})
        )
    if land_loss:
        # One fortress level counts as one LD here; the defender splits the loss.
        effects.append(
            Effect(kind="ld_lost", country=i.owner, target=i.province, amount=Fraction(land_loss),
                   detail={"split": "defender's choice between land forces and fortress levels (1 level = 1 LD)",
                           "permanent": True})
        )
    outcome = {
        "settlement_levels_lost": levels_lost,
        "settlement_level": new_level,
        "settlement_destroyed": destroyed,
        "land_losses_ld": land_loss,
    }
    summary = (f"Natives attack {i.settlement} {i.province}: {die.total}{total - die.total:+d} = {total}; "
               f"{levels_lost} level(s) lost{' (destroyed)' if destroyed else ''}, {land_loss} LD lost")
    return EU.ruling("R1", i, modifiers=tuple(mods), dice=(die,), total=total,
                     table_cell=row.cell("settlement"), outcome=outcome, effects=tuple(effects), summary=summary)


# =========================================================================== R2


class PrivateerOwner(_Inputs):
    country: Country
    major: bool = Field(description="Only major powers' privateers earn income")


class CorsairTradeAttack(_Inputs):
    """Pirates or the privateers of one alliance attack one STZ/CTZ."""

    action: Literal["trade_attack"] = "trade_attack"
    attacker: Literal["pirates", "privateers"]
    zone: TradeZone = Field(description="The STZ or CTZ attacked")
    target_column: Literal["FLEET+", "FLEET-"] = Field(
        description="Raids-table column: side of the largest Trade FLEET attacked (DECISIONS.md R2)"
    )
    corsair_not_in_zone_sea: bool = Field(False, description="Corsair not exactly in the sea zone of the STZ (+2)")
    single_corsair_minus: bool = Field(False, description="Only one Corsair− attacks (+3)")
    target_sides: Count = Field(0, description="Sides of target Trade FLEET / FLEET, a Convoy counting 2 (+1 each)")
    defending_nd_without_fleet: bool = Field(False, description="One or more ND in defence and no FLEET (+1)")
    defending_fleets_minus: Count = Field(0, description="FLEET− defending (+2 each)")
    defending_fleets_plus: Count = Field(0, description="FLEET+ defending (+4 each)")
    defending_admiral_man: Man | None = Field(None, description="MAN of a defending admiral")
    rounds_at_sea: int = Field(0, ge=0, le=20, description="Rounds the corsair spent at sea (−1 each, max −3)")
    corsair_admiral_man: Man | None = Field(None, description="MAN of a corsair admiral")
    naval_battle_in_sea: bool = Field(False, description="A naval battle occurred in the sea (+1)")
    knights_with_christian_port: bool = Field(
        False, description="Knights' corsair, Christian port on the Aegean or eastern Mediterranean (−2)"
    )
    trade_levels_present: Count = Field(description="Trade-fleet levels of the targets present in the zone")
    nd_sacrificed: Count = Field(0, description="Levels the defenders take as ND losses instead (1 ND = 1 level)")
    largest_fleet: Country | None = Field(None, description="Owner of the largest fleet (takes the ★ losses)")
    zone_small_number: int = Field(0, ge=0, le=50, description="Small number printed in the STZ/CTZ (ducats per level)")
    privateer_owners: list[PrivateerOwner] = Field(default_factory=list, max_length=8)

    @model_validator(mode="after")
    def _check(self) -> CorsairTradeAttack:
        if self.attacker == "pirates" and self.privateer_owners:
            raise ValueError("privateer_owners: pirates have no owner")
        if self.attacker == "privateers" and not self.privateer_owners:
            raise ValueError("privateer_owners: privateers need at least one owner")
        if self.defending_nd_without_fleet and (self.defending_fleets_minus or self.defending_fleets_plus):
            raise ValueError("defending_nd_without_fleet: contradicts defending FLEET counters")
        return self


Fortress = Literal["none", "fort", "1", "2", "3", "4", "5"]


class CorsairLooting(_Inputs):
    """A pirate or privateer unit loots a province, COL or TP bordering its sea."""

    action: Literal["looting"] = "looting"
    attacker: Literal["pirates", "privateers"]
    looter: Country | None = Field(None, description="Owner of the privateer (none for pirates)")
    target: Place
    target_kind: Literal["province", "COL", "TP"]
    owner: Country | None = Field(None, description="Owner of the looted place")
    in_europe: bool = Field(False, description="Land raid in Europe (corsair admiral MAN halved)")
    single_corsair_minus: bool = Field(False, description="Only one Corsair− (+3)")
    defending_armies_minus: Count = Field(0, description="ARMY− defending (+2 each)")
    defending_armies_plus: Count = Field(0, description="ARMY+ defending (+4 each)")
    defending_ld: Count = Field(0, description="LD defending, militia included (+1 each)")
    defending_leader_man: Man | None = Field(None, description="MAN of a defending general, conquistador or governor")
    rounds_in_province: int = Field(0, ge=0, le=20, description="Rounds in the province (−1 each, max −3)")
    corsair_admiral_man: Man | None = Field(None, description="MAN of the corsair admiral")
    knights_with_christian_port: bool = Field(False, description="Knights' corsair, Christian port (−2)")
    fortress: Fortress = Field("none", description="Fortress: twice its level, +1 for a fort")
    income: Ducats = Field(0, description="Total income of the place, exploited resources included, stored gold excluded")
    stored_gold: Ducats = Field(0, description="Gold stored in the place (ducats)")

    @model_validator(mode="after")
    def _check(self) -> CorsairLooting:
        if self.attacker == "privateers" and not self.looter:
            raise ValueError("looter: privateers loot for their owner")
        if self.attacker == "pirates" and self.looter:
            raise ValueError("looter: pirates have no owner")
        return self


class MinorsAgainstPirates(_Inputs):
    """Minor countries at peace fight pirates abstractly in one STZ/CTZ."""

    action: Literal["minors_vs_pirates"] = "minors_vs_pirates"
    zone: TradeZone
    minor_fleets_minus: Count = Field(0, description="Minor commercial fleets, side − (+1 each)")
    minor_fleets_plus: Count = Field(0, description="Minor commercial fleets, side + (+2 each)")


class CorsairInputs(_Inputs):
    """R2 inputs: one of the three corsair actions."""

    action: Annotated[CorsairTradeAttack | CorsairLooting | MinorsAgainstPirates, Field(discriminator="action")]


def trade_attack_modifiers(a: CorsairTradeAttack) -> list[Modifier]:
    """R2 modifier list for attacks on trade zones."""
    s, c = SEC_CORSAIRS, "R2"
    mods: list[Modifier] = []
    if a.corsair_not_in_zone_sea:
        mods.append(_mod(2, "corsair not exactly in the sea zone of the STZ", c, s))
    if a.single_corsair_minus:
        mods.append(_mod(3, "only one Corsair−", c, s))
    if a.target_sides:
        mods.append(_mod(a.target_sides, f"{a.target_sides} side(s) of target Trade FLEET/FLEET (+1 each)", c, s))
    if a.defending_nd_without_fleet:
        mods.append(_mod(1, "ND in defence and no FLEET", c, s))
    if a.defending_fleets_minus:
        mods.append(_mod(2 * a.defending_fleets_minus, f"{a.defending_fleets_minus} FLEET− defending (+2 each)", c, s))
    if a.defending_fleets_plus:
        mods.append(_mod(4 * a.defending_fleets_plus, f"{a.defending_fleets_plus} FLEET+ defending (+4 each)", c, s))
    if a.defending_admiral_man:
        mods.append(_mod(a.defending_admiral_man, "MAN of the defending admiral", c, s))
    if a.rounds_at_sea:
        n = min(a.rounds_at_sea, MAX_ROUND_MALUS)
        mods.append(_mod(-n, f"{a.rounds_at_sea} round(s) at sea (−1 each, max −3)", c, s))
    if a.corsair_admiral_man:
        mods.append(_mod(-a.corsair_admiral_man, "MAN of the corsair admiral", c, s))
    if a.naval_battle_in_sea:
        mods.append(_mod(1, "a naval battle occurred in the sea", c, s))
    if a.knights_with_christian_port:
        mods.append(_mod(-2, "Knights with a Christian port on the Aegean / eastern Mediterranean", c, s))
    return mods


def looting_modifiers(a: CorsairLooting) -> list[Modifier]:
    """R2 modifier list for looting by pirates and privateers."""
    s, c = SEC_CORSAIRS, "R2"
    mods: list[Modifier] = []
    if a.single_corsair_minus:
        mods.append(_mod(3, "only one Corsair−", c, s))
    if a.defending_armies_minus:
        mods.append(_mod(2 * a.defending_armies_minus, f"{a.defending_armies_minus} ARMY− defending (+2 each)", c, s))
    if a.defending_armies_plus:
        mods.append(_mod(4 * a.defending_armies_plus, f"{a.defending_armies_plus} ARMY+ defending (+4 each)", c, s))
    if a.defending_ld:
        mods.append(_mod(a.defending_ld, f"{a.defending_ld} LD defending, militia included (+1 each)", c, s))
    if a.defending_leader_man:
        mods.append(_mod(a.defending_leader_man, "MAN of the defending general/conquistador/governor", c, s))
    if a.rounds_in_province:
        n = min(a.rounds_in_province, MAX_ROUND_MALUS)
        mods.append(_mod(-n, f"{a.rounds_in_province} round(s) in the province (−1 each, max −3)", c, s))
    if a.corsair_admiral_man:
        if a.in_europe:
            half = a.corsair_admiral_man // 2  # halved, rounded down (DECISIONS.md R2)
            if half:
                mods.append(_mod(-half, "half the MAN of the corsair admiral (land raid in Europe)", c, s))
        else:
            mods.append(_mod(-a.corsair_admiral_man, "MAN of the corsair admiral", c, s))
    if a.knights_with_christian_port:
        mods.append(_mod(-2, "Knights with a Christian port on the Aegean / eastern Mediterranean", c, s))
    if a.fortress == "fort":
        mods.append(_mod(1, "fort", c, s))
    elif a.fortress != "none":
        mods.append(_mod(2 * int(a.fortress), f"fortress level {a.fortress} (twice the level)", c, s))
    return mods


def minors_vs_pirates_modifiers(a: MinorsAgainstPirates) -> list[Modifier]:
    s, c = SEC_CORSAIRS, "R2"
    mods: list[Modifier] = []
    if a.minor_fleets_minus:
        mods.append(_mod(a.minor_fleets_minus, f"{a.minor_fleets_minus} minor commercial fleet(s) − (+1 each)", c, s))
    if a.minor_fleets_plus:
        mods.append(_mod(2 * a.minor_fleets_plus, f"{a.minor_fleets_plus} minor commercial fleet(s) + (+2 each)", c, s))
    return mods


def split_privateer_income(total: int, owners: list[PrivateerOwner]) -> dict[str, int]:
    """Equal shares rounded down; minors' shares are void (DECISIONS.md R2)."""
    share = total // len(owners) if owners else 0
    return {o.country: share for o in owners if o.major and share}


def _resolve_trade_attack(inputs: CorsairInputs, a: CorsairTradeAttack, dice: DiceSource) -> Ruling:
    mods = trade_attack_modifiers(a)
    die = dice.roll(f"{a.attacker} attack on {a.zone}")
    total = die.total + sum_modifiers(mods)
    row = read_raids(total)
    column = "trade_fleet_plus" if a.target_column == "FLEET+" else "trade_fleet_minus"
    table_levels = row.value(column)
    levels = min(table_levels, a.trade_levels_present)
    as_nd = min(a.nd_sacrificed, levels)
    trade_levels = levels - as_nd
    stars = row.permanent_loss
    effects: list[Effect] = []
    if trade_levels:
        effects.append(Effect(kind="trade_fleet_lost", target=a.zone, amount=Fraction(trade_levels),
                              detail={"permanent": False, "level": "current"}))
    if as_nd:
        effects.append(Effect(kind="nd_lost", target=a.zone, amount=Fraction(as_nd),
                              detail={"instead_of": "trade-fleet levels"}))
    if stars:
        effects.append(Effect(kind="trade_fleet_lost", country=a.largest_fleet, target=a.zone, amount=Fraction(stars),
                              detail={"permanent": True, "level": "maximum", "fleet": "largest",
                                      "tie": "privateer owner chooses" if a.attacker == "privateers" else "at random"}))
    income: dict[str, int] = {}
    if a.attacker == "privateers":
        # Only trade-fleet levels actually eliminated earn income (DECISIONS.md R2).
        income = split_privateer_income(trade_levels * a.zone_small_number, a.privateer_owners)
        for country, amount in income.items():
            effects.append(Effect(kind="ducats", country=country, ers_line="A9", amount=Fraction(amount),
                                  detail={"reason": "privateers income", "zone": a.zone}))
    outcome = {
        "action": "trade_attack",
        "column": a.target_column,
        "table_levels": table_levels,
        "levels_lost": levels,
        "trade_levels_lost": trade_levels,
        "nd_lost_instead": as_nd,
        "permanent_levels_lost": stars,
        "privateer_income": income,
    }
    summary = (f"{a.attacker.capitalize()} attack {a.zone}: {die.total}{total - die.total:+d} = {total}; "
               f"{levels} level(s) lost, {stars}★ permanent")
    return EU.ruling("R2", inputs, modifiers=tuple(mods), dice=(die,), total=total,
                     table_cell=row.cell(column), outcome=outcome, effects=tuple(effects), summary=summary)


def _resolve_looting(inputs: CorsairInputs, a: CorsairLooting, dice: DiceSource) -> Ruling:
    mods = looting_modifiers(a)
    die = dice.roll(f"{a.attacker} looting of {a.target}")
    total = die.total + sum_modifiers(mods)
    row = read_raids(total)
    pillage = row.pillage
    effects: list[Effect] = []
    loot = gold = 0
    if pillage:
        effects.append(Effect(kind="marker_placed", country=a.owner, target=a.target, marker=f"Pillage{pillage}",
                              detail={"cancels": "land income and exotic resources (ERS B3)"}))
        if a.attacker == "privateers":  # pirates receive no income for looting
            loot = a.income if pillage == "+" else _half_down(a.income)
            gold = a.stored_gold  # stored gold is entirely captured either way
            if loot:
                effects.append(Effect(kind="ducats", country=a.looter, ers_line="A9", amount=Fraction(loot),
                                      detail={"reason": "privateer looting", "target": a.target}))
            if gold:
                effects.append(Effect(kind="ducats", country=a.looter, ers_line="A10", amount=Fraction(gold),
                                      detail={"reason": "stored gold captured", "target": a.target}))
    outcome = {
        "action": "looting",
        "looted": pillage is not None,
        "pillage": {"+": "Pillage+ (full looting)", "-": "Pillage− (weak looting)"}.get(pillage or "", None),
        "loot_income": loot,
        "gold_captured": gold,
    }
    summary = (f"{a.attacker.capitalize()} loot {a.target}: {die.total}{total - die.total:+d} = {total}; "
               + (f"Pillage{pillage}, {loot} ducats and {gold} gold" if pillage else "no looting"))
    return EU.ruling("R2", inputs, modifiers=tuple(mods), dice=(die,), total=total,
                     table_cell=row.cell("settlement"), outcome=outcome, effects=tuple(effects), summary=summary)


def _resolve_minors_vs_pirates(inputs: CorsairInputs, a: MinorsAgainstPirates, dice: DiceSource) -> Ruling:
    mods = minors_vs_pirates_modifiers(a)
    die = dice.roll(f"minors against pirates in {a.zone}")
    total = die.total + sum_modifiers(mods)
    success = total >= MINORS_VS_PIRATES_TARGET
    effects = (
        (Effect(kind="marker_removed", target=a.zone, marker="Corsair−", detail={"owner": "pirates"}),)
        if success else ()
    )
    return EU.ruling("R2", inputs, modifiers=tuple(mods), dice=(die,), total=total,
                     outcome={"action": "minors_vs_pirates", "success": success, "target": MINORS_VS_PIRATES_TARGET},
                     effects=effects,
                     summary=f"Minors against pirates in {a.zone}: {total} — "
                             + ("one Corsair− eliminated" if success else "no effect"))


@EU.procedure("R2", title="Pirates and privateers", seed=SEC_CORSAIRS, inputs=CorsairInputs)
def resolve_corsairs(inputs: CorsairInputs, dice: DiceSource) -> Ruling:
    """R2: attacks on trade zones, looting, or minors against piracy."""
    a = inputs.action
    if isinstance(a, CorsairTradeAttack):
        return _resolve_trade_attack(inputs, a, dice)
    if isinstance(a, CorsairLooting):
        return _resolve_looting(inputs, a, dice)
    return _resolve_minors_vs_pirates(inputs, a, dice)


# =========================================================================== R3


class RevoltMarker(_Inputs):
    province: ProvinceName
    side: Literal["+", "-"]
    extends_to: ProvinceName | None = Field(
        None, description="For a Revolt+: province (same or adjacent) of the new Revolt−; none if impossible"
    )
    revolt_ld_present: bool = Field(False, description="A Revolt LD is already in the province")


class RevoltsInputs(_Inputs):
    country: Country = Field(description="Country (or diplomatic patron of the minor) losing stability")
    inactive_minor: bool = Field(False, description="Revolts in an inactive minor are simply removed")
    revolts: list[RevoltMarker] = Field(default_factory=list, max_length=200)
    revolted_cities_without_marker: list[Place] = Field(
        default_factory=list, description="Provinces with an unbesieged city in revolt or revolted troops, no marker"
    )
    national_provinces_owned: int = Field(ge=0, le=200, description="Owned national provinces (coat of arms)")
    national_provinces_in_revolt: int = Field(
        ge=0, le=200, description="National provinces in revolt at the Peace phase (after extension)"
    )

    @model_validator(mode="after")
    def _check(self) -> RevoltsInputs:
        if self.national_provinces_in_revolt > self.national_provinces_owned:
            raise ValueError("national_provinces_in_revolt: more than the national provinces owned")
        for r in self.revolts:
            if r.side == "-" and r.extends_to:
                raise ValueError("revolts: only a Revolt+ extends to another province")
        return self


def revolt_stability_loss(plus: int, minus: int) -> int:
    """R3: 1 per Revolt+, 1 for all Revolt− together, at most 3."""
    return min(MAX_REVOLT_STABILITY_LOSS, plus + (1 if minus else 0))


def monarch_executed(owned: int, in_revolt: int) -> bool:
    """R3: half the owned national provinces (rounded up) in revolt."""
    return owned > 0 and in_revolt >= -(-owned // 2)


@EU.procedure("R3", title="Revolts", seed=SEC_REVOLTS, inputs=RevoltsInputs)
def resolve_revolts(i: RevoltsInputs, dice: DiceSource) -> Ruling:
    """R3: stability loss, extension of revolts, execution of the monarch (no die)."""
    effects: list[Effect] = []
    if i.inactive_minor:
        effects = [Effect(kind="marker_removed", target=r.province, marker=f"Revolt{r.side}") for r in i.revolts]
        return EU.ruling("R3", i, outcome={"removed": len(i.revolts), "stability_loss": 0}, effects=tuple(effects),
                         summary=f"Revolts in inactive minor {i.country} removed")
    plus = sum(r.side == "+" for r in i.revolts)
    minus = len(i.revolts) - plus
    loss = revolt_stability_loss(plus, minus)
    mods: list[Modifier] = []
    if plus:
        mods.append(_mod(-plus, f"{plus} Revolt+ (1 STAB each)", "R3", SEC_REVOLTS))
    if minus:
        mods.append(_mod(-1, f"{minus} Revolt− (1 STAB for all)", "R3", SEC_REVOLTS))
    if plus + (1 if minus else 0) > loss:
        mods.append(_mod(plus + (1 if minus else 0) - loss, "at most 3 STAB lost to revolts", "R3", SEC_REVOLTS))
    if loss:
        effects.append(Effect(kind="stability_changed", country=i.country, amount=Fraction(-loss),
                              detail={"reason": "revolts"}))
    # Extension, simultaneous: − becomes +, + spawns a − (or a Revolt LD / ARMY−).
    for r in i.revolts:
        if r.side == "-":
            effects.append(Effect(kind="marker_flipped", target=r.province, marker="Revolt−",
                                  detail={"to": "Revolt+"}))
        elif r.extends_to:
            effects.append(Effect(kind="marker_placed", target=r.extends_to, marker="Revolt−",
                                  detail={"from": r.province}))
        else:
            unit = "Revolt ARMY−" if r.revolt_ld_present else "Revolt LD"
            effects.append(Effect(kind="marker_placed", target=r.province, marker=unit,
                                  detail={"reason": "extension impossible",
                                          "absorbs": "the Revolt LD present" if r.revolt_ld_present else None}))
    for p in i.revolted_cities_without_marker:
        effects.append(Effect(kind="marker_placed", target=p, marker="Revolt−",
                              detail={"reason": "city or troops in revolt"}))
    executed = monarch_executed(i.national_provinces_owned, i.national_provinces_in_revolt)
    if executed:
        effects += [
            Effect(kind="leader_killed", country=i.country, target="monarch",
                   detail={"executed": True, "new_monarch": "dynastic crisis"}),
            Effect(kind="marker_removed", country=i.country, marker="Revolt", detail={"scope": "all in the country"}),
            Effect(kind="stability_changed", country=i.country, amount=Fraction(-2),
                   detail={"reason": "monarch executed", "no_stability_improvement_this_turn": True}),
            Effect(kind="dti_changed", country=i.country, amount=Fraction(-1), detail={"minimum": 1}),
            Effect(kind="trade_fleet_lost", country=i.country, target=f"CTZ of {i.country}", amount=Fraction(3),
                   detail={"fleets": "chosen at random, other players' included"}),
        ]
    outcome = {
        "revolt_plus": plus,
        "revolt_minus": minus,
        "stability_loss": loss,
        "monarch_executed": executed,
        "stability_improvement_allowed": not executed,
    }
    return EU.ruling("R3", i, modifiers=tuple(mods), outcome=outcome, effects=tuple(effects),
                     summary=f"Revolts in {i.country}: −{loss} STAB" + ("; monarch executed" if executed else ""))


# =========================================================================== R4


class ExistingPillage(_Inputs):
    target: Place
    side: Literal["+", "-"]


class LootedPlace(_Inputs):
    target: Place
    kind: Literal["province", "COL", "TP"]
    owner: Country | None = None
    income: Ducats = Field(0, description="Total land income (exotic resources of COL/TP excluded)")
    rotw: bool = Field(False, description="On the ROTW map")
    looter_ld: Count = Field(description="Full LD of the looting force (any land unit may loot)")
    destroy_tp: bool = Field(False, description="Destroy the TP instead of looting it")

    @model_validator(mode="after")
    def _check(self) -> LootedPlace:
        if self.destroy_tp and self.kind != "TP":
            raise ValueError("destroy_tp: only a trading post can be destroyed")
        return self


class LandLootingInputs(_Inputs):
    looter: Country
    existing_markers: list[ExistingPillage] = Field(default_factory=list, max_length=500)
    looted: list[LootedPlace] = Field(default_factory=list, max_length=100)

    @model_validator(mode="after")
    def _check(self) -> LandLootingInputs:
        targets = [p.target for p in self.looted]
        if len(set(targets)) != len(targets):
            raise ValueError("looted: a place is looted at most once")
        return self


def weak_looting(place: LootedPlace) -> bool:
    """R4: in the ROTW a force of less than 2 LD only loots a COL/TP weakly."""
    return place.rotw and place.kind in ("COL", "TP") and place.looter_ld < 2


@EU.procedure("R4", title="Land looting", seed=SEC_LOOTING, inputs=LandLootingInputs)
def resolve_land_looting(i: LandLootingInputs, dice: DiceSource) -> Ruling:
    """R4: adjust old Pillage markers, then loot (income → A9) or destroy TPs (no die)."""
    effects: list[Effect] = []
    still_marked: set[str] = set()
    for m in i.existing_markers:
        if m.side == "-":
            effects.append(Effect(kind="marker_removed", target=m.target, marker="Pillage−"))
        else:
            effects.append(Effect(kind="marker_flipped", target=m.target, marker="Pillage+", detail={"to": "Pillage−"}))
            still_marked.add(m.target)
    places = []
    total = 0
    for p in i.looted:
        if p.destroy_tp:
            effects.append(Effect(kind="settlement_reduced", country=p.owner, target=p.target,
                                  detail={"settlement": "TP", "destroyed": True, "reason": "destroyed instead of looted"}))
            places.append({"target": p.target, "destroyed": True, "income": 0})
            continue
        weak = weak_looting(p)
        # No income where a looting marker already stands (after the adjustment).
        income = 0 if p.target in still_marked else (_half_down(p.income) if weak else p.income)
        total += income
        marker = "Pillage−" if weak else "Pillage+"
        effects.append(Effect(kind="marker_placed", country=p.owner, target=p.target, marker=marker,
                              detail={"cancels": "land income and exotic resources (ERS B3)"}))
        places.append({"target": p.target, "marker": marker, "income": income,
                       "already_marked": p.target in still_marked})
    if total:
        effects.append(Effect(kind="ducats", country=i.looter, ers_line="A9", amount=Fraction(total),
                              detail={"reason": "land looting"}))
    return EU.ruling("R4", i, outcome={"places": places, "loot_income": total}, effects=tuple(effects),
                     summary=f"{i.looter} loots {len(places)} place(s) for {total} ducats")


# =========================================================================== R5


class GMModifier(_Inputs):
    value: int = Field(ge=-20, le=20)
    reason: str = Field(min_length=1, max_length=120)


class LandAttritionRoll(_Inputs):
    """The stack that tests land attrition (read by the shared attrition tables)."""

    area: Literal["europe", "rotw"]
    ld: Count = Field(description="Full LD of the stack")
    lde: Count = Field(0, description="LDE of the stack")
    technology: LandTech
    p_choice: Literal["ld", "pillage"] | None = Field(None, description="Controller's choice for a 'P'")
    province: ProvincePillage = Field(default_factory=ProvincePillage)
    country: Country | None = None


class NavalAttritionRoll(_Inputs):
    """The naval stack that tests attrition (ROTW/sea column, remainders per 10 ND)."""

    nd: Count = Field(description="Full ND of the stack")
    nde: Count = Field(0, description="NDE of the stack")
    country: Country | None = None


class RetreatInputs(_Inputs):
    """A mandatory redeployment, a siege decision, or a presidio construction."""

    case: Literal["no_line_of_supply", "siege", "presidio"]
    stack: Place = Field(description="The stack (or, for a presidio, the province)")
    # siege
    siegework_plus: bool = Field(False, description="Siegework+ on the besieged fortress")
    breach_or_honours_this_turn: bool = Field(False, description="Breach or War Honours result this turn")
    siege_choice: Literal["raise", "continue"] = Field("continue", description="With adequate siegeworks")
    # presidio
    anchor_province: bool = Field(False, description="Province shows a circled anchor")
    owned_by_builder: bool = Field(False)
    military_control: bool = Field(False)
    current_presidio_level: int = Field(0, ge=0, le=3)
    target_presidio_level: int = Field(1, ge=1, le=3)
    cost_ducats: Ducats = Field(0, description="Price of the fortress level (fortress costs table)")
    # attrition resolved by the movement-attrition procedure
    other_attrition_modifiers: list[GMModifier] = Field(default_factory=list, max_length=20)
    gm_attrition_result: str | None = Field(None, max_length=40, description="Attrition reading, if resolved")
    attrition: LandAttritionRoll | None = Field(None, description="The stack, to roll its attrition here")
    builder: Country | None = Field(None, description="Presidio: the country building it, who pays B46")

    @model_validator(mode="after")
    def _builder(self) -> RetreatInputs:
        if self.case == "presidio" and not self.builder:
            raise ValueError("builder: a presidio is paid by the country building it (ERS B46)")
        return self


def _attrition(
    mods: list[Modifier],
    gm: str | None,
    roll: LandAttritionRoll | NavalAttritionRoll | None,
    dice: DiceSource,
    stack: str | None,
    purpose: str,
) -> dict:
    """The attrition a redeployment causes: rolled here when the stack is described
    (shared attrition tables), else the game master's reading is recorded."""
    if roll is not None and gm is not None:
        raise RulesError("give either the stack to roll attrition for or a GM reading, not both",
                         field="gm_attrition_result")
    fields: dict = {"outcome": {"attrition_required": True, "attrition_modifier": sum_modifiers(mods)}}
    if roll is None:
        fields["outcome"]["attrition_result"] = gm
        fields["gm_supplied"] = (f"attrition result: {gm}",) if gm else ()
        return fields
    die = dice.roll(purpose)
    total = die.total + sum_modifiers(mods)
    fields["total"] = total
    if isinstance(roll, LandAttritionRoll):
        res = land_attrition_result(
            total, area=roll.area, ld=roll.ld, lde=roll.lde, dice=dice, technology=roll.technology,
            context="movement", p_choice=roll.p_choice, province=roll.province, country=roll.country,
            stack=stack, purpose=purpose,
        )
        fields.update(dice=(die, *res.dice), table_cell=res.table_cells[0], effects=res.effects)
        fields["outcome"]["attrition_result"] = res.outcome
        return fields
    percent = rotw_percent(total)
    rem = apply_remainders(to_thirds(roll.nd, roll.nde), percent, dice, purpose=purpose)
    effects = ((Effect(kind="nd_lost", country=roll.country, target=stack, amount=rem.lost,
                       detail={"cause": "attrition", "percent": percent, "left": str(rem.left)}),)
               if rem.lost else ())
    fields.update(dice=(die, *rem.dice), table_cell=rotw_table_cell(total), effects=effects)
    fields["outcome"]["attrition_result"] = {**rem.outcome(), "stack_destroyed": rem.thirds_left == 0}
    return fields


def _merge(fields: dict, outcome: dict, effects: tuple[Effect, ...] = ()) -> dict:
    fields = dict(fields)
    fields["outcome"] = {**outcome, **fields["outcome"]}
    fields["effects"] = (*effects, *fields.get("effects", ()))
    return fields


@EU.procedure("R5", title="Mandatory retreats and presidios", seed=SEC_RETREAT, inputs=RetreatInputs)
def resolve_mandatory_retreat(i: RetreatInputs, dice: DiceSource) -> Ruling:
    """R5: redeployment without LoS (+2), sieges (retreat, raise at −2, continue), presidios."""
    s, c = SEC_RETREAT, "R5"
    extra = [_mod(m.value, m.reason, c, s) for m in i.other_attrition_modifiers]

    def attrition(mods: list[Modifier]) -> dict:
        return _attrition(mods, i.gm_attrition_result, i.attrition, dice, i.stack, f"redeployment attrition {i.stack}")

    if i.case == "no_line_of_supply":
        mods = [_mod(2, "no line of supply: mandatory redeployment", c, s), *extra]
        f = _merge(attrition(mods), {"redeploy": "mandatory"},
                   (Effect(kind="stack_retreats", target=i.stack, detail={"reason": "no LoS"}),))
        return EU.ruling(c, i, modifiers=tuple(mods), **f,
                         summary=f"{i.stack}: no LoS, redeploys with attrition at {sum_modifiers(mods):+d}")
    if i.case == "siege":
        adequate = i.siegework_plus or i.breach_or_honours_this_turn
        if not adequate:
            f = _merge(attrition(extra), {"siege": "retreat", "destination": "closest friendly unbesieged city or port"},
                       (Effect(kind="stack_retreats", target=i.stack, detail={"reason": "inadequate siegeworks"}),))
            return EU.ruling(c, i, modifiers=tuple(extra), **f,
                             summary=f"{i.stack}: inadequate siegeworks, retreats with attrition")
        if i.siege_choice == "raise":
            mods = [_mod(-2, "siege raised with adequate siegeworks", c, s), *extra]
            f = _merge(attrition(mods), {"siege": "raised"},
                       (Effect(kind="stack_retreats", target=i.stack, detail={"reason": "siege raised"}),))
            return EU.ruling(c, i, modifiers=tuple(mods), **f,
                             summary=f"{i.stack}: raises the siege, attrition at {sum_modifiers(mods):+d}")
        effect = (Effect(kind="marker_flipped", target=i.stack, marker="Siegework+", detail={"to": "Siegework−"})
                  if i.siegework_plus else
                  Effect(kind="marker_placed", target=i.stack, marker="Siegework−"))
        return EU.ruling(c, i, outcome={"siege": "continued", "attrition_required": False}, effects=(effect,),
                         summary=f"{i.stack}: siege continues with a Siegework−")
    # presidio
    reasons = []
    if not i.anchor_province:
        reasons.append("no circled anchor in the province")
    if i.owned_by_builder:
        reasons.append("the builder owns the province")
    if not (i.military_control or i.siegework_plus or i.breach_or_honours_this_turn):
        reasons.append("neither military control nor a siege with adequate siegeworks")
    if i.target_presidio_level != i.current_presidio_level + 1:
        reasons.append("a presidio is built or increased one level at a time")
    allowed = not reasons
    effects: list[Effect] = []
    if allowed:
        effects = [
            Effect(kind="fortress_level_changed", target=i.stack, amount=Fraction(i.target_presidio_level),
                   detail={"presidio": True, "from": i.current_presidio_level}),
            Effect(kind="ducats", country=i.builder, ers_line="B46", amount=Fraction(i.cost_ducats),
                   detail={"expense": "presidio build"}),
        ]
    return EU.ruling(c, i, outcome={"presidio_allowed": allowed, "reasons": reasons}, effects=tuple(effects),
                     summary=f"Presidio in {i.stack}: " + ("built" if allowed else "; ".join(reasons)))


# =========================================================================== R6


class ReturnToPortInputs(_Inputs):
    """Return to port, staying at sea, or gold repatriation."""

    action: Literal["return_to_port", "stay_at_sea", "gold_repatriation"]
    stack: Place | None = Field(None, description="The naval stack (port / sea cases)")
    country: Country
    port_friendly: bool = Field(True, description="Destination port is friendly")
    port_blockaded: bool = Field(False, description="Destination port is blockaded")
    sea_difficulty: int = Field(0, ge=0, le=9, description="Difficulty of the sea the stack stays in")
    distance_modifier: Literal[3, 6] = Field(3, description="+3 or +6 by distance to the nearest sea supply source")
    gold: Ducats = Field(0, description="Ducats of gold reaching the home country")
    other_attrition_modifiers: list[GMModifier] = Field(default_factory=list, max_length=20)
    gm_attrition_result: str | None = Field(None, max_length=40)
    attrition: NavalAttritionRoll | None = Field(None, description="The stack, to roll its attrition here")

    @model_validator(mode="after")
    def _check(self) -> ReturnToPortInputs:
        if self.action != "gold_repatriation" and not self.stack:
            raise ValueError("stack: required to return to port or stay at sea")
        if self.action == "return_to_port" and (not self.port_friendly or self.port_blockaded):
            raise ValueError("port_blockaded: the port must be friendly and unblockaded")
        return self


@EU.procedure("R6", title="Return to port and gold repatriation", seed=SEC_PORT, inputs=ReturnToPortInputs)
def resolve_return_to_port(i: ReturnToPortInputs, dice: DiceSource) -> Ruling:
    """R6: back to a friendly unblockaded port (movement attrition), or stay at sea
    (+2, sea difficulty, +3/+6), or gold repatriated (ERS A10)."""
    s, c = SEC_PORT, "R6"
    extra = [_mod(m.value, m.reason, c, s) for m in i.other_attrition_modifiers]
    if i.action == "gold_repatriation":
        effects = (Effect(kind="ducats", country=i.country, ers_line="A10", amount=Fraction(i.gold),
                          detail={"reason": "gold repatriated"}),) if i.gold else ()
        return EU.ruling(c, i, outcome={"gold": i.gold}, effects=effects,
                         summary=f"{i.country} repatriates {i.gold} ducats of gold (A10)")
    if i.action == "return_to_port":
        mods = extra
        base = {"at_sea": False, "interception_possible": False}
        text = f"{i.stack} returns to port (movement attrition)"
    else:
        mods = [_mod(2, "stays at sea", c, s)]
        if i.sea_difficulty:
            mods.append(_mod(i.sea_difficulty, "difficulty of the sea", c, s))
        mods.append(_mod(i.distance_modifier, "distance to the nearest sea supply source", c, s))
        mods += extra
        base = {"at_sea": True, "interception_possible": False}
        text = f"{i.stack} stays at sea, attrition at {sum_modifiers(mods):+d}"
    f = _merge(_attrition(mods, i.gm_attrition_result, i.attrition, dice, i.stack, f"return to port {i.stack}"), base)
    return EU.ruling(c, i, modifiers=tuple(mods), **f, summary=text)
