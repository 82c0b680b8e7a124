"""GET /events: the history a caller may see, in order, ``limit`` of them after ``after``. It is read as stored
records and kept per audience and head (api/routes/audit.py); what it answers is what the domain events say:
each visible event's ``event_public``, hidden ones skipped however many lie between."""

from __future__ import annotations

import pytest

from api.routes.views import event_public
from ledger import tokens
from ledger.access import visible
from tests.e2e.test_access import SYSTEM, bearer, issue, make_client, new_campaign


@pytest.fixture
def hidden_runs(settings, ledger):
    """A campaign whose history has runs of GM-only rolls between public ones (longer than small pages)."""
    cid = new_campaign(ledger, "runs")
    toks = {"gm": issue(ledger, cid, "gm"), "player": issue(ledger, cid, "player", "FRA"),
            "observer": issue(ledger, cid, "observer")}
    ledger.open_turn(cid, actor=SYSTEM)
    for i in range(4):
        for j in range(3 + 2 * i):
            ledger.roll(cid, purpose=f"secret {i}.{j}", actor=SYSTEM, vis={"scope": "gm"})
        ledger.roll(cid, purpose=f"public {i}", actor=SYSTEM)
    return make_client(settings, ledger), ledger, cid, toks


@pytest.mark.parametrize("after,limit", [(0, 500), (0, 1), (0, 2), (3, 3), (7, 1), (10, 4), (0, 5000), (99, 10)])
def test_a_page_of_events_is_what_each_reader_may_see_of_the_history(hidden_runs, after, limit):
    client, ledger, cid, toks = hidden_runs
    state = ledger.campaign(cid)
    for who, token in toks.items():
        seen = visible(tokens.authenticate(ledger, token).actor, ledger.history(cid, after=after), state.revealed)
        expected = [event_public(e).model_dump(mode="json") for e in seen[:limit]]
        r = client.get(f"/campaigns/runs/events?after={after}&limit={limit}", headers=bearer(token))
        assert r.status_code == 200, r.text
        assert r.json() == expected, who
    # The player misses the GM-only rolls: the page is not the GM's (the check above is not vacuous).
    gm = client.get("/campaigns/runs/events", headers=bearer(toks["gm"])).json()
    player = client.get("/campaigns/runs/events", headers=bearer(toks["player"])).json()
    assert len(player) < len(gm) and {e["position"] for e in player} < {e["position"] for e in gm}


def test_an_append_is_in_the_next_page_asked_for(hidden_runs):
    """The answer is kept per head: the next request after an append reads the new head, and the event."""
    client, ledger, cid, toks = hidden_runs
    first = client.get("/campaigns/runs/events", headers=bearer(toks["player"])).json()
    ledger.roll(cid, purpose="one more", actor=SYSTEM)
    again = client.get("/campaigns/runs/events", headers=bearer(toks["player"])).json()
    assert again[:-1] == first and again[-1]["payload"]["purpose"] == "one more"

