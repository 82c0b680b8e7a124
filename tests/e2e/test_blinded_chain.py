"""Hidden events are blinded in the chain (issue 33): every reader gets every link, and a hidden event's hash
covers a salt served only with the event, so a reader who may not see it cannot confirm a guess of its content;
whoever may read the event receives the salt with it and recomputes its hash; every reader still verifies the
chain and their receipts (ledger/chain.py, the README's history verifier).

The attacker of these tests knows everything of a hidden event but its salt: its type, its purpose, its actor,
its context, its visibility, the clock (frozen: its timestamp is one of the seconds between its visible
neighbours'), and tries every face of the die.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta, timezone
from typing import Any
from uuid import UUID

import orjson
import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from ledger import chain as chainlib
from ledger.chain import event_hash, hash_body
from ledger.domain.commands import RevealEvent
from tests.e2e.test_access import SYSTEM, VISIBILITY, bearer, issue, make_client, new_campaign
from tests.integration.test_readme_checkpoint_verifier import readme_verifier
from ledger.sample import close_open_phases

GM_ONLY = {"scope": "gm"}
FRA_ONLY = {"scope": "countries", "countries": ["FRA"]}
START = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


def stored(ledger, cid: UUID) -> dict[int, tuple[str, dict[str, Any]]]:
    """position -> (topic, stored state) as the store holds them: what only the service reads."""
    return {r.originator_version: (r.topic, orjson.loads(r.state)) for r in ledger.recorder.select_events(cid)}


def read(client, path: str, token: str) -> Any:
    r = client.get(path, headers=bearer(token))
    assert r.status_code == 200, (path, r.text)
    return r.json()


@pytest.fixture
def world(settings, ledger):
    """Campaign `blind`, turn 1 closed, one write a second: a public roll, a game master's d6 rolled at the table
    (GM only), a treasury entry FRA alone sees, a public roll; tokens for the game master, FRA, ENG, an observer;
    the signed checkpoint of every write (the game master's receipts)."""
    with freeze_time(START, real_asyncio=True) as clock:
        def step(write):
            clock.tick(timedelta(seconds=1))
            return write()

        cid = new_campaign(ledger, "blind")
        tokens = {"gm": issue(ledger, cid, "gm"), "FRA": issue(ledger, cid, "player", "FRA"),
                  "ENG": issue(ledger, cid, "player", "ENG"), "observer": issue(ledger, cid, "observer")}
        receipts = [step(lambda: ledger.open_turn(cid, actor=SYSTEM)).checkpoint]
        writes = {
            "public": lambda: ledger.roll(cid, purpose="weather", actor=SYSTEM),
            "die": lambda: ledger.record_manual_roll(cid, purpose="the spy's fate", sides=6, values=[4],
                                                     vis=GM_ONLY, actor=SYSTEM),
            "entry": lambda: ledger.record_treasury_entry(cid, country="FRA", turn=1, line="A9", amount=35,
                                                          reason="looting of Picardie", vis=FRA_ONLY, actor=SYSTEM),
            "later": lambda: ledger.roll(cid, purpose="harvest", actor=SYSTEM),
        }
        positions = {}
        for name, write in writes.items():
            done = step(write)
            positions[name] = done.events[-1]["position"]
            receipts.append(done.checkpoint)
        close_open_phases(ledger, cid)  # the turn closes after its eight phases
        receipts.append(step(lambda: ledger.close_turn(cid, actor=SYSTEM)).checkpoint)
    return {"cid": cid, "client": make_client(settings, ledger), "tokens": tokens, "positions": positions,
            "receipts": receipts}


def test_a_hidden_event_stores_a_salt_its_hash_covers_and_a_public_one_stores_none(world, ledger):
    states = stored(ledger, world["cid"])
    for name, position in world["positions"].items():
        topic, state = states[position]
        recomputed = event_hash(state["prev_hash"], hash_body(world["cid"], position, topic, state))
        assert recomputed == state["hash"]
        if name in ("die", "entry"):
            assert len(bytes.fromhex(state["salt"])) == 32
            unsalted = {k: v for k, v in state.items() if k != "salt"}
            assert event_hash(state["prev_hash"], hash_body(world["cid"], position, topic, unsalted)) != state["hash"]
        else:
            assert "salt" not in state
    assert states[world["positions"]["die"]][1]["salt"] != states[world["positions"]["entry"]][1]["salt"]
    assert ledger.verify(world["cid"]).intact


def test_guessing_a_hidden_die_from_its_chain_entry_finds_no_match_though_every_field_but_the_salt_is_known(
        world, ledger):
    cid, client, p = world["cid"], world["client"], world["positions"]["die"]
    links = {link["position"]: link for link in read(client, f"/campaigns/{cid}/chain", world["tokens"]["ENG"])}
    seen = {e["position"]: e for e in read(client, f"/campaigns/{cid}/events", world["tokens"]["ENG"])}
    assert p not in seen and links[p]["visible"] is False
    # The attacker's bounds: the nearest visible events' times; every second between them, every face of the d6.
    nearest = (max(q for q in seen if q < p), min(q for q in seen if q > p))
    before, after = (datetime.fromisoformat(seen[q]["timestamp"].replace("Z", "+00:00")) for q in nearest)
    times = [before + timedelta(seconds=s) for s in range(int((after - before).total_seconds()) + 1)]
    topic, truth = stored(ledger, cid)[p]
    guesses = [{**{k: v for k, v in truth.items() if k not in ("salt", "hash")}, "values": [face],
                "timestamp": t.isoformat()} for face in range(1, 7) for t in times]
    assert {**{k: v for k, v in truth.items() if k not in ("salt", "hash")}} in guesses  # the truth is among them
    link = links[p]
    assert not [g for g in guesses if event_hash(link["prev_hash"], hash_body(cid, p, topic, g)) == link["hash"]]
    # The salt is what is missing: with it (the service's, never served to ENG) the true content is the link.
    assert event_hash(link["prev_hash"], hash_body(cid, p, topic, {**guesses[0], "values": [4],
                                                                   "timestamp": truth["timestamp"],
                                                                   "salt": truth["salt"]})) == link["hash"]


@pytest.mark.parametrize("reader", ["ENG", "observer"])
def test_no_reader_outside_a_hidden_events_audience_receives_its_salt_on_any_route(world, ledger, reader):
    cid, client, token = world["cid"], world["client"], world["tokens"][reader]
    states = stored(ledger, cid)
    salts = [states[world["positions"][name]][1]["salt"] for name in ("die", "entry")]
    die = world["positions"]["die"]
    paths = [f"/campaigns/{cid}/events?limit=5000", f"/campaigns/{cid}/chain?limit=5000", f"/campaigns/{cid}/verify",
             f"/campaigns/{cid}/rulings", f"/campaigns/{cid}/checkpoint", f"/campaigns/{cid}/checkpoint?turn=1",
             f"/campaigns/{cid}/proofs/inclusion?position={die}",
             f"/campaigns/{cid}/proofs/consistency?from={die}", f"/campaigns/{cid}/turns/1/dice/verify",
             f"/campaigns/{cid}/turns/1/timeline", f"/campaigns/{cid}/state", f"/ui/campaigns/{cid}/turns/1"]
    for path in paths:
        r = client.get(path, headers=bearer(token))
        assert r.status_code == 200, (path, r.text)
        assert not [s for s in salts if s in r.text], path


def test_the_audience_of_a_hidden_event_receives_it_with_its_salt_and_recomputes_its_hash(world, ledger):
    verifier = readme_verifier()
    cid, entry = world["cid"], world["positions"]["entry"]
    [event] = [e for e in read(world["client"], f"/campaigns/{cid}/events", world["tokens"]["FRA"])
               if e["position"] == entry]
    assert event["salt"] == stored(ledger, cid)[entry][1]["salt"]
    assert verifier["event_hash"](event, str(cid)) == ledger.event_at(cid, entry).hash
    assert verifier["event_hash"]({**event, "salt": None}, str(cid)) != ledger.event_at(cid, entry).hash


@pytest.mark.parametrize("reader", ["gm", "FRA", "ENG", "observer"])
def test_every_reader_verifies_the_whole_chain_and_the_receipts_with_the_salts_of_what_they_may_read_only(
        world, ledger, reader):
    """The README's verifier: every link joins the one before it, every event the reader receives hashes to its
    link (salted or not), and the chain's size and root are those of the checkpoint the service signs; each
    receipt the game master kept is consistent with it."""
    verifier = readme_verifier()
    cid, client, token = world["cid"], world["client"], world["tokens"][reader]
    links = read(client, f"/campaigns/{cid}/chain?limit=5000", token)
    events = read(client, f"/campaigns/{cid}/events?limit=5000", token)
    salted = {e["position"] for e in events if e["salt"] is not None}
    assert salted == {e["position"] for e in events if e["visibility"]["scope"] != "public"}
    assert {world["positions"]["die"], world["positions"]["entry"]} & salted == {
        "gm": {world["positions"]["die"], world["positions"]["entry"]}, "FRA": {world["positions"]["entry"]},
        "ENG": set(), "observer": set()}[reader]
    size, root = verifier["chain_holds"](links, events, str(cid))
    key = read(client, "/.well-known/ledger-key", token)
    name, public = key["name"], key["public_key"]
    note = client.get(f"/campaigns/{cid}/checkpoint", headers=bearer(token)).text
    assert verifier["checkpoint"](note, name, public)[1:] == (size, root)
    for receipt in world["receipts"]:
        _, m, root_m = verifier["checkpoint"](receipt, name, public)
        proof = read(client, f"/campaigns/{cid}/proofs/consistency?from={m}&to={size}", token)["proof"]
        assert verifier["consistent"](m, size, root_m, root, proof)
    # A changed event is caught by the reader who receives it.
    if events:
        forged = [{**events[0], "payload": {**events[0]["payload"], "forged": True}}, *events[1:]]
        with pytest.raises(AssertionError):
            verifier["chain_holds"](links, forged, str(cid))


def test_a_revealed_hidden_event_is_served_whole_with_its_salt_and_every_reader_recomputes_its_hash(world, ledger):
    cid, die = world["cid"], world["positions"]["die"]
    ledger.submit(cid, RevealEvent, position=die, reason="the spy is dead", actor=SYSTEM)
    for reader in ("ENG", "observer"):
        [event] = [e for e in read(world["client"], f"/campaigns/{cid}/events", world["tokens"][reader])
                   if e["position"] == die]
        assert event["payload"]["values"] == [4] and event["salt"] is not None
        assert readme_verifier()["event_hash"](event, str(cid)) == ledger.event_at(cid, die).hash


def test_hidden_events_sealed_before_salts_keep_verifying_on_the_server_and_in_the_readme_verifier(
        settings, ledger, monkeypatch):
    cid = new_campaign(ledger, "old")
    token = issue(ledger, cid, "gm")
    ledger.open_turn(cid, actor=SYSTEM)
    with monkeypatch.context() as old:  # the release before salts sealed every event as a public one
        old.setattr(chainlib, "blinded", lambda visibility: False)
        ledger.roll(cid, purpose="old secret", vis=GM_ONLY, actor=SYSTEM)
    ledger.roll(cid, purpose="new secret", vis=GM_ONLY, actor=SYSTEM)
    client = make_client(settings, ledger)
    events = read(client, f"/campaigns/{cid}/events", token)
    assert [e["salt"] is None for e in events if e["type"] == "DiceRolled"] == [True, False]
    assert ledger.verify(cid).intact
    links = read(client, f"/campaigns/{cid}/chain", token)
    assert readme_verifier()["chain_holds"](links, events, str(cid))[0] == len(links)


def test_whatever_the_visibility_an_event_is_salted_exactly_when_it_is_not_public_and_its_hash_covers_the_salt(
        ledger):
    cid = new_campaign(ledger, "any")
    ledger.open_turn(cid, actor=SYSTEM)

    @hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(vis=VISIBILITY, sides=st.integers(2, 100))
    def check(vis, sides):
        done = ledger.roll(cid, purpose="any", sides=sides, vis=vis, actor=SYSTEM)
        position = done.events[-1]["position"]
        topic, state = stored(ledger, cid)[position]
        assert ("salt" in state) == (vis["scope"] != "public")
        assert event_hash(state["prev_hash"], hash_body(cid, position, topic, state)) == state["hash"]
        assert ledger.event_at(cid, position).salt == state.get("salt")

    check()
    assert ledger.verify(cid).intact


def test_the_readme_verifier_recomputes_the_hash_of_an_event_whatever_text_it_holds(ledger):
    """The README's ``event_hash`` (Python's json) and the ledger's canonical JSON (orjson) agree on any text: an
    escape or a key order that differed would fail a reader's check of an honest event."""
    cid = new_campaign(ledger, "texts")
    ledger.open_turn(cid, actor=SYSTEM)
    from api.routes.views import events_json
    from projections import read as reads

    verifier = readme_verifier()

    # What a person may type (ledger/text.py): no control character but line breaks and tabs, NFC; any script,
    # astral characters, quotes, backslashes, U+2028.
    typed = st.text(st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\ufffe\uffff")
                    | st.sampled_from("\n\t\"\\/\u2028"), min_size=1, max_size=40)
    typed = typed.map(lambda t: unicodedata.normalize("NFC", t)).filter(lambda t: t.strip())

    @hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(text=typed, vis=VISIBILITY)
    def check(text, vis):
        done = ledger.record_treasury_entry(cid, country="ENG", turn=1, line="A9", amount=3, reason=text, vis=vis,
                                            actor=SYSTEM)
        position = done.events[-1]["position"]
        [event] = orjson.loads(events_json(reads.records(ledger, cid, position - 1, position)))
        assert verifier["event_hash"](event, str(cid)) == event["hash"]

    check()
