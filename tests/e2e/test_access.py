"""Access control over HTTP: tokens, the role matrix, visibility, idempotency, errors, operations.

In-process (FastAPI's TestClient on ``create_app(settings, ledger)``), on every
store of the ``ledger`` fixture.
"""

from __future__ import annotations

import time
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from api.main import create_app
from ledger import tokens
from ledger.domain.commands import RevealEvent
from ledger.application import Actor
from ledger.config import Settings
from ledger.sample import close_open_phases, reach_phase

ADMIN = "admin-secret-for-tests"
SYSTEM = Actor("setup", "gm")
M13 = {"procedure": "M13", "inputs": {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4,
                                      "blockader_nd": 6, "blockader_all_nwd": True, "blockader_technology": "GAL"}}


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def make_client(settings: Settings, ledger, **overrides) -> TestClient:
    s = settings.model_copy(update={"admin_token": ADMIN, **overrides})
    return TestClient(create_app(s, ledger))


def new_campaign(ledger, slug: str, *, players_may_roll: bool = True) -> UUID:
    result = ledger.create_campaign(slug=slug, name=slug.title(), ruleset="eu", countries=["ENG", "FRA", "SPA"],
                                    players={"FRA": "bruno"}, settings={"players_may_roll": players_may_roll},
                                    actor=SYSTEM)
    return UUID(result.data["id"])


def issue(ledger, cid: UUID, role: str, country: str | None = None) -> str:
    _, raw = tokens.issue_token(ledger, cid, role=role, country=country, actor=SYSTEM)
    assert raw is not None
    return raw


@pytest.fixture
def world(settings, ledger):
    """Campaign `own` (turn 1 closed, turn 2 open, a GM-only roll at position `hidden`) and campaign `other`."""
    own = new_campaign(ledger, "own")
    other = new_campaign(ledger, "other")
    toks = {"gm": issue(ledger, own, "gm"), "player": issue(ledger, own, "player", "FRA"),
            "observer": issue(ledger, own, "observer"), "spare": issue(ledger, own, "observer"),
            "other": issue(ledger, other, "gm"), "admin": ADMIN, "none": None, "bad": "lt_" + "0" * 32 + "_nope"}
    ledger.open_turn(own, actor=SYSTEM)
    ledger.roll(own, purpose="turn 1 roll", actor=SYSTEM)
    close_open_phases(ledger, own)  # the turn closes after its eight phases
    ledger.close_turn(own, actor=SYSTEM)
    ledger.open_turn(own, actor=SYSTEM)
    reach_phase(ledger, own, "military")  # the rulings (M13) are the military phase's
    hidden = ledger.roll(own, purpose="secret", actor=SYSTEM, vis={"scope": "gm"}).events[0]["position"]
    ruling = ledger.record_ruling(own, procedure="M13", inputs=M13["inputs"], actor=SYSTEM).events[0]["position"]
    spare_id = tokens.digest(toks["spare"])[:16]
    return {"client": make_client(settings, ledger), "ledger": ledger, "own": own, "other": other,
            "tokens": toks, "hidden": hidden, "ruling": ruling, "spare_id": spare_id}


# (method, path, body, success status, roles allowed besides gm and admin)
# The order matters: each allowed request must fit the state the allowed ones before it left.
READ = ("player", "observer")
ENDPOINTS = [
    ("GET", "/campaigns/own", None, 200, READ),
    ("GET", "/campaigns/own/events", None, 200, READ),
    ("GET", "/campaigns/own/rulings", None, 200, READ),
    ("GET", "/campaigns/own/rulings/{ruling}", None, 200, READ),
    ("GET", "/campaigns/own/verify", None, 200, READ),
    ("GET", "/campaigns/own/chain", None, 200, READ),
    ("GET", "/campaigns/own/turns/1/dice/verify", None, 200, READ),
    ("GET", "/campaigns/own/tokens", None, 200, ()),
    ("POST", "/campaigns/own/rolls", {"purpose": "initiative"}, 201, ("player",)),
    ("POST", "/campaigns/own/rulings", M13, 201, ("player",)),
    ("POST", "/campaigns/own/treasury", {"country": "FRA", "line": "A9", "amount": 5, "reason": "loot"}, 201, ()),
    ("POST", "/campaigns/own/corrections", {"corrects": "{ruling}", "reason": "typo"}, 201, ()),
    ("POST", "/campaigns/own/rulings/{ruling}/rework", {"inputs": M13["inputs"], "reason": "typo"}, 201, ()),
    ("POST", "/campaigns/own/reveals", {"position": "{hidden}", "reason": "end of turn"}, 201, ()),
    ("POST", "/campaigns/own/tokens", {"role": "observer", "holder": "olga"}, 201, ()),
    ("POST", "/campaigns/own/tokens/{spare_id}/revoke", {"reason": "left"}, 200, ()),
    ("POST", "/campaigns/own/turns/2/close", {"out_of_sequence": "the role matrix closes the turn mid-play"}, 200,
     ()),
    ("POST", "/campaigns/own/turns", None, 201, ()),
    ("POST", "/campaigns/own/settings", {"settings": {"players_may_roll": False}, "reason": "house rule"}, 201, ()),
]
CALLERS = ["gm", "admin", "player", "observer", "other", "none", "bad"]


def expected_status(caller: str, success: int, allowed: tuple[str, ...]) -> int:
    if caller in ("none", "bad"):
        return 401
    if caller == "other":  # a valid token of another campaign
        return 403
    return success if caller in ("gm", "admin") or caller in allowed else 403


@pytest.mark.parametrize("caller", CALLERS)
def test_role_matrix_gives_exactly_the_allowed_status_codes(world, caller):
    client, ledger, own = world["client"], world["ledger"], world["own"]
    fill = {"ruling": world["ruling"], "hidden": world["hidden"], "spare_id": world["spare_id"]}
    seen = []
    for method, path, body, success, allowed in ENDPOINTS:
        if body and body.get("position") == "{hidden}":
            body = {**body, "position": world["hidden"]}
        if body and body.get("corrects") == "{ruling}":  # a structural event (a token) cannot be corrected
            body = {**body, "corrects": world["ruling"]}
        before = ledger.campaign(own).version
        r = client.request(method, path.format(**fill), json=body, headers=bearer(world["tokens"][caller]))
        want = expected_status(caller, success, allowed)
        seen.append((method, path, r.status_code))
        assert r.status_code == want, (caller, method, path, r.text)
        if want >= 400:
            assert ledger.campaign(own).version == before, "a refused request appended"
            assert r.json()["error"]["field"] == "Authorization"
    # Creating a campaign needs the admin token; listing campaigns shows a token its own campaign only.
    created = client.post("/campaigns", json={"slug": "new", "name": "N", "countries": ["ENG"]},
                          headers=bearer(world["tokens"][caller]))
    assert created.status_code == {"admin": 201, "none": 401, "bad": 401}.get(caller, 403), created.text
    listed = client.get("/campaigns", headers=bearer(world["tokens"][caller]))
    if caller in ("none", "bad"):
        assert listed.status_code == 401
    else:
        slugs = sorted(c["slug"] for c in listed.json())
        assert slugs == {"admin": ["new", "other", "own"], "other": ["other"]}.get(caller, ["own"])


def test_liveness_and_readiness_need_no_token_and_metrics_need_the_admin_token(world):
    client = world["client"]
    assert client.get("/health").json() == {"status": "ok"}
    ready = client.get("/ready").json()
    assert ready["status"] == "ready" and ready["projections_lag"] == 0 and ready["head"] >= 10
    # /metrics' counters move with every append, hidden ones too: the operator's alone.
    statuses = {caller: client.get("/metrics", headers=bearer(world["tokens"][caller])).status_code
                for caller in ("admin", "gm", "player", "observer", "other", "none", "bad")}
    assert statuses == {"admin": 200, "gm": 403, "player": 403, "observer": 403, "other": 403, "none": 401,
                        "bad": 401}


def test_a_player_may_roll_only_if_the_campaign_says_so(settings, ledger):
    cid = new_campaign(ledger, "strict", players_may_roll=False)
    player = issue(ledger, cid, "player", "FRA")
    ledger.open_turn(cid, actor=SYSTEM)
    client = make_client(settings, ledger)
    r = client.post("/campaigns/strict/rolls", json={"purpose": "x"}, headers=bearer(player))
    assert r.status_code == 403 and r.json()["error"]["rule"] == "access.roll"
    assert client.post("/campaigns/strict/rulings", json=M13, headers=bearer(player)).status_code == 403
    assert ledger.campaign(cid).version == 3  # created, token, turn: nothing more


def test_a_player_rolls_for_their_own_country_with_server_dice_only(world):
    client, player = world["client"], bearer(world["tokens"]["player"])
    before = world["ledger"].campaign(world["own"]).version
    for body, field in [({"purpose": "x", "values": [3]}, "values"),
                        ({"purpose": "x", "visibility": {"scope": "gm"}}, "visibility"),
                        ({"purpose": "x", "visibility": {"scope": "countries", "countries": ["ENG"]}}, "visibility")]:
        r = client.post("/campaigns/own/rolls", json=body, headers=player)
        assert r.status_code == 403 and r.json()["error"]["field"] == field
    assert world["ledger"].campaign(world["own"]).version == before
    r = client.post("/campaigns/own/rolls", json={"purpose": "x", "visibility": {"scope": "countries",
                                                                                 "countries": ["FRA"]}},
                    headers=player)
    assert r.status_code == 201
    # FRA's first roll of the turn: the commitment to FRA's own seed comes first (ledger/dice.py).
    [commitment, event] = client.get(f"/campaigns/own/events?after={before}", headers=player).json()
    assert commitment["type"] == "DiceSeedCommitted" and commitment["payload"]["audience"] == "countries:FRA"
    assert event["actor"] == {"id": "bruno", "role": "player", "country": "FRA"}


def test_a_revoked_token_is_refused_at_once(world):
    client, ledger, own = world["client"], world["ledger"], world["own"]
    gm = bearer(world["tokens"]["gm"])
    issued = client.post("/campaigns/own/tokens", json={"role": "player", "country": "ENG", "holder": "alice"},
                         headers=gm)
    assert issued.status_code == 201
    alice = bearer(issued.json()["token"])
    assert client.get("/campaigns/own/events", headers=alice).status_code == 200
    token_id = issued.json()["data"]["token_id"]
    assert client.post(f"/campaigns/own/tokens/{token_id}/revoke", json={"reason": "left"},
                       headers=gm).status_code == 200
    r = client.get("/campaigns/own/events", headers=alice)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    again = client.post(f"/campaigns/own/tokens/{token_id}/revoke", json={"reason": "left"}, headers=gm)
    assert again.status_code == 404 and again.json()["error"]["field"] == "token_id"
    assert token_id not in [t["id"] for t in client.get("/campaigns/own/tokens", headers=gm).json()]
    assert issued.json()["token"] not in str([e.payload() for e in ledger.history(own)])


def test_token_events_store_only_the_hash_and_stay_gm_only(world):
    client, ledger, own = world["client"], world["ledger"], world["own"]
    gm = bearer(world["tokens"]["gm"])
    r = client.post("/campaigns/own/tokens", json={"role": "observer"}, headers=gm)
    raw = r.json()["token"]
    [event] = [e for e in ledger.history(own) if e.originator_version == r.json()["events"][0]["position"]]
    assert event.sha256 == tokens.digest(raw) and raw not in str(vars(event))
    assert event.visibility == {"scope": "gm"}
    for who in ("player", "observer"):
        types = {e["type"] for e in client.get("/campaigns/own/events",
                                               headers=bearer(world["tokens"][who])).json()}
        assert "TokenIssued" not in types
    refused = client.post("/campaigns/own/reveals", json={"position": event.originator_version, "reason": "x"},
                          headers=gm)
    assert refused.status_code == 409


def test_an_idempotent_token_request_replays_without_the_secret(world):
    client, gm = world["client"], bearer(world["tokens"]["gm"])
    headers = {**gm, "Idempotency-Key": "tok-1"}
    first = client.post("/campaigns/own/tokens", json={"role": "observer"}, headers=headers)
    second = client.post("/campaigns/own/tokens", json={"role": "observer"}, headers=headers)
    assert first.json()["token"] and second.json()["token"] is None
    assert {**first.json(), "token": None} == second.json()


def test_idempotent_replay_returns_the_identical_body_and_rolls_once(world):
    client, ledger, own = world["client"], world["ledger"], world["own"]
    headers = {**bearer(world["tokens"]["gm"]), "Idempotency-Key": "roll-7"}
    next_roll = ledger.campaign(own).next_roll
    first = client.post("/campaigns/own/rolls", json={"purpose": "siege", "sides": 6, "count": 2}, headers=headers)
    version = ledger.campaign(own).version
    replay = client.post("/campaigns/own/rolls", json={"purpose": "siege", "sides": 6, "count": 2}, headers=headers)
    assert first.status_code == replay.status_code == 201
    assert first.content == replay.content
    assert ledger.campaign(own).version == version
    assert ledger.campaign(own).next_roll == next_roll + 1  # one server roll, not two
    conflict = client.post("/campaigns/own/rolls", json={"purpose": "siege", "sides": 10}, headers=headers)
    assert conflict.status_code == 409 and conflict.json()["error"]["field"] == "Idempotency-Key"
    assert ledger.campaign(own).version == version
    # The key is scoped to the caller: the same key from a player is a new request.
    player = {**bearer(world["tokens"]["player"]), "Idempotency-Key": "roll-7"}
    theirs = client.post("/campaigns/own/rolls", json={"purpose": "siege", "sides": 6, "count": 2}, headers=player)
    assert theirs.status_code == 201 and theirs.json()["events"] != first.json()["events"]


def test_an_idempotency_key_belongs_to_one_token_not_to_a_holder_name(world):
    """A holder's name is whatever the GM typed: a player token named like the GM, or a second GM token
    with the same name, sending the GM's key gets a response of its own, never the GM's."""
    client, ledger, own = world["client"], world["ledger"], world["own"]
    gina = issue_named(ledger, own, "gm", "gina")
    namesake_gm = issue_named(ledger, own, "gm", "gina")
    namesake_player = issue_named(ledger, own, "player", "gina", "FRA")
    body = {"purpose": "siege", "sides": 6, "count": 2}
    first = client.post("/campaigns/own/rolls", json=body, headers={**bearer(gina), "Idempotency-Key": "k-1"})
    assert first.status_code == 201
    for other in (namesake_gm, namesake_player):
        theirs = client.post("/campaigns/own/rolls", json=body, headers={**bearer(other), "Idempotency-Key": "k-1"})
        assert theirs.status_code == 201
        assert theirs.json()["events"][0]["position"] > first.json()["events"][0]["position"]
        assert theirs.json()["checkpoint"] != first.json()["checkpoint"]
    # The same token's retry still replays its own first answer, byte for byte.
    again = client.post("/campaigns/own/rolls", json=body, headers={**bearer(gina), "Idempotency-Key": "k-1"})
    assert again.content == first.content


def issue_named(ledger, cid: UUID, role: str, holder: str, country: str | None = None) -> str:
    _, raw = tokens.issue_token(ledger, cid, role=role, holder=holder, country=country, actor=SYSTEM)
    assert raw is not None
    return raw


def test_errors_name_the_field_and_the_rule(world):
    client, gm = world["client"], bearer(world["tokens"]["gm"])
    r = client.post("/campaigns/own/treasury", json={"country": "FRA", "line": "A9", "amount": "lots",
                                                    "reason": "x"}, headers=gm)
    assert r.status_code == 422 and r.json()["error"]["field"] == "amount"
    r = client.get("/campaigns/nowhere/events", headers=bearer(ADMIN))
    assert r.status_code == 404 and r.json()["error"]["type"] == "CampaignNotFound"
    r = client.get("/no/such/route", headers=gm)
    assert r.status_code == 404 and r.json()["error"]["type"] == "NotFound"
    r = client.post("/campaigns/own/turns", headers=gm)
    assert r.status_code == 409 and r.json()["error"]["field"] == "turn"


def test_a_body_over_the_limit_is_refused_with_413(settings, ledger):
    cid = new_campaign(ledger, "small")
    gm = bearer(issue(ledger, cid, "gm"))
    client = make_client(settings, ledger, max_request_bytes=2000)
    big = {"purpose": "x" * 400, "context": {"phase": "y"}, "visibility": {"scope": "countries",
                                                                            "countries": ["FRA"] * 500}}
    r = client.post("/campaigns/small/rolls", json=big, headers=gm)
    assert r.status_code == 413 and r.json()["error"]["type"] == "RequestTooLarge"

    def chunks():  # no Content-Length: counted as it streams
        yield b'{"purpose": "'
        yield b"x" * 3000
        yield b'"}'

    r = client.post("/campaigns/small/rolls", content=chunks(), headers={**gm, "Content-Type": "application/json"})
    assert r.status_code == 413
    assert ledger.campaign(cid).version == 2


def test_request_ids_are_echoed_and_generated(world):
    client = world["client"]
    assert client.get("/health", headers={"X-Request-ID": "req-42"}).headers["x-request-id"] == "req-42"
    generated = client.get("/health", headers={"X-Request-ID": "bad id\twith spaces"}).headers["x-request-id"]
    assert len(generated) == 32 and generated != "bad id\twith spaces"


def test_metrics_count_appended_events_and_time_requests_by_route(world):
    client, gm, admin = world["client"], bearer(world["tokens"]["gm"]), bearer(ADMIN)

    def appended_rolls() -> float:
        for line in client.get("/metrics", headers=admin).text.splitlines():
            if line.startswith('ledger_events_appended_total{type="DiceRolled"}'):
                return float(line.split()[-1])
        return 0.0

    before = appended_rolls()
    client.post("/campaigns/own/rolls", json={"purpose": "a"}, headers={**gm, "Idempotency-Key": "m1"})
    client.post("/campaigns/own/rolls", json={"purpose": "a"}, headers={**gm, "Idempotency-Key": "m1"})  # replay
    assert appended_rolls() == before + 1
    text = client.get("/metrics", headers=admin).text
    assert 'ledger_http_request_duration_seconds_count{method="POST",route="/campaigns/{campaign}/rolls"' in text


def test_local_development_without_admin_token_is_open_to_loopback_only(settings, ledger):
    dev = settings.model_copy(update={"env": "development", "admin_token": None})
    # base_url: development mode answers loopback Host names only (api/guards.py).
    local = TestClient(create_app(dev, ledger), client=("127.0.0.1", 50000), base_url="http://127.0.0.1:8000")
    r = local.post("/campaigns", json={"slug": "dev", "name": "D", "countries": ["ENG"]},
                   headers={"X-Ledger-Actor": "dana"})
    assert r.status_code == 201
    [event] = ledger.history(UUID(r.json()["campaign"]))
    assert event.actor["id"] == "dana"
    remote = TestClient(create_app(dev, ledger), client=("192.0.2.7", 50000), base_url="http://localhost")
    assert remote.get("/campaigns").status_code == 401
    # Not in production, nor in test, nor with an admin token configured.
    configured = TestClient(create_app(dev.model_copy(update={"admin_token": ADMIN}), ledger),
                            client=("127.0.0.1", 50000))
    assert configured.get("/campaigns").status_code == 401
    with pytest.raises(ValueError, match="LEDGER_ADMIN_TOKEN"):
        Settings(env="production", admin_token=None)


# ----------------------------------------------------------------- visibility, property-based

COUNTRIES = ["ENG", "FRA", "SPA"]
VISIBILITY = st.one_of(
    st.just({"scope": "public"}), st.just({"scope": "gm"}),
    st.lists(st.sampled_from(COUNTRIES), min_size=1, max_size=3, unique=True).map(
        lambda cs: {"scope": "countries", "countries": sorted(cs)}),
)


def test_hidden_events_never_appear_in_another_countrys_responses(settings, ledger):
    client = make_client(settings, ledger)
    counter = iter(range(10_000))

    @hsettings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])
    @given(plan=st.lists(st.tuples(st.booleans(), VISIBILITY, st.booleans()), min_size=1, max_size=6))
    def check(plan):
        slug = f"vis-{next(counter)}"
        cid = new_campaign(ledger, slug)
        readers = {c: issue(ledger, cid, "player", c) for c in COUNTRIES}
        readers["observer"] = issue(ledger, cid, "observer")
        ledger.open_turn(cid, actor=SYSTEM)
        reach_phase(ledger, cid, "military")  # M13 is the military phase's
        recorded = []  # (position, visibility, revealed, is_ruling)
        for is_ruling, vis, reveal in plan:
            if is_ruling:
                result = ledger.record_ruling(cid, procedure="M13", inputs=M13["inputs"], actor=SYSTEM, vis=vis)
            else:
                result = ledger.roll(cid, purpose="p", actor=SYSTEM, vis=vis)
            # (an audience's first roll is preceded by the commitment to its seed, of the same visibility)
            [position] = [e["position"] for e in result.events if e["type"] in ("DiceRolled", "RulingRecorded")]
            revealed = reveal and vis["scope"] != "public"
            if revealed:
                ledger.submit(cid, RevealEvent, position=position, reason="shown", actor=SYSTEM)
            recorded.append((position, vis, revealed, is_ruling))
        for reader, token in readers.items():
            def may_see(vis, revealed):
                return (vis["scope"] == "public" or revealed
                        or (vis["scope"] == "countries" and reader in vis["countries"]))

            expected = {p for p, vis, revealed, _ in recorded if may_see(vis, revealed)}
            hidden = {p for p, _, _, _ in recorded} - expected
            headers = bearer(token)
            events = client.get(f"/campaigns/{slug}/events", headers=headers).json()
            shown = {e["position"] for e in events}
            assert hidden.isdisjoint(shown) and expected <= shown
            assert all(e["type"] not in ("TokenIssued", "TokenRevoked") for e in events)
            rulings = {e["position"] for e in client.get(f"/campaigns/{slug}/rulings", headers=headers).json()}
            assert rulings == {p for p, vis, revealed, ruling in recorded if ruling and may_see(vis, revealed)}
            for p in hidden:
                r = client.get(f"/campaigns/{slug}/rulings/{p}", headers=headers)
                assert r.status_code == 404
                assert r.json()["error"]["message"] == f"campaign has no event at position {p}"
            links = {lk["position"]: lk["visible"] for lk in client.get(f"/campaigns/{slug}/chain",
                                                                       headers=headers).json()}
            assert {p for p in hidden if links[p]} == set()

    check()


# ----------------------------------------------------------------- schemathesis against the served schema


@pytest.mark.e2e
def test_the_served_schema_holds_under_generated_requests(settings, ledger):
    import schemathesis
    from hypothesis import Phase
    from schemathesis.checks import not_a_server_error

    client = make_client(settings, ledger)
    cid = new_campaign(ledger, "fuzz")
    ledger.open_turn(cid, actor=SYSTEM)
    auth = {"gm": issue(ledger, cid, "gm"), "player": issue(ledger, cid, "player", "FRA"),
            "observer": issue(ledger, cid, "observer"), "admin": ADMIN, "none": None}
    schema = schemathesis.openapi.from_asgi("/openapi.json", client.app)
    strategy = schema.as_strategy()
    stats: dict = {"requests": 0}
    started = time.monotonic()

    @hsettings(max_examples=1100, deadline=None, phases=[Phase.generate], derandomize=True,
               suppress_health_check=list(HealthCheck))
    @given(case=strategy, who=st.sampled_from(sorted(auth)), own=st.sampled_from([True, True, True, False]))
    def fuzz(case, who, own):
        if own and "campaign" in (case.path_parameters or {}):
            case.path_parameters["campaign"] = "fuzz"
        head = ledger.recorder.max_notification_id()
        response = case.call(headers=bearer(auth[who]))
        stats["requests"] += 1
        stats[response.status_code] = stats.get(response.status_code, 0) + 1
        case.validate_response(response, checks=[not_a_server_error])
        if response.status_code >= 400:
            assert ledger.recorder.max_notification_id() == head, (case.method, case.path, response.text)

    fuzz()
    assert stats["requests"] >= 1000
    assert time.monotonic() - started < 120


# ----------------------------------------------------------------- the command line: tokens and the schema


def test_the_cli_issues_a_token_that_the_api_accepts_then_revokes_it(settings, ledger):
    import json as jsonlib

    from typer.testing import CliRunner

    from ledger.cli import app as cli
    from tests.integration.test_cli import cli_env

    new_campaign(ledger, "cli")
    runner = CliRunner()
    issued = runner.invoke(cli, ["token", "issue", "cli", "--role", "player", "--country", "SPA", "--holder", "sol"],
                           env=cli_env(settings))
    assert issued.exit_code == 0, issued.output
    doc = jsonlib.loads(issued.output)
    client = make_client(settings, ledger)
    r = client.get("/campaigns/cli/events", headers=bearer(doc["token"]))
    assert r.status_code == 200
    listed = jsonlib.loads(runner.invoke(cli, ["token", "list", "cli"], env=cli_env(settings)).output)
    assert listed == [{"id": doc["data"]["token_id"], "role": "player", "country": "SPA", "holder": "sol"}]
    revoked = runner.invoke(cli, ["token", "revoke", "cli", doc["data"]["token_id"], "--reason", "gone"],
                            env=cli_env(settings))
    assert revoked.exit_code == 0, revoked.output
    assert client.get("/campaigns/cli/events", headers=bearer(doc["token"])).status_code == 401
    bad_role = runner.invoke(cli, ["token", "issue", "cli", "--role", "king"], env=cli_env(settings))
    assert bad_role.exit_code == 2 and "role" in bad_role.output


def test_the_exported_schema_documents_every_route_with_errors_and_bearer_auth(tmp_path):
    import json as jsonlib

    from typer.testing import CliRunner

    from ledger.cli import app as cli

    out = tmp_path / "openapi.json"
    assert CliRunner().invoke(cli, ["openapi", "--out", str(out)]).exit_code == 0
    schema = jsonlib.loads(out.read_text())
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            assert op.get("tags") and op.get("summary"), (method, path)
            if path.startswith("/campaigns"):
                assert {"401", "403", "422"} <= set(op["responses"]), (method, path)
    rolls = schema["paths"]["/campaigns/{campaign}/rolls"]["post"]
    assert rolls["responses"]["403"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")


def test_the_game_master_changes_players_may_roll_and_it_counts_at_once(world):
    client, ledger, own = world["client"], world["ledger"], world["own"]
    gm, player = bearer(world["tokens"]["gm"]), bearer(world["tokens"]["player"])
    assert client.post("/campaigns/own/rolls", json={"purpose": "allowed"}, headers=player).status_code == 201
    change = {"settings": {"players_may_roll": False}, "reason": "the GM rolls from now on"}
    r = client.post("/campaigns/own/settings", json=change, headers=gm)
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["type"] == "CampaignSettingsChanged"
    assert client.get("/campaigns/own", headers=player).json()["settings"] == {"players_may_roll": False,
                                                                                "ers_visibility": "country"}
    before = ledger.campaign(own).version
    refused = client.post("/campaigns/own/rolls", json={"purpose": "refused"}, headers=player)
    assert refused.status_code == 403 and refused.json()["error"]["rule"] == "access.roll"
    # The same value again is a 409, an unknown setting a 422 naming it; nothing is appended.
    assert client.post("/campaigns/own/settings", json=change, headers=gm).status_code == 409
    bad = client.post("/campaigns/own/settings", json={"settings": {"ers_variants": []}, "reason": "x"}, headers=gm)
    assert bad.status_code == 422 and bad.json()["error"]["field"].endswith("ers_variants")
    assert ledger.campaign(own).version == before
    event = ledger.event_at(own, before)
    assert (event.changed, event.previous, event.reason) == ({"players_may_roll": False},
                                                             {"players_may_roll": True}, "the GM rolls from now on")


def test_a_token_revoked_through_one_server_process_is_refused_by_another_at_once(settings, ledger):
    """Two apps on two Ledger instances (two workers) sharing one store: caches are checked against the head."""
    from ledger.application import Ledger

    cid = new_campaign(ledger, "shared")
    ledger.open_turn(cid, actor=SYSTEM)
    gm, observer = issue(ledger, cid, "gm"), issue(ledger, cid, "observer")
    other = Ledger(settings)
    try:
        a, b = make_client(settings, ledger), make_client(settings, other)
        for _ in range(2):  # the second read is answered from b's response cache
            assert b.get("/campaigns/shared/map", headers=bearer(observer)).status_code == 200
            assert b.get("/campaigns/shared/events", headers=bearer(observer)).status_code == 200
        observer_id = tokens.digest(observer)[:16]
        r = a.post(f"/campaigns/shared/tokens/{observer_id}/revoke", json={"reason": "left"}, headers=bearer(gm))
        assert r.status_code == 200, r.text
        for path in ("/campaigns/shared/map", "/campaigns/shared/events", "/campaigns/shared/state"):
            assert b.get(path, headers=bearer(observer)).status_code == 401, path
        # A setting changed through a is what b's next permission check reads.
        player = issue(other, cid, "player", "FRA")
        assert b.post("/campaigns/shared/rolls", json={"purpose": "x"}, headers=bearer(player)).status_code == 201
        assert a.post("/campaigns/shared/settings", json={"settings": {"players_may_roll": False}, "reason": "r"},
                      headers=bearer(gm)).status_code == 201
        assert b.post("/campaigns/shared/rolls", json={"purpose": "y"}, headers=bearer(player)).status_code == 403
    finally:
        other.close()


def test_the_committed_openapi_schema_is_the_one_the_service_serves(tmp_path):
    """api/openapi.json is what clients read without a running service: it must not drift from the routes."""
    import json as jsonlib
    from pathlib import Path

    from typer.testing import CliRunner

    from ledger.cli import app as cli

    out = tmp_path / "openapi.json"
    assert CliRunner().invoke(cli, ["openapi", "--out", str(out)]).exit_code == 0
    committed = Path(__file__).resolve().parents[2] / "api" / "openapi.json"
    assert jsonlib.loads(committed.read_text()) == jsonlib.loads(out.read_text()), (
        "regenerate it: ledger openapi --out api/openapi.json")
