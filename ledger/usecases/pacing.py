"""Deadlines, readiness, reminders and "read up to here" (issue 38; the commands and their fold: ledger/domain/pace.py).

Everything here reads the campaign's write-side state (``CampaignState.pace``, ``read_marks``): no history read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain import pace
from ledger.domain.errors import Forbidden, InvalidInput, StateConflict
from ledger.usecases.phases import close_phase
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft

GM_ONLY = {"scope": "gm"}


def _open_phase(d: Draft, field: str) -> tuple[int, str]:
    turn = d.state.require_open_turn()
    phase = pace.current_phase(cmd.PHASES, d.state.phases_closed)
    if phase is None:
        raise StateConflict(f"every phase of turn {turn} is closed: close the turn", field=field)
    return turn, phase


def _words(when: datetime, zone_name: str) -> str:
    return f"{when.astimezone(pace.zone(zone_name)):%Y-%m-%d %H:%M} {zone_name}"


@handles(pace.SetDeadline)
def set_deadline(d: Draft, c: pace.SetDeadline) -> dict[str, Any]:
    turn = d.state.require_open_turn()
    if c.phase in d.state.phases_closed:
        raise StateConflict(f"the {c.phase} phase of turn {turn} is closed: its deadline is over", field="phase")
    zone_name = pace.campaign_zone(d.state.settings)
    try:
        due = pace.parse_due(c.due, zone_name)
    except ValueError as e:
        raise InvalidInput(f"due: {e}", field="due") from None
    now = datetime.now(UTC)
    if due <= now:
        raise InvalidInput(f"due: {_words(due, zone_name)} has passed (it is {_words(now, zone_name)})", field="due")
    previous = (d.state.pace.get("deadlines") or {}).get(c.phase)
    iso = due.isoformat()
    if previous is not None and previous["due"] == iso and previous["reminders"] == c.reminders:
        raise StateConflict(f"the {c.phase} phase is already due {_words(due, zone_name)} with these reminders",
                            field="due")
    d.context["phase"] = c.phase
    d.add(ev.DeadlineSet, turn=turn, phase=c.phase, due=iso, time_zone=zone_name, reminders=list(c.reminders),
          previous=previous["due"] if previous else None, reason=c.reason)
    return {"turn": turn, "phase": c.phase, "due": iso, "time_zone": zone_name, "reminders": list(c.reminders)}


@handles(pace.ClearDeadline)
def clear_deadline(d: Draft, c: pace.ClearDeadline) -> dict[str, Any]:
    turn = d.state.require_open_turn()
    previous = (d.state.pace.get("deadlines") or {}).get(c.phase)
    if previous is None:
        raise StateConflict(f"the {c.phase} phase of turn {turn} has no deadline", field="phase")
    d.context["phase"] = c.phase
    d.add(ev.DeadlineCleared, turn=turn, phase=c.phase, previous=previous["due"], reason=c.reason)
    return {"turn": turn, "phase": c.phase, "cleared": previous["due"]}


@handles(pace.MarkReady)
def mark_ready(d: Draft, c: pace.MarkReady) -> dict[str, Any]:
    """A player marks their own country; a game master any. With ``close_when_all_ready``, the last country's
    "ready" closes the phase in the same append (the close-phase use case, its event saying so)."""
    if d.actor.role == "player":
        if c.country is not None and c.country != d.actor.country:
            raise Forbidden(f"a player marks their own country ({d.actor.country}) ready, not {c.country}",
                            field="country", rule="access.mark_ready")
        country = d.actor.country
    elif c.country is None:
        raise InvalidInput("country: name the country marked ready", field="country")
    else:
        country = c.country
    d.state.require_country(country)
    turn, phase = _open_phase(d, "ready")
    ready = set((d.state.pace.get("ready") or {}).get(phase, ()))
    if (country in ready) == c.ready:
        said = "is already marked ready" if c.ready else "is not marked ready"
        raise StateConflict(f"{country} {said} for the {phase} phase of turn {turn}", field="ready")
    d.context["phase"] = phase
    d.add(ev.ReadinessMarked, turn=turn, phase=phase, country=country, ready=c.ready)
    now_ready = ready | {country} if c.ready else ready - {country}
    out: dict[str, Any] = {"turn": turn, "phase": phase, "country": country, "ready": c.ready,
                           "not_ready": [x for x in d.state.countries if x not in now_ready], "closed": None}
    if c.ready and d.state.settings.get("close_when_all_ready") and now_ready >= set(d.state.countries):
        out["closed"] = close_phase(d, cmd.ClosePhase(phase=phase),
                                    closed_by={"by": "all ready", "last": country})
    return out


@handles(pace.SendReminders)
def send_reminders(d: Draft, c: pace.SendReminders) -> dict[str, Any]:
    d.state.require_open_turn("reminders")
    due = pace.due_reminders(d.state.pace, datetime.now(UTC))
    if not due:
        raise StateConflict("no reminder is due now", field="reminders")
    ready = d.state.pace.get("ready") or {}
    sent = []
    for phase, when, before in due:
        late = [x for x in d.state.countries if x not in ready.get(phase, ())]
        d.add(ev.ReminderIssued, turn=d.state.turn, phase=phase, due=when, before=before, not_ready=late)
        sent.append({"phase": phase, "due": when, "before": before, "not_ready": late})
    return {"reminders": sent}


def reader_key(actor: Any) -> str:
    """Whose bookmark: the token that authenticated the reader, else (the command line, the admin) their id."""
    return f"token:{actor.token}" if getattr(actor, "token", None) else actor.id


@handles(pace.MarkAsRead)
def mark_read(d: Draft, c: pace.MarkAsRead) -> dict[str, Any]:
    if c.up_to > d.state.version:
        raise InvalidInput(f"up_to: position {c.up_to} is not in the history (it ends at {d.state.version})",
                           field="up_to")
    reader = reader_key(d.actor)
    if d.state.read_marks.get(reader) == c.up_to:
        raise StateConflict(f"already marked as read up to {c.up_to}", field="up_to")
    country = d.actor.country if d.actor.role == "player" else None
    vis = {"scope": "countries", "countries": [country]} if country else GM_ONLY
    d.add(ev.MarkedAsRead, vis, reader=reader, up_to=c.up_to)
    return {"reader": reader, "up_to": c.up_to}
