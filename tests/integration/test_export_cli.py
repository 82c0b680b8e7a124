"""``ledger export`` and ``ledger chart`` on both stores, on the worked ERS example.

France's hand-worked sheets (tests/unit/rules/eu/test_ers.py, TURN1 and TURN2)
are what the exported files and the plotted series must hold.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ledger.application import SYSTEM
from ledger.cli import app
from ledger.domain.campaign import campaign_id
from projections import charts
from projections.history import gather
from tests.integration.test_cli import cli_env
from tests.integration.test_economy_flow import GM, SLUG, play_turn_one, play_turn_two
from ledger.rules.eu.ers import ers_definition
from tests.unit.rules.eu.test_ers import TURN1, TURN2

runner = CliRunner()


@pytest.fixture
def economy(ledger):
    ledger.create_campaign(slug=SLUG, name="Europa ERS", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    cid = campaign_id(SLUG)
    play_turn_one(ledger, cid)
    play_turn_two(ledger, cid)
    return cid


def run(settings, *args: str):
    return runner.invoke(app, list(args), env=cli_env(settings))


def test_cli_exports_every_table_as_one_json_document_or_one_file_per_table(settings, economy, tmp_path):
    done = run(settings, "export", SLUG, "--format", "json", "--out", str(tmp_path / "all.json"),
               "--include-defaulted")
    assert done.exit_code == 0, done.output
    doc = json.loads((tmp_path / "all.json").read_text())
    assert (doc["campaign"], doc["turns"], sorted(doc["tables"])) == (SLUG, 2, ["entries", "ers", "inflation",
                                                                                 "stability", "victory"])
    fra1 = {r["line"]: r["amount"] for r in doc["tables"]["ers"] if (r["country"], r["turn"]) == ("FRA", 1)}
    assert {c: fra1[c] for c in TURN1} == TURN1
    assert run(settings, "export", SLUG, "--format", "csv", "--out", str(tmp_path / "csv"), "--shape",
               "wide").exit_code == 0
    files = sorted(p.name for p in (tmp_path / "csv").iterdir())
    assert files == [f"{SLUG}-{t}.csv" for t in ("entries", "ers-wide", "inflation", "stability", "victory")]
    wide = list(csv.DictReader(io.StringIO((tmp_path / "csv" / f"{SLUG}-ers-wide.csv").read_text("utf-8"))))
    a33 = f"A33 {ers_definition().get('A33').name}"
    assert [(r["country"], r["turn"], r[a33]) for r in wide if r["country"] == "FRA"] == [
        ("FRA", "1", str(TURN1["A33"])), ("FRA", "2", str(TURN2["A33"]))]
    out = tmp_path / "fra2.parquet"
    assert run(settings, "export", SLUG, "--format", "parquet", "--table", "ers", "--country", "FRA", "--turns",
               "2..2", "--out", str(out), "--include-defaulted").exit_code == 0
    rows = {r["line"]: r["amount"] for r in pq.read_table(out).to_pylist()}
    assert {c: rows[c] for c in TURN2} == TURN2


def test_cli_export_to_stdout_and_its_refusals(settings, economy):
    shown = run(settings, "export", SLUG, "--table", "stability", "--country", "FRA")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[0] == "campaign,country,turn,start,end,positions,hashes"
    bar = run(settings, "export", SLUG, "--table", "victory", "--progress")
    assert bar.exit_code == 0 and "reading events" in bar.stderr
    for args, field in [(("--turns", "3..4"), "turns"), (("--format", "xml"), "format"),
                        (("--table", "budget"), "table"), (("--country", "SPA"), "country"),
                        (("--format", "parquet"), "out")]:
        refused = run(settings, "export", SLUG, "--table", "ers", *args)
        assert refused.exit_code == 2 and f"[{field}]" in refused.stderr, (args, refused.output)
    every = run(settings, "export", SLUG)  # every table as CSV: one file each, so a directory
    assert every.exit_code == 2 and "[out]" in every.stderr


def test_chart_series_are_the_budgets_hand_worked_figures(ledger, economy):
    history = gather(ledger, economy, SYSTEM)
    treasury = charts.chart_series(history, "treasury", "FRA")
    assert [(s.label, s.values) for s in treasury.series] == [("FRA A1", (TURN1["A1"], TURN2["A1"])),
                                                              ("FRA A33", (TURN1["A33"], TURN2["A33"]))]
    [income] = charts.chart_series(history, "income", "FRA").series
    assert income.values == (273, 280)  # B25, the gross income of both turns
    ers = {s.label.split()[0]: s.values for s in charts.chart_series(history, "ers", "FRA").series}
    assert ers["B1"] == (180, 180) and ers["B41"] == (TURN1["B41"], 0)  # the corrected entry, the campaign ticks


def test_cli_draws_charts_in_the_format_of_the_file_suffix(settings, economy, tmp_path):
    done = run(settings, "chart", SLUG, "treasury", "--out", str(tmp_path / "t.svg"))
    assert done.exit_code == 0, done.output
    svg = (tmp_path / "t.svg").read_text()
    assert set(re.findall(r'id="series-(\d+)"', svg)) == {"0", "1", "2", "3"}
    assert run(settings, "chart", SLUG, "victory", "--out", str(tmp_path / "v.png")).exit_code == 0
    assert (tmp_path / "v.png").read_bytes()[:4] == b"\x89PNG"
    for args, field in [(("ers", "--out", str(tmp_path / "e.svg")), "country"),
                        (("treasury", "--out", str(tmp_path / "t.gif")), "out"),
                        (("pie", "--out", str(tmp_path / "p.svg")), "kind")]:
        refused = run(settings, "chart", SLUG, *args)
        assert refused.exit_code == 2 and f"[{field}]" in refused.stderr, (args, refused.output)
