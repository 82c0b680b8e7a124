"""Game-master commands that change the map: a stack moves, control changes, a marker is placed or removed,
a war is declared.

Each is one event appended through ``Ledger.execute``. Names are checked
against the campaign's scenario (provinces, sea zones, stacks and countries
are fixed by it), so a typo is a 422 naming the field and nothing is appended.
Where a stack is *now* is the map view's business, not the write side's: the
``origin`` of a move is what the game master read on the map, recorded as such.
"""

from __future__ import annotations

import weakref
from typing import Any
from uuid import UUID

from ledger.application import SYSTEM, Actor, Appended, Draft, Ledger
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict

MARKERS = ("Pillage+", "Pillage-", "Revolt", "Revolt+", "Siegework", "Siegework+", "Foraging", "Unrest")

_SCENARIOS: weakref.WeakKeyDictionary[Ledger, dict[UUID, dict[str, Any]]] = weakref.WeakKeyDictionary()


def scenario_of(ledger: Ledger, cid: UUID) -> dict[str, Any]:
    """The campaign's imported scenario (position 2), cached: it never changes."""
    cache = _SCENARIOS.setdefault(ledger, {})
    if cid not in cache:
        found = ledger.history(cid, after=1, limit=1)
        if not found or not isinstance(found[0], ev.ScenarioImported):
            raise StateConflict("this campaign was not set up from a scenario: the map is unknown", field="campaign")
        cache[cid] = found[0].scenario
    return cache[cid]


def _places(s: dict[str, Any]) -> set[str]:
    return {p["name"] for p in s["provinces"]} | {z["name"] for z in s["sea_zones"]}


def _require(value: str, known: set[str], what: str, field: str) -> str:
    if not isinstance(value, str) or value not in known:
        raise InvalidInput(f"unknown {what} {value!r}", field=field)
    return value


def _reason(reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 500:
        raise InvalidInput("reason: 1 to 500 characters", field="reason")
    return reason.strip()


def _run(ledger: Ledger, cid: UUID, actor: Actor, cls: type[ev.LedgerEvent], payload: dict[str, Any],
         vis: dict[str, Any] | None, context: dict[str, Any] | None, key: str | None) -> Appended:
    def command(d: Draft) -> dict[str, Any]:
        d.state.require_open_turn()
        d.add(cls, vis, **payload)
        return {}

    return ledger.execute(cid, actor, command, context=context, idempotency_key=key,
                          request={"type": cls.__name__, **payload, "visibility": vis, "context": context})


def move_stack(ledger: Ledger, cid: UUID, *, stack: str, origin: str, destination: str, reason: str = "movement",
               actor: Actor = SYSTEM, vis: dict[str, Any] | None = None, context: dict[str, Any] | None = None,
               idempotency_key: str | None = None) -> Appended:
    s = scenario_of(ledger, cid)
    _require(stack, {st["id"] for st in s["stacks"]}, "stack", "stack")
    places = _places(s)
    _require(origin, places, "province or sea zone", "origin")
    _require(destination, places, "province or sea zone", "destination")
    if origin == destination:
        raise InvalidInput("a move goes somewhere else", field="destination")
    return _run(ledger, cid, actor, ev.StackMoved, {"stack": stack, "origin": origin, "destination": destination,
                "reason": _reason(reason)}, vis, context, idempotency_key)


def change_control(ledger: Ledger, cid: UUID, *, province: str, controller: str, previous: str | None = None,
                   reason: str = "control", actor: Actor = SYSTEM, vis: dict[str, Any] | None = None,
                   context: dict[str, Any] | None = None, idempotency_key: str | None = None) -> Appended:
    s = scenario_of(ledger, cid)
    _require(province, {p["name"] for p in s["provinces"]}, "province", "province")
    countries = {c["code"] for c in s["countries"]}
    _require(controller, countries, "country", "controller")
    if previous is not None:
        _require(previous, countries, "country", "previous")
    return _run(ledger, cid, actor, ev.ControlChanged, {"province": province, "controller": controller,
                "previous": previous, "reason": _reason(reason)}, vis, context, idempotency_key)


def place_marker(ledger: Ledger, cid: UUID, *, province: str, marker: str, reason: str = "marker",
                 actor: Actor = SYSTEM, vis: dict[str, Any] | None = None, context: dict[str, Any] | None = None,
                 idempotency_key: str | None = None) -> Appended:
    s = scenario_of(ledger, cid)
    _require(province, _places(s), "province or sea zone", "province")
    _require(marker, set(MARKERS), "marker", "marker")
    return _run(ledger, cid, actor, ev.MarkerPlaced, {"province": province, "marker": marker,
                "reason": _reason(reason)}, vis, context, idempotency_key)


def remove_marker(ledger: Ledger, cid: UUID, *, province: str, marker: str, reason: str = "marker",
                  actor: Actor = SYSTEM, vis: dict[str, Any] | None = None, context: dict[str, Any] | None = None,
                  idempotency_key: str | None = None) -> Appended:
    s = scenario_of(ledger, cid)
    _require(province, _places(s), "province or sea zone", "province")
    _require(marker, set(MARKERS), "marker", "marker")
    return _run(ledger, cid, actor, ev.MarkerRemoved, {"province": province, "marker": marker,
                "reason": _reason(reason)}, vis, context, idempotency_key)


def declare_war(ledger: Ledger, cid: UUID, *, attackers: list[str], defenders: list[str], reason: str = "war",
                actor: Actor = SYSTEM, context: dict[str, Any] | None = None,
                idempotency_key: str | None = None) -> Appended:
    s = scenario_of(ledger, cid)
    countries = {c["code"] for c in s["countries"]}
    for name, side in (("attackers", attackers), ("defenders", defenders)):
        if not side:
            raise InvalidInput("each side of a war names at least one country", field=name)
        for c in side:
            _require(c, countries, "country", name)
    if set(attackers) & set(defenders):
        raise InvalidInput("a country cannot fight itself", field="defenders")
    return _run(ledger, cid, actor, ev.WarDeclared, {"attackers": sorted(attackers), "defenders": sorted(defenders),
                "reason": _reason(reason)}, None, context, idempotency_key)
