"""Request and response models, one per direction."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VisibilityIn(Strict):
    scope: Literal["public", "countries", "gm"] = "public"
    countries: list[str] | None = None


class ContextIn(Strict):
    phase: str | None = Field(default=None, max_length=40, examples=["military"])
    round: str | None = Field(default=None, max_length=10, examples=["S2"])
    impulse: str | None = Field(default=None, max_length=40, examples=["FRA"])
    # Where a ruling happened and which stacks its roles name: the map view places its effects with them.
    where: str | None = Field(default=None, min_length=1, max_length=80, examples=["Picardie"],
                              description="Province or sea zone of the ruling")
    stacks: dict[Annotated[str, StringConstraints(min_length=1, max_length=40)],
                 Annotated[str, StringConstraints(min_length=1, max_length=40)]] | None = Field(default=None, max_length=12, examples=[{"attacker": "ENG-1",
                                                                                  "defender": "FRA-1"}],
                                          description="The ruling's roles (attacker, moving stack...) → stack ids")


class CampaignCreate(Strict):
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$", examples=["europa-1492"])
    name: str = Field(min_length=1, max_length=200, examples=["Europa 1492"])
    ruleset: str = Field(default="eu", examples=["eu"])
    countries: list[str] = Field(min_length=1, max_length=40, examples=[["ENG", "FRA"]])
    players: dict[str, str] = Field(default_factory=dict, examples=[{"ENG": "alice", "FRA": "bruno"}])
    game_masters: list[str] | None = None
    settings: dict[str, Any] = Field(default_factory=dict)


class CampaignPublic(BaseModel):
    id: str
    slug: str
    name: str
    ruleset: str
    ruleset_version: str
    countries: list[str]
    players: dict[str, str]
    game_masters: list[str]
    turn: int
    turn_open: bool
    commitment: str | None
    position: int
    head_hash: str


class EventRef(BaseModel):
    position: int
    type: str
    hash: str


class Appended(BaseModel):
    campaign: str
    events: list[EventRef]
    data: dict[str, Any] = Field(default_factory=dict)


class RollCreate(Strict):
    purpose: str = Field(min_length=1, max_length=500, examples=["initiative tie FRA/SPA"])
    sides: int = Field(default=10, ge=2, le=1000)
    count: int = Field(default=1, ge=1, le=100)
    values: list[int] | None = Field(default=None, description="Physical dice entered by a game master (manual)")
    visibility: VisibilityIn = VisibilityIn()
    context: ContextIn = ContextIn()


class RulingCreate(Strict):
    procedure: str = Field(min_length=1, max_length=20, examples=["M13"])
    inputs: dict[str, Any] = Field(default_factory=dict)
    manual_dice: list[list[int]] | None = Field(default=None, description="Physical dice, in draw order")
    visibility: VisibilityIn = VisibilityIn()
    context: ContextIn = ContextIn()


class TreasuryCreate(Strict):
    country: str = Field(examples=["FRA"])
    line: str = Field(examples=["A9"], description="ERS line code")
    amount: int = Field(ge=-1_000_000_000, le=1_000_000_000, examples=[35], description="Ducats, signed")
    reason: str = Field(min_length=1, max_length=500, examples=["looting of Picardie"])
    turn: int | None = Field(default=None, ge=1)
    source: int | None = Field(default=None, ge=1, description="Position of the event this entry comes from")
    visibility: VisibilityIn = VisibilityIn()
    context: ContextIn = ContextIn()


class CorrectionCreate(Strict):
    corrects: int = Field(ge=1, description="Position of the event corrected")
    reason: str = Field(min_length=1, max_length=1000)
    replacement: dict[str, Any] | None = None
    visibility: VisibilityIn = VisibilityIn()


class EventPublic(BaseModel):
    position: int
    type: str
    timestamp: datetime
    schema_version: int
    context: dict[str, Any]
    actor: dict[str, Any]
    visibility: dict[str, Any]
    payload: dict[str, Any]
    prev_hash: str
    hash: str


class ChainPublic(BaseModel):
    intact: bool
    count: int
    head_hash: str
    broken_at: int | None
    reason: str | None


class DicePublic(BaseModel):
    turn: int
    checked: int
    manual: int
    ok: bool
    mismatches: list[str]
