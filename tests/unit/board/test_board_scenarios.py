"""Scenarios on the real board: the 1492 start and the real corner validate; a board checks their places."""

from __future__ import annotations

import pytest

from ledger.board import load_board
from ledger.scenario import ScenarioError, load_text, normalise, parse

BOARD = load_board("eu")
MAJORS_1492 = ["ENG", "FRA", "SPA", "POR", "VEN", "TUR", "POL", "RUS"]


def test_1492_scenario_validates_and_covers_the_whole_board():
    doc = normalise(parse(load_text("eu-1492"))[0])
    assert (doc["board"], doc["year"]) == ("eu", 1492)
    assert len(doc["provinces"]) == 327 + 357 and len(doc["sea_zones"]) == 99
    assert len(doc["adjacency"]) == len(BOARD.borders)
    assert [c["code"] for c in doc["countries"][:8]] == MAJORS_1492


def test_1492_scenario_carries_the_printed_owner_fortress_and_income_of_every_european_province():
    doc = normalise(parse(load_text("eu-1492"))[0])
    europe = {p["name"]: p for p in doc["provinces"] if p["name"] in BOARD.provinces}
    assert len(europe) == 327
    for name, p in europe.items():
        printed = BOARD.province(name)
        assert (p["owner"], p["controller"], p["fortress"], p["income"]) == (
            printed.owner, printed.owner, printed.fortress, printed.income), name
    assert europe["Normandie"]["terrain"] == "forest"  # dense forest on the board: see DECISIONS.md


def test_real_corner_has_picardie_as_printed_and_caux_between_it_and_normandie():
    doc = normalise(parse(load_text("sample-real"))[0])
    assert 9 <= len(doc["provinces"]) <= 15
    [picardie] = [p for p in doc["provinces"] if p["name"] == "Picardie"]
    assert (picardie["owner"], picardie["fortress"], picardie["income"]) == ("FRA", 2, 8)
    assert ["Normandie", "Picardie"] not in doc["adjacency"]
    assert ["Caux", "Normandie"] in doc["adjacency"] and ["Caux", "Picardie"] in doc["adjacency"]


def test_real_corner_lists_every_board_border_between_its_places():
    doc = normalise(parse(load_text("sample-real"))[0])
    places = {p["name"] for p in doc["provinces"]} | {z["name"] for z in doc["sea_zones"]}
    expected = sorted(sorted(pair) for pair in BOARD.borders if set(pair) <= places)
    assert doc["adjacency"] == expected


def test_scenario_on_a_board_refuses_a_province_the_board_lacks_and_names_its_line():
    text = load_text("sample-real").replace('"Caux"', '"Kaux"')  # in its adjacency too
    with pytest.raises(ScenarioError) as info:
        parse(text)
    assert info.value.field == "provinces[1].name" and "close: Caux" in info.value.message
    assert info.value.line == text.splitlines().index(next(
        line for line in text.splitlines() if '"Kaux"' in line)) + 1


def test_scenario_on_a_board_refuses_an_adjacency_the_board_lacks():
    text = load_text("sample-real") + '  - ["Normandie", "Picardie"]\n'
    with pytest.raises(ScenarioError) as info:
        parse(text)
    assert info.value.field.startswith("adjacency[") and "share no border" in info.value.message


def test_scenario_naming_an_unknown_board_is_refused_on_the_board_field():
    with pytest.raises(ScenarioError) as info:
        parse(load_text("sample-real").replace('board: "eu"', 'board: "europa"'))
    assert info.value.field == "board" and "'europa'" in info.value.message


def test_scenario_without_a_board_records_no_board_key():
    text = load_text("sample").replace("\nboard: eu\n", "\n")
    assert "board" not in normalise(parse(text)[0])


def test_the_sample_campaign_stands_on_the_board_with_its_printed_facts():
    doc = normalise(parse(load_text("sample"))[0])
    assert doc["board"] == "eu"
    for p in doc["provinces"]:
        printed = BOARD.province(p["name"])
        assert (p["owner"], p["fortress"], p["income"]) == (printed.owner, printed.fortress, printed.income)
        coastal = any(n in BOARD.seas for n in BOARD.neighbours(p["name"]))
        assert p["coastal"] == coastal, p["name"]
    places = {p["name"] for p in doc["provinces"]} | {z["name"] for z in doc["sea_zones"]}
    assert doc["adjacency"] == sorted(sorted(pair) for pair in BOARD.borders if set(pair) <= places)
    assert ["Normandie", "Picardie"] not in doc["adjacency"]
