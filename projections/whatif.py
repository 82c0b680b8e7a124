"""What if an event had been otherwise: the views at the head with a correction that is not recorded.

The correction is drafted by the very use case that would record it (``Ledger.drafted``: validated, a ruling
resolved again, its treasury entries following), then folded after the history as the views fold a recorded
one. The answer is the difference at the head, in words: map, tracks and budget. Nothing is appended; a
ruling whose new inputs need a die the original did not draw cannot be shown (the die is drawn only when
recorded).

Not the whole campaign again: events before the corrected one stand as they are, so the map and victory
start from the stored checkpoint (a turn's opening) before it, and fold forward to the head twice, with the
corrections that stand now and with the drafted one too. A checkpoint after an event some recorded
correction reaches back to would hold that event uncorrected: then the checkpoint before that event is
taken. The budget reads only the events it reads anyway (entries, corrections, closings: the ERS page's).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.domain.corrections import Standing
from ledger.domain.errors import StateConflict
from ledger.economy.sheets import RELEVANT, budget
from projections import budget_view, read, replay, words
from projections.corrections import refold
from projections.head import Reader
from projections.records import Record, from_event


def _cells(events: list[list[Any]]) -> dict[tuple[str, int, str], Any]:
    b = budget(budget_view.records({"events": events}))
    return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
            for code, c in (sheet.cells or {}).items()}


def _fold(since: dict[str, int], docs: dict[str, Any], records: list[Record], standing: Standing
          ) -> dict[str, dict[str, Any]]:
    """Each view's checkpoint document folded forward through ``records``, the standing corrections applied."""
    fixes = {root: replacement for root, (_, replacement) in standing.fixes().items()}
    out, copied = {}, replay.copy_docs(docs)  # the checkpoint serves both folds
    for name, model in replay.MODELS.items():
        out[name], _ = refold(model, [r for r in records if r.position > since[name]], fixes, copied[name])
    return out


def start(reader: Reader, cid: UUID, corrected: int, reaches: list[tuple[int, int]]
          ) -> tuple[dict[str, int], dict[str, Any]]:
    """The latest checkpoint per view before ``corrected`` that no correction recorded after it reaches back
    behind (``reaches``: (correction position, the event it finally concerns))."""
    n = corrected
    while True:
        since, docs = replay.checkpoint(reader.db, cid, n - 1)
        behind = [root for position, root in reaches for c in since.values() if position > c and root <= c]
        if not behind:
            return since, docs
        n = min(behind)


def ask(reader: Reader, cid: UUID, draft: tuple[Any, list[Any]]) -> dict[str, Any]:
    """The what-if of a correction as ``Ledger.drafted`` drafts it (its answer, its events)."""
    result, drafted = draft
    if (result.data.get("rework") or {}).get("needs_die"):
        raise StateConflict(f"these inputs need a die the ruling did not draw ({result.data['rework']['needs_die']})"
                            ": it is drawn only when the correction is recorded", field="replacement.inputs")
    return what_if(reader, cid, drafted)


def what_if(reader: Reader, cid: UUID, drafted: list[Any]) -> dict[str, Any]:
    """The views at the head without and with the ``drafted`` events (a game master's view: all of it)."""
    ledger = reader.ledger
    head = ledger.campaign(cid).version
    extra = [from_event(e) for e in drafted]
    now, then = Standing(), Standing()
    reaches: list[tuple[int, int]] = []
    for r in [*reader.of_types(cid, {"CorrectionRecorded"}, head), *extra]:
        if r.type != "CorrectionRecorded":
            continue
        if r.position <= head:
            now.add(r.position, int(r.data["corrects"]), r.data.get("replacement"))
        reaches.append((r.position, then.add(r.position, int(r.data["corrects"]), r.data.get("replacement"))))
    corrected = min(root for position, root in reaches if position > head)
    since, docs = start(reader, cid, corrected, reaches)
    records = read.records(ledger, cid, min(since.values()), head)
    before, after = _fold(since, docs, records, now), _fold(since, docs, records + extra, then)
    events = reader.relevant_events(cid, head)
    c0 = _cells(events)
    c1 = _cells(events + [[r.type, r.position, budget_view.trim(r)] for r in extra if r.type in RELEVANT])
    cells = [{"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": c1.get(k)}
             for k in sorted(set(c0) | set(c1), key=lambda k: (k[0], k[1], words.ers_key(k[2])))
             if c0.get(k) != c1.get(k)]
    vp0, vp1 = before["victory"].get("vp") or {}, after["victory"].get("vp") or {}
    return {"at": head, "from_checkpoint": min(since.values()), "changes": words.changes(before, after),
            "budget": [words.budget_line(b) for b in cells],
            "victory": {c: {"now": words.plain(vp0.get(c, 0)), "then": words.plain(vp1.get(c, 0))}
                        for c in sorted(set(vp0) | set(vp1))}}
