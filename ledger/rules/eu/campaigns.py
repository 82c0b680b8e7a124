"""M8 Campaign choice and cost (eu-military-rules.tex §Choice of campaign).

No die: the procedure costs the land and sea campaigns separately, pays the
larger (a tick on ERS B40-B43 with the ducats), applies the minors' free
campaigns and the upgrade of an extended campaign, and states the
interception rights that follow the campaign paid.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Ruling, TableCell, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import MAJOR_TYPES, MINOR_TYPES, CountryCode, MajorCode, country_type
from ledger.rules.names import TYPE_WORDS

SEC = "eu-military-rules.tex §Choice of campaign"

CampaignKind = Literal["none", "passive", "active", "active_without_logistics", "major", "multiple"]
CountryStatus = Literal["major", "minor_limited_intervention", "minor_at_war"]


def campaigns() -> dict:
    return load_table("ledger.rules.eu", "campaigns_list.toml")["campaigns"]


def campaign(kind: str) -> dict:
    return campaigns()[kind]


def cost(kind: str) -> int:
    return campaign(kind)["cost"]


def larger(*kinds: str) -> str:
    """The campaign paid among several: the most expensive; on equal cost the
    wider one (Active without logistics over Passive, DECISIONS.md M8)."""
    return max(kinds, key=lambda k: (campaign(k)["cost"], campaign(k)["rank"]))


def interception_rights(last_campaign: str | None, *, first_round_no_impulse_yet: bool = False) -> dict:
    """Interception rights that follow the last campaign paid (M8, used by M14/M15).

    During the first round, stacks of a country that had no impulse yet
    intercept as if it had done a passive campaign.
    """
    kind = "passive" if first_round_no_impulse_yet and last_campaign in (None, "none") else (last_campaign or "none")
    level = campaign(kind)["interception"]
    return {
        "campaign": kind,
        "level": level,
        "land": {"none": "none", "passive": "only in friendly provinces", "any": "any"}[level],
        "sea": {"none": "none", "passive": "only stacks with at most 1 FLEET", "any": "any"}[level],
    }


def allows_active(kind: str, domain: Literal["land", "sea"], stacks: list[tuple[int, int]] | list[int]) -> bool:
    """Whether a campaign lets these stacks all do active moves (land) / actions (sea).

    Land stacks are ``(LD, Pashas)`` pairs, sea stacks their number of FLEET
    counters. The campaign's alternatives are "either ... or".
    """
    if not stacks:
        return True
    for option in campaign(kind)[f"{domain}_active"]:
        if option["stacks"] == "one" and len(stacks) > 1:
            continue
        if all(_fits(option, domain, s) for s in stacks):
            return True
    return False


def _fits(option: dict, domain: str, stack: tuple[int, int] | int) -> bool:
    if domain == "land":
        ld, pashas = stack  # type: ignore[misc]
        return ld <= option.get("max_ld", ld) and pashas <= option.get("max_pashas", pashas)
    return stack <= option.get("max_fleets", stack)  # type: ignore[operator]


class CampaignInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode = Field( description="Country doing the campaign")
    land: CampaignKind = Field(default="none", description="Campaign needed by the land moves this round")
    sea: CampaignKind = Field(default="none", description="Campaign needed by the sea moves this round")
    country_status: CountryStatus = Field(
        default="major",
        description="major; minor in limited intervention (1 simple campaign a turn + 1 passive a round free); "
        "minor fully at war (1 simple campaign a round free)",
    )
    controller: MajorCode | None = Field(
        default=None, description="Major controlling the minor, who pays any upgrade"
    )
    simple_campaign_used_this_turn: bool = Field(
        default=False, description="Minor in limited intervention: its one simple campaign of the turn is already used"
    )
    extended_from: CampaignKind | None = Field(
        default=None,
        description="Extended campaign: the campaign already paid at the first round of it "
        "(a single campaign over two rounds, which may be upgraded)",
    )

    @model_validator(mode="after")
    def _controller(self) -> "CampaignInputs":
        if self.country_status != "major" and not self.controller:
            raise ValueError("controller: a minor's campaign upgrade is paid by its controlling major")
        if self.country_status == "major" and self.controller:
            raise ValueError("controller: only a minor has a controller")
        if self.simple_campaign_used_this_turn and self.country_status != "minor_limited_intervention":
            raise ValueError("simple_campaign_used_this_turn: only for a minor in limited intervention")
        kind = country_type(self.country)
        if self.country_status == "major" and kind not in MAJOR_TYPES:
            raise ValueError(f"country_status: {self.country} is {TYPE_WORDS.get(kind, kind)} on the board, "
                             "not a major power: a minor's campaign is minor_limited_intervention or minor_at_war")
        if self.country_status != "major" and kind not in MINOR_TYPES:
            raise ValueError(f"country_status: {self.country} is {TYPE_WORDS.get(kind, kind)} on the board, "
                             "not a minor: a major's campaign has country_status major")
        return self


def _free_campaign(inputs: CampaignInputs) -> str:
    if inputs.country_status == "minor_at_war":
        return "active"
    if inputs.country_status == "minor_limited_intervention":
        return "passive" if inputs.simple_campaign_used_this_turn else "active"
    return "none"


@EU.procedure("M8", title="Campaign choice and cost", seed=SEC, inputs=CampaignInputs)
def resolve_campaign(inputs: CampaignInputs, dice: DiceSource) -> Ruling:
    """M8: land and sea costed separately, the larger paid; a tick on B40-B43."""
    wanted = larger(inputs.land, inputs.sea)
    free = _free_campaign(inputs)
    already = inputs.extended_from or "none"
    # The campaign in force: what is wanted, or what is already covered if better.
    in_force = larger(wanted, free, already)
    covered = larger(free, already)
    due = max(0, cost(in_force) - cost(covered))
    payer = inputs.controller or inputs.country
    effects: list[Effect] = []
    if due:
        line = campaign(in_force)["ers_line"]
        detail = {"campaign": in_force, "ticks": 1}
        if covered != "none":
            detail["difference_over"] = covered
        if covered != "none" and campaign(covered)["ers_line"]:
            # An upgrade pays the difference as whole ticks (the sheet counts ticks, DECISIONS.md
            # "ERS effects"): the covered campaign's tick is taken back, the new one ticked.
            reason = "extended campaign upgraded" if covered == already else "minor's free campaign upgraded"
            effects.append(
                Effect(
                    kind="ers_tick",
                    country=payer,
                    ers_line=campaign(covered)["ers_line"],
                    amount=-cost(covered),
                    detail={"campaign": covered, "ticks": -1, "reason": reason},
                )
            )
            effects.append(Effect(kind="ers_tick", country=payer, ers_line=line, amount=cost(in_force),
                                  detail={**detail, "reason": reason}))
        else:
            effects.append(Effect(kind="ers_tick", country=payer, ers_line=line, amount=due, detail=detail))
    rights = interception_rights(in_force)
    data = campaign(in_force)
    outcome = {
        "campaign": in_force,
        "land": inputs.land,
        "sea": inputs.sea,
        "cost_land": cost(inputs.land),
        "cost_sea": cost(inputs.sea),
        "free_campaign": free,
        "extended_from": inputs.extended_from,
        "ducats_paid": due,
        "payer": payer,
        "ers_line": data["ers_line"] if due else None,
        "interception": rights,
        "land_active": data["land_active"],
        "sea_active": data["sea_active"],
        "passive_actions": data["passive_actions"],
        "land_attrition_all_stacks_3ld": inputs.land == "active_without_logistics" and in_force == "active_without_logistics",
    }
    effects.insert(
        0,
        Effect(
            kind="campaign_chosen",
            country=inputs.country,
            detail={"campaign": in_force, "land": inputs.land, "sea": inputs.sea, "interception": rights["level"]},
        ),
    )
    return EU.ruling(
        "M8",
        inputs,
        table_cell=TableCell(table="List of campaigns", row=in_force, value=data["cost"]),
        outcome=outcome,
        effects=tuple(effects),
        summary=f"{inputs.country}: {data['label']} campaign (land {inputs.land}, sea {inputs.sea}), "
        f"{due} ducats paid by {payer}" + (f" on {data['ers_line']}" if due else "")
        + f"; interception: {rights['level']}",
    )
