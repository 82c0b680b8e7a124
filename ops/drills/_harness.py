"""What every drill needs: a store (a throwaway PostgreSQL by default), a `ledger serve` process, a client.

- ``Store``: PostgreSQL from ``ops/pg.sh`` (stopped at the end), or the one in ``LEDGER_DRILL_POSTGRES_DSN`` with
  a fresh schema (dropped at the end: what the pytest of the drills uses, not to start a second cluster), or
  SQLite in a temporary directory (``--store sqlite``).
- ``Service``: ``ledger serve --workers W --no-sample`` in its own session (so a kill -9 of everything is one
  ``killpg``), an admin token, its output in a log file printed when it fails to start.
- ``writes()``: POST with an Idempotency-Key, retried with the same key on 409 ConcurrencyExhausted, 503 and
  connection errors (what a well-behaved client does): a retry never appends twice.
- ``figure()`` prints a figure; ``conclude()`` prints OK or FAILED and, with ``--results FILE``, writes every
  figure and the verdict as JSON rows (ops/results.py): what the tests read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger.checkpoints import generate_key  # noqa: E402
from ops.results import Results, add_option  # noqa: E402

ADMIN = "drill-admin-" + uuid.uuid4().hex
AUTH = {"Authorization": f"Bearer {ADMIN}"}
VIEW_TABLES = {"proj_docs": "view, campaign", "proj_checkpoints": "view, campaign, position",
               "proj_timeline": "campaign, position", "proj_awards": "campaign, position, effect",
               "proj_places": "campaign, place, position", "proj_budget": "campaign, country, turn, seq",
               "proj_budget_sheets": "campaign, country, turn", "proj_budget_public": "campaign, country, turn",
               "proj_turn_groups": "campaign, turn, visibility", "proj_hidden_places": "campaign, position, place"}


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--short", action="store_true", help="a small version, for CI")
    p.add_argument("--store", choices=["postgres", "sqlite"], default="postgres")
    p.add_argument("--workers", type=int, default=2)
    add_option(p)
    return p


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Store:
    def __init__(self, kind: str):
        self.kind = kind
        self.tmp = Path(tempfile.mkdtemp(prefix="ledger-drill-"))
        self.pg_tmp: str | None = None
        self.dsn: str | None = None
        tag = uuid.uuid4().hex[:10]
        self.schema = f"drill_{tag}"
        # As deployed: the tables' owner migrates, the service connects as a role that may only append
        # (ledger/store/roles.py). Roles of the drill's own, since a shared cluster's roles are global.
        self.owner, self.service = f"drill_owner_{tag}", f"drill_service_{tag}"
        self.extra_dbs: list[str] = []

    def __enter__(self) -> Store:
        if self.kind == "postgres":
            self.dsn = os.environ.get("LEDGER_DRILL_POSTGRES_DSN")  # a superuser's: it creates roles
            if not self.dsn:
                out = subprocess.run([str(ROOT / "ops/pg.sh"), "start"], capture_output=True, text=True, check=True)
                exports = dict(line.removeprefix("export ").split("=", 1) for line in out.stdout.splitlines())
                self.pg_tmp, self.dsn = exports["PG_TMP"], exports["PG_SUPERUSER_DSN"].strip("'")
            self.sql(f'CREATE ROLE "{self.owner}" LOGIN NOSUPERUSER')
            self.sql(f'CREATE ROLE "{self.service}" LOGIN NOSUPERUSER')
            self.sql(f'CREATE SCHEMA "{self.schema}" AUTHORIZATION "{self.owner}"')
            self.migrate(self.env())
        return self

    def migrate(self, env: dict[str, str]) -> None:
        done = ledger_cli(env, "migrate")
        if done.returncode != 0:
            raise SystemExit(f"ledger migrate failed: {done.stdout}{done.stderr[-2000:]}")

    def __exit__(self, *exc: Any) -> None:
        if self.kind == "postgres":
            if self.pg_tmp:
                subprocess.run([str(ROOT / "ops/pg.sh"), "stop", self.pg_tmp], check=False)
            else:
                self.sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                for db in self.extra_dbs:
                    self.sql(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
                for role in (self.service, self.owner):
                    self.sql(f'DROP OWNED BY "{role}" CASCADE')
                    self.sql(f'DROP ROLE IF EXISTS "{role}"')
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sql(self, statement: str, dsn: str | None = None) -> list[tuple]:
        import psycopg

        with psycopg.connect(dsn or self.dsn, autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []

    def env(self, data_dir: Path | None = None, dsn: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
        # One signing key for every store of the drill, as a deployment configures it: a restored store is
        # checked with the key that signed its checkpoints.
        key = self.tmp / "signing-key.pem"
        generate_key(key)
        # The tree's root on the path, after what the caller put first (a test's sitecustomize that breaks
        # something on purpose must reach the service's processes too).
        path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)
        env.update(LEDGER_ADMIN_TOKEN=ADMIN, LEDGER_DATA_DIR=str(data_dir or self.tmp / "data"),
                   LEDGER_STORE=self.kind, PYTHONPATH=path, LEDGER_ENV="development",
                   LEDGER_SIGNING_KEY_FILE=str(key))
        if self.kind == "postgres":
            from psycopg.conninfo import make_conninfo

            base = dsn or self.dsn
            env.update(LEDGER_POSTGRES_DSN=make_conninfo(base, user=self.service),
                       LEDGER_POSTGRES_OWNER_DSN=make_conninfo(base, user=self.owner),
                       LEDGER_POSTGRES_SCHEMA=self.schema)
        return env

    def empty_copy(self) -> dict[str, str]:
        """The environment of a second, empty store of the same kind (a restore target)."""
        if self.kind == "sqlite":
            return self.env(data_dir=self.tmp / f"restored-{uuid.uuid4().hex[:6]}")
        from psycopg.conninfo import make_conninfo

        db = f"drill_restore_{uuid.uuid4().hex[:8]}"
        self.sql(f'CREATE DATABASE "{db}" OWNER "{self.owner}"')
        self.extra_dbs.append(db)
        return self.env(dsn=make_conninfo(self.dsn, dbname=db))

    def rows(self, env: dict[str, str], table: str, order: str) -> list[tuple]:
        """Every row of a table of the store ``env`` points at, in primary-key order (bytes as bytes)."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(Path(env["LEDGER_DATA_DIR"]) / "ledger.sqlite3")
            try:
                return [tuple(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
            finally:
                conn.close()
        return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in
                self.sql(f'SELECT * FROM "{self.schema}".{table} ORDER BY {order}', env["LEDGER_POSTGRES_DSN"])]

    def events(self, env: dict[str, str]) -> list[tuple]:
        table = "stored_events" if self.kind == "sqlite" else "ledger_events"
        cols = "originator_id, originator_version, topic, state"
        if self.kind == "sqlite":
            conn = sqlite3.connect(Path(env["LEDGER_DATA_DIR"]) / "ledger.sqlite3")
            try:
                return [tuple(r) for r in conn.execute(f"SELECT {cols} FROM {table} ORDER BY rowid")]
            finally:
                conn.close()
        return [(str(a), b, c, bytes(d)) for a, b, c, d in self.sql(
            f'SELECT {cols} FROM "{self.schema}".{table} ORDER BY notification_id', env["LEDGER_POSTGRES_DSN"])]


def ledger_cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ledger", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


class Service:
    def __init__(self, env: dict[str, str], workers: int = 2, port: int | None = None):
        self.env, self.workers = env, workers
        self.port = port or free_port()  # the same port again: a restart after a kill, clients retry on it
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="ledger-drill-serve-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90) -> Service:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "ledger", "serve", "--no-sample", "--workers",
                                          str(self.workers), "--port", str(self.port), "--log-level", "warning"],
                                         env=self.env, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"ledger serve did not start:\n{self.log.read_text()[-4000:]}")

    def ready(self, patience: float = 60) -> dict:
        """``/ready``'s answer; a worker just killed, or busy with the writers on a loaded machine, may take a
        while to answer: asked again for ``patience`` seconds."""
        deadline = time.monotonic() + patience
        while True:
            try:
                return httpx.get(f"{self.base}/ready", timeout=5).json()
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def wait_follower(self, timeout: float = 60, not_pid: int | None = None) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                r = self.ready()
                f = r.get("follower") or {}
                if f.get("alive") and f.get("pid") != not_pid:
                    return r
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise SystemExit(f"no live follower after {timeout}s")

    def workers_pids(self) -> list[int]:
        follower = (self.ready().get("follower") or {}).get("pid")
        kids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                except OSError:
                    continue
                fields = stat.rsplit(")", 1)[1].split()
                if int(fields[1]) == self.proc.pid and int(entry) != follower and b"multiprocessing" in cmd \
                        and b"resource_tracker" not in cmd:
                    kids.append(int(entry))
        return kids

    def descendants(self) -> list[int]:
        """Every live process of the service's session (the master, its workers, the follower)."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[3]) == self.proc.pid and fields[0] != "Z":  # its session id
                    found.append(int(entry))
        return found

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # whatever is left of the session
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        self.proc = None


def create_campaign(base: str, slug: str) -> str:
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as http:
        r = http.post("/campaigns", json={"slug": slug, "name": slug, "countries": ["ENG", "FRA"]})
        r.raise_for_status()
        http.post(f"/campaigns/{slug}/turns").raise_for_status()
        return r.json()["campaign"]


RETRYABLE = {409, 502, 503}


def post(http: httpx.Client, path: str, body: dict, key: str, deadline: float = 60) -> tuple[httpx.Response, int]:
    """POST with one Idempotency-Key, retried on contention, overload and connection loss; (response, retries)."""
    retries = 0
    end = time.monotonic() + deadline
    while True:
        try:
            r = http.post(path, json=body, headers={"Idempotency-Key": key})
            if r.status_code not in RETRYABLE or (r.status_code == 409 and
                                                  r.json()["error"]["type"] != "ConcurrencyExhausted"):
                return r, retries
        except httpx.TransportError:
            r = None
        if time.monotonic() > end:
            if r is None:
                raise TimeoutError(f"{path} {key}: no answer after {deadline}s")
            return r, retries
        retries += 1
        time.sleep(0.05 * min(retries, 10))


def history(base: str, slug: str) -> list[dict]:
    events, after = [], 0
    with httpx.Client(base_url=base, headers=AUTH, timeout=60) as http:
        while True:
            page = http.get(f"/campaigns/{slug}/events", params={"after": after, "limit": 5000}).json()
            events.extend(page)
            if len(page) < 5000:
                return events
            after = page[-1]["position"]


def verify(base: str, slug: str) -> dict:
    return httpx.get(f"{base}/campaigns/{slug}/verify", headers=AUTH, timeout=120).json()


#: The figures printed so far, by name: ``conclude`` writes them as rows.
FIGURES: dict[str, Any] = {}


def figure(name: str, value: Any) -> None:
    print(f"{name:<34} {value}", flush=True)
    FIGURES[name.strip()] = value


def conclude(args: argparse.Namespace, ok: bool) -> int:
    """Prints the drill's verdict, OK or FAILED; with ``--results FILE``, each figure and then the verdict as rows
    of FILE (``{"name": "verdict", "verdict": "OK", "drill": "writers"}``). Returns the exit code."""
    verdict = "OK" if ok else "FAILED"
    results = Results(args.results)
    for name, value in FIGURES.items():
        results.add(name, value=value)
    results.add("verdict", verdict=verdict, drill=Path(sys.argv[0]).stem, store=args.store)
    print(verdict)
    return 0 if ok else 1
