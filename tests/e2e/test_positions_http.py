"""On one server (SQLite, PostgreSQL): a write answers with its position, a read may name it, and a bad one is a
422 naming the header; the same rules a replica follows (tests/replica)."""

from __future__ import annotations

from fastapi.testclient import TestClient
import pytest

from api.main import create_app
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

ADMIN = "admin-secret-for-position-tests"
CID = campaign_id("sample")


def test_a_write_answers_with_its_position_and_a_read_naming_it_sees_it(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger),
                    headers={"Authorization": f"Bearer {ADMIN}"}) as c:
        rolled = c.post("/campaigns/sample/rolls", json={"purpose": "initiative", "sides": 10})
        assert rolled.status_code == 201
        head = ledger.campaign(CID).version
        assert rolled.headers["Ledger-Position"] == rolled.json()["position"] == f"{CID}:{head}"
        read = c.get("/campaigns/sample", headers={"Ledger-Position": f"sample:{head}"})
        assert read.status_code == 200 and read.json()["position"] == head
        assert "Ledger-Read" not in read.headers  # no replica: nothing to say
        assert "Ledger-Position" not in read.headers  # a read wrote nothing
        bad = c.get("/campaigns/sample", headers={"Ledger-Position": "sample"})
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "Ledger-Position"
        # A cookie that does not parse (the service sets it; a stale one) never fails a page.
        c.cookies.set("ledger_position", "garbage")
        assert c.get("/campaigns/sample").status_code == 200
