"""The CLI on the real board: a campaign created from the 1492 scenario, a move checked against the board's
borders (refused naming the step, then forced), the map written as an SVG."""

from __future__ import annotations

import json

from ledger.application import Ledger
from ledger.domain.campaign import campaign_id
from tests.integration.test_cli import run


def test_a_campaign_is_created_on_the_1492_board_from_the_cli_and_a_move_is_checked(settings, tmp_path):
    r = run(settings, "campaign", "create", "europa", "--name", "Europa 1492", "--scenario", "eu-1492",
            "--player", "FRA=bruno")
    assert r.exit_code == 0, r.output
    created = json.loads(r.stdout)
    types = [e["type"] for e in created["events"]]
    # Then, in the same append, the economic facts of the placement in 1492 (ledger/usecases/start.py).
    assert types[:3] == ["CampaignCreated", "ScenarioImported", "CountryFactsSet"]
    assert created["data"]["provinces"] == 327 + 357 and created["data"]["sea_zones"] == 99
    assert run(settings, "turn", "open", "europa").exit_code == 0
    for phase in ("events", "diplomacy", "incomes"):  # moves and sieges are the military phase's
        assert run(settings, "phase", "close", "europa", phase).exit_code == 0

    # No stacks in the 1492 set-up: the stack is unknown, and named so, until the game master raises it.
    r = run(settings, "map", "move", "europa", "FRA-1", "Caux", "Picardie")
    assert r.exit_code != 0 and "stack" in r.output and "FRA-1" in r.output
    r = run(settings, "map", "raise", "europa", "FRA-1", "FRA", "Caux", "--units", "LD=6", "--leader", "La Palice")
    assert r.exit_code == 0, r.output
    r = run(settings, "map", "move", "europa", "FRA-1", "Caux", "Picardie")
    assert r.exit_code == 0, r.output
    r = run(settings, "map", "raise", "europa", "FRA-1", "FRA", "Caux", "--units", "LD=1")
    assert r.exit_code != 0 and "FRA-1 is already a stack on the map" in r.output
    r = run(settings, "map", "raise", "europa", "FRA-2", "FRA", "Atlantis", "--units", "LD=1")
    assert r.exit_code != 0 and "location" in r.output


def test_the_cli_refuses_a_move_across_no_border_then_records_it_forced_and_draws_the_map(settings, tmp_path):
    assert run(settings, "campaign", "create", "corner", "--name", "The corner", "--scenario", "sample").exit_code == 0
    assert run(settings, "turn", "open", "corner").exit_code == 0
    for phase in ("events", "diplomacy", "incomes"):  # moves and sieges are the military phase's
        assert run(settings, "phase", "close", "corner", phase).exit_code == 0
    r = run(settings, "map", "move", "corner", "FRA-1", "Picardie", "Normandie")
    assert r.exit_code != 0
    assert "destination" in r.output and "share no border" in r.output
    r = run(settings, "map", "move", "corner", "FRA-1", "Picardie", "Normandie", "--via", "Caux")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["data"]["path"] == ["Picardie", "Caux", "Normandie"]
    r = run(settings, "map", "move", "corner", "ENG-1", "Kent", "Picardie", "--forced-reason", "landing by sea")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["data"]["forced"]["reason"] == "landing by sea"

    out = tmp_path / "corner.svg"
    r = run(settings, "map", "svg", "corner", "--out", str(out))
    assert r.exit_code == 0, r.output
    drawn = out.read_text()
    assert 'data-stack="ENG-1" data-location="Picardie"' in drawn and 'class="moved-path"' in drawn


def test_a_turn_of_moves_a_battle_and_a_siege_is_recorded_from_the_cli_without_json(settings, tmp_path):
    assert run(settings, "campaign", "create", "corner", "--name", "The corner", "--scenario", "sample").exit_code == 0
    assert run(settings, "turn", "open", "corner").exit_code == 0
    for phase in ("events", "diplomacy", "incomes"):  # moves and sieges are the military phase's
        assert run(settings, "phase", "close", "corner", phase).exit_code == 0
    steps = [
        ("map", "move", "corner", "ENG-1", "Kent", "Picardie", "--via", "Manche", "--reason", "landing"),
        ("ruling", "record", "corner", "M19", "--where", "Picardie", "--stack", "attacker=ENG-1",
         "--stack", "defender=FRA-1", "--input", "attacker.technology=MUS", "--input", "attacker.ld=6",
         "--input", "attacker.army_class=iv", "--input", "attacker.class_size=2", "--input", "attacker.leader_man=3",
         "--input", "attacker.country=ENG", "--input", "defender.technology=MED", "--input", "defender.ld=8",
         "--input", "defender.army_class=iv", "--input", "defender.class_size=2", "--input", "defender.leader_man=4",
         "--input", "defender.country=FRA", "--input", "terrain=plain", "--input", "period=2",
         "--input", "attacker_phasing_not_intercepted=no"),
        ("map", "split", "corner", "ENG-1", "ENG-2", "--units", "LD=2", "--reason", "a detachment"),
        ("map", "siege", "corner", "Picardie", "ENG-1", "--reason", "Talbot invests the town"),
        ("map", "leader-arrives", "corner", "ENG-2", "Howard the younger", "--fire", "1", "--departs", "4"),
        ("map", "siege-end", "corner", "Picardie", "taken"),
        ("map", "control", "corner", "Picardie", "ENG", "--previous", "FRA", "--reason", "the town fell"),
        ("map", "merge", "corner", "ENG-1", "ENG-2"),
        ("map", "peace", "corner", "--attacker", "ENG", "--defender", "FRA", "--reason", "treaty",
         "--out-of-sequence", "made in the military phase: the command line is under test, not the phase"),
    ]
    for args in steps:
        r = run(settings, *args)
        assert r.exit_code == 0, (args, r.output)
        if args[:2] == ("ruling", "record"):
            battle = json.loads(r.stdout)
    # The inputs typed one at a time are the procedure's nested inputs, typed; the roles place its effects.
    ruling = battle["data"]["ruling"]
    assert ruling["inputs"]["attacker"]["ld"] == 6 and ruling["inputs"]["defender"]["country"] == "FRA"
    assert ruling["inputs"]["attacker_phasing_not_intercepted"] is False
    ledger = Ledger(settings)
    try:
        [event] = [e for e in ledger.history(campaign_id("corner")) if type(e).__name__ == "RulingRecorded"]
        assert (event.context["where"], event.context["stacks"]) == ("Picardie", {"attacker": "ENG-1",
                                                                                  "defender": "FRA-1"})
    finally:
        ledger.close()
    out = tmp_path / "corner.svg"
    assert run(settings, "map", "svg", "corner", "--out", str(out)).exit_code == 0
    drawn = out.read_text()
    assert 'data-stack="ENG-1" data-location="Picardie"' in drawn and 'data-stack="ENG-2"' not in drawn
    assert 'data-name="Picardie" data-kind="province" data-owner="FRA" data-controller="ENG"' in drawn


def test_a_refused_siege_from_the_cli_names_the_field(settings):
    assert run(settings, "campaign", "create", "corner", "--name", "The corner", "--scenario", "sample").exit_code == 0
    assert run(settings, "turn", "open", "corner").exit_code == 0
    for phase in ("events", "diplomacy", "incomes"):  # moves and sieges are the military phase's
        assert run(settings, "phase", "close", "corner", phase).exit_code == 0
    r = run(settings, "map", "siege", "corner", "Picardie", "ENG-1")
    assert r.exit_code != 0 and "besiegers[0]" in r.output and "ENG-1 is in Kent, not in Picardie" in r.output
    r = run(settings, "map", "units", "corner", "ENG-1", "--units", "LD")
    assert r.exit_code != 0 and "--units" in r.output


def test_a_leader_raised_with_his_stack_carries_the_values_printed_on_his_counter(settings):
    """``--leader "Talbot:3/3/2/1"``: fire, shock, manoeuvre and siege from the start (a battle form then reads
    them from the map); a malformed one is refused naming --leader, and nothing is recorded."""
    assert run(settings, "campaign", "create", "corner", "--name", "The corner", "--scenario", "sample").exit_code == 0
    assert run(settings, "turn", "open", "corner").exit_code == 0
    for phase in ("events", "diplomacy", "incomes"):  # moves and sieges are the military phase's
        assert run(settings, "phase", "close", "corner", phase).exit_code == 0
    bad = run(settings, "map", "raise", "corner", "ENG-9", "ENG", "Kent", "--units", "LD=2", "--leader", "Talbot:3/3")
    assert bad.exit_code == 2 and "[--leader]" in bad.output and "FIRE/SHOCK/MANOEUVRE/SIEGE" in bad.output
    r = run(settings, "map", "raise", "corner", "ENG-9", "ENG", "Kent", "--units", "LD=2",
            "--leader", "Warwick:3/3/2/1", "--leader", "Scales")
    assert r.exit_code == 0, r.output
    [raised] = json.loads(r.stdout)["events"]
    ledger = Ledger(settings)
    try:
        event = ledger.event_at(campaign_id("corner"), raised["position"])
    finally:
        ledger.close()
    warwick, scales = event.leaders
    assert (warwick["name"], warwick["fire"], warwick["shock"], warwick["manoeuvre"], warwick["siege"]) == \
        ("Warwick", 3, 3, 2, 1)
    assert scales["name"] == "Scales" and scales["fire"] == 0


def test_the_game_master_sets_portugals_facts_from_the_cli_and_the_income_lines_read_them(settings):
    from ledger.economy.board_income import work_out

    assert run(settings, "campaign", "create", "europa", "--name", "Europa", "--scenario", "eu-1492").exit_code == 0
    assert run(settings, "turn", "open", "europa").exit_code == 0
    r = run(settings, "map", "country", "europa", "POR", "--domestic-trade-index", "3",
            "--manufacture", "Instruments:Tejo:1:7", "--manufacture", "Wine:Tras-os-Montes:1:4",
            "--mine", "Cotedor=2", "--reason", "turn 1 set-up")
    assert r.exit_code == 0, r.output
    r = run(settings, "map", "country", "europa", "POR", "--manufacture", "Wine:Tras-os-Mont:1:4")
    assert r.exit_code != 0 and "manufactures[0].province" in r.output and "Tras-os-Montes" in r.output
    r = run(settings, "map", "country", "europa", "POR", "--manufacture", "Wine")
    assert r.exit_code != 0 and "RESOURCE:PROVINCE:LEVEL:INCOME" in r.output
    ledger = Ledger(settings)
    try:
        lines = {x.code: x.amount for x in work_out(ledger.campaign(campaign_id("europa")), "POR").lines}
    finally:
        ledger.close()
    assert (lines["B6"], lines["B7"], lines["B9"]) == (11, 40, 3)
