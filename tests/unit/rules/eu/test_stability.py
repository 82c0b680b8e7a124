"""P1 stability improvement, P2 prosperity, I1 stability from wars, I2 ransom."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu import EU
from ledger.rules.eu.stability import (
    ProsperityInputs,
    RansomInputs,
    StabilityImprovementInputs,
    WarStabilityInputs,
    improvement_change,
    improvement_modifiers,
    prosperity,
    resolve_prosperity,
    resolve_ransom,
    resolve_stability_improvement,
    resolve_war_stability,
    war_loss,
)


def _p1(**kw) -> StabilityImprovementInputs:
    data = {"country": "FRA", "stability": 0, "investment": 30, "adm": 0}
    data.update(kw)
    return StabilityImprovementInputs(**data)


# --------------------------------------------------------------------------- P1


@pytest.mark.parametrize(
    "total, change",
    [(-4, -1), (1, -1), (5, -1), (6, 0), (8, 0), (10, 0), (11, 1), (14, 1), (15, 2), (17, 2), (18, 3), (25, 3)],
)
def test_stability_improvement_bands(total, change):
    assert improvement_change(total) == change


@pytest.mark.parametrize(
    "adm, investment, die, total, band, change",
    [
        (2, 30, 3, 5, "≤5", -1),  # 3 + 2 = 5: decreases
        (2, 30, 4, 6, "6–10", 0),
        (5, 30, 5, 10, "6–10", 0),
        (5, 50, 4, 11, "11–14", 1),  # 4 + 5 + 2 (medium)
        (4, 100, 5, 14, "11–14", 1),  # 5 + 4 + 5 (strong)
        (5, 100, 5, 15, "15–17", 2),
        (7, 100, 5, 17, "15–17", 2),
        (8, 100, 5, 18, "≥18", 3),
    ],
)
def test_stability_improvement_result_bands_through_the_resolver(adm, investment, die, total, band, change):
    r = resolve_stability_improvement(_p1(adm=adm, investment=investment), FixedDice([die]))
    assert r.total == total
    assert r.table_cell.row == band
    assert r.outcome["change"] == change
    assert r.outcome["stability"] == change  # from STAB 0
    a29 = [e for e in r.effects if e.kind == "ers_entry"]
    assert [(e.ers_line, e.amount) for e in a29] == [("A29", investment)]


@pytest.mark.parametrize(
    "kw, expected",
    [
        ({"adm": 4}, [(4, "ADM of the monarch")]),
        ({"investment": 50}, [(2, "medium investment")]),
        ({"investment": 100}, [(5, "strong investment")]),
        ({"victim_of_declaration": True}, [(2, "victim of a declaration of war")]),
        ({"war": "minor"}, [(-2, "at war with a minor country")]),
        ({"war": "players"}, [(-3, "at war with one or more players")]),
        ({"enemy_army_in_city": "national"}, [(-5, "enemy ARMY controls a national city")]),
        ({"enemy_army_in_city": "national", "spanish_empire": True},
         [(-3, "enemy ARMY controls a city of the Spanish empire")]),
        ({"enemy_army_in_city": "owned_non_national", "spanish_empire": True},
         [(-3, "enemy ARMY controls a city of the Spanish empire")]),
        ({"prosperity": "prosperous"}, [(3, "prosperous power")]),
        ({"prosperity": "anti_prosperous"}, [(-3, "anti-prosperous power")]),
        ({"event_modifier": -2}, [(-2, "event")]),
        ({}, []),
    ],
)
def test_stability_improvement_modifiers(kw, expected):
    mods = improvement_modifiers(_p1(**kw))
    assert [(m.value, m.reason) for m in mods] == expected
    assert all(m.rule == "eu:P1" for m in mods)


def test_stability_improvement_war_with_players_does_not_add_the_minor_malus():
    mods = improvement_modifiers(_p1(war="players"))
    assert sum(m.value for m in mods) == -3


def test_stability_improvement_cannot_go_above_plus_three():
    r = resolve_stability_improvement(_p1(stability=2, adm=9, investment=100), FixedDice([10]))
    assert r.outcome["change"] == 3
    assert r.outcome["stability"] == 3
    assert r.outcome["applied"] == 1


def test_stability_improvement_cannot_go_below_minus_three():
    r = resolve_stability_improvement(_p1(stability=-3, war="players"), FixedDice([1]))
    assert r.outcome["change"] == -1
    assert r.outcome["stability"] == -3
    assert not [e for e in r.effects if e.kind == "stability_changed"]


def test_stability_improvement_refused_after_the_monarch_was_overthrown():
    with pytest.raises(RulesError) as exc:
        resolve_stability_improvement(_p1(monarch_overthrown_by_revolts=True), FixedDice([5]))
    assert exc.value.field == "monarch_overthrown_by_revolts"


@pytest.mark.parametrize(
    "kw", [{"investment": 40}, {"adm": 10}, {"stability": 4}, {"enemy_army_in_city": "owned_non_national"},
           {"war": "everyone"}, {"extra": 1}]
)
def test_stability_improvement_rejects_impossible_inputs(kw):
    with pytest.raises(ValidationError):
        _p1(**kw)


@settings(max_examples=150, deadline=None)
@given(
    stab=st.integers(-3, 3), inv=st.sampled_from([30, 50, 100]), adm=st.integers(0, 9),
    war=st.sampled_from(["none", "minor", "players"]), victim=st.booleans(),
    pros=st.sampled_from(["prosperous", "neutral", "anti_prosperous"]), event=st.integers(-10, 10),
    die=st.integers(1, 10),
)
def test_stability_improvement_invariants(stab, inv, adm, war, victim, pros, event, die):
    inputs = _p1(stability=stab, investment=inv, adm=adm, war=war, victim_of_declaration=victim,
                 prosperity=pros, event_modifier=event)
    r = resolve_stability_improvement(inputs, FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert -3 <= r.outcome["stability"] <= 3
    if die < 10:
        better = resolve_stability_improvement(inputs, FixedDice([die + 1]))
        assert better.outcome["stability"] >= r.outcome["stability"]
    r.model_dump(mode="json")


# --------------------------------------------------------------------------- P2


@pytest.mark.parametrize(
    "incomes, status",
    [
        ((100, 110, 120), "prosperous"),  # engBudget.tex examples
        ((100, 100, 101), "prosperous"),
        ((100, 110, 109), "neutral"),
        ((100, 99, 98), "anti_prosperous"),
        ((100, 99, 99), "neutral"),
        ((100, 100, 100), "neutral"),
    ],
)
def test_prosperity_examples(incomes, status):
    assert prosperity(incomes) == status


def test_prosperity_ruling_has_no_dice_and_gives_the_modifier():
    r = resolve_prosperity(ProsperityInputs(country="FRA", gross_incomes=(100, 110, 120)), FixedDice([]))
    assert r.dice == () and r.all_dice() == []
    assert r.outcome == {"prosperity": "prosperous", "stability_improvement_modifier": 3, "deltas": [10, 10]}
    anti = resolve_prosperity(ProsperityInputs(country="FRA", gross_incomes=(100, 99, 98)), FixedDice([]))
    assert anti.outcome["stability_improvement_modifier"] == -3


# --------------------------------------------------------------------------- I1


@pytest.mark.parametrize("turn, loss", [(1, 1), (2, 2), (3, 3), (4, 4), (5, 4), (6, 4)])
def test_war_stability_losses_over_six_war_turns(turn, loss):
    assert war_loss(turn) == loss
    r = resolve_war_stability(
        WarStabilityInputs(country="FRA", stability=3, wars=[{"name": "Italian war", "consecutive_turns": turn}]),
        FixedDice([]),
    )
    assert r.outcome["loss"] == loss
    assert r.outcome["stability"] == max(-3, 3 - loss)


def test_war_stability_six_turns_cumulative_sequence():
    # 1, 2, 3, 4, 4, 4 levels lost: 18 levels over six turns
    assert [war_loss(t) for t in range(1, 7)] == [1, 2, 3, 4, 4, 4]


@pytest.mark.parametrize("turn, loss", [(1, 1), (2, 2), (3, 2), (6, 2)])
def test_overseas_war_losses_are_capped_at_two(turn, loss):
    assert war_loss(turn, overseas=True) == loss


def test_only_the_hardest_war_counts():
    r = resolve_war_stability(
        WarStabilityInputs(country="SPA", stability=2, wars=[
            {"name": "A", "consecutive_turns": 2},
            {"name": "B", "consecutive_turns": 5, "overseas": True},
            {"name": "C", "consecutive_turns": 3},
        ]),
        FixedDice([]),
    )
    assert r.outcome["loss"] == 3
    assert [(m.value, m.reason) for m in r.modifiers] == [(-3, "war 'C', turn 3 (hardest)")]
    assert r.outcome["stability"] == -1


def test_continuing_limited_intervention_costs_one():
    r = resolve_war_stability(
        WarStabilityInputs(country="ANG", stability=1, continuing_limited_intervention=True), FixedDice([])
    )
    assert r.outcome["loss"] == 1 and r.outcome["stability"] == 0


def test_turkey_knights_and_vienna_add_to_the_war_loss():
    r = resolve_war_stability(
        WarStabilityInputs(country="AUS", stability=3, wars=[{"name": "Turks", "consecutive_turns": 1}],
                           habsburg_and_turkey_holds_vienna=True),
        FixedDice([]),
    )
    assert r.outcome["loss"] == 2
    tur = resolve_war_stability(WarStabilityInputs(country="TUR", stability=0, turkey_hit_by_knights=True),
                                FixedDice([]))
    assert tur.outcome["loss"] == 1


def test_war_stability_is_clamped_at_minus_three():
    r = resolve_war_stability(
        WarStabilityInputs(country="FRA", stability=-2, wars=[{"name": "Long", "consecutive_turns": 6}]),
        FixedDice([]),
    )
    assert r.outcome["stability"] == -3
    assert r.outcome["applied"] == -1
    assert r.effects[0].amount == -1


def test_war_stability_at_peace_changes_nothing():
    r = resolve_war_stability(WarStabilityInputs(country="FRA", stability=1), FixedDice([]))
    assert r.outcome["loss"] == 0 and r.effects == ()


def test_war_turns_must_be_positive():
    with pytest.raises(ValidationError):
        WarStabilityInputs(country="FRA", stability=0, wars=[{"name": "x", "consecutive_turns": 0}])


# --------------------------------------------------------------------------- I2


def test_ransom_of_a_major_monarch_costs_two_stab_and_200_ducats_to_the_captor():
    r = resolve_ransom(RansomInputs(monarch_of="FRA", captor="SPA", power="major", stability=1), FixedDice([]))
    assert r.outcome == {"stability": -1, "ducats": 200}
    got = {(e.kind, e.country, e.ers_line, e.amount) for e in r.effects}
    assert got == {("stability_changed", "FRA", None, -2), ("ducats", "FRA", "A30", -200),
                   ("ducats", "SPA", "A30", 200)}


def test_ransom_of_a_major_monarch_stability_floor():
    r = resolve_ransom(RansomInputs(monarch_of="FRA", captor="SPA", power="major", stability=-2), FixedDice([]))
    assert r.outcome["stability"] == -3


def test_ransom_of_a_minor_monarch_pays_50_ducats_to_the_captor():
    r = resolve_ransom(RansomInputs(monarch_of="Savoie", captor="FRA", power="minor"), FixedDice([]))
    (e,) = r.effects
    assert (e.kind, e.country, e.ers_line, e.amount) == ("ducats", "FRA", "A30", 50)


def test_ransomed_minor_monarch_may_serve_the_peace_instead():
    r = resolve_ransom(RansomInputs(monarch_of="Savoie", captor="FRA", power="minor", use_for_peace=True),
                       FixedDice([]))
    assert r.outcome == {"peace_modifier": 2, "ducats": 0}


@pytest.mark.parametrize(
    "kw",
    [{"power": "major"}, {"power": "major", "stability": 0, "use_for_peace": True}, {"captor": "FRA"}],
)
def test_ransom_rejects_inconsistent_inputs(kw):
    data = {"monarch_of": "FRA", "captor": "SPA", "power": "minor"}
    data.update(kw)
    with pytest.raises(ValidationError):
        RansomInputs(**data)


def test_economy_procedures_are_registered():
    for code in ("E1", "E2", "P1", "P2", "I1", "I2", "I4", "I5"):
        assert EU.get(code).code == code
