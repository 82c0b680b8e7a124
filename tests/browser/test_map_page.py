"""The map drawn on the web page, in a real browser: at a replay step the SVG shows the stack where the
event put it, with its path; a player does not see a move hidden from them. The screenshot is kept in
docs/screenshots/ (the README shows it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledger.application import visibility
from ledger.domain.commands import MoveStack
from ledger.sample import GM
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

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
    img = page.locator("#map-svg svg")
    expect(img).to_be_visible()
    assert img.bounding_box()["width"] > 500  # the SVG rendered, inline in the page
    img.scroll_into_view_if_needed()
    figure = page.locator("#map-figure")
    shot = figure.screenshot(path=str(DOCS / "map-turn-page.png")) if site.store == "sqlite" else None
    assert shot is None or len(shot) > 10_000
    # Stepping on swaps the picture for the next position.
    page.click("#next")
    expect(page.locator("#map-svg svg")).to_have_attribute("data-position", str(retreat + 1))
    expect(page.locator("#map-figure a", has_text="open the picture")).to_have_attribute(
        "href", f"/campaigns/{site.cid}/map.svg?at={retreat + 1}")

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


def test_clicking_a_province_on_the_turn_pages_map_opens_its_state_and_history(site, context):
    [control] = [e.originator_version for e in site.ledger.history(site.cid)
                 if type(e).__name__ == "ControlChanged" and e.province == "Picardie"]
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/1?position={control}")
    # A person clicks on the province's shape: a point of it no name or counter covers.
    shape = page.locator('#map-svg g.place[data-name="Picardie"] path').first
    shape.scroll_into_view_if_needed()
    box = shape.bounding_box()
    x, y = page.evaluate("""([x0, y0, w, h]) => {
        for (let j = 1; j < 20; j++) for (let i = 1; i < 20; i++) {
            const x = x0 + w * i / 20, y = y0 + h * j / 20, hit = document.elementFromPoint(x, y);
            if (hit && hit.closest('g.place') && hit.closest('g.place').dataset.name === 'Picardie') return [x, y];
        }
        return [null, null]; }""", [box["x"], box["y"], box["width"], box["height"]])
    assert x is not None, "some of Picardie shows on the map"
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/places/Picardie\?at=\d+"))
    assert page.url.endswith(f"?at={control}")
    expect(page.locator("#place-name")).to_have_text("Picardie")
    expect(page.locator("#place-controller")).to_have_text("ENG")
    expect(page.locator(f'#place-history tr.place-event[data-position="{control}"]')).to_contain_text(
        "Picardie now controlled by ENG from FRA")
    shot = page.screenshot(path=str(DOCS / "place-page.png"), full_page=True) if site.store == "sqlite" else None
    assert shot is None or len(shot) > 10_000
    page.click(f'#place-history a[href$="position={control}"]')
    page.wait_for_url(re.compile(rf"/ui/campaigns/sample/turns/1\?position={control}"))
    expect(page.locator("#position")).to_have_text(str(control))
