"""Corrections on the map and victory views (projections.corrections), on both stores.

A correction never edits the event it corrects: the views read the event as
the correction replaces it (or skip it when struck), and every later event
builds on the corrected state. The state as of a position before the
correction stays what the ledger said then.
"""

from __future__ import annotations

from ledger.domain.commands import MoveStack, PlaceMarker, RemoveMarker
from ledger.sample import GM
from projections import replay
from projections.runner import Projector
from tests.integration.test_projections import positions_of, sample


def test_a_corrected_move_puts_the_stack_where_the_correction_says(ledger):
    cid = sample(ledger)
    ledger.submit(cid, MoveStack, stack="FRA-1", origin="Normandie", via=["Caux"], destination="Picardie", actor=GM)
    [move] = [p for p in positions_of(ledger, cid, "StackMoved")][-1:]
    p = Projector(ledger)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["location"] == "Picardie"
    before = ledger.campaign(cid).version

    ledger.record_correction(cid, corrects=move, reason="FRA-1 went to Kent", replacement={"destination": "Kent"},
                             actor=GM)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["location"] == "Kent"
    assert ledger.event_at(cid, move).destination == "Picardie"  # the original is kept as recorded
    assert replay.state_at(ledger, p.db, cid, before)["map"]["stacks"]["FRA-1"]["location"] == "Picardie"
    head = ledger.campaign(cid).version
    assert replay.state_at(ledger, p.db, cid, head)["map"] == replay.state_from_scratch(ledger, cid, head)["map"]


def test_later_events_build_on_the_corrected_state(ledger):
    cid = sample(ledger)
    ledger.submit(cid, PlaceMarker, province="Kent", marker="Revolt", actor=GM)
    [placed] = positions_of(ledger, cid, "MarkerPlaced")[-1:]
    ledger.submit(cid, RemoveMarker, province="Kent", marker="Revolt", actor=GM)
    # Struck: the marker was never placed, so the later removal finds nothing to remove either.
    ledger.record_correction(cid, corrects=placed, reason="no revolt in Kent", actor=GM)
    ledger.submit(cid, PlaceMarker, province="Kent", marker="Pillage-", actor=GM)
    p = Projector(ledger)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["provinces"]["Kent"]["markers"] == ["Pillage-"]
    assert replay.current(p.db, cid, "map")["corrections"] == {str(placed): None}


def test_a_struck_battle_takes_back_its_victory_points_and_award(ledger):
    cid = sample(ledger)
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    p = Projector(ledger)
    p.catch_up()
    assert replay.current(p.db, cid, "victory")["vp"] == {"ENG": 5, "FRA": 0}
    ledger.record_correction(cid, corrects=battle, reason="the battle was fought at sea", actor=GM)
    p.catch_up()
    v = replay.current(p.db, cid, "victory")
    assert v["vp"] == {"ENG": 0, "FRA": 0} and v["stability"] == {"ENG": 1, "FRA": 0}
    assert replay.awards(p.db, cid) == []
    # A rebuild reaches the same views from the events alone.
    docs = {n: replay.current(p.db, cid, n) for n in ("map", "victory")}
    p.rebuild(restart=True)
    assert {n: replay.current(p.db, cid, n) for n in ("map", "victory")} == docs and replay.awards(p.db, cid) == []


def test_a_ruling_corrected_with_other_effects_counts_the_new_ones(ledger):
    cid = sample(ledger)
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    effects = [{"kind": "victory_points", "country": "FRA", "amount": "2"}]
    ledger.record_correction(cid, corrects=battle, reason="FRA won the battle",
                             replacement={"ruling": {"effects": effects}}, actor=GM)
    p = Projector(ledger)
    p.catch_up()
    v = replay.current(p.db, cid, "victory")
    assert v["vp"] == {"ENG": 0, "FRA": 2}
    [award] = replay.awards(p.db, cid)
    assert (award["position"], award["country"], award["points"]) == (battle, "FRA", "2")
    # The battle's losses were restated too: FRA-1 keeps its 8 LD.
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["units"] == {"LD": 8}


def test_over_http_a_game_master_and_a_player_both_see_the_corrected_map(settings, ledger):
    """The fast read path (api/readpath.py) folds a correction in the tail the same way as the views."""
    from tests.e2e.test_access import bearer, issue, make_client

    cid = sample(ledger)
    ledger.submit(cid, MoveStack, stack="FRA-1", origin="Normandie", via=["Caux"], destination="Picardie", actor=GM)
    [move] = positions_of(ledger, cid, "StackMoved")[-1:]
    client = make_client(settings, ledger)
    gm, player = bearer(issue(ledger, cid, "gm")), bearer(issue(ledger, cid, "player", "FRA"))
    assert client.get("/campaigns/sample/map", headers=gm).json()["stacks"]["FRA-1"]["location"] == "Picardie"
    assert client.get("/campaigns/sample/map", headers=player).json()["stacks"]["FRA-1"]["location"] == "Picardie"
    r = client.post("/campaigns/sample/corrections", headers=gm,
                    json={"corrects": move, "reason": "FRA-1 went to Kent", "replacement": {"destination": "Kent"}})
    assert r.status_code == 201, r.text
    for who in (gm, player):
        assert client.get("/campaigns/sample/map", headers=who).json()["stacks"]["FRA-1"]["location"] == "Kent"
