"""Export rows and chart series from a hand-built history (no store): every number worked out by hand.

The history: ENG starts with 100 ducats and stability 1, FRA with 150 and 0,
inflation box 2. Turn 1: ENG enters A9 30 (position 4) and A9 12 (5), later
corrected to 10 (10); a battle (6) gives ENG 5 VP and FRA −1 stability.
Turn 2: FRA enters A5 20 (9); an I4 ruling (11) moves inflation to box 3 and
gives FRA 1/3 VP. Turn 3 opens. Nothing else is entered, so no sheet has
income or expenses: ENG A33 = 100 + 40 = 140 on every turn; FRA 150, then
150 − 20 = 130 (A5, diplomatic actions, is spent), then 130.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.domain.errors import InvalidInput
from projections import charts, export
from projections.history import from_records
from projections.records import Record


def rec(position: int, kind: str, context_turn: int | None = None, /, **data) -> Record:
    return Record("c", position, kind, {"context": {"turn": context_turn}, "visibility": {"scope": "public"},
                                        "hash": f"hash-{position}", **data})


def effect(kind: str, country: str | None = None, amount=None) -> dict:
    return {"kind": kind, "country": country, "amount": amount}


RECORDS = [
    rec(1, "CampaignCreated", countries=["ENG", "FRA"], settings={}),
    rec(2, "ScenarioImported", scenario={"countries": [{"code": "ENG", "treasury": 100, "stability": 1},
                                                       {"code": "FRA", "treasury": 150, "stability": 0}],
                                         "inflation": 2, "wars": []}),
    rec(3, "TurnOpened", 1, turn=1),
    rec(4, "TreasuryEntryRecorded", 1, country="ENG", turn=1, line="A9", amount=30, reason="loot"),
    rec(5, "TreasuryEntryRecorded", 1, country="ENG", turn=1, line="A9", amount=12, reason="privateers"),
    rec(6, "RulingRecorded", 1, procedure="M19", ruling={"title": "Battle", "effects": [
        effect("victory_points", "ENG", "5"), effect("stability_changed", "FRA", "-1")]}),
    rec(7, "TurnClosed", 1, turn=1),
    rec(8, "TurnOpened", 2, turn=2),
    rec(9, "TreasuryEntryRecorded", 2, country="FRA", turn=2, line="A5", amount=20, reason="diplomacy"),
    rec(10, "CorrectionRecorded", 2, corrects=5, reason="it was 10", replacement={"amount": 10}),
    rec(11, "RulingRecorded", 2, procedure="I4", ruling={"title": "Inflation", "effects": [
        effect("inflation_changed", None, 1), effect("victory_points", "FRA", "1/3")]}),
    rec(12, "TurnOpened", 3, turn=3),
]


@pytest.fixture(scope="module")
def history():
    return from_records("europa", ("ENG", "FRA"), 3, RECORDS)


def cell(history, country, turn, line):
    [row] = [r for r in export.ers_rows(history, country, (turn, turn)) if r["line"] == line]
    return row


def test_an_entered_cell_lists_its_entries_and_their_correction(history):
    a9 = cell(history, "ENG", 1, "A9")
    assert (a9["amount"], a9["kind"], a9["positions"]) == (40, "entered", [4, 5, 10])
    assert a9["hashes"] == ["hash-4", "hash-5", "hash-10"]


def test_a_derived_cell_unites_the_lineage_of_its_same_sheet_sources(history):
    a13 = cell(history, "ENG", 1, "A13")
    assert (a13["amount"], a13["kind"], a13["sources"]) == (140, "derived", ["A8", "A9", "A10", "A12"])
    assert a13["positions"] == [2, 4, 5, 10]  # A1 from the scenario (through A2, A8), A9's entries
    a1 = cell(history, "ENG", 2, "A1")
    assert (a1["amount"], a1["sources"], a1["positions"]) == (140, ["A33[t-1]"], [])  # not expanded


def test_treasury_at_the_end_of_each_turn_matches_the_hand_computation(history):
    assert [cell(history, "ENG", t, "A33")["amount"] for t in (1, 2, 3)] == [140, 140, 140]
    assert [cell(history, "FRA", t, "A33")["amount"] for t in (1, 2, 3)] == [150, 130, 130]


def test_wide_rows_are_the_long_rows_pivoted(history):
    long_rows = list(export.rows(history, "ers", include_defaulted=True))
    wide_rows = list(export.rows(history, "ers-wide"))
    assert [(r["country"], r["turn"]) for r in wide_rows] == [(c, t) for c in ("ENG", "FRA") for t in (1, 2, 3)]
    for w in wide_rows:
        mine = [r for r in long_rows if (r["country"], r["turn"]) == (w["country"], w["turn"])]
        # Columns are named by line and title ("A9 Pillages, privateers"): the code is the first word.
        assert {r["line"]: r["amount"] for r in mine} == {k.split()[0]: w[k] for k in export.columns("ers-wide")
                                                          if k not in ("campaign", "country", "turn", "positions")}
        assert {f"{r['line']} {r['name']}" for r in mine} <= set(w)
        assert w["positions"] == sorted({p for r in mine for p in r["positions"]})
    assert wide_rows[0]["positions"] == [2, 4, 5, 10]


def test_victory_rows_carry_points_running_totals_and_award_positions(history):
    got = [(r["country"], r["turn"], r["points"], r["total"], r["positions"]) for r in export.rows(history, "victory")]
    assert got == [("ENG", 1, 5, 5, [6]), ("ENG", 2, 0, 5, []), ("ENG", 3, 0, 5, []),
                   ("FRA", 1, 0, 0, []), ("FRA", 2, "1/3", "1/3", [11]), ("FRA", 3, 0, "1/3", [])]


def test_stability_and_inflation_rows_start_where_the_last_turn_ended(history):
    stab = [(r["country"], r["turn"], r["start"], r["end"], r["positions"]) for r in export.rows(history, "stability")]
    assert stab == [("ENG", 1, 1, 1, []), ("ENG", 2, 1, 1, []), ("ENG", 3, 1, 1, []),
                    ("FRA", 1, 0, -1, [6]), ("FRA", 2, -1, -1, []), ("FRA", 3, -1, -1, [])]
    infl = [(r["turn"], r["start"], r["end"], r["positions"], r["hashes"]) for r in export.rows(history, "inflation")]
    assert infl == [(1, 2, 2, [], []), (2, 2, 3, [11], ["hash-11"]), (3, 3, 3, [], [])]


def test_country_and_turn_filters_keep_only_the_asked_rows(history):
    rows = list(export.rows(history, "ers", "FRA", (2, 3), include_defaulted=True))
    assert {(r["country"], r["turn"]) for r in rows} == {("FRA", 2), ("FRA", 3)}
    assert len(rows) == 2 * len(export.columns("ers-wide")) - 2 * 4  # every line of two sheets
    entered = list(export.rows(history, "ers", "FRA", (2, 3)))  # without the lines left at their default
    assert entered == [r for r in rows if not r["defaulted"]] and len(entered) < len(rows)
    assert [r["turn"] for r in export.rows(history, "victory", "FRA", (2, 2))] == [2]
    assert [r["total"] for r in export.rows(history, "victory", "FRA", (3, 3))] == ["1/3"]  # total from turn 1


@pytest.mark.parametrize("text, expected", [(None, (0, 3)), ("2..3", (2, 3)), ("2..", (2, 3)), ("..2", (0, 2)),
                                            ("2", (2, 2))])
def test_turn_ranges_read_as_written(text, expected):
    assert export.parse_turns(text, 3) == expected


@pytest.mark.parametrize("text", ["0..4", "3..1", "a..b", "-1..2", "1...2"])
def test_turn_ranges_outside_the_opened_turns_name_the_field(text):
    with pytest.raises(InvalidInput) as e:
        export.parse_turns(text, 3)
    assert e.value.field == "turns"


def test_unknown_table_format_and_country_name_their_field(history):
    for call, field in ((lambda: export.rows(history, "budget"), "table"),
                        (lambda: export.encode("ers", "ods", []), "format"),
                        (lambda: export.rows(history, "ers", "SPA"), "country"),
                        (lambda: charts.chart_series(history, "pie"), "kind"),
                        (lambda: charts.chart_series(history, "ers"), "country")):
        with pytest.raises(InvalidInput) as e:
            call()
        assert e.value.field == field


def test_csv_has_a_header_no_index_and_space_separated_lineage(history):
    text = export.to_csv("ers", export.ers_rows(history, "ENG", (1, 1))).decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(export.COLUMNS["ers"])
    [a9] = [r for r in rows if r["line"] == "A9"]
    assert (a9["amount"], a9["positions"], a9["hashes"]) == ("40", "4 5 10", "hash-4 hash-5 hash-10")
    assert a9["defaulted"] == "false"


def test_parquet_keeps_lists_as_lists_and_fractions_as_doubles(history):
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(export.to_parquet("victory", export.rows(history, "victory", "FRA"))))
    assert table.column("total").to_pylist() == [0.0, pytest.approx(1 / 3), pytest.approx(1 / 3)]
    assert table.column("positions").to_pylist() == [[], [11], []]
    ers = pq.read_table(io.BytesIO(export.to_parquet("ers-wide", export.rows(history, "ers-wide", "ENG"))))
    assert ers.column(export.line_label("A33")).to_pylist() == [140, 140, 140]


# --------------------------------------------------------------------------- charts


def test_treasury_chart_plots_a1_and_a33_per_country(history):
    chart = charts.chart_series(history, "treasury")
    assert [(s.label, s.turns, s.values) for s in chart.series] == [
        ("ENG A1", (1, 2, 3), (100, 140, 140)), ("ENG A33", (1, 2, 3), (140, 140, 140)),
        ("FRA A1", (1, 2, 3), (150, 150, 130)), ("FRA A33", (1, 2, 3), (150, 130, 130))]


def test_victory_inflation_and_ers_charts_plot_the_exported_numbers(history):
    victory = charts.chart_series(history, "victory", turns=(1, 3))
    assert [(s.label, s.values) for s in victory.series] == [("ENG", (5, 5, 5)),
                                                             ("FRA", (0, pytest.approx(1 / 3), pytest.approx(1 / 3)))]
    assert charts.chart_series(history, "inflation").series[0].values == (2, 3, 3)
    ers = charts.chart_series(history, "ers", "FRA")
    assert (ers.stacked, [(s.label, s.values) for s in ers.series]) == (True, [("A5 Diplomatic actions", (0, 20, 0))])
    assert [s.values for s in charts.chart_series(history, "income").series] == [(0, 0, 0), (0, 0, 0)]


def test_the_svg_has_one_group_per_series_with_its_label_and_is_byte_stable(history):
    chart = charts.chart_series(history, "treasury")
    svg = charts.render(chart, "svg")
    assert svg == charts.render(chart, "svg")
    text = svg.decode()
    assert set(re.findall(r'id="series-(\d+)"', text)) == {"0", "1", "2", "3"}
    for label in ("ENG A1", "ENG A33", "FRA A1", "FRA A33", "europa: royal treasury"):
        assert label in text
    assert "<dc:date>" not in text
    stacked = charts.render(charts.chart_series(history, "ers", "ENG"), "svg").decode()
    assert set(re.findall(r'id="series-(\d+)-turn-(\d+)"', stacked)) == {("0", "1"), ("0", "2"), ("0", "3")}
    png = charts.render(chart, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == charts.render(chart, "png")


@given(st.fractions(max_denominator=12))
def test_an_awards_stored_points_read_back_as_the_exact_number_the_victory_view_wrote(points):
    """The victory view stores an award's points as text (``str``: "5", "-7/3"); a seeded history reads them
    back as ``plain`` numbers (whole ones as int, else the fraction's text), without a Fraction for whole ones."""
    from projections.history import _points
    from projections.records import plain

    found = _points(str(points))
    assert found == plain(points) and type(found) is type(plain(points))


# A sheet's lines as the lineage reads them: sources among a few codes (cycles and last turn's "X[t-1]" among
# them) and events or none.
_CODES = ["A1", "A2", "A3", "A4", "A5", "A6"]
_LINES = st.dictionaries(
    st.sampled_from(_CODES),
    st.tuples(st.lists(st.sampled_from([*_CODES, "A1[t-1]", "Z9"]), max_size=4).map(tuple),
              st.lists(st.integers(1, 30), max_size=4).map(tuple)),
    min_size=1)


@given(_LINES, _LINES)
def test_the_lineage_by_sheet_structure_is_the_walk_of_each_lines_sources(first, second):
    from types import SimpleNamespace

    for lines in (first, second, first):  # a structure met again takes its kept leaves
        cells = {code: SimpleNamespace(sources=sources, events=events) for code, (sources, events) in lines.items()}
        assert export.lineage(cells) == export.lineage_reference(cells)
