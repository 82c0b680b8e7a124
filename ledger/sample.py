"""The small sample campaign the README's run command serves."""

from __future__ import annotations

from ledger.application import Actor, Ledger
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import CampaignNotFound

SLUG = "sample"
GM = Actor("gm", "gm")


def ensure_sample(ledger: Ledger) -> str:
    """Create the sample campaign once: one closed turn with dice and treasury entries, the next one open."""
    cid = campaign_id(SLUG)
    try:
        ledger.campaign(cid)
        return SLUG
    except CampaignNotFound:
        pass
    ledger.create_campaign(slug=SLUG, name="Sample campaign (Channel, 1492)", ruleset="eu",
                           countries=["ENG", "FRA"], players={"ENG": "alice", "FRA": "bruno"},
                           game_masters=["gm"], actor=GM, idempotency_key="sample-create")
    ledger.open_turn(cid, actor=GM, idempotency_key="sample-turn-1")
    ledger.roll(cid, purpose="initiative tie ENG/FRA", actor=GM, context={"phase": "military"},
                idempotency_key="sample-roll-1")
    ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=12, reason="looting of Kent",
                                 actor=GM, idempotency_key="sample-a9")
    ledger.record_treasury_entry(cid, country="ENG", line="A10", amount=20, reason="gold repatriated",
                                 actor=GM, idempotency_key="sample-a10")
    ledger.close_turn(cid, actor=GM, idempotency_key="sample-close-1")
    ledger.open_turn(cid, actor=GM, idempotency_key="sample-turn-2")
    return SLUG
