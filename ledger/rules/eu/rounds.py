"""Military setup and rounds: M1 Initiative, M2 Starting round, M3 Continuation
roll, M4 Wintering (eu-military-rules.tex §Military setup, §Rounds).

The rounds display (boxes and arrows) is ruleset data, ``tables/rounds_display.toml``,
read from the drawing of the rounds track (see DECISIONS.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Die, Effect, Modifier, Ruling, TableCell, clamp, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode

SEED = "eu-military-rules.tex"
SEC_INITIATIVE = f"{SEED} §Military setup/Initiative"
SEC_START = f"{SEED} §Military setup/Starting round"
SEC_CONT = f"{SEED} §Rounds/Continuation roll"
SEC_WINTER = f"{SEED} §Rounds/Wintering"

Period = Literal["I", "II", "III", "IV", "V", "VI", "VII"]
Box = Literal["W0", "S1", "W1", "S2", "W2", "S3", "W3", "S4", "W4", "S5", "W5"]
BoxOrEnd = Literal["W0", "S1", "W1", "S2", "W2", "S3", "W3", "S4", "W4", "S5", "W5", "End"]



def _display() -> dict:
    return load_table("ledger.rules.eu", "rounds_display.toml")


def box_year(box: str) -> int:
    """The year of a box; the End box counts as S6 (M4: 'considered as being S6')."""
    return 6 if box == "End" else int(box[1])


def box_season(box: str) -> str | None:
    return None if box == "End" else {"S": "summer", "W": "winter"}[box[0]]


# --------------------------------------------------------------------------- M1


class InitiativeInputs(BaseModel):
    """Countries at war this turn with their initiative, and who is allied to whom."""

    model_config = ConfigDict(extra="forbid")

    initiatives: dict[CountryCode, Annotated[int, Field(ge=0, le=99)]] = Field(
        min_length=1, description="Initiative of each country taking part (country code → value)"
    )
    alliances: list[list[CountryCode]] = Field(
        default_factory=list,
        description="Groups of countries allied together this turn; alliances are transitive, "
        "so overlapping groups merge. A country in no group plays alone.",
    )

    @model_validator(mode="after")
    def _members_known(self) -> "InitiativeInputs":
        for group in self.alliances:
            for code in group:
                if code not in self.initiatives:
                    raise ValueError(f"alliances: {code!r} has no initiative in 'initiatives'")
        return self


def merge_alliances(countries: list[str], groups: list[list[str]]) -> list[tuple[str, ...]]:
    """Transitive closure of the alliance groups (M1: 'the ally of my ally is my ally')."""
    parent = {c: c for c in countries}

    def find(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for group in groups:
        for other in group[1:]:
            a, b = find(group[0]), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    blocs: dict[str, list[str]] = {}
    for c in countries:
        blocs.setdefault(find(c), []).append(c)
    return sorted(tuple(sorted(m)) for m in blocs.values())


def _break_tie(blocs: list[tuple[str, ...]], dice: DiceSource, drawn: list[Die], ties: list[dict]) -> list:
    """Order tied alliances at random: one recorded d10 per alliance, highest
    first; alliances still tied roll again among themselves."""
    rolls = []
    for bloc in blocs:
        die = dice.roll(f"initiative tie: {'+'.join(bloc)}")
        drawn.append(die)
        rolls.append((die.total, bloc))
    ties.append({"alliances": [list(b) for b in blocs], "rolls": [r for r, _ in rolls]})
    ordered: list[tuple[str, ...]] = []
    for value in sorted({r for r, _ in rolls}, reverse=True):
        same = [b for r, b in rolls if r == value]
        ordered.extend(same if len(same) == 1 else _break_tie(same, dice, drawn, ties))
    return ordered


@EU.procedure("M1", title="Initiative", seed=SEC_INITIATIVE, inputs=InitiativeInputs)
def resolve_initiative(inputs: InitiativeInputs, dice: DiceSource) -> Ruling:
    """M1: alliances (transitive) play at the lowest initiative of their members,
    in decreasing order; ties are broken by recorded dice."""
    blocs = merge_alliances(sorted(inputs.initiatives), inputs.alliances)
    level = {b: min(inputs.initiatives[c] for c in b) for b in blocs}
    drawn: list[Die] = []
    ties: list[dict] = []
    order: list[tuple[str, ...]] = []
    for value in sorted(set(level.values()), reverse=True):
        same = [b for b in blocs if level[b] == value]
        order.extend(same if len(same) == 1 else _break_tie(same, dice, drawn, ties))
    rows = [
        {"position": i + 1, "alliance": list(b), "initiative": level[b]} for i, b in enumerate(order)
    ]
    summary = " > ".join(f"{'+'.join(b)} ({level[b]})" for b in order)
    return EU.ruling(
        "M1",
        inputs,
        dice=tuple(drawn),
        outcome={"order": rows, "ties": ties},
        effects=(Effect(kind="note", detail={"initiative_order": [list(b) for b in order]}),),
        summary=f"Initiative order: {summary}",
    )


# --------------------------------------------------------------------------- M2 / M3


def _round_effects(
    previous: str | None,
    new: str,
    *,
    arrow: str | None,
    extended: bool,
    wintering: bool,
    bad_weather: list[str],
    sund_frozen: bool,
) -> tuple[Effect, ...]:
    effects = [
        Effect(
            kind="round_changed",
            target=new,
            detail={
                "from": previous,
                "to": new,
                "arrow": arrow,
                "extended_campaign": extended,
                "wintering": wintering,
                "rounds_end": new == "End",
            },
        )
    ]
    if bad_weather:
        effects.append(Effect(kind="weather", target=new, detail={"bad_weather": True, "reasons": bad_weather}))
    if sund_frozen:
        effects.append(Effect(kind="marker_placed", marker="Sund frozen", target="Sund", detail={"round": new}))
    return tuple(effects)


class StartingRoundInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    poor_weather: bool = Field(default=False, description="The Poor weather economic event happened this turn")


@EU.procedure("M2", title="Starting round", seed=SEC_START, inputs=StartingRoundInputs)
def resolve_starting_round(inputs: StartingRoundInputs, dice: DiceSource) -> Ruling:
    """M2: one die, never modified, read in the boxes of the rounds display."""
    die = dice.roll("starting round")
    box = _display()["starting"][str(die.total)]
    winter = box_season(box) == "winter"
    # Weather 'as usual': no red arrow here, so only Poor weather makes a
    # Winter round bad; the seed adds the Sund frozen on a '1' with Poor weather.
    bad = ["poor weather: every Winter round is played with bad weather"] if inputs.poor_weather and winter else []
    sund = inputs.poor_weather and winter and die.total == 1
    outcome = {
        "round": box,
        "season": box_season(box),
        "year": box_year(box),
        "extended_campaign": False,
        "bad_weather": bool(bad),
        "sund_frozen": sund,
        "wintering": False,
        "reason": "the starting-round die is never modified",
    }
    weather = ", bad weather" if bad else ""
    return EU.ruling(
        "M2",
        inputs,
        dice=(die,),
        total=die.total,
        table_cell=TableCell(table="Rounds display (starting round)", row=str(die.total), value=box),
        outcome=outcome,
        effects=_round_effects(None, box, arrow=None, extended=False, wintering=False, bad_weather=bad, sund_frozen=sund),
        summary=f"Starting round {box} (die {die.total}, unmodified){weather}" + (", the Sund is frozen" if sund else ""),
    )


class ContinuationInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    previous_round: Box = Field(description="Box of the round just played (the End box stops the rounds)")
    period: Period = Field(description="Current period, I-VII")
    poor_weather: bool = Field(default=False, description="The Poor weather economic event happened this turn")


def continuation_modifiers(inputs: ContinuationInputs) -> list[Modifier]:
    mods = []
    if inputs.poor_weather:
        mods.append(Modifier(value=2, reason="poor weather this turn", rule="eu:M3", section=SEC_CONT))
    if inputs.period in ("VI", "VII"):
        mods.append(Modifier(value=-1, reason=f"period {inputs.period}", rule="eu:M3", section=SEC_CONT))
    return mods


def follow_arrow(box: str, roll: int) -> tuple[str, str, int, int]:
    """The arrow a (clamped) modified roll follows out of ``box``: (target, colour, low, high)."""
    for low, high, target, colour in _display()["arrows"][box]:
        if low <= roll <= high:
            return target, colour, low, high
    raise AssertionError(f"rounds display has no arrow for {roll} out of {box}")  # data error


@EU.procedure("M3", title="Continuation roll", seed=SEC_CONT, inputs=ContinuationInputs)
def resolve_continuation(inputs: ContinuationInputs, dice: DiceSource) -> Ruling:
    """M3: 1d10 (+2 poor weather, -1 periods VI-VII) → arrow of the rounds display.

    Not rolled in the first round of a turn (that is M2). Red arrow → extended
    campaign; extended campaign after an unmodified 1, 3 or 5 → bad weather;
    poor weather → every Winter round bad, and a Winter after an unmodified 1
    freezes the Sund; End → rounds stop (Wintering then Military cleanup).
    """
    mods = continuation_modifiers(inputs)
    die = dice.roll("continuation roll")
    total = die.total + sum(m.value for m in mods)
    read = clamp(total, 1, 10)
    new, colour, low, high = follow_arrow(inputs.previous_round, read)
    end = new == "End"
    extended = colour == "red"
    winter = box_season(new) == "winter"
    bad: list[str] = []
    if extended and die.total in (1, 3, 5):
        bad.append(f"extended campaign after an unmodified {die.total}")
    if inputs.poor_weather and winter:
        bad.append("poor weather: every Winter round is played with bad weather")
    sund = inputs.poor_weather and winter and die.total == 1
    wintering = box_year(new) != box_year(inputs.previous_round)
    outcome = {
        "round": new,
        "season": box_season(new),
        "year": box_year(new),
        "arrow": colour,
        "extended_campaign": extended,
        "bad_weather": bool(bad),
        "bad_weather_reasons": bad,
        "sund_frozen": sund,
        "wintering": wintering,
        "rounds_end": end,
        "next": "Wintering, then Military cleanup" if end else ("Wintering, then Impulses" if wintering else "Impulses"),
    }
    rows = f"{low}" if low == high else f"{low}-{high}"
    parts = [f"{inputs.previous_round} → {new} (die {die.total}, total {total})"]
    if end:
        parts.append("the rounds stop")
    if extended:
        parts.append("extended campaign")
    if bad:
        parts.append("bad weather")
    if sund:
        parts.append("the Sund is frozen")
    if wintering:
        parts.append("Wintering")
    return EU.ruling(
        "M3",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table="Rounds display (continuation)", row=rows, column=inputs.previous_round, value=new),
        outcome=outcome,
        effects=_round_effects(
            inputs.previous_round, new, arrow=colour, extended=extended, wintering=wintering, bad_weather=bad, sund_frozen=sund
        ),
        summary="; ".join(parts),
    )


# --------------------------------------------------------------------------- M4

from ledger.rules.core import Step  # noqa: E402
from ledger.rules.eu.supply import SupplyAttritionInputs, resolve_supply_attrition  # noqa: E402


class ColdAreaStack(BaseModel):
    """A stack in the Cold area at Wintering; it rolls only in a province that
    is neither controlled nor national (M4)."""

    model_config = ConfigDict(extra="forbid")

    controlled_or_national_province: bool = Field(
        default=False, description="The province is controlled by the stack's side or national: no roll"
    )
    attrition: SupplyAttritionInputs = Field(description="The stack's supply-attrition inputs (M6)")


class PashaAttrition(BaseModel):
    """A stack with Timars out of Turkish national territory: the Turkish rules
    are not in the seeds, so the game master records the result."""

    model_config = ConfigDict(extra="forbid")

    stack: str = Field(min_length=1, max_length=80)
    gm_reading: str = Field(min_length=1, max_length=200, description="Result of the Turkish pashas attrition")


class WinteringInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    previous_round: Box = Field(description="Box of the previous round")
    new_round: BoxOrEnd = Field(description="Box of the round being entered (End counts as S6)")
    cold_area_stacks: list[ColdAreaStack] = Field(default_factory=list, max_length=40)
    pasha_stacks: list[PashaAttrition] = Field(default_factory=list, max_length=20)
    wounded_leaders: list[str] = Field(default_factory=list, max_length=40, description="Leaders wounded in a previous round: they come back")
    redeploying_countries: list[CountryCode] = Field(
        default_factory=list, max_length=16, description="Countries redeploying leaders (then hierarchy must hold globally)"
    )

    @model_validator(mode="after")
    def _order(self) -> "WinteringInputs":
        order = _display()["boxes"]
        if order.index(self.new_round) <= order.index(self.previous_round):
            raise ValueError("new_round: must come after previous_round on the rounds display")
        return self


@EU.procedure("M4", title="Wintering", seed=SEC_WINTER, inputs=WinteringInputs)
def resolve_wintering(inputs: WinteringInputs, dice: DiceSource) -> Ruling:
    """M4: when the year changes (and at End, as S6): cold-area attrition as a
    supply attrition (M6, a separate roll), Turkish pashas attrition
    (GM-supplied), leader redeployment, wounded leaders return."""
    if box_year(inputs.new_round) == box_year(inputs.previous_round):
        return EU.ruling(
            "M4", inputs, outcome={"wintering": False, "reason": "same year: skip to the Impulses"},
            summary=f"No Wintering ({inputs.previous_round} → {inputs.new_round}, same year)",
        )
    steps: list[Step] = []
    effects: list[Effect] = []
    rolled, skipped = [], []
    for n, cold in enumerate(inputs.cold_area_stacks, 1):
        name = cold.attrition.stack or f"stack {n}"
        if cold.controlled_or_national_province:
            skipped.append(name)
            continue
        ruling = resolve_supply_attrition(cold.attrition, dice)
        steps.append(
            Step(name=f"cold area attrition: {name}", side=cold.attrition.country, modifiers=ruling.modifiers,
                 dice=ruling.dice, total=ruling.total, table_cell=ruling.table_cell, outcome=ruling.outcome)
        )
        effects.extend(ruling.effects)
        rolled.append(name)
    gm = tuple(f"pashas attrition of {p.stack}: {p.gm_reading}" for p in inputs.pasha_stacks)
    for p in inputs.pasha_stacks:
        steps.append(Step(name=f"pashas attrition: {p.stack}", outcome={"gm_reading": p.gm_reading}))
        effects.append(Effect(kind="note", target=p.stack, detail={"pashas_attrition": p.gm_reading}))
    for leader in inputs.wounded_leaders:
        effects.append(Effect(kind="note", target=leader, detail={"wounded_leader_returns": True}))
    for country in inputs.redeploying_countries:
        effects.append(Effect(kind="note", country=country, detail={"leader_redeployment": "free; hierarchy must be respected globally, except besieged leaders and leaders with discoveries not brought back"}))
    outcome = {
        "wintering": True,
        "year": box_year(inputs.new_round),
        "cold_area_rolled": rolled,
        "cold_area_skipped": skipped,
        "pashas": [p.stack for p in inputs.pasha_stacks],
        "wounded_leaders_return": list(inputs.wounded_leaders),
        "redeploying_countries": list(inputs.redeploying_countries),
        "next": "Military cleanup" if inputs.new_round == "End" else "Impulses",
    }
    return EU.ruling(
        "M4", inputs, steps=tuple(steps), outcome=outcome, effects=tuple(effects), gm_supplied=gm,
        summary=f"Wintering before {inputs.new_round}: {len(rolled)} cold-area roll(s), {len(inputs.pasha_stacks)} pasha stack(s), "
        f"{len(inputs.wounded_leaders)} wounded leader(s) back",
    )
