"""Movement attrition at sea (eu): M12.

Seed: eu-military-rules.tex §Attrition (Sea). Blockade escape, presidio and
convoy attacks (M13, M16, M17) live in ``blockade.py``.
"""

from __future__ import annotations

from fractions import Fraction

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, RulesError, sum_modifiers
from ledger.rules.eu import EU
from ledger.rules.eu.attrition import (
    RemaindersVersion,
    StraitFortification,
    apply_remainders,
    rotw_percent,
    rotw_table_cell,
    to_thirds,
)
from ledger.rules.eu.vocabularies import CountryCode, NavalTech, SeaZoneName

SEC_SEA = "eu-military-rules.tex §Attrition (Sea)"

#: Technology modifiers for attrition (and exploration) at sea; CAR only for NWD.
NAVAL_TECH_DRM: dict[str, int] = {"CAR": 1, "BAT": -1, "VE": -2, "TD": -2, "74S": -3}


class SeaZone(BaseModel):
    """A sea zone of the move (start and end included), for the greatest sea difficulty."""

    model_config = ConfigDict(extra="forbid")

    name: SeaZoneName | None = None
    difficulty: int = Field(ge=0, le=10)
    supply_port: bool = Field(default=False, description="A friendly port large enough (a SoS) on this zone")


def greatest_sea_difficulty(zones: list[SeaZone]) -> int:
    """Each zone's difficulty, −2 where a SoS port is; the greatest of these."""
    return max(z.difficulty - (2 if z.supply_port else 0) for z in zones)


def distance_modifier(zones_entered: int, fleet_counters: int) -> int:
    """+1 per 4 zones (0–1 FLEET), +2 per 2 zones (2 FLEET), +4 per 2 zones (3+ FLEET)."""
    if fleet_counters <= 1:
        return zones_entered // 4
    if fleet_counters == 2:
        return 2 * (zones_entered // 2)
    return 4 * (zones_entered // 2)


def start_distance_modifier(distance: int) -> int:
    """+3 one zone from port, +6 two to four, +9 five or more (0 when adjacent)."""
    if distance <= 0:
        return 0
    if distance == 1:
        return 3
    if distance <= 4:
        return 6
    return 9


class SeaAttritionInputs(BaseModel):
    """A naval stack at sea at the end of its move (or staying at sea)."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    stack: str | None = Field(default=None, max_length=80)
    nd: int = Field(ge=0, le=100, description="ND in the stack (NTD included)")
    nde: int = Field(default=0, ge=0, le=30, description="NDE (one third of a ND)")
    ntd: int = Field(default=0, ge=0, le=100, description="NTD among the ND")
    has_nwd: bool = Field(default=True, description="The stack contains NWD (warships)")
    technology: NavalTech = "GA"
    commander_man: int = Field(default=0, ge=0, le=9)
    strait_fortifications: list[StraitFortification] = Field(
        default_factory=list, description="Closed strait fortifications on the stack's LoS at the start"
    )
    zone_maluses_entered: list[int] = Field(
        default_factory=list, max_length=40, description="Malus of each sea zone with a malus entered"
    )
    bad_weather: bool = False
    zones: list[SeaZone] = Field(min_length=1, max_length=41, description="Every sea zone of the move")
    zones_entered: int = Field(ge=0, le=40, description="Sea zones and ports entered")
    fleet_counters: int = Field(default=0, ge=0, le=10)
    arsenal_to_arsenal: bool = False
    start_distance_from_port: int = Field(
        default=0, ge=0, le=40, description="Zones from its port at the start (0 = adjacent)"
    )
    corsairs_minus: int = Field(default=0, ge=0, le=40, description="Unfriendly Corsair- along the path")
    corsairs_plus: int = Field(default=0, ge=0, le=40, description="Unfriendly Corsair+ along the path")
    blockading_at_start: bool = False
    blockading_leader_siege: int = Field(
        default=0, ge=0, le=9, description="Siege value of one LeaderA/LeaderE (if blockading at start)"
    )
    blockaded_fortress_level: int = Field(default=0, ge=0, le=5)
    ntd_loss_thirds: int | None = Field(
        default=None, ge=0, le=300,
        description="Thirds of the loss the controller puts on NTD (default: only what warships cannot take)",
    )
    remainders_version: RemaindersVersion = "2016"

    @model_validator(mode="after")
    def _check(self) -> SeaAttritionInputs:
        if self.ntd > self.nd:
            raise RulesError("more NTD than ND", field="ntd")
        if self.nd + self.nde == 0:
            raise RulesError("the naval stack has no ND or NDE", field="nd")
        if any(m < 0 or m > 9 for m in self.zone_maluses_entered):
            raise RulesError("a sea-zone malus is 0..9", field="zone_maluses_entered")
        return self


def sea_attrition_modifiers(i: SeaAttritionInputs) -> list[Modifier]:
    """M12 modifier list (eu-military-rules.tex §Attrition, Sea)."""
    r, s = "eu:M12", SEC_SEA
    mods = [Modifier(value=-6, reason="always", rule=r, section=s)]
    if i.commander_man:
        mods.append(Modifier(value=-i.commander_man, reason="MAN of the commanding leader", rule=r, section=s))
    strait = sum(f.drm for f in i.strait_fortifications)
    if strait:
        mods.append(Modifier(value=strait, reason="closed strait fortifications on the LoS", rule=r, section=s))
    malus = sum(i.zone_maluses_entered)
    if malus:
        mods.append(Modifier(value=malus, reason="maluses of the sea zones entered", rule=r, section=s))
    tech = NAVAL_TECH_DRM.get(i.technology, 0)
    if tech and not (i.technology == "CAR" and not i.has_nwd):
        mods.append(Modifier(value=tech, reason=f"technology {i.technology}" + (" (NWD)" if i.technology == "CAR" else ""), rule=r, section=s))
    if i.bad_weather:
        mods.append(Modifier(value=2, reason="bad weather", rule=r, section=s))
    diff = greatest_sea_difficulty(i.zones)
    if diff:
        mods.append(Modifier(value=diff, reason="greatest sea difficulty (−2 next to a supply port)", rule=r, section=s))
    dist = distance_modifier(i.zones_entered, i.fleet_counters)
    if dist:
        mods.append(Modifier(value=dist, reason=f"{i.zones_entered} zones entered with {i.fleet_counters} FLEET counter(s)", rule=r, section=s))
    if i.fleet_counters >= 2 and i.arsenal_to_arsenal:
        mods.append(Modifier(value=-1, reason="several FLEET counters from an arsenal to another", rule=r, section=s))
    start = start_distance_modifier(i.start_distance_from_port)
    if start:
        mods.append(Modifier(value=start, reason=f"started {i.start_distance_from_port} zone(s) away from its port", rule=r, section=s))
    if i.corsairs_minus:
        mods.append(Modifier(value=i.corsairs_minus, reason=f"{i.corsairs_minus} unfriendly Corsair- along the path", rule=r, section=s))
    if i.corsairs_plus:
        mods.append(Modifier(value=2 * i.corsairs_plus, reason=f"{i.corsairs_plus} unfriendly Corsair+ along the path", rule=r, section=s))
    if i.blockading_at_start and i.blockading_leader_siege:
        mods.append(Modifier(value=-i.blockading_leader_siege, reason="siege value of the blockading leader", rule=r, section=s))
    if i.blockading_at_start and i.blockaded_fortress_level:
        half_up = -(-i.blockaded_fortress_level // 2)
        mods.append(Modifier(value=half_up, reason="half the level of the blockaded fortress (round up)", rule=r, section=s))
    return mods


def split_ntd_losses(i: SeaAttritionInputs, lost_thirds: int) -> tuple[int, int]:
    """(NTD destroyed, thirds lost by the other ND/NDE). Any NTD taking at least one
    NDE of loss is destroyed whole; the controller chooses which ND are sunk."""
    other = to_thirds(i.nd - i.ntd, i.nde)
    least_on_ntd = max(0, lost_thirds - other)
    on_ntd = least_on_ntd if i.ntd_loss_thirds is None else i.ntd_loss_thirds
    if on_ntd < least_on_ntd or on_ntd > min(lost_thirds, 3 * i.ntd):
        raise RulesError(
            f"the loss put on NTD must be between {least_on_ntd} and {min(lost_thirds, 3 * i.ntd)} thirds",
            field="ntd_loss_thirds", rule="eu:M12")
    return -(-on_ntd // 3), lost_thirds - on_ntd


@EU.procedure("M12", title="Movement attrition at sea", seed=SEC_SEA, inputs=SeaAttritionInputs,
              options=("remainders_version",))
def resolve_sea_attrition(inputs: SeaAttritionInputs, dice: DiceSource) -> Ruling:
    """M12: 1d10 + modifiers → 'ROTW or Sea' percentage → remainders per 10 ND."""
    i = inputs
    mods = sea_attrition_modifiers(i)
    die = dice.roll("sea attrition")
    total = die.total + sum_modifiers(mods)
    percent = rotw_percent(total)
    rem = apply_remainders(to_thirds(i.nd, i.nde), percent, dice, version=i.remainders_version,
                           purpose="sea attrition")
    lost = rem.thirds_before - rem.thirds_left
    ntd_destroyed, other_thirds = split_ntd_losses(i, lost)
    effects: list[Effect] = []
    if other_thirds:
        effects.append(Effect(kind="nd_lost", country=i.country, target=i.stack, amount=Fraction(other_thirds, 3),
                              detail={"cause": "sea attrition", "percent": percent, "chosen_by": "controller"}))
    if ntd_destroyed:
        effects.append(Effect(kind="ntd_lost", country=i.country, target=i.stack, amount=Fraction(ntd_destroyed),
                              detail={"cause": "sea attrition", "rule": "an NTD losing at least one NDE is destroyed"}))
    outcome = {
        **rem.outcome(),
        "ntd_destroyed": ntd_destroyed,
        "other_nd_lost": str(Fraction(other_thirds, 3)),
        # what the stack keeps once the hit NTD are removed whole
        "left_after_ntd": str(Fraction(rem.thirds_before - other_thirds - 3 * ntd_destroyed, 3)),
        "carried_land_percent": percent,  # a carried land stack loses the same percentage
        "stack_destroyed": rem.thirds_left == 0,
    }
    return EU.ruling(
        "M12", i, modifiers=tuple(mods), dice=(die, *rem.dice), total=total, table_cell=rotw_table_cell(total),
        outcome={**outcome, "table_cells": [c.model_dump(mode="json") for c in rem.cells]},
        effects=tuple(effects),
        summary=f"sea attrition {total}: {percent}% → {rem.lost} ND lost ({ntd_destroyed} NTD destroyed), {rem.left} left",
    )
