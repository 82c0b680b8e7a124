"""pfc:C6 weather (pf-cohesion-wargame-tables.fr.txt, TABLE MÉTÉO) and the Rain★ → Mud carry-over."""

import pytest
from hypothesis import given, settings, strategies as st

from ledger.rules.core import FixedDice, get_ruleset

C6 = get_ruleset("pfc").get("C6")

# As printed: modified die ("1 et -" … "6 et +") → Jan-Mar, Apr-Jun, Jul-Sep, Oct-Dec.
TABLE = {
    1: ["Clair", "Clair", "Clair", "Clair"],
    2: ["Clair", "Clair", "Clair", "Clair"],
    3: ["Clair", "Clair", "Clair", "Clair"],
    4: ["Pluie *", "Clair", "Clair", "Pluie *"],
    5: ["Neige", "Pluie", "Clair", "Pluie *"],
    6: ["Neige", "Pluie *", "Pluie", "Neige"],
}
FR = {"Clair": "clear", "Pluie": "rain", "Pluie *": "rain", "Neige": "snow"}
# +1 in January, February, April, September, December; −1 in March, June, July.
MONTH_MODIFIER = {1: 1, 2: 1, 3: -1, 4: 1, 5: 0, 6: -1, 7: -1, 8: 0, 9: 1, 10: 0, 11: 0, 12: 1}


@pytest.mark.parametrize("month,mod", MONTH_MODIFIER.items())
def test_weather_month_modifiers(month, mod):
    r = C6.resolve({"month": month}, FixedDice([3]))
    assert sum(m.value for m in r.modifiers) == mod and len(r.modifiers) == (1 if mod else 0)
    assert r.total == 3 + mod


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("month", range(1, 13))
def test_weather_table_every_month_and_die(month, die):
    r = C6.resolve({"month": month}, FixedDice([die]))
    row = max(1, min(6, die + MONTH_MODIFIER[month]))
    printed = TABLE[row][(month - 1) // 3]
    assert r.outcome["weather"] == FR[printed]
    assert r.outcome["rain_star"] is (printed == "Pluie *")
    assert r.outcome["carry"] == {"forced_mud": printed == "Pluie *"}
    assert r.table_cell.value == printed


def test_weather_rain_star_in_january_then_mud_without_a_die():
    first = C6.resolve({"month": 1}, FixedDice([3]))  # 3 + 1 = 4 → Pluie *
    assert first.outcome["weather"] == "rain" and first.outcome["carry"] == {"forced_mud": True}
    dice = FixedDice([6])
    second = C6.resolve({"month": 2, **first.outcome["carry"]}, dice)
    assert second.outcome["weather"] == "mud" and second.outcome["forced"] is True
    assert second.dice == () and dice.unused == 1
    assert second.outcome["carry"] == {"forced_mud": False}
    third = C6.resolve({"month": 3, **second.outcome["carry"]}, FixedDice([6]))  # back to the die: 6 − 1 = 5
    assert third.outcome["weather"] == "snow" and len(third.dice) == 1


def test_weather_plain_rain_does_not_force_mud():
    r = C6.resolve({"month": 8}, FixedDice([6]))  # Jul-Sep 6 → Pluie (no star)
    assert r.outcome["weather"] == "rain" and r.outcome["carry"] == {"forced_mud": False}


def test_weather_procedure_declares_the_carried_field():
    assert C6.carry == ("forced_mud",)


def test_weather_extreme_rows_are_1_or_less_and_6_or_more():
    assert C6.resolve({"month": 3}, FixedDice([1])).table_cell.row == "1-"
    r = C6.resolve({"month": 12}, FixedDice([6]))
    assert r.total == 7 and r.table_cell.row == "6+" and r.outcome["weather"] == "snow"


@pytest.mark.parametrize("month", [0, 13])
def test_weather_month_out_of_range_is_rejected(month):
    with pytest.raises(ValueError):
        C6.resolve({"month": month}, FixedDice([3]))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.booleans(), st.integers(1, 6))
def test_weather_invariants(month, forced, die):
    r = C6.resolve({"month": month, "forced_mud": forced}, FixedDice([die]))
    if forced:
        assert r.outcome["weather"] == "mud" and r.dice == ()
    else:
        assert r.total == die + sum(m.value for m in r.modifiers)
    assert r.outcome["carry"]["forced_mud"] is r.outcome["rain_star"]
