"""The map forms in a real browser: the game master moves a stack with the web form and the turn page's map
shows it where the event put it; a stack split off hidden from the players is not on a player's map."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def neighbour(site, stack: str) -> tuple[str, str]:
    """Where the stack is, and a province bordering it (the scenario's borders, land only)."""
    at = site.ledger.campaign(site.cid).stacks[stack][0]
    scenario = site.ledger.scenario(site.cid)
    land = {p["name"] for p in scenario["provinces"]}
    [to, *_] = sorted(b if a == at else a for a, b in scenario["adjacency"] if at in (a, b) and {a, b} <= land)
    return at, to


def test_the_game_master_moves_a_stack_with_the_form_and_the_turn_page_draws_it_there(site, context):
    at, to = neighbour(site, "ENG-1")
    page = login(context, site, site.gm, "/ui/campaigns/sample/map")
    form = page.locator("#form-move")
    form.locator("#move-stack").select_option("ENG-1")
    form.locator("#move-destination").fill(to)
    form.locator("#move-reason").fill("march inland")
    site.shot(page, "map-forms")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/turns/\d+\?position=\d+"))
    position = int(page.url.rsplit("=", 1)[1])
    expect(page.locator("#position")).to_have_text(str(position))
    expect(page.locator("#main")).to_contain_text(f"stack ENG-1 moved {at} → {to} (march inland)")
    img = page.locator("#map-svg svg")
    expect(img).to_have_attribute("data-position", str(position))
    assert img.bounding_box()["width"] > 500
    img.scroll_into_view_if_needed()
    shot = page.locator("#map-figure").screenshot(path=str(site.shot(page, "map-form-move").with_name(
        f"{site.store}-map-form-move-figure.png")))
    assert len(shot) > 10_000

    drawing = context.new_page()  # the picture the page shows, as the game master's browser fetches it
    drawing.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={position}")
    stack = drawing.locator('g.stack[data-stack="ENG-1"]')
    assert stack.get_attribute("data-location") == to
    assert "moved" in stack.get_attribute("class")


def test_a_player_does_not_see_a_stack_split_off_hidden_from_the_players(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/map")
    form = page.locator("#form-split")
    form.locator("#split-stack").select_option("ENG-1")
    form.locator("#split-new_stack").fill("ENG-SECRET")
    form.locator("#split-units-LD").fill("1")
    form.locator("#split-reason").fill("a detachment in the woods")
    form.locator("#split-visibility").select_option("gm")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/turns/\d+\?position=\d+"))
    position = int(page.url.rsplit("=", 1)[1])
    gm_drawing = context.new_page()
    gm_drawing.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={position}")
    expect(gm_drawing.locator('g.stack[data-stack="ENG-SECRET"]')).to_have_count(1)
    context.clear_cookies()

    fra = login(context, site, site.fra, f"/ui/campaigns/sample/turns/{site.ledger.campaign(site.cid).turn}")
    expect(fra.locator("#main")).not_to_contain_text("ENG-SECRET")
    fra.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={position}")
    expect(fra.locator('g.stack[data-stack="ENG-1"]')).to_have_count(1)
    expect(fra.locator('g.stack[data-stack="ENG-SECRET"]')).to_have_count(0)
