"""Exports people can read: the entries table, the xlsx workbook, and private budgets by default.

Every download is read back (CSV, JSON, Parquet, xlsx through openpyxl) and
compared with what the API serves: ``GET .../ers/{country}/{turn}`` for the
sheets, the event history for the entries.
"""

from __future__ import annotations

import csv
import io

import openpyxl
import pyarrow.parquet as pq
import pytest

from ledger.domain.campaign import campaign_id
from ledger.rules.eu.ers import ers_definition
from tests.e2e.test_access import ADMIN, bearer, issue, make_client
from tests.e2e.test_export_http import SETUP, build
from tests.integration.test_economy_flow import SLUG as ECONOMY


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN}"
        yield client


def read_csv(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8"))))


def test_the_entries_table_lists_every_entry_and_correction_with_its_reason_in_every_format(http, ledger):
    build(ledger, "economy")
    history = list(ledger.history(campaign_id(ECONOMY)))
    entries = {e.originator_version: e for e in history if type(e).__name__ == "TreasuryEntryRecorded"}
    corrections = [e for e in history if type(e).__name__ == "CorrectionRecorded" and e.corrects in entries]
    rows = http.get(f"/campaigns/{ECONOMY}/export/entries.json").json()
    assert [r["position"] for r in rows] == sorted([*entries, *(c.originator_version for c in corrections)])
    for r in rows:
        if r["kind"] == "entry":
            e = entries[r["position"]]
            assert (r["country"], r["turn"], r["line"], r["amount"], r["reason"], r["actor"]) == (
                e.country, e.turn, e.line, e.amount, e.reason, e.actor["id"])
            assert r["title"] == ers_definition().get(e.line).name and r["time"] and r["hash"] == e.hash
    [fix] = [r for r in rows if r["kind"] == "correction"]
    assert fix["corrects"] in entries and fix["amount"] == 180 and fix["line"] == "B1" and fix["reason"]
    from_csv = read_csv(http.get(f"/campaigns/{ECONOMY}/export/entries.csv").content)
    from_parquet = pq.read_table(io.BytesIO(http.get(f"/campaigns/{ECONOMY}/export/entries.parquet").content)
                                 ).to_pylist()
    assert [(int(r["position"]), r["reason"], int(r["amount"])) for r in from_csv] == \
        [(r["position"], r["reason"], r["amount"]) for r in rows] == \
        [(r["position"], r["reason"], r["amount"]) for r in from_parquet]
    fra = http.get(f"/campaigns/{ECONOMY}/export/entries.json", params={"country": "FRA", "turns": "2"}).json()
    assert fra and {(r["country"], r["turn"]) for r in fra} == {("FRA", 2)}


def test_the_xlsx_workbook_holds_each_countrys_sheets_a_b_c_and_the_entries(http, ledger):
    build(ledger, "economy")
    r = http.get(f"/campaigns/{ECONOMY}/export/ers.xlsx")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/vnd.openxmlformats")
    book = openpyxl.load_workbook(io.BytesIO(r.content))
    assert book.sheetnames == ["FRA", "ENG", "entries"]
    for country in ("FRA", "ENG"):
        ws = book[country]
        header = [c.value for c in ws[2]]
        assert header[:4] == ["line", "title", "turn 1", "turn 2"]
        cells = {row[0]: row for row in ws.iter_rows(min_row=3, values_only=True) if row[0]}
        assert {"Sheet A · Royal Treasury", "Sheet B · Income and expenses", "Sheet C · Loans"} <= set(cells)
        for turn in (1, 2):
            served = http.get(f"/campaigns/{ECONOMY}/ers/{country}/{turn}").json()
            for line in served["lines"]:
                assert cells[line["code"]][1 + turn] == line["amount"], (country, turn, line["code"])
    entries = http.get(f"/campaigns/{ECONOMY}/export/entries.json").json()
    ws = book["entries"]
    assert [c.value for c in ws[1]][:3] == ["campaign", "position", "kind"]
    assert [row[1] for row in ws.iter_rows(min_row=2, values_only=True)] == [e["position"] for e in entries]
    one = openpyxl.load_workbook(io.BytesIO(http.get(f"/campaigns/{ECONOMY}/export/ers.xlsx",
                                                     params={"country": "ENG"}).content))
    assert one.sheetnames == ["ENG", "entries"] and all(
        row[5] == "ENG" for row in one["entries"].iter_rows(min_row=2, values_only=True))


def test_by_default_a_players_exports_never_hold_another_countrys_entries(http, ledger):
    ledger.create_campaign(slug="private", name="Private", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    cid = campaign_id("private")
    assert http.get("/campaigns/private").json()["settings"]["ers_visibility"] == "country"
    ledger.open_turn(cid, actor=SETUP)
    for country, amount in (("ENG", 100), ("FRA", 80)):
        ledger.record_treasury_entry(cid, country=country, line="A1", amount=amount, reason=f"{country} start",
                                     actor=SETUP)
        ledger.record_treasury_entry(cid, country=country, line="A9", amount=7, reason=f"{country} loot",
                                     actor=SETUP)
    fra = bearer(issue(ledger, cid, "player", "FRA"))
    seen = http.get("/campaigns/private/export/entries.json", headers=fra).json()
    assert {r["country"] for r in seen} == {"FRA"} and {r["visible_to"] for r in seen} == {"FRA"}
    for path in ("ers.csv?include_defaulted=true", "ers-wide.csv", "entries.csv"):
        body = http.get(f"/campaigns/private/export/{path}", headers=fra).content.decode()
        assert "ENG start" not in body and "ENG loot" not in body
        assert not any(r["country"] == "ENG" and r.get("amount", r.get("A1 RT at start of turn")) == "100"
                       for r in read_csv(body.encode())), path
    book = openpyxl.load_workbook(io.BytesIO(http.get("/campaigns/private/export/ers.xlsx", headers=fra).content))
    assert all(row[5] == "FRA" for row in book["entries"].iter_rows(min_row=2, values_only=True))
    assert 100 not in [v for row in book["ENG"].iter_rows(values_only=True) for v in row]
    assert {r["country"] for r in http.get("/campaigns/private/export/entries.json").json()} == {"ENG", "FRA"}
    # A campaign created public shows every budget to every player, as before.
    ledger.create_campaign(slug="open", name="Open", ruleset="eu", countries=["ENG", "FRA"],
                           settings={"ers_visibility": "public"}, actor=SETUP)
    ledger.open_turn(campaign_id("open"), actor=SETUP)
    ledger.record_treasury_entry(campaign_id("open"), country="ENG", line="A1", amount=100, reason="start",
                                 actor=SETUP)
    other = bearer(issue(ledger, campaign_id("open"), "player", "FRA"))
    assert [r["country"] for r in http.get("/campaigns/open/export/entries.json", headers=other).json()] == ["ENG"]
    bad = http.post("/campaigns", json={"slug": "odd", "name": "Odd", "countries": ["ENG"],
                                        "settings": {"ers_visibility": "friends"}})
    assert bad.status_code == 422 and "ers_visibility" in bad.text


def test_each_xlsx_amount_from_entries_carries_a_comment_listing_them_with_their_reasons(http, ledger):
    build(ledger, "economy")
    book = openpyxl.load_workbook(io.BytesIO(http.get(f"/campaigns/{ECONOMY}/export/ers.xlsx").content))
    entries = {e["position"]: e for e in http.get(f"/campaigns/{ECONOMY}/export/entries.json").json()}
    commented = 0
    for country in ("FRA", "ENG"):
        ws = book[country]
        rows = {row[0].value: row for row in ws.iter_rows(min_row=3) if row[0].value}
        for turn in (1, 2):
            for line in http.get(f"/campaigns/{ECONOMY}/ers/{country}/{turn}").json()["lines"]:
                comment = rows[line["code"]][1 + turn].comment
                if line["events"]:
                    said = comment.text.splitlines()
                    assert said[0] == "From:" and [int(s.split()[0][1:]) for s in said[1:]] == line["events"]
                    for p, text in zip(line["events"], said[1:]):
                        if p in entries:  # an entry or a correction: its reason is there, in words
                            assert entries[p]["reason"] in text and "{" not in text, text
                    commented += 1
                elif line["kind"] == "derived" and line["formula"]:
                    assert comment.text.startswith("Worked out as ") and "pct_" not in comment.text
                else:
                    assert comment is None, (country, turn, line["code"])
    assert commented >= 8
    # The worked example's corrected B1 of FRA turn 2: the entry and its correction, each with its reason.
    b1 = book["FRA"]
    [row] = [r for r in b1.iter_rows(min_row=3) if r[0].value == "B1"]
    assert "correction of #" in row[3].comment.text
