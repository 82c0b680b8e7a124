"""pfc:C8 command points (pf-cohesion-wargame-tables.fr.txt, POINTS DE COMMANDEMENT)."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, RulesError, get_ruleset

C8 = get_ruleset("pfc").get("C8")


@pytest.mark.parametrize("die,vc", [(1, 0), (4, 2), (6, 4)])
def test_command_points_are_1d6_plus_the_commander_in_chiefs_vc(die, vc):
    r = C8.resolve({"commander_vc": vc}, FixedDice([die]))
    assert r.outcome["command_points"] == die + vc == r.total
    assert r.dice[0].sides == 6


@pytest.mark.parametrize(
    "action,in_line,cost",
    [
        ("activate_commander_in_chief", True, 0),
        ("activate_subordinate_general", True, 0),
        ("activate_subordinate_general", False, 1),
        ("activate_force_without_general", True, 1),
        ("activate_force_without_general", False, 2),
        ("build_entrenchment", True, 2),
        ("build_entrenchment", False, 2),
    ],
)
def test_command_point_costs_inside_and_outside_the_line_of_command(action, in_line, cost):
    r = C8.resolve({"commander_vc": 2, "actions": [{"action": action, "in_line_of_command": in_line}]},
                   FixedDice([3]))
    assert r.outcome["spent"] == cost and r.outcome["remaining"] == 5 - cost


def test_command_commander_in_chief_outside_the_line_of_command_is_not_possible():
    with pytest.raises(RulesError) as e:
        C8.resolve({"commander_vc": 2, "actions": [{"action": "activate_commander_in_chief",
                                                    "in_line_of_command": False}]}, FixedDice([3]))
    assert e.value.field == "actions" and e.value.rule == "pfc:C8"


def test_command_over_spending_is_reported():
    r = C8.resolve({"commander_vc": 0, "actions": [{"action": "build_entrenchment"}] * 2}, FixedDice([3]))
    assert r.outcome["spent"] == 4 and r.outcome["remaining"] == -1 and r.outcome["within_budget"] is False


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 6), st.integers(1, 6), st.lists(st.fixed_dictionaries({
    "action": st.sampled_from(["activate_subordinate_general", "activate_force_without_general", "build_entrenchment"]),
    "in_line_of_command": st.booleans()}), max_size=4))
def test_command_invariants(vc, die, actions):
    r = C8.resolve({"commander_vc": vc, "actions": actions}, FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers) == die + vc
