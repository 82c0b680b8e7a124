"""The reader's language over HTTP (api/language.py): ``?lang=`` remembered in a cookie, else the cookie, else
``Accept-Language``; every answer says its language and what it varies by; the kept pages and ETags are per
language, so one reader's language never reaches another."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.language import COOKIE
from api.main import create_app
from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

CID = campaign_id("sample")
TURN = "/ui/campaigns/sample/turns/1?step=5"


@pytest.fixture
def reader(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    _, eng = tokens.issue_token(ledger, CID, role="player", country="ENG", holder="alice", actor=GM)
    with TestClient(create_app(settings, ledger), headers={"Authorization": f"Bearer {eng}"}) as c:
        yield c


def test_the_browsers_language_chooses_the_page_and_the_answer_says_so(reader):
    r = reader.get(TURN, headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"})
    assert r.status_code == 200 and '<html lang="fr">' in r.text
    assert "Tour 1" in r.text and "« précédent" in r.text and "« previous" not in r.text
    assert r.headers["content-language"] == "fr"
    assert {"accept-language", "cookie"} <= {v.strip().lower() for v in r.headers["vary"].split(",")}
    assert COOKIE not in r.headers.get("set-cookie", "")  # the browser chose: nothing to remember
    english = reader.get(TURN)
    assert '<html lang="en">' in english.text and "« previous" in english.text
    assert english.headers["content-language"] == "en"


def test_the_switch_is_remembered_over_the_browsers_language(reader):
    r = reader.get(TURN + "&lang=fr")
    assert "Tour 1" in r.text
    assert f"{COOKIE}=fr" in r.headers["set-cookie"] and "Path=/" in r.headers["set-cookie"]
    # The switch on the page links this very step in the other language.
    assert 'href="/ui/campaigns/sample/turns/1?step=5&amp;lang=en" hreflang="en"' in r.text
    reader.cookies.set(COOKIE, "fr")
    assert "Tour 1" in reader.get(TURN, headers={"Accept-Language": "en"}).text
    reader.cookies.set(COOKIE, "en")
    assert "« previous" in reader.get(TURN, headers={"Accept-Language": "fr"}).text


def test_a_kept_page_is_kept_per_language(reader):
    # The page cache keys its bytes by (request, reader, head): the language is part of the request's key, so the
    # French page kept first is not what an English reader gets next, nor its ETag.
    fr = reader.get(TURN, headers={"Accept-Language": "fr"})
    en = reader.get(TURN, headers={"Accept-Language": "en"})
    fr_again = reader.get(TURN, headers={"Accept-Language": "fr"})
    assert "« précédent" in fr.text and "« previous" in en.text and "« précédent" not in en.text
    assert fr.headers["etag"] != en.headers["etag"] and fr_again.headers["etag"] == fr.headers["etag"]
    held = reader.get(TURN, headers={"Accept-Language": "en", "If-None-Match": fr.headers["etag"]})
    assert held.status_code == 200 and "« previous" in held.text  # a French copy is not "not modified" in English


def test_an_error_is_told_in_the_readers_language(reader):
    r = reader.get("/ui/campaigns/sample/turns/9", headers={"Accept-Language": "fr"})
    assert r.status_code == 404 and "le tour 9 n&#39;a aucun événement que vous puissiez voir" in r.text
    api = reader.get("/campaigns/nowhere/map", headers={"Accept-Language": "fr"})
    assert api.status_code == 404 and api.json()["error"]["message"].startswith("aucune campagne")
    assert reader.get("/campaigns/nowhere/map").json()["error"]["message"].startswith("no campaign")


def test_a_charts_title_is_in_the_readers_language_and_kept_per_language(reader):
    fr = reader.get("/campaigns/sample/charts/treasury.svg", headers={"Accept-Language": "fr"})
    en = reader.get("/campaigns/sample/charts/treasury.svg", headers={"Accept-Language": "en"})
    assert fr.status_code == en.status_code == 200
    assert "trésor royal (A1 en début, A33 en fin de tour)" in fr.text and "royal treasury" not in fr.text
    assert "royal treasury (A1 at start, A33 at end of turn)" in en.text
    assert fr.headers["etag"] != en.headers["etag"]
