"""The ERS CSV written line by line (``export.ers_csv``, what ``ers.csv`` serves) is byte for byte the plain
writer's (``to_csv`` of ``rows``) on a generated campaign: for a game master and for a player (whose history
leaves out the entries hidden from them), every country or one, every turn or a range, the defaulted lines
left out or kept."""

from __future__ import annotations

import itertools

from ledger.application import Actor
from ledger.domain.commands import RecordCorrection
from ops.generate_campaign import generate
from projections import export
from projections.history import gather

GM, FRANCE = Actor("gm", "gm"), Actor("fra", "player", "FRA")


def test_the_fast_ers_csv_is_the_plain_writers_bytes(ledger):
    generate(ledger, "fast", 400, seed=3, turn_size=60)
    [state] = ledger.campaigns()
    # A correction too: its entry's cells list it among their events.
    [entry] = [e for e in ledger.history(state.id) if type(e).__name__ == "TreasuryEntryRecorded"][:1]
    ledger.submit(state.id, RecordCorrection, corrects=entry.originator_version, replacement={"amount": 7},
                  reason="miscounted", actor=Actor("gm", "gm"))
    for actor in (GM, FRANCE):
        history = gather(ledger, state.id, actor)
        assert history.turns >= 3 and len(history.hashes) > 100
        for country, turns, defaulted in itertools.product((None, "FRA"), (None, (2, 3)), (False, True)):
            plain = export.to_csv("ers", export.rows(history, "ers", country, turns, defaulted))
            assert plain.count(b"\r\n") > 10
            assert export.ers_csv(history, country, turns, defaulted) == plain
