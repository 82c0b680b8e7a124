"""A document copied to fold further (``records.copy_doc``) is the document, and folding the copy never changes
the original: the victory's append-only logs share their entries, everything else is copied deep."""

from __future__ import annotations

import orjson
from hypothesis import given, settings, strategies as st

from projections import replay, victory
from projections.records import Record, copy_doc

CID = "00000000-0000-0000-0000-000000000001"
COUNTRIES = ["ENG", "FRA", "HAB"]


def stability(position: int, country: str, amount: int) -> Record:
    return Record(CID, position, "RulingRecorded", {
        "procedure": "D5", "context": {"turn": 1},
        "ruling": {"title": "Stability check", "effects": [
            {"kind": "stability_changed", "country": country, "amount": str(amount)},
            {"kind": "victory_points", "country": country, "amount": "1"}]}})


changes = st.lists(st.tuples(st.sampled_from(COUNTRIES), st.integers(-2, 2)), max_size=8)


def folded(changes: list[tuple[str, int]], start: int = 1) -> dict:
    doc = victory.empty()
    for i, (country, amount) in enumerate(changes):
        victory.apply(doc, stability(start + i, country, amount))
    return doc


@settings(max_examples=100, deadline=None)
@given(before=changes, after=changes)
def test_folding_a_copy_gives_what_folding_a_full_copy_gives_and_leaves_the_original_as_it_was(before, after):
    doc = folded(before)
    original = orjson.dumps(doc)
    copied, full = copy_doc(doc, victory.APPEND_ONLY), orjson.loads(orjson.dumps(doc))
    assert orjson.dumps(copied) == original  # the same document, key order too
    for i, (country, amount) in enumerate(after):
        r = stability(len(before) + 1 + i, country, amount)
        victory.apply(copied, r)
        victory.apply(full, r)
    assert copied == full
    assert orjson.dumps(doc) == original


def test_the_stability_logs_entries_are_shared_and_its_list_is_not():
    doc = folded([("ENG", 1), ("FRA", -1)])
    copied = copy_doc(doc, victory.APPEND_ONLY)
    assert len(doc["stability_log"]) == 2 and copied["stability_log"] is not doc["stability_log"]
    assert all(a is b for a, b in zip(copied["stability_log"], doc["stability_log"]))
    assert copied["stability"] is not doc["stability"] and copied["vp"] is not doc["vp"]


def test_copy_docs_shares_only_the_logs_a_model_declares_append_only():
    docs = {"map": {"provinces": {"Picardie": {"markers": ["Siegework 1"]}}, "position": 3},
            "victory": folded([("HAB", 2)])}
    copied = replay.copy_docs(docs)
    assert copied == docs
    copied["map"]["provinces"]["Picardie"]["markers"].append("Siegework 2")
    assert docs["map"]["provinces"]["Picardie"]["markers"] == ["Siegework 1"]
    assert copied["victory"]["stability_log"][0] is docs["victory"]["stability_log"][0]
