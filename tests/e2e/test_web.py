"""The web page's access rules over HTTP (no browser): login cookie, CSRF, roles, development mode.

The browser tests (tests/browser) drive the same pages in Chromium; these
check the edges a browser would not exercise: a forged or missing CSRF token,
the login cookie refused for the API's writes, a bad token at the login form,
development mode from loopback.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from freezegun import freeze_time

from api.main import create_app
from api.security import TOKEN_COOKIE
from api.web.turn_view import turn_view
from ledger import tokens
from ledger.application import Actor, visibility
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import RevokeToken
from ledger.domain.errors import EventNotFound
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-web-tests"
CID = campaign_id("sample")


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    return ledger


def client(settings, ledger, **kw) -> TestClient:
    return TestClient(create_app(settings, ledger), **kw)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def log_in(c: TestClient, token: str) -> str:
    page = c.get("/ui/login")
    r = c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": token, "next": "/ui"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui"
    return csrf_of(c.get("/ui").text)


def test_login_sets_an_httponly_samesite_strict_cookie_and_a_bad_token_is_refused(settings, sample):
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        assert c.get("/ui/campaigns/sample", follow_redirects=False).headers["location"] == \
            "/ui/login?next=%2Fui%2Fcampaigns%2Fsample"
        page = c.get("/ui/login")
        bad = c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": "lt_nope"})
        assert bad.status_code == 401 and "unknown or revoked token" in bad.text
        r = c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": gm}, follow_redirects=False)
        cookie = r.headers["set-cookie"]
        # The cookie holds a session of the campaign, never the token, and says how long it lasts.
        assert cookie.startswith(f"{TOKEN_COOKIE}=ls_{CID.hex}_") and gm not in cookie
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert f"Max-Age={settings.session_hours * 3600}" in cookie
        assert c.get("/ui/campaigns/sample").status_code == 200


def _session_of(c: TestClient) -> str:
    return c.cookies.get(TOKEN_COOKIE)


def test_a_login_is_recorded_for_the_game_master_only_and_a_logout_ends_every_copy_of_the_cookie(settings, sample):
    _, fra = tokens.issue_token(sample, CID, role="player", country="FRA", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        csrf = log_in(c, fra)
        copied = _session_of(c)
        [opened] = [e for e in sample.history(CID) if type(e).__name__ == "SessionOpened"]
        assert opened.visibility == {"scope": "gm"} and opened.sha256 == tokens.digest(copied)
        assert copied not in repr(opened.__dict__)  # only its hash is kept
        assert c.post("/ui/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
        [ended] = [e for e in sample.history(CID) if type(e).__name__ == "SessionEnded"]
        assert (ended.session_id, ended.reason, ended.actor["country"]) == (opened.session_id, "logged out", "FRA")
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as thief:
        thief.cookies.set(TOKEN_COOKIE, copied)
        r = thief.get("/ui/campaigns/sample", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/ui/login")
        assert thief.get("/campaigns/sample/events?limit=1").status_code == 401


def test_revoking_a_token_ends_its_logins(settings, sample):
    result, fra = tokens.issue_token(sample, CID, role="player", country="FRA", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        log_in(c, fra)
        assert c.get("/campaigns/sample/events?limit=1").status_code == 200
        sample.handle(CID, RevokeToken(token_id=tokens.digest(fra)[:16], reason="left the game"), actor=GM)
        assert c.get("/campaigns/sample/events?limit=1").status_code == 401


def test_a_login_expires_after_the_services_session_hours(settings, sample):
    _, fra = tokens.issue_token(sample, CID, role="player", country="FRA", actor=GM)
    short = settings.model_copy(update={"admin_token": ADMIN, "session_hours": 2})
    with freeze_time("2026-11-29 09:00:00", tick=True) as clock, client(short, sample) as c:
        log_in(c, fra)
        [opened] = [e for e in sample.history(CID) if type(e).__name__ == "SessionOpened"]
        assert opened.expires_at.startswith("2026-11-29T11:00:")  # two hours from the login (the clock ticks)
        clock.move_to("2026-11-29 10:59:00")
        assert c.get("/campaigns/sample/events?limit=1").status_code == 200
        session = _session_of(c)
        clock.move_to("2026-11-29 11:01:00")
        c.cookies.clear()  # the browser drops it at its Max-Age; one kept past it is refused by the service
        r = c.get("/campaigns/sample/events?limit=1", headers={"Cookie": f"{TOKEN_COOKIE}={session}"})
        assert r.status_code == 401 and "log in again" in r.text


def test_the_admins_web_login_is_a_signed_cookie_that_expires_never_the_admin_token(settings, sample):
    with freeze_time("2026-11-29 09:00:00", tick=True) as clock, \
            client(settings.model_copy(update={"admin_token": ADMIN, "session_hours": 1}), sample) as c:
        log_in(c, ADMIN)
        cookie = _session_of(c)
        assert cookie.startswith("la_") and ADMIN not in cookie
        assert c.get("/ui/campaigns/sample").status_code == 200
        c.cookies.set(TOKEN_COOKIE, cookie[:-1] + ("0" if cookie[-1] != "0" else "1"))  # its signature altered
        assert c.get("/campaigns/sample/events?limit=1").status_code == 401
        clock.move_to("2026-11-29 10:01:00")
        c.cookies.clear()
        assert c.get("/campaigns/sample/events?limit=1", headers={"Cookie": f"{TOKEN_COOKIE}={cookie}"}).status_code == 401


def test_a_cookie_holding_a_raw_token_is_refused(settings, sample):
    """Before sessions the cookie held the token: such a cookie (or one copied out of a token list) logs in no one."""
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        c.cookies.set(TOKEN_COOKIE, gm)
        assert c.get("/campaigns/sample/events?limit=1").status_code == 401


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "same-site"}, {"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "http://evil.example.org"}])
def test_a_form_sent_from_another_origins_page_is_refused_login_included(settings, sample, headers):
    """Login CSRF: a sibling host of the same site can set the csrf cookie and so forge a matching token;
    the browser's own word on where the form came from refuses it."""
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    head = sample.campaign(CID).version
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        page = c.get("/ui/login")
        r = c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": gm}, headers=headers,
                   follow_redirects=False)
        assert r.status_code == 403 and "another site" in r.text and TOKEN_COOKIE not in r.headers.get("set-cookie", "")
        ok = c.post("/ui/login", data={"csrf": csrf_of(page.text), "token": gm}, follow_redirects=False,
                    headers={"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"})
        assert ok.status_code == 303
    assert sample.campaign(CID).version == head + 1  # the one login recorded


def test_the_login_cookie_reads_the_api_but_never_writes_through_it(settings, sample):
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        log_in(c, gm)
        assert c.get("/campaigns/sample/events?limit=1").status_code == 200
        head = sample.campaign(CID).version
        r = c.post("/campaigns/sample/corrections", json={"corrects": 17, "reason": "through the cookie"})
        assert r.status_code == 401  # API writes need the Authorization header
        assert sample.campaign(CID).version == head


def test_a_correction_needs_the_forms_csrf_token_and_is_recorded_once(settings, sample):
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        csrf = log_in(c, gm)
        head = sample.campaign(CID).version
        # Position 17: the loot of Picardie (A9), after turn 1's first three phases closed.
        form = {"corrects": "17", "reason": "the loot was 10", "replacement": '{"amount": 10}', "key": "form-1"}
        assert c.post("/ui/campaigns/sample/corrections", data=form).status_code == 403  # no token
        assert c.post("/ui/campaigns/sample/corrections", data={**form, "csrf": "x" * len(csrf)}).status_code == 403
        assert sample.campaign(CID).version == head
        bad = c.post("/ui/campaigns/sample/corrections", data={**form, "csrf": csrf, "replacement": "[1]"})
        assert bad.status_code == 422 and "replacement" in bad.text
        for _ in range(2):  # a double submit of the same form appends once (its idempotency key)
            r = c.post("/ui/campaigns/sample/corrections", data={**form, "csrf": csrf}, follow_redirects=False)
            assert r.status_code == 303
            assert r.headers["location"] == "/ui/campaigns/sample/turns/1?position=17#corrections"
        [e] = sample.history(CID, after=head)
        assert (type(e).__name__, e.corrects, e.reason, e.replacement, e.actor["id"]) == (
            "CorrectionRecorded", 17, "the loot was 10", {"amount": 10}, "gina")


def test_a_correction_of_a_hidden_event_stays_as_hidden_as_the_original(settings, sample):
    hidden = sample.record_treasury_entry(CID, country="FRA", line="A9", amount=7, reason="secret", actor=GM,
                                          vis=visibility("countries", ["FRA"])).events[0]["position"]
    with client(settings, sample, client=("127.0.0.1", 50000)) as c:  # development mode: loopback is admin
        csrf = csrf_of(c.get("/ui/campaigns/sample").text)
        r = c.post("/ui/campaigns/sample/corrections", data={"csrf": csrf, "corrects": str(hidden),
                                                             "reason": "it was 5", "replacement": '{"amount": 5}'},
                   follow_redirects=False)
        assert r.status_code == 303
    correction = sample.history(CID)[-1]
    assert correction.visibility == {"scope": "countries", "countries": ["FRA"]}
    eng = Actor("alice", "player", "ENG")
    with pytest.raises(EventNotFound):
        turn_view(sample, CID, 2, eng, position=correction.originator_version)


def test_development_mode_from_loopback_needs_no_login_and_other_addresses_do(settings, sample):
    dev = settings.model_copy(update={"env": "development", "admin_token": None})
    # base_url: development mode answers loopback Host names only (api/guards.py).
    with client(dev, sample, client=("127.0.0.1", 50000), base_url="http://127.0.0.1:8000") as c:
        r = c.get("/ui/campaigns/sample/turns/1?step=7")
        assert r.status_code == 200 and 'id="position">9<' in r.text and 'id="dispute-form"' in r.text
    with client(dev, sample, client=("192.0.2.7", 50000), base_url="http://localhost:8000") as c:
        assert c.get("/ui", follow_redirects=False).headers["location"] == "/ui/login?next=%2Fui"


def test_a_player_sees_neither_the_dispute_form_nor_another_campaigns_pages(settings, sample):
    _, eng = tokens.issue_token(sample, CID, role="player", country="ENG", holder="alice", actor=GM)
    sample.create_campaign(slug="other", name="Other", ruleset="eu", countries=["ENG"], actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        log_in(c, eng)
        page = c.get("/ui/campaigns/sample/turns/1?position=17")
        assert page.status_code == 200 and "dispute-form" not in page.text
        listed = c.get("/ui").text
        assert "/ui/campaigns/sample" in listed and "/ui/campaigns/other" not in listed
        assert c.get("/ui/campaigns/other").status_code == 403


def test_every_answer_forbids_framing_sniffing_and_inline_script(settings, ledger):
    """A game master's forms cannot be framed under another site's buttons (frame-ancestors 'none'), no answer
    is read as another type (nosniff), no address of a page goes to another site, and pages run no inline
    script (the one script is the ledger's own file)."""
    http = client(settings, ledger)
    for path in ("/ui", "/health", "/docs", "/campaigns/no-such-campaign/state"):
        r = http.get(path)
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["referrer-policy"] == "same-origin", path
        assert r.headers["x-frame-options"] == "DENY", path
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp, path
    page = http.get("/ui").headers["content-security-policy"]
    [scripts] = [d for d in page.split("; ") if d.startswith("script-src")]
    assert scripts == "script-src 'self'"


def test_nothing_a_reader_is_shown_is_kept_by_their_browser_but_the_static_files(settings, sample):
    """Private pages, JSON reads and downloads say ``Cache-Control: no-store`` (a shared computer's browser or a
    proxy keeps no player's sheet on disk), a kept answer's 304 too; the static files, the same for everyone,
    do not."""
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        c.headers["Authorization"] = f"Bearer {ADMIN}"
        for path in ("/ui", "/ui/campaigns/sample/turns/1?step=2", "/campaigns/sample/state",
                     "/campaigns/sample/export/entries.csv?country=FRA", "/ui/login"):
            r = c.get(path)
            assert r.headers["cache-control"] == "no-store", (path, r.status_code, r.headers.get("cache-control"))
        read = c.get("/campaigns/sample/state")
        again = c.get("/campaigns/sample/state", headers={"If-None-Match": read.headers["etag"]})
        assert again.status_code == 304 and again.headers["cache-control"] == "no-store"
        static = c.get("/ui/static/ledger.css")
        assert static.status_code == 200 and static.headers.get("cache-control") != "no-store"
