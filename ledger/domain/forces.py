"""The write side's one model of the forces on the map (``CampaignState.military``): what the map commands
(ledger/usecases/map.py) and the board checks of rulings (ledger/board_facts.py) both read, so a split, a
merge, a units change or a ruling's losses are seen by both.

    {"forces": stack -> {"country", "units": {unit: n}, "leaders": [{name, kind, fire, shock, manoeuvre, siege}]},
     "wars": [[attackers], [defenders]] (sorted), "sieges": province -> [besieging stacks],
     "fortresses": province -> level, where a FortressChanged or a ruling's ``fortress_level_changed`` set it}

A few values per stack, never a history read. It starts from ``ScenarioImported`` and follows the map
commands' events and the effects of recorded rulings the way the map view does (projections/map.py):
``ld_lost``/``nd_lost``/``ntd_lost`` on a stack (its id, or a role the ruling's ``context.stacks`` maps to
one), ``leader_killed``/``leader_captured``, ``fortress_level_changed`` (target, else ``context.where``).
Corrections are not followed here (the map view follows them): a game master restates the write side with
a new command (a change of units, a siege ended, a fortress level) or keeps a stale figure with an override.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from ledger.domain import events as ev

#: A ruling's effects that change a stack's units (the map view applies the same ones).
LOSSES = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}
LEADER_VALUES = ("fire", "shock", "manoeuvre", "siege")
#: The events this fold follows.
FOLLOWED = (ev.ScenarioImported, ev.StackRaised, ev.StackSplit, ev.StacksMerged, ev.StackChanged,
            ev.FortressChanged, ev.WarDeclared, ev.PeaceMade, ev.SiegeStarted, ev.SiegeEnded, ev.ControlChanged,
            ev.RulingRecorded)


def empty() -> dict[str, Any]:
    return {"forces": {}, "wars": [], "sieges": {}, "fortresses": {}}


def unit_count(value: Any) -> Fraction:
    """A stack's count of a unit (an int, or "a/b" after a ruling took half a unit)."""
    return Fraction(str(value)) if value is not None else Fraction(0)


def _plain(value: Fraction) -> int | str:
    """A count as stored: an int, or "a/b" for the half units a ruling may take."""
    return int(value) if value.denominator == 1 else str(value)


def war_key(attackers: Iterable[str], defenders: Iterable[str]) -> list[list[str]]:
    """A war as the state keeps it: its two sides, sorted."""
    return [sorted(attackers), sorted(defenders)]


def leader(counter: dict[str, Any]) -> dict[str, Any]:
    """A leader as the state keeps it: the name, the kind and the values printed on the counter."""
    return {"name": counter["name"], "kind": counter.get("kind") or "general",
            **{k: counter.get(k) or 0 for k in LEADER_VALUES}}


def names(force: dict[str, Any]) -> list[str]:
    """The names of a stack's leaders."""
    return [x["name"] for x in force["leaders"]]


def apply(m: dict[str, Any], event: Any) -> dict[str, Any]:
    """The forces, wars, sieges and fortress levels after ``event``."""
    forces, wars, sieges, fortresses = m["forces"], m["wars"], m["sieges"], m.get("fortresses") or {}
    if isinstance(event, ev.ScenarioImported):
        s = event.scenario
        forces = {st["id"]: {"country": st["country"], "units": dict(st.get("units") or {}),
                             "leaders": [leader(x) for x in st.get("leaders") or ()]} for st in s.get("stacks", ())}
        return {"forces": forces, "wars": [war_key(a, d) for a, d in s.get("wars") or ()], "sieges": {},
                "fortresses": {}}
    if isinstance(event, ev.RulingRecorded):
        forces, fortresses = _ruling_effects(forces, fortresses, event)
    elif isinstance(event, ev.StackRaised):
        forces = {**forces, event.stack: {"country": event.country, "units": dict(event.units),
                                          "leaders": [leader(x) for x in event.leaders]}}
    elif isinstance(event, ev.StackSplit):
        old = forces[event.stack]
        left = {u: _plain(unit_count(n) - event.units.get(u, 0)) for u, n in old["units"].items()
                if unit_count(n) - event.units.get(u, 0) > 0}
        forces = {**forces, event.stack: {**old, "units": left,
                                          "leaders": [x for x in old["leaders"] if x["name"] not in event.leaders]},
                  event.new_stack: {"country": event.country, "units": dict(event.units),
                                    "leaders": [x for x in old["leaders"] if x["name"] in event.leaders]}}
    elif isinstance(event, ev.StacksMerged):
        kept, gone = forces[event.stack], forces[event.merged]
        units = dict(kept["units"])
        for u, n in gone["units"].items():
            units[u] = _plain(unit_count(units.get(u, 0)) + unit_count(n))
        forces = {k: v for k, v in forces.items() if k != event.merged}
        forces[event.stack] = {**kept, "units": units, "leaders": [*kept["leaders"], *gone["leaders"]]}
        sieges = {p: sorted({event.stack if b == event.merged else b for b in bs}) for p, bs in sieges.items()}
    elif isinstance(event, ev.StackChanged):
        old = forces[event.stack]
        units = dict(old["units"])
        for u, n in event.units.items():
            units[u] = _plain(max(unit_count(units.get(u, 0)) + n, Fraction(0)))
        leaders = [x for x in old["leaders"] if x["name"] not in event.departed] + [leader(a) for a in event.arrived]
        forces = {**forces, event.stack: {**old, "units": {u: n for u, n in units.items() if n}, "leaders": leaders}}
    elif isinstance(event, ev.FortressChanged):
        fortresses = {**fortresses, event.province: event.level}
    elif isinstance(event, ev.WarDeclared):
        wars = [*wars, war_key(event.attackers, event.defenders)]
    elif isinstance(event, ev.PeaceMade):
        key = war_key(event.attackers, event.defenders)
        wars = [w for w in wars if w != key]
    elif isinstance(event, ev.SiegeStarted):
        sieges = {**sieges, event.province: sorted(event.besiegers)}
    elif isinstance(event, (ev.SiegeEnded, ev.ControlChanged)):  # a change of control ends a siege (as on the map)
        sieges = {p: b for p, b in sieges.items() if p != event.province}
    else:
        return m
    return {"forces": forces, "wars": wars, "sieges": sieges, "fortresses": fortresses}


def _ruling_effects(forces: dict[str, Any], fortresses: dict[str, int], event: Any
                    ) -> tuple[dict[str, Any], dict[str, int]]:
    """Units lost, leaders killed or captured and fortress levels changed by a ruling's effects, its roles
    mapped to stacks by its context (``context.stacks``); an effect naming no stack of the map changes nothing."""
    context = event.context or {}
    roles = context.get("stacks") or {}
    changed = dict(forces)
    for e in (event.ruling or {}).get("effects") or ():
        kind, target = e.get("kind"), e.get("target")
        stack = target if target in changed else roles.get(target or "")
        if kind in LOSSES and stack in changed:
            units = dict(changed[stack]["units"])
            unit = LOSSES[kind]
            units[unit] = _plain(max(unit_count(units.get(unit, 0)) - unit_count(e.get("amount")), Fraction(0)))
            changed[stack] = {**changed[stack], "units": units}
        elif kind in ("leader_killed", "leader_captured"):
            # A leader by name; a side (combat names "attacker") is its stack's leader when it has only one.
            on = changed.get(stack or "") or {}
            gone = on["leaders"][0]["name"] if len(on.get("leaders") or ()) == 1 else target
            changed = {s: {**f, "leaders": [x for x in f["leaders"] if x["name"] != gone]}
                       if any(x["name"] == gone for x in f["leaders"]) else f for s, f in changed.items()}
        elif kind == "fortress_level_changed":
            place = target or context.get("where")
            level = (e.get("detail") or {}).get("new_level")
            if isinstance(place, str) and isinstance(level, int) and not isinstance(level, bool):
                fortresses = {**fortresses, place: level}
    return changed, fortresses
