"""ledger.economy.sheets (pure) and ledger.economy.entries (effects → treasury entries), without a store."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from ledger.domain.errors import InvalidInput
from ledger.economy.entries import entries_from_ruling
from ledger.rules.core import FixedDice, get_ruleset
from ledger.economy.sheets import budget, sheet_json


class Ev:
    """A stand-in for a stored record: type, position, data."""

    def __init__(self, kind, position, **data):
        self.type, self.position, self.data = kind, position, {"visibility": {"scope": "public"}, **data}


def campaign(*more, countries=("FRA",), settings=None):
    events = [Ev("CampaignCreated", 1, countries=list(countries), settings=settings or {}),
              Ev("TurnOpened", 2, turn=1)]
    return events + [Ev(k, n, **d) for n, (k, d) in enumerate(more, start=3)]


def entry(line, amount, turn=1, country="FRA"):
    return ("TreasuryEntryRecorded", {"country": country, "turn": turn, "line": line, "amount": amount,
                                      "reason": "test", "source": None})


def test_entries_on_a_line_add_up_and_lineage_names_each_event():
    b = budget(campaign(entry("A1", 100), entry("A9", 37), entry("A9", 12)))
    cells = b.sheet("FRA", 1).cells
    assert cells["A9"].value == 49 and cells["A9"].events == (4, 5)
    assert cells["A13"].value == 149 and cells["A13"].sources == ("A8", "A9", "A10", "A12")
    assert cells["A13"].kind == "derived" and cells["A13"].events == ()


def test_on_a_percentage_box_the_latest_entry_stands():
    b = budget(campaign(entry("A1", 0), entry("B1", 200), entry("A15_pct", 30), entry("A15_pct", 40)))
    cells = b.sheet("FRA", 1).cells
    assert (cells["A15_pct"].value, cells["A15_pct"].events, cells["A15"].value) == (40, (6,), 80)


def test_a_correction_replaces_the_amount_and_joins_the_lineage():
    events = campaign(entry("A1", 100), entry("A9", 35),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "loot was 30", "replacement": {"amount": 30}}))
    a9 = budget(events).sheet("FRA", 1).cells["A9"]
    assert (a9.value, a9.events) == (30, (4, 5))


def test_the_latest_correction_wins_and_one_without_replacement_strikes_the_entry():
    events = campaign(entry("A1", 100), entry("A9", 35),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "x", "replacement": {"amount": 30}}),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "never happened", "replacement": None}))
    assert budget(events).sheet("FRA", 1).cells["A9"].value == 0


def test_a_correction_can_move_an_entry_to_another_line():
    events = campaign(entry("A1", 100), entry("A9", 35),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "gold, not loot",
                                              "replacement": {"line": "A10"}}))
    cells = budget(events).sheet("FRA", 1).cells
    assert (cells["A9"].value, cells["A10"].value, cells["A10"].events) == (0, 35, (4, 5))


def test_a_malformed_correction_is_reported_not_applied():
    events = campaign(entry("A1", 100), entry("A9", 35),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "x", "replacement": {"amount": "30"}}))
    b = budget(events)
    assert b.sheet("FRA", 1).cells["A9"].value == 35
    assert b.corrections_unapplied == ({"position": 5, "corrects": 4, "reason": "amount must be a whole number"},)


def test_a_second_turn_carries_the_treasury_and_a_carried_line_entered_is_unbooked():
    events = campaign(entry("A1", 100), entry("A5", 20), ("TurnOpened", {"turn": 2}), entry("A1", 999, turn=2))
    b = budget(events)
    turn2 = b.sheet("FRA", 2)
    assert turn2.cells["A1"].value == 80 and turn2.cells["A1"].sources == ("A33[t-1]",)
    [skipped] = turn2.unbooked
    assert skipped["line"] == "A1" and skipped["positions"] == [6] and "carried" in skipped["reason"]


def test_the_scenario_gives_the_starting_treasury():
    events = campaign(("ScenarioImported", {"scenario": {"countries": [{"code": "FRA", "treasury": 120}]}}))
    a1 = budget(events).sheet("FRA", 1).cells["A1"]
    assert (a1.value, a1.events) == (120, (3,))


def test_a_sheet_that_cannot_be_computed_says_why_and_so_do_the_turns_after_it():
    b = budget(campaign(("TurnOpened", {"turn": 2})))
    assert b.sheet("FRA", 1).cells is None and b.sheet("FRA", 1).error["field"] == "A1"
    assert b.sheet("FRA", 2).error["message"] == "turn 1's sheet could not be computed"


def test_entries_on_derived_lines_are_unbooked_not_fatal():
    b = budget(campaign(entry("A1", 10), entry("A13", 500)))
    sheet = b.sheet("FRA", 1)
    assert sheet.cells["A13"].value == 10
    assert sheet.unbooked[0]["line"] == "A13" and "computed by the sheet" in sheet.unbooked[0]["reason"]


def test_a_phase_close_of_an_older_history_lends_no_country_its_figures():
    """An older history's public PhaseClosed carried every country's figures: the budget reads the phase from
    it, never the figures (a rival's treasury is not everyone's)."""
    events = campaign(entry("A1", 100), ("PhaseClosed", {"turn": 1, "phase": "diplomacy",
                                                        "ers": {"FRA": {"A8": 90}}}))
    sheet = budget(events).sheet("FRA", 1)
    assert sheet.phases_closed == ("diplomacy",)
    assert sheet.cells["A8"].value == 100 and sheet.cells["A8"].at_close is None


def test_period_starts_and_variants_come_from_the_campaign_settings():
    settings = {"period_start_turns": [2], "ers_variants": ["inflation_minimum_loss"]}
    events = campaign(entry("A1", 40), entry("B1", 100), entry("A32_pct", 5), ("TurnOpened", {"turn": 2}),
                      entry("B1", 50, turn=2), settings=settings)
    b = budget(events)
    assert b.sheet("FRA", 1).cells["A32"].value == 5  # at least the percentage, in ducats (2020)
    turn2 = b.sheet("FRA", 2).cells
    assert turn2["A28"].value == turn2["A27"].value == 50  # the period restarts


def test_sheet_json_lists_every_line_with_its_origin():
    doc = sheet_json(budget(campaign(entry("A1", 100), entry("B40", 2))).sheet("FRA", 1))
    lines = {line["code"]: line for line in doc["lines"]}
    assert len(lines) == 95
    assert lines["B40"] | {} == {**lines["B40"], "kind": "entered", "amount": 20, "ticks": 2, "events": [4]}
    assert lines["B47"]["kind"] == "derived" and lines["B47"]["sources"][0] == "B40"


def test_budget_reads_domain_events_as_well():
    from datetime import UTC, datetime
    from uuid import UUID

    from ledger.domain import events as ev

    def make(cls, position, **payload):
        return cls(originator_id=UUID(int=1), originator_version=position, timestamp=datetime.now(UTC), schema=1, context={}, actor={}, visibility={"scope": "public"}, prev_hash="",
                   hash="", **payload)

    events = [make(ev.CampaignCreated, 1, name="x", slug="x", ruleset="eu", ruleset_version="1", countries=["FRA"],
                   players={}, game_masters=[], settings={}),
              make(ev.TurnOpened, 2, turn=1, commitment=""),
              make(ev.TreasuryEntryRecorded, 3, country="FRA", turn=1, line="A1", amount=77, reason="r",
                   source=None)]
    assert budget(events).sheet("FRA", 1).cells["A33"].value == 77


# --------------------------------------------------------------------------- effects → entries


def resolve(code, inputs, dice=()):
    return get_ruleset("eu").get(code).resolve(inputs, FixedDice(list(dice))).model_dump(mode="json")


def test_campaign_ticks_are_booked_as_ticks():
    doc = resolve("M8", {"country": "FRA", "land": "major", "extended_from": "active"})
    entries, _ = entries_from_ruling(doc, procedure="M8", ruleset="eu", countries=("FRA",))
    assert [(e.line, e.amount) for e in entries] == [("B41", -1), ("B42", 1)]
    assert entries[1].reason.startswith("M8 Campaign choice and cost: extended campaign upgraded")


def _ruling(*effects):
    return {"title": "t", "effects": [{"kind": "ducats", "country": "FRA", "detail": {}, **e} for e in effects]}


@pytest.mark.parametrize("effect, message", [
    ({"ers_line": "A9", "amount": "37/2"}, "not a whole number"),
    ({"ers_line": "A13", "amount": "5"}, "computed by the sheet"),
    ({"ers_line": "B40", "amount": "10"}, "counts campaign ticks"),
    ({"kind": "ers_tick", "ers_line": "B41", "amount": "30", "detail": {"ticks": 1}}, "not whole ticks"),
    ({"ers_line": "A9", "amount": "5", "country": None}, "names no country"),
])
def test_effects_the_sheet_cannot_carry_are_refused(effect, message):
    with pytest.raises(InvalidInput, match=message) as e:
        entries_from_ruling(_ruling(effect), procedure="X1", ruleset="eu", countries=("FRA",))
    assert e.value.field == "effects[0]" and e.value.rule == "eu:ERS"


def test_effects_for_a_minor_are_left_unbooked():
    entries, unbooked = entries_from_ruling(_ruling({"ers_line": "A30", "amount": "-75", "country": "HAB"},
                                                    {"ers_line": "A30", "amount": str(Fraction(75))}),
                                            procedure="P4", ruleset="eu", countries=("FRA",))
    assert [(e.country, e.amount) for e in entries] == [("FRA", 75)]
    assert unbooked[0]["country"] == "HAB" and unbooked[0]["effect"] == 0


def test_a_correction_to_a_turn_never_opened_builds_no_sheet_for_it():
    events = campaign(entry("A1", 100), entry("A9", 35),
                      ("CorrectionRecorded", {"corrects": 4, "reason": "x", "replacement": {"turn": 10**12}}))
    b = budget(events)
    assert b.turns == 1 and list(b.sheets) == [("FRA", 1)]
    assert b.sheet("FRA", 1).cells["A9"].value == 0


# --------------------------------------------------------------------------- incremental = from scratch

_lines = st.sampled_from(["A1", "A9", "A10", "A12", "A15_pct", "B41", "A13", "Z9"])
_step = st.one_of(
    st.tuples(st.just("entry"), _lines, st.integers(-20, 60), st.integers(1, 3), st.sampled_from(["FRA", "ENG"])),
    st.tuples(st.just("turn")),
    st.tuples(st.just("fix"), st.integers(0, 40), st.one_of(
        st.none(), st.fixed_dictionaries({"amount": st.integers(0, 50)}),
        st.fixed_dictionaries({"turn": st.integers(1, 3), "country": st.sampled_from(["FRA", "ENG"])}),
        st.fixed_dictionaries({"line": _lines}))),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_step, max_size=40))
def test_the_budget_kept_incrementally_with_a_memo_equals_the_budget_from_scratch(steps):
    """projections.budget_view keeps Inputs and a memo across batches: after every event it must agree with
    budget(events) computed from the first event, whatever entries and corrections came in between."""
    from ledger.economy.sheets import Inputs, compute

    events = campaign(("ScenarioImported", {"scenario": {"countries": [{"code": "FRA", "treasury": 50},
                                                                       {"code": "ENG", "treasury": 70}]}}),
                      countries=("FRA", "ENG"))
    inputs, memo, turn = Inputs(), {}, 1
    for e in events:
        inputs.add(e.type, e.position, e.data)
    entries: list[int] = []
    for n, step in enumerate(steps, start=len(events) + 1):
        if step[0] == "entry":
            _, line, amount, t, country = step
            e = Ev("TreasuryEntryRecorded", n, country=country, turn=t, line=line, amount=amount, reason="r")
            entries.append(n)
        elif step[0] == "turn":
            turn += 1
            e = Ev("TurnOpened", n, turn=turn)
        else:
            _, which, replacement = step
            if not entries:
                continue
            e = Ev("CorrectionRecorded", n, corrects=entries[which % len(entries)], replacement=replacement)
        events.append(e)
        inputs.add(e.type, e.position, e.data)
        kept = compute(inputs, memo=memo)
        fresh = budget(events)
        assert {k: sheet_json(s) for k, s in kept.sheets.items()} == {k: sheet_json(s) for k, s in fresh.sheets.items()}


def test_cells_are_those_of_the_sheets_line_values():
    """``compute`` builds each cell from the amounts and the sheet's plan (``sheet_lines``), not from
    ``compute_sheet``'s ``LineValue``s: the same cells, over turns, ticks, a phase closed and a carried line."""
    from ledger.economy.sheets import Cell, _cell
    from ledger.rules.eu.ers import compute_sheet

    b = budget(campaign(entry("A1", 100), entry("A9", 37), entry("A9", 12), entry("B40", 2), entry("A9", -500),
                        ("PhaseClosed", {"turn": 1, "phase": "economic", "ers": {"FRA": {"A13": 149}}}),
                        ("TurnOpened", {"turn": 2}), entry("A9", 5, turn=2)))
    previous = None
    for turn in (1, 2):
        cells = b.sheet("FRA", turn).cells
        entered = {c.code: c.ticks if c.ticks is not None else c.value for c in cells.values() if c.events}
        full = compute_sheet(entered, previous)
        assert list(cells) == list(full)
        for code, lv in full.items():
            c = cells[code]
            assert (c.code, c.name, c.sheet, c.kind, c.value, c.ticks, c.formula, c.sources, c.defaulted, c.alert) == (
                lv.code, lv.name, lv.sheet, lv.kind, lv.value, lv.ticks, lv.formula, lv.sources, lv.defaulted,
                lv.alert)
            assert bool(c.events) == lv.entered
        previous = full
    assert b.sheet("FRA", 1).cells["B40"].ticks == 2
    fields = ("A9", "n", "s", "entered", "ducats", 3, None, "A1 + 1", ("A1",), (4, 5), False, "low", {"value": 1})
    assert _cell(*fields) == Cell(*fields)
