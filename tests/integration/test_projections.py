"""The read models on both stores: hand-worked expectations on the sample turn, exactly-once, rebuild, state at N."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from ledger.domain.commands import ChangeControl, MoveStack, PlaceMarker, RemoveMarker
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput
from ledger.sample import FIXED_DICE, GM, close_open_phases, play_sample_turn, reach_phase
from ledger.scenario import import_scenario, load_text
from projections import replay
from projections.runner import Projector

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)


def sample(ledger, slug="sample"):
    cid, _ = import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    play_sample_turn(ledger, FIXED_DICE, slug=slug)
    return cid


def positions_of(ledger, cid, type_name, procedure=None):
    return [e.originator_version for e in ledger.history(cid)
            if type(e).__name__ == type_name and (procedure is None or getattr(e, "procedure", None) == procedure)]


def test_map_after_the_sample_turn(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    m = replay.current(p.db, cid, "map")
    # ENG-1 landed in Picardie and won the battle (0 LD lost); FRA-1 lost 3 of its 8 LD and retreated.
    assert m["stacks"]["ENG-1"] == {"country": "ENG", "location": "Picardie", "units": {"LD": 6},
                                    "leaders": ["Talbot"]}
    assert m["stacks"]["FRA-1"]["location"] == "Normandie" and m["stacks"]["FRA-1"]["units"] == {"LD": 5}
    assert m["stacks"]["ENG-F1"]["location"] == "Celtique"
    picardie = m["provinces"]["Picardie"]
    assert (picardie["owner"], picardie["controller"], picardie["markers"]) == ("FRA", "ENG", ["Pillage-"])
    assert m["provinces"]["Kent"]["controller"] == "ENG" and m["provinces"]["Manche"]["kind"] == "sea"
    assert m["leaders"]["La Trémoille"]["values"]["manoeuvre"] == 4
    assert m["turn"] == 2 and m["unplaced"] == []


def test_victory_points_and_tracks_after_the_sample_turn(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    v = replay.current(p.db, cid, "victory")
    assert v["vp"] == {"ENG": 5, "FRA": 0} and v["vp_by_turn"] == {"ENG": {"1": 5}}
    assert v["stability"] == {"ENG": 2, "FRA": -1}  # 1 + 1 and 0 − 1 after the major battle
    assert v["inflation"] == 1
    assert v["war_turns"] == {"ENG": 1, "FRA": 1}  # one closed turn at war
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    [award] = replay.awards(p.db, cid)
    assert (award["position"], award["country"], award["turn"], award["points"]) == (battle, "ENG", 1, "5")


def test_timeline_summarises_the_interception(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    rows = replay.timeline(p.db, cid, turn=1)
    [m14] = positions_of(ledger, cid, "RulingRecorded", "M14")
    by_position = {r["position"]: r["summary"] for r in rows}
    assert by_position[m14] == ("Round S2, ENG impulse: interception of ENG stack ENG-1 by FRA at Picardie "
                                "failed (6 + 1 + 1 − 2 = 6 < 8)")
    assert [r["type"] for r in rows][0] == "TurnOpened" and rows[-1]["type"] == "TurnClosed"
    assert [r["position"] for r in rows] == sorted(r["position"] for r in rows)
    assert any(s == "Economic phase: FRA: +110 ducats on A12 (turn 1: E1 Exceptional taxes: exceptional taxes)"
               or "+110 ducats on A12" in s for s in by_position.values())


def test_an_interception_of_a_stack_split_off_names_its_country_as_the_replay_tools_do(ledger):
    """The timeline view keeps each stack's country, a split's new stack too (timeline_model.row does)."""
    from ledger.domain.commands import SplitStack

    cid, _ = import_scenario(ledger, load_text("sample"), slug="split-timeline", actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")  # an interception is the military phase's
    ledger.handle(cid, SplitStack(stack="ENG-1", new_stack="ENG-7", units={"LD": 1}), actor=GM)
    kept = {"target_man": "the leader's value as played at the table"}
    ledger.record_ruling(cid, procedure="M14", inputs={"interceptor_man": 4, "target_man": 3,
                         "last_campaign": "active"}, manual_dice=[[2]], overrides=kept,
                         context={"where": "Picardie", "stacks": {"interceptor": "FRA-1", "target": "ENG-7"}},
                         actor=GM)
    p = Projector(ledger)
    p.catch_up()
    stored = replay.timeline(p.db, cid)
    assert "interception of ENG stack ENG-7 by FRA at Picardie" in stored[-1]["summary"]
    computed = replay.timeline_rows(replay.read.records(ledger, cid, 0, ledger.campaign(cid).version))
    assert [r["summary"] for r in stored] == [r["summary"] for r in computed]


def test_a_crash_before_commit_counts_nothing_twice(ledger):
    cid = sample(ledger)
    p = Projector(ledger, page=7)
    p.step()  # positions 1..7 committed

    def crash():
        raise RuntimeError("power cut")

    while p.lag():
        with pytest.raises(RuntimeError):
            p.step(fail_after_write=crash)  # every page fails once after writing...
        assert p.step()  # ...and is applied again
    assert replay.current(p.db, cid, "victory")["vp"]["ENG"] == 5
    assert len(replay.awards(p.db, cid)) == 1
    assert len(replay.timeline(p.db, cid)) == ledger.campaign(cid).version


def test_two_runners_never_apply_a_page_twice(ledger):
    cid = sample(ledger)
    a, b = Projector(ledger, page=5), Projector(ledger, page=5)
    a.step()
    b.step()  # b starts from what a committed
    a.catch_up()
    b.catch_up()
    assert len(replay.awards(a.db, cid)) == 1
    assert len(replay.timeline(a.db, cid)) == ledger.campaign(cid).version


def test_state_at_equals_replay_from_scratch(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    head = ledger.campaign(cid).version
    for n in range(0, head + 1):
        at = replay.state_at(ledger, p.db, cid, n)
        scratch = replay.state_from_scratch(ledger, cid, n)
        assert (at["map"], at["victory"]) == (scratch["map"], scratch["victory"]), n
    assert replay.state_at(ledger, p.db, cid, head)["checkpoint"] == positions_of(ledger, cid, "TurnOpened")[-1]
    with pytest.raises(InvalidInput) as info:
        replay.state_at(ledger, p.db, cid, head + 1)
    assert info.value.field == "at"


def test_diff_lists_what_the_battle_changed(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    changes = {c["path"]: (c["from"], c["to"]) for c in replay.diff(ledger, p.db, cid, battle - 1, battle)["changes"]}
    assert changes == {"map.stacks.FRA-1.units.LD": (8, 5), "victory.vp.ENG": (0, 5),
                       "victory.vp_by_turn.ENG": (None, {"1": 5}), "victory.stability.ENG": (1, 2),
                       "victory.stability.FRA": (0, -1),
                       "victory.stability_log": ([], [
                           {"position": battle, "turn": 1, "country": "ENG", "from": 1, "to": 2},
                           {"position": battle, "turn": 1, "country": "FRA", "from": 0, "to": -1}])}


def test_rebuild_of_one_view_leaves_the_others(ledger):
    cid = sample(ledger)
    p = Projector(ledger)
    p.catch_up()
    before = replay.current(p.db, cid, "map"), replay.awards(p.db, cid)
    result = Projector(ledger, ["victory"]).rebuild()
    assert result["events"] == ledger.campaign(cid).version and result["resumed_from"] == {}
    assert (replay.current(p.db, cid, "map"), replay.awards(p.db, cid)) == before


def test_map_commands_refuse_unknown_names_and_append_nothing(ledger):
    cid = sample(ledger)
    head = ledger.campaign(cid).version
    with pytest.raises(InvalidInput) as info:
        ledger.submit(cid, MoveStack, stack="ENG-9", origin="Kent", destination="Wessex")
    assert info.value.field == "stack"
    with pytest.raises(InvalidInput) as info:
        ledger.submit(cid, PlaceMarker, province="Calais", marker="Revolt")
    assert info.value.field == "province"
    assert ledger.campaign(cid).version == head


def test_scenario_is_recorded_right_after_creation(ledger):
    cid = sample(ledger)
    first, second = ledger.history(cid, limit=2)
    assert type(first).__name__ == "CampaignCreated" and type(second).__name__ == "ScenarioImported"
    assert second.scenario["inflation"] == 1 and len(second.sha256) == 64


# ------------------------------------------------------------------ rebuild equals incremental

COMMANDS = st.lists(st.sampled_from(["move", "control", "marker", "unmarker", "treasury", "m14", "m19", "close"]),
                    min_size=1, max_size=12)


def play(ledger, cid, commands, data):
    places = ["Kent", "Wessex", "Picardie", "Normandie", "Manche"]
    for i, c in enumerate(commands):
        state = ledger.campaign(cid)
        if not state.turn_open:
            ledger.open_turn(cid, actor=GM)
            reach_phase(ledger, cid, "military")  # moves and battles are the military phase's
        if c in ("move", "m14", "m19") and not {"ENG-1", "FRA-1"} <= set(ledger.campaign(cid).stacks):
            continue  # a battle destroyed one of them: it left the map
        if c == "move":
            # Any move, board or not: what is tested is the views, so the game master forces it.
            ledger.submit(cid, MoveStack, stack=data.draw(st.sampled_from(["ENG-1", "FRA-1"])), origin="Kent",
                          destination=data.draw(st.sampled_from(places[1:])), forced_reason="any move", actor=GM)
        elif c == "control":
            ledger.submit(cid, ChangeControl, province=data.draw(st.sampled_from(places[:4])),
                          controller=data.draw(st.sampled_from(["ENG", "FRA"])), actor=GM)
        elif c in ("marker", "unmarker"):
            kind = PlaceMarker if c == "marker" else RemoveMarker
            ledger.submit(cid, kind, province="Picardie", marker=data.draw(st.sampled_from(["Pillage-", "Revolt"])),
                          actor=GM)
        elif c == "treasury":
            ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=data.draw(st.integers(1, 50)),
                                         reason="loot", actor=GM)
        elif c == "m14":
            ledger.record_ruling(cid, procedure="M14", inputs={"interceptor_man": 4, "target_man": 3,
                                 "last_campaign": "active"}, manual_dice=[[data.draw(st.integers(1, 10))]],
                                 context={"where": "Picardie", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}},
                                 actor=GM)
        elif c == "m19":
            # The same battle each time: where the map's stacks have shrunk since, the game master keeps the LD.
            forces = ledger.campaign(cid).military["forces"]
            kept = {f"{side}.ld": "the same battle again" for side, sid, ld in (("attacker", "ENG-1", 6),
                                                                              ("defender", "FRA-1", 8))
                    if forces[sid]["units"]["LD"] != ld}
            ledger.record_ruling(cid, procedure="M19", overrides=kept or None, inputs={
                "attacker": {"technology": "MUS", "ld": 6, "army_class": "iv", "class_size": 2, "leader_man": 3,
                             "country": "ENG"},
                "defender": {"technology": "MED", "ld": 8, "army_class": "iv", "class_size": 2, "leader_man": 4,
                             "country": "FRA"}, "terrain": "plain", "period": 2,
                "attacker_phasing_not_intercepted": False},
                manual_dice=[[10], [1], [10], [1], [10]],
                context={"where": "Picardie", "stacks": {"attacker": "ENG-1", "defender": "FRA-1"}}, actor=GM)
        elif c == "close":
            close_open_phases(ledger, cid)  # the turn closes after its eight phases
            ledger.close_turn(cid, actor=GM)


def snapshot(p, cid):
    return (replay.current(p.db, cid, "map"), replay.current(p.db, cid, "victory"), replay.awards(p.db, cid),
            replay.timeline(p.db, cid))


@hsettings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=COMMANDS, page=st.integers(1, 4), data=st.data())
def test_rebuild_equals_incremental(ledger, commands, page, data):
    slug = f"h-{uuid.uuid4().hex[:12]}"  # the fixture's store is shared by the examples: a fresh campaign each
    cid, _ = import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    incremental = Projector(ledger, page=page)
    incremental.catch_up()
    half = len(commands) // 2
    play(ledger, cid, commands[:half], data)
    incremental.catch_up()
    play(ledger, cid, commands[half:], data)
    incremental.catch_up()
    kept = snapshot(incremental, cid)
    Projector(ledger).rebuild(restart=True)
    assert snapshot(incremental, cid) == kept
    head = ledger.campaign(cid).version
    n = data.draw(st.integers(0, head))
    at = replay.state_at(ledger, incremental.db, cid, n)
    scratch = replay.state_from_scratch(ledger, cid, n)
    assert (at["map"], at["victory"]) == (scratch["map"], scratch["victory"])
    assert campaign_id(slug) == cid


def test_a_view_batch_may_work_longer_than_the_pools_idle_in_transaction_timeout(settings):
    """A batch holds its transaction while the views work in Python (the first sheets of a long campaign take
    seconds on a loaded machine): the server's idle-in-transaction timeout must not end it (the catch-up failed)."""
    import time

    from ledger.application import Ledger

    ledger = Ledger(settings, env={"POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT": "1"})
    try:
        cid = sample(ledger)
        p = Projector(ledger)
        budget = next(v for v in p.views if v.name == "budget")
        slow = budget.flush

        def flush(cur):
            time.sleep(1.6)  # idle in the batch's transaction, past the pool's 1 s
            slow(cur)

        budget.flush = flush
        p.catch_up()
        assert p.lag() == 0 and p.positions()["budget"] == p.db.head()
        assert replay.current(p.db, cid, "map")["turn"] == 2
    finally:
        ledger.close()
