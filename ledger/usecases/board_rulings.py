"""Rulings checked against the board: a typed input the printed board contradicts is refused.

For now M19 (land battle, eu): the ``terrain`` input against the printed terrain
of the battle's province (``context.where``), when the campaign's scenario names
a board. The board says "dense forest" or "sparse forest"; M19 asks which forest
(eastern, western, northern: its modifiers differ), which the board does not
say, so any forest fits a forest and only a different kind of ground is refused.
The game master may keep a contradicted value with a reason
(``RecordRuling.overrides = {"terrain": "why"}``); the ruling records
``overridden: [{field, typed, board, reason}]``. Not checked: the ``crossing``
(river or pass) of M19, which depends on where the attacker came from and
whether it was intercepted, and M9's ``crossing``, whose entries name no
provinces (left to the game master; see DECISIONS.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.board import load_board
from ledger.domain import commands as cmd
from ledger.domain.errors import InvalidInput

if TYPE_CHECKING:
    from ledger.application import Draft


def _kind(terrain: str) -> str:
    return "forest" if terrain.endswith("forest") else terrain


def check(d: Draft, c: cmd.RecordRuling, ruleset: str, inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """The overridden contradictions (empty when the inputs agree with the board); raises on the others."""
    overrides = dict(c.overrides or {})
    found: list[dict[str, Any]] = []
    where = c.context.where
    if ruleset == "eu" and c.procedure == "M19" and where and isinstance(inputs.get("terrain"), str):
        s = d.ledger.scenario(d.state.id) or {}
        if s.get("board"):
            board = load_board(s["board"])
            place = board.provinces.get(where) or board.rotw.get(where)
            typed = inputs["terrain"]
            if place is not None and _kind(typed) != _kind(place.terrain):
                reason = overrides.pop("terrain", None)
                if reason is None:
                    raise InvalidInput(f"terrain {typed!r} contradicts the board: {where} is {place.terrain} "
                                       "(keep it with overrides.terrain and a reason)", field="inputs.terrain",
                                       rule="eu:M19")
                found.append({"field": "terrain", "typed": typed, "board": place.terrain, "reason": reason})
    if overrides:  # an override of nothing is a mistake worth saying, not a silent no-op
        raise InvalidInput(f"nothing on the board contradicts {', '.join(sorted(overrides))}: no override needed",
                           field=f"overrides.{sorted(overrides)[0]}")
    return found
