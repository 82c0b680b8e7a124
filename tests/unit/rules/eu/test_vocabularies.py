"""Names a procedure looks something up by come from one closed vocabulary (issue 18)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ledger.rules.core import get_ruleset
from ledger.rules.eu.technology import LAND_TECHNOLOGIES, NAVAL_TECHNOLOGIES


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
