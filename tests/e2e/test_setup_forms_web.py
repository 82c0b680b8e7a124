"""The game master's setup forms on the web page (issues 36 and 37): a country's facts the income lines read
(technologies, domestic trade index, vassals, manufactures, mines), its trade fleets, trade centres, colonies,
trading posts and missions, a stack disbanded and a leader given his printed values. Each form is prefilled
with what the write side holds, is read into the command the JSON route takes, and is refused as that route
refuses it: beside the field, in the page's words, what was typed kept, nothing appended."""

from __future__ import annotations

import html
import re

import pytest

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.sample import GM
from tests.e2e.test_gm_forms_web import CID, assert_in_page_words, error_beside, gm, player, sample, text_of  # noqa: F401

PAGE = "/ui/campaigns/sample"


def post(c, csrf: str, path: str, **fields: str):
    return c.post(f"{PAGE}/{path}", data={"csrf": csrf, **fields}, follow_redirects=False)


def appended(ledger, before: int) -> list:
    return ledger.history(CID, after=before)


def selected(page: str, select_id: str) -> str:
    [block] = re.findall(rf'<select name="[^"]+" id="{re.escape(select_id)}">(.*?)</select>', page, flags=re.S)
    [value] = re.findall(r'<option value="([^"]*)" selected>', block)
    return value


def field_value(page: str, field_id: str) -> str:
    [value] = re.findall(rf'id="{re.escape(field_id)}" value="([^"]*)"', page)
    return html.unescape(value)


# ------------------------------------------------------------------ a country's facts


def test_the_setup_form_is_prefilled_with_the_facts_the_income_lines_read(settings, sample):
    sample.handle(CID, cmd.build(cmd.SetCountryFacts, country="FRA", land_technology="Medieval",
                                 domestic_trade_index=4, vassals=["ENG"],
                                 manufactures=[{"resource": "Wine", "province": "Caux", "income": 4}]), actor=GM)
    c, _ = gm(settings, sample)
    page = c.get(f"{PAGE}/countries?country=FRA").text
    assert selected(page, "country-facts-land_technology") == "MED"
    assert selected(page, "country-facts-naval_technology") == ""  # not set: said so
    assert field_value(page, "country-facts-domestic_trade_index") == "4"
    assert field_value(page, "country-facts-vassals") == "ENG"
    assert "Wine in Caux, level 1, income 4</textarea>" in page
    assert_in_page_words(page)
    assert 'href="/ui/campaigns/sample/countries"' in c.get(f"{PAGE}/gm").text  # offered from the desk


def test_the_setup_form_records_only_the_facts_changed_with_the_json_routes_command(settings, sample):
    sample.handle(CID, cmd.build(cmd.SetCountryFacts, country="FRA", land_technology="MED",
                                 domestic_trade_index=4), actor=GM)
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = post(c, csrf, "countries/country-facts", key="f1", country="FRA", land_technology="REN",
             naval_technology="", domestic_trade_index="4", vassals="", manufactures="wine in Caux, level 1, income 4",
             mines="", depleted_mines="", reason="setup of FRA")
    assert r.status_code == 303, text_of(r.text)[:600]
    [facts] = appended(sample, before)
    # The domestic trade index shown and left as it is is not set again; the manufacture typed is.
    assert isinstance(facts, ev.CountryFactsSet) and facts.country == "FRA"
    assert facts.facts == {"land_technology": "REN",
                           "manufactures": [{"resource": "Wine", "province": "Caux", "level": 1, "income": 4}]}
    assert facts.reason == "setup of FRA"
    page = c.get(r.headers["location"]).text
    assert f"Recorded at position {facts.originator_version}" in text_of(page)
    assert selected(page, "country-facts-land_technology") == "REN"


@pytest.mark.parametrize("fields, field, words", [
    ({"manufactures": "Wine in Cauxx, level 1, income 4"}, "manufactures", "Caux"),  # did you mean
    ({"manufactures": "Wine at Caux"}, "manufactures", "“Wine in Caux, level 1, income 4”"),
    ({"manufactures": "Gold in Caux, level 1, income 4"}, "manufactures", "Metal"),
    ({"vassals": "Navarre"}, "vassals", "capital letters"),
    ({"vassals": "FRA"}, "vassals", "cannot be its own vassal"),
    ({"domestic_trade_index": "9"}, "domestic_trade_index", "at most 5"),
    ({"domestic_trade_index": "three"}, "domestic_trade_index", "not a whole number"),
    ({"land_technology": "Laser"}, "land_technology", "unknown land technology"),
    ({"mines": "Elmina two"}, "mines", "Elmina: 2"),
    ({"depleted_mines": "Kent"}, "depleted_mines", "unknown gold province"),
    ({}, "land_technology", "change at least one fact"),
])
def test_a_refused_fact_is_said_beside_its_field_and_nothing_is_appended(settings, sample, fields, field, words):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    posted = {"country": "FRA", "land_technology": "", "naval_technology": "", "domestic_trade_index": "",
              "vassals": "", "manufactures": "", "mines": "", "depleted_mines": "", "reason": "setup", **fields}
    r = post(c, csrf, "countries/country-facts", **posted)
    assert r.status_code in (409, 422), text_of(r.text)[:400]
    assert words in error_beside(r.text, "country-facts", field), re.findall(r"error[^<]+", r.text)
    assert_in_page_words(r.text)
    if field in ("vassals", "mines", "depleted_mines", "domestic_trade_index"):
        assert field_value(r.text, f"country-facts-{field}") == posted[field]  # what was typed, kept
    assert sample.campaign(CID).version == before


# ------------------------------------------------------------------ trade and the rest of the world


def test_a_trade_fleet_is_recorded_and_its_change_form_shows_its_level(settings, sample):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = post(c, csrf, "countries/trade-fleet", country="ENG", zone="ZMCanarias", level="3", reason="trade fleet")
    assert r.status_code == 303, text_of(r.text)[:600]
    [fleet] = appended(sample, before)
    assert isinstance(fleet, ev.TradeFleetChanged) and (fleet.country, fleet.zone, fleet.level) == (
        "ENG", "STZ Canarias", 3)
    page = c.get(f"{PAGE}/countries?country=ENG").text
    assert "Trade fleet STZ Canarias level 3" in text_of(page)
    page = c.get(f"{PAGE}/countries?country=ENG&zone=STZ%20Canarias").text
    assert (field_value(page, "trade-fleet-zone"), field_value(page, "trade-fleet-level")) == ("STZ Canarias", "3")


@pytest.mark.parametrize("form, fields, field, words", [
    ("trade-fleet", {"zone": "STZ Canaria", "level": "3"}, "zone", "STZ Canarias"),
    ("trade-fleet", {"zone": "STZ Canarias", "level": "7"}, "level", "at most 6"),
    ("trade-fleet", {"zone": "STZ Canarias", "level": ""}, "level", "type the level"),
    ("trade-centre", {"centre": "atlantic", "holder": "ENG", "income": "120"}, "income", "Great Orient"),
    ("trade-centre", {"centre": "atlantic", "holder": "ENGX"}, "holder", "did you mean 'ENG'"),
    ("establishment", {"kind": "colony", "place": "Cabo Verde", "level": "2"}, "place", "Cabo Verde~I"),
    ("establishment", {"kind": "trading_post", "place": "Cabo Verde~I", "level": "2", "gold": "yes"}, "gold",
     "only a colony"),
    ("establishment", {"kind": "colony", "place": "Cabo Verde~I", "level": "2", "exploits": "gold: 2"}, "exploits",
     "sl"),
    ("mission", {"place": "Amerique", "present": "yes"}, "place", "America~C"),
])
def test_a_refused_trade_fact_is_said_beside_its_field_and_nothing_is_appended(settings, sample, form, fields,
                                                                               field, words):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = post(c, csrf, f"countries/{form}", country="ENG", reason="setup", **fields)
    assert r.status_code in (404, 409, 422), text_of(r.text)[:400]
    assert words in error_beside(r.text, form, field), re.findall(r"error[^<]+", r.text)
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == before


def test_a_second_face_plus_fleet_in_a_zone_is_refused_as_the_json_route_refuses_it(settings, sample):
    c, csrf = gm(settings, sample)
    assert post(c, csrf, "countries/trade-fleet", country="ENG", zone="STZ Nord", level="4",
                reason="monopoly").status_code == 303
    before = sample.campaign(CID).version
    r = post(c, csrf, "countries/trade-fleet", country="FRA", zone="STZ Nord", level="5", reason="monopoly")
    assert r.status_code == 409
    assert "ENG" in error_beside(r.text, "trade-fleet", "level")
    assert sample.campaign(CID).version == before


def test_a_trade_centre_a_colony_and_a_mission_are_recorded_and_shown_prefilled(settings, sample):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    assert post(c, csrf, "countries/trade-centre", country="ENG", centre="atlantic", holder="eng",
                province="Kent", income="", reason="I5").status_code == 303
    assert post(c, csrf, "countries/establishment", country="ENG", kind="colony", place="Cabo Verde~I", level="2",
                exploits="fish: 1", gold="no", reason="founded").status_code == 303
    assert post(c, csrf, "countries/mission", country="ENG", place="America~C", present="yes",
                reason="founded").status_code == 303
    centre, colony, mission = appended(sample, before)
    assert (centre.centre, centre.holder, centre.province) == ("atlantic", "ENG", "Kent")
    assert (colony.kind, colony.place, colony.level, colony.exploits) == ("colony", "Cabo Verde~I", 2, {"fish": 1})
    assert (mission.place, mission.present) == ("America~C", True)
    shown = text_of(c.get(f"{PAGE}/countries?country=ENG").text)
    assert "Colony Cabo Verde~I level 2, 1 Fish" in shown and "Mission America~C founded" in shown
    assert "Trade centre Atlantic in Kent held" in shown and "Atlantic by ENG" in shown
    page = c.get(f"{PAGE}/countries?country=ENG&kind=colony&place=Cabo%20Verde~I").text
    assert (field_value(page, "establishment-level"), field_value(page, "establishment-exploits")) == ("2", "fish: 1")
    page = c.get(f"{PAGE}/countries?country=ENG&place=America~C").text
    assert selected(page, "mission-present") == "no"  # founded: the form offers to record it gone
    page = c.get(f"{PAGE}/countries?country=FRA&centre=atlantic").text
    assert field_value(page, "trade-centre-holder") == "ENG"


# ------------------------------------------------------------------ stacks and leaders


def test_a_stack_is_disbanded_from_the_stacks_page(settings, sample):
    c, csrf = gm(settings, sample)
    page = c.get(f"{PAGE}/stacks?stack=FRA-1").text
    assert selected(page, "disband-stack") == "FRA-1"
    assert "FRA-1 disband Normandie 5 LD La Trémoille 2/2/4/1" in text_of(page)
    before = sample.campaign(CID).version
    r = post(c, csrf, "stacks/disband", key="d1", stack="FRA-1", reason="disbanded for the winter")
    assert r.status_code == 303, text_of(r.text)[:600]
    [gone] = appended(sample, before)
    assert isinstance(gone, ev.StackDisbanded) and (gone.stack, gone.reason) == ("FRA-1", "disbanded for the winter")
    page = c.get(r.headers["location"]).text
    assert "FRA-1" not in re.sub(r'<p class="card" id="recorded".*?</p>', "", page, flags=re.S)
    # Again (a stale page): refused beside the stack, in words, nothing appended.
    head = sample.campaign(CID).version
    r = post(c, csrf, "stacks/disband", stack="FRA-1", reason="again")
    assert r.status_code in (404, 409, 422) and "FRA-1" in error_beside(r.text, "disband", "stack")
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == head


def test_a_leaders_values_form_shows_his_values_and_records_only_those_changed(settings, sample):
    c, csrf = gm(settings, sample)
    page = c.get(f"{PAGE}/stacks?leader=Talbot").text
    assert [field_value(page, f"leader-values-{k}") for k in ("fire", "shock", "manoeuvre", "siege")] == [
        "2", "3", "3", "1"]
    before = sample.campaign(CID).version
    r = post(c, csrf, "stacks/leader-values", key="l1", leader="Talbot", fire="3", shock="3", manoeuvre="3",
             siege="1", reason="misread at setup")
    assert r.status_code == 303, text_of(r.text)[:600]
    [changed] = appended(sample, before)
    assert isinstance(changed, ev.LeaderValuesChanged)
    assert (changed.leader, changed.values, changed.previous) == ("Talbot", {"fire": 3}, {"fire": 2})
    page = c.get(f"{PAGE}/stacks?leader=Talbot").text
    assert field_value(page, "leader-values-fire") == "3"


@pytest.mark.parametrize("fields, field, words", [
    ({"fire": "2", "shock": "3", "manoeuvre": "3", "siege": "1"}, "fire", "change at least one"),
    ({"fire": "12"}, "fire", "at most 9"),
    ({"siege": "x"}, "siege", "not a whole number"),
    ({"leader": "Talbott", "fire": "3"}, "leader", "Talbot"),
])
def test_a_refused_leader_value_is_said_beside_its_field(settings, sample, fields, field, words):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = post(c, csrf, "stacks/leader-values", **{"leader": "Talbot", "reason": "values", **fields})
    assert r.status_code in (404, 409, 422), text_of(r.text)[:400]
    assert words in error_beside(r.text, "leader-values", field), re.findall(r"error[^<]+", r.text)
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == before


# ------------------------------------------------------------------ who may


@pytest.mark.parametrize("path, form", [("countries/country-facts", {"country": "FRA", "land_technology": "REN"}),
                                        ("countries/trade-fleet", {"country": "FRA", "zone": "STZ Nord", "level": "1"}),
                                        ("stacks/disband", {"stack": "FRA-1"}),
                                        ("stacks/leader-values", {"leader": "La Trémoille", "fire": "5"})])
def test_a_player_is_neither_offered_nor_allowed_the_setup_forms(settings, sample, path, form):
    c, csrf = player(settings, sample)
    page = path.split("/")[0]
    assert c.get(f"{PAGE}/{page}").status_code == 403
    before = sample.campaign(CID).version
    r = post(c, csrf, path, reason="mine", **form)
    assert r.status_code == 403
    assert sample.campaign(CID).version == before


def test_a_forged_csrf_token_is_refused_and_nothing_is_appended(settings, sample):
    c, _ = gm(settings, sample)
    before = sample.campaign(CID).version
    r = post(c, "forged", "stacks/disband", stack="FRA-1", reason="x")
    assert r.status_code == 403 and "CSRF" in text_of(r.text)
    assert sample.campaign(CID).version == before


# ------------------------------------------------------------------ the income readings in the settings form


def test_an_income_reading_is_chosen_from_the_settings_form_and_a_wrong_one_said_beside_it(settings, sample):
    c, csrf = gm(settings, sample)
    page = c.get(f"{PAGE}/gm").text
    assert 'name="option.B31.payer"' in page and 'name="option.B3.besieged"' in page
    assert "B31 " in text_of(page) and "the ruleset reads controller" in text_of(page)
    before = sample.campaign(CID).version
    r = post(c, csrf, "gm/settings", **{"option.B31.payer": "owner", "option.B3.besieged": "no",
                                        "reason": "the owner pays its fortresses"})
    assert r.status_code == 303, text_of(r.text)[:600]
    [changed] = appended(sample, before)
    assert changed.changed == {"rules_options": {"B31.payer": "owner", "B3.besieged": False}}
    head = sample.campaign(CID).version
    r = post(c, csrf, "gm/settings", **{"option.B31.payer": "nobody", "reason": "typed"})
    assert r.status_code == 422
    assert error_beside(r.text, "settings", "option.B31.payer") == "one of controller, owner, not 'nobody'"
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == head


def test_the_income_page_says_the_reading_a_line_was_worked_out_with(settings, ledger):
    from ledger import tokens
    from ledger.domain.campaign import campaign_id
    from ledger.sample import reach_phase
    from tests.e2e.test_gm_forms_web import client

    cid = campaign_id("europa")
    ledger.handle(cid, cmd.build(cmd.CreateCampaign, slug="europa", name="Europa", scenario="eu-1492"), actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "incomes")
    ledger.handle(cid, cmd.build(cmd.ChangeSettings, settings={"rules_options": {"B7.mine_value": 30}},
                                 reason="our table pays 30 a mine"), actor=GM)
    _, token = tokens.issue_token(ledger, cid, role="gm", holder="gina", actor=GM)
    c, _ = client(settings, ledger, token)
    shown = text_of(c.get("/ui/campaigns/europa/income?country=POR").text)
    assert "reading mine value: 30 (the campaign's setting; the ruleset reads 20)" in shown
    assert_in_page_words(c.get("/ui/campaigns/europa/income?country=POR").text)
