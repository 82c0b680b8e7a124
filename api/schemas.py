"""Response models, and the few request bodies that are not a command (ledger/domain/commands.py).

A write route's body is its command model itself, so the API documents what the application validates.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ledger.domain.commands import Text


HEX64 = ["b41a" + "0" * 60]


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
    ruleset_version: str = Field(examples=["2016.2"])
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
    position: str | None = Field(default=None, examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e:43"],
                                 description="Where this write left its campaign (<campaign>:<version>), also in "
                                 "the Ledger-Position response header: send it back as the Ledger-Position request "
                                 "header and a read served by a replica waits until it holds this write")


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
    salt: str | None = Field(default=None, examples=[None],
                             description="A hidden event's salt (64 hex digits; null for a public event and one "
                                         "recorded before salts): part of what its hash covers, given only to "
                                         "those who may read the event")


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


# ------------------------------------------------------------------ read models (map, victory, timeline, ERS)
# The read routes serve JSON bytes rendered once and cached (api/readpath.py): these models document them
# (``responses={200: {"model": ...}}``) and are what the bytes hold.

MAP_EXAMPLE: dict[str, Any] = {
    "position": 42, "turn": 1, "scenario": "Channel",
    "provinces": {"Picardie": {"controller": "ENG", "owner": "FRA", "markers": []}}, "adjacency": [],
    "stacks": {"FRA-1": {"country": "FRA", "location": "Picardie", "units": {"LD": 5}}},
    "leaders": {}, "sieges": {}, "discoveries": {}, "unplaced": []}
VICTORY_EXAMPLE: dict[str, Any] = {
    "position": 42, "turn": 1, "countries": ["ENG", "FRA"], "vp": {"ENG": 5, "FRA": 0},
    "vp_by_turn": {"1": {"ENG": 5}}, "stability": {"ENG": 1, "FRA": -1}, "stability_log": [], "inflation": 1,
    "inflation_log": [], "wars": [], "war_turns": {"ENG": 0, "FRA": 0},
    "awards": [{"position": 37, "effect": 0, "country": "ENG", "turn": 1, "points": "5", "reason": "M19"}]}


class MapPublic(BaseModel):
    """The map document (projections/map.py); a correction adds ``corrections``."""
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [MAP_EXAMPLE]})
    position: int
    turn: int | None
    scenario: str | None
    provinces: dict[str, Any]
    adjacency: list[Any]
    stacks: dict[str, Any]
    leaders: dict[str, Any]
    sieges: dict[str, Any]
    discoveries: dict[str, Any]
    unplaced: list[Any]


class Award(BaseModel):
    position: int = Field(description="The event the points come from")
    effect: int
    country: str
    turn: int | None
    points: str = Field(description="Exact number as text (\"5\", \"1/2\")")
    reason: str


class VictoryDoc(BaseModel):
    """The victory document (projections/victory.py); a correction adds ``corrections``."""
    model_config = ConfigDict(extra="allow")
    position: int
    turn: int | None
    countries: list[str]
    vp: dict[str, Any]
    vp_by_turn: dict[str, Any]
    stability: dict[str, Any]
    stability_log: list[Any]
    inflation: Any
    inflation_log: list[Any]
    wars: list[Any]
    war_turns: dict[str, Any]


class VictoryPublic(VictoryDoc):
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [VICTORY_EXAMPLE]})
    awards: list[Award] | None = Field(description="Every award with its event (game master); null for "
                                                   "players and observers")


class TimelineRow(BaseModel):
    position: int = Field(examples=[37])
    turn: int | None = Field(examples=[1])
    type: str = Field(examples=["RulingRecorded"])
    summary: str = Field(examples=["T1 S2: M19 battle at Picardie: ENG major victory"])
    context: dict[str, Any] = Field(examples=[{"turn": 1, "phase": "military", "round": "S2", "impulse": "ENG"}])
    visibility: dict[str, Any] = Field(examples=[{"scope": "public"}])


class StatePublic(BaseModel):
    campaign: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    position: int = Field(examples=[42], description="The position the state is as of")
    checkpoint: int | None = Field(default=None, examples=[30],
                                   description="Where the replay started from (game master)")
    filtered_for: str | None = Field(default=None, examples=["player"],
                                     description="Replayed from the events this role may see (not a game master)")
    map: MapPublic
    victory: VictoryDoc


class Change(BaseModel):
    path: str = Field(examples=["map.stacks.FRA-1.units.LD"])
    from_: Any = Field(alias="from", examples=[8])
    to: Any = Field(examples=[5])


class DiffPublic(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    campaign: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    from_: int = Field(alias="from", examples=[36])
    to: int = Field(examples=[37])
    changes: list[Change]
    events: list[TimelineRow]


class ProjectionStatus(BaseModel):
    head: int | None = Field(default=None, examples=[1234], description="Latest notification id of the store")
    positions: dict[str, int] = Field(examples=[{"map": 1234, "victory": 1234, "timeline": 1234, "budget": 1234}])
    lag: int = Field(examples=[0])
    running: bool = Field(examples=[True], description="Whether this process runs the projection runner")
    processed: int | None = Field(default=None, examples=[1234])
    last_error: str | None = Field(default=None, examples=[None])


class ErsLine(BaseModel):
    code: str = Field(examples=["A9"])
    name: str = Field(examples=["Looting"])
    sheet: str = Field(examples=["A"])
    kind: str = Field(examples=["entered"], description="entered | derived")
    unit: str = Field(examples=["ducats"])
    amount: int = Field(examples=[35])
    ticks: int | None = Field(examples=[None])
    formula: str | None = Field(examples=[None])
    sources: list[str] = Field(examples=[[]], description="Lines a derived (or defaulted) cell is computed from")
    events: list[int] = Field(examples=[[12]], description="Positions of the events an entered cell comes from")
    defaulted: bool = Field(examples=[False])
    alert: str | None = Field(examples=[None])
    at_close: dict[str, Any] | None = Field(examples=[None])


class ErsSheet(BaseModel):
    country: str = Field(examples=["FRA"])
    turn: int = Field(examples=[1])
    lines: list[ErsLine]
    error: dict[str, Any] | None = Field(examples=[None])
    unbooked: list[dict[str, Any]] = Field(examples=[[]])
    phases_closed: list[str] = Field(examples=[["diplomacy"]])


class IncomeSource(BaseModel):
    kind: str = Field(examples=["province"])
    name: str = Field(examples=["Beira"])
    amount: int = Field(examples=[3])
    position: int | None = Field(description="The event that last set the fact (null: the scenario, or hidden)",
                                 examples=[None])
    note: str = Field(examples=["owned by POR"])


class IncomeLine(BaseModel):
    line: str = Field(examples=["B1"])
    name: str = Field(examples=["Provinces income"])
    computed: int = Field(examples=[29])
    rule: str = Field(examples=["Incomes, land income: the income of all the country's provinces"])
    lineage: list[IncomeSource]
    words: str = Field(examples=["B1 29: Tras-os-Montes 5, Beira 3, ..."])
    expense: bool = Field(description="An expense line: the expense is a positive number", examples=[False])


class IncomeProposal(BaseModel):
    country: str = Field(examples=["POR"])
    turn: int = Field(examples=[1])
    position: int = Field(description="The state's position the proposal was worked out at", examples=[40])
    lines: list[IncomeLine]
    unresolved: list[dict[str, str]] = Field(description="Lines not worked out, and why (typed by hand)")
    confirmed: dict[str, Any] | None = Field(description="The open turn's confirmation, when this caller sees it")
    stale: str = Field(description="Why the confirmation no longer matches the map, in words (empty: it does)")
    expenses: str = Field(description="The sign convention of expense lines, in words")


class RecomputePublic(BaseModel):
    checked: int = Field(description="Rulings recomputed", examples=[12])
    rulings: list[dict[str, Any]] = Field(description="Rulings that differ, could not be recomputed or were skipped")
    board: list[dict[str, Any]] = Field(description="Ruling inputs the board or the map contradicts")
    incomes: list[dict[str, Any]] = Field(
        description="Confirmed income lines that disagree with the state at their position (words: in words)")


class ChainLink(BaseModel):
    position: int = Field(examples=[3])
    prev_hash: str = Field(examples=["9f2c" + "0" * 60])
    hash: str = Field(examples=["b41a" + "0" * 60])
    visible: bool = Field(description="Whether this caller may read the event itself", examples=[True])


class TokenPublic(BaseModel):
    id: str = Field(examples=["3f9a0c1d2e4b5a69"])
    role: str = Field(examples=["player"])
    country: str | None = Field(examples=["FRA"])
    holder: str = Field(examples=["bruno"])


class TokenIssuedPublic(Appended):
    token: str | None = Field(
        description="The secret, shown once: only its sha256 is kept. null on an idempotent replay.",
        examples=["lt_6d1c0b1e7f7a5b2c9e3d4f5a6b7c8d9e_Zk3...Q"],
    )


class Health(BaseModel):
    status: str = Field(examples=["ok"])


class Ready(BaseModel):
    status: str = Field(examples=["ready"])
    store: str = Field(examples=["sqlite"])
    head: int = Field(description="Latest notification id of the store", examples=[1234])
    projections_lag: int = Field(description="Events the projection runner is behind (0 when none runs)",
                                 examples=[0])
    projections: dict[str, Any] = Field(default_factory=dict, description="Lag per projection, when reported",
                                        examples=[{"map": 0, "victory": 0, "timeline": 0, "budget": 0}])
    follower: dict[str, Any] | None = Field(
        default=None, description="The external projection follower (`ledger project --follow`), from its "
        "heartbeat: alive (beat within LEDGER_FOLLOWER_STALE_SECONDS), pid, host, age_seconds; null when the "
        "views are kept by a thread of this process", examples=[{"alive": True, "pid": 4242, "age_seconds": 0.8}])
    projection_errors: dict[str, int] = Field(
        default_factory=dict, examples=[{"timeline": 1}],
        description="Per view, the events it could not apply and passed (status degraded): the service's log and "
                    "`ledger project` name them (campaign, position, type, error); every other event is applied")
    projections_failing: bool = Field(
        default=False, description="This process's projection runner failed its last catch-up (status degraded): "
                                   "it retries; the service's log has the error")
    store_failing: str | None = Field(
        default=None, examples=[None, "DiskFull"],
        description="The kind of error with which the store refused a write of this process since its last "
                    "append (a full disk, a read-only store, a lost connection: status degraded); the service's "
                    "log has the store's words; null once a write succeeds again")
    projections_stuck_seconds: float | None = Field(
        default=None, examples=[None, 185.0],
        description="How long the views have been behind the store without catching up on any of it, once that "
                    "passes LEDGER_LAG_ALERT_SECONDS (status degraded); null otherwise")


class ReworkBody(BaseModel):
    """A ruling resolved again: the amended inputs (all of them) and why."""

    model_config = ConfigDict(extra="forbid", strict=True)
    inputs: dict[str, Any]
    reason: str
    manual_dice: list[list[int]] | None = Field(
        default=None, description="Dice rolled at the table for the dice the recorded ones do not cover, in draw "
                                  "order (recorded as physical dice)")
    overrides: dict[str, str] | None = Field(
        default=None, description="Inputs kept although the board or the map before the ruling contradicts them "
                                  "(input → reason)")


class WhatIfBody(BaseModel):
    """A replacement of the event at ``at``, as a correction would carry it (none: struck)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    replacement: dict[str, Any] | None = None


class WhatIfPublic(BaseModel):
    at: int = Field(description="The head the difference is computed at")
    from_checkpoint: int = Field(description="The checkpoint (a turn's opening) the views were folded forward from, "
                                             "before the event replaced (0: the first event)")
    changes: list[str] = Field(examples=[["FRA-1: 5 LD → 7 LD", "Picardie: controlled by FRA (was ENG)"]])
    budget: list[str] = Field(examples=[["ENG turn 1, A9 Pillages, privateers: 12 → 10 ducats"]])
    victory: dict[str, dict[str, str]] = Field(examples=[{"ENG": {"now": "5", "then": "0"}}])


class LedgerKey(BaseModel):
    name: str = Field(description="The key name in checkpoint signature lines (and the origin's host)",
                      examples=["ledger.example.org"])
    algorithm: str = Field(examples=["ed25519"])
    key_id: str = Field(description="sha256(name || '\\n' || 0x01 || public key)[:4], hex", examples=["1a2b3c4d"])
    public_key: str = Field(description="The raw 32-byte Ed25519 public key, base64", examples=["MCow..."])
    vkey: str = Field(description="The signed-note verifier key: name+key id+base64(0x01 || key)",
                      examples=["ledger.example.org+1a2b3c4d+AQ..."])


class InclusionProof(BaseModel):
    position: int = Field(examples=[3])
    size: int = Field(description="The tree size (head position) the proof is for", examples=[8])
    leaf_hash: str = Field(description="sha256(0x00 || event hash), hex: the event's place, not its content",
                           examples=HEX64)
    root: str = Field(description="The RFC 6962 root at `size`, hex (the checkpoint's, base64 there)",
                      examples=HEX64)
    proof: list[str] = Field(description="The audit path, hex, leaf to root", examples=[HEX64])


class ConsistencyProof(BaseModel):
    from_: int = Field(alias="from", examples=[3])
    to: int = Field(examples=[8])
    from_root: str = Field(examples=HEX64)
    to_root: str = Field(examples=HEX64)
    proof: list[str] = Field(examples=[HEX64])


class RulingPublic(EventPublic):
    """A ruling with, in words, what it decided and which later positions correct it."""

    summary: str = Field(examples=["M19 Battle at Picardie: ENG wins (major victory)"])
    outcome: list[tuple[str, str]] = Field(examples=[[["winner", "attacker"], ["major victory", "yes"]]])
    effects: list[str] = Field(examples=[["FRA (defender): loses 3 LD"]])
    board: list[str] = Field(default_factory=list, examples=[[
        "terrain: typed plain, the board says dense forest; kept by the game master: fought in the clearing"]],
        description="Inputs kept against the board or the map (with the game master's reason), inputs filled from them")
    corrected_by: list[int] = Field(examples=[[9]], description="Positions of the corrections of this ruling "
                                    "(and of corrections of those) this caller may see, in order")


# ----------------------------------------------------------------- notification endpoints (issue 38)

class EndpointRegisteredPublic(Appended):
    endpoint_id: str = Field(examples=["ep_0123456789abcdef"])
    secret: str | None = Field(
        description="The signing secret (X-Ledger-Signature: sha256=HMAC-SHA256(secret, timestamp + '.' + body)), "
        "shown once: it is stored nowhere. null on an idempotent replay.", examples=["whsec_5be0" + "0" * 60])


class EndpointTopics(Strict):
    """What an endpoint is told about (the whole new list): the command is built from the path and this."""

    topics: list[str] = Field(examples=[["turns", "rulings"]])


class EndpointPublic(BaseModel):
    id: str = Field(examples=["ep_0123456789abcdef"])
    audience: str = Field(examples=["FRA"], description="a country, 'gm' (the campaign's) or 'public' (the table's)")
    kind: str = Field(examples=["discord"])
    target: str = Field(examples=["https://discord.com/api/webhooks/123/abc"])
    label: str = Field(examples=["FRA discord"])
    topics: list[str] = Field(examples=[["turns", "rulings"]])
    delivered: int = Field(examples=[12])
    pending: int = Field(examples=[0])
    failed: int = Field(examples=[1], description="messages given up after their retries")
    expired: int = Field(examples=[0], description="messages older than LEDGER_NOTIFY_MAX_AGE_SECONDS, not sent")
    last_error: str | None = Field(examples=["the receiver answered HTTP 500 Internal Server Error"])
    last_error_at: float | None = Field(examples=[1764410000.0], description="seconds since 1970, UTC")
    last_delivered_at: float | None = Field(examples=[1764410000.0])


class DeliveryPublic(BaseModel):
    position: int = Field(examples=[43])
    topic: str = Field(examples=["rulings"])
    text: str = Field(examples=["Round S2, ENG impulse: M19 Fast combat at Picardie: ENG wins"])
    status: str = Field(examples=["delivered"], description="pending, delivered, failed, expired or cancelled")
    attempts: int = Field(examples=[1])
    last_error: str | None = Field(examples=[None])
    next_at: float | None = Field(examples=[1764410000.0], description="a pending message's next attempt")
    delivered_at: float | None = Field(examples=[1764410000.0])
