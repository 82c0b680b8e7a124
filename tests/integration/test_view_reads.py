"""A view that names the event types it reads (``View.reads``) gets the same answer when the others come
undecoded: what lets one process of ``ledger rebuild --jobs 2`` skip decoding them (projections/runner.py)."""

from __future__ import annotations

import orjson
import pytest

from ledger.economy.sheets import budget
from ops.generate_campaign import generate
from projections import victory
from projections.records import Record
from projections.runner import Projector, _decode
from projections.views import VIEW_CLASSES

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)


def test_the_views_that_name_what_they_read_fold_the_same_without_the_rest(ledger):
    generate(ledger, "reads", 500, seed=7, turn_size=100)
    p = Projector(ledger)
    with p.db.transaction() as cur:
        rows = p.db.read_events(cur, 0, 10_000)
    full = _decode(rows)
    for name in ("victory", "budget"):
        reads = VIEW_CLASSES[name].reads
        assert reads is not None
        blanked = _decode(rows, reads)
        skipped = {r.type for r in blanked if not r.data}
        assert skipped and not skipped & reads  # some kinds come undecoded, none the view reads
        if name == "victory":
            docs = []
            for records in (full, blanked):
                doc, awards = victory.empty(), []
                for r in records:
                    awards += victory.apply(doc, r)
                docs.append((orjson.dumps(doc), awards))
            assert docs[0] == docs[1] and docs[0][1]  # awards made, the same ones
        else:
            assert budget(full) == budget(blanked) and budget(full).sheets


def test_a_projector_decodes_every_event_when_one_of_its_views_reads_them_all(ledger):
    assert Projector(ledger).reads is None  # the timeline and the map read every kind
    assert Projector(ledger, ["budget", "victory"]).reads == VIEW_CLASSES["budget"].reads | VIEW_CLASSES[
        "victory"].reads
    [r] = _decode([(1, "c", 1, "ledger.domain.events:StackMoved", b'{"stack": "FRA-1"}')],
                  frozenset({"RulingRecorded"}))
    assert r == Record("c", 1, "StackMoved", {}, 1)
