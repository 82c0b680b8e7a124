"""The ERS page and the API's /docs in a real browser (Chromium), with no internet.

Every request that leaves the test server is aborted, as on a table with no
network: /docs must render from the bundled Swagger UI, and the ERS page with
its charts from the server alone.
"""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def offline(context, site) -> list[str]:
    """Abort every request that is not to the test server; returns the URLs refused."""
    refused: list[str] = []

    def handle(route):
        if route.request.url.startswith(site.base):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", handle)
    return refused


def shown_cells(page) -> dict[str, tuple[str, str, str]]:
    """Every cell of the page (``id="cell-CODE"``): its amount and kind, and the amount's text as rendered."""
    found = page.eval_on_selector_all("[id^='cell-']", """els => els.map(e => [e.id.slice(5), e.dataset.amount,
        e.dataset.kind, (e.tagName === 'TR' ? e.querySelector('td.num strong') : e).innerText])""")
    return {code: (amount, kind, text) for code, amount, kind, text in found}


def test_docs_render_without_internet(site, context):
    refused = offline(context, site)
    page = context.new_page()
    page.goto(f"{site.base}/docs")
    # Swagger UI draws the page from its bundled script and the schema: on a CI machine running the whole suite
    # on 2 cores that once took longer than Playwright's default 5 s (the schemas shown, the heading not yet).
    expect(page.get_by_role("heading", level=1)).to_contain_text("Wargame ledger", timeout=20_000)
    expect(page.locator(".opblock").first).to_be_visible()
    site.shot(page, "docs-offline")
    assert refused == []


def test_the_ers_page_shows_the_served_sheet_and_leads_to_the_events(site, context):
    refused = offline(context, site)
    page = login(context, site, site.gm, "/ui/campaigns/sample")
    page.click("#ers-ENG")
    expect(page.locator("h1")).to_contain_text("ENG · Economic Record Sheet · turn 3")
    # Every cell of every country's sheet of every turn, as the browser shows it, is the served sheet's.
    compared = 0
    for country in ("ENG", "FRA"):
        for turn in (1, 2, 3):
            page.goto(f"{site.base}/ui/campaigns/sample/ers/{country}/{turn}")
            served = httpx.get(f"{site.base}/campaigns/sample/ers/{country}/{turn}",
                               headers={"Authorization": f"Bearer {site.gm}"}).json()
            shown = shown_cells(page)
            assert set(shown) == {line["code"] for line in served["lines"]}, (country, turn)
            for line in served["lines"]:
                amount, kind, text = shown[line["code"]]
                assert (amount, kind) == (str(line["amount"]), line["kind"]), (country, turn, line["code"])
                assert str(line["amount"]) in text, (country, turn, line["code"], text)  # what a person reads
                compared += 1
    assert compared > 6 * 80
    page.goto(f"{site.base}/ui/campaigns/sample/ers/ENG/1")
    for img in ("#chart-sources", "#chart-treasury"):
        page.locator(img).scroll_into_view_if_needed()
        assert page.eval_on_selector(img, "i => i.complete && i.naturalWidth > 0"), img
    site.shot(page, "ers-ENG-1")
    a9 = page.locator("#cell-A9 .ev a").first
    position = a9.inner_text().lstrip("#")
    a9.click()
    expect(page.locator("#position")).to_have_text(position)  # the turn page, at that event
    page.goto(f"{site.base}/ui/campaigns/sample/ers/ENG/2")
    page.click("#prev-turn")
    expect(page.locator("h1")).to_contain_text("turn 1")
    assert refused == []


def test_a_player_sees_their_own_secret_entry_and_not_another_countrys(site, context):
    secret = site.positions["fra_secret"]
    page = login(context, site, site.fra, "/ui/campaigns/sample/ers/FRA/2")
    expect(page.locator(f'#cell-A9 .ev[data-position="{secret}"]')).to_contain_text("secret subsidy from Burgundy")
    site.shot(page, "ers-FRA-2-as-FRA")
    other = context.browser.new_context()
    try:
        eng = login(other, site, site.eng, "/ui/campaigns/sample/ers/FRA/2")
        expect(eng.locator("#not-yours")).to_be_visible()
        expect(eng.locator(f'.ev[data-position="{secret}"]')).to_have_count(0)
        assert "secret subsidy" not in eng.content()
    finally:
        other.close()


def test_the_game_master_publishes_a_sheet_and_the_other_player_then_reads_it(site, context):
    from ledger import tokens
    from ledger.domain.campaign import campaign_id
    from ledger.sample import GM

    ledger, cid = site.ledger, campaign_id("published")
    ledger.create_campaign(slug="published", name="Published budgets", ruleset="eu", countries=["ENG", "FRA"],
                           actor=GM)
    ledger.open_turn(cid, actor=GM)
    ledger.record_treasury_entry(cid, country="ENG", line="A1", amount=100, reason="ENG start", actor=GM)
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=25, reason="ENG secret loot", actor=GM)
    _, gm = tokens.issue_token(ledger, cid, role="gm", holder="gina", actor=GM)
    _, fra = tokens.issue_token(ledger, cid, role="player", country="FRA", holder="bruno", actor=GM)
    player = login(context, site, fra, "/ui/campaigns/published/ers/ENG/1")
    expect(player.locator("#sheet-error")).to_be_visible()  # ENG's books are ENG's: FRA cannot work them out
    expect(player.locator("#publish-form")).to_have_count(0)
    assert "ENG secret loot" not in player.content()
    other = context.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        master = login(other, site, gm, "/ui/campaigns/published/ers/ENG/1")
        master.fill("#publish-form input[name=reason]", "end of turn 1: England opens its books")
        site.shot(master, "ers-publish-button")
        master.click("#publish-country")
        expect(master.locator("#published")).to_contain_text("every player now sees these sheets of turn 1")
    finally:
        other.close()
    player.reload()
    expect(player.locator("#cell-A9")).to_have_attribute("data-amount", "25")
    expect(player.locator("#cell-A9 .ev")).to_contain_text("ENG secret loot")
    site.shot(player, "ers-ENG-1-published-as-FRA")
    [event] = [e for e in ledger.history(cid) if type(e).__name__ == "SheetsPublished"]
    assert event.reason == "end of turn 1: England opens its books" and event.countries == ["ENG"]
