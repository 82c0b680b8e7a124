"""Compiled ERS formulas give exactly the numbers of the interpreted ones (ledger/rules/eu/ers.py, "compiling").

The budget computes every sheet through a function generated once per sheet shape; the tree walker
(``_evaluate``, ``_interpret_sheet``) stays the reference. These tests hold the two equal for every line
of the ``eu`` ruleset (formulas, defaults, first-turn and period-start formulas, bounds, variants) over
any values, and show that a wrong compiled operation is caught.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import RulesError, load_table
from ledger.rules.eu import ers
from ledger.rules.eu.ers import (
    PACKAGE,
    TABLE,
    _compile_sheet,
    _evaluate,
    _expressions,
    _interpret_sheet,
    _parse,
    _plan,
    compile_expression,
    parse_definition,
)
from tests.unit.rules.eu.test_ers import TURN1, _turn1_entered, _turn2_entered

DEFN = parse_definition(load_table(PACKAGE, TABLE))  # a definition of its own: no plans cached by other tests
EXPRESSIONS = [(f"{d.code}.{label}", expr) for d in DEFN.lines for label, expr in _expressions(d)] + [
    (f"{code}@{name}", expr) for name, overrides in DEFN.variants.items() for code, expr in overrides.items()]
CODES = DEFN.codes
# Amounts past the sheet's usual range, negative ones too: floor division and rounding up differ below zero.
amounts = st.integers(min_value=-10_000, max_value=10_000)
sheets = st.lists(amounts, min_size=len(CODES), max_size=len(CODES)).map(lambda vs: dict(zip(CODES, vs)))
histories = st.lists(st.one_of(st.none(), sheets), min_size=0, max_size=3)


def test_every_line_of_the_eu_ruleset_has_expressions_to_compile():
    assert len(EXPRESSIONS) > 60
    assert {"prev", "sum_range", "pct_down", "pct_up", "abs", "min", "max"} <= {
        n.func.id for _, expr in EXPRESSIONS for n in ast.walk(_parse(expr, "x")) if isinstance(n, ast.Call)}


@settings(max_examples=300, deadline=None)
@given(values=sheets, history=histories)
def test_each_compiled_formula_equals_the_interpreted_one(values, history):
    for where, expr in EXPRESSIONS:
        expected = _evaluate(DEFN, _parse(expr, where), values, history, where)
        assert compile_expression(DEFN, expr, where)(values, history) == expected, (where, expr)


def _both(entered, previous, earlier=(), period_start=False, variants=()):
    """The sheet compiled and interpreted: (result or the refusal's message and field) of each."""
    plan, sources, order = _plan(DEFN, entered, previous, period_start, tuple(variants))
    history = [previous, *earlier]
    out = []
    for run in (lambda: _compile_sheet(DEFN, plan, sources, order)(entered, history),
                lambda: _interpret_sheet(DEFN, entered, history, plan, sources, order)):
        try:
            out.append(run())
        except RulesError as e:
            out.append((str(e), e.field))
    return out


ENTERED = [d.code for d in DEFN.lines if d.kind == "entered"]
CARRIED = [d.code for d in DEFN.lines if d.carry]


@st.composite
def sheet_inputs(draw):
    first = draw(st.booleans())
    enterable = ENTERED + (CARRIED if first else [])
    # Small amounts mostly inside the bounds, some outside: both the numbers and the refusals are compared.
    entered = draw(st.dictionaries(st.sampled_from(enterable), st.integers(-50, 400), max_size=len(enterable)))
    if first:  # a first turn must enter what it cannot carry, unless the line has a first-turn default
        for code in CARRIED:
            if DEFN.get(code).first_turn_default is None:
                entered.setdefault(code, draw(st.integers(0, 400)))
    previous = None if first else draw(sheets)
    earlier = draw(st.lists(st.one_of(st.none(), sheets), max_size=2))
    return dict(entered=entered, previous=previous, earlier=tuple(earlier), period_start=draw(st.booleans()),
                variants=draw(st.sets(st.sampled_from(sorted(DEFN.variants)))))


@settings(max_examples=300, deadline=None)
@given(inputs=sheet_inputs())
def test_a_compiled_sheet_equals_the_interpreted_one_line_for_line(inputs):
    compiled, interpreted = _both(**inputs)
    assert compiled == interpreted


def test_the_worked_example_compiled_and_interpreted_alike():
    turn1, reference = _both(_turn1_entered(), None, period_start=True)
    assert turn1 == reference
    assert {c: turn1[c].value for c in TURN1} == TURN1
    turn2, reference = _both(_turn2_entered(), turn1)
    assert turn2 == reference


def test_a_value_out_of_bounds_is_refused_with_the_same_words():
    compiled, interpreted = _both({**_turn1_entered(), "A21": 500}, None, period_start=True)
    assert compiled == interpreted
    assert compiled[1] == "A21" and "must be at most" in compiled[0]


def _loans():
    t = {**{c: 0 for c in CODES}, "C1": 105, "C10": 55}
    return [dict(entered={}, previous=t), dict(entered={}, previous={**t, "C1": 0}, earlier=(None, t)),
            dict(entered={**_turn1_entered(), "A21": 60}, previous=None, period_start=True),
            dict(entered={**_turn1_entered(), "A21": 100}, previous=None, period_start=True),  # > min(A16, A20)
            dict(entered=_turn2_entered(), previous={**t, "A33": -40, "A28": 7})]


@pytest.mark.parametrize("table, key, wrong", [
    ("_BINOPS", ast.Sub, "+"),
    ("_BINOPS", ast.Add, "-"),
    ("_NAMESPACE", "pct_up", ers.pct_down),
    ("_NAMESPACE", "pct_down", ers.pct_up),
    ("_NAMESPACE", "min", max),
    ("_NAMESPACE", "abs", lambda x: x),
])
def test_a_wrong_compiled_operation_is_caught(monkeypatch, table, key, wrong):
    monkeypatch.setitem(getattr(ers, table), key, wrong)
    assert any(compiled != interpreted for compiled, interpreted in (_both(**case) for case in _loans()))


def test_a_wrong_range_or_previous_turn_is_caught(monkeypatch):
    def compiled_with(patch):
        out = []
        for case in _loans()[:3] + _loans()[4:]:  # the sheets within their bounds
            entered, previous = case["entered"], case["previous"]
            plan, sources, order = _plan(DEFN, entered, previous, case.get("period_start", False), ())
            history = [previous, *case.get("earlier", ())]
            with monkeypatch.context() as m:
                patch(m)  # the compiler's view only: the interpreter below reads the real functions
                try:
                    compiled = _compile_sheet(DEFN, plan, sources, order)(entered, history)
                except RulesError as e:  # a wrong number may push a line out of its bounds
                    compiled = str(e)
            out.append(compiled != _interpret_sheet(DEFN, entered, history, plan, sources, order))
        return out

    assert not any(compiled_with(lambda m: None))
    assert any(compiled_with(lambda m: m.setattr(ers, "_range_codes", lambda defn, a, b, where: [a])))
    assert any(compiled_with(lambda m: m.setitem(ers._NAMESPACE, "_previous_value", lambda h, c, n, w: 0)))


@settings(max_examples=300, deadline=None)
@given(inputs=sheet_inputs())
def test_a_sheet_computed_for_its_amounts_alone_has_the_full_sheets_amounts_or_its_refusal(inputs):
    """``compute_sheet(amounts_only=True)`` (the public budget's fold) gives each line's value of the full sheet,
    and refuses what it refuses with the same words."""
    from ledger.rules.eu.ers import compute_sheet, values_of

    def run(amounts_only):
        try:
            out = compute_sheet(**inputs, definition=DEFN, amounts_only=amounts_only)
        except RulesError as e:
            return (str(e), e.field)
        return out if amounts_only else values_of(out)

    assert run(True) == run(False)
    if isinstance(run(True), dict):
        assert list(run(True)) == list(CODES)  # every line, in sheet order


def _one_function(entered, previous, earlier=(), period_start=False, variants=(), amounts_only=False):
    """The function of any entered lines (``_generic_sheet``): its result, or None when it refuses."""
    sheet = ers._generic_sheet(DEFN, previous is None, period_start, tuple(variants), amounts_only)
    try:
        return sheet(entered, [previous, *earlier])
    except RulesError:
        return None


@settings(max_examples=300, deadline=None)
@given(inputs=sheet_inputs())
def test_the_function_of_any_entered_lines_equals_each_shapes_interpreted_sheet(inputs):
    compiled, interpreted = _both(**inputs)
    found = _one_function(**inputs)
    if isinstance(interpreted, tuple):  # refused: so is it (compute_sheet then asks the shape's own plan)
        assert found is None
    else:
        assert found == interpreted
        assert [(c, lv.model_dump()) for c, lv in found.items()] == \
            [(c, lv.model_dump()) for c, lv in interpreted.items()]
        assert _one_function(**inputs, amounts_only=True) == {c: lv.value for c, lv in interpreted.items()}


@settings(max_examples=200, deadline=None)
@given(inputs=sheet_inputs())
def test_compute_sheet_answers_and_refuses_as_each_shapes_compiled_sheet(inputs):
    compiled, _ = _both(**inputs)
    try:
        found = ers.compute_sheet(**inputs, definition=DEFN)
    except RulesError as e:
        found = (str(e), e.field)
    assert found == compiled


def test_a_first_turn_line_without_a_default_must_still_be_entered():
    missing = next(code for code in CARRIED if DEFN.get(code).first_turn_default is None)
    entered = {k: v for k, v in _turn1_entered().items() if k != missing}
    with pytest.raises(RulesError, match=f"ERS line {missing} .*must be entered"):
        ers.compute_sheet(entered, None, period_start=True, definition=DEFN)
    assert _one_function(entered, None, period_start=True) is None
