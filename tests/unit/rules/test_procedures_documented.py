"""Every procedure `ledger procedures` lists has a DECISIONS.md heading of its own and a test naming it, and
`ledger procedures RULESET --where` leads from a code to its module, tables, decisions and tests."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ledger.rules.core import get_ruleset
from ledger.rules.where import decision_headings, project_root, where

RULESETS = ("eu", "pfc", "his")


def _codes(ruleset: str) -> list[str]:
    return sorted(get_ruleset(ruleset).procedures)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_procedure_has_a_decisions_heading_of_its_own(ruleset):
    own = {codes[0] for codes, _ in decision_headings(ruleset) if len(codes) == 1}
    missing = [c for c in _codes(ruleset) if c not in own]
    assert not missing, f"DECISIONS.md of {ruleset} has no '## CODE — …' heading for {missing}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_heading_stands_for_several_codes_as_a_helper(ruleset):
    text = (project_root() / "ledger" / "rules" / ruleset / "DECISIONS.md").read_text(encoding="utf-8")
    helpers = [h for h in re.findall(r"^## .*$", text, re.M) if re.search(r"helper\)", h)]
    assert helpers == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_procedure_is_named_by_at_least_one_test(ruleset):
    rs = get_ruleset(ruleset)
    untested = [c for c, p in rs.procedures.items() if not where(rs, p).tests]
    assert not untested, f"no test names {untested}"


def test_where_of_the_siege_names_its_module_table_option_decisions_and_tests():
    rs = get_ruleset("eu")
    w = where(rs, rs.get("M21"))
    assert w.module == "ledger/rules/eu/sieges.py" and w.resolver == "resolve_siege"
    # its own table, and the small-stack reduction of the battle's tables its besieger's losses take
    assert w.tables == ("ledger/rules/eu/tables/siege_tables.toml", "ledger/rules/eu/tables/combat_small_stack.toml")
    assert any(h.startswith("M21 — siege artillery") for h in w.decisions)
    assert "tests/unit/rules/eu/test_sieges.py::test_eu8_artillery_reduces_the_fortress_malus_for_fire_only" in w.tests


def test_where_names_the_tables_a_procedure_reads_not_every_table_of_its_module():
    """M9 (movement) and M10 (movement attrition) share a module: each names the tables its resolver and the
    functions it calls read (M10: the four attrition tables; M9: the movement costs and thresholds)."""
    rs = get_ruleset("eu")
    m9, m10 = where(rs, rs.get("M9")), where(rs, rs.get("M10"))
    assert m9.module == m10.module
    assert sorted(t.rpartition("/")[2] for t in m10.tables) == [
        "attrition_discoveries.toml", "attrition_remainders_2016.toml", "attrition_remainders_fr.toml",
        "attrition_star_die.toml"]
    assert sorted(t.rpartition("/")[2] for t in m9.tables) == ["movement_costs.toml", "movement_thresholds.toml"]
    # a dispatch table's functions are followed: M22's annex tables, not every fr_*.toml of its module
    m22 = {t.rpartition("/")[2] for t in where(rs, rs.get("M22")).tables}
    assert "fr_monarch_combat.toml" in m22 and "fr_size_comparison.toml" not in m22


def test_ledger_procedures_where_prints_each_code_with_its_module_tables_and_tests():
    from ledger.cli import app

    result = CliRunner().invoke(app, ["procedures", "eu", "--where"])
    assert result.exit_code == 0, result.output
    blocks = re.split(r"\n(?=[A-Z]\d+  )", result.output)
    by_code = {b.split()[0]: b for b in blocks[1:]}
    assert sorted(by_code) == _codes("eu")
    assert "module     ledger/rules/eu/interception.py (resolve_land_interception)" in by_code["M14"]
    assert "table      ledger/rules/eu/tables/interception_rules.toml" in by_code["M14"]
    assert "decision   M14 — same province and across a river or pass are cumulative" in by_code["M14"]
    assert "tests      tests/unit/rules/eu/test_interception.py" in by_code["M14"]
    assert 'option     artillery_source (campaign setting rules_options "M21.artillery_source")' in by_code["M21"]
    for code, block in by_code.items():
        assert "  module     " in block and "  tests      tests/" in block, code


def test_ledger_procedures_where_for_one_code_prints_that_procedure_only():
    from ledger.cli import app

    result = CliRunner().invoke(app, ["procedures", "eu", "m14", "--where"])
    assert result.exit_code == 0, result.output
    assert re.findall(r"^([A-Z]\d+)  ", result.output, re.M) == ["M14"]
    unknown = CliRunner().invoke(app, ["procedures", "eu", "M99", "--where"])
    assert unknown.exit_code == 2 and "no procedure 'M99'" in unknown.output
