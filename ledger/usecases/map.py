"""Game-master commands that change the map: a stack moves, control changes, a marker is placed or removed,
a war is declared.

Names are checked against the campaign's scenario (provinces, sea zones,
stacks and countries are fixed by it), so a typo is a 422 naming the field and
nothing is appended. Where a stack is *now* is the map view's business, not
the write side's: the ``origin`` of a move is what the game master read on the
map, recorded as such.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


@handles(cmd.MoveStack)
def move_stack(d: Draft, c: cmd.MoveStack) -> dict[str, Any]:
    s = scenario(d)
    _require(c.stack, {st["id"] for st in s["stacks"]}, "stack", "stack")
    places = _places(s)
    _require(c.origin, places, "province or sea zone", "origin")
    _require(c.destination, places, "province or sea zone", "destination")
    d.state.require_open_turn()
    d.add(ev.StackMoved, c.visibility.as_dict(), **_payload(c))
    return {}


@handles(cmd.ChangeControl)
def change_control(d: Draft, c: cmd.ChangeControl) -> dict[str, Any]:
    s = scenario(d)
    _require(c.province, {p["name"] for p in s["provinces"]}, "province", "province")
    _require(c.controller, _countries(s), "country", "controller")
    if c.previous is not None:
        _require(c.previous, _countries(s), "country", "previous")
    d.state.require_open_turn()
    d.add(ev.ControlChanged, c.visibility.as_dict(), **_payload(c))
    return {}


@handles(cmd.PlaceMarker)
def place_marker(d: Draft, c: cmd.PlaceMarker) -> dict[str, Any]:
    _require(c.province, _places(scenario(d)), "province or sea zone", "province")
    d.state.require_open_turn()
    d.add(ev.MarkerPlaced, c.visibility.as_dict(), **_payload(c))
    return {}


@handles(cmd.RemoveMarker)
def remove_marker(d: Draft, c: cmd.RemoveMarker) -> dict[str, Any]:
    _require(c.province, _places(scenario(d)), "province or sea zone", "province")
    d.state.require_open_turn()
    d.add(ev.MarkerRemoved, c.visibility.as_dict(), **_payload(c))
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
