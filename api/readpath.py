"""The fast read path: views at the campaign's head, and serialized responses cached by head position.

Why: a read used to decode events per request (or wait for the projection
runner to catch up). Now:

- **Views at the head, without waiting.** A game master's map, victory, state,
  timeline and ERS come from the stored views (``projections/``): the view's
  document (or rows) at its position ``p``, plus the few events of the
  campaign in ``(p, head]`` the runner has not applied yet, applied by the same
  pure functions the views use. So the answer is exactly the state at the head
  whether the runner is a thread of this process, another process (``ledger
  serve --workers N``) or behind by a page, and no read waits for it.
- **Other audiences.** A player (per country) or an observer must not learn
  from hidden events, so their map, victory and budget are replayed from the
  events they may see: kept in memory per (campaign, audience) and
  fast-forwarded with the visible events of the tail; rebuilt from the first
  event when a reveal changes what they may see.
- **Responses cached by head.** A rendered 200 body is kept per (path and
  query, audience) with the head position it was computed at, and served again
  while the head has not moved.
- **No framework on the hot path.** FastAPI's routing and dependency solving
  cost about a millisecond a request, several times the work of a read.
  ``ReadCache`` (an ASGI layer inside the observability middleware) answers a
  ``GET`` of the map, victory, state at the head, a turn's timeline or an ERS
  sheet itself when the caller's token, checked against the campaign's state
  refreshed to the head (one indexed query), is a live token of that campaign
  (or the admin's), with the same ``render_*`` functions the routes call, and
  any other cached read from the cache. Everything else (no token, another
  campaign's token, a bad parameter, any domain error) goes on to the routes,
  which hold every rule and give every error.
"""

from __future__ import annotations

import hmac
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import orjson
from fastapi import Request
from fastapi.responses import Response

from ledger import tokens
from ledger.access import ALL_SEEING, can_see
from ledger.application import Actor
from ledger.domain.campaign import CampaignState, campaign_id
from ledger.domain.errors import LedgerError
from projections import budget_view, corrections, replay
from projections import timeline as timeline_model
from projections import victory as victory_model
from ledger.economy.sheets import RELEVANT, Budget, budget, sheet_json
from projections.records import Record
from projections.store import ViewDB

Audience = tuple[str, str | None]
JSON = "application/json"
MAX_TURN = 2**31


def audience(actor: Actor) -> Audience:
    """Who sees the same answers: every all-seeing role alike; a player per country; observers alike."""
    if actor.role in ALL_SEEING:
        return ("all", None)
    return (actor.role, actor.country if actor.role == "player" else None)


def sees_all(actor: Actor) -> bool:
    return actor.role in ALL_SEEING


def _visible(actor: Actor, r: Record, revealed: frozenset[int]) -> bool:
    return can_see(actor, {"position": r.position, "visibility": r.data.get("visibility") or {}}, revealed)


# ------------------------------------------------------------------ the stored views, at the head

def tail(ledger: Any, cid: UUID, after: int, head: int) -> list[Record]:
    """The campaign's events in ``(after, head]``, decoded once."""
    return replay._records(ledger, cid, after, head) if after < head else []


def stored_doc(db: ViewDB, cid: UUID, view: str) -> tuple[int, bytes | None]:
    with db.reading() as cur:
        cur.execute(db.sql("SELECT position, doc FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                    (view, str(cid)))
        row = cur.fetchone()
    return (int(row["position"]), bytes(row["doc"])) if row else (0, None)


def doc_at_head(ledger: Any, db: ViewDB, cid: UUID, view: str, head: int) -> tuple[Any, int]:
    """A map or victory document at ``head`` (raw JSON bytes when the stored one is exactly there), and the
    position of the stored one."""
    position, raw = stored_doc(db, cid, view)
    if position == head and raw is not None:
        return orjson.Fragment(raw), position
    if position > head:  # the runner went past the head this request saw: replay up to it exactly
        return replay.state_at(ledger, db, cid, head)[view], position
    model = replay.MODELS[view]
    doc = orjson.loads(raw) if raw is not None else model.empty()
    history = lambda upto: replay._records(ledger, cid, 0, upto)  # noqa: E731 (read only for a correction)
    for r in tail(ledger, cid, position, head):
        doc, _ = corrections.apply(model, doc, r, history)
    return doc, position


def awards_at_head(ledger: Any, db: ViewDB, cid: UUID, head: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The victory document and every award at ``head`` (stored rows, then those of the tail)."""
    position, raw = stored_doc(db, cid, "victory")
    doc = orjson.loads(raw) if raw is not None else victory_model.empty()
    awards = [a for a in replay.awards(db, cid) if a["position"] <= min(position, head)]
    if position > head:  # the runner went past the head this request saw
        return replay.state_at(ledger, db, cid, head)["victory"], awards
    history = lambda upto: replay._records(ledger, cid, 0, upto)  # noqa: E731 (read only for a correction)
    for r in tail(ledger, cid, position, head):
        doc, made = corrections.apply(victory_model, doc, r, history)
        if r.type == "CorrectionRecorded":
            awards = []  # every award again, as the correction leaves them
        for pos, a in made or ():
            awards.append({"position": pos, "effect": a["effect"], "country": a["country"],
                           "turn": a["turn"], "points": str(a["points"]), "reason": a["reason"]})
    return doc, awards


class Timelines:
    """A turn's timeline rows (every audience's: filtered after), kept per (campaign, turn) and extended."""

    def __init__(self, maxsize: int = 64):
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[UUID, int], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def rows(self, ledger: Any, db: ViewDB, cid: UUID, turn: int, head: int) -> list[dict[str, Any]]:
        with self._lock:
            entry = self._entries.get((cid, turn))
            if entry is None:
                entry = self._load(db, cid, turn)
            records = tail(ledger, cid, entry["version"], head)
            for r in records:
                row = timeline_model.row(entry["doc"], r)
                if row["turn"] == turn:
                    entry["rows"].append(row)
            entry["version"] = max(entry["version"], head)
            self._entries[(cid, turn)] = entry
            self._entries.move_to_end((cid, turn))
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
            rows = entry["rows"]
            return rows if not rows or rows[-1]["position"] <= head else [r for r in rows if r["position"] <= head]

    @staticmethod
    def _load(db: ViewDB, cid: UUID, turn: int) -> dict[str, Any]:
        """The stored rows of the turn up to the view's position for the campaign."""
        with db.reading() as cur:
            cur.execute(db.sql("SELECT COALESCE(MAX(position), 0) AS p FROM {proj_timeline} WHERE campaign = ?"),
                        (str(cid),))
            position = int(cur.fetchone()["p"])
        # Rows past ``position`` may have been committed since: the tail adds them.
        rows = [r for r in replay.timeline(db, cid, turn=turn) if r["position"] <= position]
        _, raw = stored_doc(db, cid, "timeline")  # the stack owners the summaries name
        return {"version": position, "rows": rows, "doc": orjson.loads(raw) if raw else timeline_model.empty()}


class Budgets:
    """``budget()`` of a campaign's relevant events, recomputed only when they change (it is the slow part)."""

    def __init__(self, maxsize: int = 64):
        self.maxsize = maxsize
        self._entries: OrderedDict[Any, tuple[tuple[int, int], Budget]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, key: Any, events: list[list[Any]]) -> Budget:
        sig = (len(events), events[-1][1] if events else 0)
        with self._lock:
            found = self._entries.get(key)
        if found is not None and found[0] == sig:
            return found[1]
        result = budget(budget_view.records({"events": events}))
        with self._lock:
            self._entries[key] = (sig, result)
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return result


def sheet_at_head(ledger: Any, db: ViewDB, budgets: Budgets, cid: UUID, country: str, turn: int, head: int
                  ) -> dict[str, Any] | None:
    """A game master's sheet: the stored one when no entry came after the view's position, else recomputed."""
    with db.reading() as cur:
        cur.execute(db.sql("SELECT position FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                    (budget_view.NAME, str(cid)))
        row = cur.fetchone()
    position = int(row["position"]) if row else 0
    records = tail(ledger, cid, position, head) if position <= head else []
    if row is not None and position <= head and not any(r.type in RELEVANT for r in records):
        stored = budget_view.stored_sheet(db, str(cid), country, turn, position)  # None if the view moved on
        if stored is not None:
            return stored
    with db.reading() as cur:  # the events themselves: the view keeps no copy of them
        events = budget_view.relevant_events(db, cur, str(cid), head)
    found = budgets.of(cid, events).sheet(country, turn)
    return sheet_json(found) if found is not None else None


# ------------------------------------------------------------------ other audiences

class AudienceDocs:
    """Map, victory and the budget's events as one audience may see them, per campaign, fast-forwarded."""

    def __init__(self, maxsize: int = 256):
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[UUID, Audience], dict[str, Any]] = OrderedDict()
        self._locks: dict[tuple[UUID, Audience], threading.Lock] = {}
        self._guard = threading.Lock()

    def render(self, ledger: Any, cid: UUID, actor: Actor, state: CampaignState,
               fn: Callable[[dict[str, Any]], Any]) -> Any:
        """``fn(docs)`` on the docs at ``state.version`` (under the entry's lock: they are not copied)."""
        key = (cid, audience(actor))
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                entry = self._entries.get(key)
            revealed = tuple(state.revealed)
            if entry is None or entry["version"] > state.version or entry["revealed"] != revealed:
                entry = {"version": 0, "revealed": revealed, "docs": self._empty()}  # what they see changed
            shown = frozenset(revealed)
            docs = entry["docs"]
            for r in tail(ledger, cid, entry["version"], state.version):
                if _visible(actor, r, shown):
                    for name, model in replay.MODELS.items():
                        docs[name], _ = corrections.apply(model, docs[name], r, lambda upto: [
                            x for x in replay._records(ledger, cid, 0, upto) if _visible(actor, x, shown)])
                    if r.type in RELEVANT:
                        docs["budget"]["events"].append([r.type, r.position, budget_view.trim(r)])
                        docs["budget_result"] = None
            entry["version"] = state.version
            with self._guard:
                self._entries[key] = entry
                self._entries.move_to_end(key)
                while len(self._entries) > self.maxsize:
                    old, _ = self._entries.popitem(last=False)
                    self._locks.pop(old, None)
            return fn(docs)

    @staticmethod
    def _empty() -> dict[str, Any]:
        return {**{name: model.empty() for name, model in replay.MODELS.items()}, "budget": {"events": []},
                "budget_result": None}


# ------------------------------------------------------------------ rendering (routes and fast path alike)

class Reads:
    """What one app keeps for its reads: rendered responses, per-audience docs, timelines, budgets."""

    def __init__(self) -> None:
        self.cache = ResponseCache()
        self.audiences = AudienceDocs()
        self.timelines = Timelines()
        self.budgets = Budgets()


def reads_of(app: Any) -> Reads:
    reads = getattr(app.state, "reads", None)
    if reads is None:
        reads = app.state.reads = Reads()
    return reads


def viewdb_of(app: Any) -> ViewDB:
    """The view tables, without catching up first (the renderers add the tail themselves)."""
    runner = getattr(app.state, "projection_runner", None)
    if runner is not None:
        return runner.projector.db
    projector = getattr(app.state, "projector", None)
    if projector is None:
        from projections.runner import Projector

        projector = app.state.projector = Projector(app.state.ledger)
    return projector.db


@dataclass(frozen=True)
class ReadContext:
    ledger: Any
    db: ViewDB
    reads: Reads
    cid: UUID
    actor: Actor
    state: CampaignState

    @classmethod
    def of(cls, app: Any, cid: UUID, actor: Actor, state: CampaignState) -> ReadContext:
        return cls(app.state.ledger, viewdb_of(app), reads_of(app), cid, actor, state)


def context(request: Request, cid: UUID, actor: Actor, state: CampaignState) -> ReadContext:
    return ReadContext.of(request.app, cid, actor, state)


def render_map(c: ReadContext) -> bytes:
    if sees_all(c.actor):
        doc, _ = doc_at_head(c.ledger, c.db, c.cid, "map", c.state.version)
        return orjson.dumps(doc)
    return c.reads.audiences.render(c.ledger, c.cid, c.actor, c.state, lambda d: orjson.dumps(d["map"]))


def render_victory(c: ReadContext) -> bytes:
    if sees_all(c.actor):
        doc, awards = awards_at_head(c.ledger, c.db, c.cid, c.state.version)
        return orjson.dumps({**doc, "awards": awards})
    return c.reads.audiences.render(c.ledger, c.cid, c.actor, c.state,
                                    lambda d: orjson.dumps({**d["victory"], "awards": None}))


def render_state(c: ReadContext) -> bytes:
    """Map and victory at the head."""
    out: dict[str, Any] = {"campaign": str(c.cid), "position": c.state.version}
    if not sees_all(c.actor):
        out["filtered_for"] = c.actor.role
        return c.reads.audiences.render(c.ledger, c.cid, c.actor, c.state, lambda d: orjson.dumps(
            {**out, "map": d["map"], "victory": d["victory"]}))  # serialized under the audience's lock
    (m, pm), (v, pv) = (doc_at_head(c.ledger, c.db, c.cid, name, c.state.version) for name in ("map", "victory"))
    return orjson.dumps({**out, "checkpoint": min(pm, pv, c.state.version), "map": m, "victory": v})


def render_timeline(c: ReadContext, turn: int) -> bytes:
    rows = c.reads.timelines.rows(c.ledger, c.db, c.cid, turn, c.state.version)
    if not sees_all(c.actor):
        revealed = frozenset(c.state.revealed)
        return orjson.dumps([r for r in rows if can_see(c.actor, r, revealed)])
    return orjson.dumps(rows)


def render_sheet(c: ReadContext, country: str, turn: int) -> bytes | None:
    """A country's ERS for a turn (None: no such sheet). The caller checks the country and the turn."""
    if sees_all(c.actor):
        sheet = sheet_at_head(c.ledger, c.db, c.reads.budgets, c.cid, country, turn, c.state.version)
        return orjson.dumps(sheet) if sheet is not None else None

    # From the events this caller may see: a hidden entry stays hidden in the totals too.
    def visible_sheet(docs: dict[str, Any]) -> bytes | None:
        if docs["budget_result"] is None:
            docs["budget_result"] = budget(budget_view.records(docs["budget"]))
        found = docs["budget_result"].sheet(country, turn)
        return orjson.dumps(sheet_json(found)) if found is not None else None

    return c.reads.audiences.render(c.ledger, c.cid, c.actor, c.state, visible_sheet)


# ------------------------------------------------------------------ serialized responses

class ResponseCache:
    """The last 200 body per (path and query, audience), with the head position it was computed at."""

    def __init__(self, maxsize: int = 4096):
        self.maxsize = maxsize
        self._entries: OrderedDict[str, dict[Audience, tuple[int, bytes, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def has(self, path: str) -> bool:
        return path in self._entries

    def get(self, path: str, who: Audience, version: int) -> tuple[bytes, str] | None:
        entry = self._entries.get(path, {}).get(who)
        if entry is None or entry[0] != version:
            return None
        return entry[1], entry[2]

    def put(self, path: str, who: Audience, version: int, body: bytes, template: str) -> None:
        with self._lock:
            per = self._entries.setdefault(path, {})
            current = per.get(who)
            if current is None or current[0] <= version:  # never replace a newer answer with an older one
                per[who] = (version, body, template)
            self._entries.move_to_end(path)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)


def request_key(scope: dict[str, Any]) -> str:
    qs = scope.get("query_string") or b""
    return scope["path"] + ("?" + qs.decode("latin-1") if qs else "")


def respond(request: Request, actor: Actor, state: CampaignState, data: Any) -> Response:
    """Serialize once, keep the body for the next caller of the same audience at the same head."""
    body = data if isinstance(data, bytes) else orjson.dumps(data)
    route = request.scope.get("route")
    reads_of(request.app).cache.put(request_key(request.scope), audience(actor), state.version, body,
                                    getattr(route, "path", request.url.path))
    return Response(body, media_type=JSON)


class _Route:
    """What the access log and the latency histogram read from ``scope["route"]``."""

    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path


def _turn(text: str) -> int | None:
    n = int(text)
    return n if 1 <= n <= MAX_TURN else None


# (pattern, route template, renderer(context, match) -> bytes | None); only without a query string.
FAST: list[tuple[re.Pattern[str], str, Callable[[ReadContext, re.Match[str]], bytes | None]]] = [
    (re.compile(r"^/campaigns/([^/]+)/map$"), "/campaigns/{campaign}/map", lambda c, m: render_map(c)),
    (re.compile(r"^/campaigns/([^/]+)/victory$"), "/campaigns/{campaign}/victory", lambda c, m: render_victory(c)),
    (re.compile(r"^/campaigns/([^/]+)/state$"), "/campaigns/{campaign}/state", lambda c, m: render_state(c)),
    (re.compile(r"^/campaigns/([^/]+)/turns/([1-9][0-9]{0,9})/timeline$"),
     "/campaigns/{campaign}/turns/{turn}/timeline",
     lambda c, m: render_timeline(c, t) if (t := _turn(m.group(2))) is not None else None),
    (re.compile(r"^/campaigns/([^/]+)/ers/([A-Z]{2,4})/([1-9][0-9]{0,9})$"), "/campaigns/{campaign}/ers/{country}/{turn}",
     lambda c, m: render_sheet(c, m.group(2), t)
     if (t := _turn(m.group(3))) is not None and m.group(2) in c.state.countries and t <= c.state.turn else None),
]


class ReadCache:
    """ASGI layer: the hot reads without the framework, and any cached read, after checking the token."""

    def __init__(self, app: Any):
        self.app = app
        self._cids: dict[str, UUID] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].startswith("/campaigns/"):
            served = self._serve(scope)
            if served is not None:
                body, template, actor = served
                scope["route"] = _Route(template)
                scope.setdefault("state", {})["actor"] = actor
                await send({"type": "http.response.start", "status": 200,
                            "headers": [(b"content-type", JSON.encode()),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

    def _campaign(self, segment: str) -> UUID:
        cid = self._cids.get(segment)
        if cid is None:
            try:
                cid = UUID(segment)
            except ValueError:
                cid = campaign_id(segment)
            if len(self._cids) < 10_000:
                self._cids[segment] = cid
        return cid

    def _serve(self, scope: dict) -> tuple[bytes, str, Actor] | None:
        app = scope.get("app")
        if app is None:
            return None
        reads = reads_of(app)
        path = request_key(scope)
        fast = None
        if not scope.get("query_string"):
            fast = next(((p, t, f, m) for p, t, f in FAST if (m := p.match(path))), None)
        if fast is None and not reads.cache.has(path):
            return None
        raw = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, raw = value.decode("latin-1").partition(" ")
                if scheme.lower() != "bearer":
                    return None
                raw = raw.strip()
                break
        if not raw:
            return None  # no token: the routes decide (development mode, cookies, 401)
        ledger, settings = app.state.ledger, app.state.settings
        cid = self._campaign(path.split("/", 3)[2].partition("?")[0])
        try:
            state = ledger.campaign(cid)  # refreshed to the head: a revocation counts at once
        except LedgerError:
            return None
        if settings.admin_token and hmac.compare_digest(settings.admin_token.encode(), raw.encode()):
            actor = Actor("admin", "admin")
        else:
            if tokens.token_campaign(raw) != cid:
                return None  # another campaign's or a malformed token: 401/403 from the routes
            record = state.tokens.get(tokens.digest(raw))
            if record is None:
                return None
            actor = Actor(record["holder"], record["role"], record["country"])
        who = audience(actor)
        found = reads.cache.get(path, who, state.version)
        if found is not None:
            return found[0], found[1], actor
        if fast is None:
            return None
        _, template, render, match = fast
        try:
            body = render(ReadContext.of(app, cid, actor, state), match)
        except LedgerError:
            return None  # the route gives the error
        if body is None:
            return None
        reads.cache.put(path, who, state.version, body, template)
        return body, template, actor
