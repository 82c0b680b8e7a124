"""Group commit on PostgreSQL: appends to different campaigns share a transaction, a conflict fails only its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from uuid import UUID, uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent

from ledger.application import Actor, Ledger
from ledger.domain import events as ev
from ledger.store.recorders import Extras, IdempotencyRecord, LedgerPostgresRecorder, PendingAppend, TurnSeed
from tests.conftest import PG_DSN
from tests.integration import rulesets  # noqa: F401  (registers the "check" ruleset)
from tests.opsrun import clean_env, row, run_ops

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM = Actor("gm-anne", "gm")


@pytest.fixture
def pg_settings(settings):
    if settings.store != "postgres":
        pytest.skip("group commit is the PostgreSQL recorder's")
    if not LedgerPostgresRecorder.group_commit:
        pytest.skip("group commit is turned off (LEDGER_GROUP_COMMIT=0)")
    return settings


def _event(oid: UUID, version: int) -> StoredEvent:
    return StoredEvent(originator_id=oid, originator_version=version, topic="tests:Raw", state=b"{}")


def test_a_conflict_in_a_group_fails_that_append_only(pg_settings):
    app = Ledger(pg_settings)
    try:
        a, b = uuid4(), uuid4()
        app.recorder.insert_events([_event(a, 1)])
        group = [PendingAppend([_event(b, 1)], None), PendingAppend([_event(a, 1)], None), PendingAppend([_event(b, 2)], None)]
        app.recorder._commit_group(group)
        assert all(r.done.is_set() for r in group)
        assert isinstance(group[1].error, IntegrityError)
        assert group[0].error is None and group[2].error is None
        assert group[0].ids and group[2].ids and group[0].ids[0] < group[2].ids[0]
        assert [e.originator_version for e in app.recorder.select_events(b)] == [1, 2]
        assert [e.originator_version for e in app.recorder.select_events(a)] == [1]
    finally:
        app.close()


def test_a_group_writes_its_events_and_their_extras_in_one_transaction_and_wakes_the_followers(pg_settings):
    """The group goes as one query (one implicit transaction): every row of every append, or, when one
    append conflicts, the others with all of theirs and nothing of the loser's; the followers are notified."""
    app = Ledger(pg_settings)
    listener = psycopg.connect(PG_DSN, autocommit=True)
    try:
        listener.execute(f'LISTEN "{app.recorder.channel_name}"')
        a, b, c = uuid4(), uuid4(), uuid4()

        def extras(oid: UUID, size: int, key: str) -> Extras:
            return Extras(idempotency=IdempotencyRecord(f"scope-{oid}", key, "h", b"{}"),
                          seeds=(TurnSeed(oid, 1, "public", b"sealed-" + oid.bytes),),
                          checkpoint=(oid, size, f"note {oid} {size}"))

        group = [PendingAppend([_event(a, 1), _event(a, 2)], extras(a, 2, "k-a")),
                 PendingAppend([_event(b, 1)], extras(b, 1, "k-b"))]
        app.recorder._commit_group(group)
        assert [r.error for r in group] == [None, None] and group[0].ids[1] == group[0].ids[0] + 1
        assert list(listener.notifies(timeout=5, stop_after=1))  # NOTIFY, now pg_notify in the preamble
        for oid, size, key in [(a, 2, "k-a"), (b, 1, "k-b")]:
            assert app.recorder.signed_checkpoints(oid, size) == [(size, f"note {oid} {size}")]
            assert app.recorder.get_idempotency(f"scope-{oid}", key).request_hash == "h"
            assert app.recorder.get_dice_seed(oid, 1, "public") == b"sealed-" + oid.bytes

        # The key of b's append used again by c's: c fails alone, with none of its rows; a's third event lands.
        group = [PendingAppend([_event(a, 3)], None),
                 PendingAppend([_event(c, 1)], replace(extras(c, 1, "k-b"), idempotency=IdempotencyRecord(
                     f"scope-{b}", "k-b", "h", b"{}")))]
        app.recorder._commit_group(group)
        assert group[0].error is None and isinstance(group[1].error, IntegrityError)
        assert [e.originator_version for e in app.recorder.select_events(a)] == [1, 2, 3]
        assert list(app.recorder.select_events(c)) == []
        assert app.recorder.signed_checkpoints(c) == [] and app.recorder.get_dice_seed(c, 1, "public") is None
    finally:
        listener.close()
        app.close()


def test_concurrent_writers_on_many_campaigns_share_commits_and_lose_nothing(pg_settings):
    apps = [Ledger(pg_settings), Ledger(pg_settings)]  # two recorders: cross-instance races still conflict
    try:
        cids = []
        for k in range(4):
            r = apps[0].create_campaign(slug=f"g{k}", name="G", ruleset="check", countries=["ENG", "FRA"], actor=GM)
            cids.append(UUID(r.data["id"]))
            apps[0].open_turn(cids[-1], actor=GM)
        barrier = threading.Barrier(16)
        errors: list[BaseException] = []

        def work(app: Ledger, cid: UUID, k: int) -> None:
            barrier.wait()
            try:
                for i in range(8):
                    app.roll(cid, purpose=f"w{k}-{i}", actor=GM)
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(apps[k % 2], cids[k % 4], k)) for k in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for cid in cids:
            history = apps[1].history(cid)
            assert [e.position for e in history] == list(range(1, 2 + 1 + 32))
            assert sorted(e.index for e in history if isinstance(e, ev.DiceRolled)) == list(range(32))
            assert apps[0].verify(cid).intact
        grouped = [app.recorder._group for app in apps]
        assert sum(g.appends for g in grouped) > sum(g.groups for g in grouped)  # some commits carried several
    finally:
        for app in apps:
            app.close()


def test_group_commit_can_be_turned_off(pg_settings):
    app = Ledger(pg_settings)
    try:
        app.recorder.group_commit = False
        oid = uuid4()
        assert len(app.recorder.insert_events([_event(oid, 1), _event(oid, 2)])) == 2
        with pytest.raises(IntegrityError):
            app.recorder.insert_events([_event(oid, 2)])
        assert app.recorder._group.groups == 0
    finally:
        app.close()


@pytest.mark.slow
def test_the_group_commit_benchmark_prints_every_figure_beside_its_target(pg_settings):
    """Its short variant, on the test cluster: the lines the lead reads, never their timings; the counts read
    from its results file (``--results``)."""
    run = run_ops("bench_group_commit.py", "--short", "--writers", "4", env=clean_env(LEDGER_POSTGRES_DSN=PG_DSN))
    lines = run.out.splitlines()
    for start, beside in [("PostgreSQL, fsync on", "load average"), ("(a)  raw", "events/s"),
                          ("(a') raw", "events/s"), ("(b0) ledger", "CPU"), ("(b)  ledger", "appends per commit"),
                          ("(b2) ledger", "processes"), ("(b)/(a)", "target >= 3.0"), ("(b2)/(a)", "target >= 3.0"),
                          ("(c)  hot campaign", "target p99 <= 50 ms"), ("(d)  CPU per append by stage", "ms in all"),
                          ("(e)  PostgreSQL's CPU per event", "")]:
        [line] = [x for x in lines if x.startswith(start)]
        assert beside in line, line
    stages = lines[lines.index(next(x for x in lines if x.startswith("(d)"))) + 1:]
    for stage in ("command model", "use case", "seal", "fold", "checkpoint (Ed25519", "stored event",
                  "commit of its group", "the rest"):
        [line] = [x for x in stages if x.strip().startswith(stage)]
        assert line.split()[-1] == "ms" or "per append" in line, line
    assert (row(run.rows, "run")["writers"], row(run.rows, "run")["rounds"]) == (4, 1), run.rows
    for name, target in [("(b)/(a)", 3.0), ("(b2)/(a)", 3.0)]:
        assert row(run.rows, name)["target"] == target, run.rows
    assert row(run.rows, "(c) hot campaign")["appends"] > 0 and row(run.rows, "(c) hot campaign")["target_p99_ms"] == 50
    assert len(row(run.rows, "(d) CPU per append by stage")["stages_ms"]) == 9, run.rows
    assert row(run.rows, "(b) ledger, group commit")["appends_per_commit"] >= 1, run.rows


class HeldCommits:
    """Holds the recorder's group commits until released: appends queue behind a commit in flight."""

    def __init__(self, app: Ledger):
        self.app, self.gate, self.commit = app, threading.Event(), app.recorder._group.commit
        self.holding = threading.Event()  # a commit is held
        app.recorder._group.commit = self._held

    def _held(self, group):
        self.holding.set()
        self.gate.wait(30)
        self.commit(group)

    def queued(self, n: int) -> None:
        """Wait until ``n`` appends wait behind the held commit."""
        for _ in range(3000):
            if len(self.app.recorder._group.queue) >= n:
                return
            threading.Event().wait(0.01)
        raise AssertionError(f"{n} appends never queued")


def _in_thread(call, results: dict, name: str) -> threading.Thread:
    def body():
        try:
            results[name] = call()
        except BaseException as e:  # reported by the assertions on ``results``
            results[name] = e

    t = threading.Thread(target=body)
    t.start()
    return t


def test_a_campaigns_appends_queued_together_commit_together_in_order(pg_settings):
    app = Ledger(pg_settings)
    try:
        r = app.create_campaign(slug="hot", name="Hot", ruleset="check", countries=["ENG", "FRA"], actor=GM)
        cid = UUID(r.data["id"])
        app.open_turn(cid, actor=GM)
        held, results = HeldCommits(app), {}
        first = _in_thread(lambda: app.roll(cid, purpose="first", actor=GM), results, "first")
        assert held.holding.wait(30)  # the first is being committed, held
        others = [_in_thread(lambda k=k: app.roll(cid, purpose=f"then {k}", actor=GM), results, f"then {k}")
                  for k in range(3)]
        held.queued(3)  # drafted on the head the first will make, while it is not stored yet
        groups = app.recorder._group.groups
        held.gate.set()
        for t in [first, *others]:
            t.join()
        assert app.recorder._group.groups == groups + 2  # the first, then the three in one commit
        [first_at, *then_at] = [results[k].events[-1]["position"] for k in ["first", "then 0", "then 1", "then 2"]]
        assert sorted(then_at) == [first_at + 1, first_at + 2, first_at + 3]
        assert app.campaign(cid).version == first_at + 3 and app.conflicts == 0
        # Followers read in notification order: within the shared commit it is still the campaign's order.
        order = [n.originator_version for n in app.recorder.select_notifications(start=1, limit=100)]
        assert order == sorted(order) and len(order) == first_at + 3
        assert app.verify(cid).intact
        assert [e.index for e in app.history(cid) if isinstance(e, ev.DiceRolled)] == [0, 1, 2, 3]
    finally:
        app.close()


def test_when_a_queued_append_loses_a_race_those_drafted_on_it_are_drafted_again(pg_settings):
    app, rival = Ledger(pg_settings), Ledger(pg_settings)
    try:
        r = app.create_campaign(slug="race", name="Race", ruleset="check", countries=["ENG", "FRA"], actor=GM)
        cid = UUID(r.data["id"])
        app.open_turn(cid, actor=GM)
        rival.campaign(cid)
        held, results = HeldCommits(app), {}
        first = _in_thread(lambda: app.roll(cid, purpose="first", actor=GM), results, "first")
        assert held.holding.wait(30)
        second = _in_thread(lambda: app.roll(cid, purpose="second", actor=GM), results, "second")
        held.queued(1)  # drafted at position 5 on the first's head (4), neither stored
        rival.roll(cid, purpose="rival", actor=GM)  # takes position 4 from another process
        held.gate.set()
        first.join(), second.join()
        assert app.conflicts >= 2  # the first lost position 4; the second, built on it, was never sent
        history = rival.history(cid)
        rolls = [e for e in history if isinstance(e, ev.DiceRolled)]
        assert rolls[0].purpose == "rival"  # then the two, drafted again, in whichever order they came back
        assert {results[e.purpose].events[-1]["position"]: e.purpose for e in rolls[1:]} == \
            {e.position: e.purpose for e in rolls[1:]}
        assert [e.position for e in history] == list(range(1, len(history) + 1))
        assert [e.purpose for e in history if isinstance(e, ev.DiceRolled)][0] == "rival"
        assert sorted(e.index for e in history if isinstance(e, ev.DiceRolled)) == [0, 1, 2]
        assert rival.verify(cid).intact
    finally:
        app.close()
        rival.close()


def test_a_correction_drafted_on_a_queued_ruling_reads_it_once_stored(pg_settings):
    """A command drafted on the head a queued append will make reads the store as of that head."""
    app = Ledger(pg_settings)
    try:
        r = app.create_campaign(slug="fix", name="Fix", ruleset="check", countries=["ENG", "FRA"], actor=GM)
        cid = UUID(r.data["id"])
        app.open_turn(cid, actor=GM)
        held, results = HeldCommits(app), {}
        ruling = _in_thread(lambda: app.record_ruling(cid, procedure="T1", inputs={"bonus": 1, "target": 6},
                                                      actor=GM), results, "ruling")
        assert held.holding.wait(30)
        _, queued = app._writers[cid].tip()
        position = queued.state.version  # the ruling's, not stored yet
        fix = _in_thread(lambda: app.record_correction(cid, corrects=position, reason="the wrong target was read",
                                                       actor=GM), results, "fix")
        threading.Event().wait(0.3)  # the correction waits for the ruling's commit, not failing on it
        assert "fix" not in results
        held.gate.set()
        ruling.join(), fix.join()
        assert not isinstance(results["fix"], BaseException), results["fix"]
        [correction] = [e for e in app.history(cid) if isinstance(e, ev.CorrectionRecorded)]
        assert correction.corrects == position == results["ruling"].events[-1]["position"]
        assert correction.position == position + 1
        assert app.verify(cid).intact
    finally:
        app.close()



def test_a_group_the_store_dropped_is_drafted_again_and_recorded_once(pg_settings):
    app = Ledger(pg_settings)
    try:
        r = app.create_campaign(slug="drop", name="Drop", ruleset="check", countries=["ENG", "FRA"], actor=GM)
        cid = UUID(r.data["id"])
        app.open_turn(cid, actor=GM)
        commit, dropped = app.recorder._group.commit, []

        def lost_once(group):
            if dropped:
                return commit(group)
            dropped.append(len(group))
            for request in group:  # as _commit_group answers a group whose connection was lost
                request.error = OperationalError("server closed the connection unexpectedly")
                request.settled.set()
                request.done.set()

        app.recorder._group.commit = lost_once
        result = app.roll(cid, purpose="after the drop", actor=GM)
        assert dropped == [1] and app.conflicts == 1
        [roll] = [e for e in app.history(cid) if isinstance(e, ev.DiceRolled)]
        assert roll.position == result.events[-1]["position"] and app.verify(cid).intact
    finally:
        app.close()


def test_two_servers_of_writers_on_one_campaign_lose_nothing_and_keep_the_chain(pg_settings):
    """Each server drafts on its queued head while the other appends too: every loss is drafted again."""
    apps = [Ledger(pg_settings), Ledger(pg_settings)]
    try:
        r = apps[0].create_campaign(slug="two", name="Two", ruleset="check", countries=["ENG", "FRA"], actor=GM)
        cid = UUID(r.data["id"])
        apps[0].open_turn(cid, actor=GM)
        barrier, errors, answers = threading.Barrier(8), [], []

        def work(app: Ledger, k: int) -> None:
            barrier.wait()
            try:
                for i in range(10):
                    answers.append(app.roll(cid, purpose=f"w{k}-{i}", actor=GM).events[-1]["position"])
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(apps[k % 2], k)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        history = apps[1].history(cid)
        rolls = [e for e in history if isinstance(e, ev.DiceRolled)]
        assert [e.position for e in history] == list(range(1, len(history) + 1))
        assert sorted(answers) == [e.position for e in rolls] and len(rolls) == 80
        assert sorted(e.index for e in rolls) == list(range(80))
        assert apps[0].verify(cid).intact
    finally:
        for app in apps:
            app.close()


def _commit_ms(dsn: str, n: int) -> float:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE flushed (x int)")
        start = time.perf_counter()
        for i in range(n):
            conn.execute("INSERT INTO flushed VALUES (%s)", (i,))
        return (time.perf_counter() - start) * 1000 / n


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None or not Path("/usr/lib/postgresql/15/bin/initdb").exists(),
                    reason="needs a C compiler and PostgreSQL 15's binaries")
def test_a_simulated_slower_disk_makes_every_commit_wait_its_flush_delay():
    """`PG_FLUSH_DELAY_US` (ops/pg.sh, ops/slow_flush.c): each commit's WAL flush waits the delay, so a commit
    takes at least that long; a sleep can only lengthen it, so the lower bound holds on any machine."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("PGPORT_TMP", "PG_TMP")}
    env["PG_FLUSH_DELAY_US"] = "20000"
    out = subprocess.run([str(root / "ops/pg.sh"), "start"], env=env, capture_output=True, text=True, check=True,
                         timeout=120).stdout
    made = dict(line.removeprefix("export ").split("=", 1) for line in out.splitlines())
    try:
        assert _commit_ms(made["LEDGER_POSTGRES_OWNER_DSN"].strip("'"), 10) >= 20.0
    finally:
        subprocess.run([str(root / "ops/pg.sh"), "stop", made["PG_TMP"]], check=False, timeout=120)
