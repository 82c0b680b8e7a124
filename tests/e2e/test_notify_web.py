"""The notifications page (issue 38): a player registers a webhook through the form, is shown its signing secret
once, sees its deliveries and last error in words, and removes it; a rival's page shows none of it."""

from __future__ import annotations

import time

from ledger.notify import signing
from tests.e2e.test_access import SYSTEM, issue, make_client, new_campaign
from tests.e2e.test_web import log_in
from tests.integration.notify_helpers import Receiver


def test_a_player_registers_a_webhook_on_the_page_sees_its_last_error_and_removes_it(settings, ledger):
    receiver = Receiver()
    cid = new_campaign(ledger, "paged")
    fra, eng = issue(ledger, cid, "player", "FRA"), issue(ledger, cid, "player", "ENG")
    try:
        with make_client(settings, ledger) as c:
            csrf = log_in(c, fra)
            page = c.get("/ui/campaigns/paged/notifications")
            assert page.status_code == 200 and "No endpoint yet" in page.text
            assert 'name="audience"' not in page.text  # a player's endpoints are their country's
            bad = c.post("/ui/campaigns/paged/notifications/register",
                         data={"csrf": csrf, "kind": "json", "target": "ftp://x.org/h", "topic_turns": "1"})
            assert bad.status_code == 422 and "target: " in bad.text and "https://" in bad.text
            assert 'value="ftp://x.org/h"' in bad.text  # what was typed is kept
            receiver.fail["/fra"] = [500] * 20
            r = c.post("/ui/campaigns/paged/notifications/register",
                       data={"csrf": csrf, "key": "w1", "kind": "json", "target": receiver.url("/fra"),
                             "topic_turns": "1", "label": "my hook"})
            assert r.status_code == 201 and r.headers["Cache-Control"] == "no-store"
            secret = r.text.split('id="endpoint-secret" value="')[1].split('"')[0]
            [eid] = ledger.campaign(cid).endpoints
            assert secret == signing.endpoint_secret(ledger, cid, eid)
            ledger.open_turn(cid, actor=SYSTEM)
            for _ in range(100):  # the service's runner and worker: the first attempt fails
                page = c.get("/ui/campaigns/paged/notifications")
                if "HTTP 500" in page.text:
                    break
                time.sleep(0.05)
            assert "the receiver answered HTTP 500 Internal Server Error" in page.text
            assert secret not in page.text  # shown once
            log_in(c, eng)
            rival = c.get("/ui/campaigns/paged/notifications").text
            assert "my hook" not in rival and receiver.url("/fra") not in rival
            csrf = log_in(c, fra)
            gone = c.post(f"/ui/campaigns/paged/notifications/{eid}/remove", data={"csrf": csrf},
                          follow_redirects=False)
            assert gone.status_code == 303
            assert "is removed" in c.get(gone.headers["location"]).text and not ledger.campaign(cid).endpoints
    finally:
        receiver.close()
