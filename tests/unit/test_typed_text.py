"""One rule for every text people type (ledger/text.py), and each writer's escape for the program it writes for."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ledger.domain import commands
from ledger.domain.errors import InvalidInput
from ledger.text import for_csv, for_terminal, for_xml, storable, typed, typed_json


def test_a_nul_an_escape_or_a_bell_in_a_typed_text_is_refused_in_plain_words():
    for text, words in [("player\x00nul", "holds a NUL character (U+0000) at character 7"),
                        ("\x1b]0;title\x07", "holds an escape character (U+001B) at character 1"),
                        ("ding\x07", "holds a bell character (U+0007)"),
                        ("csi\x9b2J", "holds a control character (U+009B)"),
                        ("argv\udcff", "bytes that are not UTF-8 text"),
                        ("odd\uffff", "a non-character (U+FFFF)")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            typed(text)
        with pytest.raises(ValueError):
            typed(text, lines=True)


def test_a_reason_may_hold_line_breaks_and_tabs_a_name_may_not():
    assert typed("loot\r\nof\rPicardie\tand Artois", lines=True) == "loot\nof\nPicardie\tand Artois"
    for text in ("two\nlines", "a\ttab", "a\r\n"):
        with pytest.raises(ValueError, match="this text is one line|carriage return"):
            typed(text)


def test_typed_text_is_nfc_so_one_text_has_one_spelling():
    assert typed("Ile-de-France") == "Ile-de-France"
    assert typed("I\u0302le-de-France") == "\u00cele-de-France"
    assert typed_json({"where": ["Cafe\u0301"], "n": 2.5}) == {"where": ["Caf\u00e9"], "n": 2.5}


def test_free_form_json_names_the_path_of_a_refused_text():
    with pytest.raises(ValueError, match=r"^attacker\.leader: holds an escape"):
        typed_json({"attacker": {"leader": "La Palice\x1b[2J"}})
    with pytest.raises(ValueError, match=r"^a key: holds a NUL"):
        typed_json({"bad\x00key": 1})


def test_a_terminal_is_sent_no_control_character_nor_escape_sequence():
    shown = for_terminal("a\x1b]0;pwned\x07b\x1b[2Jc\x9bd\u202ee\x00f\nline\ttab")
    assert shown == "a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9bd\\u202ee\\x00f\nline\ttab"
    assert for_terminal("plain Île") == "plain Île"


def test_a_worksheet_text_holds_no_character_xml_cannot():
    assert (for_xml("loot\x00 of \x01Picardie\x1b[31m\nline\ttab\r")
            == "loot\\x00 of \\x01Picardie\\x1b[31m\nline\ttab\r")
    assert for_xml("\ufffe") == "\\ufffe"


def test_a_csv_cell_that_would_start_a_formula_starts_with_an_apostrophe():
    for text in ('=HYPERLINK("http://evil")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert for_csv(text) == "'" + text
    for text in ("loot", "", "a=b", "'=already"):
        assert for_csv(text) == text


def test_a_nul_in_a_view_becomes_the_replacement_character():
    assert (storable({"purpose\x00": ["a\x00b", 1, {"c": "\x00"}]})
            == {"purpose\ufffd": ["a\ufffdb", 1, {"c": "\ufffd"}]})


# ------------------------------------------------------------------ the commands: every text typed


def test_a_nul_in_a_rolls_purpose_is_refused_naming_the_field():
    with pytest.raises(InvalidInput) as e:
        commands.build(commands.RollDice, purpose="player\x00nul")
    assert e.value.field == "purpose" and "NUL character (U+0000)" in e.value.message


@pytest.mark.parametrize("cls, fields, field", [
    (commands.RecordTreasuryEntry, {"country": "FRA", "line": "A9", "amount": 5, "reason": "x\x1b"}, "reason"),
    (commands.RollDice, {"purpose": "x", "context": {"impulse": "FRA\x00"}}, "context.impulse"),
    (commands.MoveStack, {"stack": "FRA-1", "origin": "Paris", "destination": "Pic\x07ardie"}, "destination"),
    (commands.RecordRuling, {"procedure": "M13", "overrides": {"terrain": "clearing\x00"}}, "overrides.terrain"),
    (commands.RecordRuling, {"procedure": "M13", "inputs": {"attacker": {"leader": "x\x1b"}}}, "inputs"),
    (commands.IssueToken, {"role": "observer", "holder": "olga\x1b]0;x\x07"}, "holder"),
    (commands.CreateCampaign, {"slug": "c", "name": "Europa\x00", "countries": ["FRA"]}, "name"),
    (commands.CreateCampaign, {"slug": "c", "name": "E", "countries": ["FRA"], "game_masters": ["gi\x00na"]},
     "game_masters.0"),
    (commands.RaiseStack, {"stack": "FRA-1", "country": "FRA", "location": "Paris",
                           "leaders": [{"name": "La\x00 Palice"}]}, "leaders.0.name"),
    (commands.ChangeSettings, {"settings": {"players_may_roll": True}, "reason": "a\x00"}, "reason"),
])
def test_a_control_character_in_any_typed_field_is_refused_naming_it(cls, fields, field):
    with pytest.raises(InvalidInput) as e:
        commands.build(cls, **fields)
    assert e.value.field == field and "U+00" in e.value.message, e.value.message


def _unchecked_texts(node: Any, root: type, guarded: bool = False, path: str = "") -> list[str]:
    """The ``str`` schemas of a model's core schema that neither ``typed`` (a field's type or its free-form
    validator) nor a pattern checks."""
    found: list[str] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            found += _unchecked_texts(item, root, guarded, f"{path}[{i}]")
        return found
    if not isinstance(node, dict):
        return found
    kind = node.get("type")
    if kind == "model" and node.get("cls") is not root:
        return found  # another model: checked on its own
    if kind in ("function-before", "function-after", "function-wrap", "function-plain"):
        f = node["function"]["function"]
        name = getattr(f, "__name__", "") or getattr(getattr(f, "func", None), "__name__", "")
        guarded = guarded or name in ("_one_line", "_lines", "_free_form")
    if kind == "chain" and any(_guards(step) for step in node["steps"]):
        guarded = True  # the steps after a typed one (a strip) read its typed value
    if kind == "str" and not guarded and "pattern" not in node:
        found.append(path)
    for key, value in node.items():
        if key not in ("function", "metadata", "cls", "config"):
            found += _unchecked_texts(value, root, guarded, f"{path}.{key}" if path else key)
    return found


def _guards(node: Any) -> bool:
    if isinstance(node, list):
        return any(_guards(n) for n in node)
    if not isinstance(node, dict):
        return False
    f = node.get("function", {}).get("function") if isinstance(node.get("function"), dict) else None
    if getattr(f, "__name__", "") in ("_one_line", "_lines"):
        return True
    return any(_guards(v) for k, v in node.items() if k not in ("function", "metadata", "cls", "config"))


def _models() -> list[type]:
    out, todo = [], [commands.Model]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo += cls.__subclasses__()
    return [c for c in out if c.__module__ == commands.__name__]


def test_every_text_field_of_every_command_is_typed_text_or_a_pattern():
    models = _models()
    assert commands.RollDice in models and commands.Context in models and commands.EffectReplacement in models
    unchecked = {cls.__name__: found for cls in models
                 if (found := _unchecked_texts(cls.__pydantic_core_schema__, cls))}
    assert unchecked == {}


def test_a_map_drawn_from_names_holding_control_characters_is_still_xml():
    from xml.etree import ElementTree

    from projections.svg import render
    from tests.unit.test_svg import DOC

    stacks = {"ENG-1\x01\x1b": {"country": "ENG", "location": "Picardie", "units": {"LD": 6}, "leaders": []}}
    svg = render({**DOC, "stacks": stacks}, None, board="eu", title="Europa\x00 1492")
    ElementTree.fromstring(svg)  # parses: no character XML cannot hold
    assert 'data-stack="ENG-1\\x01\\x1b"' in svg and "Europa\\x00 1492" in svg


def test_a_typed_texts_length_is_still_said_in_characters():
    for cls, fields, words in [(commands.RollDice, {"purpose": "x" * 501}, "purpose: String should have at most 500"),
                               (commands.MoveStack, {"stack": "x" * 41, "origin": "a", "destination": "b"},
                                "stack: String should have at most 40 characters")]:
        with pytest.raises(InvalidInput, match=re.escape(words)):
            commands.build(cls, **fields)
