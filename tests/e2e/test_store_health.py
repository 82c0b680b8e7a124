"""A write the store refuses (a full disk, a read-only store) is logged with the store's words and makes
``/ready`` say degraded until a write succeeds again (issue 34: a full disk answered 503 with nothing logged
while /ready said "ready")."""

from __future__ import annotations

import sqlite3

from eventsourcing.persistence import OperationalError
from fastapi.testclient import TestClient

from api.main import create_app

ADMIN = "admin-secret-for-store-health"
AUTH = {"Authorization": f"Bearer {ADMIN}"}
NEW = {"slug": "full-disk", "name": "Full disk", "countries": ["ENG", "FRA"]}


def test_a_store_refusing_writes_is_logged_and_reported_degraded_until_a_write_succeeds(settings, ledger,
                                                                                        monkeypatch, capsys, caplog):
    # Where this store's appends reach the database: a direct insert, or PostgreSQL's group commit queue.
    entry = "enqueue" if getattr(ledger.recorder, "group_commit", False) else "insert_events"
    real = getattr(ledger.recorder, entry)

    def full(*args, **kwargs):
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as cause:
            raise OperationalError(str(cause)) from cause

    with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger), headers=AUTH) as http:
        assert http.get("/ready").json()["status"] == "ready"
        monkeypatch.setattr(ledger.recorder, entry, full)
        capsys.readouterr()
        refused = http.post("/campaigns", json=NEW)
        assert refused.status_code == 503 and refused.headers["retry-after"]
        assert refused.json()["error"]["type"] == "StoreUnavailable"
        # The service's JSON log on stderr, or pytest's own capture when the app's handler is not the one installed.
        logged = [line for line in capsys.readouterr().err.splitlines() if '"logger":"ledger.store"' in line]
        logged += [f'"level":"{r.levelname.lower()}" {r.getMessage()}' for r in caplog.records if r.name == "ledger.store"]
        assert logged and "database or disk is full" in logged[0] and '"level":"error"' in logged[0], logged
        assert ledger.campaigns() == []  # nothing was appended
        ready = http.get("/ready").json()
        assert ready["status"] == "degraded" and ready["store_failing"] == "OperationalError"

        monkeypatch.setattr(ledger.recorder, entry, real)  # space freed
        assert http.post("/campaigns", json=NEW).status_code == 201
        ready = http.get("/ready").json()
        assert ready["status"] == "ready" and ready["store_failing"] is None


def test_views_behind_for_minutes_without_catching_up_are_reported_and_a_slow_follower_is_not():
    from api.observability import LagWatch

    stuck = LagWatch()
    assert stuck.seen(5, 120, now=0) is None
    assert stuck.seen(40, 120, now=60) is None  # growing, but not for long yet
    assert stuck.seen(400, 120, now=130) == 130.0  # behind for 130 s, never came down
    assert stuck.seen(0, 120, now=131) is None  # caught up
    busy = LagWatch()
    for t in range(0, 600, 10):  # always behind, but catching up on part of it every 50 s
        lag = 100 + t % 50
        assert busy.seen(lag, 120, now=t) is None, t
