"""C6 weather (pf-cohesion-wargame-tables.fr.txt, TABLE MÉTÉO).

"Pluie *": this turn is ordinary rain and the next turn is automatically mud, "pas la
peine de jeter le dé"; the ruling says so in ``outcome["carry"]["forced_mud"]`` and the
application fills it into the next C6 request.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, TableCell, clamp
from ledger.rules.pfc import PFC
from ledger.rules.pfc._common import WEATHER_FR, section, table

SEC_WEATHER = section("TABLE MÉTÉO")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


class WeatherInputs(BaseModel):
    """The turn's month, and whether the previous turn's Rain★ forces mud (C6)."""

    model_config = ConfigDict(extra="forbid")

    month: int = Field(ge=1, le=12, description="Month of the turn, 1 = January")
    forced_mud: bool = Field(default=False, description="The previous turn's weather was Rain★: this turn is mud")


@PFC.procedure("C6", title="Weather", seed=SEC_WEATHER, inputs=WeatherInputs, carry=("forced_mud",))
def resolve_weather(inputs: WeatherInputs, dice: DiceSource) -> Ruling:
    """pfc:C6 — 1d6 + month modifier in the season column; Rain★ forces mud next turn."""
    t = table("weather.toml")
    month = MONTHS[inputs.month - 1]
    if inputs.forced_mud:
        # "le tour suivant sera automatiquement un tour de Boue (pas la peine de jeter le dé)": no die.
        return PFC.ruling(
            "C6", inputs,
            outcome={"weather": "mud", "rain_star": False, "forced": True, "carry": {"forced_mud": False}},
            effects=(Effect(kind="weather", detail={"weather": "mud", "forced_by_rain_star": True}),),
            summary=f"{month}: mud, forced by the previous turn's Rain★ (no die)",
        )
    mods = []
    m = t["month_modifiers"][inputs.month - 1]
    if m:
        mods.append(Modifier(value=m, reason=f"{month} ({m:+d} au d6)", rule="pfc:C6", section=f"{SEC_WEATHER} / Modificateurs"))
    die = dice.roll("weather", sides=6)
    total = die.total + sum(x.value for x in mods)
    index = clamp(total, t["die_min"], t["die_max"]) - 1
    season = t["seasons"][inputs.month - 1]
    result = t["columns"][season][index]
    star = result == "rain_star"
    weather = "rain" if star else result
    return PFC.ruling(
        "C6", inputs, modifiers=tuple(mods), dice=(die,), total=total,
        table_cell=TableCell(table="pfc weather", row=t["row_labels"][index], column=season,
                             value=WEATHER_FR[weather] + (" *" if star else "")),
        outcome={"weather": weather, "rain_star": star, "forced": False, "carry": {"forced_mud": star}},
        effects=(Effect(kind="weather", detail={"weather": weather, "mud_next_turn": star}),),
        summary=f"{month}: {WEATHER_FR[weather]}" + (" * (next turn is mud, no die)" if star else ""),
    )
