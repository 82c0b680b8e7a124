"""The Economic Record Sheet as data (tables/ers.toml) and compute_sheet."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu.ers import (
    compute_sheet,
    ers_definition,
    parse_definition,
    pct_down,
    pct_up,
    values_of,
)
from ledger.rules.eu.exchequer import resolve_exceptional_taxes, resolve_exchequer, ExceptionalTaxesInputs, ExchequerInputs


# --------------------------------------------------------------------------- the table


def test_ers_table_has_every_line_of_sheets_a_b_and_c():
    codes = set(ers_definition().codes)
    expected = {f"A{n}" for n in range(1, 34)} | {f"B{n}" for n in range(1, 49)} | {f"C{n}" for n in range(1, 11)}
    assert expected <= codes
    # only the four percentage sub-boxes come on top
    assert codes - expected == {"A15_pct", "A16_pct", "A17_pct", "A32_pct"}


@pytest.mark.parametrize(
    "code, formula",
    [
        ("A8", "A2 + A3 + A4 - A5 - A6 + A7"),
        ("A13", "A8 + A9 + A10 + A12"),  # engBudget.tex, not the sheet's sum(8, 12)
        ("A20", "A19 - A15"),
        ("A24", "A21 + A22 + A23 - A20"),
        ("A25", "A13 + A24"),
        ("A26", "A16 - A21"),
        ("A27", "A14 + A26"),
        ("A31", "A25 - A29 + A30"),
        ("A33", "A31 - A32"),
        ("B5", "B1 + B2 - B3 + B4"),
        ("B16", "B9 + B10 + B11 + B12 + B14 - B15"),
        ("B23", "B5 + B8 + B16 + B21 + B22"),
        ("B47", "sum_range(B40, B46)"),
        ("B48", "B38 + B47"),
        ("C10", "C5 - C7 - C8 + C9"),
    ],
)
def test_ers_formulas_transcribe_the_sheet(code, formula):
    assert ers_definition().get(code).formula == formula


@pytest.mark.parametrize("code, rounding", [("A15", "down"), ("A16", "down"), ("A17", "down"),
                                            ("A32", "down"), ("C2", "up"), ("C6", "up")])
def test_ers_rounding_is_explicit(code, rounding):
    d = ers_definition().get(code)
    assert d.rounding == rounding
    expr = d.formula or d.default
    assert ("pct_down" if rounding == "down" else "pct_up") in expr


def test_pct_down_and_pct_up_round_as_named():
    assert pct_down(273, 40) == 109  # 109.2
    assert pct_down(273, 30) == 81  # 81.9
    assert pct_up(105, 10) == 11  # 10.5
    assert pct_up(100, 10) == 10
    assert pct_down(-273, 10) == -28  # down is down, also below zero


# --------------------------------------------------------------------------- worked example


def _turn1_entered() -> dict[str, int]:
    """France, turn 1 (first turn of the game and of the period), filled by hand."""
    # E1, exceptional taxes: ADM 6, STAB +1 → modifier B39 = 6 + 3×1 = 9;
    # die 4 → (4 + 9) × 10 = 130 ducats on A12.
    taxes = resolve_exceptional_taxes(
        ExceptionalTaxesInputs(country="FRA", adm=6, stability=1), FixedDice([4])
    )
    assert taxes.outcome["taxes"] == 130
    return {
        "A1": 150,  # first turn: starting treasury entered
        "A2": 140,  # an event cost 10
        "A5": 20,  # diplomatic actions
        "A7": 15,  # a dowry received
        # A8 = 140 + 0 + 0 − 20 − 0 + 15 = 135
        "A9": 37 + 12,  # R4 looting 37 (income of the looted provinces) + R2 privateer raid 12 = 49
        "B39": 9,  # A11 copies it
        "A12": taxes.outcome["taxes"],  # 130
        # A13 = 135 + 49 + 0 + 130 = 314
        "B1": 180, "B2": 20, "B3": 12,  # B5 = 180 + 20 − 12 + 0 = 188
        "B6": 10, "B7": 5,  # B8 = 15
        "B9": 20, "B10": 15, "B11": 12,  # B16 = 47
        "B17": 8, "B18": 6, "B19": 4,  # B21 = 18
        "B24": 5,  # B23 = 188 + 15 + 47 + 18 + 0 = 268; B25 = 273
        "B30": 120, "B31": 10, "B33": 60, "B34": 25, "B35": 30, "B37": 5,
        # no loans yet: B26 = B27 = 0, B29 = C8 = 0; B38 = 120+10+60+25+30+5 = 250
        "B40": 2,  # two passive campaign ticks × 10 = 20
        "B41": 1,  # one active campaign tick × 20 = 20; B47 = 40; B48 = 290
        # E2 (see test below): ½★ at war → 40 / 30 / 30+10 %
        "A15_pct": 40, "A16_pct": 30, "A17_pct": 40,
        # A15 = ⌊273 × 40%⌋ = ⌊109.2⌋ = 109; A16 = ⌊81.9⌋ = 81; A17 = 109
        "A18": 105,  # international loans test S: 70% of 150
        # A19 = 290; A20 = 290 − 109 = 181
        "A21": 60,  # ≤ min(81, 181)
        "A22": 50,  # national loan ≤ 109
        "A23": 100,  # international loan ≤ 105
        # A24 = 60 + 50 + 100 − 181 = 29; A25 = 314 + 29 = 343
        # A26 = 81 − 60 = 21; A27 = 273 + 21 = 294; A28 = 294 (period starts)
        "A29": 50,  # P1 medium stability improvement
        "A30": 75,  # P4 indemnity received (conditional peace, level 2)
        # A31 = 343 − 50 + 75 = 368
        "A32_pct": 10,  # I4: counter on the 5th box (10%), no American gold → 4th box, 10% too
        # A32 = ⌊368 × 10%⌋ = ⌊36.8⌋ = 36; A33 = 368 − 36 = 332
        # C1 = A23 = 100; C9 = A22 = 50; C10 = 0 − 0 − 0 + 50 = 50
    }


def _turn2_entered() -> dict[str, int]:
    """France, turn 2 (same period), filled by hand."""
    return {
        # A1 = A33 of turn 1 = 332; A2 defaults to A1 (no event)
        "A5": 10,  # A8 = 332 − 10 = 322
        "A10": 30,  # gold from the ROTW; no taxes: A11 = A12 = 0
        # A13 = 322 + 0 + 30 + 0 = 352
        "B1": 180, "B2": 20,  # B5 = 200
        "B6": 10, "B7": 5,  # B8 = 15
        "B9": 20, "B10": 15, "B11": 12,  # B16 = 47
        "B17": 8, "B18": 6, "B19": 4,  # B21 = 18; B23 = B25 = 280
        # C2 = ⌈10% × 100⌉ (loan of turn 1) = 10; C3 = 0 (refund due turn 4)
        # C5 = C10 of turn 1 = 50; C6 = ⌈10% × 50⌉ = 5; B26 = 15; B27 = 0
        # B28 = 322 + 280 − 15 − 0 = 587 (no collapse)
        "C8": 20,  # national refund; B29 defaults to C8 = 20
        "B30": 120, "B31": 10,  # B38 = 15 + 0 + 20 + 120 + 10 = 165
        "B40": 1,  # B47 = 10; B48 = 175
        # E2: at peace, STAB +2, one international loan: +2 −1 = +1; die 7 → 8 → S: 50/40/20
        "A15_pct": 50, "A16_pct": 40, "A17_pct": 20,
        # A15 = 140, A16 = 112, A17 = 56; A19 = 175; A20 = 175 − 140 = 35
        "A21": 35,  # ≤ min(112, 35)
        # A24 = 35 − 35 = 0; A25 = 352; A26 = 112 − 35 = 77; A27 = 280 + 77 = 357
        # A28 = 294 + 357 = 651
        "A32_pct": 10,
        # A31 = 352 − 0 + 0 = 352; A32 = ⌊35.2⌋ = 35; A33 = 317
        # C10 = 50 − 0 − 20 + 0 = 30
    }


TURN1 = {
    "A1": 150, "A2": 140, "A8": 135, "A9": 49, "A11": 9, "A12": 130, "A13": 314,
    "B5": 188, "B8": 15, "B16": 47, "B21": 18, "B23": 268, "B25": 273,
    "B26": 0, "B27": 0, "B28": 408, "B29": 0, "B38": 250, "B40": 20, "B41": 20, "B47": 40, "B48": 290,
    "A14": 273, "A15": 109, "A16": 81, "A17": 109, "A18": 105, "A19": 290, "A20": 181,
    "A24": 29, "A25": 343, "A26": 21, "A27": 294, "A28": 294, "A31": 368, "A32": 36, "A33": 332,
    "C1": 100, "C2": 0, "C3": 0, "C5": 0, "C6": 0, "C9": 50, "C10": 50,
}

TURN2 = {
    "A1": 332, "A2": 332, "A8": 322, "A11": 0, "A12": 0, "A13": 352,
    "B5": 200, "B25": 280, "C2": 10, "C3": 0, "C5": 50, "C6": 5, "B26": 15, "B27": 0, "B28": 587,
    "B29": 20, "B38": 165, "B47": 10, "B48": 175,
    "A14": 280, "A15": 140, "A16": 112, "A17": 56, "A20": 35, "A24": 0, "A25": 352,
    "A26": 77, "A27": 357, "A28": 651, "A31": 352, "A32": 35, "A33": 317, "C10": 30,
}


def test_ers_worked_example_turn_one_matches_the_hand_computation():
    sheet = compute_sheet(_turn1_entered(), None, period_start=True)
    got = values_of(sheet)
    assert {k: got[k] for k in TURN1} == TURN1


def test_ers_worked_example_turn_two_carries_the_treasury_and_the_loans():
    turn1 = compute_sheet(_turn1_entered(), None, period_start=True)
    turn2 = compute_sheet(_turn2_entered(), turn1)
    got = values_of(turn2)
    assert {k: got[k] for k in TURN2} == TURN2


def test_ers_worked_example_exchequer_rulings_give_the_entered_percentages():
    # Turn 1: STAB +1, at war, no loans: no modifier; die 6 → row 6, STAB +1 → ½★.
    # International loans test die 8 → S → 70% of 150 = 105.
    r1 = resolve_exchequer(
        ExchequerInputs(country="FRA", stability=1, gross_income=273, completely_at_peace=False,
                        international_loan_test=True, international_money=150,
                        expenses=290, from_prestige=60, from_national_loan=50, from_international_loan=100),
        FixedDice([6, 8]),
    )
    assert r1.outcome["result"] == "½★"
    assert r1.outcome["percentages"] == {"regular": 40, "prestige": 30, "national_loan": 40}
    lines = r1.outcome["lines"]
    assert (lines["A15"], lines["A16"], lines["A17"], lines["A18"]) == (109, 81, 109, 105)
    assert (lines["A20"], lines["A24"], lines["A26"]) == (181, 29, 21)
    # Turn 2: STAB +2, at peace (+2), one international loan (−1), 50 ducats national: +1; die 7 → 8 → S.
    r2 = resolve_exchequer(
        ExchequerInputs(country="FRA", stability=2, gross_income=280, completely_at_peace=True,
                        national_loans=50, international_loans=1),
        FixedDice([7]),
    )
    assert r2.outcome["result"] == "S"
    assert r2.outcome["lines"] == {"A15": 140, "A16": 112, "A17": 56}


def test_ers_lineage_lists_the_lines_each_derived_line_came_from():
    sheet = compute_sheet(_turn1_entered(), None, period_start=True)
    assert sheet["A13"].sources == ("A8", "A9", "A10", "A12")
    assert sheet["A15"].sources == ("A14", "A15_pct")
    assert sheet["B38"].sources == ("B26", "B27", "B29", "B30", "B31", "B32", "B33", "B34", "B35", "B36", "B37")
    turn2 = compute_sheet(_turn2_entered(), sheet)
    assert turn2["A1"].sources == ("A33[t-1]",)
    assert turn2["A1"].kind == "derived" and not turn2["A1"].entered
    assert turn2["C2"].sources == ("C1[t-1]", "C1[t-2]", "C1[t-3]")
    assert turn2["C2"].defaulted


def test_ers_campaign_lines_take_ticks_and_hold_ducats():
    sheet = compute_sheet(_turn1_entered(), None)
    assert (sheet["B40"].ticks, sheet["B40"].value) == (2, 20)
    assert (sheet["B41"].ticks, sheet["B41"].value) == (1, 20)


def test_ers_a28_restarts_on_the_first_turn_of_a_period():
    turn1 = compute_sheet(_turn1_entered(), None, period_start=True)
    turn2 = compute_sheet(_turn2_entered(), turn1, period_start=True)
    assert turn2["A28"].value == turn2["A27"].value == 357


def test_ers_rt_collapse_alert_when_b28_is_negative():
    entered = {"A1": 10, "B1": 5, "C8": 0}
    prev = {"A33": 10, "A28": 0, "C10": 500, "C1": 0}
    sheet = compute_sheet({"B1": 5}, prev)
    # A8 = 10; B25 = 5; C5 = 500 → C6 = 50 → B26 = 50: B28 = 10 + 5 − 50 = −35
    assert sheet["B28"].value == -35
    assert sheet["B28"].alert == "Royal Treasury collapse"
    assert compute_sheet(entered, None)["B28"].alert is None


# --------------------------------------------------------------------------- loans (sheet C)


def _loan_sheet(c1: int, c10: int = 0) -> dict[str, int]:
    return {"A33": 0, "A28": 0, "C10": c10, "C1": c1}


def test_international_loan_interest_rounds_up_for_three_turns_and_is_refunded_the_third():
    # A loan of 105 at turn t: ⌈10.5⌉ = 11 at t+1, t+2, t+3; refund 105 at t+3.
    t = _loan_sheet(105)
    empty = _loan_sheet(0)
    t1 = compute_sheet({}, t)
    t2 = compute_sheet({}, empty, earlier=(t,))
    t3 = compute_sheet({}, empty, earlier=(empty, t))
    t4 = compute_sheet({}, empty, earlier=(empty, empty, t))
    assert [s["C2"].value for s in (t1, t2, t3, t4)] == [11, 11, 11, 0]
    assert [s["C3"].value for s in (t1, t2, t3, t4)] == [0, 0, 105, 0]
    assert t3["B27"].value == 105  # the mandatory refund


def test_international_loans_engbudget_example_200_then_100():
    # engBudget.tex: 200 taken at n−2, 100 at n. Interests n−1..n+3: 20, 20, 30, 10, 10;
    # refunds: 200 at n+1, 100 at n+3.
    n_minus_2, n_minus_1, n = _loan_sheet(200), _loan_sheet(0), _loan_sheet(100)
    zero = _loan_sheet(0)
    at = {
        "n-1": compute_sheet({}, n_minus_2),
        "n": compute_sheet({}, n_minus_1, earlier=(n_minus_2,)),
        "n+1": compute_sheet({}, n, earlier=(n_minus_1, n_minus_2)),
        "n+2": compute_sheet({}, zero, earlier=(n, n_minus_1)),
        "n+3": compute_sheet({}, zero, earlier=(zero, n)),
    }
    assert [s["C2"].value for s in at.values()] == [20, 20, 30, 10, 10]
    assert [s["C3"].value for s in at.values()] == [0, 0, 200, 0, 100]


def test_international_schedule_can_be_overwritten_after_a_bankruptcy():
    sheet = compute_sheet({"C2": 0, "C3": 0, "C4": 100}, _loan_sheet(100))
    assert (sheet["C2"].value, sheet["C3"].value, sheet["C4"].value) == (0, 0, 100)
    assert sheet["C2"].entered and not sheet["C2"].defaulted


def test_national_loan_interest_is_ten_percent_rounded_up():
    sheet = compute_sheet({}, _loan_sheet(0, c10=55))
    assert (sheet["C5"].value, sheet["C6"].value, sheet["B26"].value) == (55, 6, 6)


def test_national_loans_at_end_subtract_bankruptcy_and_refunds_and_add_new_loans():
    sheet = compute_sheet(
        {"B1": 300, "A15_pct": 50, "A17_pct": 30, "C7": 40, "C8": 30, "A22": 60}, _loan_sheet(0, c10=200)
    )
    # C10 = 200 − 40 − 30 + 60 = 190; B29 defaults to C8 = 30
    assert sheet["C10"].value == 190
    assert sheet["B29"].value == 30


# --------------------------------------------------------------------------- refusals


def test_ers_refuses_unknown_codes():
    with pytest.raises(RulesError) as exc:
        compute_sheet({"A1": 0, "A99": 3}, None)
    assert exc.value.field == "A99"


def test_ers_refuses_entering_a_derived_line():
    with pytest.raises(RulesError) as exc:
        compute_sheet({"A1": 0, "A13": 500}, None)
    assert exc.value.field == "A13"


def test_ers_first_turn_needs_the_starting_treasury():
    with pytest.raises(RulesError) as exc:
        compute_sheet({}, None)
    assert exc.value.field == "A1"


def test_ers_refuses_a_carried_line_entered_when_a_previous_turn_exists():
    with pytest.raises(RulesError):
        compute_sheet({"A1": 1000}, _loan_sheet(0))


@pytest.mark.parametrize(
    "entered, field",
    [
        ({"A1": 0, "B1": 100, "A15_pct": 50, "A16_pct": 40, "B30": 100, "A21": 41}, "A21"),  # > min(A16, A20)
        ({"A1": 0, "B1": 100, "A17_pct": 20, "A22": 21}, "A22"),  # > A17
        ({"A1": 0, "A18": 50, "A23": 60}, "A23"),  # > A18
        ({"A1": 0, "A29": 40}, "A29"),  # not 30 / 50 / 100
        ({"A1": 0, "C8": 20, "B29": 10}, "B29"),  # below C8
        ({"A1": 0, "A32_pct": 34}, "A32_pct"),  # over the 33% cap
    ],
)
def test_ers_refuses_entered_values_out_of_bounds(entered, field):
    with pytest.raises(RulesError) as exc:
        compute_sheet(entered, None)
    assert exc.value.field == field


def test_ers_prestige_cannot_be_taken_when_regular_income_covers_the_expenses():
    # A20 = 50 − 100 < 0 → A21 ≤ max(0, min(A16, A20)) = 0
    with pytest.raises(RulesError):
        compute_sheet({"A1": 0, "B1": 200, "A15_pct": 50, "A16_pct": 40, "B30": 50, "A21": 1}, None)
    sheet = compute_sheet({"A1": 0, "B1": 200, "A15_pct": 50, "A16_pct": 40, "B30": 50}, None)
    assert sheet["A20"].value == -50 and sheet["A24"].value == 50  # surplus into the treasury


def test_ers_refuses_non_integer_values():
    with pytest.raises(RulesError):
        compute_sheet({"A1": 1.5}, None)
    with pytest.raises(RulesError):
        compute_sheet({"A1": True}, None)


def _mini(lines: list[dict]) -> dict:
    return {"line": lines}


def test_ers_definition_refuses_cycles():
    defn = parse_definition(_mini([
        {"code": "A1", "sheet": "A", "name": "x", "kind": "derived", "formula": "A2 + 1"},
        {"code": "A2", "sheet": "A", "name": "y", "kind": "derived", "formula": "A3"},
        {"code": "A3", "sheet": "A", "name": "z", "kind": "derived", "formula": "A1 - A4"},
        {"code": "A4", "sheet": "A", "name": "w", "kind": "entered"},
    ]))
    with pytest.raises(RulesError, match="cycle: A1 -> A2 -> A3 -> A1"):
        compute_sheet({}, None, definition=defn)


def test_ers_definition_refuses_formulas_over_unknown_codes():
    with pytest.raises(RulesError, match="unknown ERS line 'B99'"):
        parse_definition(_mini([{"code": "A1", "sheet": "A", "name": "x", "kind": "derived", "formula": "B99"}]))


@pytest.mark.parametrize("formula", ["A2 / 2", "__import__('os')", "A2 ** 2", "1.5 + A2", "A2 if A2 else 0"])
def test_ers_definition_refuses_anything_but_small_integer_expressions(formula):
    with pytest.raises(RulesError):
        parse_definition(_mini([
            {"code": "A1", "sheet": "A", "name": "x", "kind": "derived", "formula": formula},
            {"code": "A2", "sheet": "A", "name": "y", "kind": "entered"},
        ]))


def test_ers_refuses_unknown_variants():
    with pytest.raises(RulesError):
        compute_sheet({"A1": 0}, None, variants=["no_such_option"])


# --------------------------------------------------------------------------- inflation on A32


def test_ers_inflation_is_a_percentage_of_the_absolute_treasury_rounded_down():
    # A31 = −57 (debt); 10% of |−57| = 5.7 → 5; A33 = −57 − 5 = −62
    sheet = compute_sheet({"A1": -57, "A32_pct": 10}, None)
    assert (sheet["A31"].value, sheet["A32"].value, sheet["A33"].value) == (-57, 5, -62)


def test_ers_inflation_minimum_loss_variant_2020():
    # A31 = 40 at 5%: 2 ducats (2016); at least 5 ducats with the 2020 minimum loss
    assert compute_sheet({"A1": 40, "A32_pct": 5}, None)["A32"].value == 2
    sheet = compute_sheet({"A1": 40, "A32_pct": 5}, None, variants=["inflation_minimum_loss"])
    assert sheet["A32"].value == 5
    assert sheet["A33"].value == 35


# --------------------------------------------------------------------------- invariants


@settings(max_examples=100, deadline=None)
@given(
    a1=st.integers(-500, 2000),
    incomes=st.lists(st.integers(0, 300), min_size=4, max_size=4),
    expenses=st.lists(st.integers(0, 200), min_size=3, max_size=3),
    pcts=st.sampled_from([(30, 0, 40), (20, 20, 40), (30, 20, 30), (40, 30, 30), (50, 40, 20), (60, 40, 20)]),
    inflation=st.sampled_from([5, 10, 20, 25, 33]),
)
def test_ers_treasury_identity_holds(a1, incomes, expenses, pcts, inflation):
    entered = {
        "A1": a1, "B1": incomes[0], "B10": incomes[1], "B17": incomes[2], "B22": incomes[3],
        "B30": expenses[0], "B33": expenses[1], "B35": expenses[2],
        "A15_pct": pcts[0], "A16_pct": pcts[1], "A17_pct": pcts[2], "A32_pct": inflation,
    }
    v = values_of(compute_sheet(entered, None))
    assert v["A33"] == v["A31"] - v["A32"]
    assert v["A25"] == v["A13"] - (v["B48"] - v["A15"])  # no prestige or loans taken
    assert 0 <= v["A32"] <= abs(v["A31"])
    assert v["A15"] <= v["A14"] * pcts[0] / 100 < v["A15"] + 1


def test_ers_lines_are_the_models_model_construct_builds():
    """compute_sheet builds its LineValues without model_construct's bookkeeping (a rebuild's largest cost):
    each must be indistinguishable from the one model_construct gives, field order and set fields included."""
    from ledger.rules.eu.ers import LineValue

    turn1 = compute_sheet(_turn1_entered(), None, period_start=True)
    for sheet in (turn1, compute_sheet(_turn2_entered(), turn1)):
        for code, lv in sheet.items():
            ref = LineValue.model_construct(**lv.__dict__)
            assert lv == ref
            assert list(vars(lv).items()) == list(vars(ref).items())
            assert lv.model_fields_set == ref.model_fields_set
            assert lv.model_dump() == ref.model_dump() and repr(lv) == repr(ref)
            assert LineValue.model_validate(lv.model_dump()) == lv
            with pytest.raises(Exception):
                lv.value = 0  # type: ignore[misc]  # still frozen
