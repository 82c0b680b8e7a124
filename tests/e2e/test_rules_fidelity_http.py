"""Issue 39, rules fidelity, where people read it, on both stores: a near miss of a closed vocabulary's name
("Venisse" for P5, "STZ Lino" for I5) and a peace with a major power are refused with the field named
(``inputs.minor``) and one sentence in plain words, the same on the API, the web form and the command line,
never pydantic's "1 validation error for MinorPeaceInputs ... Value error, ..."; nothing is appended."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ledger.cli import app
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from tests.e2e.test_commands_http import client
from tests.e2e.test_map_forms_web import csrf_of, logged_in
from tests.integration.test_cli import cli_env

CID = campaign_id("sample")
PYDANTIC = ("validation error", "Value error", "type=value_error", "errors.pydantic.dev")
VENISSE = {"minor": "Venisse", "player": "FRA", "level": 0}
SAID = "unknown minor 'Venisse': did you mean venise?"


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)  # ends with turn 2 open
    return ledger


@pytest.mark.parametrize("procedure, inputs, field, said", [
    ("P5", VENISSE, "inputs.minor", SAID),
    ("P5", {**VENISSE, "minor": "france"}, "inputs.minor", "France (FRA) is a major power on the board, not a minor"),
    ("I5", {"fleets": [{"zone": "STZ Lino", "country": "FRA", "fleets": 1}]}, "inputs.fleets.0.zone",
     "unknown trade zone 'STZ Lino': did you mean STZ Lion?"),
])
def test_the_api_answers_a_near_miss_or_a_major_with_a_422_naming_the_field_in_plain_words(
        settings, sample, procedure, inputs, field, said):
    before = sample.campaign(CID).version
    with client(settings, sample) as http:
        r = http.post("/campaigns/sample/rulings", json={"procedure": procedure, "inputs": inputs})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == field and error["message"].endswith(said), error
    assert not any(p in error["message"] for p in PYDANTIC)
    assert sample.campaign(CID).version == before


def test_the_web_form_shows_venisse_did_you_mean_venise_beside_the_minor(settings, sample):
    c, _ = logged_in(settings, sample)
    new = "/ui/campaigns/sample/rulings/new"
    csrf = csrf_of(c.get(new, params={"procedure": "P5"}).text)
    r = c.post(new, data={"procedure": "P5", "csrf": csrf, "input.minor": "Venisse", "input.player": "FRA",
                          "input.level": "0", "dice": "server", "visibility": "public"})
    assert r.status_code == 422
    [error] = re.findall(r'<span class="error" id="error-input.minor" role="alert">([^<]+)</span>', r.text)
    assert SAID.replace("'", "&#39;") in error and not any(p in error for p in PYDANTIC)


def test_the_command_line_says_did_you_mean_venise_when_recording_or_resolving(settings, sample):
    runner = CliRunner()
    env = cli_env(settings)
    recorded = runner.invoke(app, ["ruling", "record", "sample", "P5", "--input", "minor=Venisse",
                                   "--input", "player=FRA", "--input", "level=0"], env=env)
    resolved = runner.invoke(app, ["resolve", "eu", "P5", "--inputs",
                                   '{"minor": "Venisse", "player": "FRA", "level": 0}', "--dice", "4"], env=env)
    for r in (recorded, resolved):
        assert r.exit_code == 2
        assert f"error [inputs.minor]: minor: {SAID}" in r.output, r.output
        assert not any(p in r.output for p in PYDANTIC)


def test_the_web_form_refuses_a_siege_without_a_war_beside_the_besieger_and_offers_the_game_master_to_keep_it(
        settings, sample):
    from ledger.domain import commands as cmd

    [[attackers, defenders]] = sample.campaign(CID).military["wars"]
    sample.handle(CID, cmd.MakePeace(attackers=attackers, defenders=defenders, reason="treaty",
        context=cmd.Context(out_of_sequence="peace in the military phase: the war check is under test, not the phase")), actor=GM)
    c, _ = logged_in(settings, sample)
    new = "/ui/campaigns/sample/rulings/new"
    csrf = csrf_of(c.get(new, params={"procedure": "M21"}).text)
    siege = {"procedure": "M21", "csrf": csrf, "input.action": "undermine", "input.fortress_level": "2",
             "where": "Picardie", "role.0": "besieger", "stack.0": "ENG-1", "dice": "server", "visibility": "public"}
    before = sample.campaign(CID).version
    r = c.post(new, data=siege)
    assert r.status_code == 422 and sample.campaign(CID).version == before
    [error] = re.findall(r'<span class="error" id="error-stack.0" role="alert">([^<]+)</span>', r.text)
    assert "no war between ENG and FRA" in error
    assert 'name="keep.war"' in r.text and 'name="keep_reason.war"' in r.text
    r = c.post(new, data={**siege, "keep.war": "on", "keep_reason.war": "the truce was broken"},
               follow_redirects=False)
    assert r.status_code == 303, r.text
    [event] = sample.history(CID, after=before)
    assert event.ruling["overridden"] == [{"field": "war", "typed": "ENG against FRA", "board": "not at war",
                                           "reason": "the truce was broken"}]
