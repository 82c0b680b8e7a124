"""Access tokens and visibility reveals, recorded as events of the campaign (ledger/tokens.py says why)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ledger import access
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import EventNotFound, InvalidInput, StateConflict, TokenNotFound
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft

GM_ONLY = {"scope": "gm"}


@handles(cmd.IssueToken)
def issue_token(d: Draft, c: cmd.IssueToken, *, sha256: str) -> dict[str, Any]:
    """``sha256``: of the secret the caller generated; the secret itself is never part of the command."""
    if c.country is not None:
        d.state.require_country(c.country)
    name = c.holder or (d.state.players.get(c.country, "") if c.country else "") or c.role
    token = {"token_id": sha256[:16], "role": c.role, "country": c.country, "holder": name}
    d.add(ev.TokenIssued, GM_ONLY, sha256=sha256, **token)
    return token


@handles(cmd.RevokeToken)
def revoke_token(d: Draft, c: cmd.RevokeToken) -> dict[str, Any]:
    if not any(t["id"] == c.token_id for t in d.state.tokens.values()):
        raise TokenNotFound(f"no live token {c.token_id!r} in this campaign", field="token_id")
    d.add(ev.TokenRevoked, GM_ONLY, token_id=c.token_id, reason=c.reason)
    return {"token_id": c.token_id, "revoked": True}


@handles(cmd.OpenSession)
def open_session(d: Draft, c: cmd.OpenSession, *, sha256: str, now: datetime) -> dict[str, Any]:
    """``sha256``: of the session string the caller generated (never part of the command); ``now``: the login's
    time, the expiry counted from it is recorded in the event (a replay reads it, never the clock)."""
    token_id = d.actor.token
    if token_id is None or not any(t["id"] == token_id for t in d.state.tokens.values()):
        raise TokenNotFound("a login names a live token of this campaign", field="token")
    expires = (now.astimezone(UTC) + timedelta(hours=c.hours)).isoformat(timespec="seconds")
    session = {"session_id": sha256[:16], "token_id": token_id, "expires_at": expires}
    d.add(ev.SessionOpened, GM_ONLY, sha256=sha256, **session)
    return session


@handles(cmd.EndSession)
def end_session(d: Draft, c: cmd.EndSession) -> dict[str, Any]:
    """A login ended (logout): its holder ends their own; a game master any of the campaign's."""
    found = next((s for s in d.state.sessions.values() if s["id"] == c.session_id), None)
    if found is None or (d.actor.role not in access.ALL_SEEING and found["token_id"] != d.actor.token):
        raise TokenNotFound(f"no live login {c.session_id!r} of yours in this campaign", field="session_id")
    d.add(ev.SessionEnded, GM_ONLY, session_id=c.session_id, reason=c.reason)
    return {"session_id": c.session_id, "ended": True}


@handles(cmd.RevealEvent)
def reveal(d: Draft, c: cmd.RevealEvent) -> dict[str, Any]:
    """Make a hidden event public from now on (a new event: the original is never changed)."""
    if c.position > d.state.version:
        raise InvalidInput(f"position {c.position} is not in the history", field="position")
    try:
        target = d.ledger.event_at(d.state.id, c.position)
    except EventNotFound:
        raise InvalidInput(f"position {c.position} is not in the history", field="position") from None
    if not access.revealable(target):
        raise StateConflict(f"a {type(target).__name__} stays visible to game masters only", field="position")
    if (target.visibility or {}).get("scope", "public") == "public":
        raise StateConflict(f"the event at position {c.position} is already public", field="position")
    if c.position in d.state.revealed:
        raise StateConflict(f"the event at position {c.position} was already revealed", field="position")
    d.add(ev.VisibilityRevealed, revealed=c.position, reason=c.reason)
    return {"revealed": c.position}


@handles(cmd.PublishSheets)
def publish_sheets(d: Draft, c: cmd.PublishSheets) -> dict[str, Any]:
    """Make public the hidden events behind some countries' ERS of one turn, in one event.

    What stands behind a sheet is its entries and their corrections, read from the write side's treasury
    log: no history is read but those events themselves, to leave out the ones already public. The rulings
    an entry comes from are not published with it (a ruling may concern other countries): the game master
    reveals those one by one.
    """
    if c.turn > d.state.turn:
        raise InvalidInput(f"turn {c.turn} has not been opened (current turn {d.state.turn})", field="turn")
    countries = c.countries or list(d.state.countries)
    for country in countries:
        d.state.require_country(country, "countries")
    if d.state.treasury is None:
        raise StateConflict("the campaign's state has no treasury log", field="campaign")
    shown = set(d.state.revealed)
    behind = [p for p in d.state.treasury.sheet_events(c.turn, set(countries)) if p not in shown]
    positions = [p for p in behind
                 if (d.ledger.event_at(d.state.id, p).visibility or {}).get("scope", "public") != "public"]
    if not positions:
        raise StateConflict(f"every entry of turn {c.turn} of {', '.join(countries)} is already visible to "
                            "every reader: nothing to publish", field="turn")
    d.add(ev.SheetsPublished, turn=c.turn, countries=sorted(countries), positions=positions, reason=c.reason)
    return {"turn": c.turn, "countries": sorted(countries), "published": positions}
