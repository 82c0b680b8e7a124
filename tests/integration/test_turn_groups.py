"""The turn page's list of turns from the stored per-turn groups (``projections.turn_groups``) equals the turns
grouped from the events each caller may see, on both stores: a game master, players, an observer; hidden
events, a reveal and a correction; the view behind the head, past it, failing midway, and added to an older
database and caught up from the log. A place's history from the hidden places it stores equals the events that
touched the place each caller may see."""

from __future__ import annotations

import pytest

from ledger.access import can_see
from ledger.application import Actor
from ledger.domain.commands import ChangeControl, RecordCorrection, RevealEvent
from ops.generate_campaign import generate
from projections import turn_groups
from projections.head import Reader
from projections import timeline
from projections.read import records
from projections.runner import Projector
from ledger.sample import close_open_phases

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM, FRANCE, ENGLAND = Actor("gm", "gm"), Actor("fra", "player", "FRA"), Actor("eng", "player", "ENG")
OBSERVER = Actor("obs", "observer")
EVERYONE = (GM, FRANCE, ENGLAND, OBSERVER)
OLD_VIEWS = ["map", "victory", "timeline", "budget"]  # the views before this one


def turns_of_the_events(ledger, cid, actor, state):
    """The turns list from the events themselves: what the page must show."""
    out: dict[int, dict] = {}
    revealed = frozenset(state.revealed)
    for r in records(ledger, cid, 0, state.version):
        if r.turn is not None and can_see(actor, r, revealed):
            t = out.setdefault(r.turn, {"turn": r.turn, "first": r.position, "last": r.position, "events": 0})
            t["last"], t["events"] = r.position, t["events"] + 1
    return [out[k] for k in sorted(out)]


def stored_groups(projector, cid):
    with projector.db.reading() as cur:
        return turn_groups.stored(projector.db, cur, str(cid))


def campaign_with_secrets(ledger):
    """A generated campaign (players' hidden treasury entries among its events), then a map change hidden from
    France, one revealed to everyone, and a correction."""
    generate(ledger, "groups", 400, seed=3, turn_size=60)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                  visibility={"scope": "countries", "countries": ["ENG"]})
    shown = ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM,
                          visibility={"scope": "gm"}).events[-1]["position"]
    ledger.submit(cid, RevealEvent, position=shown, reason="the turn is over", actor=GM)
    ledger.submit(cid, RecordCorrection, corrects=shown, reason="the wrong province", actor=GM,
                  replacement={"province": "Normandie"})
    ledger.submit(cid, ChangeControl, province="Caux", controller="FRA", actor=GM,
                  visibility={"scope": "countries", "countries": ["FRA"]}, context={"where": "Manche"})
    return ledger.campaign(cid)


def test_the_turns_from_the_stored_groups_equal_the_turns_of_the_events_each_caller_may_see(ledger):
    state = campaign_with_secrets(ledger)
    projector = Projector(ledger)
    projector.catch_up()
    reached, groups = stored_groups(projector, state.id)
    assert reached == state.version
    assert {vis.get("scope") for vis, *_ in groups.values()} >= {"public", "countries", "gm"}
    for actor in EVERYONE:
        want = turns_of_the_events(ledger, state.id, actor, state)
        assert Reader(ledger, projector.db).turns(state.id, actor, state) == want, actor.role  # a fresh process


def test_the_stored_groups_equal_the_timeline_grouped_in_sql_the_former_read(ledger, monkeypatch):
    state = campaign_with_secrets(ledger)
    projector = Projector(ledger)
    projector.catch_up()
    new = {a: Reader(ledger, projector.db).turns(state.id, a, state) for a in EVERYONE}
    monkeypatch.setattr(turn_groups, "stored", lambda db, cur, campaign: (0, {}))  # nothing stored: the old path
    assert {a: Reader(ledger, projector.db).turns(state.id, a, state) for a in EVERYONE} == new


def test_the_view_behind_the_head_adds_the_rest_from_the_timeline_and_the_store(ledger):
    state = campaign_with_secrets(ledger)
    projector = Projector(ledger, page=70)
    for _ in range(3):
        projector.step()  # the turn groups at 210, the other views too
    assert stored_groups(projector, state.id)[0] == 210
    behind = Projector(ledger, ["timeline"], page=70)
    behind.step()  # the timeline a page further than the groups, the rest of the tail in the store only
    for actor in EVERYONE:
        assert Reader(ledger, projector.db).turns(state.id, actor, state) == \
            turns_of_the_events(ledger, state.id, actor, state)


def test_the_view_past_the_head_a_request_read_answers_as_of_that_head(ledger):
    older = campaign_with_secrets(ledger)
    ledger.submit(older.id, ChangeControl, province="Kent", controller="ENG", actor=GM)
    close_open_phases(ledger, older.id)  # the turn closes after its eight phases
    ledger.close_turn(older.id, actor=GM)
    ledger.open_turn(older.id, actor=GM)  # a new turn past the head the request read
    ledger.submit(older.id, ChangeControl, province="Kent", controller="FRA", actor=GM)
    projector = Projector(ledger)
    projector.catch_up()
    assert stored_groups(projector, older.id)[0] > older.version
    for actor in EVERYONE:
        assert Reader(ledger, projector.db).turns(older.id, actor, older) == \
            turns_of_the_events(ledger, older.id, actor, older)


def test_a_batch_failing_before_its_commit_leaves_the_groups_exactly_as_one_catch_up_makes_them(ledger):
    state = campaign_with_secrets(ledger)
    projector = Projector(ledger, page=90)
    projector.step()

    def crash() -> None:
        raise RuntimeError("killed before COMMIT")

    with pytest.raises(RuntimeError):
        projector.step(fail_after_write=crash)
    projector.catch_up()
    once = Projector(ledger)
    once.rebuild()
    assert stored_groups(projector, state.id) == stored_groups(once, state.id)
    assert Reader(ledger, projector.db).turns(state.id, FRANCE, state) == \
        turns_of_the_events(ledger, state.id, FRANCE, state)


def test_an_older_database_gets_the_table_and_the_runner_catches_the_view_up_from_the_log(ledger):
    state = campaign_with_secrets(ledger)
    old = Projector(ledger, OLD_VIEWS)
    old.catch_up()
    db = old.db
    with db.transaction() as cur:  # as before this release: no table, no tracking row
        cur.execute(f"DROP TABLE IF EXISTS {db.t(turn_groups.TABLE)}")
        cur.execute(db.sql("DELETE FROM {proj_tracking} WHERE view = ?"), (turn_groups.NAME,))
    upgraded = Projector(ledger)  # what ``ledger migrate`` and the service's start run: the table made
    assert stored_groups(upgraded, state.id) == (0, {})
    for actor in (GM, FRANCE):  # before the view caught up: the timeline's rows, as before
        assert Reader(ledger, upgraded.db).turns(state.id, actor, state) == \
            turns_of_the_events(ledger, state.id, actor, state)
    upgraded.catch_up()
    assert upgraded.positions()[turn_groups.NAME] == upgraded.positions()["timeline"]
    assert stored_groups(upgraded, state.id)[0] == state.version
    for actor in EVERYONE:
        assert Reader(ledger, upgraded.db).turns(state.id, actor, state) == \
            turns_of_the_events(ledger, state.id, actor, state)


def history_of_the_events(ledger, cid, actor, state, place):
    revealed = frozenset(state.revealed)
    return [r.position for r in reversed(records(ledger, cid, 0, state.version))
            if place in timeline.places(r) and can_see(actor, r, revealed)]


@pytest.mark.parametrize("behind", [False, True])
def test_a_places_history_from_the_stored_hidden_places_equals_the_events_there_each_caller_may_see(ledger, behind):
    state = campaign_with_secrets(ledger)
    projector = Projector(ledger)
    projector.catch_up()
    with projector.db.reading() as cur:
        reached, hidden = turn_groups.hidden_places(projector.db, cur, str(state.id), state.version)
    assert reached == state.version and {"Picardie", "Kent", "Caux", "Manche"} <= {p for p, _, _ in hidden}
    if behind:  # the view reached only part of the log: the rest from the timeline's rows
        with projector.db.transaction() as cur:
            cur.execute(f"DELETE FROM {projector.db.t(turn_groups.TABLE)} WHERE turn >= ?".replace(
                "?", projector.db.ph), (state.turn,))
    for actor in EVERYONE:
        reader = Reader(ledger, projector.db)
        for place in ("Picardie", "Kent", "Caux", "Manche"):
            got = [row["position"] for row in reader.place_history(state.id, actor, state, place, state.version)]
            assert got == history_of_the_events(ledger, state.id, actor, state, place), (actor.role, place)
