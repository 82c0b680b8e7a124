"""The fast reads (projections/head.py, api/readpath.py): views at the head whatever the runner's lag, per audience,
cached by head, behind FastAPI's routing and the authentication every route has.

Every answer is compared with a replay from the first event (``replay.state_from_scratch``,
``projections.economy.campaign_budget``), with the views empty, behind, and caught up; the
second identical request is served from the response cache, and an append
changes the answer at once.
"""

from __future__ import annotations

import orjson
import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import tokens
from ledger.domain.commands import RevokeToken
from projections.economy import campaign_budget
from ledger.application import Actor
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from projections import corrections, read, replay
from ledger.economy.sheets import sheet_json
from projections.runner import Projector

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

ADMIN = "admin-secret-for-tests"
M13 = {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4, "blockader_nd": 6,
       "blockader_all_nwd": True, "blockader_technology": "GAL"}


@pytest.fixture
def world(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    cid = campaign_id("sample")
    _, player = tokens.issue_token(ledger, cid, role="player", country="FRA", actor=GM)
    # No runner in this app: the views move only when the test says so.
    app = create_app(settings.model_copy(update={"admin_token": ADMIN, "projection_runner": "external"}), ledger)
    return {"client": TestClient(app), "ledger": ledger, "cid": cid, "app": app,
            "gm": {"Authorization": f"Bearer {ADMIN}"}, "player": {"Authorization": f"Bearer {player}"},
            "fra": Actor("bruno", "player", "FRA")}


def expected(ledger, cid, actor=None):
    head = ledger.campaign(cid).version
    if actor is None:
        return replay.state_from_scratch(ledger, cid, head)
    # From the first event, the caller's visible ones only: what the checkpoints and the tail must equal.
    return corrections.fold(replay.MODELS, read.visible_records(ledger, cid, actor, ledger.campaign(cid).revealed,
                                                                0, head))


def check_all(w):
    client, ledger, cid = w["client"], w["ledger"], w["cid"]
    want = expected(ledger, cid)
    for _ in range(2):  # the second round comes from the response cache
        assert client.get("/campaigns/sample/map", headers=w["gm"]).json() == want["map"]
        state = client.get("/campaigns/sample/state", headers=w["gm"]).json()
        assert (state["position"], state["map"], state["victory"]) == (want["position"], want["map"], want["victory"])
        mine = expected(ledger, cid, w["fra"])
        assert client.get("/campaigns/sample/map", headers=w["player"]).json() == mine["map"]
        assert client.get("/campaigns/sample/state", headers=w["player"]).json()["victory"] == mine["victory"]
        rows = client.get("/campaigns/sample/turns/2/timeline", headers=w["gm"]).json()
        records = read.records(ledger, cid, 0, want["position"])
        assert rows == [r for r in replay.timeline_rows(records) if r["turn"] == 2]
        for who, actor in (("gm", None), ("player", w["fra"])):
            sheet = client.get("/campaigns/sample/ers/FRA/2", headers=w[who])
            assert sheet.status_code == 200, sheet.text
            assert sheet.json() == sheet_json(campaign_budget(ledger, cid, actor=actor).sheet("FRA", 2))


def test_reads_are_at_the_head_with_the_views_empty_behind_or_caught_up(world):
    ledger, cid = world["ledger"], world["cid"]
    check_all(world)  # views empty: the whole history is the tail
    Projector(ledger).catch_up()
    check_all(world)  # caught up
    ledger.record_ruling(cid, procedure="M13", inputs=M13, actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=7, reason="loot", actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=100, reason="secret", actor=GM,
                                 vis={"scope": "gm"})
    check_all(world)  # behind by three events, one of them hidden from the player
    gm_sheet = world["client"].get("/campaigns/sample/ers/FRA/2", headers=world["gm"]).json()
    fra_sheet = world["client"].get("/campaigns/sample/ers/FRA/2", headers=world["player"]).json()
    a9 = {s: next(line["amount"] for line in sheet["lines"] if line["code"] == "A9")
          for s, sheet in (("gm", gm_sheet), ("fra", fra_sheet))}
    assert a9["gm"] - a9["fra"] == 100  # the hidden entry counts for the game master only
    Projector(ledger).catch_up()
    check_all(world)


def test_an_append_changes_the_cached_answer_at_once(world):
    client, ledger, cid = world["client"], world["ledger"], world["cid"]
    first = client.get("/campaigns/sample/state", headers=world["gm"])
    again = client.get("/campaigns/sample/state", headers=world["gm"])
    assert first.content == again.content
    assert world["app"].state.reads.cache.get("/campaigns/sample/state", ("all", None), first.json()["position"])
    ledger.record_ruling(cid, procedure="M13", inputs=M13, actor=GM)
    after = client.get("/campaigns/sample/state", headers=world["gm"]).json()
    assert after["position"] == first.json()["position"] + 1
    rows = client.get("/campaigns/sample/turns/2/timeline", headers=world["gm"]).json()
    assert rows[-1]["position"] == after["position"] and rows[-1]["type"] == "RulingRecorded"


def test_the_fast_path_leaves_every_refusal_to_the_routes(world):
    client = world["client"]
    assert client.get("/campaigns/sample/map", headers=world["gm"]).status_code == 200
    assert client.get("/campaigns/sample/map").status_code == 401
    assert client.get("/campaigns/sample/map", headers={"Authorization": "Bearer nope"}).status_code == 401
    other = world["ledger"].create_campaign(slug="other", name="Other", ruleset="eu", countries=["ENG"], actor=GM)
    _, foreign = tokens.issue_token(world["ledger"], campaign_id("other"), role="gm", actor=GM)
    assert other.data["slug"] == "other"
    assert client.get("/campaigns/sample/map", headers={"Authorization": f"Bearer {foreign}"}).status_code == 403
    bad = client.get("/campaigns/sample/ers/FRA/9", headers=world["gm"])
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "turn"
    assert client.get("/campaigns/sample/ers/XYZ/1", headers=world["gm"]).status_code == 422
    assert client.get("/campaigns/sample/turns/0/timeline", headers=world["gm"]).status_code == 422
    assert orjson.loads(client.get("/campaigns/sample/turns/1/timeline", headers=world["gm"]).content)


def test_the_fast_reads_are_fastapi_routes_with_the_routes_authentication(world):
    from fastapi.routing import APIRoute

    from api.deps import campaign_state, get_actor
    from api.routes import economy
    from api.routes import projections as projection_routes

    app, client, ledger, cid = world["app"], world["client"], world["ledger"], world["cid"]
    paths = {"/campaigns/{campaign}/map", "/campaigns/{campaign}/victory", "/campaigns/{campaign}/state",
             "/campaigns/{campaign}/turns/{turn}/timeline", "/campaigns/{campaign}/ers/{country}/{turn}"}
    routes = {r.path: r for router in (projection_routes.router, economy.router) for r in router.routes
              if isinstance(r, APIRoute) and r.path in paths and "GET" in r.methods}
    assert set(routes) == paths
    for route in routes.values():
        calls = {d.call for d in route.dependant.dependencies}
        assert {get_actor, campaign_state} <= calls, route.path
    # No layer answers before routing: the middlewares only observe, bound the body and bound requests in flight,
    # let reads take turns, set the reader's language, and add headers (a write's Ledger-Position, the security
    # headers, Content-Language and Vary).
    assert {m.cls.__name__ for m in app.user_middleware} == {"Observability", "BodyLimit", "InFlightLimit",
                                                             "ReadSlots", "Positions", "SecurityHeaders", "Language"}

    from api import schemas

    documented = {"map": schemas.MapPublic, "victory": schemas.VictoryPublic, "state": schemas.StatePublic,
                  "ers/FRA/2": schemas.ErsSheet}
    for who in ("gm", "player"):  # the bytes hold what the OpenAPI schema says
        for path, model in documented.items():
            model.model_validate_json(client.get(f"/campaigns/sample/{path}", headers=world[who]).content)

    issued, player = tokens.issue_token(ledger, cid, role="player", country="FRA", actor=GM)
    token_id = issued.data["token_id"]
    gm_map = client.get("/campaigns/sample/map", headers=world["gm"])
    head = ledger.campaign(cid).version
    assert app.state.reads.cache.get("/campaigns/sample/map", ("all", None), head) == gm_map.content
    # A body is cached for this path at this head: a caller without a valid token still gets the refusal.
    assert client.get("/campaigns/sample/map", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.get("/campaigns/sample/map").status_code == 401
    assert ledger.campaign(cid).version == head
    for _ in range(2):  # the second answer comes from the response cache
        assert client.get("/campaigns/sample/map", headers={"Authorization": f"Bearer {player}"}).status_code == 200
    ledger.submit(cid, RevokeToken, token_id=token_id, reason="left the game", actor=GM)
    r = client.get("/campaigns/sample/map", headers={"Authorization": f"Bearer {player}"})
    assert (r.status_code, r.json()["error"]["message"]) == (401, "unknown or revoked token")


def test_the_turn_page_from_checkpoints_equals_a_fold_from_the_first_event(world):
    from api.web.turn_view import turn_view
    from ledger.economy.sheets import budget
    from projections.head import Reader
    from projections.words import ers_key

    def _sheet_cells(b):
        return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
                for code, c in (sheet.cells or {}).items()}

    ledger, cid = world["ledger"], world["cid"]
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=100, reason="secret", actor=GM,
                                 vis={"scope": "gm"})
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=7, reason="loot", actor=GM)
    for caught_up in (False, True):
        if caught_up:
            Projector(ledger).catch_up()
        reader = Reader(ledger, Projector(ledger).db)
        for actor in (GM, world["fra"]):
            state = ledger.campaign(cid)
            mine = read.visible_records(ledger, cid, actor, state.revealed, 0, state.version)
            steps = [r for r in mine if r.turn == 2]
            for n, r in enumerate(steps, 1):
                view = turn_view(ledger, cid, 2, actor, step=n, reader=reader)
                upto = [x for x in mine if x.position <= r.position]
                want = corrections.fold(replay.MODELS, upto)
                assert (view.event["position"], view.map, view.victory) == (r.position, want["map"], want["victory"])
                c0, c1 = _sheet_cells(budget(upto[:-1])), _sheet_cells(budget(upto))
                changed = [{"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": v}
                           for k, v in sorted(c1.items(), key=lambda kv: (kv[0][0], kv[0][1], ers_key(kv[0][2])))
                           if c0.get(k) != v]
                shown = [{k: b[k] for k in ("country", "turn", "line", "from", "to")} for b in view.budget_changes]
                assert shown == (changed if r.type not in ("TurnOpened",) else [])


def test_a_page_or_a_read_asks_each_store_for_the_campaigns_head_once(world, monkeypatch):
    """The head is read once per request (the token check, reused by the routes and the pages): a page read at
    two heads could mix them, and each read of it was a round trip. With a replica (tests/replica), the replica
    that serves the read is asked once, and the primary once more for a campaign token only (a revocation
    counts at once)."""
    from api.replica import replica_of

    client, ledger = world["client"], world["ledger"]
    Projector(ledger).catch_up()
    stores = {"primary": ledger, "replica": replica_of(world["app"])}
    asked: dict[str, list] = {"primary": [], "replica": []}
    for name, store in stores.items():
        if store is not None:
            plain = store.recorder.head_version
            monkeypatch.setattr(store.recorder, "head_version",
                                lambda cid, name=name, plain=plain: asked[name].append(cid) or plain(cid))
    head = ledger.campaign(world["cid"]).version
    paths = ["/ui/campaigns/sample/turns/1?step=3", "/ui/campaigns/sample/ers/FRA/2",
             f"/ui/campaigns/sample/places/Picardie?at={head - 2}", "/ui/campaigns/sample",
             f"/campaigns/sample/state?at={head - 3}", f"/campaigns/sample/map.svg?at={head - 1}",
             "/campaigns/sample/turns/2/timeline", "/campaigns/sample/ers/FRA/2"]
    for path in paths:
        for who in ("gm", "player"):
            for kept in asked.values():
                kept.clear()
            answer = client.get(path, headers=world[who])
            assert answer.status_code == 200, (path, who, answer.text[:300])
            served = answer.headers.get("Ledger-Read", "primary")
            token_checked = who == "player"  # the game master here is the admin token: no campaign token
            want = {"primary": [world["cid"]] if served == "primary" or token_checked else [],
                    "replica": [world["cid"]] if served == "replica" else []}
            assert asked == want, (path, who)
