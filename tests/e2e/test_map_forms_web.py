"""The map forms of the web page: every map command as a plain form (no JSON anywhere), posted through the
same command and permission as the API, an error shown in words beside the field it names, nothing appended
then; players see the forms only where the campaign lets them move, and only their own stacks."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import ChangeSettings, MoveStack, RaiseStack
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-map-forms"
CID = campaign_id("sample")


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)  # ends with turn 2 open
    return ledger


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def logged_in(settings, ledger, role: str = "gm", country: str | None = None) -> tuple[TestClient, str]:
    _, token = tokens.issue_token(ledger, CID, role=role, country=country, holder=role, actor=GM)
    c = TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger))
    page = c.get("/ui/login")
    c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": token, "next": "/ui"}, follow_redirects=False)
    return c, csrf_of(c.get("/ui/campaigns/sample/map").text)


def test_the_game_master_has_a_form_for_every_map_command_and_none_asks_for_json(settings, sample):
    c, _ = logged_in(settings, sample)
    page = c.get("/ui/campaigns/sample/map")
    assert page.status_code == 200
    for form in ("move", "split", "merge", "change", "siege", "siege-end", "control", "owner", "marker", "fortress", "raise",
                 "war", "peace"):
        assert f'id="form-{form}"' in page.text, form
    assert "<textarea" not in page.text and "JSON" not in page.text
    assert "FRA-1 (FRA, in Normandie)" in page.text
    assert 'href="/ui/campaigns/sample/map"' in c.get("/ui/campaigns/sample").text


def test_a_move_posted_with_the_form_is_recorded_and_the_turn_page_shows_it(settings, sample):
    c, csrf = logged_in(settings, sample)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "key": "m1", "stack": "FRA-1",
                                                      "destination": "Caux", "via": "", "reason": "to the coast",
                                                      "visibility": "public"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/ui/campaigns/sample/turns/2?position={before + 1}"
    [move] = sample.history(CID, after=before)
    assert (move.stack, move.origin, move.destination, move.path) == ("FRA-1", "Normandie", "Caux",
                                                                      ["Normandie", "Caux"])
    assert "stack FRA-1 moved Normandie → Caux (to the coast)" in c.get(r.headers["location"]).text


def test_a_refused_form_shows_the_error_beside_its_field_keeps_what_was_typed_and_appends_nothing(settings, sample):
    c, csrf = logged_in(settings, sample)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "stack": "FRA-1", "destination": "Kent",
                                                      "visibility": "public"})
    assert r.status_code == 422
    [error] = re.findall(r'<span class="error" id="error-move-destination" role="alert">([^<]+)</span>', r.text)
    assert "Normandie and Kent share no border" in error
    assert 'id="move-destination" value="Kent"' in r.text
    r = c.post("/ui/campaigns/sample/map/split", data={"csrf": csrf, "stack": "FRA-1", "new_stack": "FRA-2",
                                                       "units.LD": "9", "visibility": "public"})
    assert r.status_code == 422 and 'id="error-split-units.LD"' in r.text and "FRA-1 has 5 LD, not 9" in r.text
    r = c.post("/ui/campaigns/sample/map/change", data={"csrf": csrf, "stack": "FRA-1", "units.LD": "two",
                                                        "reason": "r", "visibility": "public"})
    assert r.status_code == 422 and 'id="error-change-units.LD"' in r.text
    assert sample.campaign(CID).version == before


def test_every_other_map_form_records_its_command(settings, sample):
    c, csrf = logged_in(settings, sample)
    posts = [
        ("raise", {"stack": "FRA-9", "country": "FRA", "location": "Ile-de-France", "units.LD": "3",
                   "leaders": "Gié"}, "StackRaised"),
        ("split", {"stack": "ENG-1", "new_stack": "ENG-2", "units.LD": "2", "leaders": "Talbot"}, "StackSplit"),
        ("merge", {"stack": "ENG-1", "merged": "ENG-2"}, "StacksMerged"),
        ("change", {"stack": "FRA-1", "units.LD": "2", "arriving.name": "Rohan", "arriving.fire": "1",
                    "arriving.departs": "9", "departing": "La Trémoille", "reason": "turn 2"}, "StackChanged"),
        ("siege", {"province": "Picardie", "besiegers": "ENG-1"}, "SiegeStarted"),
        ("siege-end", {"province": "Picardie", "outcome": "taken"}, "SiegeEnded"),
        ("control", {"province": "Picardie", "controller": "ENG"}, "ControlChanged"),
        ("owner", {"province": "Picardie", "owner": "ENG"}, "OwnerChanged"),
        ("marker", {"province": "Picardie", "marker": "Pillage+"}, "MarkerPlaced"),
        ("marker", {"province": "Picardie", "marker": "Pillage+", "remove": "on"}, "MarkerRemoved"),
        ("fortress", {"province": "Picardie", "level": "0", "reason": "razed"}, "FortressChanged"),
        ("peace", {"attackers": "ENG", "defenders": "FRA",  # the forms are under test, not the phase
                   "out_of_sequence": "made in the military phase"}, "PeaceMade"),
        ("war", {"attackers": "FRA", "defenders": "ENG", "out_of_sequence": "declared in the military phase"},
         "WarDeclared"),
    ]
    for form, data, kind in posts:
        before = sample.campaign(CID).version
        r = c.post(f"/ui/campaigns/sample/map/{form}", data={"csrf": csrf, "visibility": "public", **data},
                   follow_redirects=False)
        assert r.status_code == 303, (form, re.findall(r'class="error"[^>]*>([^<]+)<', r.text))
        [event] = sample.history(CID, after=before)
        assert type(event).__name__ == kind
        # The turn page at the new event reads in words: no Python repr, no JSON of the event.
        page = c.get(r.headers["location"])
        assert page.status_code == 200 and "{'" not in page.text and "None" not in re.sub(r"<[^>]+>", " ", page.text)
        if kind == "SiegeStarted":  # the siege in the turn page's map tables, with its besiegers
            assert re.search(r'id="sieges".*<td>Picardie</td><td>ENG-1</td>', page.text, re.S)
    assert event.attackers == ["FRA"] and event.defenders == ["ENG"]


def test_a_form_without_its_csrf_token_is_refused(settings, sample):
    c, _ = logged_in(settings, sample)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/map/move", data={"stack": "FRA-1", "destination": "Caux"})
    assert r.status_code == 403 and sample.campaign(CID).version == before


def test_a_player_sees_the_stack_forms_with_their_own_stacks_only_where_the_campaign_allows_it(settings, sample):
    c, csrf = logged_in(settings, sample, "player", "FRA")
    page = c.get("/ui/campaigns/sample/map").text
    assert 'id="no-map-forms"' in page and 'id="form-move"' not in page
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "stack": "FRA-1", "destination": "Caux",
                                                      "visibility": "public"})
    assert r.status_code == 403
    sample.handle(CID, ChangeSettings(settings={"players_may_move": True}, reason="players move"), actor=GM)
    page = c.get("/ui/campaigns/sample/map").text
    assert 'id="form-move"' in page and 'id="form-control"' not in page and 'id="form-war"' not in page
    assert "FRA-1 (FRA" in page and "ENG-1 (ENG" not in page and 'id="move-forced"' not in page
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "stack": "ENG-1", "destination": "Caux",
                                                      "visibility": "public"})
    assert r.status_code == 403 and 'id="error-move-stack"' in r.text
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "stack": "FRA-1", "destination": "Caux",
                                                      "visibility": "public"}, follow_redirects=False)
    assert r.status_code == 303


def test_the_dispute_form_of_a_units_change_reads_in_words_and_corrects_it(settings, sample):
    c, csrf = logged_in(settings, sample)
    r = c.post("/ui/campaigns/sample/map/change", data={"csrf": csrf, "stack": "FRA-1", "units.LD": "2",
                                                        "departing": "La Trémoille", "reason": "turn 2",
                                                        "visibility": "public"}, follow_redirects=False)
    at = sample.campaign(CID).version
    page = c.get(r.headers["location"]).text
    form = page[page.index('id="dispute-form"'):]
    assert 'name="input.units" value="LD=2"' in form and 'name="input.departed" value="La Trémoille"' in form
    assert "{&#34;" not in form and "[&#34;" not in form  # no JSON in the fields
    r = c.post("/ui/campaigns/sample/corrections", data={"csrf": csrf, "corrects": str(at), "input.units": "LD=1",
                                                         "input.departed": "La Trémoille",
                                                         "reason": "one LD came, not two"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    correction = sample.event_at(CID, at + 1)
    assert correction.replacement == {"units": {"LD": 1}} and correction.corrects == at
    # The map view reads the change as corrected: 5 LD after the battle, + 1 (not + 2).
    assert c.get("/campaigns/sample/map").json()["stacks"]["FRA-1"]["units"]["LD"] == 6


def test_a_players_forms_list_their_stacks_where_they_see_them_and_the_game_master_sees_what_is_held(settings,
                                                                                                    sample):
    """The game master moves France's stack unseen and raises another: France's forms list FRA-1 where France
    last saw it and nothing of the other; a move posted from the form starts where France sees the stack, is
    recorded, and the game master's map page lists it as held (the stack is elsewhere on their map)."""
    sample.handle(CID, ChangeSettings(settings={"players_may_move": True}, reason="players move"), actor=GM)
    hidden = {"scope": "gm"}
    sample.submit(CID, MoveStack, stack="FRA-1", origin="Normandie", destination="Caux", vis=hidden, actor=GM,
                  reason="unseen")
    sample.submit(CID, RaiseStack, stack="FRA-SECRET", country="FRA", location="Picardie", units={"LD": 2},
                  vis=hidden, actor=GM)
    c, csrf = logged_in(settings, sample, "player", "FRA")
    page = c.get("/ui/campaigns/sample/map").text
    assert "FRA-1 (FRA, in Normandie)" in page and "FRA-SECRET" not in page and "Caux)" not in page
    assert 'id="held"' not in page
    r = c.post("/ui/campaigns/sample/map/move", data={"csrf": csrf, "stack": "FRA-1", "destination": "Manche",
                                                      "visibility": "public"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    at = sample.campaign(CID).version
    assert sample.event_at(CID, at).origin == "Normandie"
    gm, _ = logged_in(settings, sample)
    page = gm.get("/ui/campaigns/sample/map").text
    assert "FRA-1 (FRA, in Caux)" in page and "FRA-SECRET (FRA, in Picardie)" in page
    assert f'id="held-{at}"' in page and "FRA-1 is in Caux, not in Normandie" in page
