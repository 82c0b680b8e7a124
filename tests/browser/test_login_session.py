"""The web page's login in a real browser: the cookie holds a session, never the token; logging out ends the
session on the server, so a copy of the cookie taken before (another browser, a stolen jar) is refused too;
a page answers with the headers that keep it private and unframed."""

from __future__ import annotations

import pytest

from ledger import tokens
from tests.browser.conftest import SCREENSHOTS, login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser
CAMPAIGN = "/ui/campaigns/sample"


def test_logging_out_ends_the_session_for_every_copy_of_the_cookie(site, context, browser):
    page = login(context, site, site.fra, CAMPAIGN)
    [cookie] = [c for c in context.cookies() if c["name"] == "ledger_token"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert cookie["value"].startswith(f"ls_{site.cid.hex}_") and site.fra not in cookie["value"]
    assert cookie["expires"] > 0  # it lasts LEDGER_SESSION_HOURS, not for ever
    assert "ls_" not in page.evaluate("document.cookie")  # no script reads it

    thief = browser.new_context()  # another browser holding a copy of the cookie
    thief.add_cookies([cookie])
    stolen = thief.new_page()
    stolen.goto(f"{site.base}{CAMPAIGN}")
    assert stolen.url == f"{site.base}{CAMPAIGN}"  # the copy works while the session lives

    response = page.goto(f"{site.base}{CAMPAIGN}")
    headers = response.headers
    assert headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "same-origin"

    page.click("form[action='/ui/logout'] button")
    page.wait_for_url(f"{site.base}/ui/login")
    page.screenshot(path=str(SCREENSHOTS / f"{site.store}-logged-out.png"))
    assert not [c for c in context.cookies() if c["name"] == "ledger_token"]
    ended = [e for e in site.ledger.history(site.cid) if type(e).__name__ == "SessionEnded"]
    assert ended and ended[-1].session_id == tokens.digest(cookie["value"])[:16]

    stolen.goto(f"{site.base}{CAMPAIGN}")
    assert "/ui/login" in stolen.url  # the copy is refused: the session it names has ended
    expect(stolen.locator("#token")).to_be_visible()
    thief.close()
