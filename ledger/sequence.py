"""The sequence of play, checked like the board (issue 37): which phases of a turn each command belongs to, and
the moves that enter a province of a country the mover is not at war with.

A turn of the ``eu`` ruleset is eight phases closed in order (TABLES.md "Sequence of play of one turn",
engGameSequence.tex; ``ledger/usecases/phases.py``): events, diplomacy, incomes, military, redeployment,
exchequer, peace, interphase. The phase a turn is in is the first one not yet closed (``CampaignState
.phases_closed``: no history read). A command is refused, in words naming the rule, when:

- it belongs to other phases than the one the turn is in (``PHASES_OF``, ``PROCEDURE_PHASES``): a move or a
  battle before the events, diplomacy and incomes phases are closed, a move after the redeployment closed;
- its ``context.phase`` names a phase already closed (recording in a closed phase) or one not yet begun;
- it closes a turn whose phases are not all closed.

The game master keeps such a command with a reason (``context.out_of_sequence``; ``CloseTurn.out_of_sequence``):
the event's context records ``out_of_sequence = {"reason", "refused": [what the checks said]}``, the timeline
shows it and ``ledger recompute`` lists it (``audit``). A player never keeps one. A reason where nothing is
refused is refused too (a reason for nothing is a mistake worth saying). Commands not listed (treasury entries,
dice, corrections, the map's bookkeeping: markers, control, stacks raised or changed) belong to every phase.

A move into a province held by a country the mover is not at war with is refused with the move's own checks
(``not_at_war``, ledger/usecases/map.py): the game master forces it with ``forced_reason``.

Readings: ledger/rules/eu/DECISIONS.md, "Sequence of play" headings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ledger.domain.commands import PHASES

#: The rulesets whose sequence of play is checked (the phases are eu's: TABLES.md).
CHECKED = frozenset({"eu"})
RULE = "eu:sequence"
#: The override that keeps a command out of sequence (``context.out_of_sequence``).
KEEP = "out_of_sequence"

MILITARY, REDEPLOYMENT, PEACE = ("military",), ("redeployment",), ("peace",)
#: The phases each event a command appends belongs to (an event not listed: any phase).
PHASES_OF: dict[str, tuple[str, ...]] = {
    "StackMoved": ("military", "redeployment"),  # impulses' movements; redeployment and return to port (R5, R6)
    "SiegeStarted": MILITARY,  # sieges are the rounds' (M21)
    "SiegeEnded": ("military", "redeployment", "peace"),  # taken in a round, lifted in redeployment (R5), by peace
    "WarDeclared": ("events", "diplomacy"),  # declarations in diplomacy; an event may declare one
    "PeaceMade": ("events", "peace"),  # the peace phase (P3-P6); an event may end a war
}
#: The phases of each eu procedure's rulings (a procedure not listed, M22's tables: any phase).
PROCEDURE_PHASES: dict[str, tuple[str, ...]] = {
    **{f"M{n}": MILITARY for n in range(1, 22)},
    **{f"R{n}": REDEPLOYMENT for n in range(1, 7)},
    "E1": ("exchequer",), "E2": ("exchequer",), "P1": ("exchequer",),
    "P3": PEACE, "P4": PEACE, "P5": PEACE, "P6": PEACE,
    # The seeds disagree (TABLES.md puts the stability adjustment, ransoms and inflation in the peace phase, the
    # interphase chapter verifies prosperity, war stability and inflation there): both are accepted.
    "P2": ("peace", "interphase"), "I1": ("peace", "interphase"), "I2": ("peace", "interphase"),
    "I4": ("peace", "interphase"), "I5": ("interphase",),
}
#: A command's event, by command name (what the table above is keyed by).
EVENT_OF = {"MoveStack": "StackMoved", "StartSiege": "SiegeStarted", "EndSiege": "SiegeEnded",
            "DeclareWar": "WarDeclared", "MakePeace": "PeaceMade", "RecordRuling": "RulingRecorded",
            "CloseTurn": "TurnClosed"}
WHAT = {"StackMoved": "a move", "SiegeStarted": "the start of a siege", "SiegeEnded": "the end of a siege",
        "WarDeclared": "a declaration of war", "PeaceMade": "a peace", "TurnClosed": "closing the turn"}


def _phases(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def allowed(kind: str, procedure: str | None = None) -> tuple[str, ...] | None:
    """The phases an event of ``kind`` (a ruling of ``procedure``) belongs to; None: every phase."""
    if kind == "RulingRecorded":
        return PROCEDURE_PHASES.get(procedure or "")
    return PHASES_OF.get(kind)


def refusals(ruleset: str, turn: int, closed: tuple[str, ...], kind: str, procedure: str | None = None,
             named: str | None = None) -> list[str]:
    """What the sequence of play says against an event of ``kind`` (a ruling of ``procedure``; ``named``: the
    phase its context names) in ``turn`` whose phases ``closed`` are closed; [] when it fits."""
    if ruleset not in CHECKED:
        return []
    current = next((p for p in PHASES if p not in closed), None)
    where = f"turn {turn} is in its {current} phase" if current else f"every phase of turn {turn} is closed"
    if kind == "TurnClosed":
        left = [p for p in PHASES if p not in closed]
        return [f"turn {turn} closes after its eight phases, and {_phases(left)} "
                f"{'is' if len(left) == 1 else 'are'} still open: close them in order first"] if left else []
    out = []
    if named in PHASES:
        if named in closed:
            out.append(f"the {named} phase of turn {turn} is closed: nothing more is recorded in it ({where})")
        elif named != current:
            out.append(f"the {named} phase of turn {turn} has not begun: {where}")
    phases = allowed(kind, procedure)
    if phases is not None and current not in phases:
        what = f"a ruling of {procedure}" if kind == "RulingRecorded" else WHAT.get(kind, kind)
        belongs = f"{what} belongs to the {_phases(phases)} phase{'s' if len(phases) > 1 else ''}"
        first = min(PHASES.index(p) for p in phases)
        if current is not None and PHASES.index(current) < first:
            out.append(f"{belongs}, and {where}: close {_phases(PHASES[PHASES.index(current):first])} first")
        else:
            out.append(f"{belongs}, over in turn {turn} ({where})")
    return out


def check(d: Any, command: Any) -> None:
    """Refuse ``command`` when the sequence of play does (``OutOfSequence``, naming the rule), unless the game
    master keeps it with a reason: then the event's context records the reason and what was refused."""
    from ledger.domain.errors import Forbidden, InvalidInput, OutOfSequence

    name = type(command).__name__
    context = getattr(command, "context", None)
    reason = getattr(context, KEEP, None) if context is not None else getattr(command, KEEP, None)
    field = f"context.{KEEP}" if context is not None else KEEP
    if reason is not None and d.actor.role == "player":
        raise Forbidden("only a game master keeps a command the sequence of play refuses", field=field,
                        rule="access.out_of_sequence")
    state = d.state
    kind = EVENT_OF.get(name)
    found: list[str] = []
    if state.turn_open:  # a command of no listed phase is still checked against the phase its context names
        found = refusals(state.ruleset, state.turn, state.phases_closed, kind or name,
                         getattr(command, "procedure", None), getattr(context, "phase", None))
    if not found:
        if reason is not None:
            raise InvalidInput("the sequence of play refuses nothing here: no reason to keep it is needed",
                               field=field, rule=RULE)
        return
    if reason is None:
        keep = "" if d.actor.role == "player" else f" (a game master may keep it with {field} and a reason)"
        raise OutOfSequence(f"sequence of play (TABLES.md): {found[0]}{keep}", field=field, rule=RULE)
    d.context[KEEP] = {"reason": reason, "refused": found}


# ----------------------------------------------------------------- moves at peace


def not_at_war(state: Any, scenario: dict[str, Any], military: dict[str, Any], stack: str, path: list[str],
               fields: list[str]) -> list[tuple[str, str]]:
    """(field, message) for each province the move enters (after its origin) that a country holds which the
    mover's country is not at war with (the holder as the board checks of rulings read it: the scenario's
    controller, else its owner, else the board's printed owner). Its own country's provinces and sea zones are
    entered freely."""
    from ledger.board_facts import At

    mover = ((military.get("forces") or {}).get(stack) or {}).get("country")
    if not mover or state.ruleset not in CHECKED:
        return []
    at = At.of(state, scenario, {}, {})
    at = At(board=at.board, scenario=at.scenario, where=None, roles={}, stacks={}, forces={}, fortresses={},
            inputs={}, wars=tuple((tuple(a), tuple(b)) for a, b in military.get("wars") or ()))
    seas = {z["name"] for z in scenario.get("sea_zones") or ()}
    out = []
    for i, place in enumerate(path[1:]):
        holder = None if place in seas else at.holder(place)
        if holder and holder != mover and not at.at_war(mover, holder):
            wars = "; ".join(f"{', '.join(a)} against {', '.join(b)}" for a, b in at.wars) or "none"
            out.append((fields[i], f"step {i + 1}: {place} is held by {holder}, and no war between {mover} and "
                                   f"{holder} is declared on the map (wars in progress: {wars}): a stack enters "
                                   "its own country's provinces and those of a country it is at war with "
                                   "(rule M9, eu-military-rules.tex §Movement)"))
    return out


# ----------------------------------------------------------------- the audit


def audit(ledger: Any, cid: Any) -> list[dict[str, Any]]:
    """Every recorded event the sequence of play (or a move's war check) refuses at its position, with the game
    master's reason when one kept it: {position, type, refused, kept} (``ledger recompute``). One read of the
    history, the write-side state folded along it."""
    from ledger.domain.campaign import project_campaign

    scenario = ledger.scenario(cid) or {}
    state = None
    out = []
    for e in ledger.history(cid):
        before, state = state, project_campaign(state, [e])
        kind = type(e).__name__
        context = e.context or {}
        if before is None or not before.turn_open or (kind not in PHASES_OF and kind not in (
                "RulingRecorded", "TurnClosed") and context.get("phase") not in PHASES):
            continue
        found = refusals(before.ruleset, before.turn, before.phases_closed, kind, getattr(e, "procedure", None),
                         context.get("phase"))
        kept = (context.get(KEEP) or {}).get("reason")
        forced = (getattr(e, "forced", None) or {}).get("reason") if kind == "StackMoved" else None
        if kind == "StackMoved" and scenario:
            path = list(e.path or [e.origin, e.destination])
            wars = not_at_war(before, scenario, before.military or {}, e.stack, path, path[1:])
            found += [m for _, m in wars]
        if found:
            out.append({"position": e.originator_version, "type": kind, "refused": found, "kept": kept or forced})
    return out
