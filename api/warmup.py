"""A new process's one-off costs, paid at startup instead of by the first person to open a page.

A fresh worker's first request (after a deploy, a restart, a worker replaced) spent, before reading anything
of a campaign (py-spy of ``ops/bench_reads.py``'s first reads, 300,000-event campaign): ~170 ms building
FastAPI's route tables (each included router's, on its first match), ~90 ms of it preparing the routes'
parameter models, ~130 ms compiling a page's Jinja templates, the ERS definition and the board's geometry,
parsed on first use, the ERS sheets' compiled functions (~25 ms of a first turn page at a treasury entry), and
the ruleset's procedure modules, imported at the first ruling. The lifespan calls ``warm`` before the server
accepts a connection.

Measured again with ``time.process_time`` by stage (first reads of the 300,000-event campaign, stop 25): of
a game master's first ``state?at=N`` (~40 ms of CPU), ~23 ms loaded the campaign's head (its 6.6 MB snapshot
fetched, decoded, its seal checked) and ~5 ms (25-50 ms of wall: a statement per view table checked) made the
process's reader of the views; the answer itself was ~9 ms, as warm. So ``warm`` also makes the reader, and
loads the heads of the campaigns (the ledger keeps them: ``head_cache_size``) for at most ``HEADS_SECONDS``:
after a deploy or a restart, the first page of a campaign loaded here costs its reader no snapshot.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from fastapi import FastAPI

#: How long a start may spend loading campaigns' heads (a 300,000-event campaign's takes ~25 ms of CPU, a small
#: one's a few): past it, a campaign's first request loads its head, as before.
HEADS_SECONDS = 2.0


async def warm(app: FastAPI) -> None:
    from api.routes import web  # the module that holds the page templates' environment
    from ledger.board import load_geometry
    from ledger.domain.commands import REPLACEMENTS
    from ledger.rules.core import get_ruleset, json_schema
    from ledger.rules.eu.ers import ers_definition, prepare_sheets

    env = web.templates.env
    for name in env.list_templates(filter_func=lambda n: n.endswith(".html")):
        env.get_template(name)  # compiled once, kept by the environment
    ers_definition()
    prepare_sheets()  # a sheet's function for any entered lines: its first sheet computed compiled nothing
    get_ruleset("eu")  # its procedure modules imported: the first ruling of a worker imported them (~50 ms)
    # The turn page's dispute forms' schemas: 5 ms for all 13 (not the 40 procedures' input forms: 186 ms, ~5 ms
    # for the one a ruling's first page shows).
    for model in REPLACEMENTS.values():
        json_schema(model)
    # The EU board's, which the map draws for a scenario without its own board too; asked as the map asks
    # (``functools.cache`` keys on the arguments given: ``load_geometry()`` left the map's first picture to
    # parse it again, 7 ms).
    load_geometry("eu")
    await _route_tables(app)
    from api import readpath

    readpath.reads_of(app)  # the process's reader of the views: its view tables checked once, here
    for ledger in {id(x): x for x in (app.state.ledger, getattr(app.state, "replica", None)) if x}.values():
        heads(ledger, HEADS_SECONDS)


def heads(ledger: Any, seconds: float) -> int:
    """Load campaigns' heads into the ledger's cache until ``seconds`` have passed or the cache is full; returns
    how many. A campaign that does not load (a damaged history) is left to its own routes, which say why."""
    deadline, loaded = time.monotonic() + seconds, 0
    for cid in ledger.recorder.campaign_ids():
        if time.monotonic() > deadline or loaded >= ledger.settings.head_cache_size:
            break
        try:
            ledger.campaign(cid)
        except Exception as exc:  # noqa: BLE001 - a start must not fail on one campaign; its routes say why
            logging.getLogger("ledger").warning("warm-up: campaign %s not loaded: %s", cid, exc)
            continue
        loaded += 1
    return loaded


async def _route_tables(app: FastAPI) -> None:
    """One request through the routers (not the middleware: no access line, no metrics) to a path no route
    serves, and the same path offered to each included router itself (the app's routers turn away a path
    outside their prefix before building anything: api/main.py): every route table is built, as a first match
    would."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": "/.warm-up/none", "raw_path": b"/.warm-up/none", "root_path": "", "query_string": b"",
             "headers": [], "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0)}  # no "app": the router answers 404 itself
    await app.router(scope, receive, send)
    for router in app.router.routes:
        match = getattr(router, "_match", None)  # an included router's own matching, its table built on first use
        if match is not None:
            match(dict(scope))
