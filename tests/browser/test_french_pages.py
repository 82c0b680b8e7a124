"""A French reader in a real browser (issue 38, item 4): Chromium set to French gets the pages in French from its
Accept-Language, steps through a turn in place, opens a place and a sheet, switches to English and back with
the switch every page carries. Screenshots: test-output/screenshots/<store>-french-*.png."""

from __future__ import annotations

import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser
TURN1 = "/ui/campaigns/sample/turns/1"


@pytest.fixture
def french(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


def test_a_french_reader_steps_through_a_turn_in_french(site, french):
    page = login(french, site, site.eng, TURN1)
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#event .type")).to_have_text("Tour ouvert")
    expect(page.locator("#whoami")).to_contain_text("joueur de ENG")
    expect(page.locator("#next")).to_have_text("suivant »")
    page.keyboard.press("n")  # in-place stepping fetches the next step: in French too
    expect(page.locator("#position")).to_have_text("4")
    expect(page.locator("#event .meta")).to_contain_text("visible par public")
    page.keyboard.press("j")
    page.keyboard.type("12")
    page.keyboard.press("Enter")
    expect(page.locator("#position")).to_have_text("14")  # FRA-1 retreats after the battle of Picardie
    expect(page.locator("#map h2")).to_have_text("La carte à la position 14")
    expect(page.locator("#tracks th").first).to_have_text("pays")
    site.shot(page, "french-turn")

    page.click("#provinces a:text('Picardie')")
    expect(page.locator("#place-name")).to_have_text("Picardie")  # the board's name, as the board names it
    expect(page.locator("#place-state h2")).to_have_text("État")
    expect(page.locator("#place-facts")).to_contain_text("plaine")
    site.shot(page, "french-place")

    page.goto(f"{site.base}/ui/campaigns/sample/ers/ENG/1")
    expect(page.locator("h1")).to_have_text("ENG · Feuille économique · tour 1")
    expect(page.locator("#sheet-A")).to_have_text("Feuille A · Trésor royal")
    expect(page.locator("#ers-A tr", has_text="A1").first).to_contain_text("TR en début de tour")
    site.shot(page, "french-ers")

    page.click("#languages a[hreflang=en]")  # the switch: remembered in a cookie
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#sheet-A")).to_have_text("Sheet A · Royal Treasury")
    page.goto(f"{site.base}{TURN1}")
    expect(page.locator("#event .type")).to_have_text("Turn opened")  # the cookie outweighs the browser's French
    page.click("#languages a[hreflang=fr]")
    expect(page.locator("#event .type")).to_have_text("Tour ouvert")
