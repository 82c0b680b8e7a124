"""The Economic Record Sheet (ERS) as data: sheets A, B and C of one turn.

The lines, their names and formulas live in ``tables/ers.toml`` (TABLES.md
"Economic Record Sheet"; records/accounting-rt.eps and accounting-income.eps
of BAMGames/europa-universalis-rules). ``compute_sheet`` evaluates the
derived lines of one country's turn in dependency order, with the rounding
the formula states (``pct_down``: percentages of gross income, rounded down;
``pct_up``: loan interest, rounded up), and returns every line with the
lines it came from, so the budget projection can show its lineage.

Formulas are small expressions: integers, line codes, ``+ - *``, parentheses
and the functions ``prev(X)`` / ``prev(X, n)`` (line X, n turns ago),
``pct_down(x, p)``, ``pct_up(x, p)``, ``abs``, ``min``, ``max`` and
``sum_range(X, Y)`` (lines X to Y of one sheet, inclusive). Nothing else
parses: an expression is data, never code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ledger.rules.core import RulesError, load_table

PACKAGE = "ledger.rules.eu"
TABLE = "ers.toml"
RULE = "eu:ERS"

_CODE_RE = re.compile(r"^(?P<sheet>[ABC])(?P<num>\d+)(?P<sub>_pct)?$")
_FUNCS = {"prev", "pct_down", "pct_up", "abs", "min", "max", "sum_range"}


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class LineDef:
    """One line of the sheet as the table defines it."""

    code: str
    sheet: str
    name: str
    kind: Literal["entered", "derived"]
    formula: str | None = None
    default: str | None = None
    carry: bool = False
    first_turn_default: str | None = None
    period_start_formula: str | None = None
    rounding: Literal["none", "down", "up"] = "none"
    min: str | None = None
    max: str | None = None
    allowed: tuple[int, ...] | None = None
    unit: str = "ducats"
    ducats_per_tick: int | None = None
    alert_if_negative: str | None = None
    #: An expense the sheet subtracts: entered as a positive number, a negative entry refused
    #: (ledger/economy/entries.py ``check_entry``; DECISIONS.md "ERS expenses are positive").
    expense: bool = False


@dataclass(frozen=True)
class SheetDefinition:
    """Every line of the ERS, in sheet order, and the formula variants."""

    lines: tuple[LineDef, ...]
    variants: Mapping[str, Mapping[str, str]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_code", {d.code: d for d in self.lines})
        object.__setattr__(self, "_codes", tuple(d.code for d in self.lines))
        # Line references per formula, worked out once (compute_sheet runs per country and turn).
        object.__setattr__(self, "_refs", {})
        object.__setattr__(self, "_plans", {})

    def get(self, code: str) -> LineDef:
        try:
            return self._by_code[code]  # type: ignore[attr-defined]
        except KeyError:
            raise RulesError(f"unknown ERS line {code!r}", field=code, rule=RULE) from None

    @property
    def codes(self) -> tuple[str, ...]:
        return self._codes  # type: ignore[attr-defined]


class LineValue(BaseModel):
    """The value of one line for one turn, and where it came from."""

    model_config = ConfigDict(frozen=True)

    code: str
    name: str
    sheet: str
    kind: Literal["entered", "derived"]
    value: int
    formula: str | None = None
    sources: tuple[str, ...] = ()
    entered: bool = False
    defaulted: bool = False
    ticks: int | None = None
    alert: str | None = None


_LINE_FIELDS = frozenset(LineValue.model_fields)
_new_line_value = object.__new__
_set = object.__setattr__


def _line_value(**fields: Any) -> LineValue:
    """``LineValue.model_construct`` with every field given, without its per-call bookkeeping.

    A 300,000-event budget builds ~350,000 lines, and ``model_construct`` (which looks up defaults, aliases and
    extra fields each time) was the largest single cost of a rebuild. This sets what it sets for a model
    without extra fields or private attributes (tests/unit/rules/test_ers_line_value.py holds them equal).
    """
    m = _new_line_value(LineValue)
    _set(m, "__dict__", fields)
    _set(m, "__pydantic_fields_set__", set(_LINE_FIELDS))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


# --------------------------------------------------------------------------- expressions


@cache  # formulas are few and the trees are only read: parse each once
def _parse(expr: str, where: str) -> ast.expr:
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError as exc:
        raise RulesError(f"{where}: unreadable formula {expr!r}", field=where, rule=RULE) from exc
    for node in ast.walk(tree):
        ok = isinstance(
            node,
            (
                ast.BinOp,
                ast.UnaryOp,
                ast.Add,
                ast.Sub,
                ast.Mult,
                ast.USub,
                ast.UAdd,
                ast.Name,
                ast.Load,
                ast.Call,
                ast.Constant,
            ),
        )
        if isinstance(node, ast.Constant) and not (
            isinstance(node.value, int) and not isinstance(node.value, bool)
        ):
            ok = False
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords
        ):
            ok = False
        if not ok:
            raise RulesError(
                f"{where}: formula {expr!r} uses {type(node).__name__}, which ERS formulas do not allow",
                field=where,
                rule=RULE,
            )
    return tree


def _range_codes(defn: SheetDefinition, first: str, last: str, where: str) -> list[str]:
    a, b = _CODE_RE.match(first), _CODE_RE.match(last)
    if not a or not b or a["sheet"] != b["sheet"] or a["sub"] or b["sub"]:
        raise RulesError(f"{where}: bad range {first}..{last}", field=where, rule=RULE)
    lo, hi = int(a["num"]), int(b["num"])
    codes = [f"{a['sheet']}{n}" for n in range(lo, hi + 1)]
    for c in codes:
        defn.get(c)
    return codes


def _references(defn: SheetDefinition, tree: ast.expr, where: str) -> tuple[list[str], list[tuple[str, int]]]:
    """Lines of this turn and of earlier turns an expression reads."""
    current: list[str] = []
    earlier: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            fn = node.func.id  # type: ignore[attr-defined]
            if fn == "prev":
                code, n = _prev_args(node, where)
                defn.get(code)
                earlier.append((code, n))
                return
            if fn == "sum_range":
                if len(node.args) != 2 or not all(isinstance(a, ast.Name) for a in node.args):
                    raise RulesError(f"{where}: sum_range takes two line codes", field=where, rule=RULE)
                current.extend(_range_codes(defn, node.args[0].id, node.args[1].id, where))  # type: ignore[attr-defined]
                return
            for a in node.args:
                visit(a)
            return
        if isinstance(node, ast.Name):
            if node.id not in defn.codes:
                _unknown(node.id, where)
            current.append(node.id)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return list(dict.fromkeys(current)), list(dict.fromkeys(earlier))


def _unknown(code: str, where: str) -> None:
    raise RulesError(f"{where}: formula reads unknown ERS line {code!r}", field=where, rule=RULE)


def _prev_args(node: ast.Call, where: str) -> tuple[str, int]:
    args = node.args
    if not args or len(args) > 2 or not isinstance(args[0], ast.Name):
        raise RulesError(f"{where}: prev takes a line code and an optional turn count", field=where, rule=RULE)
    n = 1
    if len(args) == 2:
        if not (isinstance(args[1], ast.Constant) and isinstance(args[1].value, int) and args[1].value >= 1):
            raise RulesError(f"{where}: prev's turn count must be a positive integer", field=where, rule=RULE)
        n = args[1].value
    return args[0].id, n


def pct_down(amount: int, percent: int) -> int:
    """``percent`` % of ``amount`` rounded down (percentages of gross income)."""
    return (amount * percent) // 100


def pct_up(amount: int, percent: int) -> int:
    """``percent`` % of ``amount`` rounded up (loan interest)."""
    return -((-amount * percent) // 100)


def _evaluate(
    defn: SheetDefinition,
    tree: ast.expr,
    values: Mapping[str, int],
    history: Sequence[Mapping[str, Any] | None],
    where: str,
) -> int:
    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            return left * right
        assert isinstance(node, ast.Call)
        fn = node.func.id  # type: ignore[attr-defined]
        if fn == "prev":
            code, n = _prev_args(node, where)
            return _previous_value(history, code, n, where)
        if fn == "sum_range":
            return sum(
                values[c]
                for c in _range_codes(defn, node.args[0].id, node.args[1].id, where)  # type: ignore[attr-defined]
            )
        args = [ev(a) for a in node.args]
        if fn == "pct_down":
            return pct_down(*args)
        if fn == "pct_up":
            return pct_up(*args)
        if fn == "abs":
            return abs(*args)
        if fn == "min":
            return min(args)
        return max(args)

    return ev(tree)


def _previous_value(history: Sequence[Mapping[str, Any] | None], code: str, n: int, where: str) -> int:
    """Line ``code`` of n turns ago; 0 when that turn precedes the game."""
    if n > len(history) or history[n - 1] is None:
        return 0
    sheet = history[n - 1]
    if code not in sheet:
        raise RulesError(
            f"{where}: the sheet of {n} turn(s) ago has no line {code}", field=where, rule=RULE
        )
    raw = sheet[code]
    return raw.value if isinstance(raw, LineValue) else int(raw)


# --------------------------------------------------------------------------- loading


def _expense_flag(code: str, kind: str, raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise RulesError(f"{code}: expense is true or false, not {raw!r}", field=code, rule=RULE)
    if raw and kind != "entered":
        raise RulesError(f"{code}: only an entered line is an expense (a derived line is never typed)",
                         field=code, rule=RULE)
    return raw


def parse_definition(data: Mapping[str, Any]) -> SheetDefinition:
    """Build and check a sheet definition from the parsed TOML table.

    Refuses duplicated or malformed codes, formulas that read unknown lines,
    entered lines with a formula and derived lines without one.
    """
    lines = []
    for raw in data.get("line", []):
        code = raw.get("code", "")
        if not _CODE_RE.match(code):
            raise RulesError(f"malformed ERS line code {code!r}", field=code, rule=RULE)
        kind = raw.get("kind")
        if kind not in ("entered", "derived"):
            raise RulesError(f"{code}: kind must be entered or derived, not {kind!r}", field=code, rule=RULE)
        if kind == "derived" and not raw.get("formula"):
            raise RulesError(f"{code}: a derived line needs a formula", field=code, rule=RULE)
        if kind == "entered" and raw.get("formula"):
            raise RulesError(f"{code}: an entered line has no formula (use default)", field=code, rule=RULE)
        allowed = raw.get("allowed")
        lines.append(
            LineDef(
                code=code,
                sheet=raw["sheet"],
                name=raw["name"],
                kind=kind,
                formula=raw.get("formula"),
                default=raw.get("default"),
                carry=bool(raw.get("carry", False)),
                first_turn_default=raw.get("first_turn_default"),
                period_start_formula=raw.get("period_start_formula"),
                rounding=raw.get("rounding", "none"),
                min=raw.get("min"),
                max=raw.get("max"),
                allowed=tuple(allowed) if allowed is not None else None,
                unit=raw.get("unit", "ducats"),
                ducats_per_tick=raw.get("ducats_per_tick"),
                alert_if_negative=raw.get("alert_if_negative"),
                expense=_expense_flag(code, kind, raw.get("expense", False)),
            )
        )
    codes = [d.code for d in lines]
    duplicates = sorted({c for c in codes if codes.count(c) > 1})
    if duplicates:
        raise RulesError(f"ERS lines defined twice: {duplicates}", field=duplicates[0], rule=RULE)
    variants = {
        name: {k: v for k, v in body.items() if k != "description"}
        for name, body in data.get("variant", {}).items()
    }
    defn = SheetDefinition(lines=tuple(lines), variants=variants)
    # Check every expression once, so a bad table fails at load time.
    for d in lines:
        for label, expr in _expressions(d):
            _references(defn, _parse(expr, f"{d.code}.{label}"), f"{d.code}.{label}")
        if d.rounding not in ("none", "down", "up"):
            raise RulesError(f"{d.code}: unknown rounding {d.rounding!r}", field=d.code, rule=RULE)
    for name, overrides in variants.items():
        for code, expr in overrides.items():
            defn.get(code)
            _references(defn, _parse(expr, f"{code}@{name}"), f"{code}@{name}")
    return defn


def _expressions(d: LineDef) -> Iterable[tuple[str, str]]:
    for label in ("formula", "default", "first_turn_default", "period_start_formula", "min", "max"):
        expr = getattr(d, label)
        if expr is not None:
            yield label, expr


@cache
def ers_definition() -> SheetDefinition:
    """The ruleset's ERS (``tables/ers.toml``), read and checked once."""
    return parse_definition(load_table(PACKAGE, TABLE))


# --------------------------------------------------------------------------- computing


def _as_int(code: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"ERS line {code} must be a whole number, not {value!r}", field=code, rule=RULE)
    return value


def compute_sheet(
    entered: Mapping[str, int],
    previous: Mapping[str, Any] | None,
    *,
    earlier: Sequence[Mapping[str, Any] | None] = (),
    period_start: bool = False,
    variants: Iterable[str] = (),
    definition: SheetDefinition | None = None,
    amounts_only: bool = False,
) -> dict[str, Any]:
    """Compute one country's ERS for one turn.

    ``entered``: the entered lines (codes → ducats; B40–B43 take the number of
    campaign ticks). ``previous``: last turn's sheet (``LineValue``s or ints),
    ``None`` on the game's first turn, when A1 must be entered. ``earlier``:
    the sheets of two and three turns ago (most recent first), for the
    international-loan schedule (C2, C3). ``period_start``: first turn of a
    period (A28 restarts). ``variants``: ruleset options replacing formulas
    (``inflation_minimum_loss``). Returns every line in sheet order; raises
    ``RulesError`` on unknown codes, cycles, or entered values out of bounds.
    ``amounts_only``: each line's value alone (``{code: int}``, the same checks): what a fold that keeps only
    the amounts reads, without building ~95 ``LineValue``s per sheet.
    """
    defn = definition or ers_definition()
    variants = tuple(variants)
    for v in variants:
        if v not in defn.variants:
            raise RulesError(f"unknown ERS variant {v!r}", field="variants", rule=RULE)
    for code, value in entered.items():
        d = defn.get(code)
        _as_int(code, value)
        carried_in = d.carry and previous is None
        if d.kind == "derived" and not carried_in:
            raise RulesError(
                f"ERS line {code} ({d.name}) is derived; it cannot be entered", field=code, rule=RULE
            )
    history: list[Mapping[str, Any] | None] = [previous, *earlier]
    # Any set of entered lines first: one function per kind of turn, compiled at start-up (a shape's own
    # function cost ~12 ms the first time a process met it).
    generic = _generic_sheet(defn, previous is None, period_start, variants, amounts_only)
    if generic is not None:
        try:
            return generic(entered, history)  # type: ignore[no-any-return]
        except RulesError:
            pass  # refused: the shape's own plan below says which refusal, in its order of evaluation
    shape, planned = _planned(defn, entered, previous, period_start, variants)
    if amounts_only:
        key = ("amounts", shape)
        only = defn._plans.get(key)  # type: ignore[attr-defined]
        if only is None:
            only = defn._plans[key] = _compile_sheet(defn, *planned[:3], amounts_only=True)  # type: ignore[attr-defined]
        return only(entered, history)  # type: ignore[no-any-return]
    if planned[3] is None:
        planned = defn._plans[shape] = (*planned[:3], _compile_sheet(defn, *planned[:3]))  # type: ignore[attr-defined]
    return planned[3](entered, history)  # type: ignore[no-any-return]


def _planned(defn: SheetDefinition, entered: Mapping[str, int], previous: Mapping[str, Any] | None,
             period_start: bool, variants: tuple[str, ...]) -> tuple[Any, Any]:
    """(shape, (plan, sources, order, compiled function or None: not compiled yet)) of a sheet.

    The plan (each line's expression, its sources, the evaluation order) and the sheet's compiled function
    depend only on which lines are entered and on the flags: worked out once per shape, since a budget
    computes hundreds of sheets. The function is compiled when first asked for (``compute_sheet``): a budget
    asks for the amounts' function alone (``ledger.economy.sheets.compute``), and compiling both took as long.
    """
    shape = (frozenset(entered), previous is None, period_start, variants)
    planned = defn._plans.get(shape)  # type: ignore[attr-defined]
    if planned is None:
        planned = defn._plans[shape] = (*_plan(defn, entered, previous, period_start, variants), None)  # type: ignore[attr-defined]
    return shape, planned


#: Per line of a sheet, what its ``LineValue`` holds besides its value and ticks (``sheet_lines``): the line's
#: definition, formula, sources, whether it was entered, whether its default stood.
LinePlan = tuple[LineDef, "str | None", tuple[str, ...], bool, bool]


def sheet_lines(entered: Mapping[str, int], previous: Mapping[str, Any] | None, *, period_start: bool = False,
                variants: Iterable[str] = (), definition: SheetDefinition | None = None) -> tuple[LinePlan, ...]:
    """Per line in sheet order, what ``compute_sheet``'s ``LineValue`` of a sheet of this shape holds besides its
    value: with ``compute_sheet(..., amounts_only=True)``, all of the full answer (its ``ticks``: the entered
    number of a line counted in ticks; its ``alert``: the line's when the value is negative) without building
    a ``LineValue`` per line (a budget of the 300,000-event campaign has 224,000 lines)."""
    defn = definition or ers_definition()
    shape, (plan, sources, _, _) = _planned(defn, entered, previous, period_start, tuple(variants))
    key = ("lines", shape)
    found = defn._plans.get(key)  # type: ignore[attr-defined]
    if found is None:
        found = defn._plans[key] = tuple(  # type: ignore[attr-defined]
            (d, plan[d.code][0], sources[d.code], plan[d.code][2], plan[d.code][3]) for d in defn.lines)
    return found  # type: ignore[no-any-return]


def _interpret_sheet(
    defn: SheetDefinition,
    entered: Mapping[str, int],
    history: Sequence[Mapping[str, Any] | None],
    plan: Mapping[str, tuple[str | None, ast.expr | None, bool, bool]],
    sources: Mapping[str, tuple[str, ...]],
    order: Sequence[str],
) -> dict[str, LineValue]:
    """The sheet by walking each formula's tree: the reference the compiled sheets are tested against."""
    values: dict[str, int] = {}
    for code in order:
        d = defn.get(code)
        expr, tree, was_entered, _ = plan[code]
        if tree is None:
            raw = entered[code]
            values[code] = raw * d.ducats_per_tick if d.ducats_per_tick else raw
        else:
            values[code] = _evaluate(defn, tree, values, history, code)

    result: dict[str, LineValue] = {}
    for d in defn.lines:
        expr, tree, was_entered, defaulted = plan[d.code]
        value = values[d.code]
        if d.allowed is not None or d.min is not None or d.max is not None:  # most lines have no bounds
            _check_bounds(defn, d, value, values, history)
        result[d.code] = _line_value(  # values computed here: no validation needed
            code=d.code,
            name=d.name,
            sheet=d.sheet,
            kind=d.kind,
            value=value,
            formula=expr,
            sources=sources[d.code],
            entered=was_entered,
            defaulted=defaulted,
            ticks=entered.get(d.code) if d.ducats_per_tick and was_entered else None,
            alert=d.alert_if_negative if d.alert_if_negative and value < 0 else None,
        )
    return result


# --------------------------------------------------------------------------- compiling
#
# A sheet of a given shape (its plan) is turned into one Python function, built once: every line a local
# variable assigned in dependency order, every formula inlined as Python arithmetic on those locals, the
# bounds checked in sheet order, the ``LineValue``s built from constants. Walking the trees (``_evaluate``)
# cost ~1 ms per sheet, the largest share of a budget rebuild. The source is generated from the parsed trees,
# which ``_parse`` has restricted to integers, line codes, + - * and the ERS functions: a formula stays data.
# ``_interpret_sheet`` is the reference (tests/unit/rules/eu/test_ers_compiled.py holds the two equal).

#: The Python operator of each allowed binary and unary operation (``_parse`` refuses every other).
_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_UNARY: dict[type, str] = {ast.USub: "-", ast.UAdd: "+"}


def _emit(defn: SheetDefinition, node: ast.AST, where: str, name: Any) -> str:
    """Python source of one expression tree; ``name(code)`` is the source that reads line ``code`` this turn."""
    if isinstance(node, ast.Constant):
        return repr(int(node.value))
    if isinstance(node, ast.Name):
        return name(node.id)
    if isinstance(node, ast.UnaryOp):
        return f"({_UNARY[type(node.op)]}{_emit(defn, node.operand, where, name)})"
    if isinstance(node, ast.BinOp):
        left, right = _emit(defn, node.left, where, name), _emit(defn, node.right, where, name)
        return f"({left} {_BINOPS[type(node.op)]} {right})"
    assert isinstance(node, ast.Call)
    fn = node.func.id  # type: ignore[attr-defined]
    if fn == "prev":
        code, n = _prev_args(node, where)
        return f"_previous_value(history, {code!r}, {n}, {where!r})"
    if fn == "sum_range":
        codes = _range_codes(defn, node.args[0].id, node.args[1].id, where)  # type: ignore[attr-defined]
        return f"({' + '.join(['0', *map(name, codes)])})"
    args = ", ".join(_emit(defn, a, where, name) for a in node.args)
    if fn in ("min", "max"):
        return f"{fn}([{args}])"  # as the interpreter: min of a list (one argument is its own minimum)
    return f"{fn}({args})"  # pct_down, pct_up, abs


#: What the generated functions may call: nothing else is in their namespace.
_NAMESPACE = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "pct_down": pct_down, "pct_up": pct_up,
              "_previous_value": _previous_value}


def compile_expression(defn: SheetDefinition, expr: str, where: str) -> Any:
    """One formula as a function ``(values, history) -> int``, equal to ``_evaluate`` of its tree."""
    body = _emit(defn, _parse(expr, where), where, lambda c: f"values[{c!r}]")
    return eval(compile(f"lambda values, history: {body}", f"<ERS {where}>", "eval"), dict(_NAMESPACE))


def _compile_sheet(
    defn: SheetDefinition,
    plan: Mapping[str, tuple[str | None, ast.expr | None, bool, bool]],
    sources: Mapping[str, tuple[str, ...]],
    order: Sequence[str],
    amounts_only: bool = False,
) -> Any:
    """The function ``(entered, history) -> {code: LineValue}`` of one plan, equal to ``_interpret_sheet``
    (``amounts_only``: ``{code: value}``)."""
    out = _SheetSource(defn)
    const, local, lines = out.const, out.local, out.src
    for code in order:
        d = defn.get(code)
        expr, tree, _, _ = plan[code]
        if tree is None:
            value = f"entered[{code!r}]"
            lines.append(f"    {local(code)} = {value} * {d.ducats_per_tick!r}" if d.ducats_per_tick
                         else f"    {local(code)} = {value}")
        else:
            lines.append(f"    {local(code)} = {_emit(defn, tree, code, local)}")
    out.bounds()
    lines.append("    return {")
    if amounts_only:
        lines.extend(f"        {d.code!r}: {local(d.code)}," for d in defn.lines)
    for d in defn.lines if not amounts_only else ():
        expr, _, was_entered, defaulted = plan[d.code]
        v = local(d.code)
        ticks = f"entered[{d.code!r}]" if d.ducats_per_tick and was_entered else "None"
        alert = f"({const(d.alert_if_negative)} if {v} < 0 else None)" if d.alert_if_negative else "None"
        # The fields in LineValue's order (``_line_value``).
        lines.append(
            f"        {d.code!r}: _line_value(code={d.code!r}, name={const(d.name)}, sheet={d.sheet!r}, "
            f"kind={d.kind!r}, value={v}, formula={const(expr)}, sources={const(sources[d.code])}, "
            f"entered={was_entered!r}, defaulted={defaulted!r}, ticks={ticks}, alert={alert}),")
    lines.append("    }")
    return out.function("<ERS sheet>")


class _SheetSource:
    """The source of one compiled sheet function ``sheet(entered, history)``, as ``_compile_sheet`` and
    ``_compile_generic`` write it: its constants (``K``), a local per line, the bounds, the compiled function."""

    def __init__(self, defn: SheetDefinition) -> None:
        self.defn = defn
        self.consts: list[Any] = []
        self.src = ["def sheet(entered, history):"]

    def const(self, value: Any) -> str:
        self.consts.append(value)
        return f"K[{len(self.consts) - 1}]"

    @staticmethod
    def local(code: str) -> str:
        return f"v_{code}"

    def bounds(self) -> None:
        """Bounds in sheet order, each line's allowed values, then its minimum, then its maximum: the first line
        out of bounds raises, as in the interpreter."""
        for d in self.defn.lines:
            v = self.local(d.code)
            if d.allowed is not None:
                self.src.append(f"    if {v} not in {self.const(d.allowed)}: "
                                f"_out_of_bounds({self.const(d)}, {v}, None, None)")
            for label, expr, bad in (("min", d.min, "<"), ("max", d.max, ">")):
                if expr is not None:
                    self.src.append(f"    b = {_emit(self.defn, _parse(expr, d.code), d.code, self.local)}")
                    self.src.append(f"    if {v} {bad} b: _out_of_bounds({self.const(d)}, {v}, {label!r}, b)")

    def function(self, filename: str) -> Any:
        namespace = {**_NAMESPACE, "K": tuple(self.consts), "_line_value": _line_value,
                     "_out_of_bounds": _out_of_bounds, "_must_enter": _must_enter}
        exec(compile("\n".join(self.src), filename, "exec"), namespace)
        return namespace["sheet"]


#: One variant of a line in ``_generic_sheet``: (expression, tree, entered, defaulted, sources); None: refused.
_Variant = tuple[str | None, ast.expr | None, bool, bool, tuple[str, ...]] | None


def _variant(defn: SheetDefinition, code: str, expr: str | None, tree: ast.expr | None, was_entered: bool,
             defaulted: bool, deps: dict[str, set[str]]) -> _Variant:
    """A line's plan entry as ``_plan`` makes it, with its sources; the lines it reads are added to ``deps``."""
    sources: tuple[str, ...] = ()
    if tree is not None:
        refs = defn._refs.get((expr, code))  # type: ignore[attr-defined]
        if refs is None:
            refs = defn._refs[(expr, code)] = _references(defn, tree, code)  # type: ignore[attr-defined]
        cur, old = refs
        deps[code].update(cur)
        sources = tuple(cur) + tuple(f"{c}[t-{n}]" for c, n in old)
    return (expr, tree, was_entered, defaulted, sources)


def _generic_sheet(defn: SheetDefinition, first: bool, period_start: bool, variants: tuple[str, ...],
                   amounts_only: bool) -> Any:
    """The sheet's function for every set of entered lines at once (``first``: no previous sheet), or None
    when the lines' formulas and defaults together form a cycle (then each shape is planned and compiled).

    A shape's function (``_compile_sheet``) is compiled for each set of entered lines a sheet has: ~12 ms the
    first time a process meets it, paid by the first page that computes such a sheet. This one takes, for each
    line that may be entered, its entered value or its default as ``_plan`` would, by the entered mapping at
    run time, in an order that puts every default after what it reads: the values and the lines of
    ``_plan``'s shape for every sheet computed (``tests/unit/rules/eu/test_ers_compiled.py``). A sheet it
    refuses is left to the shape's own plan, which refuses it as before (its first refusal in its own order)."""
    key = ("any", first, period_start, variants, amounts_only)
    found = defn._plans.get(key, False)  # type: ignore[attr-defined]
    if found is not False:
        return found
    deps: dict[str, set[str]] = {d.code: set() for d in defn.lines}
    # Each line's plan when entered and when not (``_plan``'s branches): None when it cannot be entered.
    lines: dict[str, tuple[_Variant, _Variant]] = {}
    for d in defn.lines:
        if d.kind == "entered":
            on = _variant(defn, d.code, None, None, True, False, deps)
            off = _variant(defn, d.code, d.default, _parse(d.default or "0", d.code), False, True, deps)
        elif d.carry and first:
            on = _variant(defn, d.code, None, None, True, False, deps)
            expr = d.period_start_formula if d.period_start_formula else d.first_turn_default
            off = None if d.first_turn_default is None else \
                _variant(defn, d.code, expr, _parse(expr, d.code), False, True, deps)  # type: ignore[arg-type]
        else:
            expr = d.formula
            if period_start and d.period_start_formula:
                expr = d.period_start_formula
            for v in variants:
                expr = defn.variants[v].get(d.code, expr)
            assert expr is not None
            on, off = None, _variant(defn, d.code, expr, _parse(expr, d.code), False, False, deps)
        lines[d.code] = (on, off)
    try:
        order = _dependency_order(defn.codes, {code: sorted(found) for code, found in deps.items()})
    except RulesError:
        order = None
    found = None if order is None else _compile_generic(defn, lines, order, amounts_only)
    defn._plans[key] = found  # type: ignore[attr-defined]
    return found


def _compile_generic(defn: SheetDefinition, lines: Mapping[str, tuple[_Variant, _Variant]], order: Sequence[str],
                     amounts_only: bool) -> Any:
    """``_compile_sheet`` of ``_generic_sheet``'s variants: each line that may be entered takes its entered value
    or its default by ``code in entered`` at run time; a line that must be entered and is not is refused."""
    out = _SheetSource(defn)
    const, local, src = out.const, out.local, out.src
    for code in order:
        d = defn.get(code)
        on, off = lines[code]
        value = f"entered[{code!r}] * {d.ducats_per_tick!r}" if d.ducats_per_tick else f"entered[{code!r}]"
        if off is None:
            default = f"_must_enter({const(d)})"
        else:
            default = _emit(defn, off[1], code, local)  # type: ignore[arg-type]
        src.append(f"    {local(code)} = ({value} if {code!r} in entered else {default})" if on is not None
                   else f"    {local(code)} = {default}")
    out.bounds()
    src.append("    return {")
    if amounts_only:
        src.extend(f"        {d.code!r}: {local(d.code)}," for d in defn.lines)
    for d in defn.lines if not amounts_only else ():
        on, off = lines[d.code]
        v = local(d.code)
        alert = f"({const(d.alert_if_negative)} if {v} < 0 else None)" if d.alert_if_negative else "None"

        def field(pick: Any) -> str:
            """A field of the line's variant: the entered one's or the default's, by the entered mapping."""
            if on is None or off is None:
                return const(pick(on if off is None else off))
            return f"({const(pick(on))} if {d.code!r} in entered else {const(pick(off))})"

        entered_flag = "True" if off is None else ("False" if on is None else f"({d.code!r} in entered)")
        defaulted = f"({d.code!r} not in entered)" if on is not None and off is not None and off[3] else \
            repr(bool(off is not None and on is None and off[3]))
        ticks = (f"(entered[{d.code!r}] if {d.code!r} in entered else None)" if off is not None else
                 f"entered[{d.code!r}]") if d.ducats_per_tick and on is not None else "None"
        src.append(
            f"        {d.code!r}: _line_value(code={d.code!r}, name={const(d.name)}, sheet={d.sheet!r}, "
            f"kind={d.kind!r}, value={v}, formula={field(lambda x: x[0])}, sources={field(lambda x: x[4])}, "
            f"entered={entered_flag}, defaulted={defaulted}, ticks={ticks}, alert={alert}),")
    src.append("    }")
    return out.function("<ERS sheet, any entered lines>")


def _must_enter(d: LineDef) -> int:
    """A first turn's line that has no first-turn default and was not entered (``_plan``'s refusal)."""
    raise RulesError(f"ERS line {d.code} ({d.name}): no previous turn, so it must be entered", field=d.code,
                     rule=RULE)


def prepare_sheets(definition: SheetDefinition | None = None, variants: tuple[str, ...] = ()) -> None:
    """Compile the functions of every set of entered lines for a turn with and without a previous sheet, as a
    sheet and as amounts (``_generic_sheet``): a new process's start pays them (~15 ms each), not its first
    page of a treasury entry or of another country's sheet."""
    defn = definition or ers_definition()
    for first in (False, True):
        for amounts_only in (False, True):
            _generic_sheet(defn, first, False, variants, amounts_only)


def _out_of_bounds(d: LineDef, value: int, label: str | None, bound: int | None) -> None:
    """The refusal of a value out of a line's bounds (``label``: "min" or "max"; None: not an allowed value)."""
    if label is None:
        raise RulesError(
            f"ERS line {d.code} ({d.name}) must be one of {list(d.allowed or ())}, not {value}", field=d.code,
            rule=RULE,
        )
    word = "at least" if label == "min" else "at most"
    raise RulesError(
        f"ERS line {d.code} ({d.name}) must be {word} {bound} ({getattr(d, label)}), not {value}", field=d.code,
        rule=RULE,
    )


def _plan(
    defn: SheetDefinition,
    entered: Mapping[str, int],
    previous: Mapping[str, Any] | None,
    period_start: bool,
    variants: tuple[str, ...],
) -> tuple[dict[str, tuple[str | None, ast.expr | None, bool, bool]], dict[str, tuple[str, ...]], list[str]]:
    """Each line's expression this turn, the lines it reads, and an order in which to evaluate them."""
    # Decide, for each line, the expression that gives its value this turn.
    plan: dict[str, tuple[str | None, ast.expr | None, bool, bool]] = {}
    for d in defn.lines:
        expr: str | None
        if d.kind == "entered":
            if d.code in entered:
                plan[d.code] = (None, None, True, False)
                continue
            expr = d.default or "0"
            plan[d.code] = (d.default, _parse(expr, d.code), False, True)
            continue
        if d.carry and previous is None:
            if d.code in entered:
                plan[d.code] = (None, None, True, False)
                continue
            if d.first_turn_default is None:
                raise RulesError(
                    f"ERS line {d.code} ({d.name}): no previous turn, so it must be entered",
                    field=d.code,
                    rule=RULE,
                )
            # A28 on the first turn of the game: the period starts here.
            expr = d.period_start_formula if d.period_start_formula else d.first_turn_default
            plan[d.code] = (expr, _parse(expr, d.code), False, True)
            continue
        expr = d.formula
        if period_start and d.period_start_formula:
            expr = d.period_start_formula
        for v in variants:
            expr = defn.variants[v].get(d.code, expr)
        assert expr is not None
        plan[d.code] = (expr, _parse(expr, d.code), False, False)

    deps: dict[str, list[str]] = {}
    sources: dict[str, tuple[str, ...]] = {}
    for code, (expr, tree, _, _) in plan.items():
        if tree is None:
            deps[code], sources[code] = [], ()
            continue
        refs = defn._refs.get((expr, code))  # type: ignore[attr-defined]
        if refs is None:
            refs = defn._refs[(expr, code)] = _references(defn, tree, code)  # type: ignore[attr-defined]
        cur, old = refs
        deps[code] = cur
        sources[code] = tuple(cur) + tuple(f"{c}[t-{n}]" for c, n in old)

    return plan, sources, _dependency_order(defn.codes, deps)

def _check_bounds(
    defn: SheetDefinition,
    d: LineDef,
    value: int,
    values: Mapping[str, int],
    history: Sequence[Mapping[str, Any] | None],
) -> None:
    if d.allowed is not None and value not in d.allowed:
        raise RulesError(
            f"ERS line {d.code} ({d.name}) must be one of {list(d.allowed)}, not {value}",
            field=d.code,
            rule=RULE,
        )
    for label, expr, bad in (("min", d.min, lambda v, b: v < b), ("max", d.max, lambda v, b: v > b)):
        if expr is None:
            continue
        bound = _evaluate(defn, _parse(expr, d.code), values, history, d.code)
        if bad(value, bound):
            word = "at least" if label == "min" else "at most"
            raise RulesError(
                f"ERS line {d.code} ({d.name}) must be {word} {bound} ({expr}), not {value}",
                field=d.code,
                rule=RULE,
            )


def _dependency_order(codes: Sequence[str], deps: Mapping[str, list[str]]) -> list[str]:
    """Lines in an order where each comes after what it reads; refuses cycles."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(code: str, path: list[str]) -> None:
        if state.get(code) == 2:
            return
        if state.get(code) == 1:
            cycle = path[path.index(code) :] + [code]
            raise RulesError(f"ERS formulas form a cycle: {' -> '.join(cycle)}", field=code, rule=RULE)
        state[code] = 1
        for dep in deps[code]:
            visit(dep, [*path, code])
        state[code] = 2
        order.append(code)

    for code in codes:
        visit(code, [])
    return order


def values_of(sheet: Mapping[str, LineValue]) -> dict[str, int]:
    """The plain ``{code: value}`` of a computed sheet."""
    return {code: lv.value for code, lv in sheet.items()}
