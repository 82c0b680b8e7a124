"""An observer's sheet, and a player's sheet of another country, from the sheets everyone sees as the
``budget_public`` view stored them (projections/budget_public.py), on both stores: for every country, turn and
audience it is the sheet of every event the caller may see, in a fresh process and in a kept one, with the
runner caught up or behind (the tail folded in, or read as before when it changes earlier sheets), after hidden
entries (a country's own, an ally's, the game masters'), a published turn, a correction; and a store whose views
predate the view gets its table and is caught up by the ordinary runner."""

from __future__ import annotations

import orjson
import pytest

from ledger.application import Actor
from ledger.domain import commands as cmd
from ledger.economy.sheets import sheet_json
from ops.generate_campaign import generate
from projections import budget_public
from projections.head import Reader
from projections.read import records
from projections.runner import Projector
from tests.conftest import raw_execute
from tests.integration.test_players_views import GM, their_sheets

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

OBSERVER = Actor("obs", "observer")
PLAYERS = [Actor(c.lower(), "player", c) for c in ("ENG", "FRA", "SPA")]
ALLIED = {"scope": "countries", "countries": ["FRA", "SPA"]}


def served(reader, cid, country, turn):
    """Whether the stored public sheets answered (the reader keeps their answer under this key)."""
    return (cid, country, turn, "public") in reader._sheets


def check(ledger, cid, readers=None, turns=None):
    """Every sheet each audience asks for equals the sheet of every event it may see; returns, per audience,
    the countries whose sheets the stored public sheets served."""
    state = ledger.campaign(cid)
    turns = sorted(turns or {1, 2, state.turn // 2, state.turn - 1, state.turn})
    out = {}
    for actor in (OBSERVER, *PLAYERS):
        want = their_sheets(ledger, cid, actor, state)
        reader = (readers or {}).get(actor.id) or Reader(ledger, Projector(ledger).db)
        for country in state.countries:
            for turn in turns:
                raw = reader.sheet(cid, actor, state, country, turn)
                assert orjson.loads(raw) == orjson.loads(orjson.dumps(sheet_json(want.sheet(country, turn)))), \
                    (actor.id, country, turn)
                if served(reader, cid, country, turn):
                    out.setdefault(actor.id, set()).add(country)
    return out


def test_a_sheet_from_the_sheets_everyone_sees_is_the_sheet_of_every_event_the_caller_may_see(ledger):
    generate(ledger, "public", 700, seed=13, turn_size=90)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    for country, visibility, turn in (("FRA", ALLIED, None), ("ENG", {"scope": "gm"}, 2),
                                      ("ENG", {"scope": "public"}, 1), ("POL", {"scope": "countries",
                                                                               "countries": ["POL"]}, None)):
        ledger.record_treasury_entry(cid, country=country, line="A9", amount=11, reason="hidden or not", turn=turn,
                                     actor=GM, visibility=visibility)
    Projector(ledger).catch_up()
    served_by = check(ledger, cid)
    # The observer reads every country from them; Spain not France's (an entry of France shown to Spain) nor
    # its own; England every country but its own.
    assert served_by["obs"] == set(ledger.campaign(cid).countries)
    assert "FRA" not in served_by["spa"] and "SPA" not in served_by["spa"] and "ENG" in served_by["spa"]
    assert served_by["eng"] == set(ledger.campaign(cid).countries) - {"ENG"}
    [doc] = [budget_public.stored(Projector(ledger).db, str(cid), "FRA", 1)[1]]
    assert doc["named"]["FRA"] == ["FRA", "SPA"] and not doc["corrected"]
    # A player who sees every event of their own sheets reads the game master's (France); one with an entry
    # hidden from them (England's, the game masters' only) computes theirs.
    assert "ENG" in doc["unseen"] and "FRA" not in doc["unseen"]
    fresh, state = Reader(ledger, Projector(ledger).db), ledger.campaign(cid)
    for player in PLAYERS[:2]:
        fresh.sheet(cid, player, state, player.country, 2)
    assert (cid, "FRA", 2) in fresh._sheets and (cid, "ENG", 2) not in fresh._sheets

    kept = {actor.id: Reader(ledger, Projector(ledger).db) for actor in (OBSERVER, *PLAYERS)}
    check(ledger, cid, kept)
    # The runner behind: entries of this turn are folded in; one of an earlier turn sends England's sheets of
    # the later turns back to the slow path (the stored amounts before them are no longer the reader's).
    ledger.record_treasury_entry(cid, country="ENG", line="B40", amount=3, reason="this turn", actor=GM,
                                 visibility={"scope": "public"})
    ledger.record_treasury_entry(cid, country="SPA", line="A9", amount=5, reason="hidden", actor=GM,
                                 visibility={"scope": "countries", "countries": ["SPA"]})
    state = ledger.campaign(cid)
    fresh = Reader(ledger, Projector(ledger).db)
    check(ledger, cid, kept)
    check(ledger, cid, {"obs": fresh})
    assert served(fresh, cid, "ENG", state.turn) and served(fresh, cid, "SPA", state.turn)
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=4, reason="late", turn=2, actor=GM,
                                 visibility={"scope": "public"})
    fresh = Reader(ledger, Projector(ledger).db)
    check(ledger, cid, {"obs": fresh})
    assert not served(fresh, cid, "ENG", state.turn) and served(fresh, cid, "ENG", 2)
    Projector(ledger).catch_up()
    check(ledger, cid)

    # A published turn reveals its hidden entries: read as before while the runner is behind, then from the
    # view gathered again.
    ledger.submit(cid, cmd.PublishSheets, turn=2, actor=GM)
    fresh = Reader(ledger, Projector(ledger).db)
    check(ledger, cid, {"obs": fresh})
    assert not served(fresh, cid, "POL", 2)
    Projector(ledger).catch_up()
    fresh = Reader(ledger, Projector(ledger).db)
    check(ledger, cid, {"obs": fresh})
    assert served(fresh, cid, "POL", 2)

    # A correction may move an entry between countries: every sheet read as before, equal all the same.
    [entry] = [r for r in records(ledger, cid, 0, state.version) if r.type == "TreasuryEntryRecorded"
               and r.data["country"] == "FRA" and r.data["visibility"].get("scope") == "public"][-1:]
    ledger.handle(cid, cmd.RecordCorrection(corrects=entry.position, reason="booked for England",
                                            replacement={"country": "ENG", "amount": 21}), actor=GM)
    check(ledger, cid, kept)
    Projector(ledger).catch_up()
    assert budget_public.stored(Projector(ledger).db, str(cid), "FRA", 1)[1]["corrected"]
    assert "obs" not in check(ledger, cid)


def test_a_store_whose_views_predate_the_public_sheets_gets_them_from_the_ordinary_runner(ledger, settings):
    generate(ledger, "older", 300, seed=3, turn_size=60)
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    # As a release before this view left it: no table, no tracking row, no document.
    raw_execute(settings, f"DROP TABLE {budget_public.TABLE}")
    raw_execute(settings, "DELETE FROM proj_tracking WHERE view = ?", (budget_public.NAME,))
    raw_execute(settings, "DELETE FROM proj_docs WHERE view = ?", (budget_public.NAME,))
    reader = Reader(ledger, Projector(ledger).db)  # the views' tables created again, as `ledger migrate` does
    assert check(ledger, state.id, {"obs": reader}).get("obs") is None  # nothing stored yet: read as before
    Projector(ledger).catch_up()
    assert check(ledger, state.id)["obs"] == set(state.countries)
