"""Victory points per turn and end-of-period wealth."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ledger.rules.core import RulesError
from ledger.rules.eu import victory as vp


def test_major_battle_gives_five_vps_and_moves_stability():
    winner, loser = vp.major_battle("FRA", "HIS")
    assert (winner.country, winner.vp, winner.stability) == ("FRA", 5, 1)
    assert (loser.country, loser.vp, loser.stability) == ("HIS", 0, -1)
    assert "engVictories.tex" in winner.source
    kinds = [(e.kind, e.amount) for e in winner.to_effects()]
    assert kinds == [("victory_points", 5), ("stability_changed", 1)]
    assert [(e.kind, e.amount) for e in loser.to_effects()] == [("stability_changed", -1)]


def test_major_battle_won_without_a_rout_gives_half_vps():
    winner, _ = vp.major_battle("FRA", "HIS", halved=True)
    assert winner.vp == Fraction(5, 2)
    assert "C.2" in winner.source


@pytest.mark.parametrize("against, amount", [("player", -10), ("minor", -5)])
def test_war_without_casus_belli(against, amount):
    assert vp.war_without_casus_belli("TUR", against).vp == amount


@pytest.mark.parametrize("level, amount", [("small", -5), ("major", -15), ("complete", -30)])
def test_bankruptcy(level, amount):
    award = vp.bankruptcy("HIS", level)
    assert award.vp == amount and award.reason == f"{level} bankruptcy"


def test_unknown_bankruptcy_level_is_refused():
    with pytest.raises(RulesError):
        vp.bankruptcy("HIS", "huge")


def test_provinces_annexed_and_lost():
    assert vp.province_annexed("FRA", 7, "Bourgogne").vp == 7
    assert vp.province_lost("HIS", 7, "peace").vp == -7
    assert vp.province_lost("HIS", 7, "dowry").vp == -14
    with pytest.raises(RulesError):
        vp.province_annexed("FRA", -1)


@pytest.mark.parametrize(
    "levels, won, major, amount",
    [(3, True, True, 6), (3, True, False, 3), (2, False, True, -4), (0, True, True, 0)],
)
def test_peace_levels(levels, won, major, amount):
    assert vp.peace_levels("ANG", levels, won=won, against_a_major=major).vp == amount


def test_forced_religious_conversion():
    assert vp.forced_religious_conversion("HIS").vp == -20


def test_exotic_monopolies():
    assert vp.exotic_monopolies("POR", partial=2, total=1).vp == 5


@pytest.mark.parametrize(
    "key, count, amount",
    [
        ("first_circumnavigation_one_turn", 1, 50),
        ("first_circumnavigation_two_turns", 1, 20),
        ("second_circumnavigation", 1, 20),
        ("cape_horn", 1, 10),
        ("cape_of_storms", 1, 10),
        ("hudson", 1, 3),
        ("quebec", 1, 3),
        ("rockies", 1, 3),
        ("alaska", 1, 3),
        ("great_lakes", 1, 2),
        ("panama_from_the_west", 1, 5),
        ("alaska_via_asia", 1, 5),
        ("kamchatka_by_land", 1, 5),
        ("amazonia_province", 3, 3),
        ("mississippi_province", 2, 2),
    ],
)
def test_discoveries(key, count, amount):
    assert vp.discovery("POR", key, count).vp == amount


def test_discovery_refuses_unknown_keys_and_counts_on_non_province_entries():
    with pytest.raises(RulesError):
        vp.discovery("POR", "atlantis")
    with pytest.raises(RulesError):
        vp.discovery("POR", "cape_horn", 2)


def test_prestige_vps_are_line_a26():
    assert vp.prestige("FRA", 77).vp == 77
    assert vp.prestige("FRA", 77).reason == "prestige (ERS A26)"


def test_players_share_half_the_vps_of_their_minors():
    assert vp.minor_share("FRA", "Savoie", 5).vp == Fraction(5, 2)
    assert vp.minor_share("FRA", "Savoie", -10).vp == -5


def test_period_wealth_uses_the_mean_turn_wealth_and_the_country_percentage():
    # France, period I: 25%; turn wealth 294 and 357 → mean 325.5 × 25% = 81.375
    award = vp.period_wealth("FRA", "I", [294, 357])
    assert award.vp == Fraction(651, 2) * Fraction(25, 100)


def test_period_wealth_percent_supplied_by_the_caller():
    assert vp.period_wealth("XXX", "III", [100, 200], percent=50).vp == 75
    with pytest.raises(RulesError) as exc:
        vp.period_wealth("XXX", "III", [100])
    assert exc.value.field == "percent"
    with pytest.raises(RulesError):
        vp.period_wealth("HOL", "I", [100])  # Holland is not in play in period I


def test_vp_effects_serialise():
    effects = vp.major_battle("FRA", "HIS", halved=True)[0].to_effects()
    assert effects[0].model_dump(mode="json")["amount"] == "5/2"
