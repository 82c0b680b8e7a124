"""``ledger notify`` on both stores: an endpoint registered, told of a turn by ``notify deliver``, listed with its
deliveries and last error in words, its topics changed, removed; a bad field exits 2 naming it."""

from __future__ import annotations

import json

import pytest

from ledger.cli import app
from tests.integration.notify_helpers import Receiver
from tests.integration.test_cli import cli_env, run, runner

pytestmark = pytest.mark.store_contract


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_an_endpoint_is_registered_told_listed_changed_and_removed_from_the_command_line(settings, receiver):
    assert run(settings, "campaign", "create", "calais", "--name", "Calais", "--country", "ENG",
               "--country", "FRA").exit_code == 0
    made = run(settings, "notify", "register", "calais", "--kind", "json", "--target", receiver.url("/gm"),
               "--topic", "turns")
    assert made.exit_code == 0, made.output
    answer = json.loads(made.output)  # piped: JSON
    eid, secret = answer["data"]["endpoint_id"], answer["secret"]
    assert secret.startswith("whsec_") and len(secret) == 6 + 64
    receiver.fail["/gm"] = [503]
    assert run(settings, "turn", "open", "calais").exit_code == 0
    assert run(settings, "notify", "deliver").exit_code == 0  # the first attempt fails: retried later
    [listed] = json.loads(run(settings, "notify", "list", "calais").output)
    assert (listed["id"], listed["pending"], listed["delivered"]) == (eid, 1, 0)
    assert listed["last_error"] == "the receiver answered HTTP 503 Service Unavailable"
    words = runner.invoke(app, ["notify", "list", "calais"], env={**cli_env(settings), "LEDGER_OUTPUT": "words",
                                                                   "COLUMNS": "250"})
    assert "HTTP 503 Service Unavailable" in words.output and "{" not in words.output  # a table, not JSON
    [sent] = json.loads(run(settings, "notify", "deliveries", "calais", eid).output)
    assert (sent["status"], sent["attempts"], sent["text"][:13]) == ("pending", 1, "Turn 1 opened")
    changed = run(settings, "notify", "topics", "calais", eid, "--topic", "turns", "--topic", "rulings")
    assert changed.exit_code == 0, changed.output
    bad = run(settings, "notify", "topics", "calais", eid, "--topic", "weather")
    assert bad.exit_code == 2 and "topics" in bad.output
    assert run(settings, "notify", "remove", "calais", eid, "--reason", "done").exit_code == 0
    assert json.loads(run(settings, "notify", "list", "calais").output) == []
