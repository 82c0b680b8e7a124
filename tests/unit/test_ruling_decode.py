"""A rebuild's narrow decode of a ruling: the fields asked for exactly as orjson decodes them, nothing else."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.chain import canonical_json
from projections.runner import narrow_decoders, ruling_decoder
from projections.views import VIEW_CLASSES

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12)
ruling_keys = st.sampled_from(["effects", "outcome", "summary", "title", "steps", "inputs", "dice", "total"])


def expected(event: dict[str, Any], fields: frozenset[str]) -> dict[str, Any]:
    """The event as orjson decodes it, its ruling cut down to ``fields`` (one level of "a.b")."""
    out = orjson.loads(canonical_json(event))
    ruling = out["ruling"]
    kept = {k: v for k, v in ruling.items() if k in fields}
    for f in fields:
        head, _, rest = f.partition(".")
        if rest and head not in fields and isinstance(ruling.get(head), dict):
            kept.setdefault(head, {}).update({k: v for k, v in ruling[head].items() if k == rest})
    out["ruling"] = kept
    return out


@settings(max_examples=200, deadline=None)
@given(ruling=st.dictionaries(ruling_keys, json_values, max_size=6),
       inputs=st.dictionaries(st.sampled_from(["action", "terrain"]), json_values, max_size=2),
       fields=st.frozensets(st.sampled_from(["effects", "outcome", "summary", "title", "inputs.action"])))
def test_a_ruling_decodes_to_the_fields_asked_for_as_orjson_decodes_them(ruling, inputs, fields):
    ruling["inputs"] = inputs
    event = {"context": {"turn": 3, "phase": "land"}, "actor": {"id": "gm", "role": "gm", "country": None},
             "visibility": {"scope": "public"}, "procedure": "M21", "ruleset": "eu", "ruleset_version": "1",
             "schema": 1, "timestamp": "2026-11-24T21:00:00+00:00", "prev_hash": "a" * 64, "hash": "b" * 64,
             "ruling": ruling}
    assert ruling_decoder(fields)(canonical_json(event)) == expected(event, fields)


def test_a_ruling_the_narrow_shape_does_not_fit_is_decoded_whole():
    """A ruling or one of its asked-for objects that is not an object: decoded as orjson does, nothing lost."""
    decode = ruling_decoder(frozenset({"effects", "inputs.action"}))
    for ruling in (None, [1, 2], {"inputs": "unknown", "effects": []}):
        event = canonical_json({"context": {}, "procedure": "M1", "ruling": ruling})
        assert decode(event) == orjson.loads(event)


def test_the_views_declare_what_they_read_of_a_ruling_and_a_view_that_does_not_keeps_it_whole():
    views = [cls.__new__(cls) for cls in VIEW_CLASSES.values()]
    assert set(narrow_decoders(views)) == {"RulingRecorded"}

    class Undeclared:
        reads = None
        ruling_reads = None

    assert narrow_decoders([*views, Undeclared()]) == {}
