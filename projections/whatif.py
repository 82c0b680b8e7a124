"""What if an event had been otherwise: the views at the head with a correction that is not recorded.

The correction is drafted by the very use case that would record it (``Ledger.drafted``: validated, a ruling
resolved again, its treasury entries following), then folded after the history as the views fold a recorded
one. The answer is the difference at the head, in words: map, tracks and budget. Nothing is appended; a
ruling whose new inputs need a die the original did not draw cannot be shown (the die is drawn only when
recorded). One fold of the whole campaign per question: a dispute's price, paid rarely.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.economy.sheets import budget
from projections import corrections, read, replay, words
from projections.records import Record, from_event


def _cells(records: list[Record]) -> dict[tuple[str, int, str], Any]:
    b = budget(records)
    return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
            for code, c in (sheet.cells or {}).items()}


def what_if(ledger: Any, cid: UUID, drafted: list[Any]) -> dict[str, Any]:
    """The views at the head without and with the ``drafted`` events (a game master's view: all of it)."""
    head = ledger.campaign(cid).version
    records = read.records(ledger, cid, 0, head)
    extra = [from_event(e) for e in drafted]
    now = corrections.fold(replay.MODELS, records)
    then = corrections.fold(replay.MODELS, records + extra)
    c0, c1 = _cells(records), _cells(records + extra)
    cells = [{"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": c1.get(k)}
             for k in sorted(set(c0) | set(c1), key=lambda k: (k[0], k[1], words.ers_key(k[2])))
             if c0.get(k) != c1.get(k)]
    vp0, vp1 = now["victory"].get("vp") or {}, then["victory"].get("vp") or {}
    return {"at": head, "changes": words.changes(now, then), "budget": [words.budget_line(b) for b in cells],
            "victory": {c: {"now": words.plain(vp0.get(c, 0)), "then": words.plain(vp1.get(c, 0))}
                        for c in sorted(set(vp0) | set(vp1))}}
