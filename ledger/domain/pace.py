"""The pace of a turn (issue 38): deadlines per phase, readiness, reminders. Commands, their fold, pure queries.

The game master sets a phase's deadline in the campaign's time zone (``settings.time_zone``, an IANA name;
UTC when unset) with reminders some minutes before it; players mark their country ready for the phase the turn
is in; a reminder that falls due is recorded as an event naming the countries not ready (a ticker in the
service, or ``ledger deadlines tick`` from cron, appends it), once per deadline and offset: the campaign's
state (``CampaignState.pace``, folded here) says which were recorded, so a restart never sends one twice.
A campaign with ``close_when_all_ready`` closes the phase when the last country marks ready (the close-phase
use case, its event saying who closed it). The use cases are ledger/usecases/pacing.py.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator

from ledger.domain.commands import COMMANDS, Command, Country, Phase, Position, Text
from ledger.domain.zones import DEFAULT_ZONE, campaign_zone, zone

#: The longest reminder offset: thirty days before the deadline.
MAX_BEFORE = 30 * 24 * 60
DUE_PATTERN = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$"


def parse_due(text: str, zone_name: str) -> datetime:
    """A deadline typed as "2026-12-01 20:00" (in ``zone_name``) or with its own offset, in UTC."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone(zone_name))
    return when.astimezone(UTC)


def utc(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def before_words(minutes: int) -> str:
    """720 → "12 h", 90 → "1 h 30 min", 2880 → "2 days"."""
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = ([f"{days} day{'s' if days > 1 else ''}"] if days else []) + ([f"{hours} h"] if hours else []) + (
        [f"{mins} min"] if mins else [])
    return " ".join(parts) or "0 min"


_OFFSET = re.compile(r"^\s*(\d+)\s*(d|h|m|min)?\s*$")


def parse_before(text: str) -> int:
    """"24h" → 1440, "30m" → 30, "2d" → 2880, "90" → 90 (minutes); ``ValueError`` in words otherwise."""
    m = _OFFSET.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a time before the deadline (write it like 24h, 2h, 30m or 2d)")
    return int(m.group(1)) * {"d": 24 * 60, "h": 60}.get(m.group(2) or "m", 1)


# ------------------------------------------------------------------ commands


class SetDeadline(Command):
    """Set (or move) the deadline of a phase of the open turn, in the campaign's time zone."""

    action: ClassVar[str] = "set_deadline"
    phase: Phase = Field(examples=["military"])
    due: str = Field(pattern=DUE_PATTERN, examples=["2026-12-01 20:00"],
                     description="When the phase's orders are due: a date and time in the campaign's time zone "
                                 "(settings.time_zone), or with its own offset (\"2026-12-01T19:00Z\")")
    reminders: list[Annotated[int, Field(ge=1, le=MAX_BEFORE)]] = Field(
        default_factory=list, max_length=6, examples=[[1440, 120]],
        description="Minutes before the deadline at which the countries not ready are reminded")
    reason: Text | None = Field(default=None, examples=["the military phase is played over the weekend"])

    @field_validator("reminders")
    @classmethod
    def _each_once(cls, v: list[int]) -> list[int]:
        if len(set(v)) != len(v):
            raise ValueError("a reminder time is named twice")
        return sorted(v, reverse=True)


class ClearDeadline(Command):
    action: ClassVar[str] = "clear_deadline"
    phase: Phase = Field(examples=["military"])
    reason: Text = Field(examples=["no hurry this turn"])


class MarkReady(Command):
    """Mark a country ready (or not) for the phase the turn is in: a player their own country (``country`` may
    be left out), a game master any."""

    action: ClassVar[str] = "mark_ready"
    ready: bool = True
    country: Country | None = Field(default=None, examples=["FRA"])


class SendReminders(Command):
    """Record the reminders due now (the ticker's, or a game master's); refused when none is due."""

    action: ClassVar[str] = "send_reminders"


class MarkAsRead(Command):
    """"Mark as read up to here": the reader's next "Since you last looked" starts after ``up_to``."""

    action: ClassVar[str] = "mark_read"
    up_to: Position = Field(examples=[120])


COMMANDS.update({c.__name__: c for c in (SetDeadline, ClearDeadline, MarkReady, SendReminders, MarkAsRead)})


# ------------------------------------------------------------------ fold


def follow(pace: dict[str, Any], event: Any) -> dict[str, Any]:
    """The open turn's pace after ``event`` (a DeadlineSet, DeadlineCleared, ReadinessMarked or ReminderIssued)."""
    deadlines, ready, sent = dict(pace.get("deadlines", {})), dict(pace.get("ready", {})), list(pace.get("sent", ()))
    kind = type(event).__name__
    if kind == "DeadlineSet":
        set_at = event.timestamp.astimezone(UTC).isoformat() if event.timestamp else event.due
        deadlines[event.phase] = {"due": event.due, "zone": event.time_zone, "reminders": list(event.reminders),
                                  "position": event.originator_version, "set_at": set_at}
    elif kind == "DeadlineCleared":
        deadlines.pop(event.phase, None)
    elif kind == "ReadinessMarked":
        countries = set(ready.get(event.phase, ()))
        countries = countries | {event.country} if event.ready else countries - {event.country}
        ready[event.phase] = sorted(countries)
    elif kind == "ReminderIssued":
        sent.append(sent_key(event.phase, event.due, event.before))
    return {"deadlines": deadlines, "ready": ready, "sent": sent}


def sent_key(phase: str, due: str, before: int) -> str:
    return f"{phase}|{due}|{before}"


# ------------------------------------------------------------------ queries


def current_phase(phases: tuple[str, ...], closed: tuple[str, ...]) -> str | None:
    return next((p for p in phases if p not in closed), None)


def due_reminders(pace: dict[str, Any], now: datetime) -> list[tuple[str, str, int]]:
    """(phase, due, minutes before) of each reminder whose moment has come and that is not recorded yet. A
    reminder whose moment had already passed when its deadline was set is never due (a "24 h before" sent one
    hour before would say the wrong thing)."""
    out = []
    sent = set(pace.get("sent", ()))
    for phase, d in (pace.get("deadlines") or {}).items():
        due, set_at = utc(d["due"]), utc(d.get("set_at") or d["due"])
        for before in d["reminders"]:
            moment = due - timedelta(minutes=before)
            if set_at < moment <= now and sent_key(phase, d["due"], before) not in sent:
                out.append((phase, d["due"], before))
    return out


def status(state: Any, now: datetime) -> dict[str, Any]:
    """The open turn's pace as the table reads it: the phase it is in, its deadline, who is ready, who is not,
    who is late (not ready once the deadline passed), and every deadline set. Public facts only."""
    from ledger.domain.commands import PHASES

    pace = state.pace or {}
    phase = current_phase(PHASES, state.phases_closed) if state.turn_open else None
    ready = list((pace.get("ready") or {}).get(phase, ())) if phase else []
    waiting = [c for c in state.countries if c not in ready]
    deadline = (pace.get("deadlines") or {}).get(phase) if phase else None
    overdue = deadline is not None and utc(deadline["due"]) <= now
    return {"turn": state.turn if state.turn_open else None, "phase": phase, "deadline": deadline,
            "ready": ready, "not_ready": waiting, "late": waiting if overdue else [],
            "overdue": overdue, "deadlines": dict(pace.get("deadlines") or {}),
            "close_when_all_ready": bool(state.settings.get("close_when_all_ready")),
            "zone": campaign_zone(state.settings)}


__all__ = ["DEFAULT_ZONE", "SetDeadline", "ClearDeadline", "MarkReady", "SendReminders", "MarkAsRead", "follow",
           "due_reminders", "status", "zone", "parse_due", "parse_before", "before_words", "campaign_zone"]
