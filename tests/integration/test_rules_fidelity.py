"""Issue 39, rules fidelity, on both stores: the sides of a siege, a battle or an interception are at war on the
map (the write side's wars, ledger/domain/forces.py), or the game master keeps the ruling with a reason, never a
player (DECISIONS.md "M14/M15/M19/M20/M21 — the sides must be at war"); an M10 moving stack named by its role
loses its LD on the map; one interception scores the same with and without a place; a stack without a leader
rolls no leader test.

The sample campaign (board eu): after its first turn ENG-1 (Talbot) stands in Picardie, FRA-1 (La Trémoille)
in Normandie, England and France at war.
"""

from __future__ import annotations

import json

import pytest

from ledger.domain import commands as cmd
from ledger.domain.actors import Actor
from ledger.domain.errors import ContradictsBoard, Forbidden
from ledger.sample import GM
from tests.integration.test_board_cli import run
from tests.integration.test_projections import sample

SIEGE = {"procedure": "M21", "inputs": {"action": "undermine"},
         "context": {"where": "Picardie", "stacks": {"besieger": "ENG-1"}}}
BATTLE = {"attacker": {"technology": "MUS", "country": "ENG", "army_class": "iv", "class_size": 2},
          "defender": {"technology": "MED", "country": "FRA", "army_class": "iv", "class_size": 2},
          "terrain": "plain", "period": 2}


@pytest.fixture
def cid(ledger):
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    return cid


def at_peace(ledger, cid):
    [[attackers, defenders]] = ledger.campaign(cid).military["wars"]
    ledger.handle(cid, cmd.MakePeace(attackers=attackers, defenders=defenders, reason="treaty"), actor=GM)


def refused(ledger, cid, actor=GM, **kw):
    before = ledger.campaign(cid).version
    with pytest.raises((ContradictsBoard, Forbidden)) as info:
        ledger.record_ruling(cid, actor=actor, **kw)
    assert ledger.campaign(cid).version == before  # nothing appended
    return info.value


# ------------------------------------------------------------------------- M21 and the others need a war


def test_m21_a_siege_without_a_war_is_refused_and_kept_only_by_the_game_master_with_a_reason(ledger, cid):
    assert ledger.record_ruling(cid, actor=GM, **SIEGE).data["ruling"].get("overridden") is None  # at war: fine
    at_peace(ledger, cid)
    e = refused(ledger, cid, **SIEGE)
    assert isinstance(e, ContradictsBoard) and e.field == "context.stacks.besieger" and e.keep == "war"
    assert "no war between ENG and FRA is declared on the map (wars in progress: none)" in e.message
    assert "keep the ruling with overrides.war and a reason" in e.message
    ruling = ledger.record_ruling(cid, actor=GM, overrides={"war": "the truce was broken at the table"},
                                  **SIEGE).data["ruling"]
    assert ruling["overridden"] == [{"field": "war", "typed": "ENG against FRA", "board": "not at war",
                                     "reason": "the truce was broken at the table"}]


def test_m21_a_player_never_keeps_a_siege_without_a_war(ledger, cid):
    ledger.handle(cid, cmd.ChangeSettings(settings={"players_may_roll": True}, reason="players roll"), actor=GM)
    alice = Actor("alice", "player", "ENG")
    ledger.record_ruling(cid, actor=alice, **SIEGE)  # at war, a player records it
    at_peace(ledger, cid)
    assert isinstance(refused(ledger, cid, actor=alice, **SIEGE), ContradictsBoard)
    e = refused(ledger, cid, actor=alice, overrides={"war": "we said so"}, **SIEGE)
    assert isinstance(e, Forbidden) and e.field == "overrides.war" and "only a game master" in e.message


@pytest.mark.parametrize("procedure, inputs, context, role", [
    ("M19", BATTLE, {"where": "Caux", "stacks": {"attacker": "ENG-1", "defender": "FRA-1"}}, "attacker"),
    ("M14", {"last_campaign": "active"}, {"where": "Normandie", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}},
     "interceptor"),
])
def test_m19_m14_a_battle_or_an_interception_between_sides_at_peace_is_refused(ledger, cid, procedure, inputs,
                                                                              context, role):
    at_peace(ledger, cid)
    e = refused(ledger, cid, procedure=procedure, inputs=inputs, context=context)
    assert e.field == f"context.stacks.{role}" and "no war between" in e.message
    kept = ledger.record_ruling(cid, actor=GM, procedure=procedure, inputs=inputs, context=context,
                                overrides={"war": "an ambush before the declaration"}).data["ruling"]
    assert [o["field"] for o in kept["overridden"]] == ["war"]


def test_m21_the_english_siege_of_champagne_needs_a_war_with_france_from_the_command_line(settings):
    """The issue's case: a siege of Champagne (France's on the 1492 board) by an English stack, no war."""
    assert run(settings, "campaign", "create", "europa", "--name", "Europa", "--scenario", "eu-1492").exit_code == 0
    assert run(settings, "turn", "open", "europa").exit_code == 0
    assert run(settings, "map", "raise", "europa", "ENG-1", "ENG", "Champagne", "--units", "LD=6").exit_code == 0
    siege = ("ruling", "record", "europa", "M21", "--where", "Champagne", "--stack", "besieger=ENG-1",
             "--input", "action=undermine")
    r = run(settings, *siege)
    assert r.exit_code == 2 and "error [context.stacks.besieger]:" in r.output
    assert "no war between ENG and FRA" in r.output and '--override war="why you keep it"' in r.output
    r = run(settings, *siege, "--override", "war=the game master's reason")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["data"]["ruling"]["overridden"][0]["field"] == "war"
    assert run(settings, "map", "war", "europa", "--attacker", "ENG", "--defender", "FRA").exit_code == 0
    r = run(settings, *siege)
    assert r.exit_code == 0 and "overridden" not in json.loads(r.stdout)["data"]["ruling"]
