"""Drill: random tamperings of the stored rows, each located exactly by `verify` or by a receipt.

    python ops/drills/tamper.py                   # 100 tamperings on a throwaway PostgreSQL
    python ops/drills/tamper.py --store sqlite    # the same on SQLite
    python ops/drills/tamper.py --short           # one of each kind (11, CI)
    python ops/drills/tamper.py --count 500 --seed 7

Each tampering gets a campaign of its own (12 to 40 events written through the ledger, one event per write,
so every position has a checkpoint the service signed; a player kept some of them as receipts, as players do:
each write's with a chance of one in four, and the last one),
then an intruder changes its rows: on PostgreSQL a superuser, who can silence the immutability trigger with
``session_replication_role = replica`` (the service's own role cannot: ledger/store/roles.py); on SQLite
whoever can write the file, dropping the triggers. The kinds, at a random position p:

- payload changed, type changed, row deleted, tail deleted (from p), first row deleted, adjacent payloads
  swapped (p and p + 1), tail rewritten and re-hashed (from p), an event forged after the head (p = N + 1):
  `verify` must name p as the first bad position;
- a snapshot edited (a GM token added to its state): the snapshot at p is refused by its seal;
- tail deleted with its checkpoints, tail rewritten and re-signed by whoever holds the key: the database
  alone looks intact, so the receipts must locate p (the smallest receipt the history no longer extends).

Found with the tools players and operators use, never the library in this process: `ledger verify` and
`ledger audit --receipts DIR` as commands, and the HTTP check a player makes (`GET /campaigns/{id}/verify`,
with a player's token, and `?checkpoint=` one of their receipts) against a running `ledger serve`. A tampering
counts as located when the position named is exactly p (for the receipts: the first receipt the player kept at
or after p, since a receipt is all they have) and the HTTP check names the same. Prints the figures per kind;
exit 1 unless every tampering was located.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Service, Store, conclude, figure, ledger_cli, parser  # noqa: E402

from ledger import merkle  # noqa: E402
from ledger.application import Actor, Ledger  # noqa: E402
from ledger.chain import canonical_json, event_hash, hash_body  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.tokens import issue_token  # noqa: E402

GM = Actor("drill", "gm")
SNAPSHOT_INTERVAL = 10


class Intruder:
    """Raw SQL on the store, past the immutability triggers."""

    def __init__(self, store: Store, settings: Settings):
        self.store, self.settings = store, settings
        self.postgres = store.kind == "postgres"
        self.events = "ledger_events" if self.postgres else "stored_events"
        self.snapshots = "ledger_snapshots" if self.postgres else "stored_snapshots"

    def run(self, statements: list[tuple[str, tuple]]) -> None:
        if self.postgres:
            import psycopg

            with psycopg.connect(self.store.dsn, autocommit=False) as conn:
                conn.execute("SET session_replication_role = replica")  # triggers off: a superuser's bypass
                conn.execute(f'SET search_path TO "{self.store.schema}"')
                for sql, params in statements:
                    conn.execute(sql.replace("?", "%s"), params)
            return
        conn = sqlite3.connect(self.settings.sqlite_path)
        try:
            for trigger in ("stored_events_no_update", "stored_events_no_delete"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            for sql, params in statements:
                conn.execute(sql, params)
            conn.commit()
        finally:
            conn.close()

    def id(self, cid: UUID) -> Any:
        return str(cid) if self.postgres else cid.hex


def stored(ledger: Ledger, cid: UUID) -> dict[int, tuple[str, dict]]:
    return {r.position: (r.topic, orjson.loads(r.state)) for r in ledger.stored_rows(cid)}


def write_campaign(ledger: Ledger, rng: random.Random, slug: str) -> tuple[UUID, dict[str, str], str]:
    """A campaign of 12..40 events, one per write; returns it, the receipts a player kept (some writes', and the
    last) and the player's token."""
    size = rng.randint(12, 40)
    first = ledger.create_campaign(slug=slug, name=slug, ruleset="eu", countries=["ENG", "FRA"], actor=GM)
    cid = UUID(first.data["id"])
    issued, token = issue_token(ledger, cid, actor=GM, role="player", country="ENG", holder="drill player")
    receipts = [first.checkpoint, issued.checkpoint, ledger.open_turn(cid, actor=GM).checkpoint]
    open_turn = True
    while len(receipts) < size:
        if rng.random() < 0.1:
            receipts.append((ledger.close_turn(cid, actor=GM, out_of_sequence="the drill closes turns for their "
                                                                          "receipts only") if open_turn
                             else ledger.open_turn(cid, actor=GM)).checkpoint)
            open_turn = not open_turn
        elif open_turn:
            receipts.append(ledger.roll(cid, purpose=f"r{len(receipts)}", sides=rng.choice([6, 10]),
                                        actor=GM).checkpoint)
        else:
            receipts.append(ledger.open_turn(cid, actor=GM).checkpoint)
            open_turn = True
    kept = {f"{n:06d}.txt": note for n, note in enumerate(receipts, start=1)
            if n == len(receipts) or rng.random() < 0.25}
    return cid, kept, token


def rewritten(rows: dict[int, tuple[str, dict]], cid: UUID, start: int, intruder: Intruder) -> list[tuple[str, tuple]]:
    """The UPDATEs re-hashing every event from ``start`` on after changing the one at ``start``."""
    prev = rows[start][1]["prev_hash"]
    out = []
    for position in range(start, max(rows) + 1):
        topic, state = rows[position]
        state = dict(state, prev_hash=prev)
        if position == start:
            state["tampered"] = True
        state["hash"] = event_hash(prev, hash_body(cid, position, topic, state))
        prev = state["hash"]
        out.append((f"UPDATE {intruder.events} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                    (canonical_json(state), intruder.id(cid), position)))
    return out


# Each kind: (rows, cid, rng, intruder, ledger) -> (the position it damages, the statements); and how it is found.
Kind = Callable[[dict, UUID, random.Random, Intruder, Ledger], tuple[int, list[tuple[str, tuple]]]]


def payload_changed(rows, cid, rng, intruder, ledger):
    p = rng.randint(1, len(rows))
    state = dict(rows[p][1])
    key = rng.choice(sorted(state))
    value = state[key]
    state[key] = value + 1 if isinstance(value, int) and not isinstance(value, bool) else (
        value + "x" if isinstance(value, str) else "tampered")
    return p, [(f"UPDATE {intruder.events} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                (canonical_json(state), intruder.id(cid), p))]


def type_changed(rows, cid, rng, intruder, ledger):
    p = rng.randint(1, len(rows))
    other = "ledger.domain.events:TurnClosed" if "TurnClosed" not in rows[p][0] else "ledger.domain.events:DiceRolled"
    return p, [(f"UPDATE {intruder.events} SET topic = ? WHERE originator_id = ? AND originator_version = ?",
                (other, intruder.id(cid), p))]


def row_deleted(rows, cid, rng, intruder, ledger):
    p = rng.randint(2, len(rows))
    return p, [(f"DELETE FROM {intruder.events} WHERE originator_id = ? AND originator_version = ?",
                (intruder.id(cid), p))]


def first_deleted(rows, cid, rng, intruder, ledger):
    return 1, [(f"DELETE FROM {intruder.events} WHERE originator_id = ? AND originator_version = 1",
                (intruder.id(cid),))]


def tail_deleted(rows, cid, rng, intruder, ledger):
    p = rng.randint(2, len(rows))
    return p, [(f"DELETE FROM {intruder.events} WHERE originator_id = ? AND originator_version >= ?",
                (intruder.id(cid), p))]


def payloads_swapped(rows, cid, rng, intruder, ledger):
    p = rng.randint(1, len(rows) - 1)
    sql = f"UPDATE {intruder.events} SET state = ? WHERE originator_id = ? AND originator_version = ?"
    return p, [(sql, (canonical_json(rows[p + 1][1]), intruder.id(cid), p)),
               (sql, (canonical_json(rows[p][1]), intruder.id(cid), p + 1))]


def tail_rehashed(rows, cid, rng, intruder, ledger):
    p = rng.randint(1, len(rows))
    return p, rewritten(rows, cid, p, intruder)


def forged_append(rows, cid, rng, intruder, ledger):
    n = len(rows)
    topic, head = rows[n]
    state = dict(head, prev_hash=head["hash"], forged=True)
    state["hash"] = event_hash(state["prev_hash"], hash_body(cid, n + 1, topic, state))
    return n + 1, [(f"INSERT INTO {intruder.events} (originator_id, originator_version, topic, state) "
                    "VALUES (?, ?, ?, ?)", (intruder.id(cid), n + 1, topic, canonical_json(state)))]


def snapshot_edited(rows, cid, rng, intruder, ledger):
    p = len(rows) // SNAPSHOT_INTERVAL * SNAPSHOT_INTERVAL  # the latest snapshot (every 10 events)
    [row] = ledger.snapshots.recorder.select_events(cid, desc=True, limit=1)  # the row as stored
    assert row.originator_version == p
    data = orjson.loads(bytes(row.state))
    data["state"]["tokens"]["f" * 64] = {"id": "forged", "role": "gm", "country": None, "holder": "mallory"}
    return p, [(f"UPDATE {intruder.snapshots} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                (orjson.dumps(data), intruder.id(cid), p))]


def tail_deleted_with_checkpoints(rows, cid, rng, intruder, ledger):
    p = rng.randint(2, len(rows))
    return p, [*tail_deleted_at(p, cid, intruder),
               ("DELETE FROM ledger_checkpoints WHERE campaign_id = ? AND size >= ?", (intruder.id(cid), p))]


def tail_deleted_at(p, cid, intruder):
    return [(f"DELETE FROM {intruder.events} WHERE originator_id = ? AND originator_version >= ?",
             (intruder.id(cid), p))]


def tail_rewritten_by_the_key_holder(rows, cid, rng, intruder, ledger):
    """Whoever holds the key rewrites a tail and signs it again: only what the players kept shows it."""
    p = rng.randint(1, len(rows))
    statements = rewritten(rows, cid, p, intruder)
    hashes = [rows[i][1]["hash"] for i in range(1, p)] + [
        orjson.loads(params[0])["hash"] for _, params in statements]
    leaves = [merkle.leaf_hash(bytes.fromhex(h)) for h in hashes]
    for size in range(p, len(rows) + 1):
        note = ledger.signer.note(cid, size, merkle.root(leaves[:size]))
        statements.append(("UPDATE ledger_checkpoints SET note = ? WHERE campaign_id = ? AND size = ?",
                           (note, intruder.id(cid), size)))
    return p, statements


BY_VERIFY = [payload_changed, type_changed, row_deleted, tail_deleted, first_deleted, payloads_swapped,
             tail_rehashed, forged_append]
BY_SNAPSHOT = [snapshot_edited]
BY_RECEIPT = [tail_deleted_with_checkpoints, tail_rewritten_by_the_key_holder]
KINDS = BY_VERIFY + BY_SNAPSHOT + BY_RECEIPT


def located(kind: Kind, env: dict[str, str], base: str, cid: UUID, receipts: dict[str, str], token: str,
            tmp: Path) -> tuple[int | None, str]:
    """The position the tools name, and by which tool: the commands, and the HTTP check a player makes, which
    must name the same."""
    if kind in BY_SNAPSHOT:
        done = ledger_cli(env, "verify", str(cid))
        found = re.search(r"SNAPSHOT IGNORED at position (\d+)", done.stdout)
        return (int(found.group(1)) if found else None), "snapshot seal"
    said = http_broken_at(base, cid, token)
    done = ledger_cli(env, "verify", str(cid))
    broken = re.search(r"BROKEN.* at position (\d+)", " ".join(done.stdout.split()))
    if broken:
        at = int(broken.group(1))
        if said != at:
            return None, f"verify named {at}, the player's HTTP check named {said}"
        return at, "verify"
    folder = tmp / f"receipts-{cid}"
    folder.mkdir()
    for name, note in receipts.items():
        (folder / name).write_text(note)
    done = ledger_cli(env, "audit", str(cid), "--receipts", str(folder))
    # The receipt each problem says is not extended: the first one it names ("fork: B does not extend A": B).
    sizes = [int(m.group(1)) for p in done.stdout.splitlines() if (m := re.search(r"(\d{6})\.txt", p))]
    at = min(sizes) if sizes else None
    if at is not None:  # the player's own check of that receipt over HTTP must fail too
        note = receipts[f"{at:06d}.txt"]
        checked = http_broken_at(base, cid, token, checkpoint=note)
        if checked is None:
            return None, f"audit named receipt {at}, the player's HTTP check of it found nothing"
    return at, "receipt"


def http_broken_at(base: str, cid: UUID, token: str, **params: str) -> int | None:
    """The position a player's ``GET .../verify`` names as broken (None: intact). Where the damage stops the
    service from reading the campaign's tokens at all, the refusal itself names the position (ChainBroken)."""
    answer = httpx.get(f"{base}/campaigns/{cid}/verify", params=params, headers={"Authorization": f"Bearer {token}"},
                       timeout=30).json()
    if "error" in answer:
        found = re.search(r"damaged at position (\d+)", answer["error"].get("message") or "")
        return int(found.group(1)) if answer["error"].get("type") == "ChainBroken" and found else None
    return None if answer.get("intact") else answer.get("broken_at")


def expected(kind: Kind, position: int, receipts: dict[str, str]) -> int | None:
    """Where a tampering at ``position`` should be located: the position itself, or for the receipts' kinds the
    first receipt kept at or after it."""
    if kind not in BY_RECEIPT:
        return position
    return min((int(name[:6]) for name in receipts if int(name[:6]) >= position), default=None)


def main() -> int:
    p = parser(__doc__)
    p.add_argument("--count", type=int, help="how many tamperings (default 100; 10 with --short)")
    p.add_argument("--seed", type=int, default=16)
    args = p.parse_args()
    count = args.count or (len(KINDS) if args.short else 100)  # --short: one of each kind
    rng = random.Random(args.seed)
    results: Counter[tuple[str, str]] = Counter()
    misses: list[str] = []
    started = time.perf_counter()
    with Store(args.store) as store:
        # The histories are written in this process, configured as the service is (on PostgreSQL: its role,
        # which owns nothing), with snapshots often; they are checked from outside it.
        env = {**store.env(), "LEDGER_SNAPSHOT_INTERVAL": str(SNAPSHOT_INTERVAL)}
        os.environ.update(env)
        settings = Settings(snapshot_interval=SNAPSHOT_INTERVAL)
        ledger = Ledger(settings)
        intruder = Intruder(store, settings)
        service = Service(env, workers=1).start()
        try:
            for i in range(count):
                kind = KINDS[i % len(KINDS)] if i < len(KINDS) else rng.choice(KINDS)  # every kind at least once
                cid, receipts, token = write_campaign(ledger, rng, f"t{i}")
                assert ledger.verify(cid).intact
                position, statements = kind(stored(ledger, cid), cid, rng, intruder, ledger)
                intruder.run(statements)
                want = expected(kind, position, receipts)
                try:
                    at, tool = located(kind, env, service.base, cid, receipts, token, store.tmp)
                except Exception as e:  # a crash is a miss, never the end of the drill
                    at, tool = None, f"crashed: {type(e).__name__}: {e}"
                results[(kind.__name__, "located" if at == want else "missed")] += 1
                if at != want or want is None:
                    misses.append(f"#{i} {kind.__name__} at {position} (expected {want}): {tool} named {at}")
                else:
                    results[(kind.__name__, tool)] += 1
        finally:
            service.stop()
            ledger.close()
    seconds = time.perf_counter() - started
    total_located = sum(n for (_, what), n in results.items() if what == "located")
    figure("store / tamperings / seed", f"{args.store} / {count} / {args.seed}")
    for kind in KINDS:
        name = kind.__name__
        tried = results[(name, "located")] + results[(name, "missed")]
        tools = ", ".join(f"{tool} {results[(name, tool)]}" for tool in ("verify", "receipt", "snapshot seal")
                          if results[(name, tool)])
        figure(f"  {name}", f"{results[(name, 'located')]}/{tried} located exactly ({tools or '-'})")
    figure("located exactly", f"{total_located}/{count}")
    figure("seconds", f"{seconds:.1f}")
    for miss in misses:
        print("MISSED", miss)
    ok = total_located == count
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
