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
    ledger.handle(cid, cmd.MakePeace(attackers=attackers, defenders=defenders, reason="treaty",
        context=cmd.Context(out_of_sequence="peace in the military phase: the war check is under test, not the phase")), actor=GM)


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
    for phase in ("events", "diplomacy", "incomes"):  # a siege is the military phase's
        assert run(settings, "phase", "close", "europa", phase).exit_code == 0
    assert run(settings, "map", "raise", "europa", "ENG-1", "ENG", "Champagne", "--units", "LD=6").exit_code == 0
    siege = ("ruling", "record", "europa", "M21", "--where", "Champagne", "--stack", "besieger=ENG-1",
             "--input", "action=undermine")
    r = run(settings, *siege)
    assert r.exit_code == 2 and "error [context.stacks.besieger]:" in r.output
    assert "no war between ENG and FRA" in r.output and '--override war="why you keep it"' in r.output
    r = run(settings, *siege, "--override", "war=the game master's reason")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["data"]["ruling"]["overridden"][0]["field"] == "war"
    assert run(settings, "map", "war", "europa", "--attacker", "ENG", "--defender", "FRA", "--out-of-sequence",
               "declared in the military phase: the war check is under test, not the phase").exit_code == 0
    r = run(settings, *siege)
    assert r.exit_code == 0 and "overridden" not in json.loads(r.stdout)["data"]["ruling"]


# ----------------------------------------------------------------- M10 moving stack named by its role only


def map_ld(ledger, cid, stack):
    from projections import replay
    from projections.runner import Projector

    p = Projector(ledger)
    p.catch_up()
    return replay.current(p.db, cid, "map")["stacks"][stack]["units"].get("LD", 0)


def test_m10_movement_attrition_of_a_stack_named_by_its_role_takes_its_losses_off_that_stack(ledger, cid):
    """Before: six rulings took 19 LD off a 7-LD stack named ``--stack "moving stack=FRA-1"`` and the map still
    showed 7: the LD were filled from the map, the losses followed the input ``stack``, left out."""
    ctx = {"where": "Normandie", "stacks": {"moving stack": "FRA-1"}}
    start = ledger.campaign(cid).military["forces"]["FRA-1"]["units"]["LD"]
    taken = 0
    for _ in range(6):
        ld = ledger.campaign(cid).military["forces"]["FRA-1"]["units"].get("LD", 0)
        if not ld:
            break
        ruling = ledger.record_ruling(cid, actor=GM, procedure="M10", inputs={"causes": 6}, context=ctx,
                                      manual_dice=[[10]]).data["ruling"]
        assert ruling["inputs"]["stack"] == "FRA-1" and ruling["from_board"]["stack"] == "FRA-1"
        assert ruling["inputs"]["ld"] == ld  # filled from the map as the losses left it
        lost = sum(int(e["amount"]) for e in ruling["effects"] if e["kind"] == "ld_lost")
        assert lost and all(e["target"] == "FRA-1" for e in ruling["effects"] if e["kind"] == "ld_lost")
        taken += lost
    left = ledger.campaign(cid).military["forces"]["FRA-1"]["units"].get("LD", 0)
    assert taken <= start and left == start - taken
    assert map_ld(ledger, cid, "FRA-1") == left  # the map view shows what the write side holds


def test_m10_a_stack_input_that_is_not_the_roles_stack_is_refused_or_kept(ledger, cid):
    ctx = {"where": "Normandie", "stacks": {"moving stack": "FRA-1"}}
    e = refused(ledger, cid, procedure="M10", inputs={"causes": 1, "stack": "ENG-1"}, context=ctx)
    assert e.field == "inputs.stack" and "the ruling's moving stack is stack FRA-1" in e.message


# ------------------------------------------------------ M14 one interception, one score, with or without a place


def test_m14_same_province_and_across_a_river_score_the_same_with_and_without_a_place(ledger, cid):
    """DECISIONS.md "M14 — same province and across a river or pass are cumulative": FRA-1 in Normandie
    intercepts ENG-1 entering Normandie from Caux, across the Seine: +1 and −2, with a place or without one.
    Before, the board check forced "across a river" false in the interceptor's own province (8 against 6)."""
    from ledger.rules.core import FixedDice, get_ruleset

    ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Picardie", destination="Caux"), actor=GM)
    ctx = {"where": "Normandie", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}}
    placed = ledger.record_ruling(cid, actor=GM, procedure="M14", inputs={"last_campaign": "active"}, context=ctx,
                                  manual_dice=[[5]]).data["ruling"]
    assert placed["from_board"]["same_province"] is True and placed["from_board"]["across_river_or_pass"] is True
    typed = {"last_campaign": "active", "interceptor_man": 4, "target_man": 3, "same_province": True,
             "across_river_or_pass": True}
    unplaced = get_ruleset("eu").get("M14").resolve(typed, FixedDice([5]))
    assert placed["total"] == unplaced.total == 5 + 1 + 1 - 2
    e = refused(ledger, cid, procedure="M14", inputs={**typed, "across_river_or_pass": False}, context=ctx)
    assert e.field == "inputs.across_river_or_pass" and "river border" in e.message


# --------------------------------------------------------------------- M19 a leader test needs a leader


def test_m19_a_side_without_a_leader_on_the_map_rolls_no_leader_test(ledger, cid):
    """eu8 §2.2.5 G: leaders are tested; a stack without one has nobody to test. Before, ``has_leader`` was not
    filled from the map (its default, true, rolled a test for a stack with no leader)."""
    ledger.handle(cid, cmd.RaiseStack(stack="FRA-2", country="FRA", location="Caux", units={"LD": 4}), actor=GM)
    ctx = {"where": "Caux", "stacks": {"attacker": "ENG-1", "defender": "FRA-2"}}
    # Refused first: the battle recorded next may destroy FRA-2 (its 4 LD), which then leaves the map.
    e = refused(ledger, cid, procedure="M19", inputs={**BATTLE, "defender": {**BATTLE["defender"], "has_leader": True}},
                context=ctx)
    assert e.field == "inputs.defender.has_leader" and "stack FRA-2 has no leader" in e.message
    ruling = ledger.record_ruling(cid, actor=GM, procedure="M19", inputs=BATTLE, context=ctx).data["ruling"]
    assert ruling["inputs"]["defender"]["has_leader"] is False and ruling["from_board"]["defender.has_leader"] is False
    assert ruling["inputs"]["attacker"]["has_leader"] is True  # Talbot
    tested = [s["side"] for s in ruling["steps"] if s["name"].startswith("G. leader test") and s.get("dice")]
    assert "defender" not in tested


# ------------------------------------------------------------- P5 a minormajor a player plays is a major


def test_p5_venice_played_by_a_player_is_a_major_power_in_that_campaign(settings):
    """The board makes Venice a minormajor: a minor in P5 unless the campaign plays it (DECISIONS.md "P5 — the
    minor is never a major power; the player is one")."""
    assert run(settings, "campaign", "create", "europa", "--name", "Europa", "--scenario", "eu-1492",
               "--player", "VEN=carla", "--player", "TUR=deniz").exit_code == 0
    assert run(settings, "turn", "open", "europa").exit_code == 0
    for phase in ("events", "diplomacy", "incomes", "military", "redeployment", "exchequer"):  # P5: the peace
        assert run(settings, "phase", "close", "europa", phase).exit_code == 0
    peace = ("ruling", "record", "europa", "P5", "--input", "player=TUR", "--input", "level=0")
    r = run(settings, *peace, "--input", "minor=Venice")
    assert r.exit_code == 2 and "error [inputs.minor]: minor: venise (VEN) is played by carla in this campaign" \
        in r.output, r.output
    r = run(settings, *peace, "--input", "minor=france")
    assert r.exit_code == 2 and "France (FRA) is a major power on the board, not a minor" in r.output
    r = run(settings, *peace, "--input", "minor=Savoy")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["data"]["ruling"]["inputs"]["minor"] == "savoie"
