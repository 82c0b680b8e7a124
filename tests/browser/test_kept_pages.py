"""A page kept by the server (api/readpath.py, api/routes/web.py ``_page``) in a real browser: reloaded, it is the
same page with a new form key and the session's CSRF token, and its dispute form still records; another reader
at the same address gets their own page, never the game master's."""

from __future__ import annotations

import re

import pytest

from ledger.domain import events as ev
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def hidden(page, form: str, name: str) -> str:
    return page.locator(f"{form} input[name={name}]").first.get_attribute("value")


def test_a_reloaded_turn_page_keeps_its_words_gets_a_new_form_key_and_its_dispute_still_records(site, context,
                                                                                                   browser):
    path = "/ui/campaigns/sample/turns/1?step=5"  # the M2 ruling (a step the dispute form can correct)
    page = login(context, site, site.gm, path)
    first = {"key": hidden(page, "#dispute-form", "key"), "csrf": hidden(page, "#dispute-form", "csrf"),
             "words": page.locator("main").inner_text()}
    # Reloaded, the browser kept nothing (Cache-Control: no-store) and asks again: the server's kept page, the same.
    page.reload()
    expect(page.locator("#whoami")).to_contain_text("gina")
    assert page.locator("main").inner_text() == first["words"]
    # Asked afresh (no validator), the kept page is served, with this session's token and a form key of its own.
    again = context.request.get(f"{site.base}{path}")
    assert again.status == 200 and "slot-" not in again.text()
    assert re.findall(r'name="csrf" value="([^"]+)"', again.text())[0] == first["csrf"]
    keys = re.findall(r'id="dispute-form".*?name="key" value="([^"]+)"', again.text(), re.S)
    assert keys and keys[0] != first["key"]
    site.shot(page, "kept-turn-page")

    # England's player, in a browser of their own, at the same address: their page, without the dispute form.
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        theirs = login(other, site, site.eng, path)
        expect(theirs.locator("#whoami")).to_contain_text("alice")
        expect(theirs.locator("#dispute")).to_have_count(0)
    finally:
        other.close()

    # The dispute form of the reloaded page records, once, with the session's token.
    head = site.ledger.campaign(site.cid).version
    at = int(hidden(page, "#dispute-form", "corrects"))
    page.click("#dispute summary")
    page.check("#strike")
    page.fill("#dispute-form textarea[name=reason]", "the roll was made before the impulse")
    page.locator("#dispute-form button[type=submit]").first.click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/turns/"))
    expect(page.locator("#whoami")).to_contain_text("gina")
    [fix] = [e for e in site.ledger.history(site.cid, after=head) if isinstance(e, ev.CorrectionRecorded)]
    assert fix.reason == "the roll was made before the impulse" and fix.corrects == at
    site.shot(page, "kept-turn-page-disputed")
