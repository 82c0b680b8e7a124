"""The income phase in a real browser (issue 36): the game master opens the lines the map works out, sees
their lineage with each place linked, keeps one different value with a reason and confirms; the player then
reads their sheet with the confirmed lines and where they come from."""

from __future__ import annotations

import re

import pytest

from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.sample import GM, reach_phase
from ledger.scenario import import_scenario, load_text
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


SLUG = "incomes"


def in_the_incomes_phase(ledger) -> tuple[str, str]:
    """A campaign of its own on the sample's map, its turn 1 in the incomes phase (the site's sample stands in
    its military phase): the game master's and France's player's tokens."""
    cid = campaign_id(SLUG)
    import_scenario(ledger, load_text("sample"), slug=SLUG, name="Incomes", actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "incomes")
    _, gm = tokens.issue_token(ledger, cid, role="gm", holder="gina", actor=GM)
    _, fra = tokens.issue_token(ledger, cid, role="player", country="FRA", holder="bruno", actor=GM)
    return gm, fra


def test_the_game_master_confirms_income_keeping_one_value_and_the_player_reads_their_sheet(site, context):
    gm_token, fra_token = in_the_incomes_phase(site.ledger)
    turn = 1
    page = login(context, site, gm_token, f"/ui/campaigns/{SLUG}/income")
    fra = page.locator("#line-FRA-B1")
    expect(fra).to_have_attribute("data-amount", "46")
    lineage = fra.locator("td.lineage")
    for place, income in (("Caux", 9), ("Ile-de-France", 18), ("Normandie", 11), ("Picardie", 8)):
        expect(lineage).to_contain_text(f"{place} {income}")
    expect(lineage.locator("a.place", has_text="Picardie")).to_have_attribute(
        "href", f"/ui/campaigns/{SLUG}/places/Picardie")
    expect(page.locator("#expense-convention")).to_contain_text("positive number")

    page.locator("#keep-FRA-B1").check()
    page.locator("#amount-FRA-B1").fill("37")
    page.locator("#reason-FRA-B1").fill("Caux was ceded at the peace; the map follows next turn")
    site.shot(page, "income-keep")
    page.locator("#confirm-FRA").click()
    page.wait_for_url(re.compile(rf"/ui/campaigns/{SLUG}/income\?confirmed=1"))
    expect(page.locator("#income-confirmed")).to_be_visible()
    expect(page.locator("#confirmed-FRA")).to_contain_text("kept by the game master: B1")
    page.locator("#confirm-ENG").click()
    page.wait_for_url(re.compile(rf"/ui/campaigns/{SLUG}/income\?confirmed=1"))
    expect(page.locator("#confirmed-ENG")).to_contain_text("Confirmed at")
    site.shot(page, "income-confirmed")

    player = context.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        mine = login(player, site, fra_token, f"/ui/campaigns/{SLUG}/ers/FRA/{turn}")
        expect(mine.locator("#cell-B1")).to_have_attribute("data-amount", "37")
        row = mine.locator("#lineage-B1")
        expect(row).to_contain_text("kept: Caux was ceded at the peace; the map follows next turn; the map gives 46")
        expect(row).to_contain_text("Ile-de-France 18")
        expect(row.locator("a.place", has_text="Normandie")).to_have_attribute(
            "href", f"/ui/campaigns/{SLUG}/places/Normandie")
        expect(mine.locator("#expense-convention")).to_contain_text("A negative amount on an expense line is refused")
        site.shot(mine, "income-player-sheet")
        own = mine
        own.goto(f"{site.base}/ui/campaigns/{SLUG}/income")
        expect(own.locator("#income-FRA")).to_be_visible()
        expect(own.locator("#income-ENG")).to_have_count(0)  # a player reads their own country's income only
        expect(own.locator("#income-form")).to_have_count(0)  # and confirms nothing
    finally:
        player.close()
