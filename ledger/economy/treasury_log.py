"""What the budget reads, kept in the campaign's write-side state: closing a phase reads no history.

``TreasuryLog`` is the campaign's relevant events (``sheets.RELEVANT``), trimmed
to the fields the budget reads and without the entries' reasons, append-only.
It is persistent: appending copies one chunk of at most ``CHUNK`` items, never
the whole log, so folding a long campaign into the state stays linear. It is
part of the state's snapshot, so a cold start reads the snapshot and the tail,
not the history.

``Economy`` turns a log into the budget's ``Inputs`` and keeps them, with the
sheet memo, fast-forwarded by the items added since: the write side computes
only the sheets that changed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from ledger.economy.sheets import RELEVANT, Budget, Inputs, Memo, compute, trim

CHUNK = 512
Item = tuple[str, int, dict[str, Any]]  # (event type, position, trimmed fields)


@dataclass(frozen=True)
class TreasuryLog:
    chunks: tuple[tuple[Item, ...], ...] = ()
    tail: tuple[Item, ...] = ()

    @property
    def count(self) -> int:
        return len(self.chunks) * CHUNK + len(self.tail)

    def add(self, kind: str, position: int, data: dict[str, Any]) -> TreasuryLog:
        """The log with this event added when the budget reads its kind (else the same log)."""
        if kind not in RELEVANT:
            return self
        tail = (*self.tail, (kind, position, trim(kind, data, reasons=False)))
        if len(tail) == CHUNK:
            return TreasuryLog((*self.chunks, tail), ())
        return TreasuryLog(self.chunks, tail)

    def items(self, start: int = 0) -> Iterator[Item]:
        first = start // CHUNK
        for n, chunk in enumerate((*self.chunks[first:], self.tail), start=first):
            yield from chunk[start - n * CHUNK:] if n * CHUNK < start else chunk

    def sheet_events(self, turn: int, countries: Collection[str]) -> list[int]:
        """The positions behind these countries' sheets of ``turn``: each entry that was recorded for one of
        them or moved onto one by a correction, and every correction of those entries, ascending.

        Reads the whole log (in memory, no history): publishing a turn is rare, not a hot path. A sheet
        that cannot be computed still has its entries, so they are found here rather than in its cells.
        """
        root_of: dict[int, int] = {}  # entry or correction position -> the entry it concerns
        where: dict[int, tuple[str, int]] = {}  # entry -> the sheet it was last put on
        chosen: set[int] = set()
        for kind, position, data in self.items():
            if kind == "TreasuryEntryRecorded":
                root = root_of[position] = position
                where[root] = (data["country"], data["turn"])
            elif kind == "CorrectionRecorded" and data.get("corrects") in root_of:
                root = root_of[position] = root_of[data["corrects"]]
                moved = data.get("replacement") or {}
                where[root] = (moved.get("country", where[root][0]), moved.get("turn", where[root][1]))
            else:
                continue
            if where[root][1] == turn and where[root][0] in countries:
                chosen.add(root)
        return sorted(p for p, root in root_of.items() if root in chosen)

    def to_json(self) -> list[list[Any]]:
        return [[k, p, d] for k, p, d in self.items()]

    @classmethod
    def from_json(cls, items: list[list[Any]]) -> TreasuryLog:
        full = len(items) - len(items) % CHUNK
        chunks = tuple(tuple((k, p, d) for k, p, d in items[i:i + CHUNK]) for i in range(0, full, CHUNK))
        return cls(chunks, tuple((k, p, d) for k, p, d in items[full:]))


@dataclass
class Economy:
    """A campaign's budget inputs and sheet memo, fast-forwarded from its log (one per campaign, one writer)."""

    count: int = 0
    inputs: Inputs = field(default_factory=Inputs)
    memo: Memo = field(default_factory=dict)

    def budget(self, log: TreasuryLog) -> Budget:
        if log.count < self.count:  # another history (a test reusing an id): start again
            self.count, self.inputs, self.memo = 0, Inputs(), {}
        for kind, position, data in log.items(self.count):
            self.inputs.add(kind, position, data)
        self.count = log.count
        return compute(self.inputs, memo=self.memo)
