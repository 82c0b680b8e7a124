"""Closing the phases of the sequence of play, in order, once each (ledger/economy/milestones.py).

The lines a phase completes are computed from the campaign's write-side state
(its treasury log): closing a phase reads no history. They are the game
master's answer, not recorded: the close itself is public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import StateConflict
from ledger.economy import milestones
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft


@handles(cmd.ClosePhase)
def close_phase(d: Draft, c: cmd.ClosePhase, *, closed_by: dict[str, Any] | None = None) -> dict[str, Any]:
    """``closed_by``: what closed it when not the game master's close (the last country marked ready: issue 38,
    ledger/usecases/pacing.py), recorded in the event."""
    turn = d.state.require_open_turn()
    closed = d.state.phases_closed
    if c.phase in closed:
        raise StateConflict(f"phase {c.phase} of turn {turn} is already closed", field="phase")
    expected = next(p for p in milestones.PHASES if p not in closed)
    if c.phase != expected:
        raise StateConflict(f"phase {c.phase} cannot close before {expected} (turn {turn})", field="phase")
    ers: dict[str, Any] = {}
    if c.phase in milestones.MILESTONES and d.state.ruleset == "eu":
        # Only what is in the state this command runs on (a concurrent append re-runs it).
        ers = milestones.recorded(d.ledger.budget_of(d.state), d.state.countries, turn, c.phase)
    d.context["phase"] = c.phase
    # The close is everyone's to read, a country's figures are not: they are the game master's answer, never
    # recorded (an event of a country's figures would tell its readers whether something hidden from them
    # stands behind them, by its audience or its amounts: DECISIONS in the README's access section).
    d.add(ev.PhaseClosed, turn=turn, phase=c.phase, ers={}, **({"closed_by": closed_by} if closed_by else {}))
    following = milestones.PHASES.index(c.phase) + 1
    return {"turn": turn, "phase": c.phase, "ers": ers,
            "next": milestones.PHASES[following] if following < len(milestones.PHASES) else None}
