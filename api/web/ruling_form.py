"""The web page's form for a new ruling: a procedure of the campaign's ruleset, its inputs as the fields of
its input schema (``turn_view.schema_fields``, the generator the dispute form uses), where it happens, which
stacks take part, the dice and who sees it; read back into ``RecordRuling`` (``command_of``), which the
command model and the use case validate as they validate ``POST /campaigns/{id}/rulings``.

An error's field is shown beside the form field it names (``error_field``: ``inputs.attacker.ld`` is the
input ``attacker.ld``); an input the board contradicts can be kept with a reason (``overrides``).
"""

from __future__ import annotations

from typing import Any

from api.web.map_forms import visibility_of
from api.web.turn_view import form_inputs, schema_fields
from ledger.domain import commands as cmd
from ledger.domain.errors import ContradictsBoard, InvalidInput
from ledger.rules.core import Procedure, RulesError, get_ruleset, procedure_order

#: How many "role → stack" rows the form offers (a battle names two; an interception two; a siege one or two).
STACK_ROWS = 4
#: Roles the map places effects with, offered as suggestions beside those the procedure's inputs name.
ROLES = ("attacker", "defender", "interceptor", "target", "moving stack", "besieger", "besieged")


def procedures(ruleset: str) -> list[dict[str, str]]:
    """The ruleset's procedures as a person picks one: code and title, in INDEX.md's order."""
    rs = get_ruleset(ruleset)
    return [{"code": p.code, "title": p.title}
            for p in sorted(rs.procedures.values(), key=lambda p: procedure_order(p.code))]


def procedure(ruleset: str, code: str) -> Procedure:
    """The procedure ``code`` names, or a 422 naming ``procedure``."""
    try:
        return get_ruleset(ruleset).get(code.strip().upper())
    except RulesError as e:
        raise InvalidInput(str(e), field="procedure") from None


def fields(proc: Procedure, form: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The procedure's input fields, filled with what was posted (kept after an error) or left empty."""
    schema = proc.input_schema()
    values = form_inputs(list(schema_fields(schema, schema, {}, "")), form) if form else {}
    return list(schema_fields(schema, schema, values, ""))


def roles(proc: Procedure) -> list[str]:
    """The roles the form suggests: the procedure's own sides (its inputs that are a whole side, as M19's
    ``attacker`` and ``defender``), then the usual ones."""
    schema = proc.input_schema()
    sides = [f["name"].split(".")[0] for f in schema_fields(schema, schema, {}, "") if "." in f["name"]]
    return list(dict.fromkeys([*sides, *ROLES]))


def stacks_of(form: dict[str, str]) -> dict[str, str]:
    """The "role → stack" rows with a stack chosen (a role alone is the form's suggestion, left unused); a
    stack without its role is a 422 naming the row."""
    out: dict[str, str] = {}
    for i in range(STACK_ROWS):
        role, stack = (form.get(f"role.{i}") or "").strip(), (form.get(f"stack.{i}") or "").strip()
        if stack and not role:
            raise InvalidInput(f"say which role {stack} plays (attacker, defender...)", field=f"role.{i}")
        if stack:
            out[role] = stack
    return out


def manual_dice(form: dict[str, str]) -> list[list[Any]] | None:
    """Physical dice typed as "10, 1, 7" (one die each, in draw order); "3 4" is one roll of two dice.
    A value that is not a number is passed on, so the command model names it."""
    if form.get("dice") != "physical":
        return None
    typed = (form.get("manual") or "").strip()
    if not typed:
        raise InvalidInput("type the dice rolled at the table, in draw order (e.g. 10, 1, 7)", field="manual_dice")
    return [[int(v) if v.isdigit() else v for v in roll.split()] for roll in typed.split(",") if roll.strip()]


def overrides_of(form: dict[str, str]) -> dict[str, str] | None:
    """The inputs the game master keeps although the board contradicts them: ticked, with a reason."""
    kept = {k[len("keep."):]: (form.get(f"keep_reason.{k[len('keep.'):]}") or "").strip()
            for k, v in form.items() if k.startswith("keep.") and v == "on"}
    for name, reason in kept.items():
        if not reason:
            raise InvalidInput(f"say why you keep {name} although the board says otherwise",
                               field=f"overrides.{name}")
    return kept or None


def command_of(form: dict[str, str], proc: Procedure) -> cmd.RecordRuling:
    """The ``RecordRuling`` the form posted (``InvalidInput`` naming the field when it does not read as one)."""
    context: dict[str, Any] = {k: v.strip() for k in ("phase", "round", "impulse", "where")
                               if (v := form.get(k) or "").strip()}
    if stacks := stacks_of(form):
        context["stacks"] = stacks
    return cmd.build(cmd.RecordRuling, procedure=proc.code, inputs=form_inputs(fields(proc), form),
                     context=context, manual_dice=manual_dice(form), overrides=overrides_of(form),
                     visibility=visibility_of(form))


def error_field(field: str | None, form: dict[str, str]) -> str:
    """The form field an error names: ``inputs.attacker.ld`` → ``input.attacker.ld``, ``context.where`` →
    ``where``, ``context.stacks.attacker`` → the stack of the row whose role is attacker, ``manual_dice[0]``
    → ``manual_dice``."""
    field = field or ""
    if field.startswith("inputs."):
        return "input." + field[len("inputs."):]
    if field.startswith("context.stacks"):
        role = field[len("context.stacks."):]
        return next((f"stack.{i}" for i in range(STACK_ROWS) if (form.get(f"role.{i}") or "").strip() == role),
                    "stacks")
    if field.startswith("context."):
        return field[len("context."):]
    return field.split("[")[0]


#: Form fields the page shows an error beside (besides the inputs, the stack rows and the overrides).
PLACED = frozenset({"where", "phase", "round", "impulse", "stacks", "manual_dice", "dice", "visibility",
                    "visibility.countries"})


def placed(field: str, shown: list[dict[str, Any]]) -> bool:
    """Whether the page shows an error on ``field`` beside a form field (else above the form)."""
    return (field in PLACED or field.startswith(("role.", "stack.", "overrides.", "input."))
            and (not field.startswith("input.") or any(f"input.{f['name']}" == field for f in shown)))


def keepable(field: str, error: Exception) -> str | None:
    """What a refusal lets the game master keep with a reason (``overrides``): an input the board or the map
    contradicts, or ``war`` for sides the map has at peace (shown beside the stacks); None for a wrong type or
    a missing value, which no reason can keep."""
    if not isinstance(error, ContradictsBoard):
        return None
    return field[len("input."):] if field.startswith("input.") else error.keep
