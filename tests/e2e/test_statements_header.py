"""The measurement setting ``count_statements`` (api/observability.py): each answer says how many SQL statements
its request ran, what ops/load.py prints per kind of request. Off, no header: the service pays nothing for it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

ADMIN = "admin-secret-for-tests"


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    return ledger


def client(settings, ledger, counting: bool) -> TestClient:
    app = create_app(settings.model_copy(update={"admin_token": ADMIN, "projection_runner": "external",
                                                 "count_statements": counting}), ledger)
    return TestClient(app, headers={"Authorization": f"Bearer {ADMIN}"})


def test_a_counted_read_names_the_statements_it_ran_and_a_cached_one_runs_fewer(settings, sample, store):
    if store != "postgres":
        pytest.skip("psycopg's cursors are PostgreSQL's; SQLite runs no statement through them")
    http = client(settings, sample, counting=True)
    first = http.get("/campaigns/sample/turns/1/timeline")
    assert first.status_code == 200, first.text
    ran = int(first.headers["Ledger-Statements"])
    assert ran >= 2  # at least the campaign's head and the timeline's rows
    again = http.get("/campaigns/sample/turns/1/timeline")
    # Served from the response cache at the same head: the head is read again, the rows are not.
    assert again.json() == first.json() and 1 <= int(again.headers["Ledger-Statements"]) < ran
    assert int(http.get("/health").headers["Ledger-Statements"]) == 0


def test_uncounted_no_answer_carries_the_header(settings, sample):
    http = client(settings, sample, counting=False)
    answer = http.get("/campaigns/sample/turns/1/timeline")
    assert answer.status_code == 200 and "Ledger-Statements" not in answer.headers
