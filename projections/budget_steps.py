"""The budget's inputs just before any position, for one audience, in a bounded number of additions.

The turn page shows, for a treasury entry, the ERS cells it changed: the budget
of the events before it, and the same with it (``words.budget_changes``).
Gathering every earlier event for each step costs the campaign's whole
history. A treasury entry changes only its own country's sheets (each
country's sheets read that country's entries and the events every country
shares: the campaign, the scenario, the turns, the phases closed), so this
keeps, per country, the list of those events in order, the inputs after every
``EVERY`` of them (snapshots, copied on use), and the memo of that country's
sheets: the inputs before position ``p`` are the nearest snapshot plus fewer
than ``EVERY`` additions, and only the sheets whose inputs changed are
computed. A correction may move an entry to another country's sheet: once one
is among the events, ``before`` answers None and the caller gathers every
event as before.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
from typing import Any

from ledger.economy.sheets import Inputs, Memo

EVERY = 500
Event = list[Any]  # [type, position, trimmed fields], as budget_view.relevant_events gives them


def copy_inputs(inputs: Inputs) -> Inputs:
    """A copy that later additions to either leave the other unchanged (entries are never changed once made:
    dictionaries and their lists are copied, their entries shared)."""
    out = copy.copy(inputs)
    for f in dataclasses.fields(inputs):
        value = getattr(inputs, f.name)
        if isinstance(value, dict):
            value = copy.copy(value)  # keeps a defaultdict's factory
            for k, v in value.items():
                if isinstance(v, list):
                    value[k] = list(v)
        elif not isinstance(value, (str, int, tuple, type(None))):
            value = copy.deepcopy(value)  # the corrections' standing: empty unless a correction came
        setattr(out, f.name, value)
    return out


class Steps:
    """One audience's relevant events per country, with snapshots of their inputs and a memo of their sheets."""

    def __init__(self, revealed: Any = None):
        self.revealed = revealed
        self.position = 0  # the last event taken
        self.head = 0  # the position the events were read up to
        self.shared: list[Event] = []  # the events every country's sheets read, in order
        self.events: dict[str, list[Event]] = {}  # country -> its entries and the shared events, in order
        self.positions: dict[str, list[int]] = {}
        self.snapshots: dict[str, list[Inputs]] = {}  # country -> inputs after 0, EVERY, 2 * EVERY... events
        self.memos: dict[str, Memo] = {}
        self.first_correction: int | None = None

    def extend(self, events: list[Event], head: int) -> None:
        """Take the events after ``position`` (earlier ones are skipped), in order, read up to ``head``."""
        self.head = max(self.head, head)
        for e in events:
            kind, position, data = e
            if position <= self.position:
                continue
            self.position = position
            if kind == "TreasuryEntryRecorded":
                self._list(data["country"]).append(e)
                self.positions[data["country"]].append(position)
                continue
            if kind == "CorrectionRecorded" and self.first_correction is None:
                self.first_correction = position
            self.shared.append(e)
            for country, found in self.events.items():
                found.append(e)
                self.positions[country].append(position)

    def _list(self, country: str) -> list[Event]:
        if country not in self.events:
            self.events[country] = list(self.shared)
            self.positions[country] = [e[1] for e in self.shared]
            self.snapshots[country] = [Inputs()]
            self.memos[country] = {}
        return self.events[country]

    def before(self, country: str, position: int) -> Inputs | None:
        """``country``'s inputs from the events before ``position`` (a copy, the caller's to extend), with
        ``countries`` that country alone; None once a correction came before it."""
        if self.first_correction is not None and self.first_correction < position:
            return None
        found, positions, snapshots = self._list(country), self.positions[country], self.snapshots[country]
        n = bisect.bisect_left(positions, position)
        while len(snapshots) <= n // EVERY:  # the next snapshot: the previous one and EVERY events more
            made = copy_inputs(snapshots[-1])
            start = (len(snapshots) - 1) * EVERY
            for kind, p, data in found[start:start + EVERY]:
                made.add(kind, p, data)
            snapshots.append(made)
        inputs = copy_inputs(snapshots[n // EVERY])
        for kind, p, data in found[n // EVERY * EVERY:n]:
            inputs.add(kind, p, data)
        inputs.countries = (country,)
        return inputs

    def memo(self, country: str) -> Memo:
        """A copy of the country's memo (a step's sheets of its own turn are not kept: see ``keep``)."""
        return dict(self.memos[country])

    def keep(self, country: str, memo: Memo, turn: int) -> None:
        """Keep the sheets of turns before ``turn``: later events rarely change them, so other steps find them."""
        self.memos[country].update({k: v for k, v in memo.items() if k[1] < turn})
