"""Each drill fails when the property it claims is broken on purpose (issue 34, item 4): a drill that cannot fail
proves nothing. A sitecustomize put first on PYTHONPATH is imported by every Python process of the drill (the
service, its workers and follower, the `ledger` commands) and breaks one thing; the drill must then conclude
FAILED, naming it in its results."""

from __future__ import annotations

import pytest

from tests.opsrun import clean_env, row, run_ops

#: The master's workers and follower no longer watch it: a kill -9 of the master leaves them running.
NO_SUPERVISION = '''
import ledger.supervision

ledger.supervision.die_with_parent = lambda *args, **kwargs: False
'''

#: `ledger restore` loses the sealed dice seeds of the open turn (what the issue saw): the restored store cannot
#: roll or close its turn.
SEEDS_LOST = '''
import atexit
import os
import sqlite3
import sys
from pathlib import Path


def _lose_seeds():
    db = Path(os.environ["LEDGER_DATA_DIR"]) / "ledger.sqlite3"
    conn = sqlite3.connect(db)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                                "AND tbl_name IN ('ledger_dice_seeds', 'ledger_turn_seeds')").fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("DELETE FROM ledger_dice_seeds")
    conn.execute("DELETE FROM ledger_turn_seeds")
    conn.commit()
    conn.close()


if sys.argv[1:2] == ["restore"]:
    atexit.register(_lose_seeds)
'''


#: The chain walk sees nothing wrong (what `ledger verify` and a player's HTTP check both call): a rewritten
#: payload is never located.
BLIND_VERIFY = '''
import dataclasses

import ledger.application

_verify = ledger.application.Ledger.verify


def verify(self, *args, **kwargs):
    report = _verify(self, *args, **kwargs)
    return dataclasses.replace(report, intact=True, broken_at=None, reason=None)


ledger.application.Ledger.verify = verify
'''


def broken_run(tmp_path, drill: str, site: str, *args: str):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "sitecustomize.py").write_text(site)
    env = clean_env(PYTHONPATH=str(tmp_path / "broken"))
    return run_ops(f"drills/{drill}.py", "--short", "--store", "sqlite", *args, env=env, timeout=280, check=False)


@pytest.mark.slow
@pytest.mark.e2e
def test_kill9_fails_when_the_masters_workers_outlive_it(tmp_path):
    run = broken_run(tmp_path, "kill9", NO_SUPERVISION, "--rounds", "0")
    assert run.returncode == 1 and row(run.rows, "verdict")["verdict"] == "FAILED", str(run)
    assert "outlived the master" in run.out, run.out[-2000:]


@pytest.mark.slow
@pytest.mark.e2e
def test_backup_fails_when_the_restored_store_cannot_roll_or_close_its_turn(tmp_path):
    run = broken_run(tmp_path, "backup", SEEDS_LOST)
    assert run.returncode == 1 and row(run.rows, "verdict")["verdict"] == "FAILED", str(run)
    assert row(run.rows, "restored: roll / close turn / verify")["value"] != "exit 0 / 0 / 0", str(run)


@pytest.mark.slow
@pytest.mark.e2e
def test_tamper_fails_when_the_chain_walk_sees_nothing(tmp_path):
    run = broken_run(tmp_path, "tamper", BLIND_VERIFY, "--count", "3")
    assert run.returncode == 1 and row(run.rows, "verdict")["verdict"] == "FAILED", str(run)
    assert "MISSED" in run.out and "payload_changed" in run.out, run.out[-2000:]
