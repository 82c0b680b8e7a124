"""The economy of a campaign: the Economic Record Sheet (ERS), used by both sides.

- ``sheets``: the budget, a pure function of what the history says about the
  treasury (``Inputs``, gathered event by event), every cell with its lineage;
- ``entries``: the treasury entries a ruling's effects imply, and which lines
  a game master may enter;
- ``milestones``: the lines a phase of the sequence of play completes, recorded
  when it closes.

The write side folds ``Inputs`` into the campaign's state (so closing a phase
reads no history); the read side (``projections/``) folds the same ``Inputs``
into its budget view. One input shape, one definition of the numbers.
"""

# The trade and rest-of-the-world workers join the income lines worked out from the board
# (``board_income.WORKERS``) whenever the economy is imported.
from ledger.economy import trade_income  # noqa: E402, F401 (it registers its workers)
