"""State as of any position N, differences between two positions, and reads of the views.

``state_at``: the latest per-turn checkpoint at or before N (written by the map
and victory views at every ``TurnOpened``), then the campaign's events after it
up to N, applied by the same functions the views use. So the answer equals a
rebuild from the first event up to N, at the cost of one turn of events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import UUID

import orjson

from ledger.domain.errors import InvalidInput
from projections import corrections, read
from projections import map as map_model
from projections import timeline as timeline_model
from projections import victory as victory_model
from projections.records import Record, copy_doc, expand, ruling_decoder
from projections.store import ViewDB

MODELS = {"map": map_model, "victory": victory_model}
#: What a fold of map and victory reads of a ruling (their ``RULING_READS``, as a rebuild decodes them): the
#: events after a checkpoint are decoded to that, not whole (a ruling's steps and inputs are two thirds of it).
DECODERS = {"RulingRecorded": ruling_decoder(map_model.RULING_READS | victory_model.RULING_READS)}


def checkpoint(db: ViewDB, cid: UUID, n: int) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """Per view (map, victory): the position and document of its latest checkpoint at or before ``n``."""
    docs: dict[str, dict[str, Any]] = {}
    since: dict[str, int] = {}
    with db.reading() as cur:
        for name, model in MODELS.items():
            cur.execute(db.sql("SELECT position, doc FROM {proj_checkpoints} WHERE view = ? AND campaign = ? "
                               "AND position <= ? ORDER BY position DESC LIMIT 1"), (name, str(cid), n))
            row = cur.fetchone()
            try:
                docs[name] = expand(orjson.loads(bytes(row["doc"])), getattr(model, "APPEND_ONLY", ()),
                                    lambda p: stored_checkpoint(db, cur, name, cid, p)) if row else model.empty()
                since[name] = int(row["position"]) if row else 0
            except LookupError:  # its keyframe deleted since by a rebuild's reset: from the first event
                docs[name], since[name] = model.empty(), 0
    return since, docs


def stored_checkpoint(db: ViewDB, cur: Any, view: str, cid: UUID, position: int) -> bytes:
    """The stored document of a view's checkpoint at ``position`` (a keyframe another names)."""
    doc = db.checkpoint_doc(cur, view, str(cid), position)
    if doc is None:  # a rebuild's reset deleted it between the statements
        raise LookupError(f"the {view} checkpoint at {position} is gone")
    return doc


def copy_docs(docs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each view's document copied to fold further (``records.copy_doc``, its model's append-only lists
    shared)."""
    return {name: copy_doc(doc, getattr(MODELS.get(name), "APPEND_ONLY", ())) for name, doc in docs.items()}


def fold_into(docs: dict[str, dict[str, Any]], since: dict[str, int], rs: Iterable[Record],
              history: corrections.History) -> dict[str, dict[str, Any]]:
    """Apply ``rs`` (in order) to each view's document past that view's ``since``; ``history(n)`` gives the
    records 1..n a correction folds again."""
    for r in rs:
        for name, model in MODELS.items():
            if r.position > since.get(name, 0):
                docs[name], _ = corrections.apply(model, docs[name], r, history)
    return docs


def state_at(ledger: Any, db: ViewDB, cid: UUID, n: int) -> dict[str, Any]:
    read.check_position(ledger, cid, n)
    since, docs = checkpoint(db, cid, n)
    history = lambda upto: read.records(ledger, cid, 0, upto)  # noqa: E731 (read only when a correction comes)
    fold_into(docs, since, read.records(ledger, cid, min(since.values()), n, decoders=DECODERS), history)
    return {"campaign": str(cid), "position": n, "checkpoint": min(since.values()), **docs}


def state_from_scratch(ledger: Any, cid: UUID, n: int) -> dict[str, Any]:
    """The same state by replaying every event from the first (what the tests compare against)."""
    docs = corrections.fold(MODELS, read.records(ledger, cid, 0, n))
    return {"campaign": str(cid), "position": n, **docs}


def diff_docs(a: Any, b: Any, path: str = "") -> list[dict[str, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k in ("position",):
                continue
            out += diff_docs(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
        return out
    return [] if a == b else [{"path": path, "from": a, "to": b}]


def diff(ledger: Any, db: ViewDB, cid: UUID, a: int, b: int) -> dict[str, Any]:
    read.check_position(ledger, cid, a, "from")
    read.check_position(ledger, cid, b, "to")
    if a > b:
        raise InvalidInput(f"from ({a}) must not be after to ({b})", field="from")
    sa, sb = state_at(ledger, db, cid, a), state_at(ledger, db, cid, b)
    changes = [c for name in MODELS for c in diff_docs(sa[name], sb[name], name)]
    return {"campaign": str(cid), "from": a, "to": b, "changes": changes}


def current(db: ViewDB, cid: UUID, view: str) -> dict[str, Any]:
    with db.reading() as cur:
        cur.execute(db.sql("SELECT doc FROM {proj_docs} WHERE view = ? AND campaign = ?"), (view, str(cid)))
        row = cur.fetchone()
    return orjson.loads(bytes(row["doc"])) if row else MODELS[view].empty()


def awards(db: ViewDB, cid: UUID) -> list[dict[str, Any]]:
    with db.reading() as cur:
        cur.execute(db.sql("SELECT position, effect, country, turn, points, reason FROM {proj_awards} "
                           "WHERE campaign = ? ORDER BY position, effect"), (str(cid),))
        return [{"position": int(r["position"]), "effect": r["effect"], "country": r["country"], "turn": r["turn"],
                 "points": r["points"], "reason": r["reason"]} for r in cur.fetchall()]


def timeline(db: ViewDB, cid: UUID, turn: int | None = None, gt: int = 0, lte: int | None = None, *,
             raw_context: bool = False) -> list[dict[str, Any]]:
    """The stored timeline rows; ``raw_context``: each row's context as its stored JSON (``orjson.Fragment``),
    for a caller that only serialises it again (a turn's thousand rows are not decoded for nothing)."""
    sql = "SELECT position, turn, type, summary, context, visibility FROM {proj_timeline} WHERE campaign = ?"
    params: list[Any] = [str(cid)]
    if turn is not None:
        sql += " AND turn = ?"
        params.append(turn)
    if gt:
        sql += " AND position > ?"
        params.append(gt)
    if lte is not None:
        sql += " AND position <= ?"
        params.append(lte)
    with db.reading() as cur:
        cur.execute(db.sql(sql + " ORDER BY position"), tuple(params))
        rows = cur.fetchall()
    context = orjson.Fragment if raw_context else orjson.loads
    return [{"position": int(r["position"]), "turn": r["turn"], "type": r["type"], "summary": r["summary"],
             "context": context(r["context"]), "visibility": orjson.loads(r["visibility"])}
            for r in rows]


def places(db: ViewDB, cid: UUID) -> list[tuple[str, int]]:
    """The ``proj_places`` index of a campaign: (place, position) pairs, in order (a rebuild's check)."""
    with db.reading() as cur:
        cur.execute(db.sql("SELECT place, position FROM {proj_places} WHERE campaign = ? ORDER BY place, position"),
                    (str(cid),))
        return [(r["place"], int(r["position"])) for r in cur.fetchall()]


def timeline_rows(records: list[Record]) -> list[dict[str, Any]]:
    """Timeline rows computed directly from records (rebuild-free, used by replay tools)."""
    doc = timeline_model.empty()
    return [timeline_model.row(doc, r) for r in records]
