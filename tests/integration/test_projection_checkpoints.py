"""Checkpoints within a long turn (projections.views.CHECKPOINT_EVERY), both stores.

State as of N starts from the latest checkpoint at or before N; besides each turn's opening, the map and
victory views checkpoint every CHECKPOINT_EVERY events, so the fold after a checkpoint stays short however long
a turn runs. Here the interval is made small so that a short campaign has many of them.
"""

from __future__ import annotations

import uuid

import orjson
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
import pytest

from ledger.application import Actor
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from projections import records, replay, victory as victory_model, views
from projections.head import Reader
from projections.read import records as read_records
from projections.runner import Projector
from projections.views import MapView, VictoryView
from tests.integration.test_projections import COMMANDS, play, positions_of

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

EVERY = 3
FRANCE = Actor("fra", "player", "FRA")


def checkpoint_rows(p: Projector, cid) -> list[tuple]:
    with p.db.reading() as cur:
        cur.execute(p.db.sql("SELECT view, turn, position, doc FROM {proj_checkpoints} WHERE campaign = ? "
                             "ORDER BY view, position"), (str(cid),))
        return [(r["view"], r["turn"], int(r["position"]), bytes(r["doc"])) for r in cur.fetchall()]


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=COMMANDS, page=st.integers(1, 5), data=st.data())
def test_state_at_n_folds_at_most_checkpoint_every_events_and_equals_a_fold_from_the_first(
        ledger, monkeypatch, commands, page, data):
    for view in (MapView, VictoryView):
        monkeypatch.setattr(view, "checkpoint_every", EVERY)
    slug = f"cp-{uuid.uuid4().hex[:12]}"
    cid, _ = import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    incremental = Projector(ledger, page=page)
    # Caught up at random points, by fresh projectors too (the last checkpoint read back from the table).
    for i, command in enumerate(commands):
        play(ledger, cid, [command], data)
        if data.draw(st.booleans()):
            (incremental if i % 2 else Projector(ledger, page=page)).catch_up()
    incremental.catch_up()
    kept = checkpoint_rows(incremental, cid)
    head = ledger.campaign(cid).version

    # The same checkpoints, however the events were paged: a rebuild writes them again identically.
    Projector(ledger, page=data.draw(st.integers(1, 50))).rebuild(restart=True)
    assert checkpoint_rows(incremental, cid) == kept

    opened = {pos for view, turn, pos, _ in kept if view == "map" and turn is not None}
    within = [pos for view, turn, pos, _ in kept if view == "map" and turn is None]
    if head >= min(opened, default=head) + EVERY:
        assert within or len(opened) > 1  # a long enough stretch got a checkpoint besides the openings
    for n in range(head + 1):
        at = replay.state_at(ledger, incremental.db, cid, n)
        scratch = replay.state_from_scratch(ledger, cid, n)
        assert (at["map"], at["victory"]) == (scratch["map"], scratch["victory"]), n
        if at["checkpoint"]:
            assert n - at["checkpoint"] < EVERY  # the fold after the checkpoint is bounded


def test_checkpoints_within_a_turn_carry_no_turn_so_a_turn_still_starts_at_its_opening(ledger, monkeypatch):
    """head.Reader.turn_start finds a turn's opening as the latest checkpoint of that turn or an earlier one."""
    for view in (MapView, VictoryView):
        monkeypatch.setattr(view, "checkpoint_every", EVERY)
    cid, _ = import_scenario(ledger, load_text("sample"), slug="cp-turns", actor=GM)
    ledger.open_turn(cid, actor=GM)
    opened_at = ledger.campaign(cid).version
    for amount in range(1, 11):
        ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=amount, reason="loot", actor=GM)
    p = Projector(ledger)
    p.catch_up()
    rows = checkpoint_rows(p, cid)
    assert [(turn, pos) for view, turn, pos, _ in rows if view == "map"] == [
        (1, opened_at), *((None, pos) for pos in range(opened_at + EVERY, opened_at + 11, EVERY))]
    reader = Reader(ledger, p.db)
    assert reader.turn_start(cid, 1) == opened_at - 1


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=COMMANDS, after=COMMANDS, keyframe_every=st.integers(1, 3), strike=st.booleans(), data=st.data())
def test_victory_checkpoints_between_keyframes_hold_only_their_new_log_entries_and_read_back_whole(
        ledger, monkeypatch, before, after, keyframe_every, strike, data):
    """The stability log is written whole once every KEYFRAME_EVERY checkpoints; the checkpoints between hold the
    entries after their keyframe's. Read back (by state as of N and by the service's reader) each is the document
    a fold from the first event gives, through a correction that rewrites the log, and a rebuild writes the same
    rows."""
    for view in (MapView, VictoryView):
        monkeypatch.setattr(view, "checkpoint_every", EVERY)
    monkeypatch.setattr(views, "KEYFRAME_EVERY", keyframe_every)
    cid, _ = import_scenario(ledger, load_text("sample"), slug=f"kf-{uuid.uuid4().hex[:12]}", actor=GM)
    p = Projector(ledger, page=data.draw(st.integers(1, 5)))
    play(ledger, cid, [*before, "m19", "m19"], data)  # two battles: each moves both countries' stability
    p.catch_up()
    if strike:  # strikes the first battle: the log loses its entries, so it no longer begins as it did
        battle = positions_of(ledger, cid, "RulingRecorded", "M19")[0]
        ledger.record_correction(cid, corrects=battle, reason="the battle was fought at sea", actor=GM)
    play(ledger, cid, [*after, "m19"], data)
    Projector(ledger, page=data.draw(st.integers(1, 5))).catch_up()  # a fresh one: the keyframe read back
    rows = [r for r in checkpoint_rows(p, cid) if r[0] == "victory"]
    docs = [orjson.loads(doc) for *_, doc in rows]
    keyframes = [d["position"] for d in docs if records.BASE not in d]
    between = [d for d in docs if records.BASE in d]
    assert keyframes[0] == docs[0]["position"] and all(d[records.BASE] in keyframes for d in between)
    # At most KEYFRAME_EVERY - 1 checkpoints after a keyframe name it; without a correction, the one after the
    # first keyframe always does.
    assert all(sum(d[records.BASE] == k for d in between) < keyframe_every for k in keyframes)
    if keyframe_every > 1 and not strike and len(docs) > 1:
        assert docs[1].get(records.BASE) == keyframes[0]

    p.rebuild(restart=True)
    assert [r for r in checkpoint_rows(p, cid) if r[0] == "victory"] == rows
    reader = Reader(ledger, p.db)
    for n in range(ledger.campaign(cid).version + 1):
        scratch = replay.state_from_scratch(ledger, cid, n)["victory"]
        assert replay.state_at(ledger, p.db, cid, n)["victory"] == scratch, n
        since, docs = reader.stored_checkpoint(cid, n)
        assert docs["victory"] == replay.state_from_scratch(ledger, cid, since["victory"])["victory"], n


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=COMMANDS, after=COMMANDS, data=st.data())
def test_a_turns_step_folds_from_its_checkpoint_without_the_keyframes_log_and_shows_every_other_field_whole(
        ledger, monkeypatch, before, after, data):
    """A step of the turn page (``Reader.step``) starts from its checkpoint without joining the keyframe's log
    entries (nothing it shows reads a log): before and after its event, the map and every victory field but the
    logs are the fold from the first event, and each log it holds is the end of that fold's log."""
    for view in (MapView, VictoryView):
        monkeypatch.setattr(view, "checkpoint_every", EVERY)
    monkeypatch.setattr(views, "KEYFRAME_EVERY", 2)
    cid, _ = import_scenario(ledger, load_text("sample"), slug=f"st-{uuid.uuid4().hex[:12]}", actor=GM)
    # Six battles then six entries in one turn: a keyframe holding battles' entries, then a checkpoint naming it.
    play(ledger, cid, [*before, *["m19"] * 6, *["treasury"] * 6, *after], data)
    p = Projector(ledger)
    p.catch_up()
    reader, state = Reader(ledger, p.db), ledger.campaign(cid)
    shortened = 0
    for r in read_records(ledger, cid):
        if r.turn is None or r.position < 2:
            continue
        for actor in (GM, FRANCE):
            step = reader.step(cid, actor, state, r, reader.turn_records(cid, r.turn, r.position))
            for docs, n in ((step.before, r.position - 1), (step.after, r.position)):
                scratch = replay.state_from_scratch(ledger, cid, n)
                assert docs["map"] == scratch["map"], n
                whole = scratch["victory"]
                logs = victory_model.APPEND_ONLY
                assert {k: v for k, v in docs["victory"].items() if k not in logs} == {
                    k: v for k, v in whole.items() if k not in logs}, n
                for key in logs:
                    held = docs["victory"][key]
                    assert held == whole[key][len(whole[key]) - len(held):], (n, key)
                    shortened += len(held) < len(whole[key])
    assert shortened  # some step started from a checkpoint between keyframes, its keyframe's entries left out
