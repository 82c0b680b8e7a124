"""A rebuild's narrow decode of a ruling: the fields asked for exactly as orjson decodes them, nothing else."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.chain import canonical_json
from projections.records import ruling_decoder
from projections.runner import narrow_decoders
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
        if rest and head.endswith("[]") and head[:-2] in ruling and head[:-2] not in fields:
            items = ruling[head[:-2]]
            if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
                return orjson.loads(canonical_json(event))  # the shape does not fit: decoded whole
            asked = {r for g in fields if g.startswith(head + ".") for r in [g.partition(".")[2]]}
            kept[head[:-2]] = [{k: v for k, v in x.items() if k in asked} for x in items]
        elif rest and head not in fields and isinstance(ruling.get(head), dict):
            kept.setdefault(head, {}).update({k: v for k, v in ruling[head].items() if k == rest})
    out["ruling"] = kept
    return out


steps = st.lists(st.dictionaries(st.sampled_from(["dice", "label", "table_cell"]), json_values, max_size=3)
                 | json_values, max_size=3)


@settings(max_examples=300, deadline=None)
@given(ruling=st.dictionaries(ruling_keys, json_values, max_size=6),
       inputs=st.dictionaries(st.sampled_from(["action", "terrain"]), json_values, max_size=2),
       ruling_steps=st.none() | steps,
       fields=st.frozensets(st.sampled_from(["effects", "outcome", "summary", "title", "inputs.action", "dice",
                                             "steps[].dice"])))
def test_a_ruling_decodes_to_the_fields_asked_for_as_orjson_decodes_them(ruling, inputs, ruling_steps, fields):
    ruling["inputs"] = inputs
    if ruling_steps is not None:
        ruling["steps"] = ruling_steps
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


def test_the_dice_check_reads_every_die_of_a_ruling_through_its_narrow_decode():
    """``head.DICE_DECODERS``: the dice ``ledger.dice.ruling_dice`` finds (top level, then each step's) are the
    same as in the whole event, and what it does not read is not built."""
    from ledger.dice import ruling_dice
    from projections.head import DICE_DECODERS

    die = {"index": 0, "sides": 10, "count": 1, "purpose": "fire", "values": [7], "manual": False}
    ruling = {"dice": [die], "steps": [{"label": "fire", "dice": [{**die, "index": 1, "values": [3]}],
                                        "table_cell": "B4"}, {"label": "no roll"}],
              "inputs": {"attacker": {"ld": 2}}, "outcome": {"winner": "FRA"}, "effects": []}
    event = canonical_json({"context": {"turn": 2}, "visibility": {"scope": "public"}, "procedure": "M13",
                            "ruling": ruling})
    narrow = DICE_DECODERS["RulingRecorded"](event)
    assert ruling_dice(narrow["ruling"]) == ruling_dice(orjson.loads(event)["ruling"])
    assert [d["values"] for d in ruling_dice(narrow["ruling"])] == [[7], [3]]
    assert set(narrow["ruling"]) == {"dice", "steps"} and narrow["ruling"]["steps"][0] == {"dice": [
        {**die, "index": 1, "values": [3]}]}
    assert narrow["context"] == {"turn": 2} and narrow["visibility"] == {"scope": "public"}
