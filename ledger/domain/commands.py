"""Commands: one named, strict model per write, built by the HTTP routes and the CLI alike.

A command is an order (``OpenTurn``, ``RecordRuling``); the events it appends
are facts (``TurnOpened``, ``RulingRecorded``). Every field is validated here,
once: strict types (``"35"`` or ``true`` is not an amount), lengths, patterns,
no NaN or infinity anywhere, not even inside free-form inputs, and every text a
person types by ledger/text.py's rule (NFC, no NUL or other control character:
``ONE_LINE`` after a text's constraints, ``LINES`` for a reason's several lines;
free-form JSON's texts through ``free_form``). What depends on
the campaign (is this country one of its countries, is this turn the open
one) is checked by the use case against the campaign's state
(``ledger/usecases/``), also once.

The idempotency hash of a request is the canonical JSON of its command
(``Command.request``): two different requests cannot share a key by accident,
since every field is in the hash.

Commands carry no campaign: the campaign is where they are sent
(``Ledger.handle(cid, command)``), as a URL path or a CLI argument says.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError,
                      ValidationInfo, field_validator)

from ledger.domain.errors import InvalidInput
from ledger.text import typed, typed_json

COUNTRY_PATTERN = r"^[A-Z]{2,4}$"
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
ERS_LINE_PATTERN = r"^[ABC]([1-9]|[1-4][0-9])(_pct)?$"  # _pct: a percentage sub-box (A15_pct)
COUNTRY_RE = re.compile(COUNTRY_PATTERN)
SLUG_RE = re.compile(SLUG_PATTERN)
ERS_LINE_RE = re.compile(ERS_LINE_PATTERN)
#: The longest reason (or purpose, or holder) a command carries: one limit for every command and surface.
TEXT_MAX = 500
MAX_POSITION = 2**53  # positions and turns past this do not survive a JSON number
MAX_AMOUNT = 1_000_000_000


def _one_line(value: Any) -> Any:
    return typed(value) if isinstance(value, str) else value  # not a text: the strict str check refuses it


def _lines(value: Any) -> Any:
    return typed(value, lines=True) if isinstance(value, str) else value


#: A text a person types, of one line (a purpose, a name, a place, a holder: ``ONE_LINE``) or of several (a reason:
#: line breaks and tabs allowed, CRLF made a line break: ``LINES``): NFC, no control character (ledger/text.py).
#: Every ``str`` field without a pattern or a fixed set of values is ``Annotated[str, <its constraints>, ONE_LINE]``
#: (tests/unit/test_typed_text.py checks it): after the constraints, so that the length is said of characters.
ONE_LINE = BeforeValidator(_one_line)
LINES = BeforeValidator(_lines)
Typed = Annotated[str, ONE_LINE]
#: A reason (several lines).
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TEXT_MAX), LINES]
#: A purpose: one line.
Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TEXT_MAX), ONE_LINE]
Country = Annotated[str, StringConstraints(pattern=COUNTRY_PATTERN)]
Position = Annotated[int, Field(ge=1, le=MAX_POSITION)]
Turn = Annotated[int, Field(ge=1, le=2**31)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=40), ONE_LINE]
PHASES = ("events", "diplomacy", "incomes", "military", "redeployment", "exchequer", "peace", "interphase")
Phase = Literal["events", "diplomacy", "incomes", "military", "redeployment", "exchequer", "peace", "interphase"]
MARKERS = ("Pillage+", "Pillage-", "Revolt", "Revolt+", "Siegework", "Siegework+", "Foraging", "Unrest")
Marker = Literal["Pillage+", "Pillage-", "Revolt", "Revolt+", "Siegework", "Siegework+", "Foraging", "Unrest"]
UNIT_TYPES = ("LD", "ND", "NTD", "NGD", "LDE", "NDE", "ARM", "FLT", "CAV", "ART")
UnitType = Literal["LD", "ND", "NTD", "NGD", "LDE", "NDE", "ARM", "FLT", "CAV", "ART"]
LeaderName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80), ONE_LINE]
SIEGE_ENDS = ("taken", "lifted", "relieved")


def free_form(value: Any) -> Any:
    """Free-form JSON (inputs, settings, details): no NaN or infinity (``finite``), every text in it ``typed``
    (several lines allowed; keys too), as a copy with its texts in NFC."""
    return typed_json(finite(value))


def finite(value: Any, where: str = "") -> Any:
    """Refuse NaN and infinities anywhere in free-form JSON (orjson would store them as null)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or 'value'} is not a finite number")
    if isinstance(value, dict):
        for k, v in value.items():
            finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            finite(v, f"{where}[{i}]")
    return value


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class Visibility(Model):
    """Who may read the events a command appends: everyone, some countries, or the game masters only."""

    scope: Literal["public", "countries", "gm"] = "public"
    countries: list[Country] | None = Field(default=None, max_length=40, examples=[["FRA"]],
                                            validate_default=True)

    @field_validator("countries")
    @classmethod
    def _countries_with_their_scope(cls, v: list[str] | None, info: ValidationInfo) -> list[str] | None:
        scope = info.data.get("scope", "public")
        if scope == "countries" and not v:
            raise ValueError("a 'countries' visibility names at least one country")
        if scope != "countries" and v:
            raise ValueError(f"a {scope!r} visibility names no countries")
        return v

    def as_dict(self) -> dict[str, Any]:
        if self.scope == "countries":
            return {"scope": "countries", "countries": sorted(set(self.countries or ()))}
        return {"scope": self.scope}


PUBLIC = Visibility()


class Context(Model):
    """Where in the sequence of play a command happens (the turn comes from the campaign)."""

    phase: Annotated[str, StringConstraints(max_length=40), ONE_LINE] | None = Field(None, examples=["military"])
    round: Annotated[str, StringConstraints(max_length=10), ONE_LINE] | None = Field(None, examples=["S2"])
    impulse: Annotated[str, StringConstraints(max_length=40), ONE_LINE] | None = Field(None, examples=["FRA"])
    # Where a ruling happened and which stacks its roles name: the map view places its effects with them.
    where: Annotated[str, StringConstraints(min_length=1, max_length=80), ONE_LINE] | None = Field(
        None, examples=["Picardie"], description="Province or sea zone of the ruling")
    stacks: dict[Name, Name] | None = Field(default=None, max_length=12,
                                            examples=[{"attacker": "ENG-1", "defender": "FRA-1"}],
                                            description="The ruling's roles (attacker, moving stack...) → stack ids")
    out_of_sequence: Text | None = Field(
        default=None, examples=["the interception was forgotten in the military phase"],
        description="Game master: keep the command although the sequence of play refuses it (why); recorded")

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Command(Model):
    """Base of every command. ``action``: its name in the access table (ledger/access.py)."""

    action: ClassVar[str]

    def request(self) -> dict[str, Any]:
        """What the idempotency hash covers: the command's name and every field."""
        return {"command": type(self).__name__, **self.model_dump(mode="json")}


def build(cls: type[Command], **fields: Any) -> Command:
    """A command from Python values (CLI, scripts), with the same validation as a request body.

    A validation error becomes ``InvalidInput`` naming the field, as over HTTP.
    """
    try:
        return cls.model_validate(fields)
    except ValidationError as e:
        raise invalid(e) from None


def invalid(e: ValidationError) -> InvalidInput:
    first = e.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ()))
    msg = first.get("msg", "invalid")
    msg = msg.removeprefix("Value error, ")
    return InvalidInput(f"{loc}: {msg}" if loc else msg, field=loc or None)


class _Visible(Command):
    visibility: Visibility = PUBLIC


class _InContext(_Visible):
    context: Context = Context()


# ------------------------------------------------------------------ campaigns and turns


class CreateCampaign(Command):
    """A new campaign: its countries, or a shipped scenario (``eu-1492``, ``sample-real``) that brings its
    board, countries, provinces, stacks and wars, recorded as ``ScenarioImported`` in the same append."""

    action: ClassVar[str] = "create_campaign"
    slug: str = Field(pattern=SLUG_PATTERN, examples=["europa-1492"])
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200), ONE_LINE] = Field(
        examples=["Europa 1492"])
    ruleset: Annotated[str, StringConstraints(min_length=1, max_length=20), ONE_LINE] = Field(default="eu",
                                                                                              examples=["eu"])
    scenario: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9-]{0,40}$", examples=["eu-1492"],
                                 description="A scenario shipped with the ledger (ledger/scenarios/NAME.yaml): "
                                             "its countries are the campaign's")
    board: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,30}$", examples=["eu"],
                              description="Without a scenario: the ruleset's board the rulings are checked "
                                          "against (its countries must be the board's)")
    countries: list[Country] = Field(default_factory=list, max_length=200, examples=[["ENG", "FRA"]],
                                     description="Required without a scenario (at most 40 then)")
    players: dict[Country, Annotated[str, StringConstraints(min_length=1, max_length=100), ONE_LINE]] = Field(
        default_factory=dict, examples=[{"ENG": "alice", "FRA": "bruno"}])
    game_masters: list[Annotated[str, StringConstraints(min_length=1, max_length=100), ONE_LINE]] | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    start: bool = Field(default=True, description="A scenario whose placement gives economic facts (eu-1492: "
                                                  "domestic trade, vassals, trade fleets...) records them at "
                                                  "set-up; false: a blank start, the game master sets them")

    @field_validator("countries")
    @classmethod
    def _no_repeats(cls, v: list[str], info: ValidationInfo) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("countries must not repeat")
        if info.data.get("scenario") is not None:
            if v:
                raise ValueError("the scenario names the countries: give either a scenario or countries")
        elif not v:
            raise ValueError("name at least one country, or a scenario")
        elif len(v) > 40:
            raise ValueError("at most 40 countries")
        return v

    @field_validator("settings")
    @classmethod
    def _free_form(cls, v: dict[str, Any]) -> dict[str, Any]:
        return free_form(v)

    @field_validator("players")
    @classmethod
    def _players_of_the_campaign(cls, v: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        if info.data.get("scenario") is not None:
            return v  # the use case checks them against the scenario's countries
        for c in v:
            if c not in info.data.get("countries", ()):
                raise ValueError(f"player for unknown country {c!r}")
        return v


class ImportScenario(Command):
    """The set-up of a new campaign (``ScenarioImported``), right after its creation (ledger/scenario.py)."""

    action: ClassVar[str] = "import_scenario"
    name: Annotated[str, StringConstraints(min_length=1, max_length=200), ONE_LINE]
    source: Annotated[str, StringConstraints(min_length=1, max_length=500), ONE_LINE]
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    scenario: dict[str, Any]

    @field_validator("scenario")
    @classmethod
    def _free_form(cls, v: dict[str, Any]) -> dict[str, Any]:
        return free_form(v)


class OpenTurn(Command):
    action: ClassVar[str] = "open_turn"


class CloseTurn(Command):
    """Close the open turn, named so that a game master never closes another one by mistake (else 409)."""

    action: ClassVar[str] = "close_turn"
    turn: Turn
    out_of_sequence: Text | None = Field(
        default=None, examples=["the peace and interphase were played at the table, not recorded"],
        description="Game master: close the turn although some of its phases are not closed (why); recorded")


class ClosePhase(Command):
    action: ClassVar[str] = "close_phase"
    phase: Phase


class SettingsChange(Model):
    players_may_roll: bool | None = Field(default=None, examples=[True],
                                          description="Players may roll server dice and record rulings")
    ers_visibility: Literal["country", "public"] | None = Field(
        default=None, examples=["public"],
        description="Who sees a treasury entry recorded from now on without a visibility: its country and "
                    "the game masters, or everyone. Entries already recorded keep theirs (publish a turn's "
                    "sheets to show them)")
    players_may_move: bool | None = Field(default=None, examples=[True],
                                          description="Players may move, split, merge and reinforce their own "
                                                      "country's stacks and start sieges with them")
    rules_options: dict[Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9]{0,5}\.[a-z_]{1,40}$")],
                        Typed | bool | int | list[Typed] | dict[Typed, int | Typed]] | None = Field(
        default=None, examples=[{"M21.artillery_source": "tables", "B31.payer": "owner"}],
        description="Ruleset options where the seeds disagree, \"CODE.field\": value (`ledger procedures RULESET` "
                    "lists each procedure's options), and the readings of the income lines (\"B31.payer\": "
                    "\"owner\", \"B7.mine_value\": 30: the keys of tables/board_income.toml and trade_income.toml, "
                    "DECISIONS.md); named options change, the others keep their value")
    time_zone: Annotated[str, StringConstraints(min_length=1, max_length=60), ONE_LINE] | None = Field(
        default=None, examples=["Europe/Paris"],
        description="The campaign's time zone (an IANA name): deadlines are typed in it, and shown in it to a "
                    "reader who chose none")
    close_when_all_ready: bool | None = Field(
        default=None, examples=[True],
        description="Close the phase the turn is in as soon as every country is marked ready")

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, v: str | None) -> str | None:
        if v is not None:
            from ledger.domain.zones import zone

            zone(v)  # ValueError in words, naming the closest zones
        return v


class ChangeSettings(Command):
    action: ClassVar[str] = "change_settings"
    settings: SettingsChange = Field(examples=[{"players_may_roll": True}])
    reason: Text = Field(examples=["players roll their own interceptions"])

    @field_validator("settings")
    @classmethod
    def _something_changes(cls, v: SettingsChange) -> SettingsChange:
        if not v.model_dump(exclude_none=True):
            raise ValueError("name at least one setting to change")
        return v

    def changed(self) -> dict[str, Any]:
        return self.settings.model_dump(exclude_none=True)


# ------------------------------------------------------------------ dice, rulings, treasury, corrections


class RollDice(_InContext):
    """Server dice; or, with ``values``, physical dice rolled at the table (flagged manual)."""

    action: ClassVar[str] = "roll"
    purpose: Line = Field(examples=["initiative tie FRA/SPA"])
    sides: int = Field(default=10, ge=2, le=1000)
    count: int = Field(default=1, ge=1, le=100)
    values: list[int] | None = Field(default=None, max_length=100,
                                     description="Physical dice entered by a game master (manual)")


class RecordRuling(_InContext):
    action: ClassVar[str] = "record_ruling"
    procedure: Annotated[str, StringConstraints(min_length=1, max_length=20), ONE_LINE] = Field(examples=["M13"])
    inputs: dict[str, Any] = Field(default_factory=dict)
    manual_dice: list[list[int]] | None = Field(default=None, max_length=100,
                                                description="Physical dice, in draw order")
    overrides: dict[Name, Text] | None = Field(
        default=None, max_length=10, examples=[{"terrain": "the battle was fought in the clearing by the river"}],
        description="Inputs kept although the board contradicts them (input → reason); recorded in the ruling")

    @field_validator("inputs")
    @classmethod
    def _free_form(cls, v: dict[str, Any]) -> dict[str, Any]:
        return free_form(v)


class RecordTreasuryEntry(_InContext):
    """An entry on a country's ERS. Without a visibility it follows the campaign's ``ers_visibility``
    setting (``country``: the owning country and the game masters; ``public``): a budget is private unless
    the campaign says otherwise."""

    action: ClassVar[str] = "record_treasury"
    visibility: Visibility | None = None  # type: ignore[assignment]
    country: Country = Field(examples=["FRA"])
    line: str = Field(pattern=ERS_LINE_PATTERN, examples=["A9"],
                      description="ERS line code: a sheet letter A, B or C and a line number (_pct: a percentage box)")
    amount: int = Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT, examples=[35],
                        description="Ducats, signed; on an expense line (B30 unit maintenance...: ``expense`` in "
                                    "the ruleset's ERS table) the expense as a positive number, a negative refused")
    reason: Text = Field(examples=["looting of Picardie"])
    turn: Turn | None = None
    source: Position | None = Field(default=None, description="Position of the event this entry comes from")
    keep: Text | None = Field(default=None, examples=["the Beira revolt was put down before the phase"],
                              description="On a line the board works out (B1, B30...): why the line is kept at "
                                          "another total than the board's (game master only)")


ErsLine = Annotated[str, StringConstraints(pattern=ERS_LINE_PATTERN)]


class KeptValue(Model):
    """A line kept at another value than the one the board works out, and why."""

    amount: int = Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT, examples=[27])
    reason: Text = Field(examples=["Beira's revolt was put down before the income phase"])


class ConfirmIncome(Command):
    """Record the ERS lines the board works out for the open turn (issue 36), for some countries or every one:
    one ``IncomeConfirmed`` per country and the treasury entries that book its lines (visibility: the
    campaign's ``ers_visibility``). ``position``: the state's position of the proposal the game master read; a
    proposal that changed since is refused (read it again). ``kept``: a line recorded at another value, with
    why (recorded as an override); ``values``: lines typed to check against the board (a difference is
    refused unless kept)."""

    action: ClassVar[str] = "confirm_income"
    position: Position = Field(description="The state's position the proposal was read at")
    countries: list[Country] | None = Field(default=None, min_length=1, max_length=40, examples=[["POR"]],
                                            description="Whose income (default: every country of the campaign)")
    values: dict[Country, dict[ErsLine, Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]]] | None = Field(
        default=None, max_length=40, examples=[{"POR": {"B1": 29}}],
        description="Lines typed by the game master, checked against the board's")
    kept: dict[Country, dict[ErsLine, KeptValue]] | None = Field(
        default=None, max_length=40, examples=[{"POR": {"B1": {"amount": 32, "reason": "Beira's revolt was over"}}}],
        description="Lines kept at another value than the board's, each with why")

    @field_validator("countries")
    @classmethod
    def _no_repeats(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and len(set(v)) != len(v):
            raise ValueError("countries must not repeat")
        return v


class RecordCorrection(Command):
    """A correction of an earlier event. Without a visibility it is seen by those who see the original:
    a dispute of a hidden event stays hidden."""

    action: ClassVar[str] = "record_correction"
    visibility: Visibility | None = None
    corrects: Position = Field(description="Position of the event corrected")
    reason: Text
    replacement: dict[str, Any] | None = None

    @field_validator("replacement")
    @classmethod
    def _free_form(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return free_form(v) if v is not None else v


class _Replacement(Model):
    """What a correction restates of one event type: only that type's fields, each with its own type."""

    def fields(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)

    def model_post_init(self, _context: Any) -> None:
        if not self.model_fields_set:
            raise ValueError("name at least one field to replace (or leave the replacement out to strike)")


class EntryReplacement(_Replacement):
    amount: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT)
    line: str | None = Field(default=None, pattern=ERS_LINE_PATTERN)
    turn: Turn | None = None
    country: Country | None = None


class MoveReplacement(_Replacement):
    stack: Name | None = None
    origin: Name | None = None
    destination: Name | None = None
    path: list[Name] | None = Field(default=None, min_length=2, max_length=40)


class ControlReplacement(_Replacement):
    province: Name | None = None
    controller: Country | None = None
    previous: Country | None = None


class OwnerReplacement(_Replacement):
    province: Name | None = None
    owner: Country | None = None
    previous: Country | None = None


class MarkerReplacement(_Replacement):
    province: Name | None = None
    marker: Marker | None = None


class WarReplacement(_Replacement):
    attackers: list[Country] | None = Field(default=None, min_length=1, max_length=40)
    defenders: list[Country] | None = Field(default=None, min_length=1, max_length=40)


class StackChangeReplacement(_Replacement):
    units: dict[UnitType, Annotated[int, Field(ge=-200, le=200)]] | None = None
    departed: list[LeaderName] | None = Field(default=None, max_length=12)


class FortressReplacement(_Replacement):
    province: Name | None = None
    level: int | None = Field(default=None, ge=0, le=5)


class SiegeReplacement(_Replacement):
    province: Name | None = None
    besiegers: list[Name] | None = Field(default=None, min_length=1, max_length=12)


class SiegeEndReplacement(_Replacement):
    province: Name | None = None
    outcome: Literal["taken", "lifted", "relieved"] | None = None


class TradeFleetReplacement(_Replacement):
    country: Country | None = None
    zone: Name | None = None
    level: Level | None = None


class TradeCentreReplacement(_Replacement):
    holder: Country | None = None
    province: Name | None = None
    income: int | None = Field(default=None, ge=0, le=1000)


class EstablishmentReplacement(_Replacement):
    country: Country | None = None
    place: Name | None = None
    level: Level | None = None
    exploits: dict[Resource, Annotated[int, Field(ge=1, le=60)]] | None = Field(default=None, max_length=13)
    gold: bool | None = None


class MissionReplacement(_Replacement):
    country: Country | None = None
    place: Name | None = None
    present: bool | None = None


class EffectReplacement(Model):
    """One effect of a ruling as a game master restates it (the kinds the projections apply)."""

    kind: Annotated[str, StringConstraints(min_length=1, max_length=40), ONE_LINE]
    country: Country | None = None
    target: Annotated[str, StringConstraints(min_length=1, max_length=80), ONE_LINE] | None = None
    amount: int | Annotated[str, StringConstraints(pattern=r"^-?\d+(/\d+)?$")] | None = None
    ers_line: str | None = Field(default=None, pattern=ERS_LINE_PATTERN)
    marker: Annotated[str, StringConstraints(max_length=40), ONE_LINE] | None = None
    detail: dict[str, Any] = Field(default_factory=dict)

    @field_validator("kind")
    @classmethod
    def _known(cls, v: str) -> str:
        from ledger.rules.core import EFFECT_KINDS

        if v not in EFFECT_KINDS:
            raise ValueError(f"unknown effect kind {v!r}")
        return v

    @field_validator("detail")
    @classmethod
    def _free_form(cls, v: dict[str, Any]) -> dict[str, Any]:
        return free_form(v)


class RulingReplacement(_Replacement):
    """``inputs``: resolve the procedure again with them (the recorded dice matched by purpose, as
    ``ReworkRuling``); ``effects``: restate what the ruling implies, its dice and outcome unchanged."""

    inputs: dict[str, Any] | None = None
    effects: list[EffectReplacement] | None = Field(default=None, max_length=200)
    overrides: dict[Name, Text] | None = Field(
        default=None, max_length=10, description="With inputs: inputs kept although the board or the map "
                                                 "contradicts them (input → reason), as when recording a ruling")

    @field_validator("inputs")
    @classmethod
    def _free_form(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return free_form(v) if v is not None else v

    def model_post_init(self, _context: Any) -> None:
        super().model_post_init(_context)
        if self.inputs is not None and self.effects is not None:
            raise ValueError("either inputs (resolved again) or effects (restated), not both")
        if self.overrides is not None and self.inputs is None:
            raise ValueError("overrides keep inputs resolved again: give the inputs too")


# ------------------------------------------------------------------ a country's economic facts

#: The manufactures' resources (engIncomes.tex, Manufactures: the triangular counters).
MANUFACTURES = ("Metal", "Instruments", "Art", "Cloth", "Wine", "Cereals", "Salt", "Fish", "Wood")
Technology = Annotated[str, StringConstraints(min_length=1, max_length=20), ONE_LINE]


class Manufacture(Model):
    """A manufacture counter on the map: its resource, the province it stands in, its level (the counter's side)
    and the fixed income printed on it."""

    resource: Literal["Metal", "Instruments", "Art", "Cloth", "Wine", "Cereals", "Salt", "Fish", "Wood"]
    province: Name = Field(examples=["Tejo"])
    level: int = Field(default=1, ge=1, le=2)
    income: int = Field(ge=0, le=1000, examples=[7], description="The fixed income printed on the counter")


class CountryFacts(Model):
    """The economic facts of a country the income lines read, each optional: a fact left out keeps its value.

    One model for every kind of fact (rather than one command per kind): the game master sets them together
    on one setup form, a correction restates any of them with the same typed fields, and the facts econ-trade
    adds (trade fleets, colonies...) join as fields here without a new event type for the views to learn."""

    land_technology: Technology | None = Field(default=None, examples=["MED"],
                                               description="Land technology (TABLES.md code or full name)")
    naval_technology: Technology | None = Field(default=None, examples=["CAR"],
                                                description="Naval technology (TABLES.md code or full name)")
    domestic_trade_index: int | None = Field(default=None, ge=1, le=5, examples=[3],
                                             description="DTI: the column of the domestic trade table")
    vassals: list[Country] | None = Field(default=None, max_length=40, examples=[["NAV"]])
    manufactures: list[Manufacture] | None = Field(default=None, max_length=40)
    mines: dict[Name, Annotated[int, Field(ge=0, le=10)]] | None = Field(
        default=None, max_length=20, examples=[{"Elmina": 2}],
        description="Mines exploited as European mines beyond the board's gold provinces (place: count)")
    depleted_mines: list[Name] | None = Field(default=None, max_length=40, examples=[["Toledo"]],
                                              description="Board gold provinces whose mine is depleted")

    def facts(self) -> dict[str, Any]:
        """The facts given, as JSON (the envelope's fields left out)."""
        return self.model_dump(mode="json", include=set(CountryFacts.model_fields), exclude_none=True)


class SetCountryFacts(CountryFacts, _Visible):
    """The game master sets some of a country's economic facts (at least one)."""

    action: ClassVar[str] = "set_country_facts"
    country: Country = Field(examples=["POR"])
    reason: Text = "country facts"

    def model_post_init(self, _context: Any) -> None:
        if not CountryFacts.model_fields.keys() & self.model_fields_set:
            raise ValueError("name at least one fact to set (land_technology, naval_technology, "
                             "domestic_trade_index, vassals, manufactures, mines, depleted_mines)")


class CountryFactsReplacement(_Replacement):
    country: Country | None = None
    facts: CountryFacts | None = None


#: The replacement of each correctable event type. Every other type is structural (a campaign, a turn, a
#: phase, a token, a reveal, a setting, a die): correcting it would rewrite the frame the history stands in,
#: so it is refused naming ``corrects``. A die is not corrected on its own: its ruling is re-resolved. A split
#: or a merge is structural too (later events name the stack it made or ended): it is undone by the opposite
#: command (merge the split stack back, split the merged one again).
REPLACEMENTS: dict[str, type[_Replacement]] = {
    "TreasuryEntryRecorded": EntryReplacement,
    "StackMoved": MoveReplacement,
    "ControlChanged": ControlReplacement,
    "OwnerChanged": OwnerReplacement,
    "MarkerPlaced": MarkerReplacement,
    "MarkerRemoved": MarkerReplacement,
    "WarDeclared": WarReplacement,
    "PeaceMade": WarReplacement,
    "StackChanged": StackChangeReplacement,
    "SiegeStarted": SiegeReplacement,
    "SiegeEnded": SiegeEndReplacement,
    "FortressChanged": FortressReplacement,
    "CountryFactsSet": CountryFactsReplacement,
    "RulingRecorded": RulingReplacement,
    "TradeFleetChanged": TradeFleetReplacement,
    "TradeCentreChanged": TradeCentreReplacement,
    "EstablishmentChanged": EstablishmentReplacement,
    "MissionChanged": MissionReplacement,
}


def replacement_for(event_type: str, replacement: dict[str, Any]) -> _Replacement:
    """The replacement validated against the corrected event's type (``InvalidInput`` naming the field)."""
    if event_type == "RulingRecorded" and set(replacement) == {"ruling"} and isinstance(replacement["ruling"], dict):
        replacement = replacement["ruling"]  # the older form, {"ruling": {"effects": [...]}}
    try:
        return REPLACEMENTS[event_type].model_validate(replacement)
    except ValidationError as e:
        err = invalid(e)
        raise InvalidInput(f"replacement.{err.message}" if err.field else f"replacement: {err.message}",
                           field=f"replacement.{err.field}" if err.field else "replacement") from None


class ReworkRuling(Command):
    """Resolve a recorded ruling again with new inputs, its recorded dice matched by purpose; recorded as a
    correction of it (``CorrectionRecorded`` holding the new ruling), seen by those who see the original."""

    action: ClassVar[str] = "record_correction"
    position: Position = Field(description="Position of the ruling resolved again")
    inputs: dict[str, Any] = Field(description="The procedure's inputs, all of them (as recorded, amended)")
    reason: Text = Field(examples=["the defender had 6 LD, not 8"])
    overrides: dict[Name, Text] | None = Field(
        default=None, max_length=10, examples=[{"defender.ld": "two LD joined from the garrison"}],
        description="Inputs kept although the board or the map before the ruling contradicts them (input → "
                    "reason); one kept when the ruling was recorded stays kept while it is typed the same")
    manual_dice: list[list[int]] | None = Field(
        default=None, max_length=20, examples=[[[7]]],
        description="Dice rolled at the table for the dice the recorded ones do not cover, in draw order "
                    "(recorded as physical dice); without them such a die is drawn by the server in the open turn")

    @field_validator("inputs")
    @classmethod
    def _free_form(cls, v: dict[str, Any]) -> dict[str, Any]:
        return free_form(v)


# ------------------------------------------------------------------ access


class IssueToken(Command):
    action: ClassVar[str] = "issue_token"
    role: Literal["gm", "player", "observer"] = Field(examples=["player"])
    country: Country | None = Field(default=None, examples=["FRA"], description="The player's country (players only)",
                                    validate_default=True)
    holder: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100),
                      ONE_LINE] | None = Field(
        default=None, examples=["bruno"], description="Who holds it; recorded as the actor of their events")

    @field_validator("country")
    @classmethod
    def _country_for_players_only(cls, v: str | None, info: ValidationInfo) -> str | None:
        role = info.data.get("role")
        if role == "player" and not v:
            raise ValueError("a player's token names their country")
        if role != "player" and v:
            raise ValueError(f"only a player's token names a country (role {role})")
        return v


class RevokeToken(Command):
    action: ClassVar[str] = "revoke_token"
    token_id: Annotated[str, StringConstraints(min_length=1, max_length=64), ONE_LINE]
    reason: Text = Field(examples=["player left the game"])


class OpenSession(Command):
    """A web page login with the caller's own campaign token (ledger/tokens.py): the cookie gets the session."""

    action: ClassVar[str] = "open_session"
    hours: int = Field(default=336, ge=1, le=24 * 90, strict=True, examples=[336],
                       description="How long the login lasts (the service's LEDGER_SESSION_HOURS)")


class EndSession(Command):
    action: ClassVar[str] = "end_session"
    session_id: Annotated[str, StringConstraints(min_length=1, max_length=64), ONE_LINE]
    reason: Text = "logged out"


class RevealEvent(Command):
    action: ClassVar[str] = "reveal"
    position: Position = Field(examples=[7], description="Position of the hidden event to make public")
    reason: Text = Field(examples=["end of turn: secret rolls revealed"])


class PublishSheets(Command):
    """Publish a turn's ERS: every hidden entry behind those countries' sheets of that turn, and every
    correction of them, becomes visible to every reader, for good (readers may have copied it)."""

    action: ClassVar[str] = "publish_sheets"
    turn: Turn = Field(examples=[3])
    countries: list[Country] | None = Field(default=None, min_length=1, max_length=40, examples=[["FRA", "ENG"]],
                                            description="Whose sheets (default: every country of the campaign)")
    reason: Text = Field(default="the turn's sheets are published", examples=["end of turn 3: budgets shown"])

    @field_validator("countries")
    @classmethod
    def _no_repeats(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and len(set(v)) != len(v):
            raise ValueError("countries must not repeat")
        return v


# ------------------------------------------------------------------ the map


class MoveStack(_InContext):
    """A stack moves along a path: ``origin``, the places it passes through (``via``), ``destination``.

    Every step is checked against the campaign's board (or its scenario's adjacency) and the origin
    against where the stack is; ``forced_reason`` lets the game master record a move the checks refuse
    (the event says it was forced, and why)."""

    action: ClassVar[str] = "move_stack"
    stack: Name
    origin: Name
    via: list[Name] = Field(default_factory=list, max_length=40, examples=[["Manche"]],
                            description="Places passed through, in order, between origin and destination")
    destination: Name
    reason: Text = "movement"
    forced_reason: Text | None = Field(default=None, examples=["the stack was carried by the storm (rule 9.3)"],
                                       description="Game master: record the move although a step or the origin "
                                                   "does not fit the board or the map")

    @field_validator("destination")
    @classmethod
    def _somewhere_else(cls, v: str, info: ValidationInfo) -> str:
        if v == info.data.get("origin") and not info.data.get("via"):
            raise ValueError("a move goes somewhere else")
        return v

    def path(self) -> list[str]:
        return [self.origin, *self.via, self.destination]


class ChangeControl(_InContext):
    action: ClassVar[str] = "change_control"
    province: Name
    controller: Country
    previous: Country | None = None
    reason: Text = "control"


class ChangeOwner(_InContext):
    """A province changes owner (a peace treaty's cession, an annexation): control is another command."""

    action: ClassVar[str] = "change_owner"
    province: Name
    owner: Country
    previous: Country | None = None
    reason: Text = "ownership"


class PlaceMarker(_InContext):
    action: ClassVar[str] = "place_marker"
    province: Name
    marker: Marker
    reason: Text = "marker"


class ChangeFortress(_InContext):
    """A province's fortress level changes (built up, razed, lowered by a capture: M21's "fortress loses 2
    levels unless garrisoned" when recorded outside the ruling)."""

    action: ClassVar[str] = "change_fortress"
    province: Name = Field(examples=["Picardie"])
    level: int = Field(ge=0, le=5, examples=[3])
    reason: Text = "fortress"


class RemoveMarker(_InContext):
    action: ClassVar[str] = "remove_marker"
    province: Name
    marker: Marker
    reason: Text = "marker"


class _WarSides(Command):
    """The two sides of a war: declared with them, ended by peace between the same sides."""

    attackers: list[Country] = Field(min_length=1, max_length=40)
    defenders: list[Country] = Field(min_length=1, max_length=40)
    context: Context = Context()

    @field_validator("defenders")
    @classmethod
    def _two_sides(cls, v: list[str], info: ValidationInfo) -> list[str]:
        if set(info.data.get("attackers", ())) & set(v):
            raise ValueError("a country cannot fight itself")
        return v


class DeclareWar(_WarSides):
    action: ClassVar[str] = "declare_war"
    reason: Text = "war"


class ArrivingLeader(Model):
    """A leader placed on the map (I3): the values and the turn of departure printed on the counter."""

    name: LeaderName
    kind: Literal["general", "admiral", "explorer", "conquistador", "governor", "monarch"] = "general"
    fire: int = Field(default=0, ge=0, le=9)
    shock: int = Field(default=0, ge=0, le=9)
    manoeuvre: int = Field(default=0, ge=0, le=9)
    siege: int = Field(default=0, ge=0, le=5)
    departs: Turn | None = Field(default=None, description="The turn of departure printed on the counter")


class SplitStack(_InContext):
    """Some units and leaders of a stack leave it as a new stack, in the same place."""

    action: ClassVar[str] = "split_stack"
    stack: Name = Field(examples=["FRA-1"])
    new_stack: Name = Field(examples=["FRA-2"], description="The id of the new stack (not yet on the map)")
    units: dict[UnitType, Annotated[int, Field(ge=1, le=200)]] = Field(default_factory=dict, max_length=10,
                                                                      examples=[{"LD": 3}])
    leaders: list[LeaderName] = Field(default_factory=list, max_length=12, examples=[["La Trémoille"]],
                                      validate_default=True)
    reason: Text = "split"

    @field_validator("leaders")
    @classmethod
    def _something_leaves(cls, v: list[str], info: ValidationInfo) -> list[str]:
        if not v and not info.data.get("units"):
            raise ValueError("name the units or leaders that form the new stack")
        if len(set(v)) != len(v):
            raise ValueError("a leader is named twice")
        return v

    @field_validator("new_stack")
    @classmethod
    def _another_id(cls, v: str, info: ValidationInfo) -> str:
        if v == info.data.get("stack"):
            raise ValueError("the new stack needs an id of its own")
        return v


class RaiseStack(_InContext):
    """A new stack on the map (units raised, a campaign set up without stacks such as the 1492 start): its id,
    country, place, units and leaders (I3: they arrive this turn)."""

    action: ClassVar[str] = "raise_stack"
    stack: Name = Field(examples=["FRA-1"], description="The id of the new stack (not yet on the map)")
    country: Country = Field(examples=["FRA"])
    location: Name = Field(examples=["Ile-de-France"])
    units: dict[UnitType, Annotated[int, Field(ge=1, le=200)]] = Field(default_factory=dict, max_length=10,
                                                                      examples=[{"LD": 6}])
    leaders: list[ArrivingLeader] = Field(default_factory=list, max_length=12, validate_default=True)
    reason: Text = "new stack"

    @field_validator("leaders")
    @classmethod
    def _someone(cls, v: list[ArrivingLeader], info: ValidationInfo) -> list[ArrivingLeader]:
        if not v and not info.data.get("units"):
            raise ValueError("a stack holds units or leaders: name at least one")
        if len({x.name for x in v}) != len(v):
            raise ValueError("a leader is named twice")
        return v


class MergeStacks(_InContext):
    """Stack ``merged`` joins ``stack`` (both in the same place) and leaves the map."""

    action: ClassVar[str] = "merge_stacks"
    stack: Name = Field(examples=["FRA-1"], description="The stack that remains")
    merged: Name = Field(examples=["FRA-2"], description="The stack that joins it")
    reason: Text = "merge"

    @field_validator("merged")
    @classmethod
    def _two_stacks(cls, v: str, info: ValidationInfo) -> str:
        if v == info.data.get("stack"):
            raise ValueError("a stack cannot merge with itself")
        return v


class ChangeStack(_InContext):
    """A stack's units change (reinforcements, losses outside a ruling: signed numbers), leaders arrive on it
    or leave the game (I3: recorded with the turn)."""

    action: ClassVar[str] = "change_stack"
    stack: Name = Field(examples=["FRA-1"])
    units: dict[UnitType, Annotated[int, Field(ge=-200, le=200)]] = Field(
        default_factory=dict, max_length=10, examples=[{"LD": 2}], description="Units added (+) or lost (−)")
    arriving: list[ArrivingLeader] = Field(default_factory=list, max_length=12)
    departing: list[LeaderName] = Field(default_factory=list, max_length=12, examples=[["Talbot"]],
                                        validate_default=True)
    reason: Text = Field(examples=["reinforcements of turn 2"])

    @field_validator("units")
    @classmethod
    def _no_zero(cls, v: dict[str, int]) -> dict[str, int]:
        if any(n == 0 for n in v.values()):
            raise ValueError("a unit change of 0 changes nothing")
        return v

    @field_validator("departing")
    @classmethod
    def _something_changes(cls, v: list[str], info: ValidationInfo) -> list[str]:
        if not v and not info.data.get("units") and not info.data.get("arriving"):
            raise ValueError("name a unit change, an arriving leader or a departing one")
        return v


class StartSiege(_InContext):
    action: ClassVar[str] = "start_siege"
    province: Name = Field(examples=["Picardie"])
    besiegers: list[Name] = Field(min_length=1, max_length=12, examples=[["ENG-1"]],
                                  description="The besieging stacks, each in the province")
    reason: Text = "siege"

    @field_validator("besiegers")
    @classmethod
    def _no_repeats(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("a stack is named twice")
        return v


class EndSiege(_InContext):
    action: ClassVar[str] = "end_siege"
    province: Name = Field(examples=["Picardie"])
    outcome: Literal["taken", "lifted", "relieved"] = Field(
        examples=["taken"], description="taken (the place fell), lifted (the besiegers left), relieved (an army "
                                        "drove them off)")
    reason: Text = "siege over"


class MakePeace(_WarSides):
    """Peace between the two sides of a war in progress (the sides as declared)."""

    action: ClassVar[str] = "make_peace"
    reason: Text = "peace"


# ------------------------------------------------------------------ trade and the rest of the world (issue 36)

#: The trade centres (engIncomes.tex, Trade centres): four counters.
TRADE_CENTRES = ("great_orient", "atlantic", "mediterranean", "indian_ocean")
TradeCentre = Literal["great_orient", "atlantic", "mediterranean", "indian_ocean"]
#: Exotic resources by the board's codes (R_RESOURCES): slaves, spices, silk, fur, fish, salt, sugar, cotton,
#: products of America and of Orient, wood (tables/exotic_resources.toml names each).
RESOURCES = ("sl", "sp", "silk", "fur", "fish", "salt", "su", "co", "pa", "po", "coas", "subr", "wood")
Resource = Literal["sl", "sp", "silk", "fur", "fish", "salt", "su", "co", "pa", "po", "coas", "subr", "wood"]
#: A trade fleet's or an establishment's level (0: none): 1-3 its Face− side, 4-6 its Face+ side.
Level = Annotated[int, Field(ge=0, le=6)]


class ChangeTradeFleet(_InContext):
    """A country's trade fleet in a trade zone (STZ or CTZ) is now at ``level`` (0: it leaves the zone)."""

    action: ClassVar[str] = "change_trade_fleet"
    country: Country = Field(examples=["POR"])
    zone: Name = Field(examples=["STZ Canarias"], description="The trade zone, by its name on the map "
                                                              "('STZ Canarias', 'CTZ France'; the board's id "
                                                              "ZMCanarias is accepted)")
    level: Level = Field(examples=[3], description="1-3: Face−; 4-5: Face+ (partial monopoly); 6: total "
                                                   "monopoly; 0: no fleet")
    reason: Text = "trade fleet"


class ChangeTradeCentre(_InContext):
    """A trade centre changes hands (I5, the Interphase) or place; the Great Orient's income is recorded with it."""

    action: ClassVar[str] = "change_trade_centre"
    centre: TradeCentre = Field(examples=["atlantic"])
    holder: Country | None = Field(examples=["ENG"], description="Who holds it now (null: nobody)")
    province: Name | None = Field(default=None, examples=["Vlaanderen"],
                                  description="Where its counter stands (a province of the holder): "
                                              "occupied, it brings nothing")
    income: int | None = Field(default=None, ge=0, le=1000, examples=[170],
                               description="The Great Orient centre only: its income this turn (100 plus "
                                           "modifiers that read the whole world)")
    reason: Text = "trade centre"

    @field_validator("income")
    @classmethod
    def _great_orient_only(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("centre") != "great_orient":
            raise ValueError("only the Great Orient centre's income is recorded: the others' is fixed")
        return v


class ChangeEstablishment(_InContext):
    """A country's colony or trading post in a rest-of-the-world province is now at ``level`` (0: gone), with
    the exotic resources it exploits (after competition) and, for a colony, whether it exploits gold."""

    action: ClassVar[str] = "change_establishment"
    country: Country = Field(examples=["POR"])
    kind: Literal["colony", "trading_post"] = Field(examples=["colony"])
    place: Name = Field(examples=["Cabo Verde~I"], description="A rest-of-the-world province of the board")
    level: Level = Field(examples=[3])
    exploits: dict[Resource, Annotated[int, Field(ge=1, le=60)]] = Field(
        default_factory=dict, max_length=13, examples=[{"sl": 3}],
        description="Exotic resources it exploits: board code → units (sl slaves, sp spices, fur...)")
    gold: bool = Field(default=False, description="A colony exploiting the province's gold mine (it then "
                                                  "brings no other income)")
    reason: Text = "establishment"

    @field_validator("gold")
    @classmethod
    def _colony_gold(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("kind") != "colony":
            raise ValueError("only a colony exploits a gold mine")
        if v and info.data.get("exploits"):
            raise ValueError("a colony exploiting gold exploits no exotic resource")
        return v


class ChangeMission(_InContext):
    """A country's mission in a rest-of-the-world province is founded (``present``: true) or gone (false)."""

    action: ClassVar[str] = "change_mission"
    country: Country = Field(examples=["SPA"])
    place: Name = Field(examples=["Mexico~C"], description="A rest-of-the-world province of the board")
    present: bool = Field(examples=[True])
    reason: Text = "mission"


#: Every command, by name (the tests list the write surfaces against it).
COMMANDS: dict[str, type[Command]] = {
    cls.__name__: cls
    for cls in (CreateCampaign, ImportScenario, OpenTurn, CloseTurn, ClosePhase, ChangeSettings, RollDice,
                RecordRuling, RecordTreasuryEntry, RecordCorrection, ReworkRuling, IssueToken, RevokeToken,
                OpenSession, EndSession,
                RevealEvent, PublishSheets, ConfirmIncome, MoveStack, ChangeControl, ChangeOwner, PlaceMarker, RemoveMarker,
                DeclareWar, SplitStack, MergeStacks, ChangeStack, StartSiege, EndSiege, MakePeace, ChangeFortress,
                RaiseStack, SetCountryFacts, ChangeTradeFleet, ChangeTradeCentre, ChangeEstablishment,
                ChangeMission)
}


# ------------------------------------------------------------------ stacks off the map, leaders' values


class DisbandStack(_InContext):
    """A stack leaves the map with its units and leaders (disbanded, or gone for a reason no ruling records:
    a stack a ruling destroys leaves the map by that ruling's ``stack_destroyed`` effect)."""

    action: ClassVar[str] = "disband_stack"
    stack: Name = Field(examples=["FRA-2"])
    reason: Text = Field(examples=["disbanded at the end of the campaign season"])


class LeaderValues(Model):
    """The values printed on a leader's counter (those not named keep the value the map holds)."""

    fire: int | None = Field(default=None, ge=0, le=9)
    shock: int | None = Field(default=None, ge=0, le=9)
    manoeuvre: int | None = Field(default=None, ge=0, le=9)
    siege: int | None = Field(default=None, ge=0, le=5)

    def model_post_init(self, _context: Any) -> None:
        if not self.model_fields_set:
            raise ValueError("name at least one of fire, shock, manoeuvre, siege")


class SetLeaderValues(_InContext):
    """A leader on the map is given the values printed on his counter (raised without them, or misread): he
    stays with his stack; nothing else changes."""

    action: ClassVar[str] = "set_leader_values"
    leader: LeaderName = Field(examples=["Talbot"])
    values: LeaderValues = Field(examples=[{"fire": 3, "shock": 3, "manoeuvre": 2, "siege": 1}])
    reason: Text = Field(default="the values printed on the counter", examples=["raised without his values"])


class DisbandReplacement(_Replacement):
    stack: Name | None = None


class LeaderValuesReplacement(_Replacement):
    values: LeaderValues | None = None


REPLACEMENTS.update({"StackDisbanded": DisbandReplacement, "LeaderValuesChanged": LeaderValuesReplacement})
COMMANDS.update({c.__name__: c for c in (DisbandStack, SetLeaderValues)})


def leader_counter(text: str) -> dict[str, Any]:
    """``"Talbot:3/3/2/1"``: a leader and the fire, shock, manoeuvre and siege printed on his counter (a bare
    ``"Talbot"``: his name only). ``ValueError`` in words when it reads as neither."""
    name, sep, values = text.rpartition(":") if ":" in text else (text, "", "")
    if not sep:
        return {"name": text.strip()}
    parts = values.split("/")
    if len(parts) != 4 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"{text!r}: a leader is NAME or NAME:FIRE/SHOCK/MANOEUVRE/SIEGE, e.g. \"Talbot:3/3/2/1\"")
    fire, shock, manoeuvre, siege = (int(p) for p in parts)
    return {"name": name.strip(), "fire": fire, "shock": shock, "manoeuvre": manoeuvre, "siege": siege}


# ------------------------------------------------------------------ notifications (issue 38, ledger/notify)

NOTIFY_TOPICS = ("turns", "rulings", "moves", "corrections", "sheets", "deadlines")  # ledger/notify/topics.py TOPICS
Topic = Literal["turns", "rulings", "moves", "corrections", "sheets", "deadlines"]
EndpointKind = Literal["discord", "slack", "json", "email"]
EndpointId = Annotated[str, StringConstraints(pattern=r"^ep_[0-9a-f]{16}$")]
_EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$")


def _topics(v: list[str]) -> list[str]:
    if len(set(v)) != len(v):
        raise ValueError("topics must not repeat")
    return sorted(v, key=NOTIFY_TOPICS.index)


class RegisterEndpoint(Command):
    """Be told: a webhook (Discord, Slack, any URL) or an e-mail address, and what to be told about. A player
    registers for their own country; a game master for the campaign (``gm``: everything in the topics), the
    table's channel (``public``: what everyone sees) or a player's country."""

    action: ClassVar[str] = "register_endpoint"
    kind: EndpointKind = Field(examples=["discord"])
    target: Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=2000), ONE_LINE] = Field(
        examples=["https://discord.com/api/webhooks/123/abc"], description="The webhook's URL, or the e-mail address")
    audience: Annotated[str, StringConstraints(pattern=r"^(gm|public|[A-Z]{2,4})$")] | None = Field(
        default=None, examples=["FRA"], description="Whose messages: a country, 'gm' or 'public' (default: your "
        "country; the campaign's for a game master)")
    topics: list[Topic] = Field(min_length=1, max_length=len(NOTIFY_TOPICS), examples=[["turns", "rulings"]])
    label: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80), ONE_LINE] | None = \
        Field(default=None, examples=["my Discord"], description="A name for it on your page")

    @field_validator("topics")
    @classmethod
    def _no_repeats(cls, v: list[str]) -> list[str]:
        return _topics(v)

    @field_validator("target")
    @classmethod
    def _target_of_its_kind(cls, v: str, info: ValidationInfo) -> str:
        kind = info.data.get("kind")
        if kind == "email":
            if not _EMAIL_RE.match(v):
                raise ValueError("an e-mail endpoint's target is an address like name@example.org")
            return v
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(v)
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            raise ValueError("the target is not a URL") from None
        if parts.scheme not in ("https", "http"):
            raise ValueError(f"a webhook's URL starts with https:// (or http://), not {parts.scheme or 'nothing'}")
        if not parts.hostname or parts.username or parts.password:
            raise ValueError("a webhook's URL names a host, and no user or password before it")
        if kind == "discord" and not parts.path.startswith("/api/webhooks/") and parts.hostname.endswith(
                ("discord.com", "discordapp.com")):
            raise ValueError("a Discord webhook's URL is https://discord.com/api/webhooks/…")
        return v


class ChangeEndpoint(Command):
    """What an endpoint is told about (the whole new list of topics)."""

    action: ClassVar[str] = "change_endpoint"
    endpoint_id: EndpointId = Field(examples=["ep_0123456789abcdef"])
    topics: list[Topic] = Field(min_length=1, max_length=len(NOTIFY_TOPICS), examples=[["turns"]])

    @field_validator("topics")
    @classmethod
    def _no_repeats(cls, v: list[str]) -> list[str]:
        return _topics(v)


class RemoveEndpoint(Command):
    action: ClassVar[str] = "remove_endpoint"
    endpoint_id: EndpointId = Field(examples=["ep_0123456789abcdef"])
    reason: Text = Field(default="no longer wanted", examples=["moved to another channel"])


COMMANDS.update({c.__name__: c for c in (RegisterEndpoint, ChangeEndpoint, RemoveEndpoint)})
