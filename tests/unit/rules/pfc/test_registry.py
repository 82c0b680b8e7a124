"""The pfc ruleset registry, JSON round-trips and the CLI."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.rules.core import FixedDice, Ruling, get_ruleset
from ledger.rules.explain import explain

EXAMPLES = {
    "C1": ({"attacker_pf": 30, "defender_pf": 16, "attacker_cohesions": [3], "defender_cohesions": [3],
            "terrain": "clear", "sequence": 4}, [8, 10]),
    "C2": ({"artillery_bonus": 9, "sequence": 2}, [6]),
    "C3": ({"cavalry_bonus": 5, "weather": "rain"}, [5]),
    "C4": ({"unit_pf": 9, "unit_cohesion": 4, "weather": "mud"}, [6]),
    "C5": ({"recon_cavalry_pf": 6, "screen_cavalry_pf": 1, "recon_cohesions": [4], "screen_cohesions": [2]}, [6]),
    "C6": ({"month": 1}, [3]),
    "C7": ({"unit_type": "infantry", "weather": "rain", "path": [{"way": "road", "crossing": "river"}],
            "stack": {"infantry": 2, "cavalry": 1}}, []),
    "C8": ({"commander_vc": 2, "actions": [{"action": "build_entrenchment"}]}, [4]),
}


def test_pfc_ruleset_has_c1_to_c8():
    rs = get_ruleset("pfc")
    assert rs.id == "pfc" and rs.version == "1.0"
    assert sorted(rs.procedures) == [f"C{i}" for i in range(1, 9)]
    for code in rs.procedures:
        assert rs.get(code).code == code and rs.get(code).input_schema()["type"] == "object"


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_pfc_ruling_round_trips_through_json(code):
    inputs, dice = EXAMPLES[code]
    r = get_ruleset("pfc").get(code).resolve(inputs, FixedDice(dice))
    data = json.loads(json.dumps(r.model_dump(mode="json")))
    assert Ruling.model_validate(data) == r
    assert data["ruleset"] == "pfc" and data["procedure"] == code


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_pfc_ruling_explains_with_its_rule_codes(code):
    inputs, dice = EXAMPLES[code]
    ruling = get_ruleset("pfc").get(code).resolve(inputs, FixedDice(dice))
    text = explain(ruling)
    assert text.startswith(f"pfc:{code} ")
    mods = list(ruling.modifiers) + [m for s in ruling.steps for m in s.modifiers]
    assert (f"[pfc:{code} " in text) is bool(mods)
    assert "outcome:" in text


def test_pfc_registry_complete_when_one_module_is_imported_first():
    code = ("import ledger.rules.pfc.weather\nfrom ledger.rules.core import get_ruleset\n"
            "print(len(get_ruleset('pfc').procedures))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) == 8


def _cli(*args):
    exe = Path(sys.executable).with_name("ledger")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})


def test_pfc_cli_lists_and_resolves():
    listed = _cli("procedures", "pfc", "--no-schemas")
    assert listed.returncode == 0, listed.stderr
    assert [p["code"] for p in json.loads(listed.stdout)["procedures"]] == [f"C{i}" for i in range(1, 9)]
    done = _cli("resolve", "pfc", "C1", "--inputs", json.dumps(EXAMPLES["C1"][0]), "--dice", "8", "--dice", "10",
                "--explain")
    assert done.returncode == 0, done.stderr
    # 30 PF, fourth sequence −1 column → 22-29; die 8 −1 → row 7 → 2 PF lost by the defender.
    assert "defender loses 2 PF" in done.stdout and "row 7, column 22-29 → 2" in done.stdout


def test_pfc_cli_rejects_odd_artillery_sequence_naming_the_field():
    r = _cli("resolve", "pfc", "C2", "--inputs", '{"artillery_bonus": 3, "sequence": 3}', "--dice", "4")
    assert r.returncode == 2 and "[sequence]" in r.stderr and "pfc:C2" in r.stderr
