"""The read-model routes over HTTP (in-process ASGI client, both stores)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = {"Authorization": "Bearer admin-secret-for-tests"}


@pytest.fixture
def client(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    app = create_app(settings.model_copy(update={"admin_token": "admin-secret-for-tests"}), ledger)
    with TestClient(app) as c:  # the lifespan starts the projection runner thread
        yield c


def positions(client, procedure):
    return [e["position"] for e in client.get("/campaigns/sample/rulings", headers=ADMIN).json()
            if e["payload"]["procedure"] == procedure]


def test_map_and_victory_routes(client):
    m = client.get("/campaigns/sample/map", headers=ADMIN)
    assert m.status_code == 200
    assert m.json()["provinces"]["Picardie"]["controller"] == "ENG"
    assert m.json()["stacks"]["FRA-1"]["units"] == {"LD": 5}
    v = client.get("/campaigns/sample/victory", headers=ADMIN).json()
    [m19] = positions(client, "M19")
    assert v["vp"] == {"ENG": 5, "FRA": 0}
    assert [(a["position"], a["country"], a["points"]) for a in v["awards"]] == [(m19, "ENG", "5")]


def test_turn_timeline_route(client):
    rows = client.get("/campaigns/sample/turns/1/timeline", headers=ADMIN).json()
    [m14] = positions(client, "M14")
    [row] = [r for r in rows if r["position"] == m14]
    assert row["summary"].endswith("interception of ENG stack ENG-1 by FRA at Picardie failed (6 + 1 + 1 − 2 = 6 < 8)")
    assert {r["turn"] for r in rows} == {1}


def test_state_at_and_diff_routes(client, ledger):
    [m19] = positions(client, "M19")
    before = client.get(f"/campaigns/sample/state?at={m19 - 1}", headers=ADMIN).json()
    after = client.get(f"/campaigns/sample/state?at={m19}", headers=ADMIN).json()
    assert before["victory"]["vp"]["ENG"] == 0 and after["victory"]["vp"]["ENG"] == 5
    d = client.get(f"/campaigns/sample/diff?from={m19 - 1}&to={m19}", headers=ADMIN).json()
    assert {"path": "map.stacks.FRA-1.units.LD", "from": 8, "to": 5} in d["changes"]
    assert [e["position"] for e in d["events"]] == [m19]
    head = ledger.campaign(campaign_id("sample")).version
    bad = client.get(f"/campaigns/sample/state?at={head + 1}", headers=ADMIN)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "at"
    status = client.get("/campaigns/sample/projections", headers=ADMIN).json()
    assert status["lag"] == 0 and status["running"] is True
