"""The turn page's map pans and zooms in a real browser (issue 37, item 6): the + and − buttons and the wheel
zoom, dragging moves it and does not open the place under the pointer, "whole map" goes back; only the SVG's
viewBox changes (no request), and a click that did not drag still opens the place."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def view(page) -> list[float]:
    return [float(x) for x in page.locator("#map-svg svg").get_attribute("viewBox").split()]


def test_the_map_zooms_in_and_out_pans_by_dragging_and_goes_back_to_the_whole_map(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/turns/1")
    home = view(page)
    expect(page.locator("#map-zoom-in")).to_be_visible()
    page.locator("#map-zoom-in").click()
    zoomed = view(page)
    assert zoomed[2] == pytest.approx(home[2] / 2, rel=1e-3) and zoomed[3] == pytest.approx(home[3] / 2, rel=1e-3)
    # Zoomed about the centre: the centre of the view stays where it was.
    assert zoomed[0] + zoomed[2] / 2 == pytest.approx(home[0] + home[2] / 2, abs=0.1)

    page.locator("#map-svg svg").scroll_into_view_if_needed()
    svg = page.locator("#map-svg svg").bounding_box()
    cx, cy = svg["x"] + svg["width"] / 2, svg["y"] + min(svg["height"] / 2, 300)  # a point in the window
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    url = page.url
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 60, cy - 40, steps=6)
    page.mouse.up()
    panned = view(page)
    assert panned[0] > zoomed[0] and panned[1] > zoomed[1] and panned[2] == zoomed[2]  # dragged left and up
    assert page.url == url and requests == []  # a drag opens no place and fetches nothing
    site.shot(page, "map-zoomed-panned")

    page.mouse.move(cx, cy)
    page.mouse.wheel(0, -300)
    assert view(page)[2] < panned[2]  # the wheel zooms in under the pointer
    page.locator("#map-zoom-out").click()
    page.locator("#map-zoom-home").click()
    assert view(page) == pytest.approx(home)


def test_a_click_without_a_drag_still_opens_the_place_on_a_zoomed_map(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/turns/1")
    page.locator("#map-zoom-in").click()
    shape = page.locator('#map-svg g.place[data-name="Picardie"] path').first
    box = shape.bounding_box()
    x, y = page.evaluate("""([x0, y0, w, h]) => {
        for (let j = 1; j < 20; j++) for (let i = 1; i < 20; i++) {
            const x = x0 + w * i / 20, y = y0 + h * j / 20, hit = document.elementFromPoint(x, y);
            if (hit && hit.closest('g.place') && hit.closest('g.place').dataset.name === 'Picardie') return [x, y];
        }
        return [null, null]; }""", [box["x"], box["y"], box["width"], box["height"]])
    assert x is not None, "some of Picardie shows on the zoomed map"
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/places/Picardie"))
