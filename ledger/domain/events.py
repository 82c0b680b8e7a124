"""The facts a campaign's history is made of (past tense, immutable).

Every event carries the envelope of ``LedgerEvent``: schema version, the
turn/phase/round context, the actor and their role, the server time
(``timestamp``), who may see it, and its place in the hash chain. Payloads are
JSON-native (exact numbers as text) so the stored bytes are their own
canonical form and anyone can re-hash them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from eventsourcing.domain import DomainEvent

SCHEMA_VERSION = 1


class LedgerEvent(DomainEvent):
    """Envelope shared by every event of a campaign history."""

    schema: int
    context: dict[str, Any]  # {"turn", "phase", "round", "impulse"}
    actor: dict[str, Any]  # {"id", "role", "country"}
    visibility: dict[str, Any]  # {"scope": "public" | "countries" | "gm", "countries": [...]}
    prev_hash: str
    hash: str
    #: A hidden event's blinding (``ledger.chain.new_salt``: 32 random bytes, hex), stored with it so that its hash
    #: covers it: whoever may not see the event cannot confirm a guess of its content from its hash. Set by
    #: ``Draft.seal`` in the stored state of an event whose visibility is not public; a public event, and any
    #: event sealed before salts, has none (this class attribute: None), and hashes as it always did.
    salt: ClassVar[str | None] = None

    @property
    def position(self) -> int:
        return self.originator_version

    @property
    def type(self) -> str:
        return type(self).__name__

    def payload(self) -> dict[str, Any]:
        """The event-specific fields, without the envelope."""
        return {k: v for k, v in vars(self).items() if k not in ENVELOPE}


ENVELOPE = frozenset(
    {"originator_id", "originator_version", "timestamp", "schema", "context", "actor", "visibility", "prev_hash", "hash",
     "salt"}
)


class CampaignCreated(LedgerEvent):
    name: str
    slug: str
    ruleset: str
    ruleset_version: str
    countries: list[str]
    players: dict[str, str]  # country -> player name
    game_masters: list[str]
    settings: dict[str, Any]


class TurnOpened(LedgerEvent):
    turn: int
    commitment: str  # sha256(turn seed), hex; scheme 2: of the public seed
    # ledger/dice.py: 1, one seed for the turn (absent from turns opened before audiences); 2, one per audience.
    dice_scheme: int = 1


class DiceSeedCommitted(LedgerEvent):
    """The commitment to the seed of one audience's rolls (scheme 2), before its first roll of the turn.

    Its visibility is the audience's: nobody else learns that the audience rolled."""

    turn: int
    audience: str  # ledger.dice.audience: "gm" or "countries:ENG,FRA"
    commitment: str  # sha256(the audience's seed), hex


class DiceRolled(LedgerEvent):
    turn: int
    index: int | None  # gapless per turn for server dice; None for physical dice
    purpose: str
    sides: int
    count: int
    values: list[int]
    manual: bool


class RulingRecorded(LedgerEvent):
    """A die-driven procedure resolved by the server (or supplied by the GM)."""

    procedure: str
    ruleset: str
    ruleset_version: str
    ruling: dict[str, Any]  # ledger.rules.core.Ruling as JSON


class TreasuryEntryRecorded(LedgerEvent):
    country: str
    turn: int
    line: str  # ERS line code, e.g. "A9"
    amount: int  # ducats, signed
    reason: str
    source: int | None  # position of the event this entry comes from, if any
    # A line the board works out, typed with another total and kept by the game master (issue 36): {"line",
    # "typed" (the line's total with this entry), "board" (the total worked out), "reason"}. Absent before.
    overridden: dict[str, Any] | None = None


class IncomeConfirmed(LedgerEvent):
    """The game master confirmed the ERS lines the board works out for one country's turn (issue 36).

    ``at``: the state's position the proposal was worked out at (the one the game master saw). ``lines``:
    every computed line, ``{"line", "amount" (recorded), "computed", "rule", "lineage": [{"kind", "name",
    "amount", "position", "note"}], "kept": reason | None}``. The treasury entries that book them follow in the
    same transaction, each with this event as its ``source`` (as a ruling's entries do).
    """

    turn: int
    country: str
    at: int
    lines: list[dict[str, Any]]


class CorrectionRecorded(LedgerEvent):
    """A correction of an earlier event; the original stays in the history."""

    corrects: int  # position of the corrected event
    reason: str
    replacement: dict[str, Any] | None


class TurnClosed(LedgerEvent):
    turn: int
    seed: str  # the revealed turn seed, hex; scheme 2: the public seed
    rolls: int  # server rolls drawn in the turn; scheme 2: public ones
    dice_scheme: int = 1  # as its TurnOpened's (absent from turns closed before audiences)


class DiceSeedRevealed(LedgerEvent):
    """The seed of one audience's rolls revealed at the turn's close, visible to that audience only (scheme 2).

    A game master makes it public with a reveal, like any hidden event."""

    turn: int
    audience: str
    seed: str  # hex
    rolls: int  # server rolls of the audience in the turn (indices 0 .. rolls-1)


class CampaignSnapshot(DomainEvent):
    """Write-side state at a position, so a long campaign loads in one read."""

    state: dict[str, Any]


class ScenarioImported(LedgerEvent):
    """The starting position of a campaign, recorded right after its creation.

    ``scenario`` is the validated, normalised scenario (ledger.scenario.Scenario
    as JSON): countries with treasuries and stability, the inflation box,
    provinces and sea zones, adjacency, starting stacks and leaders, wars.
    """

    name: str
    source: str  # file name or label the scenario came from
    sha256: str  # of the scenario text as supplied
    scenario: dict[str, Any]


class StackMoved(LedgerEvent):
    stack: str
    origin: str
    destination: str
    reason: str
    # Absent from moves recorded before the board: the whole path (origin .. destination), and, for a move
    # the game master forced past the checks, {"reason", "refused": [what the checks said]}.
    path: list[str] | None = None
    forced: dict[str, Any] | None = None


class ControlChanged(LedgerEvent):
    province: str
    controller: str
    previous: str | None
    reason: str


class OwnerChanged(LedgerEvent):
    province: str
    owner: str
    previous: str | None
    reason: str


class MarkerPlaced(LedgerEvent):
    province: str
    marker: str  # Pillage+, Pillage-, Revolt, Siegework...
    reason: str


class MarkerRemoved(LedgerEvent):
    province: str
    marker: str
    reason: str


class WarDeclared(LedgerEvent):
    attackers: list[str]
    defenders: list[str]
    reason: str


class FortressChanged(LedgerEvent):
    province: str
    level: int
    previous: int | None  # the level the write side knew (the scenario's, then changes)
    reason: str


class PeaceMade(LedgerEvent):
    attackers: list[str]  # the sides of the war that ends, as declared
    defenders: list[str]
    reason: str


class StackRaised(LedgerEvent):
    """A new stack on the map, with its leaders' counters (I3: arriving in ``turn``)."""

    stack: str
    country: str
    location: str
    units: dict[str, int]
    leaders: list[dict[str, Any]]
    turn: int
    reason: str


class StackSplit(LedgerEvent):
    """``units`` and ``leaders`` left ``stack`` as ``new_stack``, in the same place, of the same country."""

    stack: str
    new_stack: str
    country: str
    location: str
    units: dict[str, int]
    leaders: list[str]
    reason: str


class StacksMerged(LedgerEvent):
    """``merged`` joined ``stack`` (its units and leaders, listed here) and left the map."""

    stack: str
    merged: str
    location: str
    units: dict[str, int]
    leaders: list[str]
    reason: str


class StackChanged(LedgerEvent):
    """Units added or lost (signed), leaders arriving (with their counter's values) or leaving the game, in
    ``turn`` (I3: arrival and departure by turn)."""

    stack: str
    units: dict[str, int]
    arrived: list[dict[str, Any]]
    departed: list[str]
    turn: int
    reason: str


class SiegeStarted(LedgerEvent):
    province: str
    besiegers: list[str]  # stack ids, each in the province when the siege started
    reason: str


class SiegeEnded(LedgerEvent):
    province: str
    outcome: str  # taken | lifted | relieved
    reason: str


class TokenIssued(LedgerEvent):
    """An access token of the campaign was issued (GM-only; only its sha256 is kept, never the token)."""

    token_id: str  # first 16 hex digits of sha256, used to name and revoke it
    sha256: str  # of the whole token string, hex
    role: str  # "gm" | "player" | "observer"
    country: str | None  # the player's country
    holder: str  # who holds it (a name, recorded as the actor id of their events)


class TokenRevoked(LedgerEvent):
    token_id: str
    reason: str


class SessionOpened(LedgerEvent):
    """A web page login with a campaign token (GM-only; only the session's sha256 is kept, never its secret).
    The login cookie holds the session, never the token: logging out or revoking the token ends it."""

    session_id: str  # first 16 hex digits of sha256, used to name and end it
    sha256: str  # of the whole session string, hex
    token_id: str  # the token that logged in (its revocation ends the session)
    expires_at: str  # ISO 8601, UTC: the session is refused from then on


class SessionEnded(LedgerEvent):
    session_id: str
    reason: str


class VisibilityRevealed(LedgerEvent):
    """A hidden event (GM-only or some countries) becomes public from here on; the original is unchanged."""

    revealed: int  # position of the event made public
    reason: str


class SheetsPublished(LedgerEvent):
    """The game master published a turn's ERS of some countries: the hidden events behind those sheets
    (``positions``: entries and their corrections) are public from here on, for good."""

    turn: int
    countries: list[str]
    positions: list[int]  # the events made public, ascending
    reason: str


class PhaseClosed(LedgerEvent):
    """A phase of the sequence of play is over for this turn (ledger/usecases/phases.py).

    Public, so it records no country's figures: ``ers`` is empty (the game master who closes it is told each
    country's completed lines in the answer). A history recorded before held here every country's lines;
    the budget reads none of them and a reader who does not see everything gets the event without them
    (``ledger.access.withheld``): a rival's treasury is not everyone's to read.
    """

    turn: int
    phase: str
    ers: dict[str, Any]
    # Who or what closed it when not the game master's own close (issue 38): {"by": "all ready", "countries":
    # [...]} when the last player marked ready and the campaign closes a phase early. Absent before.
    closed_by: dict[str, Any] | None = None


class CampaignSettingsChanged(LedgerEvent):
    """The game master changed campaign settings (e.g. ``players_may_roll``); unnamed settings keep their value.

    ``changed`` holds the new values, ``previous`` what they replaced (null: was unset).
    """

    changed: dict[str, Any]
    previous: dict[str, Any]
    reason: str


class CountryFactsSet(LedgerEvent):
    """The game master set some of a country's economic facts (ledger/domain/commands.py ``SetCountryFacts``):
    ``facts`` holds the values set (the others keep theirs), ``previous`` what they replaced (null: unset)."""

    country: str
    facts: dict[str, Any]
    previous: dict[str, Any]
    reason: str


# ------------------------------------------------------------------ trade and the rest of the world (issue 36)
# What the income sheet reads of a country's trade and establishments, as the game master sets it on the board.
# Each event states the new value and the one it replaced (``previous``, None: none), like FortressChanged.


class TradeFleetChanged(LedgerEvent):
    """A country's trade fleet in a trade zone is now at ``level`` (0: it has none there)."""

    country: str
    zone: str  # "STZ Canarias", "CTZ France" (tables/trade_centres.toml)
    level: int  # 0..6
    previous: int
    reason: str


class TradeCentreChanged(LedgerEvent):
    """A trade centre is now held by ``holder`` (None: nobody), in ``province``; the Great Orient's income is
    recorded with it (``income``: its modifiers read the whole world, not only the board)."""

    centre: str  # great_orient | atlantic | mediterranean | indian_ocean
    holder: str | None
    previous: str | None
    province: str | None
    income: int | None
    reason: str


class EstablishmentChanged(LedgerEvent):
    """A country's colony or trading post in a rest-of-the-world province is now at ``level`` (0: gone), with
    the exotic resources it exploits and whether it exploits the province's gold (a colony)."""

    country: str
    kind: str  # colony | trading_post
    place: str  # a rest-of-the-world province of the board ("Cabo Verde~I")
    level: int  # 0..6
    previous: int
    exploits: dict[str, int]  # resource code (board: sl, sp, fur...) -> units exploited
    gold: bool
    reason: str


class MissionChanged(LedgerEvent):
    """A country's mission in a rest-of-the-world province is founded (``present``) or gone."""

    country: str
    place: str
    present: bool
    reason: str


class StackDisbanded(LedgerEvent):
    """``stack`` leaves the map, with its units and leaders (listed here): disbanded, or gone for a reason no
    ruling records. A correction striking it puts the stack back where it was."""

    stack: str
    location: str
    units: dict[str, Any]
    leaders: list[str]
    reason: str


class LeaderValuesChanged(LedgerEvent):
    """The values printed on a leader's counter, restated (a leader raised without them, a value misread):
    ``values`` the new ones, ``previous`` those the map held. No departure: the leader stays where he is."""

    leader: str
    stack: str
    values: dict[str, int]
    previous: dict[str, int]
    reason: str


# ----------------------------------------------------------------- pace: deadlines, readiness, reminders (issue 38)


class DeadlineSet(LedgerEvent):
    """The game master set (or moved) the deadline of a phase of the open turn (ledger/usecases/pacing.py).

    ``due``: UTC, ISO 8601; ``time_zone``: the IANA zone it was typed in (the campaign's); ``reminders``:
    minutes before ``due`` at which the players not ready are reminded; ``previous``: the deadline it moves."""

    turn: int
    phase: str
    due: str
    time_zone: str
    reminders: list[int]
    previous: str | None
    reason: str | None


class DeadlineCleared(LedgerEvent):
    turn: int
    phase: str
    previous: str
    reason: str


class ReadinessMarked(LedgerEvent):
    """A country is ready (or no longer) for the phase the open turn is in. Public: the table sees who is late."""

    turn: int
    phase: str
    country: str
    ready: bool


class ReminderIssued(LedgerEvent):
    """A reminder fell due ``before`` minutes before the phase's deadline ``due``, naming the countries not ready
    then. Recorded once per deadline and offset: the chain says whether it went out (never twice after a
    restart); delivering it is the outbox's (the notifications)."""

    turn: int
    phase: str
    due: str
    before: int
    not_ready: list[str]


class MarkedAsRead(LedgerEvent):
    """A reader ("Since you last looked") has read the campaign up to ``up_to``. Its audience is the reader's
    country and the game masters (a game master's or an observer's own: the game masters): a reader's
    bookmark, not a fact of the game; the catch-up of the next visit starts after ``up_to``."""

    reader: str  # "token:<id>", or the actor's id where no token authenticated them (the command line)
    up_to: int
class EndpointRegistered(LedgerEvent):
    """Someone asked to be told: a webhook or an e-mail address of the campaign's (game master) or of a player,
    and what it is to be told (ledger/notify). Seen by its owner's audience and the game master only; its
    signing secret is not in it (derived from the service's key and ``endpoint_id``, ledger/notify/signing.py).
    """

    endpoint_id: str
    audience: str  # "gm" (the campaign's), "public" (the table's channel) or a country (a player's)
    kind: str  # "discord" | "slack" | "json" | "email"
    target: str  # the URL, or the e-mail address
    topics: list[str]  # ledger/notify/topics.py TOPICS
    label: str


class EndpointChanged(LedgerEvent):
    """The topics an endpoint is told about changed (``topics``: the new list, whole)."""

    endpoint_id: str
    topics: list[str]
    previous: list[str]


class EndpointRemoved(LedgerEvent):
    endpoint_id: str
    reason: str
