"""The web page in a real browser: stepping a turn, rulings and dice, the dispute form, visibility, downloads.

Turn 1 is the sample's (ledger/sample.py, fixed physical dice, played in the sequence of play): positions 3
(TurnOpened) to 26 (TurnClosed), 24 steps; 4-6 close the events, diplomacy and incomes phases, 7 is M2, 12 the
land interception M14 (MAN 4 − 3 = +1, same province +1, bad weather −2; die 6, total 6 → failure),
17 ENG's +12 ducats on A9 (looting of Picardie). Turns 2 and 3: see conftest.
"""

from __future__ import annotations

import csv
import re

import httpx
import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser
TURN1 = "/ui/campaigns/sample/turns/1"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_stepping_through_a_turn_with_next_previous_jump_and_keys(site, context):
    page = login(context, site, site.gm, TURN1)
    position = page.locator("#position")
    expect(position).to_have_text("3")
    expect(page.locator("#event .type")).to_have_text("Turn opened")
    expect(page.locator("#timeline li")).to_have_count(24)  # positions 3..26

    page.click("#next")
    expect(position).to_have_text("4")  # the events phase closed
    expect(page).to_have_url(re.compile(r"\?step=2$"))  # in-place stepping keeps a linkable address
    page.keyboard.press("n")
    expect(position).to_have_text("5")
    page.click("#prev")
    expect(position).to_have_text("4")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text("3")
    expect(page.locator("#prev")).to_have_count(0)  # nothing before the first step

    page.keyboard.press("j")  # focuses the jump field
    page.keyboard.type("15")  # the field held "1": select-all on focus makes this 15, not 115
    page.keyboard.press("Enter")
    expect(position).to_have_text("17")
    expect(page.locator("#summary")).to_contain_text("+12 ducats on A9")
    a9 = page.locator("#budget-diff tr", has_text="A9").locator("td")
    expect(a9).to_have_text(["ENG", "1", "A9", "Pillages, privateers", "0", "12"])  # A9 was 0 before the loot

    page.keyboard.press("p")
    expect(position).to_have_text("16")  # the Pillage- marker in Picardie
    picardie = page.locator("#provinces tr", has_text="Picardie")
    expect(picardie).to_have_class("changed")
    expect(picardie).to_contain_text("Pillage-")
    site.shot(page, "replay")

    page.keyboard.press("j")
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    expect(position).to_have_text("7")
    expect(page.locator("#ruling h2")).to_contain_text("eu:M2")

    # The map as of position 11 (ENG-1 landed in Picardie), and without JavaScript: plain links.
    nojs = context.browser.new_context(java_script_enabled=False)
    try:
        nojs.add_cookies(context.cookies())
        plain = nojs.new_page()
        plain.goto(f"{site.base}{TURN1}?step=9")
        expect(plain.locator("#position")).to_have_text("11")
        expect(plain.locator("#stacks tr", has_text="ENG-1")).to_contain_text("Picardie")
        expect(plain.locator("#stacks tr", has_text="ENG-1")).to_have_class("changed")
        plain.click("#next")
        expect(plain.locator("#position")).to_have_text("12")
        expect(plain).to_have_url(re.compile(r"\?step=10$"))
    finally:
        nojs.close()


def test_a_ruling_shows_its_modifiers_rules_table_cell_and_dice_status(site, context):
    page = login(context, site, site.gm, TURN1)
    page.goto(f"{site.base}{TURN1}?position=12")
    mods = page.locator("#ruling table.modifiers").first.locator("tbody tr")
    expect(mods).to_have_count(3)
    section = "eu-military-rules.tex §Interception / Land"
    expect(mods.nth(0).locator("td")).to_have_text(
        ["+1", "MAN differential (interceptor 4 − target 3)", "eu:M14", section])
    expect(mods.nth(1).locator("td")).to_have_text(["+1", "intercepting in the same province", "eu:M14", section])
    expect(mods.nth(2).locator("td")).to_have_text(["-2", "bad weather", "eu:M14", section])
    expect(page.locator("#total")).to_have_text("6")  # die 6 + 1 + 1 − 2
    expect(page.locator("#ruling .cell").first).to_have_text("table Interception, row 6, column land → failure")
    expect(page.locator("#dice tr.die-manual")).to_have_count(1)
    expect(page.locator("#dice td.status")).to_contain_text("physical die")
    site.shot(page, "ruling")

    # Turn 2 is closed: its server dice are recomputed from the revealed seed (the M14 and the GM's roll).
    page.goto(f"{site.base}/ui/campaigns/sample/turns/2?position={site.positions['m14_t2']}")
    expect(page.locator("#ruling table.modifiers").first.locator("tbody tr")).to_have_count(3)
    expect(page.locator("#dice tr.die-verified")).to_have_count(1)
    expect(page.locator("#dice td.status")).to_have_text("verified against the revealed seed")
    expect(page.locator("#dice-turn")).to_have_text("turn 2: 2 server rolls recomputed from the revealed seed")

    # Turn 3 is open: committed, not yet verifiable.
    page.goto(f"{site.base}/ui/campaigns/sample/turns/3?position={site.positions['m14_t3']}")
    expect(page.locator("#dice tr.die-committed")).to_have_count(1)
    expect(page.locator("#dice td.status")).to_have_text("committed, verifiable after the turn closes")
    commitment = site.ledger.campaign(site.cid).commitment
    expect(page.locator("#dice-turn")).to_contain_text(commitment)


def test_the_game_master_records_a_correction_and_sees_it_beside_the_original(site, context):
    page = login(context, site, site.gm, f"{TURN1}?position=17")
    head = site.ledger.campaign(site.cid).version

    # A forged form (no matching CSRF token) is refused and appends nothing.
    forged = page.request.post(f"{site.base}/ui/campaigns/sample/corrections",
                               form={"csrf": "forged", "corrects": "17", "reason": "forged"})
    assert forged.status == 403
    assert "access.csrf" in forged.text()
    assert site.ledger.campaign(site.cid).version == head

    page.click("#dispute summary")
    page.fill("#reason", "the loot was 10, not 12")
    page.fill("#dispute-form input[name='input.amount']", "10")
    page.click("#dispute-form button[type=submit]")
    page.wait_for_url(re.compile(r"position=17#corrections$"))
    corrections = page.locator("#corrections")
    expect(corrections.locator(".original")).to_contain_text("looting of Picardie")
    expect(corrections.locator(".correction .reason")).to_have_text("the loot was 10, not 12")
    # The fields that changed, in words: amount 12 → 10.
    expect(corrections.locator(".correction tbody tr")).to_have_text([re.compile(r"amount\s*12\s*10")])
    site.shot(page, "correction")

    # The same event through the API's history: appended once, by the GM, referencing position 17.
    events = httpx.get(f"{site.base}/campaigns/sample/events", params={"after": head},
                       headers=bearer(site.gm), timeout=10).json()
    assert [(e["type"], e["payload"]["corrects"], e["payload"]["reason"], e["payload"]["replacement"],
             e["actor"]["id"], e["actor"]["role"]) for e in events] == [
        ("CorrectionRecorded", 17, "the loot was 10, not 12", {"amount": 10}, "gina", "gm")]
    correction = events[0]

    # At the correction's own step: the original beside it, and the ERS line it changed.
    page.goto(f"{site.base}/ui/campaigns/sample/turns/{correction['context']['turn']}"
              f"?position={correction['position']}")
    expect(page.locator("#corrected-original .original")).to_contain_text("looting of Picardie")
    expect(page.locator("#budget-diff tr", has_text="A9").locator("td")).to_have_text(
        ["ENG", "1", "A9", "Pillages, privateers", "12", "10"])


def test_a_player_cannot_see_another_countrys_hidden_events(site, context):
    secret, gm_roll = site.positions["fra_secret"], site.positions["gm_roll"]
    page = login(context, site, site.eng, "/ui/campaigns/sample/turns/2")
    expect(page.locator("#whoami")).to_have_text("alice · player of ENG")
    timeline = page.locator("#timeline")
    expect(timeline).not_to_contain_text("secret subsidy")
    expect(timeline).not_to_contain_text("spy report")
    expect(timeline).not_to_contain_text("dice seed revealed")  # nor the seed of the GM's roll
    shown = [int(p) for p in page.locator("#timeline .pos").all_inner_texts()]
    assert secret not in shown and gm_roll not in shown
    assert site.positions["m14_t2"] in shown
    expect(page.locator("#dispute")).to_have_count(0)  # the dispute form is the GM's

    response = page.goto(f"{site.base}/ui/campaigns/sample/turns/2?position={secret}")
    assert response.status == 404
    expect(page.locator("#error")).to_contain_text(f"position {secret} is not an event of turn 2 you may see")
    assert "secret subsidy" not in page.content()
    site.shot(page, "player-hidden")

    # A player's correction is refused by the API's own permission check, CSRF token or not.
    page.goto(f"{site.base}/ui/campaigns/sample/turns/2")
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    refused = page.request.post(f"{site.base}/ui/campaigns/sample/corrections",
                                form={"csrf": csrf, "corrects": str(site.positions["m14_t2"]), "reason": "no"})
    assert refused.status == 403
    assert "access.record_correction" in refused.text()

    # FRA's player sees FRA's entry, still not the GM's roll.
    other = context.browser.new_context()
    try:
        fra = login(other, site, site.fra, "/ui/campaigns/sample/turns/2")
        expect(fra.locator("#timeline")).to_contain_text("secret subsidy")
        expect(fra.locator("#timeline")).not_to_contain_text("spy report")
        expect(fra.locator("#timeline")).not_to_contain_text("game masters only")
    finally:
        other.close()
    # The game master sees the GM seed's commitment and reveal, in words.
    other = context.browser.new_context()
    try:
        gm = login(other, site, site.gm, "/ui/campaigns/sample/turns/2")
        expect(gm.locator("#timeline")).to_contain_text(
            "dice seed revealed for the rolls seen by the game masters only (1 server roll)")
        expect(gm.locator("#timeline")).to_contain_text("dice commitment for rolls seen by the game masters only")
        site.shot(gm, "gm-seed-reveal")
    finally:
        other.close()


def test_the_ers_csv_download_matches_the_api(site, context):
    if not any("/export/" in path for path in site.app.openapi()["paths"]):
        pytest.skip("GET /campaigns/{id}/export/{table}.{fmt} is not served yet (api/routes/export.py)")
    page = login(context, site, site.gm, "/ui/campaigns/sample/charts")
    with page.expect_download() as download:
        page.click("#export-ers-csv")
    with open(download.value.path(), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    from_csv: dict[tuple[str, int], dict[str, int]] = {}
    for r in rows:
        from_csv.setdefault((r["country"], int(r["turn"])), {})[r["line"]] = int(r["amount"])
    assert sorted(from_csv) == [("ENG", 1), ("ENG", 2), ("ENG", 3), ("FRA", 1), ("FRA", 2), ("FRA", 3)]
    with httpx.Client(base_url=site.base, headers=bearer(site.gm), timeout=10) as api:
        for (country, turn), lines in from_csv.items():
            sheet = api.get(f"/campaigns/sample/ers/{country}/{turn}").json()
            # The download leaves out the lines that took their default (nothing entered on them).
            assert lines == {line["code"]: line["amount"] for line in sheet["lines"] if not line["defaulted"]}, \
                (country, turn)
    # The charts the page embeds load (an SVG with a size, not a broken image), read with the login cookie.
    images = page.locator(".charts img")
    expect(images).to_have_count(8)  # treasury, income, inflation, victory; the ERS and income sources of ENG, FRA
    page.wait_for_function("() => [...document.querySelectorAll('.charts img')].every(i => i.complete)")
    for img in images.all():
        assert img.evaluate("i => i.naturalWidth > 0"), img.get_attribute("src")
    site.shot(page, "charts")
