"""The command line against a served ledger (issue 37, item 2): ``ledger --server URL --token T`` (or
LEDGER_SERVER and LEDGER_TOKEN) sends the HTTP requests the API documents, with no store of its own: a campaign
created, its tokens issued, listed and revoked, a turn opened, a treasury entry and its correction, the phases
closed in order, settings changed, the turn closed; a refusal is the service's, in its words, exit 2; a write
at a terminal is said in words, as against a local store."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from api.main import create_app
from ledger import tokens
from ledger.cli import app
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.economy.milestones import PHASES
from tests.browser.conftest import serving

ADMIN = "admin-secret-for-the-remote-cli"
CID = campaign_id("remote-1492")
runner = CliRunner()


@pytest.fixture
def served(settings, ledger, tmp_path):
    """A real uvicorn server over the test store; the command line's environment has no store at all."""
    with serving(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger)) as url:
        yield url, {"LEDGER_SERVER": url, "LEDGER_TOKEN": ADMIN, "LEDGER_OUTPUT": "json",
                    "LEDGER_DATA_DIR": str(tmp_path / "nothing-here"), "LEDGER_STORE": "sqlite"}


def run(env, *args: str, **more: str):
    return runner.invoke(app, list(args), env={**env, **more})


def test_a_game_master_runs_a_turn_against_a_served_ledger_from_the_command_line(served, ledger, tmp_path):
    url, env = served
    created = run(env, "campaign", "create", "remote-1492", "--name", "Remote 1492", "--scenario", "sample",
                  "--player", "FRA=bruno")
    assert created.exit_code == 0, created.output
    assert [e["type"] for e in json.loads(created.stdout)["events"]] == ["CampaignCreated", "ScenarioImported"]
    issued = run(env, "token", "issue", "remote-1492", "--role", "gm", "--holder", "gina")
    assert issued.exit_code == 0, issued.output
    gm = json.loads(issued.stdout)["token"]
    assert tokens.authenticate(ledger, gm).actor.id == "gina"
    env = {**env, "LEDGER_TOKEN": gm}  # from here on, the game master's own token

    assert run(env, "turn", "open", "remote-1492").exit_code == 0
    entry = run(env, "treasury", "remote-1492", "FRA", "A9", "35", "--reason", "looting of Picardie",
                "--idempotency-key", "entry-1")
    assert entry.exit_code == 0, entry.output
    [at] = [e["position"] for e in json.loads(entry.stdout)["events"]]
    again = run(env, "treasury", "remote-1492", "FRA", "A9", "35", "--reason", "looting of Picardie",
                "--idempotency-key", "entry-1")  # a retry: the same answer, nothing appended twice
    assert [e["position"] for e in json.loads(again.stdout)["events"]] == [at]
    fixed = run(env, "correct", "remote-1492", str(at), "--set", "amount=30", "--reason", "counted again")
    assert fixed.exit_code == 0, fixed.output
    for phase in PHASES:
        closed = run(env, "phase", "close", "remote-1492", phase)
        assert closed.exit_code == 0, (phase, closed.output)
    assert run(env, "campaign", "settings", "remote-1492", "--players-may-move", "--reason",
               "players move their own stacks").exit_code == 0
    listed = json.loads(run(env, "token", "list", "remote-1492").stdout)
    assert [t["holder"] for t in listed] == ["gina"]
    closed = run(env, "turn", "close", "remote-1492", "1")
    assert closed.exit_code == 0, closed.output

    history = ledger.history(CID)
    kinds = [type(e).__name__ for e in history]
    assert kinds.count("TreasuryEntryRecorded") == 1 and kinds.count("PhaseClosed") == 8
    assert kinds[-1] == "TurnClosed" and ledger.campaign(CID).settings["players_may_move"] is True
    [fix] = [e for e in history if isinstance(e, ev.CorrectionRecorded)]
    assert (fix.corrects, fix.replacement, fix.actor["id"]) == (at, {"amount": 30}, "gina")
    assert not (tmp_path / "nothing-here").exists()  # no local store was made, nor read


def test_a_refusal_is_the_services_in_its_words_and_a_write_is_said_in_words(served, ledger):
    url, env = served
    assert run(env, "campaign", "create", "remote-1492", "--name", "Remote", "--scenario", "sample").exit_code == 0
    head = ledger.campaign(CID).version
    refused = run(env, "phase", "close", "remote-1492", "events")
    assert (refused.exit_code, refused.output) == (2, "error [turn]: no turn is open: open a turn first\n")
    assert ledger.campaign(CID).version == head
    unknown = run(env, "turn", "open", "nowhere")
    assert unknown.exit_code == 2 and f"no campaign 'nowhere' in the service {url}" in unknown.output
    words = run(env, "turn", "open", "remote-1492", LEDGER_OUTPUT="words", COLUMNS="200")
    assert words.exit_code == 0 and words.output.startswith(f"Recorded at position {head + 1}: "), words.output
    anonymous = run({**env, "LEDGER_TOKEN": ""}, "turn", "close", "remote-1492", "1")
    assert anonymous.exit_code == 2 and ledger.campaign(CID).turn_open
