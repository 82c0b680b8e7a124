"""The turn page's ERS changes of a treasury entry, from its country's inputs (a snapshot and a bounded tail,
``projections.budget_steps``), are those of the budget of every event before it, for a game master and for a
player (who does not see the other countries' hidden entries), at every entry of a generated campaign, in
random order (the memo kept between steps must not leak one step's sheets into another)."""

from __future__ import annotations

import random

import pytest

from ledger.application import Actor
from ops.generate_campaign import generate
from projections import budget_steps, words
from projections.head import Reader
from projections.read import records, visible
from projections.runner import Projector

GM, FRANCE = Actor("gm", "gm"), Actor("fra", "player", "FRA")


@pytest.fixture
def generated(ledger, monkeypatch):
    monkeypatch.setattr(budget_steps, "EVERY", 7)  # snapshots every 7 events, so a short campaign uses many
    generate(ledger, "steps", 700, seed=3, turn_size=80)
    [state] = ledger.campaigns()
    return state


@pytest.mark.parametrize("actor", [GM, FRANCE], ids=["gm", "player"])
def test_an_entrys_ers_changes_from_its_countrys_snapshot_equal_those_of_every_event_before_it(ledger, generated,
                                                                                                  actor):
    state = generated
    reader = Reader(ledger, Projector(ledger).db)
    entries = [r for r in visible(actor, records(ledger, state.id), state.revealed)
               if r.type == "TreasuryEntryRecorded"]
    assert len(entries) > 30
    random.Random(1).shuffle(entries)
    for r in entries[:40]:
        expected = words.budget_changes(reader.budget_events(state.id, actor, state, r.position - 1), r)
        assert reader.budget_changes(state.id, actor, state, r) == expected, r.position
        assert expected and all(c["country"] == r.data["country"] for c in expected)
    # Appended since: the kept inputs take the tail.
    ledger.open_turn(state.id, actor=GM)
    ledger.record_treasury_entry(state.id, country="FRA", line="A9", amount=7, reason="looting", actor=GM)
    state = ledger.campaign(state.id)
    [r] = records(ledger, state.id, state.version - 1, state.version)
    expected = words.budget_changes(reader.budget_events(state.id, actor, state, r.position - 1), r)
    assert reader.budget_changes(state.id, actor, state, r) == expected != []
