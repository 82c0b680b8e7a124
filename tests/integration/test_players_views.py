"""A player's map and victory as of any position, read in a process that has not folded their view yet, start
from the game master's stored checkpoint while every event hidden from them is of a type those documents read
only the position of (``POSITION_ONLY``: a treasury entry, a phase closed, a token), and from their own fold
once a map event is hidden from them: either way they equal the fold from the first event of what they may
see. The turns list, kept per campaign and extended, equals one grouped afresh."""

from __future__ import annotations

import copy
import random

import orjson

from ledger.application import Actor
from ledger.domain.commands import ChangeControl, RevealEvent
from ops.generate_campaign import generate
from projections import corrections, replay, views
from projections.head import POSITION_ONLY, Reader
from projections.read import audience, records, visible
from projections.runner import Projector
from ledger.sample import close_open_phases

GM, FRANCE, ENGLAND = Actor("gm", "gm"), Actor("fra", "player", "FRA"), Actor("eng", "player", "ENG")


def from_first_event(ledger, cid, actor, state, n):
    return corrections.fold(replay.MODELS, visible(actor, records(ledger, cid, 0, n), state.revealed))


def test_the_events_the_shortcut_skips_change_nothing_but_the_position(ledger):
    generate(ledger, "skips", 300, seed=5, turn_size=60)
    [state] = ledger.campaigns()
    rs = records(ledger, state.id)
    skipped = [r for r in rs if r.type in POSITION_ONLY]
    assert "TreasuryEntryRecorded" in {r.type for r in skipped}
    docs = corrections.fold(replay.MODELS, [r for r in rs if r.type not in POSITION_ONLY])
    for r in skipped:
        for name, model in replay.MODELS.items():
            before = copy.deepcopy(docs[name])
            model.apply(docs[name], r)
            assert {k: v for k, v in docs[name].items() if k != "position"} == \
                {k: v for k, v in before.items() if k != "position"}
            assert docs[name]["position"] == r.position


def test_a_players_state_at_any_position_in_a_fresh_process_equals_their_fold_from_the_first_event(ledger):
    generate(ledger, "fresh", 500, seed=6, turn_size=80)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    hidden_at = ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                              visibility={"scope": "countries", "countries": ["ENG"]}).events[-1]["position"]
    later = ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    assert Reader(ledger, Projector(ledger).db).shared_until(cid, FRANCE, state) == hidden_at
    assert Reader(ledger, Projector(ledger).db).shared_until(cid, ENGLAND, state) > state.version
    positions = random.Random(2).sample(range(1, state.version + 1), 25) + [hidden_at - 1, hidden_at,
                                                                               later.events[-1]["position"]]
    for actor in (FRANCE, ENGLAND):
        for n in positions:
            got = Reader(ledger, Projector(ledger).db).state_at(cid, actor, state, n)  # a new process's reader
            want = from_first_event(ledger, cid, actor, state, n)
            assert (got["map"], got["victory"]) == (want["map"], want["victory"]), (actor.country, n)


def test_the_turns_kept_and_extended_equal_the_turns_grouped_afresh(ledger):
    generate(ledger, "turns", 300, seed=7, turn_size=60)
    [state] = ledger.campaigns()
    projector = Projector(ledger)
    projector.catch_up()
    warm = Reader(ledger, projector.db)
    for actor in (GM, FRANCE):
        warm.turns(state.id, actor, state)
    ledger.open_turn(state.id, actor=GM)
    ledger.submit(state.id, ChangeControl, province="Kent", controller="FRA", actor=GM,
                  visibility={"scope": "countries", "countries": ["FRA"]})
    projector.catch_up()
    state = ledger.campaign(state.id)
    for actor in (GM, FRANCE, ENGLAND):
        assert warm.turns(state.id, actor, state) == Reader(ledger, projector.db).turns(state.id, actor, state)


def test_a_players_views_at_the_head_in_a_fresh_process_start_from_the_checkpoint_and_equal_their_fold(ledger):
    """The map, victory and ERS a player first reads at the head in a process: from the game master's checkpoint
    before the first event hidden from them that the map reads, and the budget events they may see from the
    store, then their own fold; a treasury entry hidden from them stays out of their sheet."""
    from ledger.economy.sheets import RELEVANT, budget, sheet_json
    from projections import budget_view

    generate(ledger, "head", 600, seed=8, turn_size=90)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    turn = ledger.campaign(cid).turn
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=17, reason="hidden from France",
                                 actor=GM, visibility={"scope": "countries", "countries": ["ENG"]})
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=GM)
    ledger.open_turn(cid, actor=GM)  # its checkpoint lies after the hidden entry: read from the store, filtered
    ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                  visibility={"scope": "countries", "countries": ["ENG"]})
    ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    for actor in (FRANCE, ENGLAND):
        reader = Reader(ledger, Projector(ledger).db)  # a new process's reader
        entry = reader._entry(cid, actor, state)
        with entry["lock"]:
            since = reader._start_from_checkpoint({**entry, "docs": reader._empty(), "revealed": ()},
                                                  cid, actor, state)
        assert since and min(since.values()) > 0, "a fresh audience starts from a stored checkpoint"
        want = from_first_event(ledger, cid, actor, state, state.version)
        got = orjson.loads(reader.state(cid, actor, state))
        assert (got["map"], got["victory"]) == (want["map"], want["victory"]), actor.country
        seen = visible(actor, records(ledger, cid, 0, state.version), state.revealed)
        sheets = budget(budget_view.records({"events": [[r.type, r.position, budget_view.trim(r)]
                                                        for r in seen if r.type in RELEVANT]}))
        for country in ("ENG", "FRA"):
            expected = sheets.sheet(country, turn)
            raw = Reader(ledger, Projector(ledger).db).sheet(cid, actor, state, country, turn)
            assert orjson.loads(raw) == orjson.loads(orjson.dumps(sheet_json(expected))), (actor.country, country)


def test_a_players_budget_events_are_read_when_a_sheet_first_asks_and_equal_their_fold(ledger):
    """A player's first state in a process reads no budget event (their map and victory need none); their first
    sheet then reads those up to the checkpoint the fold started from, after the ones folded since: the sheet
    of every event they may see, entries hidden from them left out, one recorded after the state included."""
    from ledger.economy.milestones import PHASES
    from ledger.economy.sheets import RELEVANT, budget, sheet_json
    from projections import budget_view

    generate(ledger, "lazy", 500, seed=9, turn_size=80)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    Projector(ledger).catch_up()
    reader = Reader(ledger, Projector(ledger).db)
    state = ledger.campaign(cid)
    reader.state(cid, FRANCE, state)
    entry = reader._entry(cid, FRANCE, state)
    assert entry["docs"]["budget"]["events"] == [] and entry["docs"]["budget_upto"] > 0, \
        "the state read the budget's events"
    for country, visibility in (("FRA", None), ("ENG", {"scope": "countries", "countries": ["ENG"]}),
                                ("ENG", {"scope": "public"})):
        ledger.record_treasury_entry(cid, country=country, line="A9", amount=9, reason="after the state",
                                     actor=GM, visibility=visibility)
    # An entry hidden from France before the state was read, revealed after it: in their sheet from then on.
    [hidden] = [r for r in records(ledger, cid, 0, entry["version"]) if r.type == "TreasuryEntryRecorded"
                and r.data["country"] == "ENG" and r.data["visibility"].get("countries") == ["ENG"]][-1:]
    ledger.submit(cid, RevealEvent, position=hidden.position, reason="shown at last", actor=GM)
    state = ledger.campaign(cid)
    assert hidden.position in state.revealed
    reader.state(cid, FRANCE, state)  # folds the tail: two entries France sees

    def same_sheets_as_their_events() -> None:
        seen = visible(FRANCE, records(ledger, cid, 0, state.version), state.revealed)
        sheets = budget(budget_view.records({"events": [[r.type, r.position, budget_view.trim(r)]
                                                        for r in seen if r.type in RELEVANT]}))
        for country in ("FRA", "ENG"):
            for turn in (1, state.turn - 1, state.turn):
                raw = reader.sheet(cid, FRANCE, state, country, turn)
                assert orjson.loads(raw) == orjson.loads(orjson.dumps(sheet_json(sheets.sheet(country, turn)))), \
                    (country, turn)

    same_sheets_as_their_events()  # each country's from its own inputs (``_country_sheet``): nothing gathered
    assert entry["docs"]["budget_upto"] > 0
    reader.budget_events(cid, FRANCE, state, state.version)  # the turn page's steps gather them
    assert "budget_upto" not in entry["docs"]
    same_sheets_as_their_events()  # now from the audience's budget, every event they may see
    # Later events are added to the inputs the sheets were computed from: the same sheets as their events'.
    for country, visibility in (("FRA", None), ("ENG", {"scope": "public"}), ("ENG", None)):
        ledger.record_treasury_entry(cid, country=country, line="B40", amount=4, reason="later still",
                                     actor=GM, visibility=visibility)
    ledger.close_phase(cid, PHASES[0], actor=GM)
    state = ledger.campaign(cid)
    same_sheets_as_their_events()


def their_sheets(ledger, cid, actor, state):
    """Every sheet as the budget of every event ``actor`` may see gives it (the definition)."""
    from ledger.economy.sheets import RELEVANT, budget
    from projections import budget_view

    seen = visible(actor, records(ledger, cid, 0, state.version), state.revealed)
    return budget(budget_view.records({"events": [[r.type, r.position, budget_view.trim(r)]
                                                    for r in seen if r.type in RELEVANT]}))


def test_a_first_sheet_from_its_countrys_inputs_alone_equals_the_sheet_of_every_event_they_may_see(ledger):
    """A player's or an observer's first sheet in a process reads only that country's entries and the events
    every country shares (``Reader._country_sheet``); with nothing of them hidden before its turn it is the game
    master's stored sheet. Either way, for every country and audience, it equals the sheet of every event the
    caller may see: entries hidden from them left out, revealed ones in, at later heads too (the kept inputs
    extended with the tail), and once a correction came (from every event again)."""
    from ledger.domain import commands as cmd
    from ledger.economy.sheets import sheet_json

    observer = Actor("obs", "observer")
    generate(ledger, "country", 700, seed=11, turn_size=90)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    for country, visibility in (("ENG", {"scope": "countries", "countries": ["ENG"]}),
                                ("FRA", {"scope": "countries", "countries": ["ENG", "FRA"]}),
                                ("ENG", {"scope": "gm"}), ("POL", {"scope": "public"})):
        ledger.record_treasury_entry(cid, country=country, line="A9", amount=13, reason="hidden or not",
                                     actor=GM, visibility=visibility)
    hidden = [r for r in records(ledger, cid, 0, ledger.campaign(cid).version) if r.type == "TreasuryEntryRecorded"
              and r.data["visibility"].get("scope") != "public"]
    ledger.submit(cid, RevealEvent, position=hidden[0].position, reason="shown", actor=GM)
    Projector(ledger).catch_up()
    state = ledger.campaign(cid)
    countries = list(state.countries)
    turns = sorted({1, 2, state.turn - 1, state.turn})
    kept = {actor.id: Reader(ledger, Projector(ledger).db) for actor in (FRANCE, ENGLAND, observer)}

    def same_sheets(reader_of, *, fresh: bool) -> None:
        for actor in (FRANCE, ENGLAND, observer):
            want = their_sheets(ledger, cid, actor, state)
            for country in countries:
                for turn in turns:
                    reader = Reader(ledger, Projector(ledger).db) if fresh else reader_of[actor.id]
                    raw = reader.sheet(cid, actor, state, country, turn)
                    expected = want.sheet(country, turn)
                    assert orjson.loads(raw) == orjson.loads(orjson.dumps(sheet_json(expected))), \
                        (actor.id, country, turn)

    same_sheets(kept, fresh=True)
    same_sheets(kept, fresh=False)  # the readers that serve the later heads below
    assert all((cid, "FRA", turn) in kept["fra"]._sheets for turn in turns), \
        "France's own sheets are the game master's (France sees every event of them)"
    assert any(k[-1] == "FRA" for k in kept["eng"]._country_sheets), \
        "France's sheets computed for England (an entry of France shown to England: more than everyone sees)"
    assert any(k[0] == cid and k[1] == "ENG" and k[-1] == "public" for k in kept["fra"]._sheets), \
        "England's sheets for France are the sheets everyone sees (budget_public)"
    # Later events, the runner not caught up: the kept inputs take the tail France, England or everyone sees.
    for country, visibility in (("ENG", {"scope": "countries", "countries": ["ENG"]}), ("ENG", {"scope": "public"}),
                                ("FRA", {"scope": "countries", "countries": ["FRA"]}), ("FRA", {"scope": "gm"})):
        ledger.record_treasury_entry(cid, country=country, line="B40", amount=4, reason="later",
                                     actor=GM, visibility=visibility)
    state = ledger.campaign(cid)
    same_sheets(kept, fresh=False)
    same_sheets(kept, fresh=True)
    # A correction moves an entry to another country: from every event the caller may see again.
    [entry] = [r for r in records(ledger, cid, 0, state.version) if r.type == "TreasuryEntryRecorded"
               and r.data["country"] == "FRA" and r.data["visibility"].get("scope") == "public"][-1:]
    ledger.handle(cid, cmd.RecordCorrection(corrects=entry.position, reason="booked for England",
                                            replacement={"country": "ENG", "amount": 21}), actor=GM)
    state = ledger.campaign(cid)
    same_sheets(kept, fresh=False)
    Projector(ledger).catch_up()
    same_sheets(kept, fresh=True)


def test_the_rare_events_looked_up_by_the_positions_the_log_lists_are_those_a_scan_finds(ledger, monkeypatch):
    """Corrections and scenarios, which a turn page lists, looked up at the positions the campaign's treasury
    log lists (``Reader.of_types`` with the head's state: no scan of the history) are those a scan of the
    history finds, at every bound, a correction of a ruling too."""
    from ledger.domain import commands as cmd
    from projections import head

    generate(ledger, "rare", 400, seed=12, turn_size=70)
    [state] = ledger.campaigns()
    cid = state.id
    rs = records(ledger, cid)
    entry = next(r for r in rs if r.type == "TreasuryEntryRecorded")
    ruling = next(r for r in rs if r.type == "RulingRecorded")
    ledger.open_turn(cid, actor=GM)
    for at, replacement in ((entry.position, {"amount": 3}), (ruling.position, None)):
        ledger.handle(cid, cmd.RecordCorrection(corrects=at, reason="disputed", replacement=replacement), actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    monkeypatch.setattr(head, "RARE_SCAN", 0)  # every range by the log's positions
    bounds = [1, 2, entry.position, state.version - 1, state.version]
    for types in ({"CorrectionRecorded"}, {"ScenarioImported"}, head.RARE):
        scanned = Reader(ledger, Projector(ledger).db)
        looked_up = Reader(ledger, Projector(ledger).db)
        for upto in bounds:
            want = [(r.position, r.type, r.data) for r in scanned.of_types(cid, set(types), upto)]
            got = [(r.position, r.type, r.data) for r in looked_up.of_types(cid, set(types), upto, state)]
            assert got == want, (types, upto)
    assert [r.type for r in looked_up.of_types(cid, set(head.RARE), state.version, state)].count(
        "CorrectionRecorded") == 2


def test_a_players_checkpoints_within_a_turn_keep_the_stability_log_as_it_was_through_later_folds(ledger,
                                                                                                 monkeypatch):
    """An audience's own fold keeps a checkpoint at each turn's opening and every CHECKPOINT_EVERY events within
    a turn, its append-only lists kept as the list and its length then: read back after the fold went on (and
    after a correction folded the documents into new lists), each still equals the fold from the first event."""
    monkeypatch.setattr(views, "CHECKPOINT_EVERY", 7)
    # The whole campaign from the audience's own fold (not the game master's checkpoints before the first event
    # hidden from it): what is tested is the fold's checkpoints.
    monkeypatch.setattr(Reader, "shared_until", lambda self, cid, actor, state: 1)
    generate(ledger, "within", 400, seed=8, turn_size=90)
    [state] = ledger.campaigns()
    cid = state.id
    battle = next(r.position for r in records(ledger, cid) if r.type == "RulingRecorded"
                  and any(e["kind"] == "stability_changed" for e in r.data["ruling"].get("effects") or ()))
    ledger.open_turn(cid, actor=GM)
    ledger.record_correction(cid, corrects=battle, reason="struck", actor=GM)
    ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", actor=GM,
                  visibility={"scope": "countries", "countries": ["ENG"]})
    ledger.submit(cid, ChangeControl, province="Kent", controller="FRA", actor=GM)
    state = ledger.campaign(cid)
    Projector(ledger).catch_up()
    reader = Reader(ledger, Projector(ledger).db)
    reader.state_at(cid, FRANCE, state, state.version)  # the fold to the head: every checkpoint kept on the way
    kept = sorted(k[3] for k in reader._checkpoints if k[1] == audience(FRANCE))
    opened = {r.position for r in records(ledger, cid) if r.type == "TurnOpened"}
    assert any(p not in opened for p in kept) and any(p in opened for p in kept)
    logs = [reader._checkpoints[k][1]["victory"]["stability_log"] for k in reader._checkpoints]
    assert any(length < len(items) for items, length in logs)  # a list that grew after its checkpoint
    for n in random.Random(3).sample(range(1, state.version + 1), 40) + kept:
        got = reader.state_at(cid, FRANCE, state, n)
        want = from_first_event(ledger, cid, FRANCE, state, n)
        assert (got["map"], got["victory"]) == (want["map"], want["victory"]), n
        assert list(got["victory"]) == list(want["victory"])  # the keys in their order
