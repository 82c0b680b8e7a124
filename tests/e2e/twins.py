"""Twin campaigns for the non-interference property (tests/e2e/test_noninterference.py).

Two stores (two SQLite files, or two PostgreSQL schemas) each hold one campaign of the same slug, so the two
campaigns have the same id, the same URLs and the same checkpoint origin: A and B. Both are built through the
HTTP API (``create_app``) with the same commands, except the commands hidden from the reader under test, which
differ in their content (``Hidden``: a roll's purpose and dice, an entry's amount and reason, a stack's name and
place, a move, a marker...) and in their time. Every command appends as many events in A as in B, so every
position holds, in A and in B, an event the reader sees in both or in neither.

What the service draws at random is drawn the same in both stores: the dice seeds of the turns (``new_seed``:
by the step that draws them, so a public roll has the same faces in A and B) and the tokens (``new_token``: a
reader's token is a secret of theirs, and a web page's CSRF token is an HMAC over it, so the two stores issue
the reader the same one rather than the bytes being rewritten afterwards). Time is frozen (freezegun): every
event the reader may see carries the same time in A and B; a hidden one its own (``Step.offset_a``, ``offset_b``).

What legitimately differs in what a reader gets is what is derived from the hidden events' hashes: the hashes
themselves, the visible events' ``prev_hash`` and own hash after them (the chain links them), the Merkle roots
and proofs, and the checkpoints' signatures over those roots. ``Normaliser`` names each of those by what it is
in that store (``<hash@7>``, ``<mth 0..16>``, ``<root 42>``, ``<signature>``), so two answers compare equal
exactly when they differ by nothing else. Whether a reader can tell two hidden events apart by their hashes is
the chain check's question (``recomputable``), asked separately.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import psycopg
from fastapi.testclient import TestClient
from freezegun import freeze_time
from prometheus_client import generate_latest

import ledger.tokens
from api.main import create_app
from api.routes.web import CSRF_COOKIE, _csrf_for
from api.security import TOKEN_COOKIE
from ledger import merkle
from ledger.application import Ledger
from ledger.chain import event_hash, hash_body
from ledger.config import Settings
from ledger.domain.campaign import campaign_id

ADMIN = "admin-token-of-the-twin-stores"
SLUG = "twins"
#: Every visible event's time: step i of the plan happens at BASE + i minutes; a hidden one some seconds later.
BASE = datetime(2031, 5, 1, 9, 0, tzinfo=UTC)
STEP = timedelta(minutes=1)
#: The reader's CSRF cookie (the forms' token is HMAC(it, the login cookie)): the same in A and B.
CSRF_SECRET = "twin-csrf-cookie-secret"

# The sample scenario (ledger/scenarios/sample.yaml): its places and borders.
PROVINCES = ("Cornwall", "Wessex", "Kent", "Normandie", "Caux", "Picardie", "Ile-de-France")
SEAS = ("Manche", "Celtique", "Irlande", "Nord")
PLACES = PROVINCES + SEAS
BORDERS = {frozenset(p) for p in [
    ("Caux", "Ile-de-France"), ("Caux", "Manche"), ("Caux", "Normandie"), ("Caux", "Picardie"),
    ("Celtique", "Cornwall"), ("Celtique", "Irlande"), ("Celtique", "Manche"), ("Celtique", "Nord"),
    ("Cornwall", "Irlande"), ("Cornwall", "Manche"), ("Cornwall", "Wessex"), ("Ile-de-France", "Picardie"),
    ("Kent", "Manche"), ("Kent", "Nord"), ("Kent", "Wessex"), ("Manche", "Nord"), ("Manche", "Normandie"),
    ("Manche", "Picardie"), ("Manche", "Wessex")]}
VISIBLE_STACKS = ("ENG-1", "ENG-F1", "FRA-1", "FRA-2")


def neighbours(place: str) -> list[str]:
    return sorted(next(iter(b - {place})) for b in BORDERS if place in b)


def vis(scope: str) -> dict[str, Any]:
    """``gm``, ``public``, or a country code (that country alone)."""
    return {"scope": scope} if scope in ("gm", "public") else {"scope": "countries", "countries": [scope]}


# ------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class Cmd:
    """One request: by the admin, the game master or the reader's own country (``fra``: FRA's player)."""

    who: str
    method: str
    path: str  # under /campaigns/{slug}, or absolute when it starts with "//"
    body: dict[str, Any] | None = None


@dataclass(frozen=True)
class Hidden:
    """A command hidden from the reader, as drawn; ``command`` makes it a request against the world's state so
    far (a move starts where that world's stack is; a siege needs that world's hidden stack). Each appends one
    event, of the visibility ``scope``."""

    kind: str
    scope: str
    name: str = "ENG-HIDDEN"
    country: str = "ENG"
    place: str = "Kent"
    province: str = "Kent"
    amount: int = 0
    line: str = "A1"
    reason: str = "hidden"
    sides: int = 10
    count: int = 1
    values: tuple[int, ...] = (1,)
    marker: str = "Revolt"
    level: int = 1
    ld: int = 1
    siege: bool = True


@dataclass(frozen=True)
class Step:
    """One command of the plan: the same request in both worlds (``hidden`` False), or each world's own."""

    a: Cmd | Hidden
    b: Cmd | Hidden
    hidden: bool = False
    label: str = ""
    offset_a: int = 0  # seconds after the step's minute: a hidden event's own time, in A and in B
    offset_b: int = 0


@dataclass(frozen=True)
class Plan:
    reader: str  # "player" (FRA's) or "observer"
    steps: tuple[Step, ...]


@dataclass
class Tracker:
    """A world's hidden state as its own plan made it (what a hidden command is built from)."""

    stacks: dict[str, str] = field(default_factory=dict)  # hidden stacks and where they are
    fra2: str | None = None  # where FRA-2 is, once split off
    sieges: set[str] = field(default_factory=set)
    entries: list[int] = field(default_factory=list)  # positions of hidden entries, to correct
    besieged: set[str] = field(default_factory=set)  # provinces a hidden siege holds


def hidden_request(h: Hidden, t: Tracker) -> Cmd:
    """The request ``h`` makes in a world with hidden state ``t`` (and what it changes there)."""
    v = vis(h.scope)
    fallback = Cmd("gm", "POST", "/map/markers", {"province": h.place, "marker": h.marker, "visibility": v,
                                                  "reason": h.reason})
    if h.kind == "roll":
        return Cmd("gm", "POST", "/rolls", {"purpose": h.reason, "sides": h.sides, "count": h.count,
                                            "visibility": v})
    if h.kind == "manual":
        return Cmd("gm", "POST", "/rolls", {"purpose": h.reason, "sides": h.sides, "count": len(h.values),
                                            "values": [min(x, h.sides) for x in h.values], "visibility": v})
    if h.kind == "entry":
        body = {"country": h.country, "line": h.line, "amount": h.amount, "reason": h.reason}
        if h.scope != h.country:  # else the campaign's default: its own country's
            body["visibility"] = v
        return Cmd("gm", "POST", "/treasury", body)
    if h.kind == "raise":
        t.stacks[h.name] = h.place
        return Cmd("gm", "POST", "/map/stacks", {"stack": h.name, "country": h.country, "location": h.place,
                                                 "units": {"LD": h.ld}, "visibility": v, "reason": h.reason})
    if h.kind == "move" and t.fra2 is not None:
        origin, there = t.fra2, neighbours(t.fra2)
        t.fra2 = there[h.ld % len(there)]
        return Cmd("gm", "POST", "/map/moves", {"stack": "FRA-2", "origin": origin, "destination": t.fra2,
                                                "visibility": v, "reason": h.reason})
    if h.kind == "siege":
        free = [(s, p) for s, p in sorted(t.stacks.items()) if p in PROVINCES and p not in t.besieged]
        if free and h.siege:
            stack, province = free[h.ld % len(free)]
            t.besieged.add(province)
            return Cmd("gm", "POST", "/map/sieges", {"province": province, "besiegers": [stack], "visibility": v,
                                                     "reason": h.reason})
        return fallback
    if h.kind == "correct" and t.entries:
        return Cmd("gm", "POST", "/corrections", {"corrects": t.entries[h.ld % len(t.entries)], "reason": h.reason,
                                                  "replacement": {"amount": h.amount}})
    if h.kind == "fortress":
        return Cmd("gm", "POST", "/map/fortress", {"province": h.province, "level": h.level, "visibility": v,
                                                   "reason": h.reason})
    if h.kind == "control":
        return Cmd("gm", "POST", "/map/control", {"province": h.province, "controller": h.country,
                                                  "visibility": v, "reason": h.reason})
    return fallback


# ------------------------------------------------------------------ deterministic draws


class Draws:
    """The service's random draws, made the same in both stores: the dice seeds by the plan's step that draws
    them (``label``), the tokens by their holder. A seed drawn by a hidden command is a hidden audience's."""

    def __init__(self) -> None:
        self.label, self.count = "setup", 0
        self.holder = "none"

    def at(self, label: str) -> None:
        self.label, self.count = label, 0

    def seed(self) -> bytes:
        self.count += 1
        return hashlib.sha256(f"twin seed {self.label} {self.count}".encode()).digest()

    def token(self, cid: uuid.UUID) -> str:
        secret = base64.urlsafe_b64encode(hashlib.sha256(f"twin token {self.holder}".encode()).digest())
        return f"{ledger.tokens.PREFIX}{cid.hex}_{secret.decode().rstrip('=')}"


# ------------------------------------------------------------------ the stores


@dataclass
class World:
    name: str
    settings: Settings
    ledger: Ledger
    client: TestClient
    cid: uuid.UUID
    tokens: dict[str, str] = field(default_factory=dict)
    tracker: Tracker = field(default_factory=Tracker)
    versions: list[int] = field(default_factory=list)  # the head after each step
    metrics_before: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # a step refused (the plan's, not the property's)


@contextmanager
def store_settings(store: str, root: Path, name: str, key_file: Path | None) -> Iterator[Settings]:
    """A store of its own (a SQLite file, a PostgreSQL schema), dropped afterwards; the signing key of
    ``key_file`` (both worlds sign with the same key: the public key is the same answer in both)."""
    data = root / name
    data.mkdir(parents=True, exist_ok=True)
    extra: dict[str, Any] = {"admin_token": ADMIN}
    if key_file is not None:
        extra["signing_key_file"] = key_file
    if store == "sqlite":
        yield Settings(env="test", data_dir=data, store="sqlite", snapshot_interval=50, **extra)
        return
    from tests.conftest import PG_DSN

    schema = f"t_twin_{uuid.uuid4().hex[:10]}_{name.lower()}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Settings(env="test", data_dir=data, store="postgres", postgres_dsn=PG_DSN, postgres_schema=schema,
                       snapshot_interval=50, pool_size=4, **extra)
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def opened(store: str, name: str, root: Path, key_file: Path | None) -> Iterator[World]:
    with store_settings(store, root, name, key_file) as settings:
        led = Ledger(settings)
        try:
            yield World(name, settings, led, TestClient(create_app(settings, led)), campaign_id(SLUG))
        finally:
            led.close()


# ------------------------------------------------------------------ building a world


def metric_samples() -> dict[str, float]:
    """The service's own metrics (``ledger_*``), by sample line; ``_created`` samples are creation times."""
    out = {}
    for line in generate_latest().decode().splitlines():
        if line.startswith("ledger_") and "_created" not in line.split(" ")[0]:
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def _send(world: World, cmd: Cmd, draws: Draws) -> Any:
    path = cmd.path[1:] if cmd.path.startswith("//") else f"/campaigns/{SLUG}{cmd.path}"
    token = ADMIN if cmd.who == "admin" else world.tokens[{"fra": "player-FRA"}.get(cmd.who, cmd.who)]
    if cmd.path.endswith("/tokens"):
        draws.holder = f"{cmd.body['role']}-{cmd.body.get('country')}-{cmd.body.get('holder')}"
    return world.client.request(cmd.method, path, json=cmd.body, headers={"Authorization": f"Bearer {token}"})


def simulate(plan: Plan, name: str) -> Tracker:
    """The hidden state a world's plan leaves (its hidden stacks and sieges), without building it."""
    t = Tracker()
    for step in plan.steps:
        own = step.a if name == "A" else step.b
        if isinstance(own, Hidden):
            hidden_request(own, t)
            if own.kind == "entry":
                t.entries.append(0)
        elif step.label == "split FRA-1":
            t.fra2 = "Picardie"
    return t


def build(world: World, plan: Plan, draws: Draws, frozen: Any) -> dict[int, Answer]:
    """Play the plan in ``world`` (A plays each step's ``a``, B its ``b``); the answers to FRA's player's own
    commands, by step. A step refused is recorded in ``world.failures`` (a plan that does not fit the state).
    The world's metrics count from here (``metrics_answer``)."""
    answers = {}
    world.metrics_before = metric_samples()
    for i, step in enumerate(plan.steps):
        own = step.a if world.name == "A" else step.b
        cmd = hidden_request(own, world.tracker) if isinstance(own, Hidden) else own
        offset = step.offset_a if world.name == "A" else step.offset_b
        frozen.move_to(BASE + STEP * i + timedelta(seconds=offset))
        draws.at(f"step {i}")
        r = _send(world, cmd, draws)
        if r.status_code >= 400:
            world.failures.append(f"step {i} {step.label or cmd.path}: {r.status_code} {r.text[:300]}")
        elif cmd.path.endswith("/tokens"):
            world.tokens[f"{cmd.body['role']}-{cmd.body.get('country') or ''}".strip("-")] = r.json()["token"]
        if cmd.who == "fra":
            answers[i] = Answer(Req(("POST", cmd.path), "POST", cmd.path), r.status_code,
                                {k: v for k, v in r.headers.items() if k.lower() not in PER_REQUEST}, r.content)
        if isinstance(own, Hidden) and own.kind == "entry" and r.status_code < 400:
            world.tracker.entries.append(r.json()["events"][0]["position"])
        if step.label == "split FRA-1" and r.status_code < 400:
            world.tracker.fra2 = "Picardie"
        world.versions.append(world.ledger.campaign(world.cid).version)
    return answers


@contextmanager
def frozen_at(moment: datetime) -> Iterator[Any]:
    # real_asyncio: the TestClient's event loop keeps its own clock (a frozen loop never wakes a timer).
    with freeze_time(moment, real_asyncio=True) as frozen:
        yield frozen


# ------------------------------------------------------------------ what legitimately differs: hashes


class Normaliser:
    """Names, in one store's answers, what is derived from the chain's hashes: each event's hash by its position
    (whole, or its first hex digits as a page shows them), each Merkle leaf and subtree by its range, each root
    (hex or base64) by its size; the checkpoints' signatures, which sign those roots, by a placeholder; each hidden
    event's salt by its position (random, served whole to those who may read the event); and the web forms'
    one-use keys (random per page served)."""

    _HEX = re.compile(rb"(?<![0-9a-f])[0-9a-f]{8,64}(?![0-9a-f])")
    _B64 = re.compile(rb"[A-Za-z0-9+/]{43}=")
    _SIG = re.compile("\u2014 (\\S+) ([A-Za-z0-9+/=]{20,})".encode())
    _KEY = re.compile(rb'(name="key" value=")[^"]*(")')

    def __init__(self, world: World):
        names: dict[bytes, bytes] = {}
        leaves = []
        for e in world.ledger.history(world.cid):
            names[e.hash.encode()] = f"<hash@{e.originator_version}>".encode()
            if e.salt is not None:  # a hidden event's salt (ledger/chain.py), drawn at random: served to its audience
                names[e.salt.encode()] = f"<salt@{e.originator_version}>".encode()
            leaves.append(merkle.leaf_hash(bytes.fromhex(e.hash)))
        for i, leaf in enumerate(leaves):
            names[leaf.hex().encode()] = f"<leaf@{i + 1}>".encode()
        memo: dict[tuple[int, int], bytes] = {}

        def mth(a: int, b: int) -> bytes:  # RFC 6962's MTH of leaves a..b-1 (ledger/merkle.py)
            if (a, b) not in memo:
                k = 1 << ((b - a - 1).bit_length() - 1) if b - a > 1 else 0
                memo[a, b] = leaves[a] if b - a == 1 else merkle.node_hash(mth(a, a + k), mth(a + k, b))
            return memo[a, b]

        for a in range(len(leaves)):
            for b in range(a + 2, len(leaves) + 1):
                names.setdefault(mth(a, b).hex().encode(), f"<mth {a}..{b}>".encode())
        self.b64 = {base64.b64encode(mth(0, n)): f"<root {n}>".encode() for n in range(1, len(leaves) + 1)}
        self.names = names
        self.prefixes: dict[int, dict[bytes, bytes]] = {64: names}

    def _name(self, m: re.Match[bytes]) -> bytes:
        found = m.group(0)
        table = self.prefixes.get(len(found))
        if table is None:
            table = self.prefixes[len(found)] = {k[:len(found)]: v for k, v in self.names.items()}
        return table.get(found, found)

    def __call__(self, body: bytes) -> bytes:
        body = self._HEX.sub(self._name, body)
        body = self._B64.sub(lambda m: self.b64.get(m.group(0), m.group(0)), body)
        body = self._SIG.sub(lambda m: b"\xe2\x80\x94 " + m.group(1) + b" <signature>", body)
        return self._KEY.sub(rb"\1<key>\2", body)


# ------------------------------------------------------------------ a reader's requests and answers


@dataclass(frozen=True)
class Req:
    route: tuple[str, str]  # (method, path template): the route table's key
    method: str
    url: str
    json: Any = None
    form: dict[str, str] | None = None
    phase: int = 0  # the order the requests are sent in: reads, then refusals, then commands one world may accept

    def describe(self) -> str:
        sent = self.json if self.json is not None else self.form
        return f"{self.method} {self.url}" + (f" {orjson.dumps(sent).decode()[:160]}" if sent else "")


@dataclass
class Answer:
    req: Req
    status: int
    headers: dict[str, str]
    body: bytes


#: Headers that differ per request whoever asks: the request's id.
PER_REQUEST = {"x-request-id"}


def reader_headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Cookie": f"{TOKEN_COOKIE}={token}; {CSRF_COOKIE}={CSRF_SECRET}"}


def ask(world: World, token: str, req: Req) -> Answer:
    headers = reader_headers(token)
    kwargs: dict[str, Any] = {}
    if req.form is not None:  # a web form: the session's CSRF token; "_token": the reader's token (the login form)
        form = {"csrf": _csrf_for(CSRF_SECRET, token), **req.form}
        if form.pop("_token", None) is not None:
            form["token"] = token
        kwargs["data"] = form
    elif req.json is not None:
        kwargs["json"] = req.json
    world.client.cookies.clear()  # each request carries the reader's cookies only, never one a response set
    r = world.client.request(req.method, req.url, headers=headers, follow_redirects=False, **kwargs)
    kept = {k: _drawn(v) if k.lower() == "set-cookie" else v for k, v in r.headers.items()
            if k.lower() not in PER_REQUEST}
    return Answer(req, r.status_code, kept, r.content)


#: A login's session (ledger/tokens.py): random per login, whoever logs in (like a request's id); that a login
#: set one, with which attributes and lifetime, is compared.
_SESSION = re.compile(r"(ledger_token=ls_[0-9a-f]{32}_)[A-Za-z0-9_-]+")


def _drawn(cookie: str) -> str:
    return _SESSION.sub(r"\1<session>", cookie)


def metrics_answer(body: bytes, before: dict[str, float]) -> bytes:
    """``/metrics`` as the world's own server would answer it: the counters the service's registry (one per
    process, shared by both worlds here) gained since that world's history began. With time frozen, every
    latency is 0: the histograms count requests, not their speed."""
    now = {}
    for line in body.decode().splitlines():
        if line.startswith("ledger_") and "_created" not in line.split(" ")[0]:
            key, _, value = line.rpartition(" ")
            now[key] = float(value)
    return "".join(f"{k} {v - before.get(k, 0.0):g}\n" for k, v in sorted(now.items())
                   if v - before.get(k, 0.0)).encode()


def decoded(answer: Answer, normalise: Callable[[bytes], bytes]) -> bytes:
    """The body as compared: workbooks (zip, deflated) part by part and Parquet as its schema and rows, since
    their compressed bytes hold hashes the normaliser cannot reach; everything else byte for byte."""
    kind = answer.headers.get("content-type", "")
    body = answer.body
    if answer.status == 200 and (kind.startswith("application/vnd.openxmlformats") or body[:2] == b"PK"):
        with zipfile.ZipFile(io.BytesIO(body)) as z:
            parts = [(i.filename, i.date_time, normalise(z.read(i))) for i in z.infolist()]
        return b"\n".join(f"--- {n} {t}\n".encode() + p for n, t, p in parts)
    if answer.status == 200 and body[:4] == b"PAR1":
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(body))
        meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
        return normalise(orjson.dumps({"schema": str(table.schema), "metadata": meta,
                                       "rows": table.to_pylist()}, default=str))
    return normalise(body)


def first_difference(label: str, a: Answer, b: Answer, body_a: bytes, body_b: bytes) -> str | None:
    """A readable first difference of two answers to the same request, or None when they are the same."""
    if a.status != b.status:
        return (f"{label}: status {a.status} in A, {b.status} in B\n    A: {body_a[:400]!r}\n"
                f"    B: {body_b[:400]!r}")
    headers = sorted(set(a.headers) | set(b.headers))
    for h in headers:
        if h in ("content-length",):
            continue
        va, vb = a.headers.get(h), b.headers.get(h)
        if h == "etag" or va == vb:
            continue
        return f"{label}: header {h}: {va!r} in A, {vb!r} in B"
    if body_a != body_b:
        i = next((k for k, (x, y) in enumerate(zip(body_a, body_b)) if x != y), min(len(body_a), len(body_b)))
        lo = max(0, i - 120)
        return (f"{label}: bodies differ at byte {i} (of {len(body_a)} in A, {len(body_b)} in B)\n"
                f"    A: …{body_a[lo:i + 160]!r}\n    B: …{body_b[lo:i + 160]!r}")
    if a.headers.get("etag") != b.headers.get("etag"):
        return f"{label}: header etag: {a.headers.get('etag')!r} in A, {b.headers.get('etag')!r} in B"
    return None


# ------------------------------------------------------------------ the chain: can a reader tell them apart?


def stored_states(world: World) -> dict[int, tuple[str, dict[str, Any]]]:
    """Every stored event's topic and state, as the store holds them (what only the service has)."""
    rows = world.ledger.recorder.select_events(world.cid)
    return {r.originator_version: (r.topic, orjson.loads(r.state)) for r in rows}


def recomputable(world: World, links: list[dict[str, Any]], hidden: list[int]) -> list[str]:
    """The hidden positions whose hash, as the reader got it from ``/chain``, the reader recomputes from the
    event's true content (everything the event stores but a ``salt``, which only the service knows): a reader
    who guesses a hidden event's content confirms the guess. With a salt, the stored state must still hash to
    the link (the salt is part of what is hashed, not a detached nonce)."""
    states = stored_states(world)
    by_position = {link["position"]: link for link in links}
    found = []
    for p in hidden:
        topic, state = states[p]
        link = by_position[p]
        guess = {k: v for k, v in state.items() if k != "salt"}
        if event_hash(link["prev_hash"], hash_body(world.cid, p, topic, guess)) == link["hash"]:
            found.append(f"position {p} ({state.get('type') or topic.rsplit(':', 1)[-1]}): the reader recomputes "
                         f"its hash {link['hash'][:16]}… from the event's content (no salt in its stored state)")
        elif "salt" in state and event_hash(link["prev_hash"], hash_body(world.cid, p, topic, state)) != link["hash"]:
            found.append(f"position {p}: its stored state with its salt does not hash to the link the reader got")
    return found


def same_plan_shape(a: World, b: World, plan: Plan) -> list[str]:
    """The plan's own invariant: each step appended as many events in A as in B (positions line up)."""
    out = []
    for i, (va, vb) in enumerate(zip(a.versions, b.versions)):
        if va != vb:
            out.append(f"step {i} ({plan.steps[i].label}): head {va} in A, {vb} in B")
            break
    return out + [f"A: {f}" for f in a.failures] + [f"B: {f}" for f in b.failures]
