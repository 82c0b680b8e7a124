"""Trust that does not depend on the operator: tampering located by verify, receipts, sealed snapshots.

Every tampering is done with SQL as an intruder would (the immutability trigger dropped first, as the
table's owner can), on both stores.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from uuid import UUID

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import merkle, tokens
from ledger.application import Actor, Ledger
from ledger.chain import canonical_json, event_hash, hash_body
from ledger.checkpoints import parse_note
from ledger.economy import treasury_log
from ledger.domain.errors import ChainBroken, InvalidInput
from ledger.receipts import audit_receipts
from tests.conftest import events_table, raw_execute
from ledger.sample import close_open_phases

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM = Actor("gm", "gm")
ADMIN = "admin-secret-for-tests"


def new_campaign(ledger: Ledger, rolls: int = 3) -> tuple[UUID, list[str]]:
    """Positions 1 (created), 2 (turn opened), 3.. (one roll per write); returns the checkpoints received."""
    first = ledger.create_campaign(slug="trust", name="Trust", ruleset="eu", countries=["ENG", "FRA"], actor=GM)
    cid = UUID(first.data["id"])
    receipts = [first.checkpoint, ledger.open_turn(cid, actor=GM).checkpoint]
    receipts += [ledger.roll(cid, purpose=f"r{i}", actor=GM).checkpoint for i in range(rolls)]
    return cid, receipts


def unlock(settings) -> str:
    """Drop the immutability triggers (as the table's owner could); returns the events table."""
    table = events_table(settings)
    if settings.backend == "sqlite":
        raw_execute(settings, f"DROP TRIGGER {table}_no_update")
        raw_execute(settings, f"DROP TRIGGER {table}_no_delete")
    else:
        raw_execute(settings, f"DROP TRIGGER {table}_immutable ON {table}")
    return table


def rows(ledger: Ledger, cid: UUID) -> dict[int, dict]:
    return {r.position: {"topic": r.topic, "state": orjson.loads(r.state)} for r in ledger.stored_rows(cid)}


def set_state(settings, table: str, position: int, state: dict) -> None:
    raw_execute(settings, f"UPDATE {table} SET state = ? WHERE originator_version = ?", (canonical_json(state), position))


def rehash_from(ledger, settings, table, cid, start: int, edit: Callable[[dict], None]) -> None:
    """Rewrite the events from ``start`` on and recompute every hash, as a careful intruder would."""
    stored = rows(ledger, cid)
    prev = stored[start]["state"]["prev_hash"]
    for position in range(start, max(stored) + 1):
        state = stored[position]["state"]
        if position == start:
            edit(state)
        state["prev_hash"] = prev
        state["hash"] = event_hash(prev, hash_body(cid, position, stored[position]["topic"], state))
        prev = state["hash"]
        set_state(settings, table, position, state)


def topic_changed(ledger, settings, table, cid):
    raw_execute(settings, f"UPDATE {table} SET topic = 'ledger.domain.events:TurnClosed' WHERE originator_version = 3")
    return 3, "hash"


def payloads_swapped(ledger, settings, table, cid):
    stored = rows(ledger, cid)
    set_state(settings, table, 3, stored[4]["state"])
    set_state(settings, table, 4, stored[3]["state"])
    return 3, "link"


def first_deleted(ledger, settings, table, cid):
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version = 1")
    return 1, "position 1 is missing"


def gap(ledger, settings, table, cid):
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version = 3")
    return 3, "position 3 is missing"


def tail_deleted(ledger, settings, table, cid):
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version >= 4")
    return 4, "positions 4..5 are missing"


def tail_rewritten_and_rehashed(ledger, settings, table, cid):
    rehash_from(ledger, settings, table, cid, 4, lambda s: s.update(purpose="rewritten"))
    return 4, "do not hash to the root"


def forged_append(ledger, settings, table, cid):
    stored = rows(ledger, cid)
    state = dict(stored[5]["state"], purpose="forged", prev_hash=stored[5]["state"]["hash"])
    state["hash"] = event_hash(state["prev_hash"], hash_body(cid, 6, stored[5]["topic"], state))
    raw_execute(settings, f"INSERT INTO {table} (originator_id, originator_version, topic, state) "
                          f"SELECT originator_id, 6, topic, ? FROM {table} WHERE originator_version = 5",
                (canonical_json(state),))
    return 6, "not covered by any checkpoint the service signed"


TAMPERINGS = [topic_changed, payloads_swapped, first_deleted, gap, tail_deleted, tail_rewritten_and_rehashed,
              forged_append]


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=lambda f: f.__name__)
def test_verify_names_the_first_bad_position_of_every_tampering_and_nothing_crashes(settings, tamper):
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger)
        assert ledger.verify(cid).intact
        position, why = tamper(ledger, settings, unlock(settings), cid)
    finally:
        ledger.close()
    fresh = Ledger(settings)  # a restart: nothing cached
    try:
        report = fresh.verify(cid)
        assert not report.intact and report.broken_at == position, report
        assert why in report.reason
        fresh.campaigns()  # the list answers (a damaged campaign is left out, logged)
        with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), fresh)) as client:
            auth = {"Authorization": f"Bearer {ADMIN}"}
            assert client.get("/campaigns", headers=auth).status_code == 200
            answer = client.get(f"/campaigns/{cid}/verify", headers=auth)
            assert answer.status_code == 200 and answer.json()["broken_at"] == position
            chain = client.get(f"/campaigns/{cid}/chain", headers=auth)
            assert chain.status_code in (200, 409), chain.text  # 409: the damage is named, never a 500
            if chain.status_code == 409:
                assert "damaged" in chain.json()["error"]["message"]
    finally:
        fresh.close()


def test_a_history_written_through_the_ledger_verifies_with_its_root(ledger):
    cid, receipts = new_campaign(ledger)
    report = ledger.verify(cid)
    assert report.intact and report.count == 5
    last = parse_note(receipts[-1], ledger.signer.name, ledger.signer.public)
    assert last.size == 5 and last.root.hex() == report.root


def test_a_deleted_tail_with_its_signed_checkpoints_is_caught_by_the_head_a_player_noted(ledger, settings):
    cid, _ = new_campaign(ledger)
    head = (5, ledger.event_at(cid, 5).hash)
    table = unlock(settings)
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version >= 4")
    raw_execute(settings, "DELETE FROM ledger_checkpoints WHERE size >= 4")
    assert ledger.verify(cid).intact  # the database alone no longer shows it: that is what receipts are for
    report = ledger.verify(cid, expect_head=head)
    assert not report.intact and report.broken_at == 4 and "missing" in report.reason


def test_a_rewritten_tail_is_caught_by_a_checkpoint_the_player_kept(ledger, settings):
    cid, receipts = new_campaign(ledger)
    table = unlock(settings)
    rehash_from(ledger, settings, table, cid, 5, lambda s: s.update(purpose="rewritten"))
    report = ledger.verify(cid, checkpoint=receipts[-1])
    assert not report.intact and report.broken_at == 5


def test_a_checkpoint_not_signed_by_the_service_is_refused_naming_the_field(ledger):
    cid, receipts = new_campaign(ledger)
    forged = receipts[-1].replace("\n5\n", "\n6\n", 1)
    with pytest.raises(InvalidInput) as e:
        ledger.verify(cid, checkpoint=forged)
    assert e.value.field == "checkpoint"


def _receipts(texts: list[str]) -> dict[str, str]:
    return {f"{i:03}.txt": t for i, t in enumerate(texts)}


def test_receipts_of_an_untouched_history_are_all_extended_by_it(ledger):
    cid, receipts = new_campaign(ledger)
    report = audit_receipts(ledger, cid, _receipts(receipts))
    assert report.ok and report.checked == 5 and report.head == 5


def test_receipts_catch_a_truncation(ledger, settings):
    cid, receipts = new_campaign(ledger)
    table = unlock(settings)
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version >= 4")
    report = audit_receipts(ledger, cid, _receipts(receipts))
    assert any(p.startswith("truncated: 003.txt covers 4 events") for p in report.problems), report.problems


def test_receipts_catch_a_rewritten_tail(ledger, settings):
    cid, receipts = new_campaign(ledger)
    rehash_from(ledger, settings, unlock(settings), cid, 4, lambda s: s.update(purpose="rewritten"))
    report = audit_receipts(ledger, cid, _receipts(receipts))
    assert [p for p in report.problems if p.startswith("rewritten")] == [
        "rewritten: the current history (5 events) does not extend 003.txt (4 events)",
        "rewritten: the current history (5 events) does not extend 004.txt (5 events)"]
    assert not [p for p in report.problems if p.startswith("fork")], report.problems  # one history, rewritten


def test_receipts_catch_a_fork_shown_to_two_players(settings, tmp_path):
    """The operator shows player A one history, then rewrites it and shows player B another."""
    ledger = Ledger(settings)
    try:
        cid, receipts_a = new_campaign(ledger, rolls=2)  # A keeps the checkpoint at 4
        rehash_from(ledger, settings, unlock(settings), cid, 4, lambda s: s.update(purpose="other"))
        # The operator holds the key: the rewritten head is re-signed, so the database alone shows nothing.
        root = merkle.root(ledger.leaf_hashes(cid, 4))
        raw_execute(settings, "UPDATE ledger_checkpoints SET note = ? WHERE size = 4",
                    (ledger.signer.note(cid, 4, root),))
    finally:
        ledger.close()
    forked = Ledger(settings)
    try:
        assert forked.verify(cid).intact
        receipt_b = forked.roll(cid, purpose="after the fork", actor=GM).checkpoint
        report = audit_receipts(forked, cid, {"a.txt": receipts_a[-1], "b.txt": receipt_b})
        assert "fork: b.txt (5 events) does not extend a.txt (4 events)" in report.problems
        assert any(p.startswith("rewritten") and "a.txt" in p for p in report.problems)
    finally:
        forked.close()


def test_a_gm_token_forged_into_the_latest_snapshot_is_refused_after_a_restart(settings):
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger, rolls=60)  # the test settings snapshot every 50 events
        assert list(ledger.snapshots.get(cid, desc=True, limit=1))[0].originator_version == 50
    finally:
        ledger.close()
    forged = tokens.new_token(cid)
    entry = orjson.dumps({tokens.digest(forged): {"id": "evil", "role": "gm", "country": None, "holder": "mallory"}})
    table = "stored_snapshots" if settings.backend == "sqlite" else "ledger_snapshots"
    if settings.backend == "sqlite":
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), '\"tokens\":{{}}', ?) "
                              "AS BLOB)", ('"tokens":' + entry.decode(),))
    else:
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "'\"tokens\":{}', ?), 'UTF8')", ('"tokens":' + entry.decode(),))
    restarted = Ledger(settings)
    try:
        [snap] = list(restarted.snapshots.get(cid, desc=True, limit=1))
        assert tokens.digest(forged) in snap.state["tokens"]  # the forgery is really in the snapshot row
        assert tokens.authenticate(restarted, forged) is None
        with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), restarted)) as client:
            answer = client.get(f"/campaigns/{cid}/events", headers={"Authorization": f"Bearer {forged}"})
            assert answer.status_code == 401
        assert restarted.verify(cid).intact  # the chain itself is untouched
    finally:
        restarted.close()


def test_a_sealed_snapshot_is_used_after_a_restart(settings):
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger, rolls=60)
        head = ledger.campaign(cid)
    finally:
        ledger.close()
    restarted = Ledger(settings)
    try:
        assert restarted._snapshot_state(cid) is not None  # the seal verifies: the cold load starts from it
        assert restarted.campaign(cid) == head
    finally:
        restarted.close()


def test_the_checkpoint_and_proofs_over_http_verify_with_the_published_key(settings, ledger):
    cid, _ = new_campaign(ledger)
    with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger)) as client:
        auth = {"Authorization": f"Bearer {ADMIN}"}
        key = client.get("/.well-known/ledger-key").json()
        public = base64.b64decode(key["public_key"])
        Ed25519PublicKey.from_public_bytes(public)
        written = client.post(f"/campaigns/{cid}/rolls", json={"purpose": "http", "sides": 6}, headers=auth)
        assert written.status_code == 201, written.text
        receipt = parse_note(written.json()["checkpoint"], key["name"], public)
        assert receipt.size == 6 and receipt.origin == f"{key['name']}/campaigns/{cid}"
        head = parse_note(client.get(f"/campaigns/{cid}/checkpoint", headers=auth).text, key["name"], public)
        assert head == receipt
        proof = client.get(f"/campaigns/{cid}/proofs/inclusion", params={"position": 3}, headers=auth).json()
        leaf = merkle.leaf_hash(bytes.fromhex(ledger.event_at(cid, 3).hash))
        assert proof["leaf_hash"] == leaf.hex()
        assert merkle.verify_inclusion(2, 6, leaf, [bytes.fromhex(h) for h in proof["proof"]], receipt.root)
        c = client.get(f"/campaigns/{cid}/proofs/consistency", params={"from": 4, "to": 6}, headers=auth).json()
        assert merkle.verify_consistency(4, 6, bytes.fromhex(c["from_root"]), receipt.root,
                                         [bytes.fromhex(h) for h in c["proof"]])
        bad = client.get(f"/campaigns/{cid}/proofs/inclusion", params={"position": 9}, headers=auth)
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "position"
        bad = client.get(f"/campaigns/{cid}/verify", params={"expect_head": "3:xyz"}, headers=auth)
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "expect_head"
        noted = client.get(f"/campaigns/{cid}/verify", params={"expect_head": f"6:{'0' * 64}"}, headers=auth).json()
        assert noted["intact"] is False and noted["broken_at"] == 6


def test_every_turn_close_keeps_its_signed_checkpoint_which_verifies_against_the_later_history(settings, ledger):
    cid, _ = new_campaign(ledger)  # turn 1 open, head 5
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    closed = [ledger.close_turn(cid, actor=GM).checkpoint]
    ledger.open_turn(cid, actor=GM)
    ledger.roll(cid, purpose="turn 2", actor=GM)
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    closed.append(ledger.close_turn(cid, actor=GM).checkpoint)
    ledger.open_turn(cid, actor=GM)
    ledger.roll(cid, purpose="turn 3", actor=GM)
    with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger)) as client:
        auth = {"Authorization": f"Bearer {ADMIN}"}
        key = client.get("/.well-known/ledger-key").json()
        public = base64.b64decode(key["public_key"])
        for turn, receipt in enumerate(closed, start=1):
            answer = client.get(f"/campaigns/{cid}/checkpoint", params={"turn": turn}, headers=auth)
            assert answer.status_code == 200 and answer.text == receipt  # the one the close returned
            note = parse_note(answer.text, key["name"], public)
            assert ledger.event_at(cid, note.size).type == "TurnClosed"
            # The existing tools accept it: verify against it, and prove the head extends it.
            assert client.get(f"/campaigns/{cid}/verify", params={"checkpoint": answer.text},
                              headers=auth).json()["intact"] is True
            c = client.get(f"/campaigns/{cid}/proofs/consistency", params={"from": note.size}, headers=auth).json()
            head = parse_note(client.get(f"/campaigns/{cid}/checkpoint", headers=auth).text, key["name"], public)
            assert merkle.verify_consistency(note.size, head.size, note.root, head.root,
                                             [bytes.fromhex(h) for h in c["proof"]])
        for turn, why in [(3, "turn 3 has not been closed"), (4, "there is no turn 4 yet")]:
            refused = client.get(f"/campaigns/{cid}/checkpoint", params={"turn": turn}, headers=auth)
            assert refused.status_code == 409 and refused.json()["error"]["field"] == "turn"
            assert why in refused.json()["error"]["message"]
    # After a restart from a snapshot-less cold load, the closes are found again.
    restarted = Ledger(settings)
    try:
        assert [restarted.checkpoint(cid, turn=t) for t in (1, 2)] == closed
    finally:
        restarted.close()


def test_an_idempotent_replay_returns_the_same_receipt(ledger):
    cid, _ = new_campaign(ledger)
    first = ledger.roll(cid, purpose="k", actor=GM, idempotency_key="k1")
    again = ledger.roll(cid, purpose="k", actor=GM, idempotency_key="k1")
    assert again.replayed and again.checkpoint == first.checkpoint


# ------------------------------------------------------------------ the command line


def test_the_cli_verifies_against_a_noted_head_and_a_kept_checkpoint_and_audits_receipts(settings, tmp_path):
    from tests.integration.test_cli import run

    ledger = Ledger(settings)
    try:
        cid, receipts = new_campaign(ledger)
        noted = f"5:{ledger.event_at(cid, 5).hash}"
    finally:
        ledger.close()
    folder = tmp_path / "receipts"
    folder.mkdir()
    for i, note in enumerate(receipts):
        (folder / f"{i:03}.txt").write_text(note)
    assert run(settings, "verify", "trust", "--expect-head", noted).exit_code == 0
    assert run(settings, "verify", "trust", "--checkpoint", str(folder / "004.txt")).exit_code == 0
    ok = run(settings, "audit", "trust", "--receipts", str(folder))
    assert ok.exit_code == 0 and "5 receipts" in ok.output
    bad = run(settings, "verify", "trust", "--expect-head", "5:nothex")
    assert bad.exit_code == 2 and "--expect-head" in bad.output

    table = unlock(settings)
    raw_execute(settings, f"DELETE FROM {table} WHERE originator_version >= 5")
    raw_execute(settings, "DELETE FROM ledger_checkpoints WHERE size >= 5")
    truncated = run(settings, "verify", "trust", "--expect-head", noted)
    assert truncated.exit_code == 1 and "position 5" in truncated.output
    audited = run(settings, "audit", "trust", "--receipts", str(folder))
    assert audited.exit_code == 1 and "truncated: 004.txt covers 5 events" in audited.output


def test_a_history_from_before_checkpoints_verifies_once_the_operator_signs_its_head(settings):
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger)
        raw_execute(settings, "DELETE FROM ledger_checkpoints")  # as a store written by an older release
        report = ledger.verify(cid)
        assert not report.intact and report.broken_at == 1 and "not covered" in report.reason
        note = ledger.sign_head(cid)
        assert parse_note(note, ledger.signer.name, ledger.signer.public).size == 5
        assert ledger.verify(cid).intact
    finally:
        ledger.close()
    restarted = Ledger(settings)
    try:
        assert restarted.campaign(cid).version == 5  # the cold load accepts the signed head
        restarted.roll(cid, purpose="after", actor=GM)
        assert restarted.verify(cid).intact
    finally:
        restarted.close()


def test_the_operator_cannot_sign_a_head_over_a_broken_chain(ledger, settings):
    cid, _ = new_campaign(ledger)
    topic_changed(ledger, settings, unlock(settings), cid)
    with pytest.raises(Exception, match="broken at position 3"):
        ledger.sign_head(cid)


def test_a_budget_log_edited_in_the_snapshot_is_refused_by_its_seal_before_it_is_decoded(settings, monkeypatch):
    # The log's chunks are kept in the snapshot as text, decoded lazily: the seal still covers that text.
    monkeypatch.setattr(treasury_log, "CHUNK", 4)
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger, rolls=0)
        for n in range(50):  # the test settings snapshot every 50 events
            ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=n, reason="looting", actor=GM)
        [snap] = list(ledger.snapshots.get(cid, desc=True, limit=1))
        assert snap.originator_version == 50 and snap.state["treasury"]["count"] == 48
        budget = ledger.budget_of(ledger.campaign(cid))
    finally:
        ledger.close()
    restarted = Ledger(settings)
    try:
        state = restarted.campaign(cid)
        assert state.treasury.base is not None and state.treasury.base._chunks is None  # not decoded by a load
        assert restarted.budget_of(state) == budget
    finally:
        restarted.close()
    table = "stored_snapshots" if settings.backend == "sqlite" else "ledger_snapshots"
    edit = ('amount\\":7,', 'amount\\":700,')  # inside the chunks' text, its quotes escaped
    if settings.backend == "sqlite":
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), ?, ?) AS BLOB)", edit)
    else:
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), ?, ?), "
                              "'UTF8')", edit)
    tampered = Ledger(settings)
    try:
        [snap] = list(tampered.snapshots.get(cid, desc=True, limit=1))
        assert '"amount":700,' in snap.state["treasury"]["chunks"]  # the edit is really in the snapshot row
        assert tampered.check_snapshot(cid) == (50, "its seal does not verify with the service's key")
        assert tampered.budget_of(tampered.campaign(cid)) == budget  # rebuilt from the events
    finally:
        tampered.close()


def test_a_snapshot_sealed_in_the_earlier_form_is_still_used_and_one_edited_is_not(settings, monkeypatch):
    """Snapshots are sealed over the budget log's text by its SHA-256 (form 2: a cold load does not encode the
    text again); those sealed before, over the text itself (form 1), are still used after an upgrade; an edited
    log is refused in either form."""
    from ledger import application

    monkeypatch.setattr(treasury_log, "CHUNK", 4)
    sealed = application._snapshot_message

    def earlier(cid, position, data, form):  # writes form 1, as the service did before (no ``seal_form``)
        data.pop("seal_form", None)
        return sealed(cid, position, data, form=1)

    monkeypatch.setattr(application, "_snapshot_message", earlier)
    ledger = Ledger(settings)
    try:
        cid, _ = new_campaign(ledger, rolls=0)
        for n in range(50):  # the test settings snapshot every 50 events
            ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=n, reason="looting", actor=GM)
        head = ledger.campaign(cid)
    finally:
        ledger.close()
    monkeypatch.setattr(application, "_snapshot_message", sealed)
    restarted = Ledger(settings)
    try:
        [snap] = list(restarted.snapshots.get(cid, desc=True, limit=1))
        data = {k: v for k, v in snap.state.items() if k != "seal"}
        seal = bytes.fromhex(snap.state["seal"])
        assert restarted.signer.verify(sealed(cid, 50, data, form=1), seal)
        assert "seal_form" not in data and not restarted.signer.verify(sealed(cid, 50, data, form=2), seal)
        assert restarted.check_snapshot(cid) == (50, None)  # used
        assert restarted.campaign(cid) == head
        restarted._maybe_snapshot(0, restarted.campaign(cid))  # a snapshot written now: form 2
        [again] = list(restarted.snapshots.get(cid, desc=True, limit=1))
        assert again.state["seal_form"] == 2 and restarted.check_snapshot(cid) == (again.originator_version, None)
        edited = {**data, "treasury": {**data["treasury"],
                                       "chunks": data["treasury"]["chunks"].replace('"amount":7,', '"amount":700,')}}
        assert edited != data
        assert not any(restarted.signer.verify(sealed(cid, 50, edited, form=f), seal) for f in (1, 2))
    finally:
        restarted.close()
