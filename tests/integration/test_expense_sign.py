"""Expenses have one sign convention (issue 36, item 4): an expense line takes the expense as a positive number;
a negative amount there is refused with a sentence saying so, typed, restated by a correction or over HTTP,
appending nothing. Both stores."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger.application import Actor
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput
from ledger.sample import reach_phase

GM = Actor("gm")
ADMIN = "test-admin-token-0123456789abcdef0123456789"
SLUG = "expense-sign"


@pytest.fixture
def cid(ledger):
    ledger.create_campaign(slug=SLUG, name="Expense sign", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    cid = campaign_id(SLUG)
    ledger.open_turn(cid, actor=GM)
    return cid


def test_a_negative_unit_maintenance_is_refused_not_added_to_the_treasury(ledger, cid):
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput) as e:
        ledger.record_treasury_entry(cid, country="FRA", line="B30", amount=-20, reason="maintenance", actor=GM)
    assert e.value.field == "amount"
    assert "B30 (Unit maintenance) is an expense" in e.value.message
    assert "positive number" in e.value.message and "-20 would add 20 to the treasury" in e.value.message
    assert ledger.campaign(cid).version == before


def test_an_expense_is_typed_positive_and_a_signed_line_keeps_its_sign(ledger, cid):
    ledger.record_treasury_entry(cid, country="FRA", line="B30", amount=20, reason="maintenance", actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=-12, reason="pillaged", actor=GM)
    ledger.record_treasury_entry(cid, country="FRA", line="B30", amount=0, reason="nothing due", actor=GM)


def test_a_correction_cannot_make_an_expense_negative(ledger, cid):
    first = ledger.record_treasury_entry(cid, country="FRA", line="B31", amount=10, reason="forts", actor=GM)
    position = first.events[0]["position"]
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput, match="B31 .* is an expense") as e:
        ledger.record_correction(cid, corrects=position, replacement={"amount": -10}, reason="typo", actor=GM)
    assert e.value.field == "replacement.amount"
    # A signed entry moved to an expense line keeps its negative amount: refused too, naming the line.
    signed = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=-5, reason="pillage", actor=GM)
    at = signed.events[0]["position"]
    with pytest.raises(InvalidInput, match="A5 .* is an expense") as e:
        ledger.record_correction(cid, corrects=at, replacement={"line": "A5"}, reason="wrong line", actor=GM)
    assert e.value.field == "replacement.line"
    assert ledger.campaign(cid).version == before + 1
    ledger.record_correction(cid, corrects=position, replacement={"amount": 5}, reason="two forts", actor=GM)


def test_an_upgraded_campaign_takes_back_its_covered_tick(ledger, cid):
    # M8's upgrade (ledger/rules/eu/campaigns.py) books -1 tick on the covered line: the rule's own correction.
    reach_phase(ledger, cid, "military")  # M8 is a ruling of the military phase (the sequence of play)
    before = ledger.campaign(cid).version
    ledger.record_ruling(cid, procedure="M8", inputs={"country": "FRA", "land": "major", "sea": "none",
                                                       "extended_from": "active"}, actor=GM)
    booked = [(e.line, e.amount) for e in ledger.history(cid, after=before) if type(e).__name__ ==
              "TreasuryEntryRecorded"]
    assert booked == [("B41", -1), ("B42", 1)]


def test_http_refuses_a_negative_expense_with_a_422_naming_the_amount(ledger, cid):
    settings = ledger.settings.model_copy(update={"admin_token": ADMIN})
    with TestClient(create_app(settings, ledger), headers={"Authorization": f"Bearer {ADMIN}"}) as http:
        r = http.post(f"/campaigns/{SLUG}/treasury", json={"country": "FRA", "line": "B30", "amount": -20,
                                                            "reason": "maintenance"})
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == "amount"
        assert "is an expense" in r.json()["error"]["message"]
