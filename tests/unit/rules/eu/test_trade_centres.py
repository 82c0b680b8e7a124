"""I5 trade centres."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError
from ledger.rules.eu.trade_centres import TradeCentresInputs, centre_of_zone, resolve_trade_centres


def _fleets(*rows):
    return [{"country": c, "zone": z, "fleets": n} for c, z, n in rows]


@pytest.mark.parametrize(
    "zone, centre",
    [
        ("STZ Caspienne", "mediterranean"), ("STZ Noire", "mediterranean"), ("STZ Lion", "mediterranean"),
        ("STZ Ionienne", "mediterranean"), ("CTZ Turquie", "mediterranean"), ("CTZ Venise", "mediterranean"),
        ("STZ Tempetes", "indian_ocean"), ("STZ Oman", "indian_ocean"), ("STZ Indien", "indian_ocean"),
        ("STZ Formose", "indian_ocean"),
        ("STZ Nord", "atlantic"), ("CTZ Angleterre", "atlantic"), ("CTZ Baltique", "atlantic"), ("STZ Caraibes", "atlantic"),
    ],
)
def test_trade_zones_count_for_their_centre(zone, centre):
    assert centre_of_zone(zone) == centre


def test_trade_centre_goes_to_the_most_fleets_summed_over_its_zones():
    # Mediterranean: VEN 2 + 1 = 3, TUR 2, HIS 1 + 1 = 2 → VEN; Atlantic: ANG 3 vs HOL 2 → ANG
    r = resolve_trade_centres(
        TradeCentresInputs(fleets=_fleets(
            ("VEN", "CTZ Venise", 2), ("VEN", "STZ Ionienne", 1), ("TUR", "CTZ Turquie", 2),
            ("SPA", "STZ Lion", 1), ("SPA", "STZ Ionienne", 1),
            ("ENG", "STZ Nord", 3), ("HOL", "STZ Nord", 2),
        ), current_owners={"mediterranean": "TUR", "atlantic": "ENG"}),
        FixedDice([]),
    )
    assert r.outcome["owners"] == {"mediterranean": "VEN", "indian_ocean": None, "atlantic": "ENG"}
    assert r.steps[0].outcome["fleets"] == {"SPA": 2, "TUR": 2, "VEN": 3}
    assert r.steps[0].outcome["changed"] is True
    assert [(e.kind, e.country, e.marker) for e in r.effects] == [
        ("marker_placed", "VEN", "trade centre mediterranean")
    ]


@pytest.mark.parametrize("die, owner", [(1, "HOL"), (2, "POR")])
def test_trade_centre_tie_is_broken_by_a_die_over_the_tied_countries(die, owner):
    r = resolve_trade_centres(
        TradeCentresInputs(fleets=_fleets(("POR", "STZ Oman", 2), ("HOL", "STZ Indien", 2), ("ENG", "STZ Oman", 1))),
        FixedDice([die]),
    )
    indian = r.steps[1]
    assert indian.dice[0].sides == 2  # two tied countries, alphabetical: HOL, POR
    assert indian.outcome["owner"] == owner
    assert r.all_dice()[0].values == (die,)


def test_trade_centre_tie_die_must_fit_the_tied_countries():
    with pytest.raises(RulesError):
        resolve_trade_centres(
            TradeCentresInputs(fleets=_fleets(("POR", "STZ Oman", 2), ("HOL", "STZ Indien", 2))), FixedDice([3])
        )


def test_trade_centre_without_fleets_stays_with_its_holder():
    r = resolve_trade_centres(TradeCentresInputs(current_owners={"indian_ocean": "POR"}), FixedDice([]))
    assert r.outcome["owners"]["indian_ocean"] == "POR"
    assert r.steps[1].outcome["changed"] is False
    assert r.effects == ()


def test_trade_centre_rejects_negative_fleets_and_unknown_centres():
    with pytest.raises(ValidationError):
        TradeCentresInputs(fleets=_fleets(("POR", "STZ Oman", -1)))
    with pytest.raises(ValidationError):
        TradeCentresInputs(current_owners={"great_orient": "TUR"})


def test_five_turkish_fleets_in_a_zone_not_on_the_board_are_refused_not_counted_for_the_atlantic():
    # Issue 18: "STZ Black Sea" used to count for the Atlantic centre and won it for Turkey.
    with pytest.raises(ValidationError) as e:
        TradeCentresInputs(fleets=_fleets(("TUR", "STZ Black Sea", 5)))
    [error] = e.value.errors()
    assert error["loc"] == ("fleets", 0, "zone") and "unknown trade zone 'STZ Black Sea'" in error["msg"]


def test_the_black_sea_by_its_seed_name_or_board_id_counts_for_the_mediterranean():
    for typed in ("STZ Noire", "ZMNoire W", "stz noire"):
        inputs = TradeCentresInputs(fleets=_fleets(("Turkey", typed, 5)))
        r = resolve_trade_centres(inputs, FixedDice([]))
        assert r.outcome["owners"] == {"mediterranean": "TUR", "indian_ocean": None, "atlantic": None}
        assert r.inputs["fleets"][0] == {"country": "TUR", "zone": "STZ Noire", "fleets": 5}


def test_every_trade_zone_of_the_board_is_listed_once_with_its_kind():
    from ledger.rules.core import load_table

    zones = load_table("ledger.rules.eu", "trade_centres.toml")["zones"]
    boards = [z["board"] for z in zones.values()]
    # The board's R_PROVINCE_TZ: 24 zones, ZM… the STZ and ZP… the CTZ.
    assert len(boards) == len(set(boards)) == 24
    assert all(name.startswith("STZ ") == z["board"].startswith("ZM") for name, z in zones.items())
    assert sum(z["board"].startswith("ZP") for z in zones.values()) == 8
