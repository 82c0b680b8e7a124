"""The income phase in a real browser (issue 36): the game master opens the lines the map works out, sees
their lineage with each place linked, keeps one different value with a reason and confirms; the player then
reads their sheet with the confirmed lines and where they come from."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def test_the_game_master_confirms_income_keeping_one_value_and_the_player_reads_their_sheet(site, context):
    turn = site.ledger.campaign(site.cid).turn
    page = login(context, site, site.gm, "/ui/campaigns/sample/income")
    fra = page.locator("#line-FRA-B1")
    expect(fra).to_have_attribute("data-amount", "46")
    lineage = fra.locator("td.lineage")
    for place, income in (("Caux", 9), ("Ile-de-France", 18), ("Normandie", 11), ("Picardie", 8)):
        expect(lineage).to_contain_text(f"{place} {income}")
    expect(lineage.locator("a.place", has_text="Picardie")).to_have_attribute(
        "href", "/ui/campaigns/sample/places/Picardie")
    expect(page.locator("#expense-convention")).to_contain_text("positive number")

    page.locator("#keep-FRA-B1").check()
    page.locator("#amount-FRA-B1").fill("37")
    page.locator("#reason-FRA-B1").fill("Caux was ceded at the peace; the map follows next turn")
    site.shot(page, "income-keep")
    page.locator("#confirm-FRA").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/income\?confirmed=1"))
    expect(page.locator("#income-confirmed")).to_be_visible()
    expect(page.locator("#confirmed-FRA")).to_contain_text("kept by the game master: B1")
    page.locator("#confirm-ENG").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/income\?confirmed=1"))
    expect(page.locator("#confirmed-ENG")).to_contain_text("Confirmed at")
    site.shot(page, "income-confirmed")

    player = context.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        mine = login(player, site, site.fra, f"/ui/campaigns/sample/ers/FRA/{turn}")
        expect(mine.locator("#cell-B1")).to_have_attribute("data-amount", "37")
        row = mine.locator("#lineage-B1")
        expect(row).to_contain_text("kept: Caux was ceded at the peace; the map follows next turn; the map gives 46")
        expect(row).to_contain_text("Ile-de-France 18")
        expect(row.locator("a.place", has_text="Normandie")).to_have_attribute(
            "href", "/ui/campaigns/sample/places/Normandie")
        expect(mine.locator("#expense-convention")).to_contain_text("A negative amount on an expense line is refused")
        site.shot(mine, "income-player-sheet")
        own = mine
        own.goto(f"{site.base}/ui/campaigns/sample/income")
        expect(own.locator("#income-FRA")).to_be_visible()
        expect(own.locator("#income-ENG")).to_have_count(0)  # a player reads their own country's income only
        expect(own.locator("#income-form")).to_have_count(0)  # and confirms nothing
    finally:
        player.close()
