"""M1 Initiative, M2 Starting round, M3 Continuation roll, M4 Wintering."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU, rounds

BOXES = ["W0", "S1", "W1", "S2", "W2", "S3", "W3", "S4", "W4", "S5", "W5"]


def m3(previous, die, period="III", poor=False):
    return EU.get("M3").resolve({"previous_round": previous, "period": period, "poor_weather": poor}, FixedDice([die]))


# --------------------------------------------------------------------------- M1


def test_initiative_alliances_are_transitive_and_play_at_their_lowest_member():
    r = EU.get("M1").resolve(
        {"initiatives": {"FRA": 6, "ENG": 8, "HOL": 3, "SPA": 5, "TUR": 4}, "alliances": [["ENG", "HOL"], ["HOL", "SPA"]]},
        FixedDice([]),
    )
    assert r.outcome["order"] == [
        {"position": 1, "alliance": ["FRA"], "initiative": 6},
        {"position": 2, "alliance": ["TUR"], "initiative": 4},
        {"position": 3, "alliance": ["ENG", "HOL", "SPA"], "initiative": 3},
    ]
    assert r.dice == ()


def test_initiative_tie_is_broken_by_a_recorded_die_per_tied_alliance_rerolled_while_tied():
    # The seed's ESP is recorded as the board's SPA (tables/country_aliases.toml).
    r = EU.get("M1").resolve({"initiatives": {"FRA": 5, "ESP": 5, "TUR": 5}}, FixedDice([4, 4, 7, 2, 9]))
    # FRA 4, SPA 4, TUR 7 → TUR first; FRA/SPA re-roll 2 / 9 → SPA then FRA
    assert [row["alliance"] for row in r.outcome["order"]] == [["TUR"], ["SPA"], ["FRA"]]
    assert [d.purpose for d in r.dice] == [
        "initiative tie: FRA", "initiative tie: SPA", "initiative tie: TUR", "initiative tie: FRA", "initiative tie: SPA"
    ]
    assert len(r.outcome["ties"]) == 2


def test_initiative_rejects_an_ally_without_initiative():
    with pytest.raises(ValueError, match="ESP"):
        EU.get("M1").resolve({"initiatives": {"FRA": 5}, "alliances": [["FRA", "ESP"]]}, FixedDice([]))


@settings(max_examples=100)
@given(st.dictionaries(st.sampled_from(["FRA", "SPA", "ENG", "HOL", "TUR", "RUS", "POL", "SWE"]), st.integers(0, 9), min_size=1))
def test_initiative_order_is_non_increasing_and_covers_every_country(initiatives):
    countries = sorted(initiatives)
    groups = [countries[i : i + 2] for i in range(0, len(countries), 3)]
    r = EU.get("M1").resolve({"initiatives": initiatives, "alliances": groups}, FixedDice([(i % 10) + 1 for i in range(200)]))
    levels = [row["initiative"] for row in r.outcome["order"]]
    assert levels == sorted(levels, reverse=True)
    assert sorted(c for row in r.outcome["order"] for c in row["alliance"]) == countries


# --------------------------------------------------------------------------- M2


@pytest.mark.parametrize("die,box", [(1, "W0"), (2, "S1"), (3, "S1"), (4, "S2"), (5, "S2"), (6, "W2"), (7, "S3"), (10, "S3")])
def test_starting_round_die_is_never_modified(die, box):
    r = EU.get("M2").resolve({"poor_weather": True}, FixedDice([die]))
    assert r.outcome["round"] == box and r.total == die and r.modifiers == ()
    assert r.outcome["wintering"] is False and r.outcome["extended_campaign"] is False


def test_starting_round_sund_frozen_on_1_with_poor_weather():
    r = EU.get("M2").resolve({"poor_weather": True}, FixedDice([1]))
    assert r.outcome["sund_frozen"] is True and r.outcome["bad_weather"] is True
    assert any(e.kind == "marker_placed" and e.marker == "Sund frozen" for e in r.effects)
    dry = EU.get("M2").resolve({"poor_weather": False}, FixedDice([1]))
    assert dry.outcome["sund_frozen"] is False and dry.outcome["bad_weather"] is False


def test_starting_round_in_winter_2_with_poor_weather_is_bad_weather_without_sund():
    r = EU.get("M2").resolve({"poor_weather": True}, FixedDice([6]))
    assert r.outcome["bad_weather"] is True and r.outcome["sund_frozen"] is False


# --------------------------------------------------------------------------- M3


@pytest.mark.parametrize(
    "period,poor,expected",
    [("I", False, []), ("V", True, [(2, "poor weather this turn")]), ("VI", False, [(-1, "period VI")]), ("VII", True, [(2, "poor weather this turn"), (-1, "period VII")])],
)
def test_continuation_modifiers(period, poor, expected):
    r = m3("S2", 6, period, poor)
    assert [(m.value, m.reason) for m in r.modifiers] == expected
    assert all(m.rule == "eu:M3" for m in r.modifiers)


@pytest.mark.parametrize(
    "previous,die,new,arrow",
    [
        ("S1", 5, "W1", "red"), ("S1", 6, "S2", "black"), ("S5", 6, "End", "black"), ("S5", 5, "W5", "red"),
        ("W0", 7, "S1", "black"), ("W0", 8, "W1", "black"), ("W0", 9, "S2", "black"),
        ("W3", 10, "S5", "black"), ("W4", 9, "End", "black"), ("W4", 8, "W5", "black"), ("W5", 1, "End", "black"),
    ],
)
def test_continuation_follows_the_arrows_of_the_rounds_display(previous, die, new, arrow):
    r = m3(previous, die)
    assert r.outcome["round"] == new and r.outcome["arrow"] == arrow
    assert r.table_cell.value == new


def test_continuation_red_arrow_after_summer_is_an_extended_campaign():
    r = m3("S3", 4)
    assert r.outcome["extended_campaign"] is True and r.outcome["wintering"] is False
    changed = [e for e in r.effects if e.kind == "round_changed"][0]
    assert changed.detail["extended_campaign"] is True and changed.target == "W3"


@pytest.mark.parametrize("die,bad", [(1, True), (2, False), (3, True), (4, False), (5, True)])
def test_extended_campaign_after_an_unmodified_1_3_or_5_is_bad_weather(die, bad):
    r = m3("S2", die)
    assert r.outcome["extended_campaign"] is True
    assert r.outcome["bad_weather"] is bad
    assert any(e.kind == "weather" for e in r.effects) is bad


def test_bad_weather_looks_at_the_unmodified_die_not_the_total():
    # period VI: die 4 − 1 = 3, red arrow, but the unmodified die is 4: no bad weather
    r = m3("S2", 4, period="VI")
    assert r.total == 3 and r.outcome["extended_campaign"] is True and r.outcome["bad_weather"] is False
    # period VI: die 6 − 1 = 5, red arrow; unmodified 6: no bad weather
    r = m3("S2", 6, period="VI")
    assert r.outcome["extended_campaign"] is True and r.outcome["bad_weather"] is False


def test_poor_weather_makes_every_winter_round_bad_weather_including_winter_to_winter():
    r = m3("W1", 6, poor=True)  # 8 → W2
    assert r.outcome["round"] == "W2" and r.outcome["bad_weather"] is True and r.outcome["sund_frozen"] is False
    summer = m3("W1", 2, poor=True)  # 4 → S2
    assert summer.outcome["round"] == "S2" and summer.outcome["bad_weather"] is False


def test_winter_after_an_unmodified_1_with_poor_weather_freezes_the_sund():
    r = m3("S4", 1, poor=True)  # 3 → red → W4
    assert r.outcome["round"] == "W4" and r.outcome["sund_frozen"] is True
    assert [e.marker for e in r.effects if e.kind == "marker_placed"] == ["Sund frozen"]
    assert m3("S4", 1, poor=False).outcome["sund_frozen"] is False


def test_end_box_stops_the_rounds_and_winters():
    r = m3("W4", 10)
    assert r.outcome["rounds_end"] is True and r.outcome["wintering"] is True
    assert r.outcome["next"] == "Wintering, then Military cleanup"
    assert r.outcome["bad_weather"] is False


def test_modified_rolls_are_clamped_to_the_printed_arrows():
    r = m3("W2", 10, poor=True)  # 12 reads as 10
    assert r.total == 12 and r.outcome["round"] == "S4"
    r = m3("S1", 1, period="VII")  # 0 reads as 1: red arrow
    assert r.total == 0 and r.outcome["round"] == "W1" and r.outcome["extended_campaign"] is True


def test_wintering_when_the_year_changes():
    assert m3("W1", 5).outcome["wintering"] is True  # → S2
    assert m3("W1", 8).outcome["wintering"] is True  # → W2
    assert m3("S1", 8).outcome["wintering"] is True  # → S2
    assert m3("S1", 2).outcome["wintering"] is False  # → W1


@settings(max_examples=200)
@given(st.sampled_from(BOXES), st.integers(1, 10), st.sampled_from(["I", "IV", "VI", "VII"]), st.booleans())
def test_continuation_invariants(previous, die, period, poor):
    r = m3(previous, die, period, poor)
    assert r.total == die + sum(m.value for m in r.modifiers)
    new = r.outcome["round"]
    order = BOXES + ["End"]
    assert order.index(new) > order.index(previous)  # the track only moves forward
    assert r.outcome["extended_campaign"] == (previous[0] == "S" and new[0] == "W")
    r.model_dump(mode="json")


@given(st.sampled_from([b for b in BOXES if b.startswith("S")]), st.integers(1, 9))
def test_summer_arrow_is_monotonic_in_the_die(previous, die):
    low, high = m3(previous, die), m3(previous, die + 1)
    assert BOXES.__add__(["End"]).index(low.outcome["round"]) <= (BOXES + ["End"]).index(high.outcome["round"])


def test_box_year_counts_end_as_6():
    assert rounds.box_year("End") == 6 and rounds.box_year("W3") == 3


# --------------------------------------------------------------------------- M4


def m4(dice, **inputs):
    return EU.get("M4").resolve(inputs, FixedDice(dice))


def test_no_wintering_within_the_same_year():
    r = m4([], previous_round="S2", new_round="W2", cold_area_stacks=[{"attrition": {"ld": 3, "causes": 1}}])
    assert r.outcome["wintering"] is False and r.steps == () and r.all_dice() == []


def test_wintering_rolls_cold_area_attrition_as_a_supply_attrition_only_outside_controlled_or_national_provinces():
    r = m4(
        [9, 5],
        previous_round="W1",
        new_round="S2",
        cold_area_stacks=[
            {"attrition": {"stack": "RUS-1", "ld": 6, "causes": 1, "technology": "MUS", "p_choice": "ld"}},
            {"controlled_or_national_province": True, "attrition": {"stack": "SUE-1", "ld": 2, "causes": 1}},
        ],
    )
    assert r.outcome["cold_area_rolled"] == ["RUS-1"] and r.outcome["cold_area_skipped"] == ["SUE-1"]
    step = r.steps[0]
    # M6: 9 + 2 (massed forces, more than 5 LD) = 11 → Europe ≥6 LD column "2+P"
    assert step.total == 11 and step.table_cell.value == "2+P"
    assert sum(e.amount for e in r.effects if e.kind == "ld_lost") == 3


def test_wintering_at_end_counts_as_s6():
    r = m4([], previous_round="S5", new_round="End", wounded_leaders=["Tilly"], redeploying_countries=["FRA"])
    assert r.outcome["wintering"] is True and r.outcome["year"] == 6 and r.outcome["next"] == "Military cleanup"
    assert [e.detail for e in r.effects if e.target == "Tilly"] == [{"wounded_leader_returns": True}]
    assert [e.country for e in r.effects if "leader_redeployment" in e.detail] == ["FRA"]


def test_wintering_pashas_attrition_is_gm_supplied():
    r = m4([], previous_round="W2", new_round="S3", pasha_stacks=[{"stack": "TUR-2", "gm_reading": "1 LD lost"}])
    assert r.gm_supplied == ("pashas attrition of TUR-2: 1 LD lost",)


def test_wintering_rejects_a_new_round_before_the_previous_one():
    with pytest.raises(ValueError, match="new_round"):
        m4([], previous_round="S3", new_round="W2")
