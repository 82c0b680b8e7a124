"""Exports and charts over HTTP, on every store of the ``ledger`` fixture.

Two campaigns: the sample (ledger/sample.py) and the worked ERS example of
tests/integration/test_economy_flow.py (treasury entries, ruling effects, a
correction; France's sheets checked there line by line by hand). Every export
is read back and compared with what ``GET /campaigns/{id}/ers/{country}/{turn}``
serves.
"""

from __future__ import annotations

import csv
import io
import re

import orjson
import pyarrow.parquet as pq
import pytest

from ledger.application import Actor
from ledger.domain.campaign import campaign_id
from ledger.rules.eu.ers import ers_definition
from ledger.sample import FIXED_DICE, play_sample_turn
from ledger.economy.sheets import SET_UNITS
from tests.e2e.test_access import ADMIN, bearer, issue, make_client
from tests.integration.test_economy_flow import GM, SLUG as ECONOMY, play_turn_one, play_turn_two
from tests.unit.rules.eu.test_ers import TURN1, TURN2

SETUP = Actor("setup", "gm")


def build(ledger, which: str) -> str:
    if which == "sample":
        from ledger.scenario import import_scenario, load_text

        import_scenario(ledger, load_text("sample"), slug="sample", name="Sample", source="sample.yaml", actor=GM)
        play_sample_turn(ledger, FIXED_DICE)
        return "sample"
    ledger.create_campaign(slug=ECONOMY, name="Europa ERS", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    cid = campaign_id(ECONOMY)
    play_turn_one(ledger, cid)
    play_turn_two(ledger, cid)
    return ECONOMY


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN}"
        yield client


def served_sheets(http, slug: str) -> dict[tuple[str, int, str], tuple[int, str]]:
    campaign = http.get(f"/campaigns/{slug}").json()
    out = {}
    for country in campaign["countries"]:
        for turn in range(1, campaign["turn"] + 1):
            sheet = http.get(f"/campaigns/{slug}/ers/{country}/{turn}").json()
            out |= {(country, turn, line["code"]): (line["amount"], line["kind"]) for line in sheet["lines"]}
    return out


def read_csv(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8"))))


@pytest.mark.parametrize("which", ["sample", "economy"])
def test_csv_parquet_and_json_exports_read_back_equal_the_served_ers(http, ledger, which):
    slug = build(ledger, which)
    served = served_sheets(http, slug)
    assert len(served) == 2 * 2 * len(ers_definition().codes)  # two countries, two turns, every line
    every = {"include_defaulted": "true"}
    from_csv = {(r["country"], int(r["turn"]), r["line"]): (int(r["amount"]), r["kind"])
                for r in read_csv(http.get(f"/campaigns/{slug}/export/ers.csv", params=every).content)}
    table = pq.read_table(io.BytesIO(http.get(f"/campaigns/{slug}/export/ers.parquet", params=every).content)
                          ).to_pylist()
    from_parquet = {(r["country"], r["turn"], r["line"]): (r["amount"], r["kind"]) for r in table}
    from_json = {(r["country"], r["turn"], r["line"]): (r["amount"], r["kind"])
                 for r in http.get(f"/campaigns/{slug}/export/ers.json", params=every).json()}
    assert from_csv == served and from_parquet == served and from_json == served
    # By default the defaulted lines (nothing entered, their default taken) are left out, and only they.
    served_rows = {(c, t, line["code"]): line for c in ("ENG", "FRA") if c in {k[0] for k in served}
                   for t in (1, 2) for line in http.get(f"/campaigns/{slug}/ers/{c}/{t}").json()["lines"]}
    kept = {(r["country"], int(r["turn"]), r["line"])
            for r in read_csv(http.get(f"/campaigns/{slug}/export/ers.csv").content)}
    assert kept == {k for k, line in served_rows.items() if not line["defaulted"]} and len(kept) < len(served)
    if which == "economy":  # the hand-worked numbers, as exported
        assert {c: from_csv[("FRA", 1, c)][0] for c in TURN1} == TURN1
        assert {c: from_csv[("FRA", 2, c)][0] for c in TURN2} == TURN2


def test_every_entered_cell_points_to_events_whose_amounts_make_it(http, ledger):
    build(ledger, "economy")
    events = {e.originator_version: e for e in ledger.history(campaign_id(ECONOMY))}
    defn = ers_definition()
    rows = http.get(f"/campaigns/{ECONOMY}/export/ers.json", params={"include_defaulted": "true"}).json()
    checked = 0
    for row in rows:
        assert row["hashes"] == [events[p].hash for p in row["positions"]]
        if row["kind"] != "entered" or row["defaulted"]:
            continue
        entries = [events[p] for p in row["positions"] if type(events[p]).__name__ == "TreasuryEntryRecorded"]
        corrections = {events[p].corrects: events[p] for p in row["positions"]
                       if type(events[p]).__name__ == "CorrectionRecorded"}
        amounts = [(corrections[e.originator_version].replacement or {}).get("amount", e.amount)
                   if e.originator_version in corrections else e.amount for e in entries]
        assert {(e.country, e.turn, e.line) for e in entries} == {(row["country"], row["turn"], row["line"])}
        line = defn.get(row["line"])
        made = amounts[-1] if line.unit in SET_UNITS else sum(amounts) * (line.ducats_per_tick or 1)
        assert made == row["amount"], row
        checked += 1
    assert checked >= 40
    [b1] = [r for r in rows if (r["country"], r["turn"], r["line"]) == ("FRA", 2, "B1")]
    assert b1["amount"] == 180 and len(b1["positions"]) == 2  # the entry of 170 and its correction
    [a13] = [r for r in rows if (r["country"], r["turn"], r["line"]) == ("FRA", 1, "A13")]
    [a9] = [r for r in rows if (r["country"], r["turn"], r["line"]) == ("FRA", 1, "A9")]
    assert set(a9["positions"]) < set(a13["positions"])  # A13 = A8 + A9 + A10 + A12: its sources' events


def test_the_wide_export_is_the_long_export_pivoted(http, ledger):
    slug = build(ledger, "sample")
    long_rows = read_csv(http.get(f"/campaigns/{slug}/export/ers.csv", params={"include_defaulted": "1"}).content)
    wide_rows = read_csv(http.get(f"/campaigns/{slug}/export/ers-wide.csv").content)
    assert [(r["country"], r["turn"]) for r in wide_rows] == [("ENG", "1"), ("ENG", "2"), ("FRA", "1"), ("FRA", "2")]
    defn = ers_definition()
    assert "A9 Pillages, privateers" in wide_rows[0] and "A15_pct" not in wide_rows[0]  # named by code and title
    for w in wide_rows:
        mine = [r for r in long_rows if (r["country"], r["turn"]) == (w["country"], w["turn"])]
        assert {r["line"]: r["amount"] for r in mine} == {c: w[f"{c} {defn.get(c).name}"] for c in defn.codes}
        assert sorted(int(p) for p in w["positions"].split()) == sorted(
            {int(p) for r in mine for p in r["positions"].split()})


def test_country_and_turns_filter_the_rows_and_bad_values_are_422_naming_the_field(http, ledger):
    slug = build(ledger, "sample")
    rows = http.get(f"/campaigns/{slug}/export/ers.json", params={"country": "FRA", "turns": "2..2",
                                                                  "include_defaulted": "true"}).json()
    assert {(r["country"], r["turn"]) for r in rows} == {("FRA", 2)} and len(rows) == len(ers_definition().codes)
    victory = http.get(f"/campaigns/{slug}/export/victory.json", params={"turns": "1"}).json()
    assert [(r["country"], r["turn"], r["points"], r["positions"]) for r in victory] == [
        ("ENG", 1, 5, [13]), ("FRA", 1, 0, [])]  # M19 at position 13 (after three phases closed): ENG's major victory
    for path, params, field in [("ers.csv", {"turns": "3..4"}, "turns"), ("ers.csv", {"turns": "2..1"}, "turns"),
                                ("ers.csv", {"turns": "one"}, "turns"), ("ers.csv", {"country": "SPA"}, "country"),
                                ("budget.csv", {}, "table"), ("ers.ods", {}, "format")]:
        r = http.get(f"/campaigns/{slug}/export/{path}", params=params)
        assert r.status_code == 422 and r.json()["error"]["field"] == field, (path, params, r.text)
    for path, params, field in [("pie.svg", {}, "kind"), ("treasury.gif", {}, "format"), ("ers.svg", {}, "country"),
                                ("victory.svg", {"turns": "0..9"}, "turns")]:
        r = http.get(f"/campaigns/{slug}/charts/{path}", params=params)
        assert r.status_code == 422 and r.json()["error"]["field"] == field, (path, params, r.text)


def test_a_players_export_holds_no_other_countrys_hidden_entries(http, settings, ledger):
    ledger.create_campaign(slug="secret", name="Secret", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    cid = campaign_id("secret")
    ledger.open_turn(cid, actor=SETUP)
    everyone = {"scope": "public"}  # marked: the campaign's default keeps an entry to its country
    for country in ("ENG", "FRA"):
        ledger.record_treasury_entry(cid, country=country, line="A1", amount=100, reason="start", actor=SETUP,
                                     vis=everyone)
    ours = {"scope": "countries", "countries": ["ENG"]}
    hidden = ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=70, reason="secret loot",
                                          actor=SETUP, vis=ours).events[0]["position"]
    gm_only = ledger.record_treasury_entry(cid, country="FRA", line="A10", amount=9, reason="gm only",
                                           actor=SETUP, vis={"scope": "gm"}).events[0]["position"]
    public = ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=5, reason="public loot",
                                          actor=SETUP, vis=everyone).events[0]["position"]
    fra = bearer(issue(ledger, cid, "player", "FRA"))
    eng = bearer(issue(ledger, cid, "player", "ENG"))

    def a9_a10(headers):
        rows = http.get("/campaigns/secret/export/ers.json", params={"include_defaulted": "true"},
                        headers=headers).json()
        return {(r["country"], r["line"]): (r["amount"], r["positions"]) for r in rows if r["line"] in ("A9", "A10")}

    seen_by_fra = a9_a10(fra)
    assert seen_by_fra[("ENG", "A9")] == (5, [public]) and seen_by_fra[("FRA", "A10")] == (0, [])
    assert a9_a10(eng)[("ENG", "A9")] == (75, [hidden, public])
    assert a9_a10({})[("FRA", "A10")] == (9, [gm_only])  # the admin sees everything
    fra_csv = http.get("/campaigns/secret/export/ers.csv", headers=fra).content.decode()
    hidden_hash = next(e.hash for e in ledger.history(cid) if e.originator_version == hidden)
    assert hidden_hash not in fra_csv and "70" not in {r["amount"] for r in read_csv(fra_csv.encode())
                                                       if r["country"] == "ENG"}
    # The same numbers as the ERS route gives this player, sheet by sheet.
    served = http.get("/campaigns/secret/ers/ENG/1", headers=fra).json()
    exported = http.get("/campaigns/secret/export/ers.json", params={"country": "ENG", "include_defaulted": "1"},
                        headers=fra).json()
    assert {r["line"]: r["amount"] for r in exported} == {line["code"]: line["amount"] for line in served["lines"]}
    observer = bearer(issue(ledger, cid, "observer"))
    chart = http.get("/campaigns/secret/charts/ers.svg", params={"country": "ENG"}, headers=observer)
    assert chart.status_code == 200 and "A9 Pillages" in chart.text  # the public 5 only
    assert http.get("/campaigns/secret/export/ers.csv", headers=bearer("lt_x_bad")).status_code == 401


def test_downloads_carry_their_content_type_file_name_and_etag(http, ledger):
    slug = build(ledger, "sample")
    expected = {"ers.csv": "text/csv; charset=utf-8", "ers-wide.json": "application/json",
                "stability.parquet": "application/vnd.apache.parquet", "inflation.csv": "text/csv; charset=utf-8"}
    for name, media in expected.items():
        r = http.get(f"/campaigns/{slug}/export/{name}")
        assert r.status_code == 200 and r.headers["content-type"] == media
        assert r.headers["content-disposition"] == f'attachment; filename="{slug}-{name}"'
    r = http.get(f"/campaigns/{slug}/export/victory.csv", params={"country": "ENG", "turns": "1..2"})
    assert r.headers["content-disposition"] == 'attachment; filename="sample-victory-ENG-turns1-2.csv"'
    assert r.content.decode("utf-8").splitlines()[0] == "campaign,country,turn,points,total,positions,hashes"
    again = http.get(f"/campaigns/{slug}/export/victory.csv", params={"country": "ENG", "turns": "1..2"},
                     headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    ledger.record_treasury_entry(campaign_id(slug), country="ENG", line="A9", amount=1, reason="x", actor=GM)
    moved = http.get(f"/campaigns/{slug}/export/victory.csv", params={"country": "ENG", "turns": "1..2"},
                     headers={"If-None-Match": r.headers["etag"]})
    assert moved.status_code == 200  # a new event, a new answer


def test_the_same_download_at_the_same_head_is_written_once_and_a_new_event_writes_it_again(http, ledger,
                                                                                          monkeypatch):
    """A workbook takes a few hundred ms to write on a long campaign: a second request for it by the same audience
    at the same head gets the bytes written for the first; an append makes a new one, with the new entry."""
    from projections import export

    slug = build(ledger, "sample")
    written = []
    real = export.to_xlsx
    monkeypatch.setattr(export, "to_xlsx", lambda *a, **k: written.append(1) or real(*a, **k))
    first = http.get(f"/campaigns/{slug}/export/ers.xlsx", params={"country": "ENG"})
    second = http.get(f"/campaigns/{slug}/export/ers.xlsx", params={"country": "ENG"})
    assert first.status_code == second.status_code == 200 and len(written) == 1
    assert second.content == first.content and second.headers["etag"] == first.headers["etag"]
    assert second.headers["content-disposition"] == f'attachment; filename="{slug}-ers-ENG.xlsx"'
    ledger.record_treasury_entry(campaign_id(slug), country="ENG", line="A9", amount=1, reason="cached?", actor=GM)
    third = http.get(f"/campaigns/{slug}/export/ers.xlsx", params={"country": "ENG"})
    assert len(written) == 2 and third.headers["etag"] != first.headers["etag"]
    rows = http.get(f"/campaigns/{slug}/export/entries.json", params={"country": "ENG"}).json()
    assert rows[-1]["reason"] == "cached?"


def test_charts_are_served_as_svg_and_png_with_one_series_per_country(http, ledger):
    slug = build(ledger, "economy")
    svg = http.get(f"/campaigns/{slug}/charts/treasury.svg")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert set(re.findall(r'id="series-(\d+)"', svg.text)) == {"0", "1", "2", "3"}  # FRA and ENG, A1 and A33
    assert all(label in svg.text for label in ("FRA A1", "FRA A33", "ENG A1", "ENG A33"))
    assert svg.content == http.get(f"/campaigns/{slug}/charts/treasury.svg").content
    png = http.get(f"/campaigns/{slug}/charts/income.png", params={"country": "FRA"})
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    ers = http.get(f"/campaigns/{slug}/charts/ers.svg", params={"country": "FRA", "turns": "1..1"}).text
    assert "A9 Pillages, privateers" in ers and "B41 Active campaigns" in ers


def test_the_json_exports_are_plain_arrays_of_rows(http, ledger):
    slug = build(ledger, "sample")
    stability = orjson.loads(http.get(f"/campaigns/{slug}/export/stability.json").content)
    assert [(r["country"], r["turn"], r["start"], r["end"]) for r in stability] == [
        ("ENG", 1, 1, 2), ("ENG", 2, 2, 2), ("FRA", 1, 0, -1), ("FRA", 2, -1, -1)]
    inflation = http.get(f"/campaigns/{slug}/export/inflation.json").json()
    assert [(r["turn"], r["start"], r["end"]) for r in inflation] == [(1, 1, 1), (2, 1, 1)]
