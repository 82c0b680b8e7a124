"""The map drawing (projections/svg.py) as a pure function: north is up, the inset copy is not where a
province is, places without a polygon are listed, owners differing from controllers are hatched."""

from __future__ import annotations

import re

from projections.records import Record
from projections.svg import render


def place(owner="FRA", controller=None, kind="province"):
    if kind == "sea":
        return {"kind": "sea", "area": None, "markers": []}
    return {"kind": "province", "terrain": "plain", "owner": owner, "controller": controller or owner, "income": 8,
            "fortress": 2, "coastal": True, "area": None, "markers": ["Pillage-"]}


DOC = {"position": 7, "provinces": {"Kent": place("ENG"), "Picardie": place("FRA", "ENG"), "Manche": place(kind="sea"),
                                    "Atlantis": place("FRA")},
       "stacks": {"ENG-1": {"country": "ENG", "location": "Picardie", "units": {"LD": 6}, "leaders": []}}}
MOVE = Record(campaign="c", position=7, type="StackMoved",
              data={"stack": "ENG-1", "origin": "Kent", "destination": "Picardie", "path": ["Kent", "Manche", "Picardie"],
                    "reason": "landing", "context": {}})


def label_y(svg: str, name: str) -> float:
    [y] = re.findall(rf'<text class="label" x="[0-9.]+" y="([0-9.]+)"[^>]*>{name}', svg)
    return float(y)


def test_north_is_up_and_the_low_countries_inset_is_not_where_picardie_is():
    svg = render(DOC, MOVE, board="eu")
    # Kent lies north of Picardie on the board: its label is higher on the page (smaller y).
    assert label_y(svg, "Kent") < label_y(svg, "Picardie")
    # Fitted to the land: Picardie's label is inside the picture, not in the board's north-west inset.
    width = float(re.search(r'viewBox="0 0 ([0-9.]+)', svg).group(1))
    assert 0 < label_y(svg, "Picardie") < width


def test_the_move_is_drawn_the_hand_change_hatched_and_the_missing_place_listed():
    svg = render(DOC, MOVE, board="eu")
    assert 'class="stack moved" data-stack="ENG-1" data-location="Picardie"' in svg
    assert svg.count('class="moved-path"') == 1
    assert 'fill="url(#hatch-FRA)"' in svg and 'data-owner="FRA" data-controller="ENG"' in svg
    assert "Not drawn (no polygon on the board): Atlantis" in svg
    assert ">6</text>" in svg  # the counter shows the stack's strength


def test_without_the_event_nothing_is_highlighted():
    svg = render(DOC, None, board="eu")
    assert "moved-path" not in svg and "stack moved" not in svg and 'class="highlight"' not in svg


def test_a_besieged_province_is_ringed_and_named_with_its_besiegers_and_the_siege_start_is_highlighted():
    doc = {**DOC, "sieges": {"Picardie": {"since": 8, "besiegers": ["ENG-1"]}}}
    start = Record(campaign="c", position=8, type="SiegeStarted",
                   data={"province": "Picardie", "besiegers": ["ENG-1"], "reason": "siege", "context": {}})
    svg = render(doc, start, board="eu")
    [siege] = re.findall(r'<g class="siege" data-province="([^"]+)"><title>([^<]+)</title>', svg)
    assert siege == ("Picardie", "Picardie besieged by ENG-1")
    assert re.search(r'<g class="place changed" data-name="Picardie"', svg)
    assert 'class="siege"' not in render(DOC, None, board="eu")


def test_asked_for_links_every_drawn_place_and_counter_links_to_its_page_and_without_them_none_does():
    svg = render(DOC, MOVE, board="eu", link=lambda name: f"/places/{name}?at=7")
    drawn = re.findall(r'<a class="place-link" href="/places/([^"?]+)\?at=7">\s*<g class="place[^"]*" '
                       r'data-name="([^"]+)"', svg)
    assert drawn and all(href == name for href, name in drawn)
    assert {n for _, n in drawn} == set(re.findall(r'<g class="place[^"]*" data-name="([^"]+)"', svg))
    assert re.search(r'<a class="place-link" href="/places/Picardie\?at=7">\s*<g class="stack', svg)  # ENG-1's counter
    assert 'role="img"' not in svg  # a picture of links is not one image
    plain = render(DOC, MOVE, board="eu")
    assert "<a " not in plain and 'role="img"' in plain
    def lines(text: str) -> list[str]:
        return [x for x in text.replace(' role="img"', "").splitlines() if x]

    unlinked = re.sub(r"</?a[^>]*>|<style>[^<]*</style>", "", svg)
    assert lines(unlinked) == lines(plain)  # the links add nothing else to the picture


def test_a_link_is_escaped_in_the_picture():
    svg = render(DOC, None, board="eu", link=lambda name: f'/places/{name}?a="1"&b=<2>')
    assert 'href="/places/Kent?a=&quot;1&quot;&amp;b=&lt;2&gt;"' in svg


def test_a_scenarios_outlines_are_laid_out_once_and_another_scenario_gets_its_own_view():
    """The geometry is kept per board and set of places (projections/svg.py ``_layout``): a second picture of
    the same places reuses it, and a picture of other places is fitted to them, not to the first ones."""
    from projections.svg import _layout

    first = render(DOC, None, board="eu")
    hits = _layout.cache_info().hits
    wider = {**DOC, "provinces": {**DOC["provinces"], "Armor": place("FRA"), "Auvergne": place("FRA")}}
    other = render(wider, None, board="eu")
    view = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')
    assert view.search(other).groups() != view.search(first).groups()  # fitted to its own places
    assert 'data-name="Armor"' in other and 'data-name="Armor"' not in first
    again = render({**DOC, "position": 9}, None, board="eu")
    assert _layout.cache_info().hits > hits  # the first scenario's layout, reused
    assert again == re.sub(r"position 7\b", "position 9", first.replace('data-position="7"', 'data-position="9"'))
