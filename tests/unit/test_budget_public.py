"""The ERS as everyone sees it (projections/budget_public.py): whatever the entries, their visibilities, the
reveals, the turns, the phases and where the view's pages end, a sheet rebuilt from what the view stored is the
sheet of every event its reader may see, for an observer and for every player the view's document does not
send back to the slow path (those named in a hidden event of that country's sheets)."""

from __future__ import annotations

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ledger.access import can_see
from ledger.application import Actor
from ledger.economy.sheets import RELEVANT, budget, sheet_json
from projections.budget_public import REVEALS, folded, sheet_of, trim
from projections.records import Record

COUNTRIES = ["ENG", "FRA", "SPA"]
PUBLIC = {"scope": "public"}
START = [("CampaignCreated", {"countries": COUNTRIES, "settings": {}}, PUBLIC),
         ("ScenarioImported", {"scenario": {"countries": [{"code": c, "treasury": 100} for c in COUNTRIES]}}, PUBLIC),
         ("TurnOpened", {"turn": 1}, PUBLIC)]
OBSERVER = Actor("obs", "observer")
PLAYERS = [Actor(c.lower(), "player", c) for c in COUNTRIES]

visibility = st.sampled_from([PUBLIC, PUBLIC, {"scope": "countries", "countries": ["ENG"]},
                              {"scope": "countries", "countries": ["FRA"]},
                              {"scope": "countries", "countries": ["FRA", "SPA"]}, {"scope": "gm"}])
entry = st.tuples(st.fixed_dictionaries({
    "country": st.sampled_from(COUNTRIES), "turn": st.integers(1, 5),
    # A2/B5 add up, A15_pct: the latest stands, A8 is derived and Z9 no line (both unbooked), A1 is carried
    # (unbooked after turn 1); a negative A5 breaks the sheet and every later one of the country.
    "line": st.sampled_from(["A2", "A2", "B5", "A15_pct", "A8", "Z9", "A5", "A1"]), "amount": st.integers(-20, 300),
    "reason": st.just("r")}), visibility)
step = st.one_of(
    st.tuples(st.just("TreasuryEntryRecorded"), entry),
    st.tuples(st.just("TreasuryEntryRecorded"), entry),
    st.tuples(st.just("TreasuryEntryRecorded"), entry),
    st.tuples(st.just("TurnOpened"), st.just(None)),
    st.tuples(st.just("PhaseClosed"), st.tuples(st.sampled_from(["E1", "E2"]), visibility)),
    st.tuples(st.just("VisibilityRevealed"), st.integers(0, 100)),
    st.tuples(st.just("SheetsPublished"), st.integers(1, 5)),
    st.tuples(st.just("ScenarioImported"), st.integers(0, 200)),
)


def records_of(steps) -> list[Record]:
    """A campaign's events: entries of opened turns only (the ledger refuses others), a phase of the open
    turn, reveals of earlier hidden events, a published turn's hidden entries, a scenario imported again."""
    out = [Record("c", i + 1, kind, {**data, "visibility": vis}) for i, (kind, data, vis) in enumerate(START)]
    turn = 1
    for kind, data in steps:
        hidden = [r.position for r in out if r.type in RELEVANT and r.visibility != PUBLIC]
        if kind == "TreasuryEntryRecorded":
            fields, vis = data
            if fields["turn"] > turn:
                continue
        elif kind == "TurnOpened":
            turn += 1
            fields, vis = {"turn": turn}, PUBLIC
        elif kind == "PhaseClosed":
            fields, vis = {"turn": turn, "phase": data[0], "ers": {"ENG": {"A2": 5}, "FRA": {"A1": 7}}}, data[1]
        elif kind == "VisibilityRevealed":
            if not hidden:
                continue
            fields, vis = {"revealed": hidden[data % len(hidden)], "reason": "shown"}, PUBLIC
        elif kind == "SheetsPublished":
            shown = [r.position for r in out if r.position in hidden and r.type == "TreasuryEntryRecorded"
                     and r.data["turn"] == data]
            fields, vis = {"turn": data, "countries": COUNTRIES, "positions": shown}, PUBLIC
        else:
            fields, vis = {"scenario": {"countries": [{"code": c, "treasury": data} for c in COUNTRIES[:2]]}}, PUBLIC
        out.append(Record("c", len(out) + 1, kind, {**fields, "visibility": vis}))
    return out


def their_budget(actor, records):
    """The definition: the budget of every event the actor may see (the reveals up to the head applied)."""
    revealed = {p for r in records if r.type in REVEALS
                for p in ([r.data["revealed"]] if r.type == "VisibilityRevealed" else r.data["positions"])}
    return budget([r for r in records if r.type in RELEVANT and can_see(actor, r, revealed)])


def _entry(line, amount, vis=PUBLIC, turn=1, country="ENG"):
    return ("TreasuryEntryRecorded", ({"country": country, "turn": turn, "line": line, "amount": amount,
                                       "reason": "r"}, vis))


ENGLAND_ONLY = {"scope": "countries", "countries": ["ENG"]}


@settings(max_examples=200, deadline=None)
@given(st.lists(step, max_size=45), st.lists(st.booleans(), min_size=50, max_size=50))
# A percentage box twice on one sheet: the latest entry stands. A hidden entry, revealed two turns later.
@example([_entry("A15_pct", 10), _entry("A15_pct", 20), ("TurnOpened", None)], [False] * 50)
@example([_entry("A2", 40, ENGLAND_ONLY), ("TurnOpened", None), _entry("A2", 7, turn=2), ("TurnOpened", None),
          ("VisibilityRevealed", 0), _entry("B5", 3, turn=1)], [True] * 50)
def test_a_sheet_from_the_stored_public_sheets_is_the_sheet_of_every_event_its_reader_may_see(steps, ends):
    records = records_of(steps)
    # The view: events one by one, its rows written at the end of each page (``ends``), a reveal of a hidden
    # event gathering the fold again from the events so far (as PublicBudgetView does from the store).
    fold, stored = folded(records[:3]), {}
    stored.update(fold.sheets())
    for i, r in enumerate(records[3:], start=3):
        if not fold.add(r.type, r.position, trim(r), r.visibility):
            digests, fold = fold.digests, folded(records[:i + 1])
            fold.digests = digests
        if ends[i % len(ends)] or i == len(records) - 1:
            stored.update(fold.sheets())
    rows = {key: orjson.loads(text) for key, text in stored.items()}
    doc = fold.doc(records[-1].position)
    turns = max(r.data["turn"] for r in records if r.type == "TurnOpened")
    everyone = their_budget(OBSERVER, records)
    assert set(rows) == set(everyone.sheets)  # no sheet left behind
    for (country, turn), row in rows.items():  # each stored amount is the observer's sheet's
        cells = everyone.sheet(country, turn).cells
        assert row["amounts"] == ({code: c.value for code, c in cells.items()} if cells else None), (country, turn)
    checked = 0
    for actor in (OBSERVER, *PLAYERS):
        want = their_budget(actor, records)
        for country in COUNTRIES:
            if actor.role == "player" and (actor.country == country or actor.country in
                                           {*doc["named"].get(country, ()), *doc["named"].get("*", ())}):
                continue  # they see more than everyone: read as before (head.Reader._country_sheet)
            for turn in range(1, turns + 1):
                found = sheet_of(records[0], country, turn, {t: rows[(c, t)] for c, t in rows if c == country}, [])
                expected = want.sheet(country, turn)
                if found is None:  # an earlier sheet could not be computed: read as before
                    assert any(want.sheet(country, t).error for t in range(max(1, turn - 3), turn)), (country, turn)
                    continue
                assert sheet_json(found) == sheet_json(expected), (actor.id, country, turn)
                checked += 1
    assert checked >= len(COUNTRIES)  # the observer's first sheets at least


def test_the_players_shown_a_hidden_entry_are_named_for_its_countrys_sheets_and_a_correction_stops_the_view():
    """``named``: who sees more of a country's sheets than everyone; ``unseen``: whose own player sees less."""
    allied = {"scope": "countries", "countries": ["FRA", "SPA"]}
    records = records_of([("TreasuryEntryRecorded", ({"country": "FRA", "turn": 1, "line": "A2", "amount": 5,
                                                      "reason": "r"}, allied)),
                          ("PhaseClosed", ("E1", {"scope": "countries", "countries": ["ENG"]}))])
    fold = folded(records)
    assert fold.doc(5)["named"] == {"FRA": ["FRA", "SPA"], "*": ["ENG"]}
    assert fold.doc(5)["unseen"] == ["*"]  # a phase hidden from every player but England's
    fold.add("TreasuryEntryRecorded", 6, {"country": "SPA", "turn": 1, "line": "A2", "amount": 1},
             {"scope": "countries", "countries": ["FRA"]})
    assert fold.doc(6)["unseen"] == ["*", "SPA"]  # Spain's entry shown to France, not to Spain
    assert fold.sheets()
    fold.add("CorrectionRecorded", 7, {"corrects": 4, "replacement": {"country": "ENG"}}, PUBLIC)
    assert fold.doc(7)["corrected"] and fold.sheets() == {}
