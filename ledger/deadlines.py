"""The reminders' ticker (issue 38): records the reminders that fell due, in every campaign, once each.

``tick`` looks at each campaign's state (its pace: the deadlines, who is ready, which reminders were recorded;
ledger/domain/pace.py), never at a history, and hands ``SendReminders`` to the ledger for those with one due.
Run by the service in a background thread (``Ticker``, started by api/main.py when ``deadline_tick_seconds``
is above 0) and by ``ledger deadlines tick`` (cron). Several at once (workers, hosts, cron) record each reminder
once: the campaign's writer and its optimistic concurrency run the second on the state the first left, where
the reminder is recorded, and it is refused (``StateConflict``), which the ticker takes as done.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from typing import Any

from ledger.domain import pace
from ledger.domain.actors import SYSTEM
from ledger.domain.errors import LedgerError, StateConflict

LOG = logging.getLogger("ledger.deadlines")


def tick(ledger: Any) -> list[Any]:
    """Record every reminder due now; the appends (one per campaign that had some)."""
    now = datetime.now(UTC)
    done = []
    for state in ledger.campaigns():
        if not state.turn_open or not pace.due_reminders(state.pace, now):
            continue
        try:
            done.append(ledger.handle(state.id, pace.SendReminders(), actor=SYSTEM))
        except StateConflict:  # another ticker recorded them first
            continue
        except LedgerError as e:  # this campaign's store refused (its own routes say why): the others still tick
            LOG.warning("reminders of campaign %s not recorded: %s", state.slug, e.message)
    return done


class Ticker:
    """``tick`` every ``seconds`` in a daemon thread until ``stop``; a failing tick is logged, the next one runs."""

    def __init__(self, ledger: Any, seconds: float):
        self.ledger, self.seconds = ledger, seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Ticker:
        self._thread = threading.Thread(target=self._run, name="ledger-deadlines", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                for appended in tick(self.ledger):
                    LOG.info("reminders recorded: %s", appended.data.get("reminders"))
            except LedgerError as e:
                LOG.warning("the deadlines' tick failed: %s", e.message)
            except Exception:  # noqa: BLE001 - a store down for a while: the next tick tries again
                LOG.exception("the deadlines' tick failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
