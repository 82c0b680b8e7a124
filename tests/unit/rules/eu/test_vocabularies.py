"""Names a procedure looks something up by come from one closed vocabulary (issue 18)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ledger.rules.core import get_ruleset
from ledger.rules.eu.vocabularies import LAND_TECHNOLOGIES, NAVAL_TECHNOLOGIES


def _technology_enums(schema: dict, defs: dict, found: dict[str, list[str]], path: str = "") -> None:
    if "$ref" in schema:
        _technology_enums(defs[schema["$ref"].split("/")[-1]], defs, found, path)
        return
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            _technology_enums(sub, defs, found, path)
    for name, sub in schema.get("properties", {}).items():
        if "technology" in name and ("enum" in sub or "$ref" in sub or "anyOf" in sub):
            enum = sub.get("enum") or next((s.get("enum") for s in sub.get("anyOf", []) if s.get("enum")), None)
            if enum:
                found[f"{path}{name}"] = enum
        _technology_enums(sub, defs, found, f"{path}{name}.")


@pytest.mark.parametrize("code", ["M12", "M13", "M19", "M20"])
def test_m12_m13_m19_m20_share_one_vocabulary_of_technologies(code):
    schema = get_ruleset("eu").get(code).input_schema()
    found: dict[str, list[str]] = {}
    _technology_enums(schema, schema.get("$defs", {}), found)
    assert found, f"{code} has a technology input"
    for field, enum in found.items():
        assert tuple(enum) in (LAND_TECHNOLOGIES, NAVAL_TECHNOLOGIES), field


def test_the_seeds_spellings_of_naval_technologies_are_one_technology():
    m12 = get_ruleset("eu").get("M12").inputs
    for typed, code in (("NAO", "NAU"), ("Nau", "NAU"), ("Nau-Galleon", "NAU"), ("SF", "74S"), ("74s", "74S"),
                        ("TSF", "74S"), ("Three-decker", "TD")):
        assert m12.model_validate({**_M12, "technology": typed}).technology == code


def test_an_unknown_technology_is_refused_by_every_procedure_that_reads_one():
    with pytest.raises(ValidationError) as e:
        get_ruleset("eu").get("M12").inputs.model_validate({**_M12, "technology": "Frigate"})
    assert e.value.errors()[0]["loc"] == ("technology",) and "unknown naval technology" in str(e.value)


_M12 = {"nd": 2, "zones": [{"difficulty": 0}], "zones_entered": 1}


def _country_fields(schema: dict, defs: dict, path: str = "") -> list[tuple[str, dict]]:
    found = []
    if "$ref" in schema:
        return _country_fields(defs[schema["$ref"].split("/")[-1]], defs, path)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            found += _country_fields(sub, defs, path)
    for name, sub in schema.get("properties", {}).items():
        if name in ("country", "controller", "captor", "monarch_of", "player", "payer", "receiver", "owner",
                    "looter", "builder", "largest_fleet", "from_country", "to_country"):
            found.append((f"{path}{name}", sub))
        found += _country_fields(sub, defs, f"{path}{name}.")
    if isinstance(schema.get("items"), dict):
        found += _country_fields(schema["items"], defs, f"{path}[].")
    return found


def test_every_country_input_of_the_eu_procedures_is_a_closed_vocabulary():
    # Board codes everywhere, except M22's replacement-leader table, which is keyed by the seed's own
    # column names (an enum of its own).
    rs = get_ruleset("eu")
    free, not_board = [], []
    for code, proc in rs.procedures.items():
        schema = proc.input_schema()
        defs = schema.get("$defs", {})
        for field, sub in _country_fields(schema, defs):
            options = [sub, *sub.get("anyOf", [])]
            options = [defs[o["$ref"].split("/")[-1]] if "$ref" in o else o for o in options]
            enums = [o["enum"] for o in options if "enum" in o]
            if not enums:
                free.append(f"{code}.{field}")
            elif not any("FRA" in e for e in enums):
                not_board.append(f"{code}.{field}")
    assert free == []
    assert not_board == ["M22.country"]


@pytest.mark.parametrize("typed", ["ENG", "eng", "England", "angleterre", "ANG"])
def test_a_country_by_code_name_or_the_seeds_abbreviation_is_recorded_as_its_board_code(typed):
    from ledger.rules.core import FixedDice

    r = get_ruleset("eu").get("E1").resolve({"country": typed, "adm": 5, "stability": 0}, FixedDice([5]))
    assert r.inputs["country"] == "ENG"


@pytest.mark.parametrize("typed", ["HAB", "Angleterre!", "Britain", "X"])
def test_a_country_the_board_does_not_know_is_refused_naming_the_field(typed):
    # HAB is the seeds' "SPA or AUS": ambiguous, so not an alias.
    with pytest.raises(ValidationError) as e:
        get_ruleset("eu").get("E1").inputs.model_validate({"country": typed, "adm": 5, "stability": 0})
    assert e.value.errors()[0]["loc"] == ("country",)


def test_a_province_or_sea_zone_is_a_place_of_the_board_by_its_printed_or_other_name():
    from ledger.rules.core import FixedDice

    r = get_ruleset("eu").get("M6").resolve({"ld": 2, "causes": 1, "province": "milano"}, FixedDice([1]))
    assert r.inputs["province"] == "Lombardia"
    with pytest.raises(ValidationError) as e:
        get_ruleset("eu").get("M6").inputs.model_validate({"ld": 2, "causes": 1, "province": "Milan"})
    assert e.value.errors()[0]["loc"] == ("province",) and "unknown province 'Milan'" in str(e.value)
    m12 = get_ruleset("eu").get("M12").inputs
    assert m12.model_validate({**_M12, "zones": [{"name": "manche", "difficulty": 0}]}).zones[0].name == "Manche"
    with pytest.raises(ValidationError):
        m12.model_validate({**_M12, "zones": [{"name": "Channel", "difficulty": 0}]})
