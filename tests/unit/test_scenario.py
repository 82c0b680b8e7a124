"""Scenario files: the shipped sample validates; every error names the line and the field."""

from __future__ import annotations

import json

import pytest

from ledger.scenario import ScenarioError, load_text, normalise, parse

SAMPLE = load_text("sample")


def line_of(text: str, fragment: str) -> int:
    [line] = [i for i, text_line in enumerate(text.splitlines(), start=1) if fragment in text_line]
    return line


def test_sample_scenario_declares_the_channel_on_the_real_board():
    model, _ = parse(SAMPLE)
    doc = normalise(model)
    assert [p["name"] for p in doc["provinces"]] == ["Cornwall", "Wessex", "Kent", "Normandie", "Caux", "Picardie",
                                                     "Ile-de-France"]
    assert [z["name"] for z in doc["sea_zones"]] == ["Manche", "Celtique", "Irlande", "Nord"]
    assert doc["board"] == "eu"
    [picardie] = [p for p in doc["provinces"] if p["name"] == "Picardie"]
    # The printed board: fortress 2, income 8.
    assert (picardie["owner"], picardie["controller"], picardie["fortress"], picardie["income"]) == (
        "FRA", "FRA", 2, 8)
    assert {s["id"]: s["location"] for s in doc["stacks"]} == {"ENG-1": "Kent", "ENG-F1": "Manche",
                                                              "FRA-1": "Picardie"}
    assert ["Cornwall", "Manche"] in doc["adjacency"]


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse(text)
    return info.value


def test_unknown_owner_names_its_line_and_field():
    e = error_of(SAMPLE.replace("owner: FRA, income: 8", "owner: SPA, income: 8"))
    line = line_of(SAMPLE, "owner: FRA, income: 8")
    assert (e.line, e.field) == (line, "provinces[5].owner")
    assert "unknown country 'SPA'" in e.message and e.message.startswith(f"line {line}: ")


def test_negative_unit_count_names_the_unit():
    e = error_of(SAMPLE.replace("units: {LD: 8}", "units: {LD: -1}"))
    assert (e.line, e.field) == (line_of(SAMPLE, "units: {LD: 8}"), "stacks[2].units.LD")


def test_wrong_type_is_reported_by_pydantic_with_its_line():
    e = error_of(SAMPLE.replace("income: 9, fortress: 1, coastal: true, area: England",
                                "income: 9, fortress: high, coastal: true, area: England"))
    assert (e.line, e.field) == (line_of(SAMPLE, "name: Kent"), "provinces[2].fortress")


def test_unknown_adjacency_names_the_pair_member():
    e = error_of(SAMPLE.replace("  - [Celtique, Nord]", "  - [Celtique, Biscaye]"))
    assert e.field == "adjacency[7][1]" and e.line == line_of(SAMPLE, "[Celtique, Nord]") and "Biscaye" in e.message


def test_missing_field_names_the_mapping_it_is_missing_from():
    e = error_of("name: x\ncountries:\n  - code: ENG\n    name: England\n    stability: 0\n")
    assert (e.line, e.field) == (3, "countries[0].treasury")


def test_json_scenario_errors_carry_lines_too():
    doc = {"name": "x", "countries": [{"code": "ENG", "name": "E", "treasury": 1, "stability": 0}],
           "provinces": [{"name": "Kent", "owner": "ENG"}],
           "stacks": [{"id": "S1", "country": "ENG", "location": "Calais"}]}
    e = error_of(json.dumps(doc, indent=2))
    assert e.field == "stacks[0].location" and "Calais" in e.message
    assert json.dumps(doc, indent=2).splitlines()[e.line - 1].strip().startswith('"location"')


def test_broken_yaml_names_the_line():
    e = error_of("name: x\ncountries: [\n  {code: ENG\n")
    assert e.field == "scenario" and e.line is not None
