"""End to end over HTTP against a real server process, then the CLI on the same store."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid

import httpx
import psycopg
import pytest

from tests.conftest import PG_DSN

pytestmark = [pytest.mark.e2e, pytest.mark.store_contract]  # the store's contract: both stores (tests/conftest.py)
ADMIN = "e2e-admin-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server_env(store, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env["LEDGER_DATA_DIR"] = str(tmp_path / "data")
    env["LEDGER_ADMIN_TOKEN"] = ADMIN
    schema = None
    if store == "postgres":
        schema = f"e2e_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        env["LEDGER_POSTGRES_DSN"] = PG_DSN
        env["LEDGER_POSTGRES_SCHEMA"] = schema
    yield env
    if schema:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def server(server_env):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ledger", "serve", "--port", str(port)], env=server_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("server did not start: " + proc.stdout.read().decode(errors="replace"))
    yield base
    proc.terminate()
    proc.wait(timeout=10)


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ledger", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_turn_played_over_http_verifies_its_dice_and_chain(server, server_env):
    with httpx.Client(base_url=server, timeout=10) as http:
        anonymous = http.post("/campaigns", json={"slug": "e2e", "name": "E2E", "countries": ["ENG"]})
        assert anonymous.status_code == 401  # an admin token is configured: no open development mode
        http.headers["Authorization"] = f"Bearer {ADMIN}"
        r = http.post("/campaigns", json={"slug": "e2e", "name": "E2E", "ruleset": "eu",
                                          "countries": ["ENG", "FRA"]})
        assert r.status_code == 201, r.text
        issued = http.post("/campaigns/e2e/tokens", json={"role": "gm", "holder": "gina"})
        assert issued.status_code == 201, issued.text
        http.headers["Authorization"] = f"Bearer {issued.json()['token']}"
        assert http.post("/campaigns/e2e/turns").status_code == 201
        rolled = http.post("/campaigns/e2e/rolls", json={"purpose": "initiative", "sides": 10},
                           headers={"Idempotency-Key": "roll-1"})
        replay = http.post("/campaigns/e2e/rolls", json={"purpose": "initiative", "sides": 10},
                           headers={"Idempotency-Key": "roll-1"})
        assert rolled.status_code == replay.status_code == 201
        assert rolled.content == replay.content
        bad = http.post("/campaigns/e2e/treasury", json={"country": "FRA", "line": "A99", "amount": 1,
                                                         "reason": "x"})
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "line"
        from ledger.domain.commands import PHASES

        for phase in PHASES:  # the sequence of play: a turn closes after its eight phases
            assert http.post(f"/campaigns/e2e/phases/{phase}/close").status_code == 201, phase
        assert http.post("/campaigns/e2e/turns/1/close").status_code == 200
        dice = http.get("/campaigns/e2e/turns/1/dice/verify").json()
        assert dice == {"turn": 1, "checked": 1, "manual": 0, "ok": True, "mismatches": []}
        chain = http.get("/campaigns/e2e/verify").json()
        assert chain["intact"] and chain["count"] == 13  # created, token, turn, roll, eight phases, closed
        events = http.get("/campaigns/e2e/events").json()
        assert [e["position"] for e in events] == list(range(1, 14))
        assert [e["actor"]["id"] for e in events] == ["admin", "admin"] + ["gina"] * 11
        assert events[-1]["hash"] == chain["head_hash"]

    verified = cli(server_env, "verify", "e2e")
    assert verified.returncode == 0 and chain["head_hash"] in verified.stdout
    dice_cli = cli(server_env, "dice", "verify", "e2e", "1")
    assert dice_cli.returncode == 0, dice_cli.stdout + dice_cli.stderr


def test_the_sample_campaign_is_served_and_verifies(server, server_env):
    with httpx.Client(base_url=server, timeout=10, headers={"Authorization": f"Bearer {ADMIN}"}) as http:
        sample = http.get("/campaigns/sample").json()
        assert sample["countries"] == ["ENG", "FRA"] and sample["turn"] == 2 and sample["turn_open"]
    assert cli(server_env, "verify", "sample").returncode == 0
    assert cli(server_env, "dice", "verify", "sample", "1").returncode == 0
    still_open = cli(server_env, "dice", "verify", "sample", "2")
    assert still_open.returncode == 2 and "still open" in still_open.stderr
