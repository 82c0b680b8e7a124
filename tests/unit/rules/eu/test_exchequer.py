"""E1 exceptional taxes and E2 exchequer test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu import EU
from ledger.rules.eu.exchequer import (
    ExceptionalTaxesInputs,
    ExchequerInputs,
    administrative_actions,
    budget,
    exchequer_percentages,
    resolve_exceptional_taxes,
    resolve_exchequer,
)

ORDER = ["F*", "F", "1/2", "1/2*", "S", "S*"]


# --------------------------------------------------------------------------- E1


def test_exceptional_taxes_are_die_plus_adm_plus_three_stab_times_ten():
    # 1d10 = 4, ADM 6, STAB +1: (4 + 6 + 3) × 10 = 130 on A12
    r = resolve_exceptional_taxes(ExceptionalTaxesInputs(country="FRA", adm=6, stability=1), FixedDice([4]))
    assert r.total == 13
    assert r.outcome == {"modifier_b39": 9, "taxes": 130, "negative": False}
    assert [(m.value, m.reason) for m in r.modifiers] == [(6, "ADM of the monarch"), (3, "3 × STAB (+1)")]
    (effect,) = r.effects
    assert (effect.kind, effect.ers_line, effect.amount) == ("ducats", "A12", 130)


def test_exceptional_taxes_can_cost_money_with_a_low_stability():
    # 1d10 = 2, ADM 1, STAB −3: (2 + 1 − 9) × 10 = −60
    r = resolve_exceptional_taxes(ExceptionalTaxesInputs(country="POL", adm=1, stability=-3), FixedDice([2]))
    assert r.outcome["taxes"] == -60
    assert r.outcome["negative"] is True
    assert r.effects[0].amount == -60


def test_exceptional_taxes_not_planned_cannot_be_raised():
    with pytest.raises(RulesError) as exc:
        resolve_exceptional_taxes(
            ExceptionalTaxesInputs(country="FRA", adm=5, stability=0, taxes_planned=False), FixedDice([5])
        )
    assert exc.value.field == "taxes_planned"


@pytest.mark.parametrize("field, value", [("adm", 10), ("adm", -1), ("stability", 4), ("stability", -4)])
def test_exceptional_taxes_reject_impossible_inputs(field, value):
    data = {"country": "FRA", "adm": 5, "stability": 0, field: value}
    with pytest.raises(ValidationError) as exc:
        ExceptionalTaxesInputs(**data)
    assert field in str(exc.value)


@settings(max_examples=100, deadline=None)
@given(adm=st.integers(0, 9), stab=st.integers(-3, 3), die=st.integers(1, 10))
def test_exceptional_taxes_total_is_die_plus_modifiers(adm, stab, die):
    r = resolve_exceptional_taxes(ExceptionalTaxesInputs(country="FRA", adm=adm, stability=stab), FixedDice([die]))
    assert r.total == die + sum(m.value for m in r.modifiers)
    assert r.outcome["taxes"] == r.total * 10
    r.model_dump(mode="json")


# --------------------------------------------------------------------------- tables


@pytest.mark.parametrize(
    "roll, stab, result",
    [
        (1, 0, "F*"), (-3, 4, "F"), (1, 2, "F"),
        (2, 2, "1/2"), (2, 4, "1/2*"),
        (3, 0, "1/2"), (3, -1, "F"),
        (5, 4, "S"), (5, -3, "F"),
        (6, -4, "F"), (6, 3, "S"),
        (7, 1, "S"), (7, -2, "1/2*"),
        (8, -3, "1/2*"), (8, -2, "S"),
        (9, 2, "S*"), (9, -4, "1/2*"),
        (10, -4, "S"), (10, -2, "S*"), (14, 0, "S*"),
    ],
)
def test_administrative_actions_table_cells(roll, stab, result):
    got, cell = administrative_actions(roll, stab)
    assert got == result
    assert cell.table == "Administrative Actions"


def test_administrative_actions_clamps_rows_and_labels_them():
    assert administrative_actions(-5, 0)[1].row == "≤1"
    assert administrative_actions(15, 0)[1].row == "≥10"
    with pytest.raises(RulesError):
        administrative_actions(5, 5)


@pytest.mark.parametrize(
    "result, pcts",
    [
        ("F*", (30, 0, 40, 20)), ("F", (20, 20, 40, 30)), ("1/2", (30, 20, 30, 40)),
        ("1/2*", (40, 30, 30, 50)), ("S", (50, 40, 20, 70)), ("S*", (60, 40, 20, 100)),
    ],
)
def test_exchequer_table_percentages(result, pcts):
    assert tuple(exchequer_percentages(result).values()) == pcts


@pytest.mark.parametrize("stab", range(-4, 5))
def test_administrative_actions_never_worsen_with_a_higher_roll(stab):
    results = [ORDER.index(administrative_actions(roll, stab)[0]) for roll in range(1, 11)]
    assert results == sorted(results)


@pytest.mark.parametrize("roll", range(1, 11))
def test_administrative_actions_never_worsen_with_a_higher_stability(roll):
    results = [ORDER.index(administrative_actions(roll, stab)[0]) for stab in range(-4, 5)]
    assert results == sorted(results)


# --------------------------------------------------------------------------- E2


def _inputs(**kw) -> ExchequerInputs:
    data = {"country": "FRA", "stability": 0, "gross_income": 200, "completely_at_peace": True}
    data.update(kw)
    return ExchequerInputs(**data)


@pytest.mark.parametrize(
    "kw, expected",
    [
        ({}, [(2, "completely at peace")]),
        ({"completely_at_peace": False}, []),
        ({"national_loans": 250}, [(2, "completely at peace"), (-2, "250 ducats of national loans (2 × 100)")]),
        ({"national_loans": 99, "completely_at_peace": False}, []),
        ({"international_loans": 2, "completely_at_peace": False}, [(-2, "2 ongoing international loan(s)")]),
        ({"bankruptcies_last_5_turns": 1, "completely_at_peace": False},
         [(-1, "1 bankruptcy(ies) in the last 5 turns")]),
        ({"broken_loan_treaties_last_5_turns": 3, "completely_at_peace": False},
         [(-3, "3 loan treaty(ies) broken in the last 5 turns")]),
        ({"stock_exchange": True, "completely_at_peace": False}, []),  # international test only
    ],
)
def test_exchequer_modifiers(kw, expected):
    r = resolve_exchequer(_inputs(**kw), FixedDice([5]))
    step = r.steps[0]
    assert [(m.value, m.reason) for m in step.modifiers] == expected
    assert all(m.rule == "eu:E2" for m in step.modifiers)


def test_exchequer_percentages_of_gross_income_are_rounded_down():
    # STAB 0 at peace: die 6 + 2 = 8 → S: 50/40/20 of 199 → 99, 79, 39
    r = resolve_exchequer(_inputs(gross_income=199), FixedDice([6]))
    assert r.outcome["result"] == "S"
    assert r.outcome["lines"] == {"A15": 99, "A16": 79, "A17": 39}
    assert [(e.ers_line, e.amount) for e in r.effects] == [("A15_pct", 50), ("A16_pct", 40), ("A17_pct", 20)]


def test_exchequer_national_loan_gets_ten_more_at_war_and_ten_more_for_spanish_expulsions():
    # STAB 0, at war: die 8 → S: national 20 + 10 (war) + 10 (expulsions) = 40
    r = resolve_exchequer(_inputs(completely_at_peace=False, spain_expulsions=True), FixedDice([8]))
    assert r.outcome["percentages"] == {"regular": 50, "prestige": 40, "national_loan": 40}
    assert r.outcome["lines"]["A17"] == 80


def test_exchequer_half_keeps_its_own_row_by_default():
    # STAB 0, at war: die 3 → ½ → 30/20/30+10
    r = resolve_exchequer(_inputs(completely_at_peace=False), FixedDice([3]))
    assert r.outcome["result"] == "½"
    assert r.outcome["percentages"] == {"regular": 30, "prestige": 20, "national_loan": 40}
    assert len(r.steps) == 1


@pytest.mark.parametrize("second, fti, result", [(3, 3, "S"), (4, 3, "F"), (1, 0, "F"), (10, 10, "S")])
def test_exchequer_half_with_fti_option_rolls_a_second_die(second, fti, result):
    r = resolve_exchequer(_inputs(completely_at_peace=False, half_with_fti=True, fti=fti), FixedDice([3, second]))
    assert r.steps[0].outcome["result"] == "½"
    assert r.steps[1].outcome == {"fti": fti, "result": result}
    assert r.outcome["result"] == result


def test_exchequer_half_star_is_not_rolled_against_fti():
    # STAB +1 at war, die 5 → ½★: no second die
    r = resolve_exchequer(_inputs(stability=1, completely_at_peace=False, half_with_fti=True, fti=5),
                          FixedDice([5]))
    assert r.outcome["result"] == "½★"
    assert len(r.all_dice()) == 1


def test_exchequer_international_loans_test_is_a_separate_die_with_stock_exchange():
    # Exchequer: die 4, STAB 0 at war → ½. International test: die 4 + 1 (Stock Exchange) = 5 → ½
    # → 40% of 250 = 100 on A18
    r = resolve_exchequer(
        _inputs(completely_at_peace=False, international_loan_test=True, international_money=250,
                stock_exchange=True),
        FixedDice([4, 4]),
    )
    step = r.steps[-1]
    assert step.name == "international loans test"
    assert [(m.value, m.reason) for m in step.modifiers] == [(1, "Stock Exchange")]
    assert step.total == 5
    assert step.outcome == {"result": "½", "percent": 40, "A18": 100}
    assert r.outcome["lines"]["A18"] == 100
    assert ("A18", 100) in [(e.ers_line, e.amount) for e in r.effects]


def test_exchequer_budget_step_fills_a20_to_a26():
    # STAB 2 at peace: die 5 + 2 = 7 → S: 50/40/20 of 300 → 150/120/60; expenses 260:
    # A20 = 110; A21 ≤ min(120, 110) = 110, take 100; A22 = 20; A24 = 100 + 20 − 110 = 10; A26 = 20
    r = resolve_exchequer(
        _inputs(stability=2, gross_income=300, expenses=260, from_prestige=100, from_national_loan=20),
        FixedDice([5]),
    )
    lines = r.outcome["lines"]
    assert (lines["A20"], lines["A21_max"], lines["A24"], lines["A26"]) == (110, 110, 10, 20)
    assert r.steps[-1].name == "budget"


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"from_prestige": 121}, "from_prestige"),
        ({"from_national_loan": 61}, "from_national_loan"),
    ],
)
def test_exchequer_budget_refuses_more_than_the_limits(kw, field):
    with pytest.raises(RulesError) as exc:
        resolve_exchequer(_inputs(stability=2, gross_income=300, expenses=400, **kw), FixedDice([5]))
    assert exc.value.field == field


def test_budget_with_a_surplus_allows_no_prestige_spending():
    lines = budget(300, {"regular": 50, "prestige": 40, "national_loan": 20}, expenses=100)
    assert lines["A20"] == -50 and lines["A24"] == 50 and lines["A26"] == 120
    with pytest.raises(RulesError):
        budget(300, {"regular": 50, "prestige": 40, "national_loan": 20}, expenses=100, from_prestige=1)


@pytest.mark.parametrize(
    "kw",
    [
        {"half_with_fti": True},  # fti missing
        {"international_loan_test": True},  # money missing
        {"from_prestige": 10},  # expenses missing
        {"international_money": 100, "international_loan_test": True},  # below 150
        {"stability": 5},
        {"gross_income": -1},
        {"unknown_field": 1},
    ],
)
def test_exchequer_rejects_incomplete_or_impossible_inputs(kw):
    with pytest.raises(ValidationError):
        _inputs(**kw)


def test_exchequer_is_registered_and_serialises():
    r = EU.get("E2").resolve({"country": "FRA", "stability": 1, "gross_income": 100,
                              "completely_at_peace": True}, FixedDice([7]))
    dumped = r.model_dump(mode="json")
    assert dumped["procedure"] == "E2"
    # 7 + 2 (peace) = 9, STAB +1 → S: regular 50%
    assert r.outcome["result"] == "S"
    assert dumped["effects"][0]["ers_line"] == "A15_pct"
    assert dumped["effects"][0]["amount"] == "50"


@settings(max_examples=150, deadline=None)
@given(
    stab=st.integers(-4, 4),
    income=st.integers(0, 1000),
    peace=st.booleans(),
    nl=st.integers(0, 500),
    il=st.integers(0, 3),
    die=st.integers(1, 10),
)
def test_exchequer_invariants(stab, income, peace, nl, il, die):
    r = resolve_exchequer(
        _inputs(stability=stab, gross_income=income, completely_at_peace=peace, national_loans=nl,
                international_loans=il),
        FixedDice([die]),
    )
    step = r.steps[0]
    assert step.total == die + sum(m.value for m in step.modifiers)
    for line, key in (("A15", "regular"), ("A16", "prestige"), ("A17", "national_loan")):
        assert r.outcome["lines"][line] == income * r.outcome["percentages"][key] // 100
