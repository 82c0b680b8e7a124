"""Issue 39, rules fidelity: a procedure's countries are the right kind of the board's (a seed's "minor" is never
a major power), and a near miss of a closed vocabulary's name is answered with the name meant, in plain words
(DECISIONS.md "Names — a seed's minor and major are the board's country types", "P5 — the minor is never a
major power; the player is one", "Names — countries, minors, trade zones and technologies are closed
vocabularies")."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ledger.board import close_names, did_you_mean, load_board
from ledger.domain.errors import first_error
from ledger.rules.core import FixedDice, get_ruleset
from ledger.rules.eu.vocabularies import MAJOR_TYPES, MINOR_TYPES

EU = get_ruleset("eu")
P5 = {"player": "FRA", "level": 0}


def refusal(code: str, inputs: dict) -> tuple[str | None, str]:
    with pytest.raises(ValidationError) as e:
        EU.get(code).inputs.model_validate(inputs)
    return first_error(e.value)


@pytest.mark.parametrize("typed", ["france", "FRA", "France", "angleterre", "espagne", "turquie", "russie", "prusse"])
def test_p5_peace_with_a_major_power_is_refused_naming_the_minor(typed):
    field, why = refusal("P5", {**P5, "minor": typed})
    assert field == "minor"
    assert "is a major power on the board, not a minor" in why


def test_p5_minors_are_the_boards_minors_never_a_major_a_habsburg_holding_or_a_virtual_country():
    board = load_board("eu")
    enum = set(EU.get("P5").input_schema()["properties"]["minor"]["enum"])
    by_name = {("egypte" if c.code == "MAM" else c.name): c for c in board.countries.values()}
    assert enum == {n for n, c in by_name.items() if c.type in MINOR_TYPES}
    assert {"venise", "pologne", "habsbourg", "portugal", "chine", "japon", "mogol", "grenade", "savoie"} <= enum
    assert not enum & {"france", "angleterre", "espagne", "turquie", "russie", "prusse", "Hboheme", "rebelles"}
    # Every minor of the seed's nationality list is one.
    from ledger.rules.eu.peace import peace_data
    assert set(peace_data()["minor"]["nationality"]) <= enum


def test_p5_the_player_proposing_the_peace_is_a_major_power():
    field, why = refusal("P5", {**P5, "minor": "venise", "player": "SAV"})
    assert (field, why) == ("player", "Savoy (SAV) is a minor on the board, not a major power")
    ruling = EU.get("P5").resolve({**P5, "minor": "savoie", "player": "VEN"}, FixedDice([6]))
    assert ruling.inputs["player"] == "VEN" and ruling.outcome["signed"]  # a minormajor played as a major


def test_p5_venisse_is_answered_did_you_mean_venise_in_plain_words():
    field, why = refusal("P5", {**P5, "minor": "Venisse"})
    assert (field, why) == ("minor", "unknown minor 'Venisse': did you mean venise?")
    assert "validation error" not in why and "Value error" not in why and "aceh" not in why


def test_i5_stz_lino_is_answered_did_you_mean_stz_lion():
    field, why = refusal("I5", {"fleets": [{"zone": "STZ Lino", "country": "FRA", "fleets": 1}]})
    assert (field, why) == ("fleets.0.zone", "unknown trade zone 'STZ Lino': did you mean STZ Lion?")


@pytest.mark.parametrize("code, inputs, field, said", [
    ("E1", {"country": "Frnace", "adm": 5, "stability": 0}, "country", "unknown country 'Frnace': did you mean FRA (france)?"),
    ("M12", {"nd": 2, "zones": [{"difficulty": 0}], "zones_entered": 1, "technology": "Carack"}, "technology",
     "unknown naval technology 'Carack': did you mean CAR (Carrack)?"),
    ("M6", {"ld": 2, "causes": 1, "technology": "XYZ"}, "technology",
     "unknown land technology 'XYZ': one of MED, REN, ARQ, MUS, BAR, MAN, L"),
    ("E1", {"country": "Qqqqq", "adm": 5, "stability": 0}, "country",
     "unknown country 'Qqqqq': not one of the 119 this input knows (its schema lists them)"),
])
def test_every_closed_vocabulary_says_the_closest_names_or_what_it_knows(code, inputs, field, said):
    assert refusal(code, inputs) == (field, said)


def test_the_one_did_you_mean_puts_the_closest_first_and_drops_names_far_behind_it():
    places = load_board("eu").places
    assert close_names("Normandy", places) == ["Normandie"]
    assert did_you_mean("Picardy", places) == "; did you mean 'Picardie'?"
    assert did_you_mean("Venisse", ["venise", "hesse"], quote=False, lead=": ") == ": did you mean venise?"
    # A spelling close to an alias proposes the name it stands for, saying which alias it was close to.
    assert close_names("Venicce", ["venise"], {"venise": ["VEN", "Venice"]}) == ["venise (Venice)"]
    assert close_names("Zzzz", places) == []


@pytest.mark.parametrize("status, country, controller, why", [
    ("minor_at_war", "FRA", "SPA", "FRA is a major power on the board, not a minor"),
    ("major", "SAV", None, "SAV is a minor on the board, not a major power"),
    ("minor_at_war", "GEN", "SAV", "Savoy (SAV) is a minor on the board, not a major power"),
])
def test_m8_a_minors_campaign_is_a_minors_and_its_controller_a_major_power(status, country, controller, why):
    inputs = {"country": country, "land": "active", "country_status": status,
              **({"controller": controller} if controller else {})}
    assert why in refusal("M8", inputs)[1]


def test_i2_a_majors_ransom_is_a_major_powers_monarch_and_a_minors_a_minors():
    assert "Savoy" not in refusal("I2", {"monarch_of": "SAV", "captor": "FRA", "power": "major", "stability": 0})[1]
    assert "SAV is a minor on the board, not a major power" in refusal(
        "I2", {"monarch_of": "SAV", "captor": "FRA", "power": "major", "stability": 0})[1]
    assert "ENG is a major power on the board, not a minor" in refusal(
        "I2", {"monarch_of": "ENG", "captor": "FRA", "power": "minor"})[1]


def test_m17_and_p4_name_a_major_power_where_the_seed_says_major():
    assert "is a minor on the board, not a major power" in refusal(
        "M17", {"corsair_owner": "minor", "controller": "SAV", "convoy_ntd": 2})[1]
    assert refusal("P4", {"pd": 1, "dominant": "a", "majors": [
        {"country": "Savoie", "side": "b", "capitals_controlled_by_enemy": False, "national_provinces": 3,
         "national_provinces_controlled_by_enemy": 0}]})[0] == "majors.0.country"


def test_the_kinds_are_the_boards_types():
    types = {c.type for c in load_board("eu").countries.values()}
    assert set(MINOR_TYPES) | set(MAJOR_TYPES) < types
    assert set(MINOR_TYPES) & set(MAJOR_TYPES) == {"minormajor"}
