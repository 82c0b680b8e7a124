"""The stored views checked against the chain (issue 34, item 2: `ledger verify --views`).

The views are caches the service's database role may write: a row rewritten there (a stack of 60 LD in
Cornwall that no event put there) is served to every reader while the chain itself verifies. This audit folds
the campaign again from its first event, with the functions the views fold with, and compares what is stored:

- every stored checkpoint of the map and the victory (``proj_checkpoints``), at its position;
- the current map and victory documents (``proj_docs``), at the position stored with them;
- every timeline row (``proj_timeline``: turn, type, words, visibility) and every victory award
  (``proj_awards``) up to the position the views reached.

It reads the whole history on purpose: it is an audit an operator runs, never a page.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import orjson

from projections import corrections, read, words
from projections import timeline as timeline_model
from projections.records import expand
from projections.replay import MODELS, diff_docs, stored_checkpoint
from projections.store import ViewDB
from projections.words import plain

#: At most this many differences are named per document (the first ones say what was changed).
SHOWN = 3


def _award(value: tuple[Any, ...] | None) -> str:
    if value is None:
        return "no award"
    country, turn, points, reason = value
    return f"{country} {plain(points)} points in turn {plain(turn)} ({reason})"


def _differences(what: str, name: str, stored: dict[str, Any], folded: dict[str, Any]) -> list[str]:
    """What the stored document says that the chain does not, in the words of the turn page (chain → stored)."""
    found = words.changes({name: folded}, {name: stored}) if diff_docs(stored, folded) else []
    said = [f"{what}, from the chain to what is stored: {change}" for change in found[:SHOWN]]
    if len(found) > SHOWN:
        said.append(f"{what}: and {len(found) - SHOWN} more differences")
    return said


def check_views(ledger: Any, db: ViewDB, cid: UUID) -> tuple[int, list[str]]:
    """(the number of stored rows and documents compared, the differences in words; none: the views hold)."""
    campaign = str(cid)
    with db.reading() as cur:
        checkpoints: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for name, model in MODELS.items():
            cur.execute(db.sql("SELECT position, doc FROM {proj_checkpoints} WHERE view = ? AND campaign = ? "
                               "ORDER BY position"), (name, campaign))
            for row in cur.fetchall():
                doc = expand(orjson.loads(bytes(row["doc"])), getattr(model, "APPEND_ONLY", ()),
                             lambda p, name=name: stored_checkpoint(db, cur, name, cid, p))
                checkpoints.setdefault(int(row["position"]), []).append((name, doc))
        current: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for name in MODELS:
            cur.execute(db.sql("SELECT position, doc FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                        (name, campaign))
            row = cur.fetchone()
            if row is not None:
                current.setdefault(int(row["position"]), []).append((name, orjson.loads(bytes(row["doc"]))))
        cur.execute(db.sql("SELECT position, turn, type, summary, visibility FROM {proj_timeline} "
                           "WHERE campaign = ? ORDER BY position"), (campaign,))
        timeline = {int(r["position"]): (r["turn"], r["type"], r["summary"], orjson.loads(r["visibility"]))
                    for r in cur.fetchall()}
        cur.execute(db.sql("SELECT position, effect, country, turn, points, reason FROM {proj_awards} "
                           "WHERE campaign = ?"), (campaign,))
        awards = {(int(r["position"]), int(r["effect"])): (r["country"], r["turn"], str(r["points"]), r["reason"])
                  for r in cur.fetchall()}
    reached = max([*timeline, *current, 0])
    records = read.records(ledger, cid, 0, reached)
    problems: list[str] = []
    compared = 0
    docs = {name: model.empty() for name, model in MODELS.items()}
    folded_awards: dict[tuple[int, int], tuple[Any, ...]] = {}
    line = timeline_model.empty()
    for i, r in enumerate(records):
        history = lambda upto, i=i: [x for x in records[:i] if x.position <= upto]  # noqa: E731
        for name, model in MODELS.items():
            docs[name], given = corrections.apply(model, docs[name], r, history)
            if name == "victory" and given is not None:
                if r.type == "CorrectionRecorded":  # the campaign folded again: its awards written again
                    folded_awards = {}
                for position, a in given:
                    folded_awards[(position, a["effect"])] = (a["country"], a["turn"], str(a["points"]),
                                                              a["reason"])
        # A checkpoint at a position, like the current document, is the fold up to and with its event.
        for name, stored in checkpoints.pop(r.position, ()):
            compared += 1
            problems += _differences(f"the {name} checkpoint at position {r.position}", name, stored,
                                     docs[name])
        for name, stored in current.pop(r.position, ()):
            compared += 1
            problems += _differences(f"the current {name} (position {r.position})", name, stored, docs[name])
        row = timeline_model.row(line, r)
        if r.position in timeline:
            compared += 1
            stored_row = timeline.pop(r.position)
            folded_row = (row["turn"], row["type"], row["summary"], row["visibility"])
            if stored_row != folded_row:
                problems.append(f"the timeline row at position {r.position} says “{stored_row[2]}” ({stored_row[1]}) "
                                f"where the chain gives “{folded_row[2]}” ({folded_row[1]})")
        else:
            problems.append(f"the timeline has no row for position {r.position} ({r.type})")
    for position in sorted(timeline):
        problems.append(f"the timeline has a row at position {position}, which the chain does not hold")
    for position, stored_docs in sorted({**checkpoints, **current}.items()):
        for name, _ in stored_docs:
            problems.append(f"a {name} document is stored at position {position}, which the chain does not hold")
    for key in sorted(set(awards) | set(folded_awards)):
        compared += key in awards
        if awards.get(key) != folded_awards.get(key):
            problems.append(f"the award at position {key[0]} (effect {key[1]}) is {_award(awards.get(key))} "
                            f"where the chain gives {_award(folded_awards.get(key))}")
    return compared, problems
