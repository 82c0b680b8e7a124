"""Charts worth looking at, read from the SVG the API serves for the worked ERS example.

One colour per country in every chart (the palette in the campaign's order of
countries), whole-number axes when the values are whole, a flat chart said in
words, the campaign's name in the titles, and income by source adding up to
the gross income the ERS route serves.
"""

from __future__ import annotations

import re

import pytest

from projections import charts
from projections.history import from_records
from tests.e2e.test_access import ADMIN, make_client
from tests.e2e.test_export_http import build
from ledger.domain.campaign import campaign_id
from tests.integration.test_economy_flow import GM, SLUG as ECONOMY
from tests.unit.test_export import RECORDS


@pytest.fixture
def http(settings, ledger):
    with make_client(settings, ledger) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN}"
        yield client


def stroke(svg: str, gid: str) -> str:
    """The colour a series is drawn in (its line's stroke, or a bar's fill)."""
    group = re.search(rf'<g id="{gid}">(.*?)</g>', svg, re.S).group(1)
    return re.search(r"(?:stroke|fill): (#[0-9a-f]{6})", group).group(1)


def y_ticks(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r'<g id="ytick_\d+">.*?<text[^>]*>([^<]*)</text>', svg, re.S)]


def test_each_country_keeps_one_colour_in_every_chart(http, ledger):
    build(ledger, "economy")  # countries FRA, ENG: FRA first
    fra, eng = (c.lower() for c in charts.PALETTE[:2])
    treasury = http.get(f"/campaigns/{ECONOMY}/charts/treasury.svg").text  # FRA A1, FRA A33, ENG A1, ENG A33
    assert [stroke(treasury, f"series-{i}") for i in range(4)] == [fra, fra, eng, eng]
    income = http.get(f"/campaigns/{ECONOMY}/charts/income.svg").text
    assert [stroke(income, f"series-{i}") for i in range(2)] == [fra, eng]
    ledger.record_treasury_entry(campaign_id(ECONOMY), country="ENG", line="A9", amount=10, reason="loot",
                                 actor=GM)  # ENG's treasury moves in turn 2: its chart is drawn
    alone = http.get(f"/campaigns/{ECONOMY}/charts/treasury.svg", params={"country": "ENG"}).text
    assert stroke(alone, "series-0") == stroke(alone, "series-1") == eng  # whoever else is drawn


def test_whole_numbers_get_whole_number_axes_and_titles_name_the_campaign(http, ledger):
    build(ledger, "economy")
    for kind in ("treasury", "income"):
        svg = http.get(f"/campaigns/{ECONOMY}/charts/{kind}.svg").text
        ticks = y_ticks(svg)
        assert ticks and all(re.fullmatch(r"[−-]?\d+", t) for t in ticks), (kind, ticks)
        assert "Europa ERS:" in svg and f"{ECONOMY}:" not in svg


def test_income_by_source_adds_up_to_the_served_gross_income(http, ledger):
    build(ledger, "economy")
    chart = charts.chart_series(_gathered(ledger), "sources", "FRA")
    assert chart.stacked and chart.series
    for i, turn in enumerate(chart.series[0].turns):
        a14 = {line["code"]: line["amount"] for line in
               http.get(f"/campaigns/{ECONOMY}/ers/FRA/{turn}").json()["lines"]}["A14"]
        assert sum(s.values[i] for s in chart.series) == a14 > 0
    svg = http.get(f"/campaigns/{ECONOMY}/charts/sources.svg", params={"country": "FRA"}).text
    assert "B5 Land income" in svg and "series-0-turn-1" in svg
    assert http.get(f"/campaigns/{ECONOMY}/charts/sources.svg").status_code == 422  # one country's


def test_a_chart_whose_values_never_change_says_so_in_words():
    history = from_records("europa", ("ENG", "FRA"), 3, RECORDS)  # no income entered: A14 is 0 throughout
    chart = charts.chart_series(history, "income")
    assert charts.flat_words(chart) == "ENG A14, FRA A14: 0 in every turn from 1 to 3, unchanged"
    svg = charts.render(chart, "svg").decode()
    assert "unchanged" in svg and 'id="series-' not in svg and not y_ticks(svg)
    assert charts.flat_words(charts.chart_series(history, "treasury")) is None  # FRA's treasury moves


def _gathered(ledger):
    from ledger.domain.actors import SYSTEM
    from ledger.domain.campaign import campaign_id
    from projections.history import gather

    return gather(ledger, campaign_id(ECONOMY), SYSTEM)


def axis_range(svg: str) -> tuple[float, float]:
    """The values at the bottom and top of the plot area, read from where the y ticks are drawn."""
    box = re.search(r'<g id="patch_2">\s*<path d="M [\d.]+ ([\d.]+)\s*L [\d.]+ [\d.]+\s*L [\d.]+ ([\d.]+)', svg)
    bottom, top = float(box.group(1)), float(box.group(2))
    ticks = [(float(label.replace("−", "-")), float(y)) for y, label in re.findall(
        r'<g id="ytick_\d+">.*?<use [^>]*y="([\d.]+)".*?<text[^>]*>([^<]*)</text>', svg, re.S)]
    (v0, y0), (v1, y1) = ticks[0], ticks[-1]
    per_pixel = (v1 - v0) / (y1 - y0)
    return v0 + (bottom - y0) * per_pixel, v0 + (top - y0) * per_pixel


def x_ticks(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r'<g id="xtick_\d+">.*?<text[^>]*>([^<]*)</text>', svg, re.S)]


@pytest.mark.parametrize("kind, codes", [("treasury", ("A1", "A33")), ("income", ("A14",))])
def test_a_charts_axes_span_the_served_values_and_the_turns_played(http, ledger, kind, codes):
    build(ledger, "economy")
    served = [line["amount"] for country in ("FRA", "ENG") for turn in (1, 2)
              for line in http.get(f"/campaigns/{ECONOMY}/ers/{country}/{turn}").json()["lines"]
              if line["code"] in codes]
    svg = http.get(f"/campaigns/{ECONOMY}/charts/{kind}.svg").text
    low, high = axis_range(svg)
    span = max(served) - min(served)
    assert span > 0 and low <= min(served) and high >= max(served), (low, high, served)
    # Room around the values, not a scale that flattens them (matplotlib's margins are 5 % a side).
    assert min(served) - low <= 0.25 * span and high - max(served) <= 0.25 * span, (low, high, served)
    assert x_ticks(svg) == ["1", "2"]  # one tick per turn played, whole turns only
