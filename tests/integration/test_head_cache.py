"""Each server process caches campaign state; a change made through another process counts at once.

Two ``Ledger`` instances on one store stand for two uvicorn workers: every
read of a campaign's state checks the cached state against the head position
(one indexed query) and fast-forwards it when another writer appended.
"""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import access, tokens
from ledger.application import Actor, Ledger
from ledger.domain.commands import ChangeSettings, RevokeToken

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

GM = Actor("gina", "gm")


def test_a_revocation_and_a_settings_change_through_one_ledger_count_at_once_in_another(settings, ledger):
    other = Ledger(settings)
    try:
        cid = UUID(ledger.create_campaign(slug="two", name="Two", ruleset="eu", countries=["ENG", "FRA"],
                                          settings={"players_may_roll": True}, actor=GM).data["id"])
        _, raw = tokens.issue_token(ledger, cid, role="player", country="FRA", actor=GM)
        assert raw is not None
        grant = tokens.authenticate(other, raw)  # `other` now caches the campaign with the live token
        assert grant is not None and grant.actor == Actor("player", "player", "FRA")
        player = grant.actor
        assert access.may_write(player, "roll", other.campaign(cid).settings) is True

        ledger.submit(cid, RevokeToken, token_id=grant.token_id, reason="left the game", actor=GM)
        assert tokens.authenticate(other, raw) is None  # no delay, no restart
        ledger.submit(cid, ChangeSettings, settings={"players_may_roll": False}, reason="house rule", actor=GM)
        assert other.campaign(cid).settings == {"players_may_roll": False, "ers_visibility": "country"}
        assert access.may_write(player, "roll", other.campaign(cid).settings) is False
        assert other.campaign(cid).version == ledger.campaign(cid).version == 4

        # Writing through the stale-cached instance still lands at the next position, after the others.
        other.open_turn(cid, actor=GM)
        assert ledger.campaign(cid).version == 5 and ledger.campaign(cid).turn_open
    finally:
        other.close()
