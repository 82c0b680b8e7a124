"""The game master's setup pages in a real browser (issues 36 and 37): a country's facts set from a form
prefilled with what the ledger holds, a refused manufacture said beside its field, a trade fleet recorded and
shown; a leader given his printed values from a form showing those the map holds, and a stack disbanded."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def test_the_game_master_sets_a_countrys_facts_and_a_trade_fleet_from_prefilled_forms(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/gm")
    page.locator("#countries-link").click()
    page.locator("#choose-country-select").select_option("FRA")
    page.locator("#choose-country button").click()
    page.wait_for_url(re.compile(r"/countries\?country=FRA"))
    page.locator("#country-facts-land_technology").select_option("REN")
    page.locator("#country-facts-domestic_trade_index").fill("3")
    page.locator("#country-facts-manufactures").fill("Wine in Cauxx, level 1, income 4")
    page.locator("#form-country-facts button[type=submit]").click()
    error = page.locator("#error-country-facts-manufactures")
    expect(error).to_contain_text("did you mean 'Caux'")
    expect(page.locator("#country-facts-domestic_trade_index")).to_have_value("3")  # what was typed, kept
    site.shot(page, "setup-facts-refused")
    page.locator("#country-facts-manufactures").fill("Wine in Caux, level 1, income 4")
    page.locator("#form-country-facts button[type=submit]").click()
    page.wait_for_url(re.compile(r"/countries\?country=FRA&recorded=\d+"))
    expect(page.locator("#recorded")).to_contain_text("FRA: land technology REN; domestic trade index 3")
    # The form now shows the facts as the ledger holds them.
    expect(page.locator("#country-facts-land_technology")).to_have_value("REN")
    expect(page.locator("#country-facts-manufactures")).to_have_value("Wine in Caux, level 1, income 4")

    page.locator("#trade-fleet-zone").fill("STZ Canarias")
    page.locator("#trade-fleet-level").fill("2")
    page.locator("#form-trade-fleet button[type=submit]").click()
    page.wait_for_url(re.compile(r"recorded=\d+"))
    expect(page.locator("#trade-rows")).to_contain_text("STZ Canarias")
    page.locator("#trade-rows a", has_text="change").first.click()
    expect(page.locator("#trade-fleet-level")).to_have_value("2")
    site.shot(page, "setup-facts-recorded")


def test_the_game_master_gives_a_leader_his_values_and_disbands_a_stack(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/stacks")
    page.locator("#stacks a", has_text="Talbot").click()
    for field, value in (("fire", "2"), ("shock", "3"), ("manoeuvre", "3"), ("siege", "1")):
        expect(page.locator(f"#leader-values-{field}")).to_have_value(value)  # as the map holds them
    page.locator("#leader-values-fire").fill("3")
    page.locator("#leader-values-reason").fill("misread at the raising")
    site.shot(page, "setup-leader-values")
    page.locator("#form-leader-values button[type=submit]").click()
    page.wait_for_url(re.compile(r"/stacks\?recorded=\d+"))
    expect(page.locator("#recorded")).to_contain_text("Talbot")
    expect(page.locator("#stack-ENG-1")).to_contain_text("Talbot 3/3/3/1")

    page.locator("#stack-ENG-F1 a", has_text="disband").click()
    expect(page.locator("#disband-stack")).to_have_value("ENG-F1")
    page.locator("#disband-reason").fill("laid up for the winter")
    page.locator("#form-disband button[type=submit]").click()
    page.wait_for_url(re.compile(r"/stacks\?recorded=\d+"))
    expect(page.locator("#recorded")).to_contain_text("ENG-F1")
    expect(page.locator("#stack-ENG-F1")).to_have_count(0)
    site.shot(page, "setup-stack-disbanded")
