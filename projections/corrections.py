"""Corrections on the document views (map, victory): the history folded again as the corrections say.

A ``CorrectionRecorded`` never edits the event it corrects: the views read the
original as it was replaced. ``replacement`` replaces top-level fields of the
corrected event's payload; for a ruling, a ``ruling`` object in the
replacement is merged into the recorded ruling one level deep, so a game master
can restate its ``effects`` or ``outcome`` without copying the rest. A correction
without replacement strikes the event; a ruling re-resolved (``rework`` in the
replacement) has its whole ruling replaced. Which replacement stands when
corrections correct one another is ``ledger.domain.corrections.Standing``, the
rule the budget (ledger/economy/sheets.py) folds treasury entries with too.

After a correction the document is folded again from the first event, the
corrected events replaced: a correction may reach back to any position, and
every later event then builds on the corrected state. Corrections are rare (a
dispute settled), so the cost, one pass over the campaign, is paid rarely.
"As of N" stays what the ledger said at N: a correction recorded after N does
not change the state at N.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledger.domain.corrections import Standing, replaced
from projections.records import Record, copy_doc

#: (position, award) pairs for the victory view's rows; map awards nothing.
Awards = list[tuple[int, dict[str, Any]]]
History = Callable[[int], Iterable[Record]]  # the campaign's records at positions 1..n


def corrected(r: Record, replacement: Any) -> Record | None:
    """The record as a correction says it should have been; None when struck (``corrections.replaced``)."""
    data = replaced(r.data, replacement)
    return None if data is None else Record(r.campaign, r.position, r.type, data, r.notification_id)


def corrections_of(doc: dict[str, Any]) -> dict[int, Any]:
    return {int(k): v for k, v in (doc.get("corrections") or {}).items()}


def log_of(doc: dict[str, Any]) -> list[list[Any]]:
    """The corrections folded into a document, as [position, corrects, replacement] in order (a document
    written before the log was kept has its standing replacements only)."""
    if "correction_log" in doc:
        return [list(x) for x in doc["correction_log"]]
    return [[0, k, v] for k, v in sorted(corrections_of(doc).items())]


def standing_fixes(log: list[list[Any]]) -> dict[int, Any]:
    """Corrected position -> the replacement that stands (``Standing``)."""
    return {root: repl for root, (_, repl) in Standing.of([tuple(x) for x in log]).fixes().items()}


def apply(model: Any, doc: dict[str, Any], r: Record, history: History) -> tuple[dict[str, Any], Awards | None]:
    """Apply one record; returns the document (a new one after a correction) and, after a correction,
    every award of the campaign again (None: only this record's awards changed, as ``model.apply`` returned)."""
    if r.type != "CorrectionRecorded":
        out = model.apply(doc, r)
        return doc, [(r.position, a) for a in out] if out else []
    log = [*log_of(doc), [r.position, int(r.data["corrects"]), r.data.get("replacement")]]
    fixes = standing_fixes(log)
    new, awards = refold(model, history(r.position - 1), fixes)
    new["position"] = r.position
    new["corrections"] = {str(k): v for k, v in sorted(fixes.items())}
    new["correction_log"] = log
    return new, awards


def refold(model: Any, records: Iterable[Record], fixes: dict[int, Any], doc: dict[str, Any] | None = None
           ) -> tuple[dict[str, Any], Awards]:
    """Fold records from an empty document (or ``doc``, the state before them, which it changes), with the
    corrected events replaced (or skipped when struck)."""
    doc = model.empty() if doc is None else doc
    awards: Awards = []
    for e in records:
        if e.type == "CorrectionRecorded":
            doc["position"] = e.position  # already in ``fixes``
            continue
        if e.position in fixes:
            fixed = corrected(e, fixes[e.position])
            if fixed is None:
                doc["position"] = e.position
                continue
            e = fixed
        out = model.apply(doc, e)
        awards.extend((e.position, a) for a in out or ())
    return doc, awards


def fold(models: dict[str, Any], records: list[Record]) -> dict[str, dict[str, Any]]:
    """Every model's document after ``records`` (one campaign's, in order, those a reader may see)."""
    docs = {name: model.empty() for name, model in models.items()}
    for i, r in enumerate(records):
        for name, model in models.items():
            docs[name], _ = apply(model, docs[name], r, lambda upto, i=i: [x for x in records[:i] if x.position <= upto])
    return docs


def around(models: dict[str, Any], records: list[Record], r: Record) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every model's document just before and just after ``r`` (one of ``records``), corrections folded as
    the views fold them: what the terminal replay shows, and what the web page reaches from its checkpoints."""
    i = next(k for k, x in enumerate(records) if x.position == r.position)
    before = fold(models, records[:i])
    after = {name: copy_doc(doc, getattr(models[name], "APPEND_ONLY", ())) for name, doc in before.items()}
    for name, model in models.items():
        after[name], _ = apply(model, after[name], r, lambda upto: [x for x in records[:i] if x.position <= upto])
    return before, after
