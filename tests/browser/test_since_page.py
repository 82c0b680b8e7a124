""""Since you last looked" in a real browser (issue 38): France's player opens the page, reads what changed for
them in order (a move, their own sheet's line, a correction of a line they had seen, the deadline) with the
turn's pace on top, marks themselves ready, marks the page read, and then sees only what came after."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from ledger import tokens
from ledger.domain import commands as cmd
from ledger.domain import pace
from ledger.domain.campaign import campaign_id
from ledger.sample import GM, reach_phase
from ledger.scenario import import_scenario, load_text
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser

SLUG = "since"


def test_a_player_catches_up_marks_ready_and_marks_read(site, context):
    ledger, cid = site.ledger, campaign_id(SLUG)
    import_scenario(ledger, load_text("sample"), slug=SLUG, name="Since", actor=GM)
    ledger.handle(cid, cmd.build(cmd.ChangeSettings, settings={"time_zone": "Europe/Paris"}, reason="the table"),
                  actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")
    _, fra_token = tokens.issue_token(ledger, cid, role="player", country="FRA", holder="bruno", actor=GM)
    pillage = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=35, reason="Pillages of Kent",
                                           actor=GM).events[-1]["position"]
    page = login(context, site, fra_token, f"/ui/campaigns/{SLUG}/since")
    page.locator("#mark-button").click()  # everything so far: read
    page.wait_for_url(re.compile(rf"/ui/campaigns/{SLUG}/since$"))
    expect(page.locator("#since-nothing")).to_be_visible()

    ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=50, reason="English secret loot", actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A1", amount=12, reason="Taxes of Paris", actor=GM)
    ledger.record_correction(cid, corrects=pillage, reason="the pillage yielded 30", replacement={"amount": 30},
                             actor=GM)
    due = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%d 20:00")
    ledger.handle(cid, pace.SetDeadline(phase="military", due=due, reminders=[1440, 120]), actor=GM)

    page.goto(f"{site.base}/ui/campaigns/{SLUG}/since")
    rows = page.locator("#since-table tbody tr")
    expect(rows).to_have_count(4)
    kinds = [rows.nth(i).get_attribute("data-kind") for i in range(4)]
    assert kinds == ["Move", "Your sheet", "Correction", "Deadline"]
    expect(rows.nth(0)).to_contain_text("stack ENG-1 moved Kent → Wessex")
    expect(rows.nth(0).locator("a", has_text="Wessex")).to_have_attribute(
        "href", re.compile(rf"/ui/campaigns/{SLUG}/places/Wessex\?at=\d+"))
    expect(rows.nth(2)).to_contain_text("which you had seen")
    expect(rows.nth(3)).to_contain_text(f"{due} Europe/Paris")
    expect(page.locator("#changes")).not_to_contain_text("English secret loot")
    expect(page.locator("#pace-line")).to_contain_text(f"Military phase: due {due} Europe/Paris")
    expect(page.locator("#pace-table")).to_contain_text("FRA")
    site.shot(page, "since-you-last-looked")

    page.locator("#ready-button").click()
    page.wait_for_url(re.compile(rf"/ui/campaigns/{SLUG}/since"))
    expect(page.locator("#pace-ready")).to_contain_text("FRA")
    expect(page.locator("#pace-not-ready")).not_to_contain_text("FRA")
    expect(page.locator("#ready-button")).to_have_text("I am not ready after all")

    # Only what touches France: the English move goes, France's own lines, the deadline and its "ready" stay.
    move = rows.nth(0).get_attribute("data-position")
    page.locator("#mine-link").click()
    expect(page.locator("#since-filter")).to_contain_text("Only what touches FRA")
    expect(page.locator("#changes")).not_to_contain_text("ENG-1 moved")
    expect(page.locator("#since-table")).to_contain_text("Taxes of Paris")
    expect(page.locator("#since-table")).to_contain_text("FRA is ready for the Military phase of turn 1")
    page.goto(f"{site.base}/ui/campaigns/{SLUG}/since")
    # The step link opens the turn page at the move.
    page.locator("#mark-button").click()
    page.wait_for_url(re.compile(rf"/ui/campaigns/{SLUG}/since$"))
    expect(page.locator("#since-nothing")).to_be_visible()
    page.goto(f"{site.base}/ui/campaigns/{SLUG}/turns/1?position={move}")
    expect(page.locator("body")).to_contain_text("Kent → Wessex")
