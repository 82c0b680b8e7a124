"""GET /events prints its records with orjson (api/routes/views.py ``events_json``): the bytes must stay those of
its response model, ``list[EventPublic]`` dumped by pydantic, for every record the store can hold."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from api.routes.views import EVENTS, event_public_of, events_json
from projections.records import Record

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12)

# How a stored timestamp may read: the store's isoformat in UTC (with or without microseconds), "Z", another
# offset, none at all.
timestamps = st.builds(
    lambda t, offset, form: (t.replace(tzinfo=timezone(timedelta(minutes=offset))).isoformat() if form == "offset"
                             else t.isoformat() + "Z" if form == "z" else t.isoformat()),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
    st.sampled_from([0, 0, 60, -330]), st.sampled_from(["offset", "z", "naive"]))


def record(position: int, ts: str, payload: dict) -> Record:
    data = {**{k: v for k, v in payload.items() if k not in ("schema", "timestamp")},
            "schema": 1, "timestamp": ts, "context": {"turn": 2, "phase": "military"},
            "actor": {"id": "gina", "role": "gm", "country": None}, "visibility": {"scope": "public"},
            "prev_hash": "0" * 64, "hash": "f" * 64}
    return Record(campaign="c", position=position, type="TreasuryEntryRecorded", data=data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(timestamps, st.dictionaries(st.text(max_size=8), json_values, max_size=4)), max_size=4))
def test_a_page_of_events_prints_as_its_response_model_does(events):
    records = [record(i + 1, ts, payload) for i, (ts, payload) in enumerate(events)]
    assert events_json(records) == EVENTS.dump_json([event_public_of(r) for r in records], by_alias=True)


def test_a_utc_timestamp_is_printed_with_z_as_pydantic_prints_it():
    [shown] = __import__("orjson").loads(events_json([record(1, "2026-11-24T21:09:53.696297+00:00", {})]))
    assert shown["timestamp"] == "2026-11-24T21:09:53.696297Z"
