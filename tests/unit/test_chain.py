"""The hash chain: canonical JSON, and detection of any change to the stored bytes."""

from __future__ import annotations

from fractions import Fraction
from uuid import uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.chain import GENESIS, NotCanonical, StoredRow, canonical_json, event_hash, hash_body, verify_rows


def build_history(n: int = 4) -> list[StoredRow]:
    cid = uuid4()
    prev = GENESIS
    rows = []
    for position in range(1, n + 1):
        state = {"prev_hash": prev, "schema": 1, "payload": {"amount": position * 10, "reason": f"entry {position}"},
                 "timestamp": "2026-11-21T08:00:00+00:00"}
        state["hash"] = event_hash(prev, hash_body(cid, position, "ledger.domain.events:X", state))
        rows.append(StoredRow(cid, position, "ledger.domain.events:X", canonical_json(state)))
        prev = state["hash"]
    return rows


def test_canonical_json_sorts_keys_and_has_no_whitespace():
    assert canonical_json({"b": 1, "a": {"d": [1, 2], "c": "é"}}) == '{"a":{"c":"é","d":[1,2]},"b":1}'.encode()


@given(st.dictionaries(st.text(max_size=5), st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5), max_size=8))
def test_canonical_json_is_stable_whatever_the_insertion_order(d):
    reversed_order = dict(reversed(list(d.items())))
    assert canonical_json(d) == canonical_json(reversed_order)


def test_values_without_a_canonical_form_are_refused():
    with pytest.raises(NotCanonical):
        canonical_json({"amount": 2**70})


def test_canonical_json_keeps_fractions_exact():
    assert canonical_json({"loss": Fraction(4, 3)}) == b'{"loss":"4/3"}'


def test_an_untouched_history_verifies_and_reports_its_head():
    rows = build_history()
    report = verify_rows(rows)
    assert report.intact and report.count == 4
    assert report.head_hash == __import__("orjson").loads(rows[-1].state)["hash"]


def test_chain_detects_any_one_byte_change():
    rows = build_history(3)
    for target in range(len(rows)):
        state = rows[target].state
        for i in range(len(state)):
            for replacement in {state[i] ^ 0x01, ord(" ")}:
                if replacement == state[i]:
                    continue
                tampered = state[:i] + bytes([replacement]) + state[i + 1 :]
                copy = list(rows)
                copy[target] = StoredRow(rows[target].campaign, rows[target].position, rows[target].topic, tampered)
                report = verify_rows(copy)
                assert not report.intact, f"change at byte {i} of position {target + 1} went unnoticed"
                assert report.broken_at == target + 1


def test_chain_names_a_missing_position():
    rows = build_history(4)
    report = verify_rows([rows[0], rows[1], rows[3]])
    assert not report.intact and report.broken_at == 3
    assert "missing" in report.reason


def test_chain_detects_an_event_moved_to_another_position():
    rows = build_history(3)
    moved = [rows[0], StoredRow(rows[2].campaign, 2, rows[2].topic, rows[2].state), rows[1]]
    assert verify_rows(moved).broken_at == 2


@settings(max_examples=50)
@given(st.integers(min_value=0, max_value=2), st.data())
def test_chain_detects_a_changed_topic(position, data):
    rows = build_history(3)
    row = rows[position]
    rows[position] = StoredRow(row.campaign, row.position, data.draw(st.sampled_from(["a:B", "x:Y"])), row.state)
    assert verify_rows(rows).broken_at == position + 1


@pytest.mark.parametrize("garbage", [b"not json", b"[1,2]"])
def test_chain_reports_unreadable_state(garbage):
    rows = build_history(2)
    rows[1] = StoredRow(rows[1].campaign, 2, rows[1].topic, garbage)
    assert verify_rows(rows).broken_at == 2
