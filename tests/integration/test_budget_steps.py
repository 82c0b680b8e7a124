"""The turn page's ERS changes of a treasury entry, from its country's inputs (a snapshot and a bounded tail,
``projections.budget_steps``), are those of the budget of every event before it, for a game master and for a
player (who does not see the other countries' hidden entries), at every entry of a generated campaign, in
random order (the memo kept between steps must not leak one step's sheets into another)."""

from __future__ import annotations

import random

import orjson
import pytest

from ledger.application import Actor
from ops.generate_campaign import generate
from projections import budget_steps, words
from projections.head import Reader
from projections.read import records, visible
from projections.runner import Projector

GM, FRANCE = Actor("gm", "gm"), Actor("fra", "player", "FRA")


@pytest.fixture
def generated(ledger, monkeypatch):
    monkeypatch.setattr(budget_steps, "EVERY", 7)  # snapshots every 7 events, so a short campaign uses many
    generate(ledger, "steps", 700, seed=3, turn_size=80)
    [state] = ledger.campaigns()
    return state


@pytest.mark.parametrize("actor", [GM, FRANCE], ids=["gm", "player"])
def test_an_entrys_ers_changes_from_its_countrys_snapshot_equal_those_of_every_event_before_it(ledger, generated,
                                                                                                  actor):
    state = generated
    reader = Reader(ledger, Projector(ledger).db)
    entries = [r for r in visible(actor, records(ledger, state.id), state.revealed)
               if r.type == "TreasuryEntryRecorded"]
    assert len(entries) > 30
    random.Random(1).shuffle(entries)
    for r in entries[:40]:
        expected = words.budget_changes(reader.budget_events(state.id, actor, state, r.position - 1), r)
        assert reader.budget_changes(state.id, actor, state, r) == expected, r.position
        assert expected and all(c["country"] == r.data["country"] for c in expected)
    # Appended since: the kept inputs take the tail.
    ledger.open_turn(state.id, actor=GM)
    ledger.record_treasury_entry(state.id, country="FRA", line="A9", amount=7, reason="looting", actor=GM)
    state = ledger.campaign(state.id)
    [r] = records(ledger, state.id, state.version - 1, state.version)
    expected = words.budget_changes(reader.budget_events(state.id, actor, state, r.position - 1), r)
    assert reader.budget_changes(state.id, actor, state, r) == expected != []


def changes_from_event_1(reader, state, actor, r):
    return words.budget_changes(reader.budget_events(state.id, actor, state, r.position - 1), r)


def entries_of(ledger, state, actor):
    return [r for r in visible(actor, records(ledger, state.id), state.revealed) if r.type == "TreasuryEntryRecorded"]


@pytest.fixture
def seeded(monkeypatch):
    """Counts the steps whose changes came from the budget view's stored sheets, or from the sheets everyone sees
    (``budget_public``: a player's step at another country's entry); ``public`` lists the latter alone."""
    used, public = _Used(), []
    real, real_public = budget_steps.stored_seeds, Reader._public_seeds

    def counting(*args):
        found = real(*args)
        used.append(found is not None)
        return found

    def counting_public(self, *args):
        found = real_public(self, *args)
        if found is not None:
            used.append(True)
            public.append(True)
        return found

    monkeypatch.setattr(budget_steps, "stored_seeds", counting)
    monkeypatch.setattr(Reader, "_public_seeds", counting_public)
    used.public = public
    return used


class _Used(list):
    public: list[bool]


@pytest.mark.parametrize("actor", [GM, FRANCE], ids=["gm", "player"])
def test_an_entrys_ers_changes_from_the_stored_sheets_before_its_turn_equal_those_of_every_event_before_it(
        ledger, generated, actor, seeded):
    """The turn page's path (``every``: the turn's records): the three stored sheets before the entry's turn
    and the turn's events, in a fresh reader (nothing gathered), equal the budget of every event before it."""
    state = generated
    # An entry for an earlier turn, recorded last: the stored sheets of that turn and later ones are not those
    # as of the earlier entries, which must not take them.
    ledger.record_treasury_entry(state.id, country="FRA", line="A9", amount=11, reason="late looting", turn=2,
                                 actor=GM)
    state = ledger.campaign(state.id)
    Projector(ledger).catch_up()
    entries = entries_of(ledger, state, actor)
    random.Random(2).shuffle(entries)
    for r in entries[:40]:
        reader = Reader(ledger, Projector(ledger).db)
        every = reader.turn_records(state.id, r.turn, state.version)
        assert reader.budget_changes(state.id, actor, state, r, every) == changes_from_event_1(reader, state, actor, r), \
            r.position
    # Most came from the stored sheets (the player's own country's; the others' book entries hidden from them,
    # which the comparison above catches when the stored sheets are taken anyway).
    assert seeded.count(True) > 5


def test_a_stored_sheet_that_is_not_the_one_before_the_entry_would_show_other_changes(ledger, generated,
                                                                                       monkeypatch):
    """The comparison above can fail: a stored treasury (A33, next turn's A1) other than the one before the
    entry changes the totals the page shows."""
    state = generated
    Projector(ledger).catch_up()
    real = budget_steps.stored_seeds

    def treasury_off(*args):
        found = real(*args)
        return found and {k: (a, b, c, {**lines, "A33": lines["A33"] + 100}) for k, (a, b, c, lines) in found.items()}

    monkeypatch.setattr(budget_steps, "stored_seeds", treasury_off)
    reader = Reader(ledger, Projector(ledger).db)
    late = [r for r in entries_of(ledger, state, GM) if r.turn and r.turn > 2][:10]
    differ = [r.position for r in late if reader.budget_changes(state.id, GM, state, r,
                                                                 reader.turn_records(state.id, r.turn, state.version))
              != changes_from_event_1(reader, state, GM, r)]
    assert differ


def test_after_a_correction_an_entrys_ers_changes_come_from_every_event_before_it(ledger, generated, seeded):
    state = generated
    [first, *_] = entries_of(ledger, state, GM)
    ledger.record_correction(state.id, corrects=first.position, replacement={"amount": 99}, reason="misread",
                             actor=GM)
    state = ledger.campaign(state.id)
    Projector(ledger).catch_up()
    reader = Reader(ledger, Projector(ledger).db)
    for r in entries_of(ledger, state, GM)[-15:]:
        every = reader.turn_records(state.id, r.turn, state.version)
        assert reader.budget_changes(state.id, GM, state, r, every) == changes_from_event_1(reader, state, GM, r)
    assert True not in seeded  # a correction may move an entry between sheets: the stored ones are not used


@pytest.mark.parametrize("actor", [GM, FRANCE], ids=["gm", "player"])
def test_closing_a_phase_changes_no_ers_amount_as_the_budget_of_every_event_before_it_says(ledger, generated, actor):
    """The page answers a phase's close without gathering the history: the budget of every event before it and
    with it agree on every amount, entries in the phase or not."""
    from ledger.economy.milestones import PHASES

    state = generated
    ledger.open_turn(state.id, actor=GM)
    for i, phase in enumerate(PHASES):
        ledger.record_treasury_entry(state.id, country="FRA", line="A9", amount=5 + i, reason="looting", actor=GM)
        ledger.close_phase(state.id, phase, actor=GM)
    state = ledger.campaign(state.id)
    Projector(ledger).catch_up()
    reader = Reader(ledger, Projector(ledger).db)
    closes = [r for r in visible(actor, records(ledger, state.id), state.revealed)
              if r.type == "PhaseClosed" and r.turn == state.turn]  # this turn's (the generator closes its own)
    assert len(closes) == len(PHASES)
    for r in closes:
        every = reader.turn_records(state.id, r.turn, state.version)
        assert reader.budget_changes(state.id, actor, state, r, every) == changes_from_event_1(reader, state, actor, r)


def test_a_kept_lineage_moved_with_the_view_books_what_the_view_booked_since(ledger, generated):
    """The lineage of a country's stored sheets, kept at one view position and moved with the entries the view
    took since (``Reader._lineage_moved``: a live turn page does not read every stored sheet of the country after
    each append), lists every position the stored lineage at the new position lists, on the same turn; a
    correction among them sends it back to the store."""
    from ledger.domain import commands as cmd

    state = generated
    projector = Projector(ledger)
    projector.catch_up()
    reader = Reader(ledger, projector.db)
    db, campaign = projector.db, str(state.id)
    with db.reading() as cur:
        view = budget_steps.view_position(db, cur, campaign)
        kept = {c: budget_steps.lineage(db, cur, campaign, c, view) for c in ("FRA", "ENG")}
    turn = state.turn
    for country, line, at in (("FRA", "A9", turn), ("FRA", "A9", 2), ("ENG", "B40", turn), ("FRA", "A1", turn)):
        ledger.record_treasury_entry(state.id, country=country, line=line, amount=5, reason="after", turn=at, actor=GM)
    projector.catch_up()
    with db.reading() as cur:
        moved_to = budget_steps.view_position(db, cur, campaign)
        for country in ("FRA", "ENG"):
            stored = budget_steps.lineage(db, cur, campaign, country, moved_to)
            moved = reader._lineage_moved(state.id, country, kept[country], moved_to)
            assert moved is not None and moved.view == moved_to
            for t, found in stored.by_turn.items():
                assert set(found) <= set(moved.by_turn.get(t, ())), (country, t)
            assert moved.first_turn_with([p for found in stored.by_turn.values() for p in found]) == \
                stored.first_turn_with([p for found in stored.by_turn.values() for p in found])
    [entry] = [r for r in records(ledger, state.id) if r.type == "TreasuryEntryRecorded"][-1:]
    ledger.handle(state.id, cmd.RecordCorrection(corrects=entry.position, reason="disputed", replacement=None),
                  actor=GM)
    projector.catch_up()
    with db.reading() as cur:
        assert reader._lineage_moved(state.id, "FRA", kept["FRA"], budget_steps.view_position(db, cur, campaign)) \
            is None



def plan_of(db, statement, args):
    """The store's plan of a statement, as one text; PostgreSQL is told to avoid scans (a test campaign is small
    enough to scan): the question is whether the index can serve it."""
    with db.reading() as cur:
        if db.postgres:
            cur.execute("SET enable_seqscan = off")
            cur.execute("EXPLAIN " + statement, args)
            plan = " ".join(str(v) for r in cur.fetchall() for v in r.values())
            cur.execute("RESET enable_seqscan")
            return plan
        cur.execute("EXPLAIN QUERY PLAN " + statement, args)
        return " ".join(str(r[k]) for r in cur.fetchall() for k in r.keys())


def test_a_countrys_lineage_lists_the_entries_its_sheets_book_and_is_read_from_the_entered_lines_index(
        ledger, generated):
    """Which entries each sheet books (``budget_steps.lineage``) is every stored line's ``events``, read through
    the partial index of the lines that name some (a first turn page's ERS step scanned the campaign's budget
    rows without it); tables made before the index get it from their owner."""
    from projections import budget_view

    state = generated
    projector = Projector(ledger)
    projector.catch_up()
    db, campaign = projector.db, str(state.id)
    table, ph = db.t("proj_budget"), db.ph
    class Told:  # the cursor, keeping the statement the lineage runs
        def __init__(self, cur):
            self.cur, self.statements = cur, []

        def execute(self, statement, args=()):
            self.statements.append(statement)
            return self.cur.execute(statement, args)

        def fetchall(self):
            return self.cur.fetchall()

    with db.reading() as cur:
        view = budget_steps.view_position(db, cur, campaign)
        told = Told(cur)
        found = budget_steps.lineage(db, told, campaign, "FRA", view)
        cur.execute(f"SELECT turn, events FROM {table} WHERE campaign = {ph} AND country = {ph}", (campaign, "FRA"))
        every = {}
        for r in cur.fetchall():
            every.setdefault(int(r["turn"]), []).extend(orjson.loads(r["events"]))
    # Rows come in no given order: a sheet's positions compare as sorted lists (a line lists each once).
    assert {t: sorted(p) for t, p in found.by_turn.items()} == {t: sorted(p) for t, p in every.items() if p}
    assert len(found.by_turn) > 3
    [statement] = told.statements
    assert budget_view.ENTERED_INDEX in plan_of(db, statement, (campaign, "FRA"))
    with db.transaction() as cur:
        cur.execute(f'DROP INDEX {f"{chr(34)}{db.schema}{chr(34)}." if db.postgres else ""}{budget_view.ENTERED_INDEX}')
    assert budget_view.ENTERED_INDEX not in plan_of(db, statement, (campaign, "FRA"))
    budget_view.create_tables(db)
    assert budget_view.ENTERED_INDEX in plan_of(db, statement, (campaign, "FRA"))


OBSERVER = Actor("obs", "observer")
ENGLAND_ONLY = {"scope": "countries", "countries": ["ENG"]}
SHOWN_TO_FRANCE = {"scope": "countries", "countries": ["SPA", "FRA"]}


def test_a_players_step_at_another_countrys_entry_from_the_sheets_everyone_sees_shows_no_hidden_figure(
        ledger, generated, seeded):
    """A player's step at another country's entry, and an observer's, take the three sheets before its turn from
    the sheets everyone sees (``budget_public``) when the other country's hidden entries are hidden from them:
    the changes are those of every event they may see, never the game master's (England's secret 500 carried
    into the treasury); a player shown a hidden entry of that country (France, Spain's) does not take them;
    after a reveal (the view behind it, then caught up) and a correction the changes stay equal."""
    from ledger.domain import commands as cmd

    state = generated
    ledger.open_turn(state.id, actor=GM)
    turn = ledger.campaign(state.id).turn
    for country, amount, at, visibility in (("ENG", 500, turn - 2, ENGLAND_ONLY), ("ENG", 7, None, None),
                                            ("SPA", 300, turn - 1, SHOWN_TO_FRANCE), ("SPA", 5, None, None)):
        ledger.record_treasury_entry(state.id, country=country, line="A9", amount=amount, reason="subsidy",
                                     turn=at, actor=GM, **({"visibility": visibility} if visibility else {}))
    Projector(ledger).catch_up()
    state = ledger.campaign(state.id)
    [secret, eng, _, spa] = [r for r in records(ledger, state.id) if r.type == "TreasuryEntryRecorded"][-4:]

    def step(actor, r, state):
        reader = Reader(ledger, Projector(ledger).db)  # a fresh process's first page
        found = reader.budget_changes(state.id, actor, state, r, reader.turn_records(state.id, r.turn, state.version))
        assert found == changes_from_event_1(reader, state, actor, r), (actor.id, r.position)
        return found

    mine = step(FRANCE, eng, state)
    assert mine != step(GM, eng, state)  # the game master's carry England's secret 500: France's must not
    assert seeded.public == [True]
    step(FRANCE, spa, state)  # France sees one of Spain's hidden entries: not from the sheets everyone sees
    assert seeded.public == [True]
    step(OBSERVER, spa, state)
    assert seeded.public == [True, True]

    # A reveal: while the views are behind it, read as before; once caught up, the sheets everyone sees hold it.
    ledger.handle(state.id, cmd.RevealEvent(position=secret.position, reason="end of turn"), actor=GM)
    state = ledger.campaign(state.id)
    revealed = step(FRANCE, eng, state)
    assert revealed != mine  # the secret 500 is France's to see now
    assert seeded.public == [True, True]
    Projector(ledger).catch_up()
    assert step(FRANCE, eng, ledger.campaign(state.id)) == revealed
    assert seeded.public == [True, True, True]

    # A correction may move an entry between countries: every step read as before, equal all the same.
    ledger.handle(state.id, cmd.RecordCorrection(corrects=spa.position, reason="booked for England",
                                                 replacement={"country": "ENG", "amount": 21}), actor=GM)
    Projector(ledger).catch_up()
    step(FRANCE, eng, ledger.campaign(state.id))
    step(OBSERVER, spa, ledger.campaign(state.id))
    assert seeded.public == [True, True, True]
