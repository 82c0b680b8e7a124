"""In a real browser, pages served by the replica: with its replay paused, a game master resolves a battle again
from the form, and the page the form leads to shows the correction at once (its cookie names the write, so the
primary serves that page); the pages before it came from the replica."""

from __future__ import annotations

import re
import shutil
import tempfile
import uuid
from pathlib import Path

import psycopg
import pytest

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain import events as ev
from projections.runner import Projector
from tests.browser.conftest import ADMIN, SCREENSHOTS, _populate, context, login, serving  # noqa: F401
from tests.conftest import PG_DSN, REPLICA_DSN, playwright_expect
from tests.replica.conftest import caught_up

expect = playwright_expect()

pytestmark = pytest.mark.browser


@pytest.fixture
def site(browser):  # noqa: F811 (the browser first: without Chromium the test skips before any set-up)
    from api.main import create_app

    tmp = Path(tempfile.mkdtemp(prefix="ledger-web-replica-"))
    schema = f"webr_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    settings = Settings(env="test", store="postgres", postgres_dsn=PG_DSN, postgres_schema=schema, pool_size=4,
                        admin_token=ADMIN, data_dir=tmp, postgres_replica_dsn=REPLICA_DSN)
    ledger = Ledger(settings)
    try:
        data = _populate(ledger)
        Projector(ledger)  # the view tables, on the replica before the test pauses its replay
        caught_up()
        app = create_app(settings, ledger)
        from tests.browser.conftest import Site

        with serving(app) as url:
            yield Site("replica", url, ledger, app=app, **data)
    finally:
        ledger.close()
        shutil.rmtree(tmp, ignore_errors=True)
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_with_replay_paused_the_page_after_a_form_shows_what_the_game_master_just_did(site, context,  # noqa: F811
                                                                                       pause_replay):
    battle = next(e for e in site.ledger.history(site.cid)
                  if isinstance(e, ev.RulingRecorded) and e.procedure == "M19")
    turn, at = battle.context["turn"], battle.originator_version
    sources: list[str] = []
    context.on("response", lambda r: sources.append(r.headers.get("ledger-read", "")) if "/ui/campaigns/" in r.url
               and r.request.method == "GET" and r.status == 200 else None)  # pages read, not redirects
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/{turn}?position={at}")
    pause_replay()  # once the replica holds the login (a write: SessionOpened)
    sources.clear()
    page.reload()
    assert sources and set(sources) == {"replica"}  # the page before the form: the replica (it holds all of it)
    page.click("#dispute summary")
    page.fill("#rework-form input[name='input.defender.ld']", "6")
    page.fill("#rework-form textarea[name=reason]", "FRA had 6 LD at Picardie")
    page.fill("#rework-overrides", "defender.ld: two LD had joined from the garrison")
    sources.clear()
    page.click("#rework-preview-button")
    expect(page.locator("#rework-preview")).to_contain_text("defender ld")
    page.click("#rework-confirm")
    page.wait_for_url(re.compile(r"position=\d+#corrected-original$"))
    # The replica has not replayed the correction: the page the form led to came from the primary, and shows it.
    expect(page.locator("#corrected-original .correction .reason")).to_have_text("FRA had 6 LD at Picardie")
    assert sources[-1] == "primary", sources
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "replica-rework-recorded.png"), full_page=True)
    with psycopg.connect(REPLICA_DSN, autocommit=True) as conn:
        assert conn.execute("SELECT pg_is_wal_replay_paused()").fetchone()[0]  # still paused: no luck involved
