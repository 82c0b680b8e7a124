"""A new process pays its one-off costs at startup (api/warmup.py), not at its first request."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.routes import web

pytestmark = pytest.mark.e2e


def test_the_first_page_after_startup_compiles_no_template(settings, monkeypatch):
    env = web.templates.env
    env.cache.clear()  # as in a new process: other tests of this one compiled them already
    compiled: list[str] = []
    compile_ = env.compile
    monkeypatch.setattr(env, "compile", lambda source, name=None, *a, **k: (compiled.append(name),
                                                                            compile_(source, name, *a, **k))[1])
    with TestClient(create_app(settings)) as client:
        at_startup = sorted(compiled)
        compiled.clear()
        page = client.get("/ui/login")
        assert page.status_code == 200, page.text
        assert compiled == [], "the first page compiled templates the startup had not"
    assert "login.html" in at_startup and "turn.html" in at_startup and "base.html" in at_startup


def test_the_warm_up_request_is_answered_by_the_router_and_logs_nothing(settings, caplog):
    with caplog.at_level("INFO", logger="ledger.access"), TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
    paths = [r.__dict__["fields"]["path"] for r in caplog.records if r.name == "ledger.access"]
    assert paths == ["/health"], paths  # the request made, not the warm-up's (nor its 404 counted)


def test_every_router_has_its_route_table_built_before_the_first_request(settings):
    """Each included router builds its table of routes on its first match (~170 ms in all); the app's routers
    turn away paths outside their prefix unbuilt (api/main.py), so the warm-up offers its path to each one."""
    app = create_app(settings)
    routers = [r for r in app.router.routes if hasattr(r, "_match")]
    assert len(routers) > 5
    with TestClient(app):
        assert [r for r in routers if r._effective_candidates_version is None] == []


def test_the_campaigns_heads_and_the_reader_of_the_views_are_ready_before_the_first_request(settings, ledger):
    """A fresh worker's first read of a campaign loaded its head (the 300k campaign's snapshot: ~23 ms of CPU)
    and made the reader of the views (a statement per view table): the start does both now."""
    from ledger.application import Actor
    from ledger.application import campaign_id

    ledger.create_campaign(slug="warm", name="Warm", ruleset="eu", countries=["ENG", "FRA"], actor=Actor("gm", "gm"))
    app = create_app(settings)  # a new process's ledger: nothing cached
    with TestClient(app):
        assert app.state.ledger._heads.get(campaign_id("warm")).version == 1
        assert getattr(app.state, "reads", None) is not None


def test_loading_heads_stops_at_its_time_budget_and_skips_a_campaign_that_does_not_load(settings):
    from api import warmup

    class Recorder:
        def campaign_ids(self):
            return ["damaged", "fine", "late"]

    class Ledger:
        recorder, settings = Recorder(), type("S", (), {"head_cache_size": 10})
        loaded: list[str] = []

        def campaign(self, cid):
            if cid == "damaged":
                raise ValueError("the stored history does not link at position 7")
            self.loaded.append(cid)

    ledger = Ledger()
    assert warmup.heads(ledger, 60.0) == 2 and ledger.loaded == ["fine", "late"]
    ledger.loaded.clear()
    assert warmup.heads(ledger, -1.0) == 0 and ledger.loaded == []
