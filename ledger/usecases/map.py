"""Game-master commands that change the map: a stack moves, control changes, a marker is placed or removed,
a war is declared.

Names are checked against the campaign's scenario (provinces, sea zones,
stacks and countries are fixed by it), so a typo is a 422 naming the field and
nothing is appended.

A move is checked step by step: against the board's borders when the scenario
names a board (ledger/board.py), else against the scenario's own adjacency (a
scenario that declares none leaves steps unchecked: its map is unknown). A
fleet (a stack of naval units only) sails between sea zones and coastal
provinces, never overland. The origin must be where the write-side state says
the stack is (``CampaignState.stacks``: a few strings per stack, never a
history read). A game master may force a refused move with ``forced_reason``:
the event records it as forced, with what the checks said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.board import load_board
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.application import Draft


def scenario(d: Draft) -> dict[str, Any]:
    """The campaign's imported scenario (position 2), cached by the ledger: it never changes."""
    found = d.ledger.scenario(d.state.id)
    if found is None:
        raise StateConflict("this campaign was not set up from a scenario: the map is unknown", field="campaign")
    return found


def _require(value: str, known: set[str], what: str, field: str) -> None:
    if value not in known:
        raise InvalidInput(f"unknown {what} {value!r}", field=field)


def _places(s: dict[str, Any]) -> set[str]:
    return {p["name"] for p in s["provinces"]} | {z["name"] for z in s["sea_zones"]}


def _countries(s: dict[str, Any]) -> set[str]:
    return {c["code"] for c in s["countries"]}


def _payload(c: cmd.Command) -> dict[str, Any]:
    return c.model_dump(exclude={"visibility", "context"})


NAVAL_UNITS = frozenset({"ND", "NTD", "NGD", "NDE", "FLT"})


def _step_field(i: int, c: cmd.MoveStack) -> str:
    """The field naming the place a step arrives at (step ``i`` goes from path[i] to path[i + 1])."""
    return "destination" if i == len(c.via) else f"via[{i}]"


def _step_refusals(s: dict[str, Any], c: cmd.MoveStack, naval: bool) -> list[tuple[str, str]]:
    path = c.path()
    seas = {z["name"] for z in s["sea_zones"]}
    if s.get("board"):
        board = load_board(s["board"])
        border = lambda a, b: board.border(a, b) is not None  # noqa: E731
        source = f"board {s['board']!r}"
    elif s["adjacency"]:
        pairs = {frozenset(p) for p in s["adjacency"]}
        border = lambda a, b: frozenset((a, b)) in pairs  # noqa: E731
        source = "the scenario's adjacency"
    else:
        border, source = None, ""
    refused = []
    for i, (a, b) in enumerate(zip(path, path[1:])):
        where = f"step {i + 1}, {a} → {b}"
        if a == b:
            refused.append((_step_field(i, c), f"{where}: the stack stays where it is"))
        elif border is not None and not border(a, b):
            refused.append((_step_field(i, c), f"{where}: {a} and {b} share no border on {source}"))
        elif naval and a not in seas and b not in seas:
            refused.append((_step_field(i, c), f"{where}: a fleet sails between sea zones and coastal provinces, "
                                               "never overland"))
    return refused


@handles(cmd.MoveStack)
def move_stack(d: Draft, c: cmd.MoveStack) -> dict[str, Any]:
    s = scenario(d)
    stacks = d.state.stacks or {}
    _require(c.stack, set(stacks), "stack", "stack")
    places = _places(s)
    _require(c.origin, places, "province or sea zone", "origin")
    for i, place in enumerate(c.via):
        _require(place, places, "province or sea zone", f"via[{i}]")
    _require(c.destination, places, "province or sea zone", "destination")
    d.state.require_open_turn()
    units = next((st["units"] for st in s["stacks"] if st["id"] == c.stack), {})
    naval = bool(units) and set(units) <= NAVAL_UNITS
    refused = []
    at = stacks[c.stack][0]
    if at != c.origin:
        refused.append(("origin", f"{c.stack} is in {at}, not in {c.origin}"))
    refused += _step_refusals(s, c, naval)
    if refused and c.forced_reason is None:
        fld, message = refused[0]
        error = StateConflict if fld == "origin" else InvalidInput
        raise error(f"{message} (a game master may force the move with a forced_reason)", field=fld)
    forced = {"reason": c.forced_reason, "refused": [m for _, m in refused]} if c.forced_reason else None
    d.add(ev.StackMoved, c.visibility.as_dict(), stack=c.stack, origin=c.origin, destination=c.destination,
          reason=c.reason, path=c.path(), forced=forced)
    return {"path": c.path(), "forced": forced}


@handles(cmd.ChangeControl)
def change_control(d: Draft, c: cmd.ChangeControl) -> dict[str, Any]:
    return _province_holder(d, c, "controller", c.controller, ev.ControlChanged)


@handles(cmd.ChangeOwner)
def change_owner(d: Draft, c: cmd.ChangeOwner) -> dict[str, Any]:
    return _province_holder(d, c, "owner", c.owner, ev.OwnerChanged)


def _province_holder(d: Draft, c: cmd.ChangeControl | cmd.ChangeOwner, field: str, holder: str,
                     kind: type[ev.LedgerEvent]) -> dict[str, Any]:
    """A province passes to another country, as its controller or its owner: both names checked."""
    s = scenario(d)
    _require(c.province, {p["name"] for p in s["provinces"]}, "province", "province")
    _require(holder, _countries(s), "country", field)
    if c.previous is not None:
        _require(c.previous, _countries(s), "country", "previous")
    d.state.require_open_turn()
    d.add(kind, c.visibility.as_dict(), **_payload(c))
    return {}


@handles(cmd.PlaceMarker)
def place_marker(d: Draft, c: cmd.PlaceMarker) -> dict[str, Any]:
    return _marker(d, c, ev.MarkerPlaced)


@handles(cmd.RemoveMarker)
def remove_marker(d: Draft, c: cmd.RemoveMarker) -> dict[str, Any]:
    return _marker(d, c, ev.MarkerRemoved)


def _marker(d: Draft, c: cmd.PlaceMarker | cmd.RemoveMarker, kind: type[ev.LedgerEvent]) -> dict[str, Any]:
    _require(c.province, _places(scenario(d)), "province or sea zone", "province")
    d.state.require_open_turn()
    d.add(kind, c.visibility.as_dict(), **_payload(c))
    return {}


@handles(cmd.DeclareWar)
def declare_war(d: Draft, c: cmd.DeclareWar) -> dict[str, Any]:
    countries = _countries(scenario(d))
    for name, side in (("attackers", c.attackers), ("defenders", c.defenders)):
        for country in side:
            _require(country, countries, "country", name)
    d.state.require_open_turn()
    d.add(ev.WarDeclared, attackers=sorted(c.attackers), defenders=sorted(c.defenders), reason=c.reason)
    return {}


def check_names(d: Draft, kind: str, fields: dict[str, Any], prefix: str = "") -> None:
    """The names a correction restates of a ``kind`` event, checked as the commands above check theirs (a 422
    naming ``prefix + field``): a what-if or a correction to a place the campaign's scenario lacks is refused."""
    s = scenario(d) if set(fields) & _NAMED else {}
    for name, value in fields.items():
        listed = [(f"{name}[{i}]", v) for i, v in enumerate(value)] if isinstance(value, list) else [(name, value)]
        if name == "country":  # a treasury entry's country: one of the campaign's
            d.state.require_country(value, prefix + name)
        elif name == "stack":
            _require(value, {st["id"] for st in s["stacks"]}, "stack", prefix + name)
        elif name == "province" and kind in ("ControlChanged", "OwnerChanged"):  # held by a country: land only
            _require(value, {p["name"] for p in s["provinces"]}, "province", prefix + name)
        elif name in ("origin", "destination", "path", "province"):
            for fld, place in listed:
                _require(place, _places(s), "province or sea zone", prefix + fld)
        elif name in _NAMED:  # controller, owner, previous, attackers, defenders
            for fld, country in listed:
                _require(country, _countries(s), "country", prefix + fld)


_NAMED = frozenset({"stack", "origin", "destination", "path", "province", "controller", "owner", "previous",
                    "attackers", "defenders"})
