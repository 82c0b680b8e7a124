"""The new-ruling form reads back what it shows: for every procedure of every ruleset and any values of its
inputs, the fields generated from the input schema, posted as a browser posts them, are the same inputs again
(nothing lost, nothing retyped: a number stays a number, yes/no a boolean, a list a list)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.web.ruling_form import command_of, error_field, stacks_of
from api.web.turn_view import form_inputs, schema_fields
from ledger.domain.errors import InvalidInput
from ledger.rules.core import get_ruleset

PROCEDURES = [(rs, code) for rs in ("eu", "pfc", "his") for code in sorted(get_ruleset(rs).procedures)]
NAME = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12)


def value_of(f: dict[str, Any]) -> st.SearchStrategy[Any]:
    return {"choice": st.sampled_from(f["choices"]) if f["choices"] else st.nothing(),
            "bool": st.booleans(), "int": st.integers(-99, 99), "number": st.integers(-99, 99),
            "text": NAME, "list": st.lists(NAME, min_size=1, max_size=4),
            "counts": st.dictionaries(NAME, st.integers(-9, 9), min_size=1, max_size=3)}[f["kind"]]


def nested(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, v in flat.items():
        *parents, leaf = name.split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = v
    return out


@pytest.mark.parametrize("ruleset, code", PROCEDURES)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_form_of_any_procedure_reads_back_the_inputs_it_shows(ruleset, code, data):
    schema = get_ruleset(ruleset).get(code).input_schema()
    fields = [f for f in schema_fields(schema, schema, {}, "") if f["kind"] != "json"]  # JSON: typed as is
    chosen = {f["name"]: data.draw(value_of(f), label=f["name"]) for f in fields
              if not f["optional"] or data.draw(st.booleans(), label=f"{f['name']}?")}
    values = nested(chosen)
    shown = list(schema_fields(schema, schema, values, ""))
    # What the browser sends: each field's shown value (a ticked checkbox sends "yes" before its hidden "no").
    form = {f"input.{f['name']}": f["value"] for f in shown if f["kind"] != "json"}
    assert form_inputs([f for f in shown if f["kind"] != "json"], form) == values


def test_an_error_on_an_input_is_shown_beside_that_input_and_a_stack_beside_its_row():
    form = {"role.0": "attacker", "stack.0": "ENG-1", "role.1": "defender", "stack.1": "FRA-9"}
    assert error_field("inputs.attacker.ld", form) == "input.attacker.ld"
    assert error_field("context.where", form) == "where"
    assert error_field("context.stacks.defender", form) == "stack.1"
    assert error_field("manual_dice[0][1]", form) == "manual_dice"


def test_a_role_alone_is_a_suggestion_and_a_stack_without_a_role_is_refused():
    assert stacks_of({"role.0": "attacker", "stack.0": "ENG-1", "role.1": "defender", "stack.1": ""}) == {
        "attacker": "ENG-1"}
    with pytest.raises(InvalidInput) as refused:
        stacks_of({"role.2": "", "stack.2": "FRA-1"})
    assert refused.value.field == "role.2" and "FRA-1" in refused.value.message


def test_physical_dice_are_typed_in_draw_order_and_a_kept_value_needs_its_reason():
    proc = get_ruleset("eu").get("M16")
    command = command_of({"dice": "physical", "manual": "7, 3 4", "visibility": "gm"}, proc)
    assert command.manual_dice == [[7], [3, 4]] and command.visibility.scope == "gm"
    with pytest.raises(InvalidInput) as refused:
        command_of({"keep.terrain": "on", "keep_reason.terrain": " "}, proc)
    assert refused.value.field == "overrides.terrain"


def test_an_input_schema_is_built_once_per_procedure_and_is_pydantics():
    """The form reads the procedure's input schema on every turn page: built once per process, not per page."""
    from ledger.rules.core import get_ruleset, json_schema

    proc = get_ruleset("eu").get("M13")
    first = proc.input_schema()
    assert first is proc.input_schema() is json_schema(proc.inputs)  # kept, not built again
    assert first == proc.inputs.model_json_schema()  # what pydantic builds
