"""Group commit on PostgreSQL: appends to different campaigns share a transaction, a conflict fails only its own."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from ledger.application import Actor, Ledger
from ledger.domain import events as ev
from ledger.store.recorders import _Append
from tests.conftest import PG_DSN
from tests.integration import rulesets  # noqa: F401  (registers the "check" ruleset)

GM = Actor("gm-anne", "gm")


@pytest.fixture
def pg_settings(settings):
    if settings.store != "postgres":
        pytest.skip("group commit is the PostgreSQL recorder's")
    return settings


def _event(oid: UUID, version: int) -> StoredEvent:
    return StoredEvent(originator_id=oid, originator_version=version, topic="tests:Raw", state=b"{}")


def test_a_conflict_in_a_group_fails_that_append_only(pg_settings):
    app = Ledger(pg_settings)
    try:
        a, b = uuid4(), uuid4()
        app.recorder.insert_events([_event(a, 1)])
        group = [_Append([_event(b, 1)], None), _Append([_event(a, 1)], None), _Append([_event(b, 2)], None)]
        app.recorder._commit_group(group)
        assert all(r.done.is_set() for r in group)
        assert isinstance(group[1].error, IntegrityError)
        assert group[0].error is None and group[2].error is None
        assert group[0].ids and group[2].ids and group[0].ids[0] < group[2].ids[0]
        assert [e.originator_version for e in app.recorder.select_events(b)] == [1, 2]
        assert [e.originator_version for e in app.recorder.select_events(a)] == [1]
    finally:
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
    """Its short variant, on the test cluster: the lines the lead reads, never their timings."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env["LEDGER_POSTGRES_DSN"] = PG_DSN
    done = subprocess.run([sys.executable, str(root / "ops/bench_group_commit.py"), "--short", "--writers", "4"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for start, beside in [("PostgreSQL, fsync on", "load average"), ("(a)  raw", "events/s"),
                          ("(a') raw", "events/s"), ("(b0) ledger", "CPU"), ("(b)  ledger", "appends per commit"),
                          ("(b)/(a)", "target >= 3.0"), ("(c)  hot campaign", "target p99 <= 50 ms")]:
        [line] = [x for x in lines if x.startswith(start)]
        assert beside in line, line
