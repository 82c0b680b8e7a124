"""The command line as a new game master meets it: where the data is, who records, negative amounts, exports.

Run on the store of the ``settings`` fixture (SQLite, and PostgreSQL when configured).
"""

from __future__ import annotations

import csv
import io
import json

import openpyxl
from typer.testing import CliRunner

from ledger.cli import app
from ledger.domain.campaign import campaign_id
from tests.integration.test_cli import cli_env

runner = CliRunner()


def run(settings, *args: str, **env: str):
    return runner.invoke(app, list(args), env={**cli_env(settings), **env})


def test_a_negative_amount_needs_no_double_dash_and_the_actor_comes_from_the_configuration(settings, ledger):
    assert run(settings, "campaign", "create", "calais", "--name", "Calais", "--country", "ENG", "--country",
               "FRA").exit_code == 0
    assert run(settings, "turn", "open", "calais").exit_code == 0
    done = run(settings, "treasury", "calais", "FRA", "A9", "-5", "--reason", "a privateer sunk", LEDGER_ACTOR="gina")
    assert done.exit_code == 0, done.output
    assert run(settings, "treasury", "calais", "FRA", "A1", "150", "--reason", "start", "--actor", "hugo",
               LEDGER_ACTOR="gina").exit_code == 0
    assert run(settings, "treasury", "calais", "FRA", "A10", "3", "--reason", "gold").exit_code == 0
    events = [e for e in ledger.history(campaign_id("calais")) if type(e).__name__ == "TreasuryEntryRecorded"]
    assert [(e.amount, e.actor["id"]) for e in events] == [(-5, "gina"), (150, "hugo"), (3, "gm")]
    # Recorded without a visibility in a campaign created by the CLI: France's own (and the game masters').
    assert {tuple(e.visibility.get("countries") or ()) for e in events} == {("FRA",)}


def test_a_campaign_not_found_names_the_slug_typed_and_the_store_looked_in(settings, ledger):
    missing = run(settings, "ers", "no-such-campaign", "FRA", "1")
    assert missing.exit_code == 2
    assert "no campaign 'no-such-campaign' in the " in missing.stderr
    if settings.backend == "sqlite":
        assert str(settings.sqlite_path.resolve()) in missing.stderr and "LEDGER_DATA_DIR" in missing.stderr
    else:
        assert "PostgreSQL" in missing.stderr


def test_a_new_empty_store_is_announced_not_created_silently(settings, tmp_path):
    if settings.backend != "sqlite":
        return  # a PostgreSQL store is never created by the CLI
    elsewhere = tmp_path / "elsewhere"
    r = runner.invoke(app, ["ers", "calais", "FRA", "1"], env={"LEDGER_STORE": "sqlite",
                                                              "LEDGER_DATA_DIR": str(elsewhere)})
    assert r.exit_code == 2 and "new empty one was created" in r.stderr and str(elsewhere) in r.stderr


def test_export_of_entries_xlsx_and_defaulted_rows(settings, ledger, tmp_path):
    assert run(settings, "campaign", "create", "calais", "--name", "Calais", "--country", "ENG", "--country", "FRA",
               "--ers-visibility", "public").exit_code == 0
    assert run(settings, "turn", "open", "calais").exit_code == 0
    for country, amount in (("ENG", 100), ("FRA", 150)):
        assert run(settings, "treasury", "calais", country, "A1", str(amount), "--reason", "start").exit_code == 0
    assert run(settings, "treasury", "calais", "FRA", "A9", "-5", "--reason", "sunk").exit_code == 0
    entries = run(settings, "export", "calais", "--table", "entries", "--format", "json")
    rows = json.loads(entries.stdout)
    assert [(r["country"], r["line"], r["amount"], r["reason"], r["visible_to"]) for r in rows] == [
        ("ENG", "A1", 100, "start", "everyone"), ("FRA", "A1", 150, "start", "everyone"),
        ("FRA", "A9", -5, "sunk", "everyone")]
    short = list(csv.DictReader(io.StringIO(run(settings, "export", "calais", "--table", "ers").stdout)))
    full = list(csv.DictReader(io.StringIO(run(settings, "export", "calais", "--table", "ers",
                                               "--include-defaulted").stdout)))
    assert {r["defaulted"] for r in short} == {"false"} and len(short) < len(full)
    key = lambda r: (r["country"], r["line"])  # noqa: E731
    assert {key(r) for r in full} - {key(r) for r in short} == {key(r) for r in full if r["defaulted"] == "true"}
    book = tmp_path / "calais.xlsx"
    assert run(settings, "export", "calais", "--format", "xlsx", "--out", str(book)).exit_code == 0
    wb = openpyxl.load_workbook(book)
    assert wb.sheetnames == ["ENG", "FRA", "entries"]
    a9 = [row for row in wb["FRA"].iter_rows(values_only=True) if row[0] == "A9"]
    assert a9 == [("A9", "Pillages, privateers", -5)]
