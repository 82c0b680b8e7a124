"""The map drawn on the web page, in a real browser: at a replay step the SVG shows the stack where the
event put it, with its path; a player does not see a move hidden from them. The screenshot is kept in
docs/screenshots/ (the README shows it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.application import visibility
from ledger.domain.commands import MoveStack
from ledger.sample import GM
from tests.browser.conftest import REQUIRE, login

try:
    from playwright.sync_api import expect
except ImportError:
    if REQUIRE:
        raise
    pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)

pytestmark = pytest.mark.browser
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def stack_location(page, stack: str) -> str:
    return page.locator(f'g.stack[data-stack="{stack}"]').get_attribute("data-location")


def test_the_turn_page_draws_the_map_with_the_retreat_of_the_step(site, context):
    [retreat] = [e.position for e in site.ledger.history(site.cid)
                 if type(e).__name__ == "StackMoved" and e.stack == "FRA-1"][:1]
    step = retreat - 2  # turn 1 opens at position 3 (step 1)
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/1?step={step}")
    expect(page.locator("#position")).to_have_text(str(retreat))
    img = page.locator("#map-svg")
    expect(img).to_be_visible()
    page.wait_for_function("document.querySelector('#map-svg').complete")
    assert page.evaluate("document.querySelector('#map-svg').naturalWidth") > 500  # the SVG rendered
    img.scroll_into_view_if_needed()
    figure = page.locator("#map-figure")
    shot = figure.screenshot(path=str(DOCS / "map-turn-page.png")) if site.store == "sqlite" else None
    assert shot is None or len(shot) > 10_000
    # Stepping on swaps the picture for the next position.
    page.click("#next")
    expect(page.locator("#map-svg")).to_have_attribute("src", f"/campaigns/{site.cid}/map.svg?at={retreat + 1}")

    drawing = context.new_page()  # the same cookie: the picture as the game master's browser fetched it
    drawing.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={retreat}")
    assert stack_location(drawing, "FRA-1") == "Normandie"
    assert "moved" in drawing.locator('g.stack[data-stack="FRA-1"]').get_attribute("class")
    expect(drawing.locator("polyline.moved-path")).to_have_count(1)
    assert drawing.locator('g.place[data-name="Caux"]').count() == 1


def test_a_player_does_not_see_a_move_hidden_from_them(site, context):
    state = site.ledger.campaign(site.cid)
    at = state.stacks["FRA-1"][0]
    hidden = site.ledger.submit(site.cid, MoveStack, stack="FRA-1", origin=at, destination="Caux", actor=GM,
                                vis=visibility("countries", ["FRA"])).events[0]["position"]
    eng = login(context, site, site.eng, "/ui")
    eng.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={hidden}")
    assert stack_location(eng, "FRA-1") == at  # where ENG last saw it
    expect(eng.locator("polyline.moved-path")).to_have_count(0)
    eng.context.clear_cookies()
    fra = login(context, site, site.fra, "/ui")
    fra.goto(f"{site.base}/campaigns/{site.cid}/map.svg?at={hidden}")
    assert stack_location(fra, "FRA-1") == "Caux"
    expect(fra.locator("polyline.moved-path")).to_have_count(1)
