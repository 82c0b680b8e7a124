"""The income proposal in words (ledger/economy/income.py): a line's lineage as a person checks it on the map,
and a confirmation gone stale exactly when a line the map works out moved since."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ledger.economy.board_income import Proposal, ProposedLine, Source
from ledger.economy.income import changes, lineage_words, line_doc, stale_words

B1 = ProposedLine("B1", 8, (Source("province", "Tras-os-Montes", 5, None, "owned by POR"),
                            Source("province", "Beira", 3, 12, "owned by POR")), "Incomes, land income")


def test_a_line_reads_as_its_sources_each_note_said_once_when_all_share_it():
    assert lineage_words(B1) == "B1 8: Tras-os-Montes 5, Beira 3 (each owned by POR)"
    b3 = ProposedLine("B3", 3, (Source("province", "Beira", 3, 14, "Revolt marker: its income is lost"),), "B3")
    assert lineage_words(b3) == "B3 3: Beira 3 (Revolt marker: its income is lost)"
    assert lineage_words(ProposedLine("B2", 0, (), "B2")) == "B2 0: nothing on the map adds to it"


def test_the_words_of_a_recorded_line_are_those_of_the_proposed_line():
    assert lineage_words(line_doc(B1)) == lineage_words(B1)


amounts = st.dictionaries(st.sampled_from(["B1", "B2", "B3", "B30", "B31"]), st.integers(0, 200), min_size=1)


@given(amounts, amounts)
def test_a_confirmation_is_stale_exactly_when_a_worked_out_line_moved(then, now):
    confirmed = {"position": 40, "at": 39, "lines": {k: {"amount": v, "computed": v} for k, v in then.items()}}
    proposal = Proposal("POR", 50, tuple(ProposedLine(k, v, (), "") for k, v in now.items()))
    moved = changes(confirmed, proposal)
    assert bool(moved) == (then != now)
    assert {m["line"] for m in moved} == {k for k in then.keys() | now.keys() if then.get(k) != now.get(k)}
    words = stale_words("POR", confirmed, moved)
    assert words.startswith("Stale: the map changed after POR's income was confirmed at #40") if moved else words == ""
