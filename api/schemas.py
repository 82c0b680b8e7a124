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
    id: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    slug: str = Field(examples=["europa-1492"])
    name: str = Field(examples=["Europa 1492"])
    ruleset: str = Field(examples=["eu"])
    ruleset_version: str = Field(examples=["2016.1"])
    countries: list[str] = Field(examples=[["ENG", "FRA"]])
    players: dict[str, str] = Field(examples=[{"FRA": "bruno"}])
    game_masters: list[str] = Field(examples=[["gina"]])
    settings: dict[str, Any] = Field(default_factory=dict, examples=[{"players_may_roll": True}])
    turn: int = Field(examples=[2])
    turn_open: bool = Field(examples=[True])
    commitment: str | None = Field(examples=["5be0" + "0" * 60])
    position: int = Field(examples=[42])
    head_hash: str = Field(examples=["b41a" + "0" * 60])


class EventRef(BaseModel):
    position: int = Field(examples=[43])
    type: str = Field(examples=["RulingRecorded"])
    hash: str = Field(examples=["b41a" + "0" * 60])


class Appended(BaseModel):
    campaign: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    events: list[EventRef] = Field(examples=[[{"position": 43, "type": "RulingRecorded", "hash": "b41a" + "0" * 60}]])
    data: dict[str, Any] = Field(default_factory=dict, description="What the command returns (dice, ruling...)",
                                 examples=[{"dice": [{"purpose": "M13 escape", "sides": 10, "count": 1,
                                                      "values": [7], "index": 3, "manual": False}]}])


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
    position: int = Field(examples=[43])
    type: str = Field(examples=["TreasuryEntryRecorded"])
    timestamp: datetime = Field(examples=["2025-03-01T20:15:00Z"])
    schema_version: int = Field(examples=[1])
    context: dict[str, Any] = Field(examples=[{"turn": 2, "phase": "military", "round": "S2", "impulse": "FRA"}])
    actor: dict[str, Any] = Field(examples=[{"id": "gina", "role": "gm", "country": None}])
    visibility: dict[str, Any] = Field(examples=[{"scope": "public"}])
    payload: dict[str, Any] = Field(examples=[{"country": "FRA", "turn": 2, "line": "A9", "amount": 35,
                                               "reason": "looting of Picardie", "source": None}])
    prev_hash: str = Field(examples=["9f2c" + "0" * 60])
    hash: str = Field(examples=["b41a" + "0" * 60])


class ChainPublic(BaseModel):
    intact: bool = Field(examples=[True])
    count: int = Field(examples=[43])
    head_hash: str = Field(examples=["b41a" + "0" * 60])
    broken_at: int | None = Field(examples=[None])
    reason: str | None = Field(examples=[None])


class DicePublic(BaseModel):
    turn: int = Field(examples=[1])
    checked: int = Field(examples=[12])
    manual: int = Field(examples=[2])
    ok: bool = Field(examples=[True])
    mismatches: list[str] = Field(examples=[[]])
