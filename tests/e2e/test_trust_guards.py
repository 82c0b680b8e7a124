"""Development mode's Host and cross-site checks, the session-bound CSRF token, Retry-After, /metrics."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from uuid import UUID

from eventsourcing.persistence import OperationalError
from fastapi.testclient import TestClient

from api import errors
from api.guards import InFlightLimit
from api.main import create_app
from ledger import tokens
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import ConcurrencyExhausted
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-guard-tests"
LOCAL = "http://127.0.0.1:8000"
NEW = {"slug": "dev", "name": "D", "countries": ["ENG"]}


def dev_client(settings, ledger, base_url: str = LOCAL) -> TestClient:
    dev = settings.model_copy(update={"env": "development", "admin_token": None})
    return TestClient(create_app(dev, ledger), client=("127.0.0.1", 50000), base_url=base_url)


def test_development_mode_answers_loopback_host_names_only(settings, ledger):
    for base in ("http://localhost:8000", "http://127.0.0.1", "http://[::1]:8000"):
        assert dev_client(settings, ledger, base).get("/campaigns").status_code == 200, base
    rebound = dev_client(settings, ledger, "http://evil.example:8000")  # DNS rebinding: evil.example -> 127.0.0.1
    r = rebound.get("/campaigns")
    assert r.status_code == 403 and r.json()["error"]["field"] == "Host"
    assert rebound.post("/campaigns", json=NEW).status_code == 403
    assert ledger.campaigns() == []


def test_development_mode_refuses_cross_site_writes(settings, ledger):
    c = dev_client(settings, ledger)
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                    {"Origin": "http://evil.example"}, {"Origin": "http://127.0.0.1:9999"}, {"Origin": "null"}):
        r = c.post("/campaigns", json=NEW, headers=headers)
        assert r.status_code == 403 and r.json()["error"]["rule"] == "access.same_origin", headers
    assert ledger.campaigns() == []
    # Reads cross-site stay allowed (a link), and a same-origin page or a script (no such headers) may write.
    assert c.get("/campaigns", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200
    ok = c.post("/campaigns", json=NEW, headers={"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost:8000"})
    assert ok.status_code == 201
    assert c.post("/campaigns", json={**NEW, "slug": "dev2"}).status_code == 201
    # Not in a configured deployment: there a token is needed anyway, and hosts are the proxy's business.
    configured = TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger),
                            base_url="http://ledger.example")
    assert configured.get("/health").status_code == 200


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_the_ui_csrf_token_is_bound_to_the_login_session(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    cid = campaign_id("sample")
    _, gm1 = tokens.issue_token(ledger, cid, role="gm", holder="gina", actor=GM)
    _, gm2 = tokens.issue_token(ledger, cid, role="gm", holder="gus", actor=GM)
    app = create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger)

    def logged_in(token: str) -> tuple[TestClient, str, str]:
        c = TestClient(app)
        before = csrf_of(c.get("/ui/login").text)
        assert c.post("/ui/login", data={"csrf": before, "token": token}, follow_redirects=False).status_code == 303
        return c, before, csrf_of(c.get("/ui").text)

    a, a_before, a_csrf = logged_in(gm1)
    b, _, b_csrf = logged_in(gm2)
    assert a_csrf != a_before  # a new session, a new token
    # A correctable event (a treasury entry: struck by a correction without replacement).
    entry = next(e.originator_version for e in ledger.history(cid) if type(e).__name__ == "TreasuryEntryRecorded")
    form = {"corrects": str(entry), "reason": "disputed"}
    head = ledger.campaign(cid).version
    # Another session's token, even with that session's csrf cookie copied over, fails; so does the pre-login one.
    a.cookies.set("ledger_csrf", b.cookies.get("ledger_csrf"), path="/ui")
    assert a.post("/ui/campaigns/sample/corrections", data={**form, "csrf": b_csrf}).status_code == 403
    assert ledger.campaign(cid).version == head
    a2, _, a2_csrf = logged_in(gm1)
    head += 1  # the login is recorded (SessionOpened)
    assert a2.post("/ui/campaigns/sample/corrections", data={**form, "csrf": a_before}).status_code == 403
    assert ledger.campaign(cid).version == head
    ok = a2.post("/ui/campaigns/sample/corrections", data={**form, "csrf": a2_csrf}, follow_redirects=False)
    assert ok.status_code == 303 and ledger.campaign(cid).version == head + 1


def run_alone(coroutine):
    """Run a coroutine on a loop of its own thread: an earlier test may have left a loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_retry_after_on_contention_overload_and_an_unavailable_store():
    contention = run_alone(errors.ledger_error(None, ConcurrencyExhausted("too many writers")))
    assert contention.status_code == 409 and contention.headers["retry-after"] == "1"
    down = run_alone(errors.store_unavailable(None, OperationalError("connection refused")))
    assert down.status_code == 503 and down.headers["retry-after"] == "1"

    sent: list[dict] = []

    async def app(scope, receive, send):  # pragma: no cover - never reached when full
        raise AssertionError("over the bound, the app is not called")

    async def send(message):
        sent.append(message)

    guard = InFlightLimit(app, limit=2)
    guard.in_flight = 2
    run_alone(guard({"type": "http", "path": "/campaigns", "method": "GET", "headers": []}, None, send))
    assert sent[0]["status"] == 503 and (b"retry-after", b"1") in sent[0]["headers"]


def test_metrics_tell_a_reader_without_the_admin_token_nothing_and_name_no_campaign_to_the_operator(settings, ledger):
    c = TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger))
    auth = {"Authorization": f"Bearer {ADMIN}"}
    r = c.post("/campaigns", json={"slug": "secret-campaign", "name": "S", "countries": ["ENG"]}, headers=auth)
    cid = UUID(r.json()["campaign"])
    player = c.post("/campaigns/secret-campaign/tokens", json={"role": "player", "country": "ENG", "holder": "e"},
                    headers=auth).json()["token"]
    c.post("/campaigns/secret-campaign/turns", headers=auth)
    c.get("/campaigns/secret-campaign/map", headers=auth)
    c.get(f"/campaigns/{cid}/events", headers=auth)
    c.get("/campaigns/no-such-campaign/events")
    # Its counters move with every append, hidden ones too: nobody but the operator reads them.
    for headers in ({}, {"Authorization": f"Bearer {player}"}):
        refused = c.get("/metrics", headers=headers)
        assert refused.status_code in (401, 403) and "ledger_" not in refused.text
    text = c.get("/metrics", headers=auth).text
    assert "ledger_events_appended_total" in text or "ledger_http_request_duration_seconds" in text
    for leak in ("secret-campaign", str(cid), cid.hex, "no-such-campaign"):
        assert leak not in text


def test_metrics_answer_a_request_without_a_token_from_loopback_in_development_without_an_admin_token(settings,
                                                                                                   ledger):
    dev = settings.model_copy(update={"env": "development", "admin_token": None})
    local = TestClient(create_app(dev, ledger), client=("127.0.0.1", 50000), base_url="http://127.0.0.1:8000")
    assert local.get("/metrics").status_code == 200
    remote = TestClient(create_app(dev, ledger), client=("192.0.2.7", 50000), base_url="http://127.0.0.1:8000")
    assert remote.get("/metrics").status_code == 401


def test_reads_take_turns_for_their_slots_while_a_write_and_a_probe_go_past_them():
    """ReadSlots: with one slot, a second read waits until the first has started its answer; a write and
    /health do not wait at all."""
    import asyncio

    from api.guards import ReadSlots

    async def scenario() -> list[str]:
        done: list[str] = []
        release = asyncio.Event()

        async def app(scope, receive, send):
            if scope["path"] == "/slow":
                await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            done.append(f"{scope['method']} {scope['path']}")
            await send({"type": "http.response.body", "body": b""})

        async def send(message):
            pass

        guard = ReadSlots(app, slots=1)

        def call(method: str, path: str):
            return asyncio.ensure_future(guard({"type": "http", "method": method, "path": path, "headers": []},
                                               None, send))

        slow, waiting = call("GET", "/slow"), None
        await asyncio.sleep(0.01)
        waiting = call("GET", "/campaigns/c/map")
        await asyncio.sleep(0.01)
        await asyncio.wait_for(asyncio.gather(call("POST", "/campaigns/c/rulings"), call("GET", "/health")), 1)
        assert not waiting.done()  # the slot is the slow read's
        release.set()
        await asyncio.wait_for(asyncio.gather(slow, waiting), 1)
        return done

    # A loop of its own in a thread: the session's Playwright (tests/conftest.py) may hold this thread's loop.
    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(asyncio.run, scenario()).result()
    assert done == ["POST /campaigns/c/rulings", "GET /health", "GET /slow", "GET /campaigns/c/map"]
