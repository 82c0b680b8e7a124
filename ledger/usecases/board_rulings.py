"""Rulings checked against the board and the map state when they are recorded (the table and the facts:
ledger/board_facts.py, which says what is checked and how).

A disagreement the game master did not override is refused naming the input; one kept with a reason is
recorded in the ruling (``overridden``); an input left out that the board knows is filled (``from_board``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ledger import board_facts
from ledger.board import BoardError
from ledger.domain import commands as cmd
from ledger.domain import sight
from ledger.domain.errors import ContradictsBoard, Forbidden, InvalidInput
from ledger.rules.explain import plain

if TYPE_CHECKING:
    from ledger.draft import Draft

#: Who may keep a ruling the board or the map contradicts: a player never does.
GAME_MASTERS = frozenset({"gm", "admin", "system"})


def check(d: Draft, c: cmd.RecordRuling, ruleset: str, inputs: Any
          ) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """(the inputs with what the board filled, the overridden disagreements, the filled {field: value});
    raises on a disagreement the game master did not override, naming the input."""
    return check_at(d, as_seen(d, d.state), ruleset, c.procedure, c.context.as_dict(), dict(c.overrides or {}),
                    inputs)


def as_seen(d: Draft, state: Any) -> Any:
    """``state`` with the map as the caller sees it (ledger/domain/sight.py): a player's ruling is checked, its
    stacks named and its inputs filled, against what they may see; a stack hidden from them is one the map
    does not have. The game master's is the state itself."""
    stacks, military = sight.seen(state, d.actor)
    if stacks is state.stacks and military is state.military:
        return state
    return replace(state, stacks=stacks, military=military)


def check_again(d: Draft, root: Any, recorded: dict[str, Any], overrides: dict[str, str] | None, inputs: Any
                ) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """A ruling resolved again (``ReworkRuling``) checked like a new one, against the map as it stood just
    before the ruling (``Ledger.state_at``: the state now already holds the ruling's own losses). An input the
    game master kept against the board when the ruling was recorded stays kept with its reason while it is
    typed the same; the ruling's place and stacks are as recorded (a name the map no longer has checks nothing)."""
    before = d.ledger.state_at(d.state.id, root.originator_version - 1)
    if before is None:
        return inputs, [], {}
    kept = {o["field"]: o for o in recorded.get("overridden") or ()}
    return check_at(d, as_seen(d, before), root.ruleset, root.procedure, root.context, dict(overrides or {}), inputs,
                    prefix="replacement.", kept=kept)


def check_at(d: Draft, state: Any, ruleset: str, procedure: str, context: dict[str, Any], overrides: dict[str, str],
             inputs: Any, prefix: str = "", kept: dict[str, dict[str, Any]] | None = None
             ) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    if overrides and d.actor.role not in GAME_MASTERS:
        raise Forbidden("only a game master keeps a ruling the board or the map contradicts (overrides)",
                        field=f"{prefix}overrides.{sorted(overrides)[0]}")
    _minor_played(state, ruleset, procedure, inputs, prefix)
    if not isinstance(inputs, dict) or not board_facts.checked(ruleset, procedure):
        found, filled = [], {}
    else:
        at = board_facts.At.of(state, d.ledger.scenario(state.id), context, inputs)
        if kept is None:
            _known_names(at)
        found, inputs, filled = board_facts.compare(at, ruleset, procedure)
    overridden, refused = [], []
    for f in found:
        before = (kept or {}).get(f["field"])
        reason = overrides.pop(f["field"], None)
        if reason is None and before is not None and before["typed"] == f["typed"]:
            reason = before["reason"]  # kept when recorded, typed the same again
        if reason is None:
            refused.append(f)
        else:
            overridden.append({"field": f["field"], "typed": f["typed"], "board": f["board"], "reason": reason})
    if refused:
        f, more = refused[0], [r["field"] for r in refused[1:]]
        also = f"; also {', '.join(more)}" if more else ""
        typed = repr(f["typed"]) if isinstance(f["typed"], str) else plain(f["typed"])
        message = f.get("message") or (f"{f['field']}: typed {typed}, but the {f['source']} says {f['said']} "
                                       f"(keep it with overrides.{f['field']} and a reason)")
        raise ContradictsBoard(message[:-1] + f"{also})" if also and message.endswith(")") else message + also,
                               field=f"{prefix}{f.get('path') or 'inputs.' + f['field']}",
                               rule=f"{ruleset}:{procedure}", keep=f["field"])
    if overrides:  # an override of nothing is a mistake worth saying, not a silent no-op
        raise InvalidInput(f"nothing on the board or the map contradicts {', '.join(sorted(overrides))}: "
                           "no override needed", field=f"{prefix}overrides.{sorted(overrides)[0]}")
    return inputs, overridden, filled


def _minor_played(state: Any, ruleset: str, procedure: str, inputs: Any, prefix: str) -> None:
    """A minor input naming a country a player plays in this campaign is refused: there it is a major power."""
    name = board_facts.MINOR_INPUTS.get((ruleset, procedure))
    players = getattr(state, "players", None) or {}
    if name is None or not players or not isinstance(inputs, dict) or not isinstance(inputs.get(name), str):
        return
    from pydantic import TypeAdapter, ValidationError

    from ledger.rules.core import get_ruleset

    proc = get_ruleset(ruleset).get(procedure)
    try:
        value = TypeAdapter(proc.inputs.model_fields[name].rebuild_annotation()).validate_python(inputs[name])
    except ValidationError:
        return  # the resolver's validation says why, naming the field
    aliases = proc.input_schema()["properties"][name].get("x-aliases", {}).get(value, [])
    code = next((c for c in (value, *aliases) if c in players), None)
    if code is not None:
        raise InvalidInput(f"{name}: {value} ({code}) is played by {players[code]} in this campaign: a major power "
                           "here, not a minor (a peace between players is P4)",
                           field=f"{prefix}inputs.{name}", rule=f"{ruleset}:{procedure}")


def _known_names(at: board_facts.At) -> None:
    """A place or a stack the board and the map do not have is an error naming it, never a check skipped."""
    if at.board is not None and at.where is not None and at.where not in at.board.places:
        try:
            at.board.province(at.where)  # its message lists the close names
        except BoardError as e:
            raise InvalidInput(e.message.replace("no province", "no place"), field="context.where") from None
    if at.scenario:
        for role, sid in at.roles.items():
            if sid not in at.forces:
                known = ", ".join(sorted(at.forces)) or "none"
                raise InvalidInput(f"no stack {sid!r} on the map (stacks: {known})", field=f"context.stacks.{role}")
