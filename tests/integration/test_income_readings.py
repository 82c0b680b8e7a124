"""The readings of the income lines chosen in a campaign's settings (issue 36; DECISIONS.md "Income worked out
from the map"): a game master sets one beside the procedures' options, it is checked against the ruleset's
data, recorded in the settings event, and the line it changes says so in its lineage, up to the confirmation."""

from __future__ import annotations

import pytest

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput
from ledger.economy import income
from ledger.sample import GM, reach_phase

CID = campaign_id("europa")


@pytest.fixture
def europa(ledger):
    """The 1492 placement (Portugal with Elmina's two mines), turn 1 in its incomes phase."""
    ledger.handle(CID, cmd.build(cmd.CreateCampaign, slug="europa", name="Europa", scenario="eu-1492"), actor=GM)
    ledger.open_turn(CID, actor=GM)
    reach_phase(ledger, CID, "incomes")
    return ledger


def b7(ledger):
    [line] = [x for x in income.proposals(ledger.campaign(CID), ["POR"], income.options_of(ledger.campaign(CID)))[
        "POR"].lines if x.code == "B7"]
    return line


def test_two_elmina_mines_bring_40_and_a_mine_value_chosen_in_the_settings_brings_its_own(europa):
    assert b7(europa).amount == 40  # engIncomes.tex: two Elmina mines at 20 ducats
    europa.handle(CID, cmd.build(cmd.ChangeSettings, settings={"rules_options": {"B7.mine_value": 30}},
                                 reason="our table pays 30 a mine"), actor=GM)
    [changed] = europa.history(CID)[-1:]
    assert isinstance(changed, ev.CampaignSettingsChanged)
    assert changed.changed == {"rules_options": {"B7.mine_value": 30}}
    line = b7(europa)
    assert line.amount == 60 and line.amount == sum(s.amount for s in line.lineage)
    [said] = [s for s in line.lineage if s.kind == "reading"]
    assert income.source_words(said) == ("reading mine value: 30 (the campaign's setting; the ruleset reads 20)")
    assert "reading mine value: 30" in income.lineage_words(line)


def test_a_reading_with_choices_and_a_procedures_option_are_chosen_together_and_kept_apart(europa):
    europa.handle(CID, cmd.build(cmd.ChangeSettings, settings={"rules_options": {
        "B31.payer": "owner", "M21.artillery_source": "tables"}}, reason="house rules"), actor=GM)
    chosen = europa.campaign(CID).settings["rules_options"]
    assert chosen == {"B31.payer": "owner", "M21.artillery_source": "tables"}
    assert income.options_of(europa.campaign(CID)) == {"B31.payer": "owner"}


@pytest.mark.parametrize("chosen, words", [
    ({"B31.payer": "nobody"}, "B31.payer: one of controller, owner, not 'nobody'"),
    ({"B7.mine_value": "30"}, "a whole number, 0 or more"),
    ({"B7.mine_value": -5}, "a whole number, 0 or more"),
    ({"B3.besieged": "no"}, "yes or no"),
    ({"B19.prices": {"sl": "two"}}, "names, each with a whole number"),
    ({"B99.mine_value": 3}, "is not a ruleset option of eu"),
])
def test_a_reading_the_ruleset_does_not_have_is_refused_naming_it_and_nothing_is_appended(europa, chosen, words):
    before = europa.campaign(CID).version
    with pytest.raises(InvalidInput) as refused:
        europa.handle(CID, cmd.build(cmd.ChangeSettings, settings={"rules_options": chosen}, reason="x"), actor=GM)
    assert words in refused.value.message
    assert refused.value.field == f"settings.rules_options.{next(iter(chosen))}"
    assert europa.campaign(CID).version == before


def test_the_confirmed_line_records_the_reading_it_was_worked_out_with(europa):
    europa.handle(CID, cmd.build(cmd.ChangeSettings, settings={"rules_options": {"B7.mine_value": 30}},
                                 reason="our table pays 30 a mine"), actor=GM)
    at = europa.campaign(CID).version
    europa.handle(CID, cmd.build(cmd.ConfirmIncome, position=at, countries=["POR"]), actor=GM)
    [confirmed] = [e for e in europa.history(CID, after=at) if isinstance(e, ev.IncomeConfirmed)]
    [line] = [x for x in confirmed.lines if x["line"] == "B7"]
    assert line["amount"] == 60
    assert any("reading mine value: 30" in str(s) for s in line["lineage"]), line


def test_a_campaign_is_created_with_an_income_reading(ledger):
    cid = campaign_id("house")
    ledger.handle(cid, cmd.build(cmd.CreateCampaign, slug="house", name="House", scenario="eu-1492",
                                 settings={"rules_options": {"B31.counted": "above_printed"}}), actor=GM)
    assert income.options_of(ledger.campaign(cid)) == {"B31.counted": "above_printed"}


def test_the_cli_sets_a_numeric_reading_and_a_table_of_prices(settings):
    from tests.integration.test_cli import run

    assert run(settings, "campaign", "create", "europa", "--name", "Europa", "--scenario", "eu-1492").exit_code == 0
    r = run(settings, "campaign", "settings", "europa", "--rules-option", "B7.mine_value=30",
            "--rules-option", 'B19.prices={"sl": 2, "sp": 5}', "--reason", "house rules")
    assert r.exit_code == 0, r.output
    from ledger.application import Ledger

    with Ledger(settings) as ledger:
        assert income.options_of(ledger.campaign(CID)) == {"B7.mine_value": 30, "B19.prices": {"sl": 2, "sp": 5}}
    r = run(settings, "campaign", "settings", "europa", "--rules-option", "B7.mine_value=thirty", "--reason", "x")
    assert r.exit_code != 0 and "B7.mine_value" in r.output
