"""The trade and rest-of-the-world lines worked out from the board (ledger/economy/trade_income.py), on the
worked examples of engIncomes.tex (Portugal's turn 1: fleets in STZ Canarias and STZ Guinee, a colony in Cabo
Verde, a trading post in Elmina exploiting slaves; England's plantations and their slaves) and the rules around
them. The facts are folded from the trade events as the write side folds them (ledger/domain/trade_facts.py);
the store-backed path is tests/integration/test_trade_board.py."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.board import load_board
from ledger.domain.trade_facts import change
from ledger.economy.board_income import EconomyFacts, Undetermined, rules_data, work_out
from ledger.economy.trade_income import (Exploited, colonies, exotic_resources, fleet_level_income,
                                         fleet_monopoly_income, missions_maintenance, plantations, trade_centres_income,
                                         trade_monopolies, trading_posts)

BOARD = load_board("eu")


def fleet(country, zone, level):
    return ("TradeFleetChanged", SimpleNamespace(country=country, zone=zone, level=level, previous=0, reason="r"))


def establishment(country, kind, place, level, exploits=None, gold=False):
    return ("EstablishmentChanged", SimpleNamespace(country=country, kind=kind, place=place, level=level, previous=0,
                                                    exploits=exploits or {}, gold=gold, reason="r"))


def centre(centre, holder, province=None, income=None):
    return ("TradeCentreChanged", SimpleNamespace(centre=centre, holder=holder, previous=None, province=province,
                                                  income=income, reason="r"))


def mission(country, place, present=True):
    return ("MissionChanged", SimpleNamespace(country=country, place=place, present=present, reason="r"))


def facts(*events, provinces=None, options=None):
    """The facts after ``events``, the first at position 10, the next at 11..."""
    countries: dict = {}
    for i, (kind, e) in enumerate(events):
        countries = change(countries, kind, e, 10 + i)
    return EconomyFacts(position=10 + len(events), provinces=provinces or {}, forces={}, fortresses={}, sieges={},
                        countries=countries, touched={}, board=BOARD, ruleset="eu",
                        options={**rules_data("eu")["defaults"], **(options or {})})


PORTUGAL_TURN_1 = (fleet("POR", "STZ Canarias", 3), fleet("POR", "STZ Guinee", 1),
                   establishment("POR", "colony", "Cabo Verde~I", 3),
                   establishment("POR", "trading_post", "Cotedor~W", 3, {"sl": 3}))


def amounts(line):
    return [(s.name, s.amount, s.position) for s in line.lineage]


# ------------------------------------------------------------------------- engIncomes.tex, Portugal turn 1


def test_stz_ctz_level_income_portugal_level_3_in_canarias_and_1_in_guinee_is_4():
    line = fleet_level_income(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount) == ("B11", 4)
    assert amounts(line) == [("STZ Canarias", 3, 10), ("STZ Guinee", 1, 11)]


def test_stz_ctz_monopoly_income_portugal_presence_in_canarias_4_and_guinee_3_is_7():
    line = fleet_monopoly_income(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount) == ("B12", 7)
    assert amounts(line) == [("STZ Canarias", 4, 10), ("STZ Guinee", 3, 11)]


def test_partial_total_monopolies_trade_portugal_has_none():
    line = trade_monopolies(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount, line.lineage) == ("B13", 0, ())


def test_trade_centres_income_portugal_holds_none_at_the_start():
    assert trade_centres_income(facts(*PORTUGAL_TURN_1), "POR").amount == 0


def test_colonies_portugal_level_3_in_cabo_verde_is_3_plus_the_area_income_1():
    line = colonies(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount) == ("B17", 4)
    assert amounts(line) == [("Cabo Verde~I", 4, 12)]


def test_trading_posts_portugal_level_3_in_elmina_is_1_face_minus_without_the_area_income():
    line = trading_posts(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount) == ("B18", 1)
    assert amounts(line) == [("Cotedor~W", 1, 13)]


def test_exotic_resources_portugal_3_slaves_of_elmina_at_the_initial_price_2_is_6():
    line = exotic_resources(facts(*PORTUGAL_TURN_1), "POR")
    assert (line.code, line.amount) == ("B19", 6)
    assert amounts(line) == [("Cotedor~W", 6, 13)]


def test_rotw_income_portugal_is_4_plus_1_plus_6():
    f = facts(*PORTUGAL_TURN_1)
    assert colonies(f, "POR").amount + trading_posts(f, "POR").amount + exotic_resources(f, "POR").amount == 11


def test_the_trade_lines_of_portugal_turn_1_give_its_share_of_the_trade_income_68():
    """Trade income 3 + 54 + 4 + 7 + 0 - 0: domestic and foreign trade (3, 54) are not these lines."""
    f = facts(*PORTUGAL_TURN_1)
    assert 3 + 54 + fleet_level_income(f, "POR").amount + fleet_monopoly_income(f, "POR").amount \
        + trade_centres_income(f, "POR").amount == 68


# ---------------------------------------------------------- engIncomes.tex, Exotic resources: using slaves

SUGAR, PRODUCTS = ("Cuba~W", "su"), ("Cuba~E", "pa")


def england(slaves_received, contraband):
    exploited = [Exploited("Angola~N", "sl", 4, 7, False, None), Exploited(*SUGAR, 6, 6, True, None),
                 Exploited(*PRODUCTS, 3, 5, True, None)]
    return sum(income for _, income, _ in plantations(exploited, slaves_received, contraband))


def test_using_slaves_england_with_international_contraband_gains_52():
    assert england(0, "international") == 4 * 7 + 4 * 6 + 0


def test_using_slaves_england_with_methuen_a_bought_slave_and_a_fleet_in_guinee_gains_73():
    assert england(2 + 1, "direct") == 4 * 7 + 6 * 6 + 1 * 5 + 2 * 2


def test_using_slaves_through_the_worker_a_fleet_in_stz_guinee_gives_direct_contraband():
    """England exploits 2 slaves in Angola, 2 sugar and 1 product of America in Cuba at the example's prices:
    its slaves work the sugar; the product of America needs contraband."""
    events = (establishment("ENG", "trading_post", "Angola~N", 4, {"sl": 2}),
              establishment("ENG", "colony", "Cuba~W", 6, {"su": 2, "pa": 1}))
    prices = {"B19.prices": {"sl": 7, "su": 6, "pa": 5}}
    cuba = BOARD.region("Cuba").resources
    assert cuba.get("su", 0) >= 2 and cuba.get("pa", 0) >= 1 and BOARD.region("Angola").resources["sl"] >= 2
    without = exotic_resources(facts(*events, options=prices), "ENG")
    assert without.amount == 2 * 7 + 2 * 6 + 0  # the dearest (sugar) takes the slaves; the rest is lost
    with_fleet = exotic_resources(facts(*events, fleet("ENG", "STZ Guinee", 1), options=prices), "ENG")
    assert with_fleet.amount == 2 * 7 + 2 * 6 + 5 // 2


# ---------------------------------------------------------------------------------------- the rules around


def test_a_fleet_in_a_ctz_and_in_the_baltic_brings_2_ducats_a_level():
    line = fleet_level_income(facts(fleet("FRA", "CTZ France", 2), fleet("FRA", "CTZ Baltique", 3)), "FRA")
    assert amounts(line) == [("CTZ Baltique", 6, 11), ("CTZ France", 4, 10)]


def test_a_face_plus_fleet_holds_a_partial_monopoly_half_the_large_print_rounded_down():
    f = facts(fleet("ENG", "STZ Guinee", 4), fleet("ENG", "STZ Nord", 6))
    assert amounts(fleet_monopoly_income(f, "ENG")) == [("STZ Guinee", 15 // 2, 10), ("STZ Nord", 30, 11)]
    assert trade_monopolies(f, "ENG").amount == 2


def test_a_trade_centre_brings_its_fixed_income_unless_its_province_is_occupied():
    f = facts(centre("atlantic", "ENG", "Kent"), centre("indian_ocean", "ENG"),
              provinces={"Kent": {"owner": "ENG", "controller": "ENG", "at": {}}})
    assert trade_centres_income(f, "ENG").amount == 150
    occupied = facts(centre("atlantic", "ENG", "Kent"),
                     provinces={"Kent": {"owner": "ENG", "controller": "FRA", "at": {"controller": 7}}})
    [source] = trade_centres_income(occupied, "ENG").lineage
    assert (source.amount, source.position) == (0, 7) and "occupied" in source.note


def test_a_trade_centre_changing_hands_leaves_its_former_holder():
    f = facts(centre("mediterranean", "VEN", "Veneto"), centre("mediterranean", "TUR", "Istanbul"))
    assert trade_centres_income(f, "VEN").amount == 0 and trade_centres_income(f, "TUR").amount == 100


def test_the_great_orient_centre_brings_its_recorded_income_and_without_it_b14_stays_entered():
    assert trade_centres_income(facts(centre("great_orient", "TUR", income=170)), "TUR").amount == 170
    f = facts(centre("great_orient", "TUR"))
    proposal = work_out(SimpleNamespace(version=f.position), "TUR", facts=f)
    assert "B14" in dict(proposal.unresolved) and "B14" not in [x.code for x in proposal.lines]


def test_a_face_plus_colony_brings_twice_its_area_income_and_one_exploiting_gold_nothing():
    f = facts(establishment("SPA", "colony", "Cuba~W", 4), establishment("SPA", "colony", "Cuba~E", 2, gold=True))
    income = BOARD.region("Cuba").income
    assert amounts(colonies(f, "SPA")) == [("Cuba~E", 0, 11), ("Cuba~W", 4 + 2 * income, 10)]


def test_an_establishment_in_revolt_brings_nothing_and_exploits_nothing():
    revolt = {"Cotedor~W": {"markers": ["Revolt"], "at": {"markers": 20}}}
    f = facts(*PORTUGAL_TURN_1, provinces=revolt)
    assert trading_posts(f, "POR").amount == 0 and exotic_resources(f, "POR").amount == 0
    assert [s.position for s in trading_posts(f, "POR").lineage] == [20]


def test_an_establishment_removed_leaves_nothing_behind():
    f = facts(*PORTUGAL_TURN_1, establishment("POR", "trading_post", "Cotedor~W", 0))
    assert trading_posts(f, "POR").lineage == () and exotic_resources(f, "POR").lineage == ()


def test_a_resource_without_a_price_leaves_exotic_resources_entered():
    f = facts(establishment("POR", "trading_post", "Malabar~N", 2, {"sp": 2}))
    proposal = work_out(SimpleNamespace(version=f.position), "POR", facts=f)
    assert "Spices" in dict(proposal.unresolved)["B19"]
    f = facts(establishment("POR", "trading_post", "Malabar~N", 2, {"sp": 2}), options={"B19.prices": {"sp": 5}})
    assert exotic_resources(f, "POR").amount == 10


def test_missions_maintenance_is_1_ducat_a_mission_as_a_positive_expense():
    f = facts(mission("SPA", "Cuba~W"), mission("SPA", "Florida~N"), mission("SPA", "Florida~N", present=False),
              mission("SPA", "Azteca~C"))
    line = missions_maintenance(f, "SPA")
    assert (line.code, line.amount) == ("B32", 2) and [s.name for s in line.lineage] == ["Azteca~C", "Cuba~W"]


# ------------------------------------------------------------------------------ the property: the lineage

ZONES = ("STZ Canarias", "STZ Guinee", "STZ Nord", "CTZ France", "CTZ Baltique", "STZ Oman")
PLACES = ("Cabo Verde~I", "Cotedor~W", "Cuba~W", "Angola~N", "Malabar~N")
COUNTRIES = ("POR", "ENG", "SPA")
event = st.one_of(
    st.builds(fleet, st.sampled_from(COUNTRIES), st.sampled_from(ZONES), st.integers(0, 6)),
    st.builds(establishment, st.sampled_from(COUNTRIES), st.sampled_from(("colony", "trading_post")),
              st.sampled_from(PLACES), st.integers(0, 6), st.dictionaries(st.sampled_from(("sl", "su", "sp")),
                                                                          st.integers(1, 4), max_size=2),
              st.booleans()),
    st.builds(centre, st.sampled_from(("atlantic", "mediterranean", "indian_ocean", "great_orient")),
              st.sampled_from((*COUNTRIES, None)), st.just(None), st.integers(0, 300)),
    st.builds(mission, st.sampled_from(COUNTRIES), st.sampled_from(PLACES), st.booleans()),
)


@settings(max_examples=150, deadline=None)
@given(events=st.lists(event, max_size=25), marked=st.sets(st.sampled_from(PLACES)))
def test_each_trade_and_rest_of_the_world_line_is_the_sum_of_its_lineage(events, marked):
    provinces = {p: {"markers": ["Pillage+"], "at": {"markers": 1}} for p in marked}
    f = facts(*events, provinces=provinces, options={"B19.prices": {"sl": 2, "su": 6, "sp": 5}})
    for country in COUNTRIES:
        proposal = work_out(SimpleNamespace(version=f.position), country, facts=f)
        for line in proposal.lines:
            if line.code in ("B11", "B12", "B13", "B14", "B17", "B18", "B19", "B32"):
                assert line.amount == sum(s.amount for s in line.lineage), line
                assert all(s.position is None or s.position <= f.position for s in line.lineage)
