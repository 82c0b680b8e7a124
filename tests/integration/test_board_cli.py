"""The CLI on the real board: a campaign created from the 1492 scenario, a move checked against the board's
borders (refused naming the step, then forced), the map written as an SVG."""

from __future__ import annotations

import json

from tests.integration.test_cli import run


def test_a_campaign_is_created_on_the_1492_board_from_the_cli_and_a_move_is_checked(settings, tmp_path):
    r = run(settings, "campaign", "create", "europa", "--name", "Europa 1492", "--scenario", "eu-1492",
            "--player", "FRA=bruno")
    assert r.exit_code == 0, r.output
    created = json.loads(r.stdout)
    assert [e["type"] for e in created["events"]] == ["CampaignCreated", "ScenarioImported"]
    assert created["data"]["provinces"] == 327 + 357 and created["data"]["sea_zones"] == 99
    assert run(settings, "turn", "open", "europa").exit_code == 0

    # No stacks in the 1492 set-up: the stack is unknown, and named so.
    r = run(settings, "map", "move", "europa", "FRA-1", "Caux", "Picardie")
    assert r.exit_code != 0 and "stack" in r.output and "FRA-1" in r.output


def test_the_cli_refuses_a_move_across_no_border_then_records_it_forced_and_draws_the_map(settings, tmp_path):
    assert run(settings, "campaign", "create", "corner", "--name", "The corner", "--scenario", "sample").exit_code == 0
    assert run(settings, "turn", "open", "corner").exit_code == 0
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
