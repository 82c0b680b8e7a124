"""The game master's forms of the web page (issue 37, item 1): a campaign created, turns opened and closed,
phases closed in the sequence of play, treasury entries and their corrections, tokens issued, listed and
revoked, settings changed, each a form posted through the command the API takes; a refused form answers the
page with the error beside its field, in the page's words (no API field name, no pattern), what was typed kept,
and nothing appended; a player is neither offered nor allowed the game master's forms."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import tokens
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, close_open_phases, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-gm-forms"
CID = campaign_id("sample")
#: What no page a person reads may show: API field names, a regular expression, pydantic's words.
API_WORDS = ("forced_reason", "overrides.", "_pct", "ers_visibility", "players_may", "replacement", "token_id",
             "^[", "String should", "Input should", "Value error")


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)  # ends with turn 2 open
    return ledger


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def text_of(page: str) -> str:
    page = re.sub(r"<(script|style|datalist)\b.*?</\1>", "", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def client(settings, ledger, token: str | None) -> tuple[TestClient, str]:
    """A browser's session: logged in with ``token`` through the login form; the CSRF token of its forms."""
    c = TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger))
    page = c.get("/ui/login")
    if token is not None:
        c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": token, "next": "/ui"}, follow_redirects=False)
    return c, csrf_of(c.get("/ui/login").text)


def gm(settings, ledger) -> tuple[TestClient, str]:
    _, token = tokens.issue_token(ledger, CID, role="gm", holder="gina", actor=GM)
    return client(settings, ledger, token)


def player(settings, ledger) -> tuple[TestClient, str]:
    _, token = tokens.issue_token(ledger, CID, role="player", country="FRA", holder="bruno", actor=GM)
    return client(settings, ledger, token)


def error_beside(page: str, form: str, field: str) -> str:
    [error] = re.findall(rf'<span class="error" id="error-{re.escape(form)}-{re.escape(field)}" role="alert">([^<]+)</span>',
                         page)
    return html.unescape(error)


def assert_in_page_words(page: str) -> None:
    shown = text_of(page)
    found = [w for w in API_WORDS if w in shown]
    assert not found, [shown[max(0, shown.index(w) - 80):shown.index(w) + 80] for w in found]


# ------------------------------------------------------------------ a campaign


def test_the_operator_creates_a_campaign_from_a_scenario_with_its_players_and_budget_rule(settings, ledger):
    c, csrf = client(settings, ledger, ADMIN)
    assert 'href="/ui/new-campaign"' in c.get("/ui").text
    r = c.post("/ui/new-campaign", data={"csrf": csrf, "key": "k1", "name": "Friends 1492", "slug": "friends",
                                         "ruleset": "eu", "scenario": "sample", "board": "", "countries": "",
                                         "players": "ENG: alice, FRA: bruno", "ers_visibility": "public"},
               follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/campaigns/friends/gm?created=1"
    [created, imported] = ledger.history(campaign_id("friends"))
    assert isinstance(created, ev.CampaignCreated) and isinstance(imported, ev.ScenarioImported)
    assert (created.name, created.players, created.settings["ers_visibility"]) == (
        "Friends 1492", {"ENG": "alice", "FRA": "bruno"}, "public")
    assert "The campaign Friends 1492 is created" in text_of(c.get(r.headers["location"]).text)


def test_a_campaign_on_a_board_names_its_countries(settings, ledger):
    c, csrf = client(settings, ledger, ADMIN)
    r = c.post("/ui/new-campaign", data={"csrf": csrf, "name": "On the board", "slug": "board-game", "ruleset": "eu",
                                         "scenario": "", "board": "eu", "countries": "fra, eng",
                                         "ers_visibility": "country"}, follow_redirects=False)
    assert r.status_code == 303, text_of(r.text)
    [created] = ledger.history(campaign_id("board-game"))
    assert created.countries == ["FRA", "ENG"] and created.settings["board"] == "eu"


@pytest.mark.parametrize("fields, field, words", [
    ({"slug": "Bad Slug!"}, "slug", "lower-case letters, digits and dashes"),
    ({"name": "  "}, "name", "cannot be left empty"),
    ({"scenario": "", "countries": ""}, "countries", "name at least one country, or a scenario"),
    ({"scenario": "", "countries": "FRA, FRANCE"}, "countries", "capital letters"),
    ({"players": "ENG alice"}, "players", "ENG: alice"),
    ({"scenario": "", "board": "eu", "countries": "ZZZ"}, "countries", "not on board"),
])
def test_a_refused_campaign_shows_the_error_beside_its_field_and_keeps_what_was_typed(settings, ledger, fields,
                                                                                        field, words):
    c, csrf = client(settings, ledger, ADMIN)
    posted = {"csrf": csrf, "name": "Typed name", "slug": "typed", "ruleset": "eu", "scenario": "sample",
              "board": "", "countries": "", "players": "", "ers_visibility": "public", **fields}
    r = c.post("/ui/new-campaign", data=posted)
    assert r.status_code in (404, 409, 422), re.findall(r"error[^<]+", r.text)
    assert words in error_beside(r.text, "create", field), re.findall(r"error[^<]+", r.text)
    assert_in_page_words(r.text)
    assert f'value="{html.escape(posted["name"], quote=True)}"' in r.text  # what was typed, kept
    assert ledger.campaigns() == []


def test_a_game_master_token_may_not_create_a_campaign_and_is_not_offered_to(settings, sample):
    c, csrf = gm(settings, sample)
    assert "/ui/new-campaign" not in c.get("/ui").text
    assert c.get("/ui/new-campaign").status_code == 403
    r = c.post("/ui/new-campaign", data={"csrf": csrf, "name": "x", "slug": "x", "scenario": "sample"})
    assert r.status_code == 403 and [s.slug for s in sample.campaigns()] == ["sample"]


# ------------------------------------------------------------------ turns and phases


def test_phases_close_in_the_sequence_of_play_and_the_page_shows_where_the_turn_stands(settings, sample):
    c, csrf = gm(settings, sample)
    page = c.get("/ui/campaigns/sample/gm").text
    # The sample stops at turn 2's military phase (events, diplomacy and incomes closed).
    assert "Turn 2 is open: the next phase to close is Military" in text_of(page)
    assert 'name="phase" value="military"' in page
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/close-phase", data={"csrf": csrf, "key": "p1", "phase": "military"},
               follow_redirects=False)
    assert r.status_code == 303
    [closed] = sample.history(CID, after=before)
    assert isinstance(closed, ev.PhaseClosed) and closed.phase == "military"
    page = c.get(r.headers["location"]).text
    assert 'id="phase-military" class="closed"' in page and 'id="phase-redeployment" class="next"' in page
    assert "the next phase to close is Redeployment" in text_of(page)
    # Out of order (a stale page, a typed request): refused beside the button, nothing appended.
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/close-phase", data={"csrf": csrf, "phase": "peace"})
    assert r.status_code == 409
    assert "phase peace cannot close before redeployment" in error_beside(r.text, "close-phase", "phase")
    assert sample.campaign(CID).version == head


def test_a_turn_is_closed_and_the_next_one_opened_from_the_page(settings, sample):
    c, csrf = gm(settings, sample)
    close_open_phases(sample, CID)  # the sequence of play: the turn closes after its eight phases
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/close-turn", data={"csrf": csrf, "key": "t1", "turn": "2"},
               follow_redirects=False)
    assert r.status_code == 303
    assert any(isinstance(e, ev.TurnClosed) and e.turn == 2 for e in sample.history(CID, after=before))
    page = c.get("/ui/campaigns/sample/gm").text
    assert "Turn 2 is closed: open turn 3 to go on" in text_of(page) and "Open turn 3" in page
    r = c.post("/ui/campaigns/sample/gm/open-turn", data={"csrf": csrf, "key": "t2"}, follow_redirects=False)
    assert r.status_code == 303 and sample.campaign(CID).turn == 3 and sample.campaign(CID).turn_open
    # A turn that is not the open one (a page left open on another tab): refused, nothing appended.
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/close-turn", data={"csrf": csrf, "turn": "2"})
    assert r.status_code == 409 and "turn" in error_beside(r.text, "close-turn", "turn")
    assert sample.campaign(CID).version == head


# ------------------------------------------------------------------ treasury entries and their corrections


def test_a_treasury_entry_is_recorded_from_the_form(settings, sample):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/treasury", data={
        "csrf": csrf, "key": "e1", "country": "FRA", "line": "a9", "amount": "35", "turn": "", "phase": "military",
        "visibility": "", "visibility.countries": "", "reason": "looting of Picardie"}, follow_redirects=False)
    assert r.status_code == 303, text_of(r.text)[:500]
    [entry] = sample.history(CID, after=before)
    assert isinstance(entry, ev.TreasuryEntryRecorded)
    assert (entry.country, entry.line, entry.amount, entry.turn, entry.reason) == ("FRA", "A9", 35, 2,
                                                                                     "looting of Picardie")
    assert entry.context["phase"] == "military"
    assert entry.visibility == {"scope": "countries", "countries": ["FRA"]}  # the campaign's rule: its country's
    page = c.get(r.headers["location"]).text
    assert (f"Recorded at position {entry.originator_version}: Military phase: FRA: +35 ducats on A9 (turn 2: "
            "looting of Picardie)") in text_of(page)


@pytest.mark.parametrize("fields, field, words", [
    ({"line": "Z99"}, "line", "a sheet letter A, B or C and a line number"),
    ({"amount": "35 ducats"}, "amount", "is not a whole number of ducats"),
    ({"amount": ""}, "amount", "type the amount in ducats"),
    ({"amount": "2000000000"}, "amount", "at most 1,000,000,000"),
    ({"reason": ""}, "reason", "cannot be left empty"),
    ({"country": "XYZ"}, "country", "XYZ"),
    ({"visibility": "countries", "visibility.countries": ""}, "visibility.countries", "names at least one country"),
])
def test_a_refused_treasury_entry_is_said_beside_its_field_and_appends_nothing(settings, sample, fields, field,
                                                                                words):
    c, csrf = gm(settings, sample)
    head = sample.campaign(CID).version
    posted = {"csrf": csrf, "country": "FRA", "line": "A9", "amount": "35", "turn": "", "phase": "military",
              "visibility": "", "visibility.countries": "", "reason": "typed reason", **fields}
    r = c.post("/ui/campaigns/sample/gm/treasury", data=posted)
    assert r.status_code in (404, 409, 422)
    assert words in error_beside(r.text, "treasury", field)
    assert_in_page_words(r.text)
    if posted["reason"]:
        assert ">typed reason</textarea>" in r.text
    assert sample.campaign(CID).version == head


def test_a_treasury_entry_is_corrected_and_struck_from_the_form(settings, sample):
    entry = sample.record_treasury_entry(CID, country="ENG", line="A9", amount=20, reason="prize", actor=GM)
    at = entry.events[0]["position"]
    c, csrf = gm(settings, sample)
    head = sample.campaign(CID).version
    page = c.get("/ui/campaigns/sample/gm").text
    assert f'<option value="{at}">position {at}: ENG turn 2, A9 20 ducats (prize)</option>' in page
    assert 'name="strike" id="entry-correction-strike">' in page  # never ticked beforehand
    r = c.post("/ui/campaigns/sample/gm/entry-correction", data={
        "csrf": csrf, "key": "c1", "corrects": str(at), "amount": "25", "line": "", "turn": "", "country": "",
        "reason": "counted again"}, follow_redirects=False)
    assert r.status_code == 303
    [fix] = sample.history(CID, after=head)
    assert isinstance(fix, ev.CorrectionRecorded)
    assert (fix.corrects, fix.replacement, fix.reason) == (at, {"amount": 25}, "counted again")
    r = c.post("/ui/campaigns/sample/gm/entry-correction", data={
        "csrf": csrf, "key": "c2", "corrects": str(at), "strike": "on", "reason": "never happened"},
        follow_redirects=False)
    assert r.status_code == 303
    [_, struck] = sample.history(CID, after=head)
    assert isinstance(struck, ev.CorrectionRecorded) and struck.replacement is None


@pytest.mark.parametrize("fields, field, words", [
    ({"amount": ""}, "amount", "change at least one value"),
    ({"strike": "on"}, "strike", "not both"),
    ({"corrects": "abc"}, "corrects", "is not the position of an entry"),
    ({"line": "Q1"}, "line", "a sheet letter A, B or C"),
    ({"reason": ""}, "reason", "cannot be left empty"),
])
def test_a_refused_correction_is_said_beside_its_field_and_appends_nothing(settings, sample, fields, field, words):
    entry = sample.record_treasury_entry(CID, country="ENG", line="A9", amount=20, reason="prize", actor=GM)
    c, csrf = gm(settings, sample)
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/entry-correction", data={
        "csrf": csrf, "corrects": str(entry.events[0]["position"]), "amount": "25", "reason": "typed why", **fields})
    assert r.status_code == 422 and words in error_beside(r.text, "entry-correction", field)
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == head


# ------------------------------------------------------------------ settings


def test_settings_change_from_the_form_and_a_form_that_changes_nothing_is_refused(settings, sample):
    c, csrf = gm(settings, sample)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/settings", data={
        "csrf": csrf, "key": "s1", "players_may_roll": "no", "players_may_move": "yes", "ers_visibility": "country",
        "reason": "players move their own stacks"}, follow_redirects=False)
    assert r.status_code == 303
    [changed] = sample.history(CID, after=before)
    assert isinstance(changed, ev.CampaignSettingsChanged) and changed.changed == {"players_may_move": True}
    page = c.get("/ui/campaigns/sample/gm").text
    assert re.search(r'id="settings-players_may_move">\s*<option value="yes" selected>', page)
    r = c.post("/ui/campaigns/sample/gm/settings", data={
        "csrf": csrf, "players_may_roll": "no", "players_may_move": "yes", "ers_visibility": "country",
        "reason": "again"})
    assert r.status_code == 422 and "change at least one setting" in error_beside(r.text, "settings",
                                                                                   "players_may_roll")
    assert ">again</textarea>" in r.text and len(sample.history(CID, after=before)) == 1


def test_the_rules_options_are_chosen_from_the_settings_form(settings, sample):
    c, csrf = gm(settings, sample)
    page = c.get("/ui/campaigns/sample/gm").text
    assert 'name="option.M21.artillery_source"' in page and 'name="option.E2.half_with_fti"' in page
    assert "rules_options" not in text_of(page)
    before = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/settings", data={
        "csrf": csrf, "players_may_roll": "no", "players_may_move": "no", "ers_visibility": "country",
        "option.M21.artillery_source": "tables", "option.E2.half_with_fti": "yes", "option.M12.remainders_version": "",
        "reason": "we play the tables' artillery"}, follow_redirects=False)
    assert r.status_code == 303
    [changed] = sample.history(CID, after=before)
    assert changed.changed == {"rules_options": {"M21.artillery_source": "tables", "E2.half_with_fti": True}}
    page = c.get("/ui/campaigns/sample/gm").text
    assert re.search(r'id="settings-option.M21.artillery_source"><option>eu8</option><option selected>tables', page)
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/settings", data={
        "csrf": csrf, "option.M21.artillery_source": "cannons", "reason": "typed"})
    assert r.status_code == 422
    assert error_beside(r.text, "settings", "option.M21.artillery_source") == "choose 'eu8' or 'tables'"
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == head


# ------------------------------------------------------------------ tokens


def test_a_token_is_issued_shown_once_with_its_login_link_listed_and_revoked(settings, sample):
    c, csrf = gm(settings, sample)
    r = c.post("/ui/campaigns/sample/tokens/issue", data={"csrf": csrf, "key": "i1", "role": "player",
                                                          "country": "ENG", "holder": "alice"})
    assert r.status_code == 201 and r.headers["cache-control"] == "no-store"
    raw = re.search(r'id="issued-token" value="([^"]+)"', r.text).group(1)
    link = html.unescape(re.search(r'id="issued-link" value="([^"]+)"', r.text).group(1))
    assert link == f"http://testserver/ui/login?next=%2Fui%2Fcampaigns%2Fsample#token={raw}"
    grant = tokens.authenticate(sample, raw)
    assert (grant.actor.role, grant.actor.country, grant.actor.id) == ("player", "ENG", "alice")
    # The same form sent again (a double click): the same token, its secret not shown again.
    again = c.post("/ui/campaigns/sample/tokens/issue", data={"csrf": csrf, "key": "i1", "role": "player",
                                                              "country": "ENG", "holder": "alice"})
    assert 'id="issued-again"' in again.text and raw not in again.text
    listed = c.get("/ui/campaigns/sample/tokens").text
    assert f'id="token-{grant.token_id}"' in listed and raw not in listed
    r = c.post(f"/ui/campaigns/sample/tokens/{grant.token_id}/revoke", data={"csrf": csrf, "reason": "left the game"},
               follow_redirects=False)
    assert r.status_code == 303 and tokens.authenticate(sample, raw) is None
    assert f'id="token-{grant.token_id}"' not in c.get(r.headers["location"]).text


@pytest.mark.parametrize("fields, field, words", [
    ({"role": "player", "country": ""}, "country", "a player's token names their country"),
    ({"role": "gm", "holder": "x" * 101}, "holder", "at most 100 characters"),
])
def test_a_refused_token_is_said_beside_its_field_and_appends_nothing(settings, sample, fields, field, words):
    c, csrf = gm(settings, sample)
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/tokens/issue", data={"csrf": csrf, "holder": "typed holder", **fields})
    assert r.status_code == 422 and words in error_beside(r.text, "issue-token", field)
    assert_in_page_words(r.text)
    assert sample.campaign(CID).version == head


def test_revoking_an_unknown_token_is_said_beside_its_row(settings, sample):
    c, csrf = gm(settings, sample)
    [live] = tokens.live_tokens(sample, CID)
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/tokens/nosuchtoken/revoke", data={"csrf": csrf, "reason": "gone"})
    assert r.status_code == 404 and "no live token" in text_of(r.text)
    assert_in_page_words(r.text)
    r = c.post(f"/ui/campaigns/sample/tokens/{live['id']}/revoke", data={"csrf": csrf, "reason": ""})
    assert r.status_code == 422 and "cannot be left empty" in text_of(r.text)
    assert sample.campaign(CID).version == head


# ------------------------------------------------------------------ a player


def test_a_player_is_offered_only_what_a_player_may_do(settings, sample):
    c, csrf = player(settings, sample)
    page = c.get("/ui/campaigns/sample").text
    for link in ("/gm", "/tokens", "/rulings/new", "/map"):  # the sample's players may neither roll nor move
        assert f'href="/ui/campaigns/sample{link}"' not in page, link
    sample.handle(CID, cmd.build(cmd.ChangeSettings, settings={"players_may_roll": True}, reason="players roll"),
                  actor=GM)
    page = c.get("/ui/campaigns/sample").text
    assert 'href="/ui/campaigns/sample/rulings/new"' in page and 'href="/ui/campaigns/sample/gm"' not in page
    sample.handle(CID, cmd.build(cmd.ChangeSettings, settings={"players_may_roll": False, "players_may_move": True},
                                 reason="players move, the game master rolls"), actor=GM)
    page = c.get("/ui/campaigns/sample").text
    assert 'href="/ui/campaigns/sample/map"' in page and 'href="/ui/campaigns/sample/rulings/new"' not in page
    assert 'href="/ui/campaigns/sample/rulings/new"' not in c.get("/ui/campaigns/sample/map").text


def test_a_game_master_is_offered_the_desk_and_the_tokens_from_the_campaign_page(settings, sample):
    c, _ = gm(settings, sample)
    page = c.get("/ui/campaigns/sample").text
    for link in ("/gm", "/tokens", "/rulings/new", "/map"):
        assert f'href="/ui/campaigns/sample{link}"' in page, link


@pytest.mark.parametrize("path, data", [
    ("/gm/open-turn", {}), ("/gm/close-phase", {"phase": "events"}), ("/gm/close-turn", {"turn": "2"}),
    ("/gm/treasury", {"country": "FRA", "line": "A9", "amount": "5", "reason": "mine"}),
    ("/gm/entry-correction", {"corrects": "3", "amount": "5", "reason": "mine"}),
    ("/gm/settings", {"players_may_roll": "yes", "reason": "let us roll"}),
    ("/tokens/issue", {"role": "gm", "holder": "me"}),
])
def test_a_player_is_refused_the_game_masters_forms(settings, sample, path, data):
    c, csrf = player(settings, sample)
    assert c.get("/ui/campaigns/sample/gm").status_code == 403
    assert c.get("/ui/campaigns/sample/tokens").status_code == 403
    head = sample.campaign(CID).version
    r = c.post(f"/ui/campaigns/sample{path}", data={"csrf": csrf, **data})
    assert r.status_code == 403 and sample.campaign(CID).version == head


def test_a_form_without_its_csrf_token_is_refused(settings, sample):
    c, _ = gm(settings, sample)
    head = sample.campaign(CID).version
    r = c.post("/ui/campaigns/sample/gm/open-turn", data={"csrf": "forged"})
    assert r.status_code == 403 and sample.campaign(CID).version == head


def test_no_page_of_the_game_master_shows_an_api_field_name(settings, sample):
    c, _ = gm(settings, sample)
    for path in ("/ui/campaigns/sample/gm", "/ui/campaigns/sample/tokens", "/ui/campaigns/sample"):
        r = c.get(path)
        assert r.status_code == 200
        assert_in_page_words(r.text)
    admin, _ = client(settings, sample, ADMIN)
    assert_in_page_words(admin.get("/ui/new-campaign").text)
