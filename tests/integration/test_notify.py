"""Notifications (issue 38) on both stores: a scripted turn of three players with webhooks on a local receiver,
each told exactly what concerns them and nothing hidden from them, signed; the outbox exactly once across a crash;
retries with back-off on an injected clock; the last error shown to the endpoint's owner; e-mail through a local
mail server."""

from __future__ import annotations

import time
from email import message_from_string, policy

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from ledger.access import can_see
from ledger.domain import commands as cmd
from ledger.domain.errors import EndpointNotFound, Forbidden, InvalidInput, StateConflict
from ledger.notify import signing
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from projections import outbox, timeline
from projections.delivery import Deliveries, backoff
from projections.records import Record
from projections.runner import Projector
from projections.store import ViewDB
from tests.integration.notify_helpers import PLAYERS, MailServer, Receiver, register, three_players

pytestmark = pytest.mark.store_contract  # both stores (tests/conftest.py)

TURNS = {"TurnOpened", "TurnClosed", "PhaseClosed"}


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def deliver_all(ledger, **kw) -> Deliveries:
    Projector(ledger).catch_up()
    d = Deliveries(ledger, **kw)
    while d.run_once():
        pass
    return d


def scripted_turn(ledger, receiver):
    """Three players and the game master with webhooks; the sample's turn 1 and, in turn 2's military phase, a
    ruling only France sees, a move only the game master sees and one only England sees."""
    cid = three_players(ledger)
    ids = {c: register(ledger, cid, actor, receiver.url(f"/{c}")) for c, actor in PLAYERS.items()}
    ids["gm"] = register(ledger, cid, GM, receiver.url("/gm"))
    play_sample_turn(ledger, FIXED_DICE, slug="three")
    mil = {"phase": "military", "round": "S1", "impulse": "FRA"}
    ledger.record_ruling(cid, procedure="M8", inputs={"country": "FRA", "land": "active", "sea": "passive"},
                         actor=GM, context=mil, vis={"scope": "countries", "countries": ["FRA"]})
    ledger.submit(cid, cmd.MoveStack, stack="ENG-F1", origin="Celtique", destination="Manche", reason="unseen",
                  actor=GM, context=mil, vis={"scope": "gm"})
    ledger.submit(cid, cmd.MoveStack, stack="ENG-1", origin="Picardie", destination="Caux", reason="by night",
                  actor=GM, context=mil, vis={"scope": "countries", "countries": ["ENG"]})
    return cid, ids


def test_in_a_scripted_turn_each_player_receives_exactly_their_own_messages_and_nothing_hidden(ledger, receiver):
    cid, ids = scripted_turn(ledger, receiver)
    deliver_all(ledger)
    history = {e.originator_version: e for e in ledger.history(cid)}
    got = {who: [b["position"] for b in receiver.bodies(f"/{who}")] for who in (*PLAYERS, "gm")}
    for who, positions in got.items():
        assert len(positions) == len(set(positions)), who  # none twice
    kinds = {who: {type(history[p]).__name__ for p in ps} for who, ps in got.items()}
    # Spain has no stack, no province and no ruling of its own in this turn: it is told of the turns alone.
    assert kinds["SPA"] == TURNS
    turns = sorted(p for p, e in history.items() if type(e).__name__ in TURNS)
    assert all(sorted(p for p in ps if type(history[p]).__name__ in TURNS) == turns for ps in got.values())
    # The hidden ones: France's ruling reaches France (and the GM) only; the GM's move nobody but the GM, not
    # even England whose stack it is; England's night move England only.
    [ruling] = [p for p, e in history.items() if getattr(e, "procedure", None) == "M8" and e.visibility != {
        "scope": "public"}]
    [unseen] = [p for p, e in history.items() if getattr(e, "reason", None) == "unseen"]
    [night] = [p for p, e in history.items() if getattr(e, "reason", None) == "by night"]
    assert ruling in got["FRA"] and ruling not in got["ENG"] and ruling not in got["SPA"]
    assert unseen in got["gm"] and all(unseen not in got[c] for c in PLAYERS)
    assert night in got["ENG"] and night not in got["FRA"]
    # A public move touches the stack's country and the country whose impulse it is: FRA-1's retreat in
    # England's impulse reaches both, not Spain.
    [retreat] = [p for p, e in history.items() if getattr(e, "reason", None) == "retreat after the battle of Picardie"]
    assert retreat in got["FRA"] and retreat in got["ENG"] and retreat not in got["SPA"]
    # The game master is told every event of every topic; every player nothing they may not see.
    assert sorted(got["gm"]) == sorted(p for p, e in history.items() if type(e).__name__ in outbox.MESSAGES)
    for country, actor in PLAYERS.items():
        assert all(can_see(actor, history[p]) for p in got[country]), country
    # Each message is the timeline's words of its event.
    [first] = [b for b in receiver.bodies("/ENG") if b["position"] == night]
    assert first["text"] == "Round S1, FRA impulse: stack ENG-1 moved Picardie → Caux (by night)"
    assert (first["topic"], first["type"], first["turn"]) == ("moves", "StackMoved", 2)


def test_every_message_is_signed_with_its_endpoints_secret_and_a_recent_timestamp(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, PLAYERS["FRA"], receiver.url("/FRA"), topics=["turns"])
    other = register(ledger, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["turns"])
    ledger.open_turn(cid, actor=GM)
    deliver_all(ledger)
    [(path, headers, body)] = [r for r in receiver.received if r[0] == "/FRA"]
    secret = signing.endpoint_secret(ledger, cid, eid)
    stamp, sig = headers[signing.TIMESTAMP_HEADER], headers[signing.SIGNATURE_HEADER]
    assert signing.verify(secret, body, stamp, sig, now=time.time())
    assert not signing.verify(signing.endpoint_secret(ledger, cid, other), body, stamp, sig, now=time.time())
    assert not signing.verify(secret, body + b" ", stamp, sig, now=time.time())  # a changed body
    assert not signing.verify(secret, body, stamp, sig, now=int(stamp) + signing.TOLERANCE + 1)  # replayed later


def test_a_crash_between_the_outbox_write_and_the_delivery_delivers_once_after_restart(settings, receiver):
    from ledger.application import Ledger

    first = Ledger(settings)
    cid = three_players(first)
    register(first, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["turns"])
    first.open_turn(cid, actor=GM)
    p = Projector(first)

    def boom():
        raise RuntimeError("killed after the writes, before COMMIT")

    with pytest.raises(RuntimeError):
        p.step(fail_after_write=boom)  # the outbox's rows are rolled back with the tracking rows
    p.catch_up()  # the rows are written (once), the process dies before any delivery
    first.close()
    again = Ledger(settings)  # the restart
    try:
        deliver_all(again)
        deliver_all(again)
        assert [b["type"] for b in receiver.bodies("/ENG")] == ["TurnOpened"]
        [row] = outbox.deliveries(Projector(again).db, str(cid), next(iter(again.campaign(cid).endpoints)))
        assert (row["status"], row["attempts"]) == ("delivered", 1)
    finally:
        again.close()


def test_a_message_leased_by_a_worker_that_died_before_sending_is_sent_once_the_lease_runs_out(ledger, receiver):
    cid = three_players(ledger)
    register(ledger, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["turns"])
    ledger.open_turn(cid, actor=GM)
    Projector(ledger).catch_up()
    now = [time.time()]
    d = Deliveries(ledger, clock=lambda: now[0], senders=1)
    [row] = outbox.due(d.db, now[0])
    assert outbox.claim(d.db, row, now[0], 60)  # a worker took it and died
    assert d.run_once() == 0 and receiver.received == []
    now[0] += 61
    assert d.run_once() == 1 and d.run_once() == 0
    assert len(receiver.received) == 1


def test_a_failing_endpoint_is_retried_with_back_off_and_its_owner_sees_the_last_error(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, PLAYERS["FRA"], receiver.url("/FRA"), topics=["turns"])
    receiver.fail["/FRA"] = [500, 503, 500]
    ledger.open_turn(cid, actor=GM)
    Projector(ledger).catch_up()
    start = time.time()
    now = [start]
    d = Deliveries(ledger, clock=lambda: now[0], senders=1)
    tried_at = []
    for _ in range(40):  # a minute of the injected clock, a second at a time
        if d.run_once():
            tried_at.append(now[0] - start)
        now[0] += 1
    assert tried_at == [0, backoff(1), backoff(1) + backoff(2), backoff(1) + backoff(2) + backoff(3)] == [0, 2, 6, 14]
    assert len(receiver.bodies("/FRA")) == 1
    s = outbox.status(d.db, str(cid), [eid])[eid]
    assert (s["delivered"], s["pending"], s["failed"]) == (1, 0, 0)
    assert s["last_error"] == "the receiver answered HTTP 500 Internal Server Error"


def test_an_endpoint_the_receiver_says_is_gone_is_given_up_at_once(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, GM, receiver.url("/gone"), topics=["turns"])
    receiver.fail["/gone"] = [404]
    ledger.open_turn(cid, actor=GM)
    d = deliver_all(ledger)
    s = outbox.status(d.db, str(cid), [eid])[eid]
    assert (s["delivered"], s["pending"], s["failed"]) == (0, 0, 1)
    assert s["last_error"].startswith("the receiver answered HTTP 404")


def test_a_removed_endpoint_is_told_nothing_more_and_its_pending_messages_are_cancelled(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["turns"])
    ledger.open_turn(cid, actor=GM)
    Projector(ledger).catch_up()  # its message is queued, not sent yet
    ledger.submit(cid, cmd.RemoveEndpoint, endpoint_id=eid, reason="left the game", actor=PLAYERS["ENG"])
    ledger.close_phase(cid, "events", actor=GM)
    d = deliver_all(ledger)
    assert receiver.received == []
    assert outbox.status(d.db, str(cid), [eid])[eid]["cancelled"] == 1


def test_changed_topics_apply_from_the_change_on(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["rulings"])
    ledger.open_turn(cid, actor=GM)
    ledger.submit(cid, cmd.ChangeEndpoint, endpoint_id=eid, topics=["turns", "rulings"], actor=PLAYERS["ENG"])
    ledger.close_phase(cid, "events", actor=GM)
    deliver_all(ledger)
    assert [b["type"] for b in receiver.bodies("/ENG")] == ["PhaseClosed"]


def test_an_endpoint_is_its_owners_and_the_game_masters_to_read_and_to_change(ledger, receiver):
    cid = three_players(ledger)
    eid = register(ledger, cid, PLAYERS["FRA"], receiver.url("/FRA"))
    [event] = [e for e in ledger.history(cid) if type(e).__name__ == "EndpointRegistered"]
    assert can_see(PLAYERS["FRA"], event) and can_see(GM, event) and not can_see(PLAYERS["ENG"], event)
    assert signing.endpoint_secret(ledger, cid, eid)[6:] not in str(vars(event))  # the secret is in no event
    before = ledger.campaign(cid).version
    with pytest.raises(EndpointNotFound) as rival:
        ledger.submit(cid, cmd.RemoveEndpoint, endpoint_id=eid, actor=PLAYERS["ENG"])
    with pytest.raises(EndpointNotFound) as nobody:
        ledger.submit(cid, cmd.RemoveEndpoint, endpoint_id="ep_0000000000000000", actor=PLAYERS["ENG"])
    assert rival.value.message.replace(eid, "X") == nobody.value.message.replace("ep_0000000000000000", "X")
    with pytest.raises(Forbidden):
        register(ledger, cid, PLAYERS["ENG"], receiver.url("/x"), audience="FRA")
    with pytest.raises(InvalidInput, match="did you mean 'SPA'"):
        register(ledger, cid, GM, receiver.url("/x"), audience="SPQ")
    with pytest.raises(InvalidInput, match="LEDGER_SMTP_URL"):
        register(ledger, cid, GM, "gm@example.org", kind="email")
    with pytest.raises(StateConflict):
        register(ledger, cid, PLAYERS["FRA"], receiver.url("/FRA"))  # the same target twice
    with pytest.raises(StateConflict):  # never revealed: a webhook's URL is a capability
        ledger.submit(cid, cmd.RevealEvent, position=event.originator_version, reason="curious", actor=GM)
    assert ledger.campaign(cid).version == before


@pytest.mark.parametrize("fields, field", [
    ({"kind": "json", "target": "ftp://example.org/hook"}, "target"),
    ({"kind": "json", "target": "javascript:alert(1)"}, "target"),
    ({"kind": "json", "target": "https://user:pw@example.org/hook"}, "target"),
    ({"kind": "teams", "target": "https://example.org/hook"}, "kind"),
    ({"kind": "email", "target": "not an address"}, "target"),
    ({"kind": "json", "target": "https://example.org/hook", "topics": ["weather"]}, "topics.0"),
    ({"kind": "json", "target": "https://example.org/hook", "topics": []}, "topics"),
    ({"kind": "json", "target": "https://example.org/hook", "topics": ["turns", "turns"]}, "topics"),
    ({"kind": "json", "target": "https://example.org/hook", "topics": "turns"}, "topics"),
])
def test_a_bad_registration_names_its_field_and_appends_nothing(fields, field):
    with pytest.raises(InvalidInput) as err:
        cmd.build(cmd.RegisterEndpoint, **{"topics": ["turns"], **fields})
    assert err.value.field == field


def test_an_email_endpoint_receives_its_messages_through_the_configured_mail_server(settings, receiver):
    from ledger.application import Ledger

    mail = MailServer()
    led = Ledger(settings.model_copy(update={"smtp_url": mail.url}))
    try:
        cid = three_players(led)
        eid = register(led, cid, PLAYERS["SPA"], "carla@example.org", kind="email", topics=["turns"])
        led.open_turn(cid, actor=GM)
        deliver_all(led)
        [text] = mail.mails
        parsed = message_from_string(text, policy=policy.default)
        assert parsed["To"] == "carla@example.org" and "Turn 1 opened" in parsed.get_content()
        assert str(parsed[signing.SIGNATURE_HEADER]).strip().startswith("sha256=") and parsed[signing.TIMESTAMP_HEADER]
        assert outbox.status(Projector(led).db, str(cid), [eid])[eid]["delivered"] == 1
    finally:
        led.close()
        mail.close()


def test_a_rebuild_of_the_views_queues_no_message_twice(ledger, receiver):
    cid = three_players(ledger)
    register(ledger, cid, PLAYERS["ENG"], receiver.url("/ENG"), topics=["turns"])
    ledger.open_turn(cid, actor=GM)
    deliver_all(ledger)
    Projector(ledger).rebuild()
    deliver_all(ledger)
    assert [b["type"] for b in receiver.bodies("/ENG")] == ["TurnOpened"]


def test_a_change_of_control_touches_the_new_and_the_former_controller_only():
    doc = {**timeline.empty(), "countries": ["ENG", "FRA", "SPA"], "name": "c"}
    r = Record("c", 9, "ControlChanged", {"province": "Picardie", "controller": "ENG", "previous": "FRA",
                                          "reason": "held", "context": {"turn": 1}}, 9)
    assert outbox.touches(doc, r) == {"ENG", "FRA"}


# ----------------------------------------------------------------- the hidden-information property, on the outbox

COUNTRIES = ("ENG", "FRA", "SPA")
AUDIENCES = (*COUNTRIES, "gm", "public")
visibilities = st.one_of(st.just({"scope": "public"}), st.just({"scope": "gm"}),
                         st.sets(st.sampled_from(COUNTRIES), min_size=1).map(
                             lambda cs: {"scope": "countries", "countries": sorted(cs)}))
steps = st.tuples(st.sampled_from(["ControlChanged", "TurnOpened", "PhaseClosed", "MarkerPlaced"]),
                  st.sampled_from(COUNTRIES), st.sampled_from(COUNTRIES), visibilities)


def _record(cid: str, position: int, kind: str, a: str, b: str, vis: dict) -> Record:
    data = {"visibility": vis, "context": {"turn": 1}, "timestamp": "2026-11-29T09:00:00+00:00", "reason": "r"}
    if kind == "ControlChanged":
        data.update(province="Picardie", controller=a, previous=b)
    elif kind == "MarkerPlaced":  # names no country: of concern to the players only through the turn
        data.update(province="Picardie", marker="Revolt")
    elif kind == "TurnOpened":
        data.update(turn=1, commitment="ab" * 32)
    else:
        data.update(turn=1, phase="events", ers={})
    return Record(cid, position, kind, data, position)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(steps, max_size=12), st.lists(st.sets(st.sampled_from(["turns", "moves"]), min_size=1),
                                                min_size=len(AUDIENCES), max_size=len(AUDIENCES)))
def test_no_message_carries_an_event_hidden_from_its_receiver_and_every_one_they_may_see_and_that_touches_them_is_sent(
        ledger, history, topics):
    from uuid import uuid4

    from ledger.domain.actors import Actor

    cid = str(uuid4())
    view = outbox.OutboxView(ViewDB(ledger.recorder))
    created = Record(cid, 1, "CampaignCreated", {"countries": list(COUNTRIES), "name": "p", "context": {}}, 1)
    records = [created] + [
        Record(cid, 2 + i, "EndpointRegistered", {"endpoint_id": f"ep_{i:016x}", "audience": a, "kind": "json",
                                                  "target": f"https://example.org/{a}", "topics": sorted(t),
                                                  "visibility": {"scope": "gm"}, "context": {}}, 2 + i)
        for i, (a, t) in enumerate(zip(AUDIENCES, topics))]
    first = len(records) + 1
    records += [_record(cid, first + i, *step) for i, step in enumerate(history)]
    with view.db.transaction() as cur:
        for r in records:
            view.handle(cur, r)
        view.flush(cur)
    view.committed()
    for i, (audience, wanted) in enumerate(zip(AUDIENCES, topics)):
        reader = Actor("r", *{"gm": ("gm", None), "public": ("observer", None)}.get(audience, ("player", audience)))
        expected = []
        for r, (kind, a, b, vis) in zip(records[first - 1:], history):
            topic = "turns" if kind in TURNS else "moves"
            named = {a, b} if kind == "ControlChanged" else set()
            if topic in wanted and can_see(reader, r) and (
                    topic == "turns" or reader.role != "player" or audience in named):
                expected.append(r.position)
        sent = [row["position"] for row in outbox.deliveries(view.db, cid, f"ep_{i:016x}", limit=100)]
        assert sorted(sent) == expected, (audience, wanted)


def test_a_webhook_that_moved_is_not_followed_and_an_unreachable_one_is_retried(receiver):
    from ledger.notify.send import DeliveryError, post

    receiver.fail["/moved"] = [301]
    with pytest.raises(DeliveryError) as moved:
        post(receiver.url("/moved"), b"{}", "application/json", {}, 5.0)
    assert moved.value.permanent and "HTTP 301" in str(moved.value)
    receiver.fail["/busy"] = [429]
    with pytest.raises(DeliveryError) as busy:
        post(receiver.url("/busy"), b"{}", "application/json", {}, 5.0)
    assert not busy.value.permanent
    with pytest.raises(DeliveryError) as down:
        post("http://127.0.0.1:9/nobody", b"{}", "application/json", {}, 5.0)  # the discard port: refused
    assert not down.value.permanent and str(down.value).startswith("could not reach the receiver")
    post(receiver.url("/ok"), b"{}", "application/json", {}, 5.0)
    assert [p for p, _, _ in receiver.received] == ["/ok"]


def test_a_late_player_is_reminded_through_their_endpoint_and_a_ready_one_is_not(ledger, receiver):
    """The reminders of branch catchup (``ReminderIssued``, naming the countries not ready) reach the endpoints of
    those countries; the deadline itself reaches everyone who asked for deadlines. freezegun drives the clock."""
    from datetime import datetime

    from freezegun import freeze_time

    from ledger.domain import pace

    cid = three_players(ledger)
    for c, actor in PLAYERS.items():
        register(ledger, cid, actor, receiver.url(f"/{c}"), topics=["deadlines"])
    with freeze_time("2026-11-30 12:00:00"):
        ledger.open_turn(cid, actor=GM)
        ledger.handle(cid, pace.SetDeadline(phase="events", due="2026-12-01 12:00", reminders=[60]), actor=GM)
        ledger.handle(cid, pace.MarkReady(), actor=PLAYERS["FRA"])
    with freeze_time("2026-12-01 11:05:00"):
        ledger.handle(cid, pace.SendReminders(), actor=GM)
    Projector(ledger).catch_up()
    d = Deliveries(ledger, clock=lambda: datetime.fromisoformat("2026-12-01T11:06:00+00:00").timestamp())
    while d.run_once():
        pass
    got = {c: [b["type"] for b in receiver.bodies(f"/{c}")] for c in PLAYERS}
    assert got == {"ENG": ["DeadlineSet", "ReminderIssued"], "FRA": ["DeadlineSet"],
                   "SPA": ["DeadlineSet", "ReminderIssued"]}
    [reminder] = [b for b in receiver.bodies("/SPA") if b["type"] == "ReminderIssued"]
    assert "ENG" in reminder["text"] and "SPA" in reminder["text"] and "FRA" not in reminder["text"]
