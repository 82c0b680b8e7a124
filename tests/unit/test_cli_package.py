"""The command line as a package (ledger/cli/): no import circle, and every write through a command model.

Each topic module imports ``ledger.cli.base`` only; the app is built in
``ledger.cli.root`` alone. Every command that writes builds its command
(``ledger/domain/commands.py``) and hands it to ``Ledger.handle``, never a
``Ledger`` shorthand (``ledger.record_ruling(...)``), so the CLI validates exactly
as the HTTP routes do.
"""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import ledger.cli
from ledger.domain.commands import COMMANDS

PACKAGE = Path(ledger.cli.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
TOPICS = [m for m in MODULES if m not in ("base", "root")]
ROOT = Path(__file__).resolve().parents[2]

#: Every command that writes, with the command model it builds.
WRITES = {
    ("campaign", "create"): "CreateCampaign",
    ("campaign", "settings"): "ChangeSettings",
    ("turn", "open"): "OpenTurn",
    ("turn", "close"): "CloseTurn",
    ("roll",): "RollDice",
    ("ruling", "record"): "RecordRuling",
    ("treasury",): "RecordTreasuryEntry",
    ("correct",): "RecordCorrection",
    ("ruling", "rework"): "ReworkRuling",
    ("token", "issue"): "IssueToken",
    ("token", "revoke"): "RevokeToken",
    ("phase", "close"): "ClosePhase",
    ("map", "move"): "MoveStack",
    ("map", "owner"): "ChangeOwner",
    ("map", "country"): "SetCountryFacts",
    ("publish-sheets",): "PublishSheets",
    ("map", "control"): "ChangeControl",
    ("map", "marker"): "PlaceMarker",
    ("map", "fortress"): "ChangeFortress",
    ("map", "raise"): "RaiseStack",
    ("map", "split"): "SplitStack",
    ("map", "merge"): "MergeStacks",
    ("map", "units"): "ChangeStack",
    ("map", "leader-arrives"): "ChangeStack",
    ("map", "leader-leaves"): "ChangeStack",
    ("map", "leader-values"): "SetLeaderValues",
    ("map", "disband"): "DisbandStack",
    ("map", "siege"): "StartSiege",
    ("map", "siege-end"): "EndSiege",
    ("map", "war"): "DeclareWar",
    ("map", "peace"): "MakePeace",
    ("map", "country"): "SetCountryFacts",
    ("trade", "fleet"): "ChangeTradeFleet",
    ("trade", "centre"): "ChangeTradeCentre",
    ("trade", "establishment"): "ChangeEstablishment",
    ("trade", "mission"): "ChangeMission",
    ("income", "confirm"): "ConfirmIncome",
    ("deadlines", "set"): "SetDeadline",
    ("deadlines", "clear"): "ClearDeadline",
    ("ready",): "MarkReady",
    ("mark-read",): "MarkAsRead",
    ("notify", "register"): "RegisterEndpoint",
    ("notify", "topics"): "ChangeEndpoint",
    ("notify", "remove"): "RemoveEndpoint",
}
#: The Ledger's shorthands for scripts and tests: the CLI calls none of them.
SHORTHANDS = ("submit", "create_campaign", "open_turn", "close_turn", "close_phase", "roll", "record_manual_roll",
              "record_ruling", "record_treasury_entry", "record_correction", "revoke_token", "change_settings")


def test_the_package_holds_the_topic_modules_and_the_old_modules_are_gone():
    assert {"base", "root", "service", "campaigns", "turns", "records", "audit", "access", "economy", "projections",
            "export"} <= set(MODULES)
    assert not list(PACKAGE.parent.glob("cli*.py"))


def imports_of(module: str) -> set[str]:
    """The ``ledger.cli`` modules a module imports (at any depth of its source, lazy imports included)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "ledger" and any(a.name == "cli" for a in node.names):
                found.add("ledger.cli")
            elif node.module == "ledger.cli":
                found |= {f"ledger.cli.{a.name}" if a.name in MODULES else "ledger.cli" for a in node.names}
            elif node.module.startswith("ledger.cli."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name == "ledger.cli" or a.name.startswith("ledger.cli.")}
    return found


@pytest.mark.parametrize("module", TOPICS)
def test_a_topic_module_imports_only_the_base(module):
    assert imports_of(module) <= {"ledger.cli.base"}, module


def test_the_base_imports_no_other_cli_module():
    assert imports_of("base") == set()


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone_in_a_fresh_interpreter(module):
    """Imported first and alone: a circle would fail here (a partly initialised module)."""
    code = (f"import sys, ledger.cli.{module}\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('ledger.cli.'))\n"
            "print(loaded)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    if module in TOPICS:  # a topic module brings in the base, not its siblings nor the app
        assert p.stdout.strip() == str(sorted({f"ledger.cli.{module}", "ledger.cli.base"}))


def test_the_entry_points_load_the_app():
    code = "from ledger.cli import app, main\nimport typer\nassert isinstance(app, typer.Typer) and callable(main)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([sys.executable, "-m", "ledger", "--help"], capture_output=True, text=True, cwd=ROOT,
                       timeout=120, env={"COLUMNS": "200", "PATH": ""})
    assert p.returncode == 0 and "campaign" in p.stdout and "token" in p.stdout, p.stderr
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'ledger = "ledger.cli:app"' in pyproject


def callback(path: tuple[str, ...]):
    command = typer.main.get_command(ledger.cli.app)
    for name in path:
        command = command.get_command(None, name)  # type: ignore[attr-defined]
        assert command is not None, path
    return command.callback


def calls(function) -> set[str]:
    """The names of what a function calls (``f(...)`` and ``x.f(...)``)."""
    tree = ast.parse(_dedented(function))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


def _dedented(function) -> str:
    return textwrap.dedent(inspect.getsource(function))


def model_names(function) -> set[str]:
    tree = ast.parse(_dedented(function))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(COMMANDS)


@pytest.mark.parametrize("path", list(WRITES), ids=" ".join)
def test_every_write_builds_its_command_model_and_hands_it_to_the_ledger(path):
    function = callback(path)
    assert function.__module__.startswith("ledger.cli."), function
    called = calls(function)
    if "record" in called:  # ledger/cli/base.py's record: it builds the model and hands it to ledger.handle
        called |= calls(ledger.cli.base.record)
    assert "build" in called, (path, "builds no command")
    assert "handle" in called or "issue_token" in called, (path, "does not call ledger.handle")
    assert WRITES[path] in model_names(function), (path, model_names(function))
    assert not called & set(SHORTHANDS), (path, called & set(SHORTHANDS))


def test_no_cli_module_calls_a_ledger_shorthand():
    for module in MODULES:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "ledger":
                    assert node.func.attr not in SHORTHANDS, (module, node.func.attr, node.lineno)


#: Questions that build a command model only to draft it (what it would change), never to record it.
PREVIEWS = {("whatif",): "RecordCorrection"}


@pytest.mark.parametrize("path", list(PREVIEWS), ids=" ".join)
def test_a_preview_drafts_its_command_model_and_records_nothing(path):
    function = callback(path)
    called = calls(function)
    assert "build" in called and "drafted" in called, (path, called)
    assert "handle" not in called and "record" not in called, (path, "records")
    assert PREVIEWS[path] in model_names(function), (path, model_names(function))


def test_every_write_command_of_the_app_is_listed():
    """A new command that builds a command model must be added to WRITES (and so checked above), or to PREVIEWS
    when it only drafts it."""
    app = typer.main.get_command(ledger.cli.app)

    def walk(command, path):
        if hasattr(command, "list_commands"):
            for name in command.list_commands(None):
                yield from walk(command.get_command(None, name), (*path, name))
        else:
            yield path, command.callback

    building = {path for path, f in walk(app, ()) if {"build", "record"} & calls(f)}
    assert building == set(WRITES) | set(PREVIEWS)


# ----------------------------------------------------------------- behaviour the package adds


runner = CliRunner()


def run(settings, *args: str):
    from tests.integration.test_cli import cli_env

    return runner.invoke(ledger.cli.app, list(args), env={**cli_env(settings), "COLUMNS": "80"})


def test_closing_a_named_turn_refuses_another_open_turn(settings):
    assert run(settings, "campaign", "create", "kent", "--name", "Kent", "--country", "ENG").exit_code == 0
    assert run(settings, "turn", "open", "kent").exit_code == 0
    unnamed = run(settings, "turn", "close", "kent")  # the turn is named, never guessed
    assert unnamed.exit_code == 2 and "{turn}" in unnamed.output, unnamed.output
    early = ("--out-of-sequence", "no phase is played in this test")  # what it checks is the turn's name
    assert run(settings, "turn", "close", "kent", "1", *early).exit_code == 0
    assert run(settings, "turn", "open", "kent").exit_code == 0
    again = run(settings, "turn", "close", "kent", "1")  # "turn 1 again": turn 2 is open
    assert again.exit_code == 2, again.output
    assert json.loads(run(settings, "events", "kent", "--json").output)[-1]["type"] == "TurnOpened"
    closed = run(settings, "turn", "close", "kent", "2", *early)
    assert closed.exit_code == 0, closed.output


def test_an_unknown_campaign_is_named_as_typed(settings):
    r = run(settings, "turn", "open", "europa-1493")
    assert r.exit_code == 2
    assert "no campaign 'europa-1493' in the " in r.output and "[campaign]" in r.output


def test_no_markup_swallows_an_error_message(settings):
    run(settings, "campaign", "create", "sussex", "--name", "S", "--country", "ENG")
    run(settings, "turn", "open", "sussex")
    r = run(settings, "ruling", "record", "sussex", "[bold]M99[/bold]")
    assert r.exit_code == 2 and "[bold]M99[/bold]" in r.output, r.output
    r = run(settings, "treasury", "sussex", "ENG", "A9", "5", "--reason", "x", "--actor", "gm")
    assert r.exit_code == 0
    r = run(settings, "export", "sussex", "--table", "[red]budget[/red]")
    assert r.exit_code == 2 and "error [table]: '[red]budget[/red]'" in r.output, r.output
    r = run(settings, "roll", "sussex", "--purpose", "x", "--manual", "[i]3")
    assert r.exit_code == 2 and "error [manual]: '[i]3'" in r.output, r.output


def test_settings_and_phases_go_through_their_commands(settings):
    run(settings, "campaign", "create", "essex", "--name", "E", "--country", "ENG")
    no_reason = run(settings, "campaign", "settings", "essex", "--no-players-may-roll")
    assert no_reason.exit_code == 2 and "[reason]" in no_reason.output
    done = run(settings, "campaign", "settings", "essex", "--no-players-may-roll", "--reason", "the GM rolls")
    assert done.exit_code == 0, done.output
    assert json.loads(run(settings, "campaign", "settings", "essex").output) == {"players_may_roll": False,
                                                                                 "ers_visibility": "country"}
    run(settings, "turn", "open", "essex")
    bad = run(settings, "phase", "close", "essex", "lunch")
    assert bad.exit_code == 2 and "[phase]" in bad.output
    assert run(settings, "phase", "close", "essex", "events").exit_code == 0


def test_the_game_master_publishes_a_turns_sheets_and_opens_later_budgets(settings):
    run(settings, "campaign", "create", "wessex", "--name", "W", "--country", "ENG", "--country", "FRA")
    run(settings, "turn", "open", "wessex")
    assert run(settings, "treasury", "wessex", "ENG", "A9", "5", "--reason", "loot").exit_code == 0
    unknown = run(settings, "publish-sheets", "wessex", "1", "--country", "XXX")
    assert unknown.exit_code == 2 and "[countries]" in unknown.output and "'XXX'" in unknown.output
    done = run(settings, "publish-sheets", "wessex", "1", "--country", "ENG", "--reason", "turn 1 shown")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["data"] == {"turn": 1, "countries": ["ENG"], "published": [3]}  # the entry
    opened = run(settings, "campaign", "settings", "wessex", "--ers-visibility", "public", "--reason", "open books")
    assert opened.exit_code == 0, opened.output
    assert json.loads(run(settings, "campaign", "settings", "wessex").output)["ers_visibility"] == "public"
    wrong = run(settings, "campaign", "settings", "wessex", "--ers-visibility", "friends", "--reason", "x")
    assert wrong.exit_code == 2 and "ers_visibility" in wrong.output
