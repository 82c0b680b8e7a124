"""The ruling envelope shared by every ruleset, and the helpers resolvers use.

A resolver is a pure function ``resolve(inputs, dice) -> Ruling``: it reads its
tables, asks ``dice`` for every die it needs (the application supplies server
dice, an auditor supplies the recorded ones), and returns a Ruling that itemises
every modifier with its rule reference, the table cell read and the outcome.
Nothing here does I/O except reading the ruleset's own data files, once.
"""

from __future__ import annotations

import csv
import importlib
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field


class RulesError(ValueError):
    """A rules input is impossible or a procedure is unknown.

    ``field`` names the offending input, ``rule`` the rule code it violates.
    """

    def __init__(self, message: str, *, field: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.field = field
        self.rule = rule


# --------------------------------------------------------------------------- model


class Modifier(BaseModel):
    """One die-roll modifier, with why it applies and where the rule says so."""

    model_config = ConfigDict(frozen=True)

    value: int
    reason: str
    rule: str = Field(description="Rule code, e.g. 'eu:M14'")
    section: str | None = Field(default=None, description="Seed file and section")


class Die(BaseModel):
    """One die (or group of dice summed) drawn for a purpose.

    ``index`` is the gapless roll index of the turn when the server drew it;
    ``manual`` marks physical dice entered by a game master.
    """

    model_config = ConfigDict(frozen=True)

    purpose: str
    sides: int = 10
    count: int = 1
    values: tuple[int, ...]
    index: int | None = None
    manual: bool = False

    @property
    def total(self) -> int:
        return sum(self.values)


class TableCell(BaseModel):
    """The cell of a table a procedure read."""

    model_config = ConfigDict(frozen=True)

    table: str
    row: str
    column: str | None = None
    value: Any = None


#: What a ruling can imply; the projections know how to apply each kind.
EFFECT_KINDS = frozenset(
    {
        "ld_lost",  # land detachments lost (amount may be a fraction: 1/3, 2/3)
        "nd_lost",  # naval detachments lost
        "ntd_lost",  # naval transport detachments lost
        "units_damaged",
        "units_captured",
        "morale_lost",
        "marker_placed",
        "marker_removed",
        "marker_flipped",
        "ducats",  # ducats to an ERS line (ers_line, amount signed)
        "ers_tick",  # a tick on an ERS counting line (B40-B43)
        "leader_killed",
        "leader_wounded",
        "leader_captured",
        "stack_stopped",
        "stack_destroyed",
        "stack_retreats",
        "battle_forced",
        "interception_succeeded",
        "stability_changed",
        "inflation_changed",
        "victory_points",
        "discovery",
        "control_changed",
        "fortress_level_changed",
        "trade_fleet_lost",
        "round_changed",
        "weather",
        "campaign_chosen",
        "revolt",
        "peace",
        "settlement_reduced",  # COL/TP levels lost (detail destroyed at level 0)
        "province_ceded",  # ownership transferred by a peace
        "casus_belli",  # a casus belli granted (detail: temporary, valid_turns)
        "dti_changed",  # domestic trade index change (amount signed)
        "ers_entry",  # a value written on an entered ERS line (ers_line, amount: %, ticks or ducats)
        "pf_lost",  # pfc: strength points (PF) lost by a side (target) or a unit
        "morale_test",  # pfc: an immediate, mandatory morale test of the target
        "formation_moved",  # his: a formation placed in another space (detail: from_space, reason)
        "cp_spent",  # his: command points spent on an action (amount)
        "withdrew_into_fortifications",  # his: units and leaders go inside the space's fortifications
        "note",
    }
)


class Effect(BaseModel):
    """A typed consequence of a ruling, applied by the projections."""

    model_config = ConfigDict(frozen=True)

    kind: str
    country: str | None = None
    target: str | None = Field(default=None, description="Stack, province, leader or zone")
    amount: Fraction | None = None
    ers_line: str | None = None
    marker: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        if self.kind not in EFFECT_KINDS:
            raise ValueError(f"unknown effect kind {self.kind!r}")


class Step(BaseModel):
    """One step of a multi-step procedure (a battle's fire, shock, pursuit...)."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str | None = None
    modifiers: tuple[Modifier, ...] = ()
    dice: tuple[Die, ...] = ()
    total: int | None = None
    table_cell: TableCell | None = None
    outcome: dict[str, Any] = Field(default_factory=dict)


class Ruling(BaseModel):
    """Everything needed to audit and recompute one die-driven procedure."""

    model_config = ConfigDict(frozen=True)

    ruleset: str
    ruleset_version: str
    procedure: str
    title: str
    inputs: dict[str, Any]
    modifiers: tuple[Modifier, ...] = ()
    dice: tuple[Die, ...] = ()
    total: int | None = None
    table_cell: TableCell | None = None
    outcome: dict[str, Any] = Field(default_factory=dict)
    effects: tuple[Effect, ...] = ()
    steps: tuple[Step, ...] = ()
    gm_supplied: tuple[str, ...] = Field(
        default=(), description="Readings a game master supplied where the rules print no table"
    )
    summary: str = ""

    def all_dice(self) -> list[Die]:
        """Every die of the ruling in the order it was drawn."""
        if self.dice:
            return list(self.dice)
        return [d for s in self.steps for d in s.dice]


# --------------------------------------------------------------------------- dice


class DiceSource(Protocol):
    """Where a resolver gets its dice. Resolvers never call ``random``."""

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die: ...


class FixedDice:
    """Dice given in advance, in draw order (an auditor's or a test's dice).

    Accepts plain numbers (one die each) or recorded ``Die`` objects, in which
    case the purpose and die type must match what the resolver asks for.
    """

    def __init__(self, values: Iterable[int | Die | Sequence[int]]):
        self._queue = list(values)
        self.drawn: list[Die] = []

    def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
        if not self._queue:
            raise RulesError(
                f"not enough dice: the procedure asks for another {count}d{sides} ({purpose})",
                field="dice",
            )
        item = self._queue.pop(0)
        if isinstance(item, Die):
            if item.sides != sides or len(item.values) != count:
                raise RulesError(
                    f"recorded die {item.count}d{item.sides} for {item.purpose!r} "
                    f"does not match the {count}d{sides} asked for {purpose!r}",
                    field="dice",
                )
            die = item
        else:
            values = tuple(item) if isinstance(item, (list, tuple)) else (int(item),)
            if len(values) != count:
                raise RulesError(f"{purpose}: expected {count} dice, got {len(values)}", field="dice")
            for v in values:
                if not 1 <= v <= sides:
                    raise RulesError(f"{purpose}: a d{sides} cannot show {v}", field="dice")
            die = Die(purpose=purpose, sides=sides, count=count, values=values)
        self.drawn.append(die)
        return die

    @property
    def unused(self) -> int:
        return len(self._queue)


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Procedure:
    ruleset: str
    code: str
    title: str
    seed: str
    inputs: type[BaseModel]
    resolver: Callable[[BaseModel, DiceSource], Ruling]
    #: Input fields a campaign carries from this procedure's previous ruling
    #: (its ``outcome["carry"]``) when a request leaves them out, e.g. a weather
    #: result that forces the next turn's weather.
    carry: tuple[str, ...] = ()
    #: Input fields that are ruleset options where the seeds disagree: the game master chooses a value
    #: for the campaign (setting ``rules_options``, key "CODE.field"); a request that leaves the field
    #: out gets the campaign's choice, and the ruling's inputs record the reading used.
    options: tuple[str, ...] = ()

    def resolve(self, inputs: dict[str, Any] | BaseModel, dice: DiceSource) -> Ruling:
        model = inputs if isinstance(inputs, self.inputs) else self.inputs.model_validate(inputs)
        return self.resolver(model, dice)

    def input_schema(self) -> dict[str, Any]:
        return json_schema(self.inputs)


@cache
def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, built once per process (pydantic builds it anew on every call: 1-3 ms, the turn
    page's form asked for it per page). Shared by every caller: read it, never change it."""
    return model.model_json_schema()


@dataclass
class Ruleset:
    id: str
    version: str
    title: str
    procedures: dict[str, Procedure] = field(default_factory=dict)

    def procedure(
        self, code: str, *, title: str, seed: str, inputs: type[BaseModel], carry: tuple[str, ...] = (),
        options: tuple[str, ...] = (),
    ) -> Callable[[Callable[..., Ruling]], Callable[..., Ruling]]:
        """Register a resolver: ``@EU.procedure("M14", title=..., seed=..., inputs=...)``."""

        def register(fn: Callable[..., Ruling]) -> Callable[..., Ruling]:
            if code in self.procedures:
                raise RuntimeError(f"procedure {self.id}:{code} registered twice")
            unknown = [f for f in carry if f not in inputs.model_fields]
            if unknown:
                raise RuntimeError(f"procedure {self.id}:{code} carries unknown inputs {unknown}")
            bad = [f for f in options if f not in inputs.model_fields or inputs.model_fields[f].is_required()]
            if bad:
                raise RuntimeError(f"procedure {self.id}:{code}: options {bad} must be inputs with a default")
            self.procedures[code] = Procedure(self.id, code, title, seed, inputs, fn, tuple(carry), tuple(options))
            return fn

        return register

    def get(self, code: str) -> Procedure:
        try:
            return self.procedures[code]
        except KeyError:
            raise RulesError(
                f"ruleset {self.id!r} has no procedure {code!r}", field="procedure"
            ) from None

    def ruling(self, code: str, inputs: BaseModel, **fields: Any) -> Ruling:
        """Build a Ruling of this ruleset, filling the envelope fields."""
        proc = self.procedures.get(code)
        return Ruling(
            ruleset=self.id,
            ruleset_version=self.version,
            procedure=code,
            title=proc.title if proc else code,
            inputs=inputs.model_dump(mode="json"),
            **fields,
        )


def check_rules_options(ruleset: Ruleset, options: Any) -> dict[str, Any]:
    """A campaign's ``rules_options`` checked against the ruleset: each key "CODE.field" names an option
    of a procedure, each value is one the option's input accepts (returned as that input records it)."""
    from pydantic import TypeAdapter, ValidationError

    from ledger.domain.errors import plain

    if not isinstance(options, dict):
        raise RulesError("rules_options: an object of \"CODE.field\": value", field="settings.rules_options")
    checked: dict[str, Any] = {}
    for key, value in options.items():
        where = f"settings.rules_options.{key}"
        code, _, name = str(key).partition(".")
        proc = ruleset.procedures.get(code)
        if proc is None or name not in proc.options:
            known = sorted(f"{p.code}.{o}" for p in ruleset.procedures.values() for o in p.options)
            raise RulesError(f"{key!r} is not a ruleset option of {ruleset.id}: one of {', '.join(known)}",
                             field=where)
        info = proc.inputs.model_fields[name]
        try:
            checked[key] = TypeAdapter(info.annotation).validate_python(value, strict=True)
        except ValidationError as e:
            raise RulesError(f"{key}: {plain(e.errors()[0]['msg'])}", field=where) from None
    return checked


def apply_rules_options(proc: Procedure, rules_options: dict[str, Any], inputs: Any) -> tuple[Any, dict[str, Any]]:
    """Fill the options a request leaves out with the campaign's choices; returns the inputs and what was filled."""
    if not proc.options or not isinstance(inputs, dict):
        return inputs, {}
    filled = {f: rules_options[f"{proc.code}.{f}"] for f in proc.options
              if f not in inputs and f"{proc.code}.{f}" in rules_options}
    return {**inputs, **filled}, filled


_RULESETS: dict[str, Ruleset] = {}


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    _RULESETS[ruleset.id] = ruleset
    return ruleset


_LOADED: set[str] = set()


def import_procedure_modules(package: str, path: Iterable[str]) -> None:
    """A ruleset package's ``load_all``: import each procedure module (``_``-prefixed ones are helpers)."""
    import pkgutil

    for module in pkgutil.iter_modules(path):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package}.{module.name}")


def procedure_order(code: str) -> tuple[str, int]:
    """A procedure code's place in a listing: by letter, then by number (M9 before M13), as INDEX.md lists them."""
    return code[0], int("0" + "".join(filter(str.isdigit, code)))


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The ruleset by id, with every procedure module of its package imported."""
    if ruleset_id not in _LOADED:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", ruleset_id):
            raise RulesError(f"unknown ruleset {ruleset_id!r}", field="ruleset")
        try:
            package = importlib.import_module(f"ledger.rules.{ruleset_id}")
        except ModuleNotFoundError:
            package = None  # a ruleset registered from elsewhere (tests) has no package
        # Procedure modules register themselves when imported; a package offers
        # load_all() so that importing one module alone stays cheap. Done once
        # per process even when the package was imported earlier.
        getattr(package, "load_all", lambda: None)()
        _LOADED.add(ruleset_id)
    try:
        return _RULESETS[ruleset_id]
    except KeyError:
        raise RulesError(f"unknown ruleset {ruleset_id!r}", field="ruleset") from None


# --------------------------------------------------------------------------- tables


@cache
def load_table(package: str, name: str) -> Any:
    """Read a ruleset data file once: ``load_table("ledger.rules.eu", "combat.toml")``.

    TOML and JSON give their parsed structure; CSV gives a list of row dicts.
    """
    text = resources.files(package).joinpath("tables", name).read_text(encoding="utf-8")
    if name.endswith(".toml"):
        return tomllib.loads(text)
    if name.endswith(".json"):
        return json.loads(text)
    if name.endswith(".csv"):
        return list(csv.DictReader(text.splitlines()))
    raise ValueError(f"unsupported table format: {name}")


def clamp(value: int, low: int, high: int) -> int:
    """Clamp a modified roll to the rows a table prints (≤3 ... ≥14)."""
    return max(low, min(high, value))


def sum_modifiers(modifiers: Iterable[Modifier]) -> int:
    return sum(m.value for m in modifiers)


_VULGAR = {"⅓": Fraction(1, 3), "⅔": Fraction(2, 3), "½": Fraction(1, 2)}
_LOSS_RE = re.compile(r"^\s*(?P<whole>\d+)?(?P<frac>[⅓⅔½])?(?P<stars>★*)\s*$")


@dataclass(frozen=True)
class Loss:
    """A combat-table cell: losses as an exact fraction, and morale stars."""

    amount: Fraction
    morale: int

    def __str__(self) -> str:
        if not self.amount:
            return "—" + "★" * self.morale
        whole, rest = divmod(self.amount, 1)
        text = (str(int(whole)) if whole or not rest else "") + {
            Fraction(0): "",
            Fraction(1, 3): "⅓",
            Fraction(2, 3): "⅔",
            Fraction(1, 2): "½",
        }.get(rest, f"+{rest}")
        return (text or "—") + "★" * self.morale


def parse_loss(cell: str) -> Loss:
    """Read '1⅓★' → Loss(4/3, 1); '—' or '-' → Loss(0, 0). Exact fractions, never floats."""
    cell = cell.strip()
    if cell in {"—", "-", "–", ""}:
        return Loss(Fraction(0), 0)
    m = _LOSS_RE.match(cell)
    if not m or not (m["whole"] or m["frac"] or m["stars"]):
        raise ValueError(f"unreadable loss cell {cell!r}")
    amount = Fraction(int(m["whole"] or 0)) + (_VULGAR[m["frac"]] if m["frac"] else 0)
    return Loss(amount, len(m["stars"]))

