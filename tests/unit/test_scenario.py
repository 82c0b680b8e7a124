"""Scenario files: the shipped sample validates; every error names the line and the field."""

from __future__ import annotations

import json

import pytest

from ledger.scenario import ScenarioError, load_text, normalise, parse

SAMPLE = load_text("sample")


def test_sample_scenario_declares_the_channel():
    model, _ = parse(SAMPLE)
    doc = normalise(model)
    assert [p["name"] for p in doc["provinces"]] == ["Cornwall", "Wessex", "Kent", "Normandie", "Picardie"]
    assert [z["name"] for z in doc["sea_zones"]] == ["Manche", "Celtique", "Irlande", "Gascogne"]
    [picardie] = [p for p in doc["provinces"] if p["name"] == "Picardie"]
    assert (picardie["owner"], picardie["controller"], picardie["fortress"]) == ("FRA", "FRA", 1)
    assert {s["id"]: s["location"] for s in doc["stacks"]} == {"ENG-1": "Kent", "ENG-F1": "Manche",
                                                              "FRA-1": "Picardie"}
    assert ["Cornwall", "Manche"] in doc["adjacency"]


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse(text)
    return info.value


def test_unknown_owner_names_its_line_and_field():
    e = error_of(SAMPLE.replace("owner: FRA, income: 4", "owner: SPA, income: 4"))
    assert (e.line, e.field) == (15, "provinces[4].owner")
    assert "unknown country 'SPA'" in e.message and e.message.startswith("line 15: ")


def test_negative_unit_count_names_the_unit():
    e = error_of(SAMPLE.replace("units: {LD: 8}", "units: {LD: -1}"))
    assert (e.line, e.field) == (50, "stacks[2].units.LD")


def test_wrong_type_is_reported_by_pydantic_with_its_line():
    e = error_of(SAMPLE.replace("fortress: 2, coastal: true, area: England", "fortress: high, coastal: true, "
                                "area: England"))
    assert (e.line, e.field) == (13, "provinces[2].fortress")


def test_unknown_adjacency_names_the_pair_member():
    e = error_of(SAMPLE.replace("  - [Celtique, Gascogne]", "  - [Celtique, Biscaye]"))
    assert e.field == "adjacency[11][1]" and e.line == 33 and "Biscaye" in e.message


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
