"""What the budget reads, kept in the campaign's write-side state: closing a phase reads no history.

``TreasuryLog`` is the campaign's relevant events (``sheets.RELEVANT``), trimmed
to the fields the budget reads and without the entries' reasons, append-only.
It is persistent: appending copies one chunk of at most ``CHUNK`` items, never
the whole log, so folding a long campaign into the state stays linear. It is
part of the state's snapshot, so a cold start reads the snapshot and the tail,
not the history; the snapshot keeps its full chunks as one JSON text, decoded
only when something reads them (a first read that needs no budget does not).

``Economy`` turns a log into the budget's ``Inputs`` and keeps them, with the
sheet memo, fast-forwarded by the items added since: the write side computes
only the sheets that changed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ledger.chain import canonical_json
from ledger.economy.sheets import RELEVANT, Budget, Inputs, Memo, compute, trim

CHUNK = 512
#: A correction's item in a snapshot's text: its position and (its fields' first key) the position it corrects.
_CORRECTION = re.compile(r'\["CorrectionRecorded",(\d+),\{(?:"corrects":(\d+))?')
_ENTRY = '["TreasuryEntryRecorded",'


def _entries_in(text: str, country: str) -> list[int]:
    """The positions of the items ``["TreasuryEntryRecorded",<position>,{...}]`` of a snapshot's text whose
    fields, before any brace, hold ``"country":<country>`` followed by a comma or the closing brace: what
    ``re.finditer(r'\\["TreasuryEntryRecorded",(\\d+),\\{[^{}]*"country":<country>[,}]')`` finds, from each of
    the country's few marks looked back from, not a match tried at each of the campaign's 67,000 entries (the
    regular expression took ~75 ms of CPU on the 300k campaign's 5.6 MB text)."""
    mark = '"country":' + orjson.dumps(country).decode()
    out: list[int] = []
    at = text.find(mark)
    while at >= 0:
        end = at + len(mark)
        brace = text.rfind("{", 0, at)
        if end < len(text) and text[end] in ",}" and brace > 0 and text.find("}", brace, at) < 0 \
                and text[brace - 1] == ",":
            start = text.rfind(_ENTRY, 0, brace)
            number = text[start + len(_ENTRY):brace - 1] if start >= 0 else ""
            if number.isdecimal():  # as the expression's digits (\d: any decimal digit)
                out.append(int(number))
        at = text.find(mark, end)
    return out


#: [event type, position, trimmed fields]: a list, as the snapshot's JSON decodes (converting 67,000 of them to
#: tuples cost a third of a fresh process's first budget read on the 300k campaign); never changed once made.
Item = list[Any]


class _Encoded:
    """Full chunks of a log restored from a snapshot, kept as the JSON text stored there and decoded on first
    use: a read that needs no budget (most first reads of a fresh process) never decodes them, and the append
    path adds to the tail without them. The snapshot's seal covers this text before anything uses it."""

    __slots__ = ("text", "count", "_chunks", "_lock")

    def __init__(self, text: str, count: int):
        self.text, self.count = text, count
        self._chunks: tuple[tuple[Item, ...], ...] | None = None
        self._lock = threading.Lock()

    @property
    def chunks(self) -> tuple[tuple[Item, ...], ...]:
        if self._chunks is None:
            with self._lock:  # one decode per process, even when two requests ask at once
                if self._chunks is None:
                    items = orjson.loads(self.text)
                    if len(items) != self.count:
                        raise ValueError(f"the budget log holds {len(items)} items, not {self.count}")
                    self._chunks = _chunked(items)
        return self._chunks


def _chunked(items: list[Item]) -> tuple[tuple[Item, ...], ...]:
    return tuple(tuple(items[i:i + CHUNK]) for i in range(0, len(items), CHUNK))


class TreasuryLog:
    """Items in full chunks (those restored from a snapshot first, possibly still encoded), then a tail."""

    __slots__ = ("base", "more", "tail")

    def __init__(self, chunks: tuple[tuple[Item, ...], ...] = (), tail: tuple[Item, ...] = (),
                 base: _Encoded | None = None):
        self.base, self.more, self.tail = base, chunks, tail

    @property
    def chunks(self) -> tuple[tuple[Item, ...], ...]:
        return self.more if self.base is None else (*self.base.chunks, *self.more)

    @property
    def count(self) -> int:
        return (self.base.count if self.base is not None else 0) + len(self.more) * CHUNK + len(self.tail)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreasuryLog) and self.to_items() == other.to_items()

    def __repr__(self) -> str:
        return f"TreasuryLog(count={self.count})"

    def add(self, kind: str, position: int, data: dict[str, Any]) -> TreasuryLog:
        """The log with this event added when the budget reads its kind (else the same log)."""
        if kind not in RELEVANT:
            return self
        tail = (*self.tail, [kind, position, trim(kind, data, reasons=False)])
        if len(tail) == CHUNK:
            return TreasuryLog((*self.more, tail), (), self.base)
        return TreasuryLog(self.more, tail, self.base)

    def items(self, start: int = 0) -> Iterator[Item]:
        first = start // CHUNK
        for n, chunk in enumerate((*self.chunks[first:], self.tail), start=first):
            yield from chunk[start - n * CHUNK:] if n * CHUNK < start else chunk

    def positions(self, kinds: Collection[str]) -> list[int]:
        """The positions of the items of these kinds, ascending: what a reader of rare kinds (corrections,
        scenarios) looks up by position instead of scanning the campaign's history for them. A snapshot's text
        not decoded yet is searched, not decoded (5.6 MB on the 300k campaign): each item there starts
        ``["<kind>",<position>,`` (canonical JSON, a string's own quotes escaped), a pattern a string of the
        campaign's settings could only echo in a list; so the answer may hold more positions, never fewer, and
        the caller keeps the events of these kinds among those it reads."""
        found: list[int] = []
        base = self.base
        if base is not None and base._chunks is None:
            text = base.text
            for kind in kinds:
                mark = f'["{kind}",'
                at = text.find(mark)
                while at >= 0:
                    start = at + len(mark)
                    end = text.find(",", start)
                    number = text[start:end]
                    if end > start and number.isdigit():
                        found.append(int(number))
                    at = text.find(mark, start)
            chunks: tuple[tuple[Item, ...], ...] = (*self.more, self.tail)
        else:
            chunks = (*self.chunks, self.tail)
        found += [p for chunk in chunks for k, p, _ in chunk if k in kinds]
        return sorted(set(found))

    def entry_positions(self, country: str) -> list[int]:
        """The positions a country's entry table reads, ascending: each entry recorded for ``country``, every
        correction and the position each one corrects (an entry may be moved onto ``country`` by one; they are
        few). A snapshot's text not decoded yet is searched, not decoded, as by ``positions`` (an item there is
        ``["<kind>",<position>,{<fields in key order>}]``, canonical JSON: an entry's fields are flat), so the
        answer may hold more positions, never fewer: the caller keeps the entries of ``country`` among those it
        reads (``export.entry_rows``)."""
        found: list[int] = []
        base = self.base
        if base is not None and base._chunks is None:
            text = base.text
            found += _entries_in(text, country)
            for m in _CORRECTION.finditer(text):
                found.append(int(m.group(1)))
                if m.group(2):
                    found.append(int(m.group(2)))
            chunks: tuple[tuple[Item, ...], ...] = (*self.more, self.tail)
        else:
            chunks = (*self.chunks, self.tail)
        for chunk in chunks:
            for kind, position, data in chunk:
                if kind == "TreasuryEntryRecorded" and data.get("country") == country:
                    found.append(position)
                elif kind == "CorrectionRecorded":
                    found.append(position)
                    if isinstance(data.get("corrects"), int):
                        found.append(data["corrects"])
        return sorted(set(found))

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

    def to_items(self) -> list[list[Any]]:
        return [[k, p, d] for k, p, d in self.items()]

    def to_json(self) -> dict[str, Any]:
        """The snapshot's form: the full chunks as one JSON text (decoded lazily on load), the tail as items.
        A log restored and never decoded writes its text back as it was read, with the chunks added since."""
        if self.base is not None and self.base._chunks is None:
            text = self.base.text
            if self.more:
                extra = canonical_json([[k, p, d] for chunk in self.more for k, p, d in chunk]).decode()
                text = extra if text == "[]" else f"{text[:-1]},{extra[1:]}"
        else:
            text = canonical_json([[k, p, d] for chunk in self.chunks for k, p, d in chunk]).decode()
        return {"count": self.count - len(self.tail), "chunks": text, "tail": [[k, p, d] for k, p, d in self.tail]}

    @classmethod
    def from_json(cls, stored: dict[str, Any] | list[list[Any]]) -> TreasuryLog:
        """From ``to_json``'s form, or from a plain list of items (snapshots written before it)."""
        if isinstance(stored, list):
            full = len(stored) - len(stored) % CHUNK
            return cls(_chunked(stored[:full]), tuple([k, p, d] for k, p, d in stored[full:]))
        count, text, tail = stored["count"], stored["chunks"], stored["tail"]
        if not (isinstance(count, int) and isinstance(text, str) and isinstance(tail, list)) \
                or count % CHUNK or len(tail) >= CHUNK:
            raise ValueError("the budget log of the snapshot is not of the expected shape")
        return cls((), tuple([k, p, d] for k, p, d in tail), _Encoded(text, count) if count else None)


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
