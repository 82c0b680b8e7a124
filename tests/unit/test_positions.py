"""The position a write answers with and a read names (read-your-writes): ``<campaign>:<version>``."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import positions
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput


@given(st.uuids(), st.integers(min_value=1, max_value=2**53))
def test_every_position_a_write_answers_with_reads_back_as_itself(cid, version):
    assert positions.parse(positions.text((cid, version)), "Ledger-Position") == (cid, version)


def test_a_campaign_is_named_by_its_id_or_its_slug():
    assert positions.parse("europa-1492:43", "Ledger-Position") == (campaign_id("europa-1492"), 43)


@pytest.mark.parametrize("bad", ["", "43", "europa:", ":43", "europa:0", "europa:-1", "europa:4x", "europa:1.5",
                                 f"{uuid.UUID(int=1492)}:{2**53 + 1}"])
def test_anything_else_is_refused_naming_the_header(bad):
    with pytest.raises(InvalidInput) as refused:
        positions.parse(bad, "Ledger-Position")
    assert refused.value.field == "Ledger-Position" and "<campaign>:<version>" in refused.value.message


def test_only_a_watched_block_collects_the_positions_written_in_it():
    class Appended:
        campaign, events = str(campaign_id("a")), ({"position": 7},)

    positions.note(Appended())  # nobody watching: nothing kept, nothing fails
    with positions.watching() as written:
        positions.note(Appended())
    assert written == [(campaign_id("a"), 7)]
