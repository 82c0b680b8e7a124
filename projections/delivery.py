"""The delivery worker: sends the outbox's pending messages (projections/outbox.py), with retries and back-off.

A thread of the service (``api/main.py``, beside the projection runner) or ``ledger notify deliver --follow``.
Each round it takes the messages due and leases them in one statement (``outbox.claim_due``: of several workers,
one sends each), sends them signed (ledger/notify) from a few threads, and records the attempts in the store in
one transaction (``outbox.settle_many``; one write per message cost SQLite more than the appends it follows):
delivered, or the error in words and when to try again: ``BACKOFF`` seconds doubled at each failure, at most
``BACKOFF_CAP``, given up after ``MAX_ATTEMPTS`` or at once when the receiver says the webhook is gone (a 404).

Guarantees. A message is queued once per event and endpoint (the outbox's key) and marked delivered in the store:
it is never sent again after that mark. A crash after the outbox row is written and before it is sent loses
nothing: the row is pending, and the next worker sends it once. A crash after the receiver took the message and
before the mark is committed (a window of one UPDATE) sends it again once the lease (``LEASE`` seconds) runs out:
at least once there, which is why each message carries its event's campaign and position (a receiver that must
never see one twice keeps the last position it saw per campaign).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

from ledger.notify import send as sender
from ledger.notify.signing import PURPOSE, secret_of
from ledger.text import for_terminal
from projections import outbox
from projections.store import ViewDB

LOG = logging.getLogger("ledger.notify")
BACKOFF = 2.0
BACKOFF_CAP = 900.0
MAX_ATTEMPTS = 10
LEASE = 60.0


def backoff(attempts: int, base: float = BACKOFF, cap: float = BACKOFF_CAP) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt: 2, 4, 8, ... at most ``cap``."""
    return min(cap, base * 2 ** max(0, attempts - 1))


class Deliveries:
    """One round of sending at a time (``run_once``); ``clock`` and ``send`` are injected by tests."""

    def __init__(self, ledger: Any, *, clock: Callable[[], float] = time.time,
                 send: Callable[..., None] = sender.deliver, senders: int = 8, batch: int = 100):
        self.db = ViewDB(ledger.recorder)
        outbox.create_tables(self.db)
        settings = ledger.settings
        self.key = ledger.signer.derived_key(PURPOSE)
        self.clock, self.send, self.batch = clock, send, batch
        self.timeout, self.smtp_url = settings.notify_timeout, settings.smtp_url
        self.max_age = settings.notify_max_age_seconds
        self.pool = ThreadPoolExecutor(senders, thread_name_prefix="notify-send") if senders > 1 else None

    def run_once(self) -> int:
        """Send what is due now; returns how many messages were settled (delivered, failed, expired). The round
        takes its messages in one statement and records their outcomes in one transaction."""
        rows = outbox.claim_due(self.db, self.clock(), LEASE, self.batch)
        if self.pool is None or len(rows) < 2:
            outcomes = [self._one(row) for row in rows]
        else:
            outcomes = list(self.pool.map(self._one, rows))
        if outcomes:
            outbox.settle_many(self.db, outcomes)
        return len(rows)

    def _one(self, row: dict[str, Any]) -> outbox.Outcome:
        now = self.clock()
        if row["event_time"] and now - row["event_time"] > self.max_age:  # 0: an event without a time
            return row, now, None, None, outbox.EXPIRED
        message = orjson.loads(row["message"])
        try:
            self.send(row["kind"], row["target"], message, secret_of(self.key, row["campaign"], row["endpoint"]), now,
                      timeout=self.timeout, smtp_url=self.smtp_url)
        except sender.DeliveryError as e:
            return self._failed(row, str(e), e.permanent)
        except Exception as e:  # noqa: BLE001 - a sender's bug is the message's failure, shown to its owner
            return self._failed(row, f"{type(e).__name__}: {e}", False)
        return row, self.clock(), None, None, None

    def _failed(self, row: dict[str, Any], error: str, permanent: bool) -> outbox.Outcome:
        now, attempts = self.clock(), row["attempts"] + 1
        give_up = permanent or attempts >= MAX_ATTEMPTS
        LOG.warning("notification of %s #%s to endpoint %s failed (attempt %s%s): %s", row["campaign"],
                    row["position"], row["endpoint"], attempts, ", given up" if give_up else "", error)
        return row, now, for_terminal(error), None if give_up else now + backoff(attempts), None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)


class DeliveryWorker:
    """``Deliveries`` in a background thread, a round every ``poll`` seconds (sooner after a full batch)."""

    def __init__(self, ledger: Any, poll: float = 0.25, **kw: Any):
        self.deliveries = Deliveries(ledger, **kw)
        self.poll = poll
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> DeliveryWorker:
        self._thread = threading.Thread(target=self._run, name="notify-delivery", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.deliveries.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                n = self.deliveries.run_once()
            except Exception:  # noqa: BLE001 - a lost connection: logged, tried again next round
                LOG.exception("notification delivery round failed")
                n = 0
            if n < self.deliveries.batch:
                self._stop.wait(self.poll)
