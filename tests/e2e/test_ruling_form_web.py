"""A ruling recorded from the web page (/ui/campaigns/{id}/rulings/new): the procedure picked from a list, its
inputs as the fields of its input schema, where and which stacks, the dice; posted as ``RecordRuling`` through
the API route's permission and ``Ledger.handle``. An error comes back in words beside the field it names, with
what was typed, and appends nothing; an input the board contradicts is kept only with a reason."""

from __future__ import annotations

import re

import pytest

from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import ChangeSettings
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from tests.e2e.test_map_forms_web import csrf_of, logged_in

CID = campaign_id("sample")
NEW = "/ui/campaigns/sample/rulings/new"

#: An M19 battle in Caux (plain on the board): ENG-1 (6 LD on the map) attacks FRA-1, as a game master fills
#: the form in.
BATTLE = {"input.attacker.country": "ENG", "input.attacker.technology": "MUS", "input.attacker.ld": "6",
          "input.attacker.army_class": "iv", "input.attacker.class_size": "2", "input.attacker.leader_man": "3",
          "input.defender.country": "FRA", "input.defender.technology": "MED", "input.defender.ld": "5",
          "input.defender.army_class": "iv", "input.defender.class_size": "2", "input.defender.leader_man": "4",
          "input.terrain": "plain", "input.period": "2", "input.attacker_phasing_not_intercepted": "no",
          "where": "Caux", "role.0": "attacker", "stack.0": "ENG-1", "role.1": "defender", "stack.1": "FRA-1",
          "dice": "server", "visibility": "public"}


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)  # ends with turn 2 open
    return ledger


def words_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", html, flags=re.S)))


def test_the_procedures_are_listed_by_code_and_title_and_m19_has_its_inputs_as_fields(settings, sample):
    c, _ = logged_in(settings, sample)
    assert 'href="/ui/campaigns/sample/rulings/new"' in c.get("/ui/campaigns/sample").text
    assert 'href="/ui/campaigns/sample/rulings/new"' in c.get("/ui/campaigns/sample/map").text
    listing = c.get(NEW)
    assert listing.status_code == 200 and 'id="ruling-form"' not in listing.text
    codes = re.findall(r'<option value="([A-Z]\d+)"', listing.text)
    assert codes.index("M9") < codes.index("M13") < codes.index("M19")  # INDEX.md's order, not the text's
    assert re.search(r'<option value="M19">M19 · [A-Za-z]', listing.text)
    page = c.get(NEW, params={"procedure": "M19"}).text
    # Enums are selects (countries, technologies, terrains as the schema lists them), numbers are numbers,
    # yes/no is a checkbox; where from the board's places, stacks from the map.
    assert re.search(r'<select name="input.attacker.technology" id="input.attacker.technology">.*<option>MUS</option>',
                     page)
    assert '<option>ENG</option>' in page and '<option>eastern_forest</option>' in page
    assert re.search(r'<input type="number" name="input.defender.ld" value="" id="input.defender.ld" required>', page)
    assert 'type="checkbox" name="input.rotw"' in page
    assert '<option value="Caux">' in page and '<option value="ENG-1">ENG-1 (ENG, in ' in page
    assert 'value="attacker"' in page and 'value="defender"' in page  # the procedure's own sides as roles
    assert "JSON" not in words_of(page) and 'name="input.leader_readings.attacker"' in page  # a select, not JSON


def test_an_m19_battle_recorded_with_the_form_and_server_dice_is_at_the_head_with_its_inputs(settings, sample):
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    posted = {**BATTLE, "procedure": "M19", "csrf": csrf, "key": "battle-1", "input.leader_readings.defender": "wounded"}
    r = c.post(NEW, data=posted, follow_redirects=False)
    assert r.status_code == 303, re.findall(r"id=\"error-[^\"]*\"[^<]*<?[^<]*", r.text) or words_of(r.text)[:2000]
    [ruling] = [e for e in sample.history(CID, after=before) if isinstance(e, ev.RulingRecorded)]
    assert r.headers["location"] == f"/ui/campaigns/sample/turns/2?position={ruling.originator_version}#ruling"
    assert ruling.originator_version == sample.campaign(CID).version  # at the head
    inputs = ruling.ruling["inputs"]
    assert (inputs["attacker"]["ld"], inputs["attacker"]["technology"], inputs["defender"]["leader_man"],
            inputs["terrain"], inputs["period"]) == (6, "MUS", 4, "plain", 2)
    assert inputs["attacker_phasing_not_intercepted"] is False and inputs["attacker"]["has_army"] is True
    assert inputs["leader_readings"] == {"defender": "wounded"}  # a reading per side, chosen rather than typed
    assert ruling.context["where"] == "Caux" and ruling.context["stacks"] == {"attacker": "ENG-1",
                                                                            "defender": "FRA-1"}
    dice = [d for s in ruling.ruling.get("steps", []) for d in s.get("dice", [])] + ruling.ruling.get("dice", [])
    assert dice and not any(d.get("manual") for d in dice)  # the server rolled them
    # A double submit (the same form key) records once.
    again = c.post(NEW, data=posted, follow_redirects=False)
    assert again.status_code == 303 and sample.campaign(CID).version == ruling.originator_version
    page = c.get(r.headers["location"])
    shown = words_of(page.text)
    assert page.status_code == 200 and "M19" in shown and 'id="map' in page.text
    for repr_ in ("{'", "None", '"kind":', "True", "False"):
        assert repr_ not in shown, repr_


@pytest.mark.parametrize("field, typed, says", [
    ("input.attacker.ld", "five", "attacker.ld"),
    ("input.defender.technology", "", "defender.technology"),
])
def test_a_wrong_type_or_a_missing_input_comes_back_beside_its_field_and_appends_nothing(settings, sample, field,
                                                                                         typed, says):
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, field: typed, "procedure": "M19", "csrf": csrf})
    assert r.status_code == 422
    [error] = re.findall(rf'<span class="error" id="error-{re.escape(field)}" role="alert">([^<]+)</span>', r.text)
    assert says in error
    assert 'id="error-form"' not in r.text  # beside the field, not above the form
    assert 'name="input.attacker.leader_man" value="3"' in r.text and 'name="where" id="where" list="places" ' \
           'value="Caux"' in r.text  # what was typed is kept
    if typed:
        assert f'name="{field}" value="{typed}"' in r.text
    assert sample.campaign(CID).version == before


def test_a_place_or_a_stack_not_on_the_map_is_named_beside_its_field(settings, sample):
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, "where": "Atlantis", "procedure": "M19", "csrf": csrf})
    assert r.status_code == 422 and 'id="error-where"' in r.text and "Atlantis" in words_of(r.text)
    r = c.post(NEW, data={**BATTLE, "role.1": "", "procedure": "M19", "csrf": csrf})
    assert r.status_code == 422 and 'id="error-role.1"' in r.text and "FRA-1" in words_of(r.text)
    r = c.post(NEW, data={**BATTLE, "stack.1": "FRA-99", "procedure": "M19", "csrf": csrf})  # not on the map
    assert r.status_code == 422 and 'id="error-stack.1"' in r.text and "FRA-99" in words_of(r.text)
    assert sample.campaign(CID).version == before


def test_a_terrain_the_board_contradicts_is_kept_only_when_ticked_with_a_reason(settings, sample):
    """M19 on the board (DECISIONS.md): Normandie is dense forest; "plain" is refused naming inputs.terrain,
    and the game master may keep it with a reason, recorded in the ruling."""
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    battle = {**BATTLE, "where": "Normandie", "procedure": "M19", "csrf": csrf}
    r = c.post(NEW, data=battle)
    assert r.status_code == 422 and 'id="error-input.terrain"' in r.text and "dense_forest" in r.text
    assert 'name="keep.terrain"' in r.text
    r = c.post(NEW, data={**battle, "keep.terrain": "on"})
    assert r.status_code == 422 and 'id="error-overrides.terrain"' in r.text
    assert sample.campaign(CID).version == before
    r = c.post(NEW, data={**battle, "keep.terrain": "on", "keep_reason.terrain": "fought in the clearing"},
               follow_redirects=False)
    assert r.status_code == 303, words_of(r.text)[:1500]
    [ruling] = [e for e in sample.history(CID, after=before) if isinstance(e, ev.RulingRecorded)]
    assert ruling.ruling["overridden"] == [{"field": "terrain", "typed": "plain", "board": "dense_forest",
                                            "reason": "fought in the clearing"}]


def test_a_stack_size_the_map_contradicts_offers_keep_my_value_and_a_wrong_type_does_not(settings, sample):
    """The map's stack size, like the board's terrain, may be kept with a reason; a value no reason can
    make right (not a number) is only refused."""
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, "input.attacker.ld": "9", "procedure": "M19", "csrf": csrf})
    assert r.status_code == 422 and 'id="error-input.attacker.ld"' in r.text and "the map says" in r.text
    assert 'name="keep.attacker.ld"' in r.text
    r = c.post(NEW, data={**BATTLE, "input.attacker.ld": "lots", "procedure": "M19", "csrf": csrf})
    assert r.status_code == 422 and 'id="error-input.attacker.ld"' in r.text
    assert 'name="keep.attacker.ld"' not in r.text
    assert sample.campaign(CID).version == before


def test_physical_dice_typed_in_the_form_are_the_rulings_dice(settings, sample):
    c, _ = logged_in(settings, sample)
    csrf = csrf_of(c.get(NEW, params={"procedure": "M19"}).text)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, "procedure": "M19", "csrf": csrf, "dice": "physical", "manual": "10, 1, 10, 1, 10"},
               follow_redirects=False)
    assert r.status_code == 303, words_of(r.text)[:1500]
    [ruling] = [e for e in sample.history(CID, after=before) if isinstance(e, ev.RulingRecorded)]
    dice = [d for s in ruling.ruling.get("steps", []) for d in s.get("dice", [])] + ruling.ruling.get("dice", [])
    assert dice and all(d.get("manual") for d in dice)
    r = c.post(NEW, data={**BATTLE, "procedure": "M19", "csrf": csrf, "dice": "physical", "manual": ""})
    assert r.status_code == 422 and 'id="error-manual_dice"' in r.text


def test_a_player_records_a_ruling_only_where_players_may_roll(settings, sample):
    sample.handle(CID, ChangeSettings(settings={"players_may_roll": False}, reason="the GM rolls"), actor=GM)
    c, _ = logged_in(settings, sample, "player", "ENG")
    assert c.get(NEW).status_code == 403
    csrf = csrf_of(c.get("/ui/campaigns/sample/map").text)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, "procedure": "M19", "csrf": csrf})
    assert r.status_code == 403 and sample.campaign(CID).version == before
    sample.handle(CID, ChangeSettings(settings={"players_may_roll": True}, reason="players roll"), actor=GM)
    page = c.get(NEW, params={"procedure": "M19"}).text
    assert 'id="dice-physical"' not in page  # physical dice are the game master's
    r = c.post(NEW, data={**BATTLE, "procedure": "M19", "csrf": csrf, "visibility": "gm"})
    assert r.status_code == 403 and 'id="error-visibility"' in r.text  # a player's dice are seen by their country
    r = c.post(NEW, data={**BATTLE, "procedure": "M19", "csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and sample.campaign(CID).version > before


def test_the_form_without_its_csrf_token_is_refused(settings, sample):
    c, _ = logged_in(settings, sample)
    before = sample.campaign(CID).version
    r = c.post(NEW, data={**BATTLE, "procedure": "M19"})
    assert r.status_code == 403 and sample.campaign(CID).version == before


def test_every_procedure_of_the_ruleset_has_a_form_with_a_field_for_each_input(settings, sample):
    from api.web.turn_view import schema_fields
    from ledger.rules.core import get_ruleset

    c, _ = logged_in(settings, sample)
    for proc in get_ruleset("eu").procedures.values():
        page = c.get(NEW, params={"procedure": proc.code})
        assert page.status_code == 200 and 'id="ruling-form"' in page.text, proc.code
        schema = proc.input_schema()
        for f in schema_fields(schema, schema, {}, ""):
            assert f'name="input.{f["name"]}"' in page.text, (proc.code, f["name"])
    r = c.get(NEW, params={"procedure": "M99"})
    assert r.status_code == 422 and "M99" in words_of(r.text)


def test_the_api_refuses_a_ruling_whose_place_or_stack_is_not_on_the_map(settings, sample):
    """The check is the use case's: the API and the CLI get it too, not only the form."""
    from tests.e2e.test_commands_http import client

    inputs = {"attacker": {"technology": "MUS", "ld": 5, "army_class": "iv", "class_size": 2},
              "defender": {"technology": "MED", "ld": 5, "army_class": "iv", "class_size": 2},
              "terrain": "plain", "period": 2}
    before = sample.campaign(CID).version
    with client(settings, sample) as http:
        for context, field in (({"where": "Atlantis"}, "context.where"),
                               ({"where": "Caux", "stacks": {"defender": "FRA-99"}}, "context.stacks.defender")):
            r = http.post("/campaigns/sample/rulings", json={"procedure": "M19", "inputs": inputs, "context": context})
            assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
    assert sample.campaign(CID).version == before
