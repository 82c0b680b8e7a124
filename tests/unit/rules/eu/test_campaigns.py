"""M8 Campaign choice and cost."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, campaigns

KINDS = ["none", "passive", "active", "active_without_logistics", "major", "multiple"]


def m8(**inputs):
    return EU.get("M8").resolve({"country": "FRA", **inputs}, FixedDice([]))


def ticks(r):
    return [(e.ers_line, int(e.amount)) for e in r.effects if e.kind == "ers_tick"]


@pytest.mark.parametrize(
    "kind,cost,line",
    [("passive", 10, "B40"), ("active", 20, "B41"), ("active_without_logistics", 10, "B40"), ("major", 50, "B42"), ("multiple", 100, "B43")],
)
def test_campaign_cost_and_ers_line(kind, cost, line):
    r = m8(land=kind)
    assert r.outcome["ducats_paid"] == cost and ticks(r) == [(line, cost)]


def test_no_campaign_costs_nothing_and_forbids_interception():
    r = m8()
    assert r.outcome["ducats_paid"] == 0 and ticks(r) == []
    assert r.outcome["interception"]["level"] == "none"


def test_land_and_sea_costed_separately_only_the_larger_paid():
    r = m8(land="major", sea="active")
    assert r.outcome["cost_land"] == 50 and r.outcome["cost_sea"] == 20
    assert r.outcome["campaign"] == "major" and ticks(r) == [("B42", 50)]


def test_equal_costs_keep_the_wider_campaign():
    r = m8(land="passive", sea="active_without_logistics")
    assert r.outcome["campaign"] == "active_without_logistics" and r.outcome["ducats_paid"] == 10
    assert r.outcome["interception"]["level"] == "any"


@pytest.mark.parametrize(
    "kind,level,land,sea",
    [
        ("none", "none", "none", "none"),
        ("passive", "passive", "only in friendly provinces", "only stacks with at most 1 FLEET"),
        ("active", "any", "any", "any"),
        ("active_without_logistics", "any", "any", "any"),
        ("major", "any", "any", "any"),
    ],
)
def test_interception_rights_follow_the_campaign_paid(kind, level, land, sea):
    r = m8(land=kind)
    assert r.outcome["interception"]["level"] == level
    assert r.outcome["interception"]["land"] == land and r.outcome["interception"]["sea"] == sea
    assert [e.detail["interception"] for e in r.effects if e.kind == "campaign_chosen"] == [level]


def test_first_round_without_impulse_intercepts_as_passive():
    assert campaigns.interception_rights(None, first_round_no_impulse_yet=True)["level"] == "passive"
    assert campaigns.interception_rights("major", first_round_no_impulse_yet=True)["level"] == "any"


def test_active_without_logistics_makes_land_stacks_of_3_ld_roll_attrition():
    assert m8(land="active_without_logistics").outcome["land_attrition_all_stacks_3ld"] is True
    assert m8(sea="active_without_logistics").outcome["land_attrition_all_stacks_3ld"] is False
    assert m8(land="active_without_logistics", sea="active").outcome["land_attrition_all_stacks_3ld"] is False


def test_major_campaign_example_from_the_seed():
    """Seed example: a Major campaign allows one naval attack with a 3-FLEET stack, unrestricted
    passive naval moves and blockades, attacks by any number of small land stacks, moves of
    large land stacks without attacking, and any number of sieges."""
    r = m8(land="major", sea="major")
    assert r.outcome["ducats_paid"] == 50 and ticks(r) == [("B42", 50)]
    assert campaigns.allows_active("major", "sea", [3])  # one naval stack of 3 FLEET attacks
    assert not campaigns.allows_active("major", "sea", [3, 1])  # not two stacks, one of them large
    assert campaigns.allows_active("major", "land", [(5, 1), (4, 0), (2, 0)])  # many small land stacks
    assert not campaigns.allows_active("major", "land", [(6, 0), (2, 0)])  # a large one only alone
    assert campaigns.allows_active("major", "land", [(8, 0)])
    assert r.outcome["passive_actions"] is True  # blockades, corsairs, sieges maintained freely
    assert campaigns.campaign("major")["land_moves"] == "any" and campaigns.campaign("major")["sea_moves"] == "any"


def test_active_campaign_limits():
    assert campaigns.allows_active("active", "land", [(5, 1)])
    assert not campaigns.allows_active("active", "land", [(6, 0)])
    assert not campaigns.allows_active("active", "land", [(2, 0), (2, 0)])
    assert campaigns.allows_active("active_without_logistics", "sea", [0])
    assert not campaigns.allows_active("active_without_logistics", "sea", [1])
    assert not campaigns.allows_active("passive", "land", [(1, 0)])
    assert campaigns.allows_active("multiple", "land", [(8, 2), (8, 2)])


def test_minor_at_war_has_a_free_simple_campaign_each_round_and_the_controller_pays_upgrades():
    free = m8(land="active", country_status="minor_at_war", controller="ESP", country="SAV")
    assert free.outcome["ducats_paid"] == 0 and ticks(free) == []
    up = m8(land="major", country_status="minor_at_war", controller="ESP", country="SAV")
    # whole ticks on the controller's sheet: the free active tick taken back, a major one ticked
    assert up.outcome["ducats_paid"] == 30 and ticks(up) == [("B41", -20), ("B42", 50)]
    assert [e.country for e in up.effects if e.kind == "ers_tick"] == ["SPA", "SPA"]  # the seed's ESP, as its board code


def test_minor_in_limited_intervention_one_simple_a_turn_then_passive_each_round():
    first = m8(land="active", country_status="minor_limited_intervention", controller="ESP", country="SAV")
    assert first.outcome["ducats_paid"] == 0
    later = m8(land="active", country_status="minor_limited_intervention", controller="ESP", country="SAV", simple_campaign_used_this_turn=True)
    assert later.outcome["ducats_paid"] == 10 and ticks(later) == [("B40", -10), ("B41", 20)]
    passive = m8(land="passive", country_status="minor_limited_intervention", controller="ESP", country="SAV", simple_campaign_used_this_turn=True)
    assert passive.outcome["ducats_paid"] == 0


def test_minor_requires_a_controller():
    with pytest.raises(ValueError, match="controller"):
        m8(land="active", country_status="minor_at_war", country="SAV")


def test_m8_a_minors_campaign_is_a_minors_and_its_controller_a_major_power():
    # The board marks each country's type (R_COUNTRY TYPE): France is a major, Savoy a minor (DECISIONS.md
    # "Names — a seed's minor and major").
    with pytest.raises(ValueError, match="FRA is a major power on the board, not a minor"):
        m8(land="active", country_status="minor_at_war", controller="ESP")
    with pytest.raises(ValueError, match="SAV is a minor on the board, not a major power"):
        m8(land="active", country="SAV")
    with pytest.raises(ValueError, match=r"Savoy \(SAV\) is a minor on the board, not a major power"):
        m8(land="active", country_status="minor_at_war", controller="SAV", country="GEN")
    assert m8(land="active", country_status="minor_at_war", controller="VEN", country="GEN").inputs["controller"] == "VEN"


def test_extended_campaign_upgrade_moves_the_tick_and_pays_the_difference():
    r = m8(land="major", extended_from="active")
    assert r.outcome["ducats_paid"] == 30
    assert ticks(r) == [("B41", -20), ("B42", 50)]
    same = m8(land="passive", extended_from="active")
    assert same.outcome["ducats_paid"] == 0 and same.outcome["campaign"] == "active" and ticks(same) == []


@given(st.sampled_from(KINDS), st.sampled_from(KINDS), st.sampled_from([None] + KINDS))
def test_paid_is_never_more_than_the_larger_campaign_and_ticks_sum_to_it(land, sea, extended):
    r = m8(land=land, sea=sea, extended_from=extended)
    assert r.outcome["ducats_paid"] <= max(campaigns.cost(land), campaigns.cost(sea))
    assert sum(amount for _, amount in ticks(r)) == r.outcome["ducats_paid"]
    # every tick is a whole tick of its line (the sheet counts ticks)
    per_tick = {"B40": 10, "B41": 20, "B42": 50, "B43": 100}
    assert all(int(e.amount) == e.detail["ticks"] * per_tick[e.ers_line] for e in r.effects if e.kind == "ers_tick")
    r.model_dump(mode="json")
