"""Who may see which event, and who may write what: pure functions, no I/O.

Every read path (HTTP routes, projections, exports) filters with ``can_see``;
every write route checks ``may_write``. Both take the caller as an ``Actor``
(id, role, country) and nothing else from the request.

Roles, per campaign:
- ``gm``: the campaign's game master; sees everything, may do everything.
- ``player``: plays one country; sees public events, events visible to their
  country, and hidden events the GM later revealed; may request dice for their
  own country only if the campaign's setting ``players_may_roll`` is true, and
  command their own country's stacks if ``players_may_move`` is true.
- ``observer``: sees public (and revealed) events; writes nothing.
- ``admin``: the operator's bootstrap token (``LEDGER_ADMIN_TOKEN``); every
  campaign, every right: it creates campaigns and issues their first tokens.
- ``system``: the ledger itself (CLI, sample data); never an HTTP caller.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ledger.domain.actors import Actor
from ledger.i18n import gettext
from ledger.terms import term

ROLES = ("gm", "player", "observer")  # what a campaign token can carry
ALL_SEEING = frozenset({"gm", "admin", "system"})
TOKEN_EVENTS = frozenset({"TokenIssued", "TokenRevoked", "SessionOpened", "SessionEnded"})  # always GM-only, never revealable
#: An endpoint's record: its owner's and the game master's only, never revealable (a webhook URL is a capability).
ENDPOINT_EVENTS = frozenset({"EndpointRegistered", "EndpointChanged", "EndpointRemoved"})

# (role, action) -> True (allowed), False (refused), or the name of a campaign
# setting that must be true. A pair not listed is refused; ("gm", "*") means
# every action, including those other modules add later.
WRITES: dict[tuple[str, str], bool | str] = {
    ("admin", "*"): True,
    ("system", "*"): True,
    ("gm", "*"): True,
    ("gm", "create_campaign"): False,  # a GM token is bound to its campaign: new campaigns need the admin
    ("gm", "change_settings"): True,  # as "*" says; named because players_may_roll is decided here
    ("player", "roll"): "players_may_roll",
    ("player", "record_ruling"): "players_may_roll",
    # Their own country's stacks only (ledger/usecases/map.py checks the stacks named).
    ("player", "move_stack"): "players_may_move",
    ("player", "split_stack"): "players_may_move",
    ("player", "merge_stacks"): "players_may_move",
    ("player", "change_stack"): "players_may_move",
    ("player", "start_siege"): "players_may_move",
    # A login and its logout (ledger/tokens.py sessions): every holder, with their own token only.
    ("player", "open_session"): True,
    ("player", "end_session"): True,
    ("observer", "open_session"): True,
    ("observer", "end_session"): True,
    # Their own country only (ledger/usecases/pacing.py checks it), and their own bookmark.
    ("player", "mark_ready"): True,
    ("player", "mark_read"): True,
    # Their own country's endpoints only (ledger/usecases/notify.py checks the audience named).
    ("player", "register_endpoint"): True,
    ("player", "change_endpoint"): True,
    ("player", "remove_endpoint"): True,
    ("player", "list_endpoints"): True,
    ("observer", "*"): False,
}

# Every write action of the HTTP API, with what it does (the README table is built from this).
ACTIONS: dict[str, str] = {
    "create_campaign": "create a campaign (admin only: no campaign exists yet)",
    "open_turn": "open the next turn (dice commitment)",
    "close_turn": "close the open turn (reveals the seed)",
    "close_phase": "close a phase of the open turn (records the ERS lines it completes)",
    "change_settings": "change the campaign's settings (players_may_roll, players_may_move, ers_visibility, "
                       "time_zone, close_when_all_ready)",
    "roll": "roll server dice (physical dice: GM only)",
    "record_ruling": "resolve a procedure with server dice and record it (physical dice: GM only)",
    "record_treasury": "record a treasury entry",
    "confirm_income": "confirm the ERS lines the board works out (income and upkeep), or keep other values with why",
    "record_correction": "record a correction",
    "reveal": "make a hidden event public",
    "publish_sheets": "publish a turn's ERS sheets (their hidden entries become public, for good)",
    "issue_token": "issue an access token",
    "revoke_token": "revoke an access token",
    "list_tokens": "list the live tokens (ids, roles, holders; never the secrets)",
    "open_session": "log in on the web page with one's own token (the cookie holds a session, never the token)",
    "end_session": "log out: end one's own web page login (a game master: any of the campaign's)",
    "move_stack": "record a stack's move on the map",
    "change_control": "record a change of a province's controller",
    "change_owner": "record a change of a province's owner",
    "place_marker": "place a marker on the map",
    "remove_marker": "remove a marker from the map",
    "change_fortress": "record a change of a province's fortress level",
    "declare_war": "record a declaration of war",
    "make_peace": "record the peace that ends a war",
    "raise_stack": "put a new stack on the map (its units and leaders)",
    "split_stack": "split some units and leaders off a stack as a new stack",
    "merge_stacks": "merge two stacks in the same place",
    "change_stack": "record a stack's new or lost units, a leader's arrival or departure",
    "start_siege": "record the start of a siege",
    "end_siege": "record the end of a siege (taken, lifted, relieved)",
    "set_country_facts": "set a country's economic facts (technologies, domestic trade index, vassals, "
                         "manufactures, mines)",
    "change_trade_fleet": "record a country's trade fleet level in a trade zone",
    "change_trade_centre": "record who holds a trade centre, and where",
    "change_establishment": "record a country's colony or trading post in the rest of the world (level, exploits)",
    "change_mission": "record a country's mission founded or gone in the rest of the world",
    "disband_stack": "take a stack off the map (disbanded), with its units and leaders",
    "set_leader_values": "give a leader on the map the values printed on his counter",
    "set_deadline": "set or move the deadline of a phase, with reminders before it (in the campaign's time zone)",
    "clear_deadline": "clear the deadline of a phase",
    "mark_ready": "mark a country ready, or not, for the phase the turn is in (a player: their own country)",
    "send_reminders": "record the reminders due now, naming the countries not ready (the service's ticker does)",
    "mark_read": "mark the campaign read up to a position (\"Since you last looked\" starts after it)",
    "register_endpoint": "register a webhook or e-mail address to be told (players: for their own country)",
    "change_endpoint": "change what an endpoint is told about (players: their own)",
    "remove_endpoint": "remove an endpoint (players: their own)",
    "list_endpoints": "list endpoints and their deliveries, with the last error (players: their own)",
}


def may_write(actor: Actor, action: str, settings: Mapping[str, Any] | None = None) -> bool:
    """Whether ``actor`` may perform ``action`` in a campaign with these settings."""
    rule = WRITES.get((actor.role, action), WRITES.get((actor.role, "*"), False))
    if isinstance(rule, str):
        return bool((settings or {}).get(rule, False))
    return rule


def _field(event: Any, name: str, key: str | None = None) -> Any:
    if isinstance(event, Mapping):
        return event.get(key or name)
    return getattr(event, name)


def can_see(actor: Actor, event: Any, revealed: Collection[int] = ()) -> bool:
    """Whether ``actor`` may see ``event`` (a LedgerEvent, or its public JSON with ``position``).

    ``revealed``: positions a later ``VisibilityRevealed`` made public (the
    campaign state's ``revealed``).
    """
    if actor.role in ALL_SEEING:
        return True
    vis = _field(event, "visibility") or {}
    scope = vis.get("scope", "public")
    if scope == "public":
        return True
    if _field(event, "originator_version", "position") in revealed:
        return True
    return scope == "countries" and actor.role == "player" and actor.country in (vis.get("countries") or ())


def visible(actor: Actor, events: list[Any], revealed: Collection[int] = ()) -> list[Any]:
    """The events of ``events`` that ``actor`` may see, in order."""
    if actor.role in ALL_SEEING:
        return list(events)
    shown = frozenset(revealed)
    return [e for e in events if can_see(actor, e, shown)]


def withheld(actor: Actor, kind: str, data: Mapping[str, Any]) -> bool:
    """Whether an event ``actor`` may see holds figures they may not: a ``PhaseClosed`` of an older history
    carries every country's ERS lines in ``ers`` (today's record none); only the all-seeing read them. Such a reader gets the event without them
    (``readable``) and cannot recompute its hash, as for a hidden event."""
    return actor.role not in ALL_SEEING and kind == "PhaseClosed" and bool(data.get("ers"))


def readable(actor: Actor, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as ``actor`` may read it (see ``withheld``)."""
    return {**data, "ers": {}} if withheld(actor, kind, data) else data


def revealable(event: Any) -> bool:
    """A token's record stays GM-only for good, an endpoint's its owner's; every other hidden event may be
    revealed."""
    type_name = event.get("type") if isinstance(event, Mapping) else type(event).__name__
    return type_name not in TOKEN_EVENTS and type_name not in ENDPOINT_EVENTS


def refusal(actor: Actor, action: str) -> str:
    """Why a write is refused, in the reader's language: "a player of ENG may not record treasury in this
    campaign" (the API's ``Permit`` and the forms' pages say the same)."""
    role, country = term(actor.role), actor.country
    if actor.role[:1] in tuple("aeiou"):
        said = gettext("an {role} of {country}") if country else gettext("an {role}")
    else:
        said = gettext("a {role} of {country}") if country else gettext("a {role}")
    who = said.format(role=role, country=country)
    return gettext("{who} may not {action} in this campaign").format(who=who, action=term(action.replace("_", " ")))
