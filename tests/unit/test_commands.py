"""Commands as models: strict types, one validation per field, the request hash covers every field."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.domain import commands as cmd
from ledger.domain.errors import InvalidInput


def entry(**over):
    fields = {"country": "FRA", "line": "A9", "amount": 35, "reason": "looting of Picardie"}
    return cmd.build(cmd.RecordTreasuryEntry, **{**fields, **over})


@pytest.mark.parametrize("amount", ["35", True, 35.0, None])
def test_an_amount_is_a_whole_number_never_text_a_boolean_or_a_float(amount):
    with pytest.raises(InvalidInput, match="amount") as caught:
        entry(amount=amount)
    assert caught.value.field == "amount"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinities_are_refused_even_deep_inside_free_form_inputs(bad):
    with pytest.raises(InvalidInput, match="not a finite number") as caught:
        cmd.build(cmd.RecordRuling, procedure="M13", inputs={"stacks": [{"ld": 3}, {"ld": bad}]})
    assert caught.value.field == "inputs"
    with pytest.raises(InvalidInput, match="not a finite number"):
        cmd.build(cmd.RecordCorrection, corrects=3, reason="typo", replacement={"amount": bad})


def test_a_setting_is_a_boolean_not_the_text_yes():
    with pytest.raises(InvalidInput, match="settings.players_may_roll"):
        cmd.build(cmd.ChangeSettings, settings={"players_may_roll": "yes"}, reason="house rule")
    with pytest.raises(InvalidInput, match="name at least one setting"):
        cmd.build(cmd.ChangeSettings, settings={}, reason="house rule")


def test_one_reason_limit_for_every_command():
    long = "x" * (cmd.TEXT_MAX + 1)
    for kind, fields in [(cmd.RecordCorrection, {"corrects": 1}), (cmd.RecordTreasuryEntry,
                         {"country": "FRA", "line": "A9", "amount": 1}), (cmd.RevealEvent, {"position": 1}),
                         (cmd.RevokeToken, {"token_id": "abc"})]:
        with pytest.raises(InvalidInput, match="reason") as caught:
            cmd.build(kind, reason=long, **fields)
        assert caught.value.field == "reason"
        assert cmd.build(kind, reason="x" * cmd.TEXT_MAX, **fields).reason == "x" * cmd.TEXT_MAX


def test_a_countries_visibility_names_countries_and_the_others_name_none():
    with pytest.raises(InvalidInput, match="names at least one country") as caught:
        entry(visibility={"scope": "countries"})
    assert caught.value.field == "visibility.countries"
    with pytest.raises(InvalidInput, match="names no countries"):
        entry(visibility={"scope": "gm", "countries": ["FRA"]})
    assert entry(visibility={"scope": "countries", "countries": ["FRA", "ENG", "FRA"]}).visibility.as_dict() == {
        "scope": "countries", "countries": ["ENG", "FRA"]}


def test_an_unknown_field_is_refused_rather_than_ignored():
    with pytest.raises(InvalidInput, match="foo"):
        entry(foo=1)


def test_a_player_token_names_a_country_and_only_a_player_token_does():
    with pytest.raises(InvalidInput, match="names their country") as caught:
        cmd.build(cmd.IssueToken, role="player")
    assert caught.value.field == "country"
    with pytest.raises(InvalidInput, match="only a player's token"):
        cmd.build(cmd.IssueToken, role="gm", country="FRA")


def test_a_war_has_two_distinct_sides_and_a_move_goes_somewhere_else():
    with pytest.raises(InvalidInput, match="cannot fight itself") as caught:
        cmd.build(cmd.DeclareWar, attackers=["FRA"], defenders=["ENG", "FRA"])
    assert caught.value.field == "defenders"
    with pytest.raises(InvalidInput, match="somewhere else") as caught:
        cmd.build(cmd.MoveStack, stack="FRA-1", origin="Picardie", destination="Picardie")
    assert caught.value.field == "destination"


def test_the_request_hash_names_the_command_so_two_commands_with_the_same_fields_differ():
    assert cmd.OpenTurn().request() != cmd.CloseTurn(turn=1).request() | {"command": "OpenTurn", "turn": 1}
    assert cmd.OpenTurn().request() == {"command": "OpenTurn"}


@given(a=st.integers(-1000, 1000), b=st.integers(-1000, 1000), where_a=st.sampled_from(["Picardie", "Caux", None]),
       where_b=st.sampled_from(["Picardie", "Caux", None]))
def test_two_requests_share_an_idempotency_hash_only_when_every_field_is_equal(a, b, where_a, where_b):
    from ledger.chain import canonical_json

    first = entry(amount=a, context={"where": where_a} if where_a else {})
    second = entry(amount=b, context={"where": where_b} if where_b else {})
    same = canonical_json(first.request()) == canonical_json(second.request())
    assert same == (a == b and where_a == where_b)


def test_every_command_is_listed_and_names_its_access_action():
    from ledger.access import ACTIONS

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    listed = set(cmd.COMMANDS.values())
    assert listed == {c for c in every(cmd.Command) if not c.__name__.startswith("_")}
    for kind in listed:
        assert kind.action in ACTIONS or kind is cmd.ImportScenario, kind  # a scenario is imported by the CLI
