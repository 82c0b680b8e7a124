"""The ERS page (``/ui/campaigns/{id}/ers/{country}/{turn}``) shows exactly what ``GET .../ers`` serves.

Parsed with the standard library's HTML parser: every line of the served sheet
is a cell of the page (``id="cell-CODE"``) with the same amount and kind, for
every country and turn of the worked ERS example; an entered cell names the
events behind it with their reasons; a player reads only what they may see.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from ledger import tokens
from ledger.domain.campaign import campaign_id
from tests.e2e.test_access import ADMIN, bearer, issue, make_client
from tests.e2e.test_export_http import SETUP, build
from tests.integration.test_economy_flow import SLUG as ECONOMY


class Cells(HTMLParser):
    """Every element with an ``id="cell-..."``: its data attributes, and the event positions inside its row."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, dict[str, str]] = {}
        self.row: str | None = None
        self.events: dict[str, list[int]] = {}
        self.ids: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if a.get("id", "").startswith("cell-"):
            self.cells[a["id"][5:]] = a
            if tag == "tr":
                self.row = a["id"][5:]
                self.events[self.row] = []
        if tag == "div" and "data-position" in a and self.row:
            self.events[self.row].append(int(a["data-position"]))

    def handle_endtag(self, tag):
        if tag == "tr":
            self.row = None

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Cells:
    p = Cells()
    p.feed(html)
    return p


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.cookies.set("ledger_token", tokens.log_in(ledger, ADMIN, ADMIN, 1))
        yield client


def test_every_cell_of_the_page_is_the_served_sheets_for_every_country_and_turn(http, ledger):
    slug = build(ledger, "economy")
    checked = 0
    for country in ("FRA", "ENG"):
        for turn in (1, 2):
            served = http.get(f"/campaigns/{slug}/ers/{country}/{turn}").json()
            page = http.get(f"/ui/campaigns/{slug}/ers/{country}/{turn}")
            assert page.status_code == 200
            cells = parse(page.text).cells
            assert set(cells) == {line["code"] for line in served["lines"]}
            for line in served["lines"]:
                cell = cells[line["code"]]
                assert (int(cell["data-amount"]), cell["data-kind"]) == (line["amount"], line["kind"]), line
                checked += 1
    assert checked == 4 * len(served["lines"])


def test_an_entered_cell_names_its_entries_with_their_reasons_and_corrections(http, ledger):
    build(ledger, "economy")
    served = {line["code"]: line for line in http.get(f"/campaigns/{ECONOMY}/ers/FRA/2").json()["lines"]}
    page = http.get(f"/ui/campaigns/{ECONOMY}/ers/FRA/2")
    parsed = parse(page.text)
    assert parsed.events["B1"] == served["B1"]["events"] and len(served["B1"]["events"]) == 2
    entry, correction = served["B1"]["events"]
    assert f"/turns/2?position={entry}" in page.text and f"correction of #{entry}" in page.text
    assert "prev-turn" in parsed.ids and "next-turn" not in parsed.ids
    assert "A33 of turn 1" in page.text  # A1 of turn 2 comes from last turn's sheet, linked


def test_the_campaign_page_links_each_countrys_sheet(http, ledger):
    slug = build(ledger, "economy")
    ids = parse(http.get(f"/ui/campaigns/{slug}").text).ids
    assert {"ers-FRA", "ers-ENG"} <= ids


def test_a_player_sees_their_own_entries_and_not_another_countrys_private_ones(http, settings, ledger):
    ledger.create_campaign(slug="secret", name="Secret", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    cid = campaign_id("secret")
    ledger.open_turn(cid, actor=SETUP)
    ledger.record_treasury_entry(cid, country="ENG", line="A1", amount=100, reason="start", actor=SETUP,
                                 vis={"scope": "public"})
    # No visibility given: the campaign's default (created without ers_visibility: the country's own).
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=70, reason="secret loot", actor=SETUP)
    fra, eng = issue(ledger, cid, "player", "FRA"), issue(ledger, cid, "player", "ENG")
    http.cookies.set("ledger_token", tokens.log_in(ledger, fra, ADMIN, 1))
    as_fra = http.get("/ui/campaigns/secret/ers/ENG/1").text
    assert "secret loot" not in as_fra and parse(as_fra).cells["A9"]["data-amount"] == "0"
    assert "not-yours" in parse(as_fra).ids
    http.cookies.set("ledger_token", tokens.log_in(ledger, eng, ADMIN, 1))
    as_eng = http.get("/ui/campaigns/secret/ers/ENG/1").text
    assert "secret loot" in as_eng and parse(as_eng).cells["A9"]["data-amount"] == "70"
    assert http.get("/campaigns/secret/ers/ENG/1", headers=bearer(eng)).json()["lines"][8]["amount"] == 70


def test_a_sheet_that_cannot_be_computed_says_why_in_words(http, ledger):
    ledger.create_campaign(slug="broken", name="Broken", ruleset="eu", countries=["ENG"], actor=SETUP)
    cid = campaign_id("broken")
    ledger.open_turn(cid, actor=SETUP)  # no scenario and no A1 entered: turn 1 has no treasury to start from
    served = http.get("/campaigns/broken/ers/ENG/1").json()
    page = http.get("/ui/campaigns/broken/ers/ENG/1")
    assert served["error"] is not None and page.status_code == 200
    assert "sheet-error" in parse(page.text).ids and served["error"]["message"] in page.text
    assert http.get("/ui/campaigns/broken/ers/ENG/2").status_code == 422


def test_the_how_column_says_each_formula_in_plain_words(http, ledger):
    build(ledger, "economy")
    served = {line["code"]: line for line in http.get(f"/campaigns/{ECONOMY}/ers/FRA/1").json()["lines"]}
    assert served["A15"]["formula"] == "pct_down(A14, A15_pct)"  # the rules' expression, in the API only
    page = http.get(f"/ui/campaigns/{ECONOMY}/ers/FRA/1").text
    for said in ("A15 % of A14, rounded down", "B26 + B27 + the sum of B29 to B37"):
        assert f'<span class="formula">{said}</span>' in page
    assert not re.search(r"pct_down|pct_up|sum_range|prev\(|_pct\b", " ".join(parse(page).text))
