"""The game master publishes a turn's sheets; the ``ers_visibility`` default can change from then on.

Budgets are private by default (the owning country and the game masters). Publishing a turn's sheets makes
the entries behind them public for good: every player then sees them on the ERS page, in the exports and
in the charts, and no later change of the setting hides them again (readers may have copied them).
Run on SQLite and PostgreSQL (the ``ledger`` fixture).
"""

from __future__ import annotations

import io
import re
import uuid

import openpyxl
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from ledger import tokens
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput
from tests.e2e.test_access import ADMIN, bearer, issue, make_client
from tests.e2e.test_export_http import SETUP
from ledger.sample import close_open_phases

SLUG = "secret-budgets"
CID = campaign_id(SLUG)


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN}"
        yield client


def two_turns_of_private_budgets(ledger) -> None:
    """ENG, FRA and SPA each record their starting treasury in turn 1 and a loot entry in turns 1 and 2,
    private by default."""
    ledger.create_campaign(slug=SLUG, name="Secret budgets", ruleset="eu", countries=["ENG", "FRA", "SPA"],
                           actor=SETUP)
    for turn in (1, 2):
        if turn == 2:
            close_open_phases(ledger, CID)  # the turn closes after its eight phases
            ledger.close_turn(CID, actor=SETUP)
        ledger.open_turn(CID, actor=SETUP)
        for country in ("ENG", "FRA", "SPA"):
            if turn == 1:
                ledger.record_treasury_entry(CID, country=country, line="A1", amount=100, reason=f"{country} start",
                                             actor=SETUP)
            ledger.record_treasury_entry(CID, country=country, line="A9", amount=10 * turn,
                                         reason=f"{country} loot t{turn}", actor=SETUP)


def entries_seen(http, headers) -> set[str]:
    return {r["reason"] for r in http.get(f"/campaigns/{SLUG}/export/entries.json", headers=headers).json()}


def test_before_publication_a_player_never_sees_another_countrys_private_entry(http, ledger):
    two_turns_of_private_budgets(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    assert entries_seen(http, fra) == {"FRA start", "FRA loot t1", "FRA loot t2"}
    for path in ("entries.csv", "ers.csv", "ers-wide.csv"):
        body = http.get(f"/campaigns/{SLUG}/export/{path}", headers=fra).text
        assert "ENG loot" not in body and "SPA loot" not in body, path
    book = openpyxl.load_workbook(io.BytesIO(http.get(f"/campaigns/{SLUG}/export/ers.xlsx", headers=fra).content))
    assert {row[5] for row in book["entries"].iter_rows(min_row=2, values_only=True)} == {"FRA"}


def test_after_publication_every_player_sees_exactly_the_published_turns_entries(http, ledger):
    two_turns_of_private_budgets(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    chart = f"/campaigns/{SLUG}/charts/ers.svg"
    assert "A9 " not in http.get(chart, params={"country": "ENG"}, headers=fra).text
    published = http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 1, "countries": ["ENG"],
                                                                  "reason": "end of turn 1: England shows its books"})
    assert published.status_code == 201, published.text
    [event] = published.json()["events"]
    assert event["type"] == "SheetsPublished"
    assert entries_seen(http, fra) == {"FRA start", "FRA loot t1", "FRA loot t2", "ENG start",
                                       "ENG loot t1"}  # not ENG's turn 2, not SPA
    book = openpyxl.load_workbook(io.BytesIO(http.get(f"/campaigns/{SLUG}/export/ers.xlsx", headers=fra).content))
    assert sorted(row[5] for row in book["entries"].iter_rows(min_row=2, values_only=True)) == [
        "ENG", "ENG", "FRA", "FRA", "FRA"]
    # The page's data: FRA now reads ENG's turn-1 sheet as the game master does; turn 2 stays ENG's own.
    gm_sheet = http.get(f"/campaigns/{SLUG}/ers/ENG/1").json()
    assert http.get(f"/campaigns/{SLUG}/ers/ENG/1", headers=fra).json()["lines"] == gm_sheet["lines"]
    turn_two = http.get(f"/campaigns/{SLUG}/ers/ENG/2", headers=fra).json()["lines"]
    assert {line["code"]: line["amount"] for line in turn_two}["A9"] == 0  # ENG's 20 of turn 2 stay hidden
    assert {line["code"]: line["amount"] for line in http.get(f"/campaigns/{SLUG}/ers/ENG/2").json()["lines"]}[
        "A9"] == 20
    # The charts follow: ENG's entered lines of turn 1 are drawn for FRA.
    assert "A9 " in http.get(chart, params={"country": "ENG"}, headers=fra).text
    # The turn's timeline says it in words (the publication is recorded in the open turn, 2).
    summaries = [e["summary"] for e in http.get(f"/campaigns/{SLUG}/turns/2/timeline", headers=fra).json()]
    assert ("turn 1 sheets of ENG published: 2 entries made public (end of turn 1: England shows its books)"
            in summaries), summaries
    # An observer sees them too: published is public.
    observer = bearer(issue(ledger, CID, "observer"))
    assert entries_seen(http, observer) == {"ENG start", "ENG loot t1"}


def test_publishing_every_country_of_a_turn_and_publishing_twice(http, ledger):
    two_turns_of_private_budgets(ledger)
    spa = bearer(issue(ledger, CID, "player", "SPA"))
    first = http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 2})  # every country by default
    assert first.status_code == 201 and first.json()["data"]["countries"] == ["ENG", "FRA", "SPA"]
    assert entries_seen(http, spa) == {"SPA start", "SPA loot t1", "ENG loot t2", "FRA loot t2", "SPA loot t2"}
    again = http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 2})
    assert again.status_code == 409 and "nothing to publish" in again.json()["error"]["message"]
    # An entry recorded after the publication keeps its own visibility: the game master publishes again.
    ledger.record_treasury_entry(CID, country="ENG", line="A9", amount=1, reason="ENG late loot t2", actor=SETUP)
    assert "ENG late loot t2" not in entries_seen(http, spa)
    assert http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 2, "countries": ["ENG"]}).json()["data"][
        "published"] == [ledger.campaign(CID).version - 1]
    assert "ENG late loot t2" in entries_seen(http, spa)


@pytest.mark.parametrize("body, status, field, words", [
    ({"turn": 3}, 422, "turn", "turn 3 has not been opened"),
    ({"turn": 1, "countries": ["XXX"]}, 422, "countries", "country 'XXX' is not in this campaign"),
    ({"turn": 1, "countries": ["ENG", "ENG"]}, 422, "countries", "must not repeat"),
    ({"turn": "1"}, 422, "turn", ""),
    ({"turn": 1, "visibility": {"scope": "public"}}, 422, "visibility", ""),
])
def test_a_bad_publication_names_the_field_and_appends_nothing(http, ledger, body, status, field, words):
    two_turns_of_private_budgets(ledger)
    before = ledger.campaign(CID).version
    r = http.post(f"/campaigns/{SLUG}/ers/publish", json=body)
    assert r.status_code == status, r.text
    assert field in r.text and words in r.text
    assert ledger.campaign(CID).version == before


def test_only_the_game_master_publishes(http, ledger):
    two_turns_of_private_budgets(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    r = http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 1}, headers=fra)
    assert r.status_code == 403
    assert "ENG loot t1" not in entries_seen(http, fra)


def test_changing_ers_visibility_counts_from_then_on_and_never_hides_what_was_shown(http, ledger):
    two_turns_of_private_budgets(ledger)
    fra = bearer(issue(ledger, CID, "player", "FRA"))
    r = http.post(f"/campaigns/{SLUG}/settings", json={"settings": {"ers_visibility": "public"},
                                                        "reason": "open budgets from turn 2 on"})
    assert r.status_code == 201, r.text
    assert http.get(f"/campaigns/{SLUG}").json()["settings"]["ers_visibility"] == "public"
    assert "ENG loot t2" not in entries_seen(http, fra)  # not retroactive: recorded private, stays so
    ledger.record_treasury_entry(CID, country="ENG", line="A9", amount=5, reason="ENG open loot", actor=SETUP)
    assert "ENG open loot" in entries_seen(http, fra)
    # Back to private: what was recorded public stays public (players may have read it).
    http.post(f"/campaigns/{SLUG}/settings", json={"settings": {"ers_visibility": "country"}, "reason": "closed"})
    ledger.record_treasury_entry(CID, country="ENG", line="A9", amount=6, reason="ENG closed loot", actor=SETUP)
    seen = entries_seen(http, fra)
    assert "ENG open loot" in seen and "ENG closed loot" not in seen
    bad = http.post(f"/campaigns/{SLUG}/settings", json={"settings": {"ers_visibility": "friends"}, "reason": "x"})
    assert bad.status_code == 422 and "ers_visibility" in bad.text


def test_the_command_is_strict():
    assert cmd.build(cmd.PublishSheets, turn=2).countries is None
    with pytest.raises(InvalidInput, match="countries"):
        cmd.build(cmd.PublishSheets, turn=2, countries=[])


def test_the_game_masters_button_on_the_ers_page_publishes_and_players_then_see_the_sheet(settings, ledger):
    from tests.e2e.test_ers_page import parse

    two_turns_of_private_budgets(ledger)
    fra = issue(ledger, CID, "player", "FRA")
    with make_client(settings, ledger) as page:
        page.cookies.set("ledger_token", tokens.log_in(ledger, fra, ADMIN, 1))
        before = page.get(f"/ui/campaigns/{SLUG}/ers/ENG/1").text
        assert "publish-form" not in parse(before).ids  # a player has no button
        # ENG's starting treasury is private too: FRA cannot work the sheet out, and the page says so.
        assert "ENG loot t1" not in before and "sheet-error" in parse(before).ids
        page.cookies.set("ledger_token", tokens.log_in(ledger, ADMIN, ADMIN, 1))
        gm = page.get(f"/ui/campaigns/{SLUG}/ers/ENG/1").text
        assert {"publish-form", "publish-country", "publish-all"} <= parse(gm).ids
        csrf = re.search(r'name="csrf" value="([^"]+)"', gm).group(1)
        done = page.post(f"/ui/campaigns/{SLUG}/ers/ENG/1/publish", follow_redirects=False,
                         data={"csrf": csrf, "countries": "ENG", "reason": "turn 1 shown", "key": "p1"})
        assert done.status_code == 303 and done.headers["location"].endswith("/ers/ENG/1?published=1#published")
        assert "published" in parse(page.get(done.headers["location"]).text).ids
        forged = page.post(f"/ui/campaigns/{SLUG}/ers/FRA/1/publish", data={"csrf": "forged", "countries": "all"})
        assert forged.status_code == 403  # a form from another site publishes nothing
        page.cookies.set("ledger_token", tokens.log_in(ledger, fra, ADMIN, 1))
        after = page.get(f"/ui/campaigns/{SLUG}/ers/ENG/1").text
        assert "ENG loot t1" in after and parse(after).cells["A9"]["data-amount"] == "10"
        assert "SPA loot t1" not in page.get(f"/ui/campaigns/{SLUG}/ers/SPA/1").text


def test_a_turn_with_hundreds_of_published_entries_is_counted_on_the_campaign_page(http, settings, ledger):
    from projections.runner import Projector

    ledger.create_campaign(slug=SLUG, name="Busy", ruleset="eu", countries=["ENG", "FRA"], actor=SETUP)
    ledger.open_turn(CID, actor=SETUP)
    for n in range(520):  # more than one batch of positions (projections/head.py)
        ledger.record_treasury_entry(CID, country="ENG", line="A9", amount=1, reason=f"toll {n}", actor=SETUP)
    assert http.post(f"/campaigns/{SLUG}/ers/publish", json={"turn": 1, "countries": ["ENG"]}).status_code == 201
    Projector(ledger).catch_up()  # the timeline view holds them all: the page counts from it
    fra = issue(ledger, CID, "player", "FRA")
    with make_client(settings, ledger) as browser:
        browser.cookies.set("ledger_token", tokens.log_in(ledger, fra, ADMIN, 1))
        page = browser.get(f"/ui/campaigns/{SLUG}").text
    # TurnOpened, the 520 published entries and the publication itself.
    assert re.search(r"Turn 1</a> — 522 events", page), re.search(r"Turn 1</a>[^<]*", page)
    assert len(entries_seen(http, bearer(fra))) == 520


ENTRIES = st.lists(st.tuples(st.sampled_from(["ENG", "FRA", "SPA"]), st.sampled_from([1, 2]), st.booleans()),
                   min_size=1, max_size=8)


@examples(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=ENTRIES, turn=st.sampled_from([1, 2]),
       published=st.sets(st.sampled_from(["ENG", "FRA", "SPA"]), min_size=1))
def test_a_players_export_holds_their_own_the_public_and_exactly_the_published_entries(http, ledger, entries, turn,
                                                                                       published):
    slug = f"prop-{uuid.uuid4().hex[:12]}"
    cid = campaign_id(slug)
    ledger.create_campaign(slug=slug, name="Property", ruleset="eu", countries=["ENG", "FRA", "SPA"], actor=SETUP)
    ledger.open_turn(cid, actor=SETUP)
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=SETUP)
    ledger.open_turn(cid, actor=SETUP)
    for n, (country, at, public) in enumerate(entries):
        ledger.record_treasury_entry(cid, country=country, line="A9", amount=n + 1, reason=f"e{n}", turn=at,
                                     actor=SETUP, **({"vis": {"scope": "public"}} if public else {}))
    fra = bearer(issue(ledger, cid, "player", "FRA"))

    def seen() -> set[str]:
        return {r["reason"] for r in http.get(f"/campaigns/{slug}/export/entries.json", headers=fra).json()}

    mine_or_public = {f"e{n}" for n, (c, _, public) in enumerate(entries) if c == "FRA" or public}
    assert seen() == mine_or_public  # before: never another country's private entry
    answer = http.post(f"/campaigns/{slug}/ers/publish", json={"turn": turn, "countries": sorted(published)})
    hidden = {f"e{n}" for n, (c, at, public) in enumerate(entries) if c in published and at == turn and not public}
    assert answer.status_code == (201 if hidden else 409), answer.text
    assert seen() == mine_or_public | hidden  # after: exactly the published turn's, no more
