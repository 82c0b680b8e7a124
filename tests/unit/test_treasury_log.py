"""The budget's log in the campaign's snapshot: its full chunks are kept as text and decoded only when read.

A first read in a fresh process restores the state from the snapshot; decoding a long campaign's log (67,000
entries on the 300k campaign) was most of that read's CPU, and most reads never look at it.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ledger.chain import canonical_json
from ledger.economy import treasury_log
from ledger.economy.treasury_log import TreasuryLog


def entry(n: int) -> tuple[str, int, dict]:
    return ("TreasuryEntryRecorded", n, {"country": "FRA", "turn": 1 + n // 7, "line": "A9", "amount": n % 13,
                                         "reason": "left out of the log"})


def grown(log: TreasuryLog, start: int, count: int) -> TreasuryLog:
    for n in range(start, start + count):
        log = log.add(*entry(n))
    return log


def restored(log: TreasuryLog) -> TreasuryLog:
    """As a fresh process finds it: through the snapshot's canonical JSON bytes and back."""
    return TreasuryLog.from_json(orjson.loads(canonical_json(log.to_json())))


@settings(max_examples=40, deadline=None)
@given(before=st.integers(0, 40), after=st.integers(0, 40))
def test_a_log_restored_from_a_snapshot_and_grown_holds_what_the_log_never_snapshotted_holds(before, after):
    treasury_log.CHUNK, chunk = 4, treasury_log.CHUNK  # small chunks: every boundary within a few items
    try:
        never = grown(grown(TreasuryLog(), 1, before), 1 + before, after)
        again = grown(restored(grown(TreasuryLog(), 1, before)), 1 + before, after)
        assert again.count == never.count == before + after
        assert again.to_json() == never.to_json()  # its next snapshot too, undecoded base spliced with new chunks
        assert list(again.items()) == list(never.items())
        assert list(again.items(before // 2)) == list(never.items(before // 2))
        assert again.sheet_events(2, {"FRA"}) == never.sheet_events(2, {"FRA"})
    finally:
        treasury_log.CHUNK = chunk


def test_a_restored_log_decodes_its_chunks_only_when_they_are_read():
    log = restored(grown(TreasuryLog(), 1, treasury_log.CHUNK * 3 + 5))
    assert log.base is not None and log.base._chunks is None
    log = grown(log, treasury_log.CHUNK * 3 + 6, treasury_log.CHUNK)  # appends fill the tail, chunk it
    assert log.count == treasury_log.CHUNK * 4 + 5 and log.base._chunks is None
    assert [p for _, p, _ in log.items()] == list(range(1, treasury_log.CHUNK * 4 + 6))
    assert log.base._chunks is not None


def test_a_snapshot_written_before_the_text_form_restores_as_its_items():
    items = [list(entry(n)) for n in range(1, treasury_log.CHUNK + 3)]
    for item in items:
        del item[2]["reason"]
    log = TreasuryLog.from_json(items)
    assert log.to_items() == items and log.count == len(items)


def test_a_log_text_that_does_not_hold_its_count_is_refused_when_read():
    stored = grown(TreasuryLog(), 1, treasury_log.CHUNK).to_json()
    stored["count"] = treasury_log.CHUNK * 2
    log = TreasuryLog.from_json(stored)
    with pytest.raises(ValueError, match=f"holds {treasury_log.CHUNK} items, not {treasury_log.CHUNK * 2}"):
        list(log.items())


@settings(max_examples=40, deadline=None)
@given(before=st.integers(0, 40), after=st.integers(0, 12), rare=st.sets(st.integers(1, 52)))
def test_the_positions_of_rare_kinds_found_in_a_snapshots_text_are_those_the_decoded_log_holds(before, after,
                                                                                               rare):
    """Corrections and scenarios found by position in a restored log's undecoded text (and in the chunks and
    tail added since) are those of its items once decoded: none missed; a settings list that echoes a kind's
    name may add one, never remove one."""
    treasury_log.CHUNK, chunk = 4, treasury_log.CHUNK
    try:
        def grow(log, start, count):
            for n in range(start, start + count):
                log = log.add("CorrectionRecorded", n, {"corrects": 1, "replacement": None}) if n in rare \
                    else log.add(*entry(n))
            return log

        log = grow(restored(grow(TreasuryLog().add("CampaignCreated", 0, {
            "countries": ["FRA"], "settings": {"notes": ["CorrectionRecorded", 7]}}), 1, before)), 1 + before, after)
        assert log.base is None or log.base._chunks is None, "searched, not decoded"
        want = [p for k, p, _ in log.items() if k == "CorrectionRecorded"]
        found = log.positions({"CorrectionRecorded"})
        assert set(want) <= set(found) and set(found) - set(want) <= {7}
    finally:
        treasury_log.CHUNK = chunk


@settings(max_examples=60, deadline=None)
@given(before=st.integers(0, 40), after=st.integers(0, 12),
       items=st.lists(st.tuples(st.sampled_from(["FRA", "ENG", "SPA"]), st.integers(-9, 9),
                                st.booleans(), st.integers(1, 60)), min_size=52, max_size=52))
def test_a_countrys_entry_table_reads_its_entries_every_correction_and_what_each_corrects(before, after, items):
    """``entry_positions(country)``, from a restored log's undecoded text and from the decoded log: the
    country's entries, every correction and the position it corrects (a correction may move an entry onto
    the country), none missed, none of another country's uncorrected entries."""
    treasury_log.CHUNK, chunk = 4, treasury_log.CHUNK
    try:
        def grow(log, start, count):
            for n in range(start, start + count):
                country, amount, correction, target = items[n - 1]
                log = log.add("CorrectionRecorded", n, {"corrects": target % n or 1,
                                                        "replacement": {"country": country}}) if correction \
                    else log.add("TreasuryEntryRecorded", n, {"country": country, "turn": 1, "line": "A9",
                                                              "amount": amount, "reason": "a, \"quoted\" {FRA}"})
            return log

        log = grow(restored(grow(TreasuryLog(), 1, before)), 1 + before, after)
        text_answer = {c: log.entry_positions(c) for c in ("FRA", "ENG")}
        assert log.base is None or log.base._chunks is None, "searched, not decoded"
        for country in ("FRA", "ENG"):
            want = sorted({p for k, p, d in log.items() if k == "TreasuryEntryRecorded" and d["country"] == country}
                          | {p for k, p, d in log.items() if k == "CorrectionRecorded"}
                          | {d["corrects"] for k, p, d in log.items() if k == "CorrectionRecorded"})
            assert text_answer[country] == want == log.entry_positions(country)  # decoded by items() now
    finally:
        treasury_log.CHUNK = chunk


_PIECES = st.sampled_from(['["TreasuryEntryRecorded",', '["CorrectionRecorded",', '"country":"FRA"',
                           '"country":"ENG"', '"country":', '"FRA"', "12", "7", "٣", ",", "{", "}", "[", "]",
                           '"amount":5', '"line":"A9"', ' ', 'x'])


@given(st.lists(_PIECES, max_size=40).map("".join))
@example('[["TreasuryEntryRecorded",12,{"amount":5,"country":"FRA","line":"A9"}],'
         '["TreasuryEntryRecorded",7,{"country":"FRA"}],["TreasuryEntryRecorded",٣,{"country":"FRA","x":{}}],'
         '["TreasuryEntryRecorded",8,{"a":{"country":"FRA"}}],["TreasuryEntryRecorded",9,{"country":"FRAN"}]]')
def test_a_countrys_entries_found_in_a_snapshots_text_are_those_the_expression_finds(text):
    import re

    expression = re.compile(r'\["TreasuryEntryRecorded",(\d+),\{[^{}]*"country":"FRA"[,}]')
    assert sorted(set(treasury_log._entries_in(text, "FRA"))) == \
        sorted({int(m.group(1)) for m in expression.finditer(text)})
