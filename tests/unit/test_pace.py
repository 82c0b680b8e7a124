"""The pace's pure parts (ledger/domain/pace.py): reminders fall due once each, never before their moment,
whatever the ticks; the words of offsets; a reminder time typed for the command line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.domain import pace
from projections.records import Record
from projections.timeline import summary

SET_AT = datetime(2026, 11, 1, tzinfo=UTC)
DUE = datetime(2026, 11, 10, 20, tzinfo=UTC)


def fold(pace_doc, kind, **fields):
    """``pace.follow`` of an event of type ``kind`` (the fold reads its type's name and its fields)."""
    e = type(kind, (SimpleNamespace,), {})(**fields)
    return pace.follow(pace_doc, e)


@given(reminders=st.lists(st.integers(1, 60 * 24 * 8), min_size=1, max_size=6, unique=True),
       ticks=st.lists(st.integers(0, 60 * 24 * 12), min_size=1, max_size=30))
def test_each_reminder_falls_due_once_and_never_before_its_moment(reminders, ticks):
    doc = fold({}, "DeadlineSet", phase="military", due=DUE.isoformat(), time_zone="UTC", reminders=reminders,
               originator_version=5, timestamp=SET_AT)
    issued = []
    for minutes in sorted(ticks):
        now = SET_AT + timedelta(minutes=minutes)
        for phase, due, before in pace.due_reminders(doc, now):
            assert DUE - timedelta(minutes=before) <= now  # never early
            issued.append(before)
            doc = fold(doc, "ReminderIssued", phase=phase, due=due, before=before, not_ready=[])
    assert len(issued) == len(set(issued))  # never twice
    last = SET_AT + timedelta(minutes=max(ticks))
    expected = {b for b in reminders if SET_AT < DUE - timedelta(minutes=b) <= last}
    assert set(issued) == expected  # every one whose moment came and went after the deadline was set


@pytest.mark.parametrize(("typed", "minutes", "words"), [("24h", 1440, "1 day"), ("2h", 120, "2 h"),
                                                           ("90m", 90, "1 h 30 min"), ("2d", 2880, "2 days"),
                                                           ("45", 45, "45 min")])
def test_a_reminder_time_is_typed_and_said_in_days_hours_and_minutes(typed, minutes, words):
    assert pace.parse_before(typed) == minutes
    assert pace.before_words(minutes) == words


def test_a_reminder_time_that_is_not_one_says_how_to_write_it():
    with pytest.raises(ValueError, match="write it like 24h, 2h, 30m or 2d"):
        pace.parse_before("tomorrow")


def test_a_phase_closed_early_says_every_country_was_ready_and_who_was_last():
    r = Record("c", 9, "PhaseClosed", {"turn": 2, "phase": "military", "ers": {},
                                       "closed_by": {"by": "all ready", "last": "FRA"}, "context": {}})
    assert summary({}, r) == "Turn 2: Military phase closed, early: every country is ready (FRA last)"
