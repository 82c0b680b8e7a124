"""Notification endpoints over HTTP (issue 38): a player registers their own and reads its deliveries and last
error, the game master the campaign's; a rival learns nothing of another's; bad input is a 4xx naming its field
that appends nothing; the service's own worker delivers to a local receiver."""

from __future__ import annotations

import time

import pytest

from ledger.notify import signing
from tests.e2e.test_access import ADMIN, SYSTEM, bearer, issue, make_client, new_campaign
from tests.integration.notify_helpers import Receiver


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def table(settings, ledger):
    cid = new_campaign(ledger, "told")
    toks = {"gm": issue(ledger, cid, "gm"), "FRA": issue(ledger, cid, "player", "FRA"),
            "ENG": issue(ledger, cid, "player", "ENG"), "observer": issue(ledger, cid, "observer")}
    with make_client(settings, ledger) as client:
        yield client, cid, toks


def test_a_player_registers_an_endpoint_is_shown_its_secret_once_and_is_told_through_the_services_worker(
        table, receiver, ledger):
    client, cid, toks = table
    body = {"kind": "json", "target": receiver.url("/fra"), "topics": ["turns"]}
    r = client.post(f"/campaigns/{cid}/endpoints", json=body, headers={**bearer(toks["FRA"]), "Idempotency-Key": "k1"})
    assert r.status_code == 201, r.text
    eid, secret = r.json()["endpoint_id"], r.json()["secret"]
    assert secret == signing.endpoint_secret(ledger, cid, eid)
    again = client.post(f"/campaigns/{cid}/endpoints", json=body,
                        headers={**bearer(toks["FRA"]), "Idempotency-Key": "k1"})
    assert (again.json()["endpoint_id"], again.json()["secret"]) == (eid, None)  # a replay: the secret shown once
    ledger.open_turn(cid, actor=SYSTEM)
    for _ in range(100):  # the app's projection runner and delivery worker, in their threads
        if receiver.received:
            break
        time.sleep(0.05)
    [(_, headers, raw)] = receiver.received
    assert signing.verify(secret, raw, headers[signing.TIMESTAMP_HEADER], headers[signing.SIGNATURE_HEADER],
                          now=time.time())
    [listed] = client.get(f"/campaigns/{cid}/endpoints", headers=bearer(toks["FRA"])).json()
    assert (listed["id"], listed["audience"], listed["delivered"], listed["last_error"]) == (eid, "FRA", 1, None)
    [sent] = client.get(f"/campaigns/{cid}/endpoints/{eid}/deliveries", headers=bearer(toks["FRA"])).json()
    assert (sent["status"], sent["text"]) == ("delivered", sent["text"]) and sent["text"].startswith("Turn 1 opened")


def test_a_rival_learns_nothing_of_another_players_endpoints(table, receiver):
    client, cid, toks = table
    r = client.post(f"/campaigns/{cid}/endpoints", json={"kind": "discord", "target": receiver.url("/fra"),
                                                         "topics": ["rulings"]}, headers=bearer(toks["FRA"]))
    eid = r.json()["endpoint_id"]
    assert client.get(f"/campaigns/{cid}/endpoints", headers=bearer(toks["ENG"])).json() == []
    assert [e["id"] for e in client.get(f"/campaigns/{cid}/endpoints", headers=bearer(toks["gm"])).json()] == [eid]
    theirs = client.get(f"/campaigns/{cid}/endpoints/{eid}/deliveries", headers=bearer(toks["ENG"]))
    nobodys = client.get(f"/campaigns/{cid}/endpoints/ep_0000000000000000/deliveries", headers=bearer(toks["ENG"]))
    assert theirs.status_code == nobodys.status_code == 404
    said = theirs.json()["error"]["message"].replace(eid, "X")
    assert said == nobodys.json()["error"]["message"].replace("ep_0000000000000000", "X")
    removed = client.post(f"/campaigns/{cid}/endpoints/{eid}/remove", json={"reason": "mine now"},
                          headers=bearer(toks["ENG"]))
    assert removed.status_code == 404
    events = client.get(f"/campaigns/{cid}/events", headers=bearer(toks["ENG"])).json()
    assert "Endpoint" not in str(events) and receiver.url("/fra") not in str(events)
    assert client.get(f"/campaigns/{cid}/endpoints", headers=bearer(toks["observer"])).status_code == 403


@pytest.mark.parametrize("who, body, status, field", [
    ("FRA", {"kind": "json", "target": "ftp://example.org/x", "topics": ["turns"]}, 422, "target"),
    ("FRA", {"kind": "pigeon", "target": "https://example.org/x", "topics": ["turns"]}, 422, "kind"),
    ("FRA", {"kind": "json", "target": "https://example.org/x", "topics": ["turns"], "audience": "ENG"}, 403,
     "audience"),
    ("gm", {"kind": "json", "target": "https://example.org/x", "topics": ["turns"], "audience": "SPX"}, 422,
     "audience"),
    ("gm", {"kind": "email", "target": "gm@example.org", "topics": ["turns"]}, 422, "kind"),
    ("FRA", {"kind": "json", "target": "https://example.org/x", "topics": ["weather"]}, 422, "topics.0"),
    ("observer", {"kind": "json", "target": "https://example.org/x", "topics": ["turns"]}, 403, "Authorization"),
])
def test_a_bad_registration_is_refused_naming_its_field_and_appends_nothing(table, ledger, who, body, status, field):
    client, cid, toks = table
    before = ledger.campaign(cid).version
    r = client.post(f"/campaigns/{cid}/endpoints", json=body, headers=bearer(toks[who]))
    assert (r.status_code, r.json()["error"]["field"]) == (status, field), r.text
    assert ledger.campaign(cid).version == before


def test_in_production_a_webhook_may_not_point_inside_the_services_network(settings, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ledger.application import Ledger

    key = tmp_path / "prod-key.pem"
    key.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key.chmod(0o600)
    prod = settings.model_copy(update={"env": "production", "admin_token": ADMIN, "signing_key_file": key})
    ledger = Ledger(prod)
    try:
        cid = new_campaign(ledger, "prod")
        gm = issue(ledger, cid, "gm")
        with make_client(prod, ledger) as client:
            for target in ("http://127.0.0.1:8000/admin", "http://localhost/x", "http://10.0.0.7/hook",
                           "http://[::1]/x"):
                r = client.post(f"/campaigns/{cid}/endpoints", json={"kind": "json", "target": target,
                                                                     "topics": ["turns"]}, headers=bearer(gm))
                assert (r.status_code, r.json()["error"]["field"]) == (422, "target"), target
            ok = client.post(f"/campaigns/{cid}/endpoints", json={"kind": "json", "target": "https://example.org/h",
                                                                  "topics": ["turns"]}, headers=bearer(gm))
            assert ok.status_code == 201, ok.text
    finally:
        ledger.close()
