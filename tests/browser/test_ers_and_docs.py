"""The ERS page and the API's /docs in a real browser (Chromium), with no internet.

Every request that leaves the test server is aborted, as on a table with no
network: /docs must render from the bundled Swagger UI, and the ERS page with
its charts from the server alone.
"""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import REQUIRE, login

try:
    from playwright.sync_api import expect
except ImportError:
    if REQUIRE:
        raise
    pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)

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


def test_docs_render_without_internet(site, context):
    refused = offline(context, site)
    page = context.new_page()
    page.goto(f"{site.base}/docs")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Wargame ledger")
    expect(page.locator(".opblock").first).to_be_visible()
    site.shot(page, "docs-offline")
    assert refused == []


def test_the_ers_page_shows_the_served_sheet_and_leads_to_the_events(site, context):
    refused = offline(context, site)
    page = login(context, site, site.gm, "/ui/campaigns/sample")
    page.click("#ers-ENG")
    expect(page.locator("h1")).to_contain_text("ENG · Economic Record Sheet · turn 3")
    page.goto(f"{site.base}/ui/campaigns/sample/ers/ENG/1")
    served = httpx.get(f"{site.base}/campaigns/sample/ers/ENG/1",
                       headers={"Authorization": f"Bearer {site.gm}"}).json()
    for line in served["lines"]:
        expect(page.locator(f"#cell-{line['code']}")).to_have_attribute("data-amount", str(line["amount"]))
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
