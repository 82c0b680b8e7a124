"""The shipped Europa Universalis board, on its own: counts, borders, printed facts, lookups, polygons."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from ledger.board import BoardError, load_board, load_geometry
from ledger.domain.campaign import COUNTRY_RE

BOARD = load_board("eu")
# The two island groups west of the 2015 map's edge (see ops/import_board.py NOT_DRAWN).
NOT_DRAWN = {"Acores", "Islas Canarias"}


def test_board_has_327_european_and_357_rest_of_the_world_provinces_and_99_sea_zones():
    assert (len(BOARD.provinces), len(BOARD.rotw), len(BOARD.seas)) == (327, 357, 99)
    assert len(BOARD.places) == 327 + 357 + 99  # no name is shared between two places


def test_board_has_119_countries_with_unique_ledger_codes():
    assert len(BOARD.countries) == 119
    assert all(COUNTRY_RE.match(code) for code in BOARD.countries)
    names = [c.name for c in BOARD.countries.values()]
    assert len(set(names)) == 119
    majors = {c.name: c.code for c in BOARD.countries.values() if c.type in ("major", "minormajor")}
    assert majors == {"angleterre": "ENG", "espagne": "SPA", "france": "FRA", "prusse": "PRU", "russie": "RUS",
                      "turquie": "TUR", "habsbourg": "AUS", "hollande": "HOL", "pologne": "POL",
                      "portugal": "POR", "suede": "SWE", "venise": "VEN"}


def test_borders_file_lists_each_border_once_between_known_places():
    rows = json.loads(resources.files("ledger.rules.eu").joinpath("board", "borders.json").read_text("utf-8"))
    pairs = Counter(frozenset((a, b)) for a, b, _ in rows)
    assert [p for p, n in pairs.items() if n > 1] == []
    assert all(a < b and {a, b} <= BOARD.places for a, b, _ in rows)
    assert {t for _, _, t in rows} == {"plain", "river", "pass", "strait", "bering_strait"}


def test_every_border_is_symmetric():
    for place in BOARD.places:
        for other in BOARD.neighbours(place):
            assert place in BOARD.neighbours(other)
            assert BOARD.border(place, other) == BOARD.border(other, place) is not None


def test_picardie_is_printed_french_with_fortress_2_and_income_8():
    picardie = BOARD.province("Picardie")
    assert (picardie.owner, picardie.fortress, picardie.income, picardie.terrain) == ("FRA", 2, 8, "plain")
    assert picardie.port and "Amiens" in picardie.other_names


def test_caux_lies_between_picardie_and_normandie():
    assert BOARD.border("Picardie", "Normandie") is None
    assert "Normandie" not in BOARD.neighbours("Picardie")
    assert BOARD.border("Caux", "Picardie") == "plain"
    assert BOARD.border("Caux", "Normandie") == "river"


def test_sea_zones_carry_difficulty_and_penalty():
    manche = BOARD.sea("Manche")
    assert (manche.name, type(manche.difficulty), type(manche.penalty)) == ("Manche", int, int)
    assert BOARD.border("Manche", "Picardie") == "plain"


def test_rest_of_the_world_provinces_belong_to_known_regions():
    assert {p.region for p in BOARD.rotw.values()} <= set(BOARD.regions)
    assert BOARD.rotw_province("Nedj~E").region == "Nedj"


def test_printed_owners_national_provinces_and_capitals_are_on_the_board():
    assert {p.owner for p in BOARD.provinces.values()} - {None} <= set(BOARD.countries)
    for country in BOARD.countries.values():
        assert set(country.national_provinces) | set(country.capitals) <= set(BOARD.provinces)
    assert BOARD.country("FRA").name == "france" and BOARD.province("Ile-de-France").capital


def test_unknown_province_error_names_the_field_and_close_matches():
    with pytest.raises(BoardError) as info:
        BOARD.province("Picardy")
    assert info.value.field == "province"
    assert "'Picardy'" in str(info.value) and "'Picardie'" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("lookup", "name", "field"), [
    ("sea", "Mancha", "sea"), ("country", "ANG", "country"), ("neighbours", "Atlantis", "place"),
])
def test_unknown_sea_country_or_place_error_names_its_field(lookup, name, field):
    with pytest.raises(BoardError) as info:
        getattr(BOARD, lookup)(name)
    assert info.value.field == field and repr(name) in str(info.value)


def test_border_with_an_unknown_place_is_an_error_not_none():
    with pytest.raises(BoardError) as info:
        BOARD.border("Picardie", "Normandy")
    assert info.value.field == "b" and "'Normandie'" in str(info.value)


def test_unknown_ruleset_has_no_board():
    with pytest.raises(BoardError) as info:
        load_board("pfc")
    assert info.value.field == "ruleset"


def test_every_european_province_has_exactly_one_polygon_but_the_two_islands_off_the_map():
    geometry = load_geometry("eu")
    assert set(geometry["not_drawn"]) == NOT_DRAWN <= set(BOARD.provinces)
    # keys of a JSON object: one polygon (a MultiPolygon) per place, never two
    assert set(geometry["provinces"]) == set(BOARD.provinces) - NOT_DRAWN


def test_every_sea_zone_beside_a_drawn_province_has_exactly_one_polygon():
    geometry = load_geometry("eu")
    drawn = set(BOARD.provinces) - NOT_DRAWN
    european_seas = {s for s in BOARD.seas if drawn & set(BOARD.neighbours(s))}
    assert set(geometry["seas"]) == european_seas
    assert {"Manche", "Gascogne", "Irlande", "Celtique", "Nord"} <= european_seas


def test_polygons_are_closed_rings_in_board_coordinates():
    geometry = load_geometry("eu")
    for section in ("provinces", "seas", "rotw"):
        for name, polygons in geometry[section].items():
            for polygon in polygons:
                for ring in polygon:
                    assert len(ring) >= 4 and ring[0] == ring[-1], name
                    assert all(1.1 <= x <= 14.2 and 1.1 <= y <= 10.2 for x, y in ring), name
    # y grows northwards: Finland lies north of Picardie
    assert geometry["provinces"]["Finland"][0][0][0][1] > geometry["provinces"]["Picardie"][0][0][0][1]


def test_loading_the_board_imports_neither_the_application_nor_the_read_side_nor_the_api():
    # a fresh interpreter: this test process has long imported everything
    code = ("import sys, ledger.board; ledger.board.load_board('eu'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('projections', 'api') "
            "or m == 'ledger.application'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.strip() == "[]"


def test_the_board_carries_the_trade_zones_presence_and_monopoly_values_each_zone_of_the_rules_named():
    """R_PROVINCE_TZ: the small print (presence) and the large print (monopoly) of each zone, as engIncomes.tex's
    Portugal reads them (Canarias 4, Guinee 3); every zone the rules' tables name is on the board."""
    from ledger.economy.trade_income import zone_ids

    zones = load_board("eu").trade_zones
    assert len(zones) == 24
    assert (zones["ZMCanarias"].presence, zones["ZMCanarias"].monopoly, zones["ZMCanarias"].type) == (4, 20, "STZ")
    assert (zones["ZMGuinee"].presence, zones["ZPfrance"].type, zones["ZPfrance"].country) == (3, "CTZ", "FRA")
    assert set(zone_ids().values()) == set(zones)
