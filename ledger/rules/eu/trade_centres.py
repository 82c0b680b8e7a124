"""I5 Trade centres: each centre goes to the country with most fleets in its zones.

Source: seed eu-redeployment-peace-interphase.tex §Trade centres. Table:
``tables/trade_centres.toml``. Ties are broken "at random": one recorded die
with as many sides as tied countries, the countries taken in alphabetical
order (DECISIONS.md, I5).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Ruling, RulesError, Step, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode, TradeZone

PACKAGE = "ledger.rules.eu"
SECTION = "eu-redeployment-peace-interphase.tex §Trade centres"

Centre = Literal["mediterranean", "indian_ocean", "atlantic"]
CENTRES: tuple[Centre, ...] = ("mediterranean", "indian_ocean", "atlantic")


def _table() -> dict:
    return load_table(PACKAGE, "trade_centres.toml")


def centre_of_zone(zone: str) -> Centre:
    """The centre a trade zone (STZ or CTZ, by its seed name) counts for; an unknown zone is an error."""
    zones = _table()["zones"]
    if zone not in zones:
        raise RulesError(f"unknown trade zone {zone!r}", field="zone", rule="eu:I5")
    return zones[zone]["centre"]




class FleetCount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    zone: TradeZone
    fleets: int = Field(ge=0, description="Trade fleets of the country in the zone")


class TradeCentresInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fleets: list[FleetCount] = Field(default_factory=list)
    current_owners: dict[Centre, CountryCode | None] = Field(
        default_factory=dict, description="Who holds each centre now (None: unavailable)"
    )


def fleet_totals(fleets: list[FleetCount]) -> dict[Centre, Counter[str]]:
    totals: dict[Centre, Counter[str]] = {c: Counter() for c in CENTRES}
    for f in fleets:
        if f.fleets:
            totals[centre_of_zone(f.zone)][f.country] += f.fleets
    return totals


@EU.procedure("I5", title="Trade centres", seed=SECTION, inputs=TradeCentresInputs)
def resolve_trade_centres(inputs: TradeCentresInputs, dice: DiceSource) -> Ruling:
    """I5: for each centre, the greatest number of fleets in its zones; ties by a die."""
    totals = fleet_totals(inputs.fleets)
    steps: list[Step] = []
    effects: list[Effect] = []
    owners: dict[str, str | None] = {}
    for centre in CENTRES:
        counts = totals[centre]
        current = inputs.current_owners.get(centre)
        step_dice = ()
        if not counts:
            # Nobody has fleets there: the centre stays where it is.
            owner, reason = current, "no fleets in its zones: unchanged"
        else:
            best = max(counts.values())
            tied = sorted(c for c, n in counts.items() if n == best)
            if len(tied) == 1:
                owner, reason = tied[0], f"most fleets ({best})"
            else:
                die = dice.roll(f"trade centre {centre}: tie between {', '.join(tied)}", sides=len(tied))
                step_dice = (die,)
                owner, reason = tied[die.total - 1], f"tie at {best} fleets broken by the die"
        owners[centre] = owner
        moved = owner != current
        steps.append(
            Step(name=_table()["centres"][centre]["name"], dice=step_dice,
                 outcome={"owner": owner, "previous": current, "changed": moved, "reason": reason,
                          "fleets": dict(sorted(counts.items()))})
        )
        if moved and owner is not None:
            effects.append(
                Effect(kind="marker_placed", country=owner, marker=f"trade centre {centre}",
                       detail={"previous": current,
                               "placement": "a national port of the new owner (on the centre's sea if any)"})
            )
    return EU.ruling(
        "I5",
        inputs,
        steps=tuple(steps),
        outcome={"owners": owners},
        effects=tuple(effects),
        summary="; ".join(f"{c}: {o or '—'}" for c, o in owners.items()),
    )
