"""Rulesets: pure, table-driven resolvers, one package per ruleset."""

from ledger.rules.core import Ruling, RulesError, get_ruleset

__all__ = ["Ruling", "RulesError", "get_ruleset"]
