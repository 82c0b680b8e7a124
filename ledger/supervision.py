"""Processes of ``ledger serve --workers N``: die with the master, and tell the others you are alive.

- ``die_with_parent()``: a worker or the follower exits when the process that started it dies, even by
  kill -9 (which runs no clean-up in the master): ``PR_SET_PDEATHSIG`` on Linux sends SIGTERM at once, and a
  thread polling the parent pid covers other systems and the race where the master died before prctl ran.
  The master's pid comes in ``LEDGER_SUPERVISOR_PID`` (set by ``serve`` before it starts anything).
- ``Heartbeat``: the follower writes its pid and time into ``ledger_heartbeats`` every few seconds, in the
  ledger's own store (so a follower on another host counts too); ``/ready`` reads it. A follower killed
  with -9 stops beating, which is how its death is noticed without being its parent.
- ``SteadyGC``: a worker's full garbage collections on a clock, not on allocation counts.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
from pathlib import Path
import signal
import socket
import sys
import threading
import time
from typing import Any

from ledger.store.roles import have_tables

LOG = logging.getLogger("ledger.supervision")
SUPERVISOR_ENV = "LEDGER_SUPERVISOR_PID"
PR_SET_PDEATHSIG = 1


def _pdeathsig(sig: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie does not (a master killed by -9 stays one until its own parent reaps it, and
    ``os.kill(pid, 0)`` succeeds on it: a worker started just before then took it for alive and never exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: the signal probe, zombies included
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state != "Z"


def die_with_parent(parent: int | None = None, poll: float = 0.5, grace: float = 10.0) -> bool:
    """Exit when ``parent`` (default: ``$LEDGER_SUPERVISOR_PID``) dies. False when there is none to watch."""
    if parent is None:
        raw = os.environ.get(SUPERVISOR_ENV, "")
        parent = int(raw) if raw.isdigit() else None
    if parent is None or parent == os.getpid():
        return False
    if os.getppid() != parent and _alive(parent):
        return False  # an inherited variable, not our parent: nothing to watch
    # Else our parent, or the master died before we got here (a worker uvicorn started just before the master's
    # kill -9): the watch below sees we were orphaned and exits at once.
    # PDEATHSIG fires when the *thread* that forked us ends; the master starts us from its main thread (uvicorn's
    # supervisor loop, serve's follower supervisor lives as long as serve), and the poll below is the backstop.
    _pdeathsig(signal.SIGTERM)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        LOG.warning("supervisor %s is gone: exiting", parent)
        os.kill(os.getpid(), signal.SIGTERM)  # a graceful stop first (uvicorn drains its requests)
        time.sleep(grace)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
    return True


class Heartbeat:
    """One row per beating process in ``ledger_heartbeats`` (name, pid, host, beat_at in epoch seconds)."""

    def __init__(self, ledger: Any, name: str = "follower"):
        from eventsourcing.postgres import PostgresDatastore

        self.datastore = ledger.recorder.datastore
        self.name = name
        self.postgres = isinstance(self.datastore, PostgresDatastore)
        self.table = f'"{self.datastore.schema}".ledger_heartbeats' if self.postgres else "ledger_heartbeats"
        self.ph = "%s" if self.postgres else "?"
        self._created = False

    def _create(self, cur: Any) -> None:
        if not self._created:
            if self.postgres:
                if have_tables(cur, self.datastore.schema, ("ledger_heartbeats",)):
                    self._created = True
                    return
                cur.execute("SELECT pg_advisory_xact_lock(724312)")  # concurrent CREATEs, as for the migrations
            cur.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (name text PRIMARY KEY, pid integer NOT NULL, "
                        "host text NOT NULL, beat_at double precision NOT NULL)")
            self._created = True

    def create_table(self) -> None:
        """The heartbeats' table (``ledger migrate`` creates it as the owner; a beat otherwise does)."""
        with self.datastore.transaction(commit=True) as cur:
            self._create(cur)

    def beat(self) -> None:
        p = self.ph
        with self.datastore.transaction(commit=True) as cur:
            self._create(cur)
            cur.execute(f"INSERT INTO {self.table} (name, pid, host, beat_at) VALUES ({p}, {p}, {p}, {p}) "
                        "ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, host = excluded.host, "
                        "beat_at = excluded.beat_at", (self.name, os.getpid(), socket.gethostname(), time.time()))

    def read(self) -> dict[str, Any] | None:
        """The last beat (pid, host, age in seconds), or None if none was ever written."""
        try:
            with self.datastore.transaction(commit=False) as cur:
                cur.execute(f"SELECT pid, host, beat_at FROM {self.table} WHERE name = {self.ph}", (self.name,))
                row = cur.fetchone()
        except Exception as exc:  # no table yet: nothing ever beat
            if "ledger_heartbeats" in str(exc) or "no such table" in str(exc):
                return None
            raise
        if row is None:
            return None
        return {"pid": int(row["pid"]), "host": row["host"], "age_seconds": round(time.time() - row["beat_at"], 1)}

    def run(self, stop: threading.Event, every: float = 2.0) -> threading.Thread:
        def loop() -> None:
            while not stop.is_set():
                try:
                    self.beat()
                except Exception as exc:  # a store hiccup: the next beat retries; a long gap shows in /ready
                    LOG.warning("heartbeat failed: %s", exc)
                stop.wait(every)

        thread = threading.Thread(target=loop, name=f"heartbeat-{self.name}", daemon=True)
        thread.start()
        return thread


class SteadyGC:
    """Full collections of a serving process every ``seconds``, instead of Python's rule (one whenever the
    objects that outlived two younger collections grew by a quarter). A worker's read caches hold millions of
    long-lived objects and keep replacing them, so under that rule every few dozen requests one of them paused
    for a whole-heap walk (110-290 ms at 300,000 events, most of the turn page's p95). Young collections run
    by count; a cycle among old objects waits at most ``seconds`` to be freed. ``young``: a young collection
    every that many new container objects instead of Python's 700. A request allocates thousands of them (decoded
    events, documents) that live until it ends, so at 700 each request ran about one young collection, and every
    tenth a middle one, each walking the objects of the requests in flight: 8 % of the server's CPU in the load's
    mixed run (``ops/load.py --cache-stats``, 200 campaigns), 3 % at 10,000, whose young collection takes a few
    ms. Process-wide: the first ``start`` of a process applies it, the last ``stop`` restores Python's
    thresholds."""

    _lock = threading.Lock()
    _users = 0
    _saved: tuple[int, int, int] | None = None
    _stop: threading.Event | None = None

    def __init__(self, seconds: float, young: int = 0):
        self.seconds, self.young, self.started, self.froze = seconds, young, False, False

    def start(self) -> SteadyGC:
        if (self.seconds <= 0 and self.young <= 0) or self.started:
            return self
        cls = type(self)
        with cls._lock:
            cls._users += 1
            self.started = True
            if cls._users == 1:
                cls._saved = saved = gc.get_threshold()
                # With a clock, the oldest generation is collected by it, never by count.
                gc.set_threshold(self.young if self.young > 0 else saved[0], saved[1],
                                 2**31 - 1 if self.seconds > 0 else saved[2])
                cls._stop = threading.Event()
                if self.seconds > 0:
                    threading.Thread(target=cls._collect, args=(cls._stop, self.seconds), name="ledger-full-gc",
                                     daemon=True).start()
        return self

    def settle(self) -> SteadyGC:
        """Once a process's start-up is done: collect, then freeze what survived (``gc.freeze``), so that no
        later collection walks the process's modules, routes, templates and rulesets again. On this 2-core
        machine a full collection of a warmed serving process walked ~126,000 such objects in 50-100 ms (a
        ``state?at=N`` of 12 ms took 60-80 when one fell in it); frozen, the clock's collections walk only what
        the requests and caches made since. Only by the process's first user, and only when nothing froze the
        heap before (a host that manages the frozen generation itself, as the test harness does, keeps it)."""
        cls = type(self)
        with cls._lock:
            if not self.started or cls._users != 1 or gc.get_freeze_count():
                return self
            gc.collect()
            gc.freeze()
            self.froze = True
        return self

    def stop(self) -> None:
        if not self.started:
            return
        cls = type(self)
        with cls._lock:
            if self.froze:  # what the start-up left is the collector's again (an app stopped, the process lives on)
                gc.unfreeze()
                self.froze = False
            cls._users -= 1
            self.started = False
            if cls._users == 0 and cls._saved is not None and cls._stop is not None:
                cls._stop.set()
                gc.set_threshold(*cls._saved)
                cls._saved = cls._stop = None

    @staticmethod
    def _collect(stop: threading.Event, seconds: float) -> None:
        while not stop.wait(seconds):
            gc.collect()
