"""The economic history the exports read, kept per audience and extended with the events appended since
(``Reader.history``), is the one ``gather`` reads from the first event: for a game master and for a player,
after each turn of the worked ERS example (entries, ruling effects, a correction)."""

from __future__ import annotations

import pytest

from ledger.application import Actor
from ledger.domain.campaign import campaign_id
from projections.head import Reader
from projections.history import gather
from projections.runner import Projector
from tests.integration.test_economy_flow import GM, SLUG, play_turn_one, play_turn_two

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

FRANCE = Actor("fra", "player", "FRA")


def test_a_kept_history_extended_turn_by_turn_equals_one_read_from_the_first_event(ledger):
    ledger.create_campaign(slug=SLUG, name="Europa ERS", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    cid = campaign_id(SLUG)
    reader = Reader(ledger, Projector(ledger).db)
    for play in (play_turn_one, play_turn_two):
        play(ledger, cid)
        state = ledger.campaign(cid)
        for actor in (GM, FRANCE):
            kept = reader.history(cid, actor, state)
            assert kept == gather(ledger, cid, actor)
            assert kept.position == state.version and kept.budget.sheets


def test_an_export_at_the_same_head_reads_no_row_again(ledger):
    ledger.create_campaign(slug=SLUG, name="Europa ERS", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    cid = campaign_id(SLUG)
    play_turn_one(ledger, cid)
    reader, state = Reader(ledger, Projector(ledger).db), ledger.campaign(cid)
    first = reader.history(cid, FRANCE, state)
    rows, select = [], ledger.recorder.select_events

    def counting(*args, **kwargs):
        found = select(*args, **kwargs)
        rows.extend(found)
        return found

    ledger.recorder.select_events = counting
    again = reader.history(cid, FRANCE, state)
    assert again == first and rows == []
