"""Ruleset options (issue 18): where the seeds disagree the game master chooses the reading in the campaign's
settings, and each ruling records the reading it used. On both stores."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.application import Actor
from ledger.domain.commands import ChangeSettings
from ledger.domain.errors import InvalidInput
from ledger.sample import reach_phase

GM = Actor("gina", "gm")
ASSAULT = {"action": "assault", "fortress_level": 2, "besieger_ld": 8, "artillery_value": 4}


def _campaign(ledger, slug: str, **settings) -> UUID:
    cid = UUID(ledger.create_campaign(slug=slug, name=slug, ruleset="eu", countries=["FRA", "SPA"],
                                      settings=settings, actor=GM).data["id"])
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")  # sieges are the military phase's
    return cid


def _assault(ledger, cid, **inputs):
    return ledger.record_ruling(cid, procedure="M21", inputs={**ASSAULT, **inputs}, actor=GM,
                                manual_dice=[[5], [5], [5], [5]]).data["ruling"]


def test_without_a_choice_the_siege_artillery_is_the_french_seeds_fire_only_reading(ledger):
    cid = _campaign(ledger, "art-default")
    ruling = _assault(ledger, cid)
    assert ruling["inputs"]["artillery_source"] == "eu8" and "rules_options" not in ruling


def test_the_game_masters_choice_in_the_settings_governs_each_later_ruling_and_is_recorded(ledger):
    cid = _campaign(ledger, "art-tables")
    ledger.submit(cid, ChangeSettings, settings={"rules_options": {"M21.artillery_source": "tables"}},
                  reason="our table plays the later artillery bonus", actor=GM)
    assert ledger.campaign(cid).settings["rules_options"] == {"M21.artillery_source": "tables"}
    ruling = _assault(ledger, cid)
    assert ruling["inputs"]["artillery_source"] == "tables"
    assert ruling["rules_options"] == {"artillery_source": "tables"}
    fire = next(s for s in ruling["steps"] if s["name"] == "assault fire (besieger)")
    assert any(m["reason"].startswith("artillery bonus") and m["value"] == 2 for m in fire["modifiers"])
    # A value typed in the request wins over the campaign's choice, and says so by not listing it.
    typed = _assault(ledger, cid, artillery_source="eu8")
    assert typed["inputs"]["artillery_source"] == "eu8" and "rules_options" not in typed


def test_options_named_later_keep_the_earlier_choices(ledger):
    cid = _campaign(ledger, "art-merge", rules_options={"E2.half_with_fti": True})
    ledger.submit(cid, ChangeSettings, settings={"rules_options": {"M21.artillery_source": "tables"}},
                  reason="both", actor=GM)
    assert ledger.campaign(cid).settings["rules_options"] == {"E2.half_with_fti": True,
                                                              "M21.artillery_source": "tables"}


@pytest.mark.parametrize("options, field", [
    ({"M21.artillery": "tables"}, "settings.rules_options.M21.artillery"),
    ({"M21.artillery_source": "tex"}, "settings.rules_options.M21.artillery_source"),
    ({"M14.same_province": "true"}, "settings.rules_options.M14.same_province"),
    ({"E2.half_with_fti": "yes"}, "settings.rules_options.E2.half_with_fti"),
])
def test_an_unknown_option_or_value_is_refused_naming_it_and_nothing_is_appended(ledger, options, field):
    cid = _campaign(ledger, "art-bad")
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput) as err:
        ledger.submit(cid, ChangeSettings, settings={"rules_options": options}, reason="x", actor=GM)
    assert err.value.field == field, err.value.message
    assert ledger.campaign(cid).version == before
    with pytest.raises(InvalidInput) as err:
        ledger.create_campaign(slug="art-bad-new", name="x", ruleset="eu", countries=["FRA"],
                               settings={"rules_options": options}, actor=GM)
    assert err.value.field == field


def test_the_game_master_chooses_a_reading_from_the_command_line(settings):
    import json

    from tests.integration.test_cli import run

    assert run(settings, "campaign", "create", "art-cli", "--name", "Art", "--country", "FRA").exit_code == 0
    changed = run(settings, "campaign", "settings", "art-cli", "--rules-option", "M21.artillery_source=tables",
                  "--rules-option", "E2.half_with_fti=true", "--reason", "house rules")
    assert changed.exit_code == 0, changed.output
    shown = run(settings, "campaign", "settings", "art-cli")
    assert json.loads(shown.stdout)["rules_options"] == {"M21.artillery_source": "tables", "E2.half_with_fti": True}
    refused = run(settings, "campaign", "settings", "art-cli", "--rules-option", "M21.artillery_source=tex",
                  "--reason", "typo")
    assert refused.exit_code != 0 and "M21.artillery_source" in refused.output


def test_a_disputed_ruling_resolved_again_keeps_the_reading_it_was_recorded_with(ledger):
    cid = _campaign(ledger, "art-dispute", rules_options={"M21.artillery_source": "tables"})
    ledger.record_ruling(cid, procedure="M21", inputs=ASSAULT, actor=GM, manual_dice=[[5], [5], [5], [5]])
    position = ledger.campaign(cid).version  # the ruling is the last event
    ledger.submit(cid, ChangeSettings, settings={"rules_options": {"M21.artillery_source": "eu8"}},
                  reason="back to the French seed", actor=GM)
    amended = ledger.record_correction(cid, corrects=position, reason="the fortress is level 3",
                                       replacement={"inputs": {**ASSAULT, "fortress_level": 3}}, actor=GM)
    ruling = amended.data["ruling"]
    assert amended.data["original"]["inputs"]["artillery_source"] == "tables"
    assert ruling["inputs"]["artillery_source"] == "tables" and ruling["inputs"]["fortress_level"] == 3
