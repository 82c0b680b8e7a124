"""The turn page's kept data (a turn's stored rows and timeline rows, kept per process by ``Reader``) moves with
an append and never crosses audiences: every step a kept reader shows equals what a fresh reader shows, for the
game master and for each player, before and after events are appended to the turn, hidden ones among them."""

from __future__ import annotations

import random

from api.web.turn_view import turn_view
from ledger.application import Actor
from ledger.domain.commands import ChangeControl
from ops.generate_campaign import generate
from projections.head import Reader
from projections.read import records
from projections.runner import Projector

GM, FRANCE, ENGLAND = Actor("gm", "gm"), Actor("fra", "player", "FRA"), Actor("eng", "player", "ENG")


def shown(view) -> dict:
    return {"steps": view.steps, "index": view.index, "event": view.event, "map": view.map, "victory": view.victory,
            "changes": view.changes, "budget": view.budget_changes, "dice": view.dice, "status": view.dice_status}


def fresh_view(ledger, cid, turn, actor, step, state):
    return turn_view(ledger, cid, turn, actor, step=step, reader=Reader(ledger, Projector(ledger).db), state=state)


def test_every_step_a_kept_reader_shows_equals_a_fresh_readers_for_each_audience(ledger):
    generate(ledger, "kept", 240, seed=3, turn_size=50)
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    kept = Reader(ledger, Projector(ledger).db)
    rng = random.Random(4)
    # Steps in random order, so a later step is served from a prefix an earlier one left, and the reverse.
    for turn, step, actor in [(rng.randint(1, state.turn), rng.randint(1, 60), rng.choice([GM, FRANCE, ENGLAND]))
                              for _ in range(40)]:
        got = turn_view(ledger, state.id, turn, actor, step=step, reader=kept, state=state)
        assert shown(got) == shown(fresh_view(ledger, state.id, turn, actor, step, state))


def test_a_turns_kept_rows_move_with_an_append_and_a_hidden_event_reaches_only_its_audience(ledger):
    generate(ledger, "moves", 120, seed=5, turn_size=40)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    kept = Reader(ledger, Projector(ledger).db)
    turn = state.turn
    for actor in (GM, FRANCE, ENGLAND):  # every audience reads the turn: its rows are kept
        last = turn_view(ledger, cid, turn, actor, step=10**6, reader=kept, state=state)
        assert last.event["position"] == state.version
    # Appended after the rows were kept, and not caught up by the views: the tail must bring it.
    hidden = ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                           visibility={"scope": "countries", "countries": ["ENG"]}).events[-1]["position"]
    state = ledger.campaign(cid)
    assert kept.turn_records(cid, turn, state.version) == [
        r for r in records(ledger, cid, kept.turn_start(cid, turn), state.version) if r.turn == turn]
    for actor in (GM, ENGLAND):
        view = turn_view(ledger, cid, turn, actor, step=10**6, reader=kept, state=state)
        assert view.event["position"] == hidden
        assert view.map["provinces"]["Picardie"]["controller"] == "ENG"
        assert shown(view) == shown(fresh_view(ledger, cid, turn, actor, 10**6, state))
    france = turn_view(ledger, cid, turn, FRANCE, step=10**6, reader=kept, state=state)
    assert hidden not in [s["position"] for s in france.steps]
    assert france.map["provinces"]["Picardie"].get("controller") != "ENG"
    assert shown(france) == shown(fresh_view(ledger, cid, turn, FRANCE, 10**6, state))


def test_a_place_at_the_head_from_the_kept_map_moves_with_an_append_and_equals_the_place_as_of_that_position(ledger):
    from api.web.place_view import place_view

    generate(ledger, "place", 120, seed=7, turn_size=40)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    kept = Reader(ledger, Projector(ledger).db)
    for actor in (GM, FRANCE, ENGLAND):  # each audience's map at the head is kept
        place_view(ledger, kept, cid, actor, state, "Picardie", None, 1)
    ledger.submit(cid, ChangeControl, province="Picardie", controller="SPA", actor=GM,
                  visibility={"scope": "countries", "countries": ["ENG"]})
    state = ledger.campaign(cid)
    for actor in (GM, FRANCE, ENGLAND):
        at_head = place_view(ledger, kept, cid, actor, state, "Picardie", None, 1)
        as_of = place_view(ledger, Reader(ledger, Projector(ledger).db), cid, actor, state, "Picardie",
                           state.version - 1, 1)  # not the head: the checkpoint and fold, for comparison
        controller = (at_head["state"] or {}).get("controller")
        if actor == FRANCE:  # the hidden change is not theirs: their place is as it was before it
            assert controller != "SPA" and controller == (as_of["state"] or {}).get("controller")
        else:
            assert controller == "SPA"
        assert at_head["at"] == state.version
    assert place_view(ledger, kept, cid, FRANCE, state, "Picardie", None, 1)["state"] == \
        Reader(ledger, Projector(ledger).db).state_at(cid, FRANCE, state, state.version)["map"]["provinces"].get(
            "Picardie")
