"""I4 Inflation: the increase roll, then each country's loss on ERS A32.

Sources: seed eu-redeployment-peace-interphase.tex §Inflation; TABLES.md
"Inflation". Table: ``tables/inflation.toml``. The 2020 text's minimum loss
(at least the percentage, in ducats) is the ruleset option
``minimum_loss`` (DECISIONS.md, I4), off by default: the seeds are 2016.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Ruling, Step, TableCell, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode
from ledger.rules.eu.ers import pct_down

PACKAGE = "ledger.rules.eu"
SECTION = "eu-redeployment-peace-interphase.tex §Inflation"


def _table() -> dict:
    return load_table(PACKAGE, "inflation.toml")


def boxes() -> list[int]:
    return list(_table()["boxes"])


def increase_threshold(rotw_gold: int) -> int:
    """1d10 success threshold: 7+, or 3+ with more than 100 ducats of ROTW gold this turn."""
    t = _table()
    return t["success_on_with_gold"] if rotw_gold > t["gold_threshold"] else t["success_on"]


def country_rate(box: int, produces_american_gold: bool) -> int:
    """The percentage a country suffers: its box, or the box to the left without American gold (min 5%)."""
    t = _table()
    index = box if produces_american_gold else max(0, box - 1)
    return max(t["minimum_percent"], t["boxes"][index])


def inflation_loss(royal_treasury: int, rate: int, minimum_loss: bool = False) -> int:
    """ERS A32: ``rate`` % of |A31|, rounded down; the 2020 option makes it at least ``rate`` ducats."""
    loss = pct_down(abs(royal_treasury), rate)
    return max(loss, rate) if minimum_loss else loss


class InflationCountry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    royal_treasury: int = Field(description="ERS A31, RT after peace")
    produces_american_gold: bool = Field(description="Produces gold in America (else limited inflation)")


class InflationInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    box: int = Field(ge=0, le=9, description="Index of the counter on the track (0 = first 5% box)")
    rotw_gold_this_turn: int = Field(ge=0, description="Ducats of gold produced in the ROTW this turn")
    countries: list[InflationCountry] = Field(default_factory=list)
    minimum_loss: bool = Field(
        default=False, description="Ruleset option: the 2020 text's minimum loss of the percentage in ducats"
    )

    @model_validator(mode="after")
    def _unique(self) -> InflationInputs:
        names = [c.country for c in self.countries]
        if len(names) != len(set(names)):
            raise ValueError("a country is listed twice")
        return self


@EU.procedure("I4", title="Inflation", seed=f"{SECTION}; TABLES.md Inflation", inputs=InflationInputs,
              options=("minimum_loss",))
def resolve_inflation(inputs: InflationInputs, dice: DiceSource) -> Ruling:
    """I4: roll for the increase (before the loss), then each country loses its rate of |A31| on A32."""
    track = boxes()
    threshold = increase_threshold(inputs.rotw_gold_this_turn)
    die = dice.roll("inflation increase")
    success = die.total >= threshold
    at_max = inputs.box == len(track) - 1
    new_box = inputs.box + 1 if success and not at_max else inputs.box
    steps = [
        Step(
            name="increase roll",
            dice=(die,),
            total=die.total,
            table_cell=TableCell(table="Inflation track", row=f"box {inputs.box + 1}",
                                 column=f"{threshold}+", value=track[new_box]),
            outcome={"success": success, "threshold": threshold, "at_maximum": at_max,
                     "from_percent": track[inputs.box], "to_percent": track[new_box], "box": new_box},
        )
    ]
    effects: list[Effect] = []
    if new_box != inputs.box:
        effects.append(Effect(kind="inflation_changed", amount=1,
                              detail={"from_box": inputs.box, "to_box": new_box,
                                      "from_percent": track[inputs.box], "to_percent": track[new_box]}))
    losses = {}
    for c in inputs.countries:
        rate = country_rate(new_box, c.produces_american_gold)
        loss = inflation_loss(c.royal_treasury, rate, inputs.minimum_loss)
        losses[c.country] = {"percent": rate, "loss": loss, "limited": not c.produces_american_gold}
        # A32 is derived on the sheet (A32_pct of |A31|): only the percentage is entered; the loss
        # computed here from the A31 given is in the outcome (DECISIONS.md "ERS effects").
        effects.append(Effect(kind="ers_entry", country=c.country, ers_line="A32_pct", amount=rate,
                              detail={"reason": "inflation", "loss_on_given_A31": loss}))
    steps.append(Step(name="losses", outcome={"countries": losses}))
    return EU.ruling(
        "I4",
        inputs,
        steps=tuple(steps),
        outcome={"box": new_box, "percent": track[new_box], "increased": new_box != inputs.box, "countries": losses},
        effects=tuple(effects),
        summary=f"inflation roll {die.total} (needs {threshold}+): {track[inputs.box]}% → {track[new_box]}%",
    )
