"""Browser tests of the web page (/ui): Debian's Chromium driven by Playwright against a real uvicorn server.

One server per store (SQLite, and PostgreSQL when LEDGER_TEST_POSTGRES_DSN is
set), serving the sample campaign plus two more turns:

- turn 1: the sample turn with its fixed physical dice (ledger/sample.py);
- turn 2: a land interception (M14) with server dice, a treasury entry only
  FRA may see, and a GM-only server roll; then turn 2 closes (seed revealed);
- turn 3: open, one more M14 with server dice (committed, not yet verifiable).

Tokens: a game master (gina), ENG's player (alice) and FRA's player (bruno).
Never runs ``playwright install``: the browser is /usr/bin/chromium (``ops/test``
installs Debian's package). Without it the tests skip, unless
LEDGER_TEST_REQUIRE_BROWSER=1 (``ops/test`` sets it), where they fail.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ledger import tokens
from ledger.application import Ledger, visibility
from ledger.config import Settings
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, close_open_phases, play_sample_turn, reach_phase
from ledger.scenario import import_scenario, load_text
from tests.conftest import PG_DSN

# The session's one Chromium (`browser`) and Playwright's `expect` live in tests/conftest.py: Playwright's sync API
# runs one instance per thread, and every folder with browser tests (tests/browser, tests/replica) shares it.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
ADMIN = "browser-admin-token"

INTERCEPTION = {"interceptor_man": 4, "target_man": 3, "last_campaign": "active", "same_province": True,
                "target_province_friendly": False, "bad_weather": True}
M14_CONTEXT = {"phase": "military", "round": "S1", "impulse": "ENG", "where": "Normandie",
               "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}}


@dataclass
class Site:
    store: str
    base: str
    ledger: Ledger
    cid: uuid.UUID
    gm: str
    eng: str
    fra: str
    positions: dict[str, int]  # named events of turns 2 and 3
    app: Any = None

    def shot(self, page: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{self.store}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


def _settings(store: str, data_dir: Path) -> tuple[Settings, str | None]:
    if store == "sqlite":
        return Settings(env="test", data_dir=data_dir, store="sqlite", admin_token=ADMIN), None
    schema = f"web_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return Settings(env="test", store="postgres", postgres_dsn=PG_DSN, postgres_schema=schema, pool_size=4,
                    admin_token=ADMIN), schema


def _populate(ledger: Ledger) -> dict[str, Any]:
    import_scenario(ledger, load_text("sample"), slug="sample", name="Sample campaign (Channel, 1492)", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)  # turn 1 closed, turn 2 open
    cid = campaign_id("sample")
    at = {}
    at["m14_t2"] = ledger.record_ruling(cid, procedure="M14", inputs=INTERCEPTION, actor=GM,
                                        context=M14_CONTEXT).events[0]["position"]
    at["fra_secret"] = ledger.record_treasury_entry(
        cid, country="FRA", line="A9", amount=7, reason="secret subsidy from Burgundy", actor=GM,
        vis=visibility("countries", ["FRA"]), context={"phase": "military"}).events[0]["position"]
    # The GM's first hidden roll of the turn comes after the commitment to the GM's seed (ledger/dice.py).
    *_, at["gm_roll"] = (e["position"] for e in ledger.roll(
        cid, purpose="spy report on Calais", sides=6, actor=GM, vis=visibility("gm"),
        context={"phase": "military"}).events)
    close_open_phases(ledger, cid)  # the sequence of play: a turn closes after its phases
    ledger.close_turn(cid, actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")  # turn 3 stands in its military phase (moves, sieges, battles)
    at["m14_t3"] = ledger.record_ruling(cid, procedure="M14", inputs=INTERCEPTION, actor=GM,
                                        context=M14_CONTEXT).events[0]["position"]
    _, gm = tokens.issue_token(ledger, cid, role="gm", holder="gina", actor=GM)
    _, eng = tokens.issue_token(ledger, cid, role="player", country="ENG", holder="alice", actor=GM)
    _, fra = tokens.issue_token(ledger, cid, role="player", country="FRA", holder="bruno", actor=GM)
    return {"cid": cid, "gm": gm, "eng": eng, "fra": fra, "positions": at}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by a real uvicorn server in a thread of this process on a free port: its base URL."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the uvicorn server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def site(browser, store):  # the browser first: without Chromium the tests skip before any set-up
    """A real uvicorn server on 127.0.0.1 (a thread of this process) over a fresh store (``store``: SQLite, both
    stores for a module marked ``store_contract``; tests/conftest.py)."""
    from api.main import create_app

    tmp = Path(tempfile.mkdtemp(prefix="ledger-web-"))
    settings, schema = _settings(store, tmp)
    ledger = Ledger(settings)
    try:
        data = _populate(ledger)
        app = create_app(settings, ledger)
        with serving(app) as url:
            yield Site(store, url, ledger, app=app, **data)
    finally:
        ledger.close()
        shutil.rmtree(tmp, ignore_errors=True)
        if schema:
            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


def login(context, site: Site, token: str, path: str = "/ui"):
    """Log in through the form, as a person would; returns the page, left at ``path``."""
    page = context.new_page()
    page.goto(f"{site.base}{path}")
    assert "/ui/login" in page.url  # not logged in yet: the page sends us to the login form
    page.fill("#token", token)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(f"{site.base}{path}")
    return page
