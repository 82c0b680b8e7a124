"""Rendered answers kept per worker (api/readpath.py): the web pages, ``map.svg`` and the JSON reads, by request,
reader and head position, with an ETag. Correct by construction: a campaign's head moves with every append, so
what a reader may see after an append is never answered from before it; a page kept for one reader (a country's
player, a game master) is never served to another; a client holding an answer gets a 304 once the head is read,
without a render; each page served has its own form key and its session's CSRF token.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.readpath import ResponseCache
from api.routes import web
from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-tests"
LOOT = "the sack of Calais kept quiet"


@pytest.fixture
def world(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    cid = campaign_id("sample")
    bearer = {}
    for who, fields in {"gm": {"role": "gm"}, "fra": {"role": "player", "country": "FRA"},
                        "eng": {"role": "player", "country": "ENG"}}.items():
        _, raw = tokens.issue_token(ledger, cid, actor=GM, holder=f"holder-{who}", **fields)
        bearer[who] = {"Authorization": f"Bearer {raw}"}
    app = create_app(settings.model_copy(update={"admin_token": ADMIN, "projection_runner": "external"}), ledger)
    return {"client": TestClient(app), "ledger": ledger, "cid": cid, "app": app, **bearer}


def page(w, who: str, path: str, **headers):
    answer = w["client"].get(path, headers={**w[who], **headers})
    assert answer.status_code in (200, 304), answer.text
    return answer


def without_form_keys(html: str) -> str:
    return re.sub(r'name="key" value="[^"]*"', 'name="key"', html)


def hide_loot(w) -> None:
    """An entry on France's sheet: seen by France's player and the game masters, not by England's player."""
    w["ledger"].record_treasury_entry(w["cid"], country="FRA", line="A9", amount=777, reason=LOOT, actor=GM)


ERS = "/ui/campaigns/sample/ers/FRA/2"  # the sample's open turn, where the entry goes


def test_a_kept_page_changes_after_an_append_its_reader_can_see(world):
    before = page(world, "fra", ERS)
    again = page(world, "fra", ERS)
    assert without_form_keys(again.text) == without_form_keys(before.text) and LOOT not in before.text
    assert again.headers["ETag"] == before.headers["ETag"]
    hide_loot(world)
    after = page(world, "fra", ERS)
    assert LOOT in after.text and after.headers["ETag"] != before.headers["ETag"]


def test_a_page_kept_for_one_reader_is_never_served_to_another(world):
    hide_loot(world)
    seen = {who: page(world, who, ERS) for who in ("fra", "eng", "gm")}  # France's first: the one kept first
    assert LOOT in seen["fra"].text and LOOT in seen["gm"].text
    assert LOOT not in seen["eng"].text  # England's player is not served France's kept page
    for who, name in (("fra", "holder-fra"), ("eng", "holder-eng"), ("gm", "holder-gm")):
        assert re.search(rf'id="whoami">[^<]*{name}', seen[who].text) or name in seen[who].text
    # And the other way round: the game master's page first, then a player's.
    for path in ("/ui/campaigns/sample/ers/FRA/1", "/campaigns/sample/map.svg"):
        gm, eng = page(world, "gm", path), page(world, "eng", path)
        assert gm.headers["ETag"] != eng.headers["ETag"]
    assert LOOT not in page(world, "eng", ERS).text


def test_a_client_holding_the_answer_gets_a_304_after_the_head_is_read_without_a_render(world, monkeypatch):
    paths = [ERS, "/ui/campaigns/sample/turns/1?step=2", "/ui/campaigns/sample/places/Picardie",
             "/campaigns/sample/map.svg?at=5", "/campaigns/sample/state?at=5", "/campaigns/sample/turns/1/timeline"]
    tags = {p: page(world, "fra", p).headers["ETag"] for p in paths}

    def no_render(*_, **__):
        raise AssertionError("a 304 renders nothing")

    with monkeypatch.context() as m:
        m.setattr(web.templates, "get_template", no_render)
        m.setattr(world["app"].state.reads.cache, "get", no_render)
        for p, tag in tags.items():
            held = page(world, "fra", p, **{"If-None-Match": tag})
            assert held.status_code == 304 and held.content == b"" and held.headers["ETag"] == tag, p
    # Another reader's tag is not theirs to hold: a whole answer.
    assert page(world, "eng", ERS, **{"If-None-Match": tags[ERS]}).status_code == 200
    # An append moves the head: what France's player held is answered anew, with a new tag.
    hide_loot(world)
    for p, tag in tags.items():
        fresh = page(world, "fra", p, **{"If-None-Match": tag})
        assert fresh.status_code == 200 and fresh.headers["ETag"] != tag, p


def test_a_correction_is_an_append_like_any_other_for_the_kept_answers(world):
    hide_loot(world)
    held = page(world, "gm", ERS)
    position = world["ledger"].campaign(world["cid"]).version
    world["ledger"].record_correction(world["cid"], corrects=position, reason="no such sack: struck",
                                      actor=GM)
    after = page(world, "gm", ERS, **{"If-None-Match": held.headers["ETag"]})
    assert after.status_code == 200 and after.headers["ETag"] != held.headers["ETag"]
    assert without_form_keys(after.text) != without_form_keys(held.text)


def test_each_page_served_has_its_own_form_key_and_its_sessions_csrf_token(world):
    client = world["client"]
    client.cookies.set(web.CSRF_COOKIE, "a-csrf-secret")
    first, second = page(world, "gm", ERS), page(world, "gm", ERS)  # the second from the kept page
    keys = [re.findall(r'name="key" value="([^"]+)"', p.text) for p in (first, second)]
    assert keys[0] and keys[1] and keys[0] != keys[1]
    csrf = web._csrf_for("a-csrf-secret", "")
    for p in (first, second):
        assert re.findall(r'name="csrf" value="([^"]+)"', p.text) == [csrf] * p.text.count('name="csrf"')
        assert web.CSRF_SLOT not in p.text and web.KEY_SLOT not in p.text
    # Another session (another CSRF secret) holds another page: its tag does not match this one's.
    client.cookies.set(web.CSRF_COOKIE, "another-secret")
    assert page(world, "gm", ERS, **{"If-None-Match": first.headers["ETag"]}).status_code == 200


def test_the_kept_answers_are_bounded_in_bytes_least_recently_used_first_out():
    cache = ResponseCache(max_bytes=16_000)
    for n in range(40):
        cache.put(f"/page/{n}", ("all", None), 7, b"x" * 1000)
        cache.get("/page/0", ("all", None), 7)  # the first one, used all along, stays
    assert cache.size <= 16_000
    assert cache.get("/page/0", ("all", None), 7) == b"x" * 1000
    assert cache.get("/page/1", ("all", None), 7) is None  # the least recently used went first
    assert cache.get("/page/0", ("all", None), 8) is None  # at another head, nothing
    cache.put("/big", ("all", None), 7, b"x" * 3000)  # more than an eighth of the bound: not kept
    assert cache.get("/big", ("all", None), 7) is None and cache.get("/page/0", ("all", None), 7)
