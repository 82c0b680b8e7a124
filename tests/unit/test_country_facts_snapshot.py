"""A snapshot of the forces model from before the provinces and countries joined it is folded again from the
events (``forces.current``), never read as a map without provinces."""

from __future__ import annotations

from uuid import uuid4

from ledger.domain import forces as forcelib
from ledger.domain.campaign import CampaignState


def test_a_snapshot_of_the_forces_model_without_provinces_is_folded_again():
    old = {k: v for k, v in forcelib.empty().items() if k not in ("provinces", "countries")}
    assert not forcelib.current(old) and forcelib.current(forcelib.empty())
    state = CampaignState(id=uuid4(), military=old)
    assert CampaignState.from_dict(state.to_dict()).military is None
    assert CampaignState.from_dict(CampaignState(id=uuid4()).to_dict()).military == forcelib.empty()
