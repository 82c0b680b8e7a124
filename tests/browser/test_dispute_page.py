"""The re-resolution form in a real browser: a battle's inputs amended in fields generated from its procedure,
the difference shown in words, one click to record the correction."""

from __future__ import annotations

import re

import pytest

from ledger.domain import events as ev
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def test_the_game_master_resolves_a_battle_again_from_the_form(site, context):
    battle = next(e for e in site.ledger.history(site.cid)
                  if isinstance(e, ev.RulingRecorded) and e.procedure == "M19")
    turn, at = battle.context["turn"], battle.originator_version
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/{turn}?position={at}")
    page.click("#dispute summary")
    ld = page.locator("#rework-form input[name='input.defender.ld']")
    expect(ld).to_have_value(str(battle.ruling["inputs"]["defender"]["ld"]))
    ld.fill("6")
    page.fill("#rework-form textarea[name=reason]", "FRA had 6 LD at Picardie")
    # The map said otherwise before the battle: the game master keeps the 6 and says why.
    page.fill("#rework-overrides", "defender.ld: two LD had joined from the garrison")
    head = site.ledger.campaign(site.cid).version
    page.click("#rework-preview-button")
    preview = page.locator("#rework-preview")
    expect(preview).to_contain_text("defender ld")
    expect(preview).to_contain_text("recorded reused")
    assert site.ledger.campaign(site.cid).version == head  # a preview records nothing
    site.shot(page, "rework-preview")
    page.click("#rework-confirm")
    page.wait_for_url(re.compile(r"position=\d+#corrected-original$"))
    expect(page.locator("#corrected-original .correction .reason")).to_have_text("FRA had 6 LD at Picardie")
    site.shot(page, "rework-recorded")
    [fix] = [e for e in site.ledger.history(site.cid, after=head) if isinstance(e, ev.CorrectionRecorded)
             and e.corrects == at]
    assert fix.replacement["ruling"]["inputs"]["defender"]["ld"] == 6 and fix.actor["id"] == "gina"
    assert [k["reason"] for k in fix.replacement["ruling"]["overridden"]] == ["two LD had joined from the garrison"]
