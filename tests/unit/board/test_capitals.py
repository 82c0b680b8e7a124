"""The 1492 scenario's countries with their capitals and national provinces, from the board data: a major
power's capital is the province printed as a capital that it owns (R_COUNTRY_PROVINCE_EU_CAPITALS lists
none for them); national provinces are the board's R_COUNTRY_PROVINCE_EU (none for the majors)."""

from __future__ import annotations

import pytest

from ledger.board import load_board
from ledger.scenario import ScenarioError, load_text, normalise, parse

MAJORS = {"ENG": "East Anglia", "FRA": "Ile-de-France", "SPA": "Castilla La Nueva", "POR": "Tejo",
          "VEN": "Veneto", "TUR": "Trakya", "POL": "Malopolska", "RUS": "Moskva"}


def countries_of(name: str) -> dict[str, dict]:
    return {c["code"]: c for c in normalise(parse(load_text(name))[0])["countries"]}


def test_the_eight_major_powers_of_1492_have_their_printed_capitals():
    countries = countries_of("eu-1492")
    board = load_board("eu")
    assert {c: countries[c].get("capitals") for c in MAJORS} == {c: [p] for c, p in MAJORS.items()}
    for code, capital in MAJORS.items():
        assert board.province(capital).capital and board.province(capital).owner == code
        assert "national_provinces" not in countries[code]  # the board lists none for the majors


def test_a_minors_capital_and_national_provinces_are_the_boards_tables():
    board = load_board("eu")
    for code, c in countries_of("eu-1492").items():
        assert c.get("national_provinces", []) == list(board.country(code).national_provinces)
        if board.country(code).capitals:
            assert c["capitals"] == list(board.country(code).capitals)


def test_a_capital_that_is_not_a_province_of_the_scenario_is_refused_naming_the_line():
    text = load_text("sample").replace("{code: FRA, name: France,", "{code: FRA, capitals: [Paris], name: France,")
    with pytest.raises(ScenarioError) as info:
        parse(text)
    assert info.value.field == "countries[1].capitals[0]" and "'Paris'" in info.value.message


def test_a_country_without_a_capital_records_what_it_recorded_before():
    assert all(set(c) == {"code", "name", "player", "treasury", "stability"} for c in countries_of("sample").values())
