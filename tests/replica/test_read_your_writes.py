"""Read-your-writes on a streaming replica: a write answers with its position; a read naming it sees it, even
with the replica's replay paused (it waits, then the primary answers); a read naming nothing may be behind but
never fails; the views are kept by a runner on the primary and read from the replica."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import psycopg
import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from projections.runner import Projector
from tests.conftest import REPLICA_DSN
from tests.e2e.test_web import csrf_of, log_in
from tests.replica.conftest import caught_up, paused

ADMIN = "admin-secret-for-replica-tests"
CID = campaign_id("sample")
GM_AUTH = {"Authorization": f"Bearer {ADMIN}"}
ROLL = {"purpose": "initiative", "sides": 10}


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    Projector(ledger)  # the view tables, made on the primary, on the replica before any test pauses its replay
    caught_up()
    return ledger


def replica_state(replica: psycopg.Connection, schema: str, cid) -> tuple[str, int | None]:
    """The replica's replay pause state and the campaign's head there (None: it holds none of it)."""
    state = replica.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0]
    head = replica.execute(f'SELECT MAX(originator_version) FROM "{schema}".ledger_events WHERE originator_id = %s',
                           (cid,)).fetchone()[0]
    return state, head


def describe(state: str, head: int | None, replica: psycopg.Connection) -> str:
    replayed = replica.execute("SELECT pg_last_wal_replay_lsn()").fetchone()[0]
    return f"replica replay {state} at {replayed} ({time.strftime('%H:%M:%S')}); the campaign's head there: {head}"


def client(settings, ledger, **update) -> TestClient:
    app = create_app(settings.model_copy(update={"admin_token": ADMIN, "projection_runner": "external", **update}),
                     ledger)
    return TestClient(app, headers=GM_AUTH)


def test_a_read_naming_nothing_is_served_by_the_replica(settings, sample):
    with client(settings, sample) as c:
        r = c.get("/campaigns/sample")
        assert r.status_code == 200 and r.headers["Ledger-Read"] == "replica"
        assert r.json()["position"] == sample.campaign(CID).version


def test_with_replay_paused_a_read_naming_its_write_is_served_by_the_primary_and_sees_it(settings, sample,
                                                                                      replay_paused):
    with client(settings, sample, replica_wait_ms=50) as c:
        before = sample.campaign(CID).version
        rolled = c.post("/campaigns/sample/rolls", json=ROLL)
        assert rolled.status_code == 201, rolled.text
        position = rolled.headers["Ledger-Position"]
        assert position == rolled.json()["position"] == f"{CID}:{before + 1}"
        assert "Ledger-Read" not in rolled.headers  # a write is the primary's, and no read
        # Naming nothing: the replica as it stands, behind by the write, but a whole answer.
        stale = c.get("/campaigns/sample")
        assert stale.status_code == 200 and stale.headers["Ledger-Read"] == "replica"
        assert stale.json()["position"] == before
        # Naming the write: the replica does not get there within the wait, so the primary answers.
        fresh = c.get("/campaigns/sample", headers={"Ledger-Position": position})
        assert fresh.headers["Ledger-Read"] == "primary" and fresh.json()["position"] == before + 1
        events = c.get("/campaigns/sample/events", params={"after": before},
                       headers={"Ledger-Position": position}).json()
        assert [e["type"] for e in events] == ["DiceRolled"]
        replay_paused.execute("SELECT pg_wal_replay_resume()")
        caught_up()
        again = c.get("/campaigns/sample", headers={"Ledger-Position": position})
        assert again.headers["Ledger-Read"] == "replica" and again.json()["position"] == before + 1


def test_a_read_naming_its_write_waits_while_the_replica_replays_it(settings, sample, replay_paused):
    with client(settings, sample, replica_wait_ms=5000) as c:
        rolled = c.post("/campaigns/sample/rolls", json=ROLL)
        position = rolled.headers["Ledger-Position"]
        resume = threading.Timer(0.1, lambda: psycopg.connect(REPLICA_DSN, autocommit=True).execute(
            "SELECT pg_wal_replay_resume()").connection.close())
        resume.start()
        try:
            read = c.get("/campaigns/sample/state", headers={"Ledger-Position": position})
        finally:
            resume.join()
        assert read.status_code == 200 and read.headers["Ledger-Read"] == "replica"
        assert read.json()["position"] == int(position.rsplit(":", 1)[1])


def test_a_position_in_another_campaign_does_not_hold_a_read_back(settings, sample, replay_paused):
    with client(settings, sample, replica_wait_ms=5000) as c:
        elsewhere = f"{campaign_id('another')}:99"
        started = time.monotonic()
        r = c.get("/campaigns/sample", headers={"Ledger-Position": elsewhere})
        assert r.status_code == 200 and r.headers["Ledger-Read"] == "replica"
        assert time.monotonic() - started < 5  # it did not sit out the 5 s wait for a write it does not read


def test_a_campaign_the_replica_does_not_hold_yet_is_read_on_the_primary(settings, sample, replay_paused):
    """The read is judged only when the replica, still paused after it, holds nothing of the campaign: CI saw the
    replay running again at the end of this test twice in some hundred runs (nothing in the suite resumes it
    there; the replica's log, printed on a failure, names every pg_wal_replay call). A campaign the replica held
    by then is rightly read there, so another is made with the pause asked for again; three lost pauses fail."""
    lost = []
    with client(settings, sample) as c:
        for attempt in range(3):
            slug = f"fresh-{attempt}"
            made = c.post("/campaigns", json={"slug": slug, "name": "Fresh", "ruleset": "eu",
                                              "countries": ["ENG", "FRA"]})
            assert made.status_code == 201, made.text
            r = c.get(f"/campaigns/{slug}")  # no position named, and still no 404
            assert r.status_code == 200
            state, head = replica_state(replay_paused, settings.postgres_schema, campaign_id(slug))
            if state == "paused" and head is None:
                assert r.headers["Ledger-Read"] == "primary", describe(state, head, replay_paused)
                return
            lost.append(describe(state, head, replay_paused))
            replay_paused.execute("SELECT pg_wal_replay_pause()")
            paused(replay_paused)
    raise AssertionError("the replica's replay did not stay paused: " + "; ".join(lost))


def test_an_unreachable_replica_sends_the_read_to_the_primary(settings, sample, monkeypatch):
    with client(settings, sample) as c:
        def down(cid):
            raise psycopg.OperationalError("connection refused")

        monkeypatch.setattr(c.app.state.replica.recorder, "head_version", down)
        r = c.get("/campaigns/sample/map")
        assert r.status_code == 200 and r.headers["Ledger-Read"] == "primary"


def test_a_revoked_token_is_refused_at_once_though_the_replica_is_behind(settings, sample, replay_paused):
    issued, secret = tokens.issue_token(sample, CID, role="player", country="FRA", actor=GM)
    with client(settings, sample) as c:
        player = {"Authorization": f"Bearer {secret}"}
        assert c.get("/campaigns/sample/map", headers=player).status_code == 200
        assert c.post(f"/campaigns/sample/tokens/{issued.data['token_id']}/revoke", json={"reason": "left the game"}).status_code == 200
        refused = c.get("/campaigns/sample/map", headers=player)
        assert refused.status_code == 401  # tokens are checked on the primary


def test_a_web_form_then_the_page_it_redirects_to_shows_the_write_with_replay_paused(settings, sample,
                                                                                   replay_paused):
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings, sample, replica_wait_ms=50) as c:
        c.headers.pop("Authorization")
        csrf = log_in(c, gm)
        form = {"corrects": "17", "reason": "the loot was 10", "replacement": '{"amount": 10}', "key": "form-1",
                "csrf": csrf}
        done = c.post("/ui/campaigns/sample/corrections", data=form, follow_redirects=False)
        assert done.status_code == 303
        head = sample.campaign(CID).version
        assert done.headers["Ledger-Position"] == f"{CID}:{head}"
        assert f"ledger_position={CID}:{head}" in done.headers["set-cookie"]
        page = c.get(done.headers["location"])  # the browser sends the cookie back
        assert page.status_code == 200 and page.headers["Ledger-Read"] == "primary"
        assert "the loot was 10" in page.text
        csrf_of(page.text)  # a whole page, with its forms


def test_the_projection_runner_writes_the_views_on_the_primary_and_the_replica_reads_them(settings, sample):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env.update(LEDGER_POSTGRES_DSN=settings.postgres_dsn, LEDGER_POSTGRES_SCHEMA=settings.postgres_schema,
               LEDGER_POSTGRES_REPLICA_DSN=REPLICA_DSN, LEDGER_ENV="test", LEDGER_DATA_DIR=str(settings.data_dir))
    run = subprocess.run([sys.executable, "-m", "ledger", "project"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    head = sample.recorder.max_notification_id()
    caught_up()
    with psycopg.connect(REPLICA_DSN, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{settings.postgres_schema}"')
        positions = dict(conn.execute("SELECT view, position FROM proj_tracking").fetchall())
    assert positions and set(positions.values()) == {head}
    with client(settings, sample, projection_runner="thread") as c:  # the in-process runner: the primary's
        runner = c.app.state.projection_runner
        assert runner.projector.ledger is c.app.state.ledger is not c.app.state.replica
