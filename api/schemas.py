"""Response models, and the few request bodies that are not a command (ledger/domain/commands.py).

A write route's body is its command model itself, so the API documents what the application validates.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ledger.domain.commands import Text


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Reason(Strict):
    """A body that only says why (revoking a token): the command is built from the path and this."""

    reason: Text = Field(examples=["player left the game"])


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
    checkpoint: str | None = Field(default=None, description="The checkpoint the service signed at the new head "
                                   "(C2SP signed note): keep it as a receipt (`ledger audit --receipts`)")


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
