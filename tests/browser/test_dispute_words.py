"""Every page a game master reads while settling a dispute, in a real browser: plain words, never JSON or a
Python repr. The turn page at a correction's step (a correction of a correction too), at a ruling's step, the
rework preview, the ruling resolved again, and the what-if answer; each page's rendered text, its collapsed
sections opened, scanned for what a programmer would see."""

from __future__ import annotations

import pytest

from ledger.domain import events as ev
from ledger.sample import GM
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser

REPRS = ("{'", "None", '"kind":', "True", "False")


def read_like_a_person(page) -> str:
    """The page's rendered text with every collapsed section opened (what a person can get to read)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    return page.locator("body").inner_text()


def assert_plain_words(page, site, name: str) -> str:
    site.shot(page, f"dispute-words-{name}")
    text = read_like_a_person(page)
    found = {r: text[max(0, text.index(r) - 60):text.index(r) + 60] for r in REPRS if r in text}
    assert not found, (name, page.url, found)
    return text


def test_no_page_of_a_dispute_shows_json_or_a_python_repr(site, context):
    ledger, cid = site.ledger, site.cid
    history = ledger.history(cid)
    move = next(e for e in history if isinstance(e, ev.StackMoved))
    entry = next(e for e in history if isinstance(e, ev.TreasuryEntryRecorded) and e.line == "A9")  # the loot
    battle = next(e for e in history if isinstance(e, ev.RulingRecorded) and e.procedure == "M19")

    # Disputes settled before: a move corrected, an entry corrected and that correction corrected again.
    fix = ledger.record_correction(cid, corrects=move.originator_version, reason="the fleet sailed to Irlande",
                                   replacement={"destination": "Irlande"}, actor=GM).events[0]["position"]
    first = ledger.record_correction(cid, corrects=entry.originator_version, reason="miscounted",
                                     replacement={"amount": entry.amount - 5}, actor=GM).events[0]["position"]
    again = ledger.record_correction(cid, corrects=first, reason="miscounted again",
                                     replacement={"amount": entry.amount - 3}, actor=GM).events[0]["position"]
    turn_now = ledger.campaign(cid).turn
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/{turn_now}?position={fix}")
    text = assert_plain_words(page, site, "correction-step")
    assert "Irlande" in text
    page.goto(f"{site.base}/ui/campaigns/sample/turns/{turn_now}?position={again}")
    assert_plain_words(page, site, "correction-of-a-correction-step")
    page.goto(f"{site.base}/ui/campaigns/sample/turns/{move.context['turn']}?position={move.originator_version}")
    text = assert_plain_words(page, site, "corrected-move-step")
    assert "the fleet sailed to Irlande" in text

    # The ruling's step, its rework preview, and the ruling resolved again.
    turn, at = battle.context["turn"], battle.originator_version
    page.goto(f"{site.base}/ui/campaigns/sample/turns/{turn}?position={at}")
    assert_plain_words(page, site, "ruling-step")
    page.fill("#rework-form input[name='input.defender.ld']", "6")
    page.fill("#rework-form textarea[name=reason]", "FRA had 6 LD")
    page.fill("#rework-overrides", "defender.ld: two LD had joined from the garrison")  # the map said otherwise
    page.click("#rework-preview-button")
    expect(page.locator("#rework-preview")).to_contain_text("defender ld")
    assert_plain_words(page, site, "rework-preview")
    page.click("#rework-confirm")
    page.wait_for_url(lambda url: "#corrected-original" in url)
    text = assert_plain_words(page, site, "ruling-resolved-again")
    assert "FRA had 6 LD" in text

    # The what-if of another destination for the move, from the dispute form.
    page.goto(f"{site.base}/ui/campaigns/sample/turns/{move.context['turn']}?position={move.originator_version}")
    page.click("#dispute summary")
    page.fill("#dispute-form input[name='input.destination']", "Nord")
    head = ledger.campaign(cid).version
    page.click("#whatif-button")
    expect(page.locator("#whatif-result")).to_be_visible()
    assert_plain_words(page, site, "what-if")
    assert "Nord" in page.locator("#whatif-result").inner_text()
    assert ledger.campaign(cid).version == head  # a what-if records nothing
