"""The ERS CSV written line by line (``export.ers_csv``, what ``ers.csv`` serves) is byte for byte the plain
writer's (``to_csv`` of ``rows``) on a generated campaign: for a game master and for a player (whose history
leaves out the entries hidden from them), every country or one, every turn or a range, the defaulted lines
left out or kept."""

from __future__ import annotations

import itertools

from ledger import tokens
from ledger.application import Actor
from ledger.domain.commands import RecordCorrection, RecordTreasuryEntry
from ops.generate_campaign import generate
from projections import export
from projections.history import gather
from tests.integration import export_reference as reference
from ledger.sample import close_open_phases

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


def parquet_cells(body: bytes) -> tuple:
    """A Parquet file as a reader gets it: its schema and every row."""
    import io

    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(body))
    return table.schema, table.to_pylist()


def test_the_fast_ers_json_parquet_and_entries_are_the_plain_writers_and_the_last_releases(ledger):
    """``ers_json`` (what ``ers.json`` serves) is ``to_json`` of the rows byte for byte, twice (the second from the
    rows kept by sheet); ``ers_parquet`` and every table's Parquet file hold the last release's cells; the
    entries table's rows are the last release's, key order included, and ``entries_csv`` the plain writer's
    bytes of them, as ``wide_csv`` is of the wide rows; the wide rows are the long ones pivoted; with an entry
    corrected twice (moved to another country, then its line) and one struck out, one hidden from the player, a
    reason to quote."""
    import orjson

    generate(ledger, "fastjson", 400, seed=6, turn_size=60)
    [state] = ledger.campaigns()
    entries = [e for e in ledger.history(state.id) if type(e).__name__ == "TreasuryEntryRecorded"]
    moved, struck = entries[0].originator_version, entries[3].originator_version
    ledger.submit(state.id, RecordCorrection, corrects=moved, replacement={"country": "ENG", "amount": 4},
                  reason="wrong country", actor=GM)
    ledger.submit(state.id, RecordCorrection, corrects=moved, replacement={"line": "A10"}, reason="wrong line",
                  actor=GM)
    ledger.submit(state.id, RecordCorrection, corrects=struck, reason="never happened", actor=GM)
    ledger.submit(state.id, RecordTreasuryEntry, country="ENG", line="A9", amount=12, reason="secret",
                  visibility={"scope": "gm"}, actor=GM)
    ledger.submit(state.id, RecordTreasuryEntry, country="FRA", line="A9", amount=-3,
                  reason=' loot, "quoted"\nand a second line ', actor=GM)
    for actor in (GM, FRANCE):
        history = gather(ledger, state.id, actor)
        for country, turns, defaulted in itertools.product((None, "FRA", "ENG"), (None, (2, 3)), (False, True)):
            plain = export.to_json(export.rows(history, "ers", country, turns, defaulted))
            assert plain.count(b'"line"') > 10
            assert export.ers_json(history, country, turns, defaulted) == plain
            assert export.ers_json(history, country, turns, defaulted) == plain
            rows = list(export.entry_rows(history, country, turns))
            assert orjson.dumps(rows) == orjson.dumps(list(reference.entry_rows(history, country, turns)))
            assert export.entries_csv(history, country, turns) == \
                export.to_csv("entries", reference.entry_rows(history, country, turns))
            assert orjson.dumps(list(export.wide_rows(history, country, turns))) == \
                orjson.dumps(list(export.wide(export.ers_rows(history, country, turns))))
            wide = export.to_csv("ers-wide", export.wide(export.ers_rows(history, country, turns)))
            assert wide.count(b"\r\n") > 2 and export.wide_csv(history, country, turns) == wide
            assert export.wide_csv(history, country, turns) == wide  # the second from the lines kept by sheet
            parquet = export.ers_parquet(history, country, turns, defaulted)
            assert parquet_cells(parquet) == parquet_cells(reference.to_parquet(
                "ers", export.rows(history, "ers", country, turns, defaulted)))
            assert export.ers_parquet(history, country, turns, defaulted) == parquet
        for table in export.TABLES:
            assert parquet_cells(export.encode(table, "parquet", export.rows(history, table))) == \
                parquet_cells(reference.to_parquet(table, export.rows(history, table)))
        kinds = {r["kind"] for r in export.entry_rows(history)}
        assert kinds == {"entry", "correction"}


def test_a_game_masters_history_seeded_from_the_views_is_the_one_gathered_from_the_events(ledger):
    """The first export in a process reads the budget's sheets, the victory document and its awards from the
    views and only the entries from the store: the same history as a read of every event, and none (the caller
    gathers) while the views have not read an event the history reads."""
    from projections.runner import Projector
    from projections.history import seeded
    from projections.store import ViewDB

    generate(ledger, "seeded", 500, seed=4, turn_size=70)
    [state] = ledger.campaigns()
    [entry] = [e for e in ledger.history(state.id) if type(e).__name__ == "TreasuryEntryRecorded"][:1]
    ledger.submit(state.id, RecordCorrection, corrects=entry.originator_version, replacement={"amount": 3},
                  reason="miscounted", actor=GM)
    db = ViewDB(ledger.recorder)
    state = ledger.campaign(state.id)
    assert seeded(ledger, db, state.id, state) is None  # the views have read nothing yet
    Projector(ledger).catch_up()
    tokens.issue_token(ledger, state.id, role="observer", holder="olga", actor=GM)  # an event it reads nothing of
    state = ledger.campaign(state.id)
    fast, plain = seeded(ledger, db, state.id, state), gather(ledger, state.id, GM)
    assert fast is not None and len(fast.awards) > 0 and len(fast.entries) > 100
    for key, sheet in plain.budget.sheets.items():
        assert fast.budget.sheet(*key) == sheet
    # The view's document is at the last event it read, the gathered one at the last it applied: no export
    # shows that position (an export names the history's).
    fast_doc, plain_doc = ({k: v for k, v in h.victory.items() if k != "position"} for h in (fast, plain))
    assert (fast_doc, fast.awards, list(fast.entries)) == (plain_doc, plain.awards, plain.entries)
    assert {p: fast.hashes[p] for p in plain.hashes if p in fast.hashes} == \
        {p: plain.hashes[p] for p in fast.hashes}
    for table in export.TABLES:
        assert export.encode(table, "csv", export.rows(fast, table)) == \
            export.encode(table, "csv", export.rows(plain, table))
    assert export.ers_csv(fast, "FRA") == export.ers_csv(plain, "FRA")


def test_a_seeded_history_read_after_the_views_moved_on_is_still_the_one_at_its_head(ledger):
    """A seeded history reads a country's sheets when first asked for: if the runner has written later events
    into the view since, those sheets come from the events up to the history's position instead."""
    from projections.history import seeded
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "moved", 300, seed=8, turn_size=60)
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    db, state = ViewDB(ledger.recorder), ledger.campaign(state.id)
    early, plain = seeded(ledger, db, state.id, state), gather(ledger, state.id, GM)
    assert early is not None and early.budget.sheet("ENG", 1) == plain.budget.sheet("ENG", 1)
    later_turn = state.turn
    ledger.submit(state.id, RecordTreasuryEntry, country="FRA", turn=later_turn, line="A9", amount=40,
                  reason="late loot", actor=GM)
    Projector(ledger).catch_up()
    assert ledger.campaign(state.id).version > state.version
    assert export.ers_csv(early, "FRA") == export.ers_csv(plain, "FRA")


def test_no_seeded_history_once_a_ruling_is_corrected(ledger):
    """The victory view folds a ruling's correction in, the export's history reads rulings as recorded: with one
    corrected, the history is gathered from the events as before."""
    from projections.history import seeded
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "ruled", 300, seed=9, turn_size=60)
    [state] = ledger.campaigns()
    [ruling] = [e for e in ledger.history(state.id) if type(e).__name__ == "RulingRecorded"][:1]
    ledger.submit(state.id, RecordCorrection, corrects=ruling.originator_version, reason="misread", actor=GM)
    Projector(ledger).catch_up()
    state = ledger.campaign(state.id)
    assert seeded(ledger, ViewDB(ledger.recorder), state.id, state) is None


def test_a_players_history_seeded_from_the_views_is_the_one_gathered_from_what_they_may_see(ledger):
    """A player's history seeds too while nothing the victory reads is hidden from them and the budget's hidden
    events are treasury entries: the countries those belong to are computed from what the player may see, the
    others are the budget view's; every table and the ERS as the player would get it from the events."""
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "players", 400, seed=12, turn_size=60)
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    state = ledger.campaign(state.id)
    reader = Reader(ledger, ViewDB(ledger.recorder))
    for actor in (FRANCE, Actor("olga", "observer")):
        fast, plain = reader._seeded_history(state.id, actor, state), gather(ledger, state.id, actor)
        assert fast is not None and fast.budget.affected  # type: ignore[attr-defined]
        for key, sheet in plain.budget.sheets.items():
            assert fast.budget.sheet(*key) == sheet, key
        assert list(fast.entries) == plain.entries and fast.awards == plain.awards
        for table in export.TABLES:
            assert export.encode(table, "csv", export.rows(fast, table)) == \
                export.encode(table, "csv", export.rows(plain, table)), table
        assert export.ers_csv(fast, "FRA") == export.ers_csv(plain, "FRA")


def test_the_read_paths_history_follows_appends_as_gathered_at_each_head(ledger):
    """``Reader.history`` seeds the first history, keeps it while nothing it reads is appended (a token), seeds
    again once the views have read a new entry, and gathers from the events while they have not: at each head,
    the ERS and the entries as gathered from the events, for a game master and a player."""
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "follows", 300, seed=13, turn_size=60)
    [state] = ledger.campaigns()
    cid = state.id
    Projector(ledger).catch_up()
    reader = Reader(ledger, ViewDB(ledger.recorder))

    def same_as_gathered(actor: Actor) -> None:
        state = ledger.campaign(cid)
        fast, plain = reader.history(cid, actor, state), gather(ledger, cid, actor)
        assert fast.position == plain.position == state.version
        for table in ("ers", "entries"):
            assert export.encode(table, "csv", export.rows(fast, table)) == \
                export.encode(table, "csv", export.rows(plain, table)), table

    for step in ("token", "entry seen by the views", "entry not seen yet"):
        if step == "token":
            tokens.issue_token(ledger, cid, role="observer", holder=f"o-{step}", actor=GM)
        else:
            ledger.submit(cid, RecordTreasuryEntry, country="FRA", turn=ledger.campaign(cid).turn, line="A9",
                          amount=11, reason=step, actor=GM)
            if step == "entry seen by the views":
                Projector(ledger).catch_up()
        for actor in (GM, FRANCE):
            same_as_gathered(actor)


def test_a_live_campaigns_history_is_extended_with_the_tail_and_equals_the_one_gathered_at_each_head(ledger):
    """After an append the views have not read yet, an export's history is the seeded one extended with the
    records after it (``history.extend``: the entries' countries' sheets from their turn on, every country's
    from a turn opened or a phase closed, computed again from the three stored sheets before), not a read of the
    campaign's history; and at each head every table and the ERS CSV equal those gathered from the events, for
    a game master, a player and an observer: entries of the current turn and of an earlier one, of the
    player's country and of others, public and hidden, a phase closed, a turn closed and opened, a war; the
    views catching up now and then. A correction is no tail's: the history is gathered again, still equal."""
    import random

    import orjson

    from ledger.domain.commands import ClosePhase, DeclareWar
    from ledger.economy.sheets import sheet_json
    from ledger.economy.milestones import PHASES
    from projections.head import Reader
    from projections.history import TailBudget
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "live", 500, seed=21, turn_size=70)
    [state] = ledger.campaigns()
    cid = state.id
    Projector(ledger).catch_up()
    reader = Reader(ledger, ViewDB(ledger.recorder))
    observer = Actor("olga", "observer")
    rng = random.Random(21)
    ledger.open_turn(cid, actor=GM)
    extended = 0

    def same_as_gathered() -> None:
        nonlocal extended
        state = ledger.campaign(cid)
        for actor in (GM, FRANCE, observer):
            fast, plain = reader.history(cid, actor, state), gather(ledger, cid, actor)
            extended += isinstance(fast.budget, TailBudget)
            assert fast.position == plain.position == state.version
            for key, sheet in plain.budget.sheets.items():
                assert fast.budget.sheet(*key) == sheet, (actor, key)
            for table in export.TABLES:
                assert export.encode(table, "csv", export.rows(fast, table)) == \
                    export.encode(table, "csv", export.rows(plain, table)), (actor, table)
            assert export.ers_csv(fast, "FRA") == export.ers_csv(plain, "FRA")
            if actor is GM:  # the ERS page's sheet: the stored ones before the tail's turn, then computed
                for country in ("FRA", "ENG", "VEN"):
                    for turn in {1, state.turn - 1, state.turn} - {0}:
                        sheet = plain.budget.sheet(country, turn)
                        assert orjson.loads(reader.sheet(cid, GM, state, country, turn)) == \
                            orjson.loads(orjson.dumps(sheet_json(sheet))), (country, turn)

    same_as_gathered()  # seeded
    phases = list(PHASES)
    for step in range(24):
        st = ledger.campaign(cid)
        roll = rng.random()
        if roll < 0.55:
            country = rng.choice(["FRA", "ENG", "VEN"])
            turn = st.turn if rng.random() < 0.8 else max(1, st.turn - rng.randint(1, 2))
            visibility = rng.choice([None, {"scope": "public"}, {"scope": "gm"}])
            line, amount = rng.choice(["A9", "B40"]), rng.randint(-20, 40)
            # B40 counts campaign ticks, an expense: typed positive (a negative expense is refused)
            ledger.submit(cid, RecordTreasuryEntry, country=country, turn=turn, line=line,
                          amount=abs(amount) if line == "B40" else amount, reason=f"live {step}", actor=GM,
                          visibility=visibility)
        elif roll < 0.75 and len(st.phases_closed) < len(phases):
            ledger.submit(cid, ClosePhase, phase=phases[len(st.phases_closed)], actor=GM)
        elif roll < 0.85:
            close_open_phases(ledger, cid)  # the turn closes after its eight phases
            ledger.close_turn(cid, actor=GM)
            ledger.open_turn(cid, actor=GM)
        else:
            # A war declared whatever the phase: the histories are under test, not the sequence of play.
            current = next((p for p in phases if p not in st.phases_closed), None)
            kept = {} if current in ("events", "diplomacy") else {"out_of_sequence": "a war at any phase"}
            ledger.submit(cid, DeclareWar, attackers=["FRA"], defenders=[rng.choice(["ENG", "VEN"])], actor=GM,
                          context=kept)
        if rng.random() < 0.3:
            Projector(ledger).catch_up()
        same_as_gathered()
    assert extended >= 20, "the histories were not extended from the seeded one"
    [entry] = [e for e in ledger.history(cid) if type(e).__name__ == "TreasuryEntryRecorded"][-1:]
    ledger.submit(cid, RecordCorrection, corrects=entry.originator_version, replacement={"amount": 1},
                  reason="miscounted", actor=GM)
    same_as_gathered()


def test_one_countrys_entries_read_by_position_are_those_of_the_whole_entry_log(ledger, monkeypatch):
    """A first entries table (or workbook) of one country reads that country's entries, every correction and
    what each corrects, by the positions the campaign's budget log names (``TreasuryLog.entry_positions``, its
    snapshot text searched undecoded), not the campaign's whole entry log: the same CSV and workbook cells as
    the history gathered from the events, for a game master and a player (one entry hidden from them), then
    for the game master with an entry moved onto another country by a correction, one struck out and one
    corrected twice (a player's history is gathered once anything is corrected)."""
    import dataclasses

    import orjson

    from ledger.chain import canonical_json
    from ledger.economy import treasury_log
    from ledger.economy.treasury_log import TreasuryLog
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB
    from tests.integration.test_export_xlsx_fast import cells

    generate(ledger, "bycountry", 500, seed=8, turn_size=70)
    [state] = ledger.campaigns()
    cid = state.id
    entries = [e for e in ledger.history(cid) if type(e).__name__ == "TreasuryEntryRecorded"]
    eng = next(e for e in entries if e.country == "ENG")
    fra = [e for e in entries if e.country == "FRA"]
    monkeypatch.setattr(treasury_log, "CHUNK", 16)  # small chunks: the log below has a snapshot text

    def same_as_gathered(actors: tuple[Actor, ...]) -> None:
        Projector(ledger).catch_up()
        state = ledger.campaign(cid)
        # As a fresh process restores it: the log's chunks as the snapshot's text, not decoded yet.
        log = TreasuryLog.from_json(orjson.loads(canonical_json(
            TreasuryLog.from_json(state.treasury.to_items()).to_json())))
        assert log.base is not None and log.base._chunks is None
        state = dataclasses.replace(state, treasury=log)
        for actor in actors:
            plain = gather(ledger, cid, actor)
            fast = Reader(ledger, ViewDB(ledger.recorder)).history(cid, actor, state)
            assert not isinstance(fast.entries, list), "read from the store, not gathered"
            for country in ("FRA", "ENG", "SPA"):
                assert export.entries_csv(fast, country) == export.entries_csv(plain, country), (actor, country)
                assert export.entries_csv(fast, country, (2, 3)) == export.entries_csv(plain, country, (2, 3))
            assert (b"secret" in export.entries_csv(fast, "FRA")) == (actor is GM)
            assert cells(export.to_xlsx(fast, "FRA")) == cells(export.to_xlsx(plain, "FRA"))
            assert len(fast.entries.of("FRA")) < len(plain.entries) / 2  # type: ignore[attr-defined]

    ledger.submit(cid, RecordTreasuryEntry, country="FRA", line="A9", amount=5, reason="secret",
                  visibility={"scope": "gm"}, actor=GM)
    same_as_gathered((GM, FRANCE))
    ledger.submit(cid, RecordCorrection, corrects=eng.originator_version, replacement={"country": "FRA"},
                  reason="France's, not England's", actor=GM)
    ledger.submit(cid, RecordCorrection, corrects=fra[0].originator_version, reason="never happened", actor=GM)
    ledger.submit(cid, RecordCorrection, corrects=fra[1].originator_version, replacement={"country": "ENG"},
                  reason="England's", actor=GM)
    ledger.submit(cid, RecordCorrection, corrects=fra[1].originator_version, replacement={"amount": 2},
                  reason="and two", actor=GM)
    same_as_gathered((GM,))
    history = gather(ledger, cid, GM)
    assert b"France's, not England's" in export.entries_csv(history, "FRA")
    assert b"and two" in export.entries_csv(history, "ENG") and b"and two" not in export.entries_csv(history, "FRA")


def test_one_countrys_victory_and_stability_read_the_hashes_of_that_countrys_events_only(ledger):
    """A first victory table of one country reads no event: its awards' hashes are stored with them; a stability
    table reads the hashes of the events its rows name, in one read, not those of every country's awards and
    track changes: the same CSV as the history gathered from the events, for every country."""
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "victories", 500, seed=12, turn_size=70)  # a seed where another country has awards of its own
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    state = ledger.campaign(state.id)
    plain = gather(ledger, state.id, GM)
    named = {a["position"] for a in plain.awards} | {e["position"] for e in plain.victory["stability_log"]}
    fast = Reader(ledger, ViewDB(ledger.recorder)).history(state.id, GM, state)
    assert not isinstance(fast.hashes, dict), "read from the store, not gathered"
    assert export.encode("victory", "csv", export.rows(fast, "victory", "FRA")) == \
        export.encode("victory", "csv", export.rows(plain, "victory", "FRA"))
    # The awards carry their events' hashes (the victory view stores them): none read out of the events.
    assert len(fast.hashes) == 0 < len({a["position"] for a in plain.awards if a["country"] == "FRA"}) < len(named)
    assert [a["hash"] for a in fast.awards] == [plain.hashes[a["position"]] for a in plain.awards]
    for country in state.countries:
        for table in ("victory", "stability", "inflation"):
            assert export.encode(table, "csv", export.rows(fast, table, country)) == \
                export.encode(table, "csv", export.rows(plain, table, country))


def test_an_ers_export_of_a_turn_range_reads_those_turns_sheets_only(ledger):
    """``ers.csv?turns=A..B`` of one country, first in a process, reads that country's sheets of those turns from
    the budget view (and the hashes they name), not its whole ERS: the same CSV, JSON and workbook as gathered
    from the events; a later export of every turn reads the rest; and after an append the views have not read
    (a tail: its turn computed again from the sheets before it), a range still equals the gathered one."""
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB
    from tests.integration.test_export_xlsx_fast import cells

    generate(ledger, "ranges", 600, seed=9, turn_size=60)
    [state] = ledger.campaigns()
    cid = state.id
    Projector(ledger).catch_up()
    state = ledger.campaign(cid)
    assert state.turn >= 6
    plain = gather(ledger, cid, GM)
    fast = Reader(ledger, ViewDB(ledger.recorder)).history(cid, GM, state)
    stored = fast.budget._stored  # type: ignore[attr-defined]
    assert export.ers_csv(fast, "FRA", (4, 5)) == export.ers_csv(plain, "FRA", (4, 5))
    assert stored.spans == {"FRA": {4, 5}} and not stored.countries
    assert export.ers_json(fast, "FRA", (3, 5)) == export.ers_json(plain, "FRA", (3, 5))
    assert cells(export.to_xlsx(fast, "FRA", (2, 6))) == cells(export.to_xlsx(plain, "FRA", (2, 6)))
    assert stored.spans == {"FRA": {2, 3, 4, 5, 6}}
    assert export.ers_csv(fast, "FRA") == export.ers_csv(plain, "FRA")
    assert stored.spans == {"FRA": set(range(1, state.turn + 1))}

    ledger.submit(cid, RecordTreasuryEntry, country="FRA", turn=state.turn, line="A9", amount=7,
                  reason="after the views", actor=GM)
    state = ledger.campaign(cid)
    live = Reader(ledger, ViewDB(ledger.recorder)).history(cid, GM, state)
    plain = gather(ledger, cid, GM)
    last = (state.turn - 1, state.turn)
    assert b"after the views" not in export.ers_csv(live, "ENG", last)
    assert export.ers_csv(live, "FRA", last) == export.ers_csv(plain, "FRA", last)
    assert export.ers_csv(live, "FRA", (2, 3)) == export.ers_csv(plain, "FRA", (2, 3))


def test_an_older_releases_awards_table_gets_each_awards_hash_from_its_event(ledger):
    """Migrating a store whose awards' rows were written without their events' hashes (the release before)
    fills them from the events; the victory view writes them with every award after; the victory export reads
    none out of the events and is the one gathered from them. Before the migration (the service role of a store
    not migrated yet) the same export reads them from the events."""
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "older", 400, seed=8, turn_size=70)
    [state] = ledger.campaigns()
    Projector(ledger).catch_up()
    db = ViewDB(ledger.recorder)
    with db.transaction() as cur:
        cur.execute(db.sql("ALTER TABLE {proj_awards} DROP COLUMN hash"))
    older = ViewDB(ledger.recorder)  # the owner migrates at start (``ledger migrate``): the column is back, filled
    older.award_hashes = False  # as a service role that may not migrate sees such a table
    state = ledger.campaign(state.id)
    plain = gather(ledger, state.id, GM)
    expected = export.encode("victory", "csv", export.rows(plain, "victory", "FRA"))
    with db.transaction() as cur:
        cur.execute(db.sql("SELECT position, hash FROM {proj_awards} ORDER BY position"))
        stored = cur.fetchall()
    assert stored and all(r["hash"] == plain.hashes[int(r["position"])] for r in stored)

    unmigrated = Reader(ledger, older).history(state.id, GM, state)
    assert export.encode("victory", "csv", export.rows(unmigrated, "victory", "FRA")) == expected
    assert len(unmigrated.hashes) > 0, "the hashes read out of the events"

    ledger.submit(state.id, RecordTreasuryEntry, country="FRA", line="A9", amount=1, reason="after", actor=GM)
    Projector(ledger).catch_up()
    state = ledger.campaign(state.id)
    fast = Reader(ledger, ViewDB(ledger.recorder)).history(state.id, GM, state)
    assert export.encode("victory", "csv", export.rows(fast, "victory", "FRA")) == \
        export.encode("victory", "csv", export.rows(gather(ledger, state.id, GM), "victory", "FRA"))
    assert len(fast.hashes) == 0


def test_a_players_ers_export_reads_their_countrys_stored_sheets_and_never_anothers_hidden_figures(ledger):
    """Which countries' sheets a player's or an observer's seeded history computes from what they may see is
    taken from the sheets everyone sees (``budget_public``'s document: who is named in each country's hidden
    entries) and the tail after it, not from the country of every hidden entry: France, who sees all of its own
    hidden entries, reads its stored sheets; every country with an entry hidden from the caller is computed,
    and each export equals the one gathered from what the caller may see (England's secret never in France's),
    after an entry of France's hidden from France, one in the tail the views have not reached, and a reveal."""
    from ledger.domain import commands as cmd
    from projections.head import Reader
    from projections.runner import Projector
    from projections.store import ViewDB

    generate(ledger, "players", 400, seed=12, turn_size=60)
    [state] = ledger.campaigns()
    cid = state.id
    ledger.open_turn(cid, actor=GM)
    secret = ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=500, reason="secret subsidy",
                                          actor=GM, visibility={"scope": "countries", "countries": ["ENG"]})
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=40, reason="own secret", actor=GM,
                                 visibility={"scope": "countries", "countries": ["FRA"]})
    Projector(ledger).catch_up()
    observer = Actor("olga", "observer")

    def same(actor, countries=("FRA", "ENG")):
        state = ledger.campaign(cid)
        reader = Reader(ledger, ViewDB(ledger.recorder))
        fast, plain = reader._seeded_history(cid, actor, state), gather(ledger, cid, actor)
        assert fast is not None
        for country in countries:
            assert export.ers_csv(fast, country) == export.ers_csv(plain, country), (actor.id, country)
        return reader._affected_by_hidden(cid, actor, state)

    affected = same(FRANCE)
    assert affected is not None and "FRA" not in affected and "ENG" in affected
    assert same(observer) >= {"FRA", "ENG"}
    state = ledger.campaign(cid)
    gm_history, france = gather(ledger, cid, GM), gather(ledger, cid, FRANCE)
    assert export.ers_csv(gm_history, "ENG") != export.ers_csv(france, "ENG")  # England's 500 is not France's

    # An entry of France's only the game masters see: France's sheets are computed from what France sees.
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=70, reason="gm only", actor=GM,
                                 visibility={"scope": "gm"})
    assert "FRA" in same(FRANCE)  # in the tail the views have not reached
    Projector(ledger).catch_up()
    assert "FRA" in same(FRANCE)
    ledger.handle(cid, cmd.RevealEvent(position=secret.events[0]["position"], reason="end of turn"), actor=GM)
    same(FRANCE)
    Projector(ledger).catch_up()
    same(FRANCE)
