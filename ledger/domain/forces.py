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
A correction is followed when the event it corrects is still the latest that changed each stack, province
or the wars it changed ("touched": what -> position, "undo": position -> what it changed, as it was before,
and the event as recorded; one entry per thing at most, so the state stays a few values per stack): the
values before are put back and the event as the correction restates it (``corrections.replaced``; struck:
nothing) is applied again, as the map view does when it folds the history again. A correction of an older
change (something changed since), of a correction, or one whose restated event would change what changed
since, is not followed: the map view shows it; a game master restates the write side with a map command or
keeps a stale figure with an override.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from ledger.domain import events as ev
from ledger.domain.corrections import replaced

#: A ruling's effects that change a stack's units (the map view applies the same ones).
LOSSES = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}
LEADER_VALUES = ("fire", "shock", "manoeuvre", "siege")
#: The events this fold follows.
FOLLOWED = (ev.ScenarioImported, ev.StackRaised, ev.StackSplit, ev.StacksMerged, ev.StackChanged,
            ev.FortressChanged, ev.WarDeclared, ev.PeaceMade, ev.SiegeStarted, ev.SiegeEnded, ev.ControlChanged,
            ev.RulingRecorded, ev.CorrectionRecorded, ev.StackDisbanded, ev.LeaderValuesChanged)
#: The events a correction may restate whose change of the forces the fold can undo (the others that change
#: them, raised, split and merged stacks, are structural: ``cmd.REPLACEMENTS``).
UNDOABLE = ("StackChanged", "FortressChanged", "WarDeclared", "PeaceMade", "SiegeStarted", "SiegeEnded",
            "ControlChanged", "RulingRecorded", "StackDisbanded", "LeaderValuesChanged")
#: ``destroyed``: stack -> {"position" of the ruling or disbanding that took it off the map, "place" where it
#: was (``CampaignState.stacks``' entry, kept by ledger/domain/sight.py so a correction can put it back)}.
PARTS = ("forces", "fortresses", "sieges", "destroyed")


def empty() -> dict[str, Any]:
    return {"forces": {}, "wars": [], "sieges": {}, "fortresses": {}, "touched": {}, "undo": {}}


def current(m: Any) -> bool:
    """A state of this shape: one restored from a snapshot of an older one (leaders by name only, before
    corrections were followed) is folded again from the events instead."""
    return isinstance(m, dict) and "undo" in m and "touched" in m


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
    """The forces, wars, sieges and fortress levels after ``event`` (with what a correction of it needs)."""
    kind = type(event).__name__
    if kind == "CorrectionRecorded":
        return _corrected(m, event.corrects, event.replacement)
    after = _change(m, kind, event)
    if after is m:
        return m
    if kind == "ScenarioImported":
        return {**after, "touched": {}, "undo": {}}
    changed = _diff(m, after)
    record = None
    if kind in UNDOABLE:
        kept = {"context": event.context, "ruling": {"effects": (event.ruling or {}).get("effects")}} \
            if kind == "RulingRecorded" else event.payload()
        record = {"kind": kind, "event": kept, "before": {k: _get(m, k) for k in changed}}
    return _touch(after, m, changed, event.originator_version, record)


def _key(part: str, name: str) -> str:
    return f"{part}:{name}"


def _get(m: dict[str, Any], key: str) -> Any:
    """The value of one thing of the state: a stack's force, a fortress level, a siege, the wars (None: none)."""
    if key == "wars":
        return m["wars"]
    part, name = key.split(":", 1)
    return (m.get(part) or {}).get(name)


def _diff(m: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What ``after`` changed of ``m``."""
    found = [_key(p, n) for p in PARTS for n in {*(m.get(p) or {}), *(after.get(p) or {})}
             if (m.get(p) or {}).get(n) != (after.get(p) or {}).get(n)]
    return sorted(found) + (["wars"] if m["wars"] != after["wars"] else [])


def _touch(after: dict[str, Any], m: dict[str, Any], changed: list[str], position: int,
           record: dict[str, Any] | None) -> dict[str, Any]:
    """``changed`` last changed at ``position``: an undo entry of an earlier position that changed any of them
    can no longer be followed exactly and goes."""
    touched, undo = dict(m.get("touched") or {}), dict(m.get("undo") or {})
    for k in changed:
        old = touched.get(k)
        if old is not None and old != position:
            undo.pop(str(old), None)
        touched[k] = position
    if record is not None and changed:
        undo[str(position)] = record
    return {**after, "touched": touched, "undo": undo}


def _corrected(m: dict[str, Any], corrects: int, replacement: Any) -> dict[str, Any]:
    """A correction of the event at ``corrects``, when it can be followed exactly (see the module's text)."""
    record = (m.get("undo") or {}).get(str(corrects))
    if record is None:
        return m
    restored = dict(m)
    for key, value in record["before"].items():
        if key == "wars":
            restored["wars"] = value
            continue
        part, name = key.split(":", 1)
        values = dict(restored.get(part) or {})
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
        restored[part] = values
    standing = replaced(record["event"], replacement)
    after = restored if standing is None else _change(restored, record["kind"],
                                                                  SimpleNamespace(**{**standing, "originator_version": corrects}))
    changed = set(_diff(restored, after))
    touched = m.get("touched") or {}
    if any(touched.get(k, 0) > corrects for k in changed):  # it would change what changed since: not followed
        return m
    before = {**{k: _get(restored, k) for k in changed}, **record["before"]}
    return _touch(after, restored, sorted(before), corrects, {**record, "before": before})


def _change(m: dict[str, Any], kind: str, event: Any) -> dict[str, Any]:
    """The forces, wars, sieges and fortress levels after an event of type ``kind`` (or as a correction
    restates it: any object with the event's fields)."""
    forces, wars, sieges, fortresses = m["forces"], m["wars"], m["sieges"], m.get("fortresses") or {}
    if kind == "ScenarioImported":
        s = event.scenario
        forces = {st["id"]: {"country": st["country"], "units": dict(st.get("units") or {}),
                             "leaders": [leader(x) for x in st.get("leaders") or ()]} for st in s.get("stacks", ())}
        return {**m, "forces": forces, "wars": [war_key(a, d) for a, d in s.get("wars") or ()], "sieges": {},
                "fortresses": {}, "destroyed": {}}
    if kind == "RulingRecorded":
        forces, fortresses = _ruling_effects(forces, fortresses, event)
        return _off_map(m, forces, fortresses, _destroyed_by(m["forces"], event), event)
    if kind == "StackDisbanded":
        return _off_map(m, forces, fortresses, [event.stack] if event.stack in forces else [], event)
    if kind == "LeaderValuesChanged":
        return {**m, "forces": _leader_values(forces, event)}
    elif kind == "StackRaised":
        forces = {**forces, event.stack: {"country": event.country, "units": dict(event.units),
                                          "leaders": [leader(x) for x in event.leaders]}}
    elif kind == "StackSplit":
        old = forces[event.stack]
        left = {u: _plain(unit_count(n) - event.units.get(u, 0)) for u, n in old["units"].items()
                if unit_count(n) - event.units.get(u, 0) > 0}
        forces = {**forces, event.stack: {**old, "units": left,
                                          "leaders": [x for x in old["leaders"] if x["name"] not in event.leaders]},
                  event.new_stack: {"country": event.country, "units": dict(event.units),
                                    "leaders": [x for x in old["leaders"] if x["name"] in event.leaders]}}
    elif kind == "StacksMerged":
        kept, gone = forces[event.stack], forces[event.merged]
        units = dict(kept["units"])
        for u, n in gone["units"].items():
            units[u] = _plain(unit_count(units.get(u, 0)) + unit_count(n))
        forces = {k: v for k, v in forces.items() if k != event.merged}
        forces[event.stack] = {**kept, "units": units, "leaders": [*kept["leaders"], *gone["leaders"]]}
        sieges = {p: sorted({event.stack if b == event.merged else b for b in bs}) for p, bs in sieges.items()}
    elif kind == "StackChanged":
        old = forces[event.stack]
        units = dict(old["units"])
        for u, n in event.units.items():
            units[u] = _plain(max(unit_count(units.get(u, 0)) + n, Fraction(0)))
        leaders = [x for x in old["leaders"] if x["name"] not in event.departed] + [leader(a) for a in event.arrived]
        forces = {**forces, event.stack: {**old, "units": {u: n for u, n in units.items() if n}, "leaders": leaders}}
    elif kind == "FortressChanged":
        fortresses = {**fortresses, event.province: event.level}
    elif kind == "WarDeclared":
        wars = [*wars, war_key(event.attackers, event.defenders)]
    elif kind == "PeaceMade":
        key = war_key(event.attackers, event.defenders)
        wars = [w for w in wars if w != key]
    elif kind == "SiegeStarted":
        sieges = {**sieges, event.province: sorted(event.besiegers)}
    elif kind in ("SiegeEnded", "ControlChanged"):  # a change of control ends a siege (as on the map)
        sieges = {p: b for p, b in sieges.items() if p != event.province}
    else:
        return m
    return {**m, "forces": forces, "wars": wars, "sieges": sieges, "fortresses": fortresses}


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


def _destroyed_by(forces: dict[str, Any], event: Any) -> list[str]:
    """The stacks a ruling's ``stack_destroyed`` effects name (a stack id, or a role its context maps to one)."""
    roles = (event.context or {}).get("stacks") or {}
    found = []
    for e in (event.ruling or {}).get("effects") or ():
        if e.get("kind") == "stack_destroyed":
            target = e.get("target")
            stack = target if target in forces else roles.get(target or "")
            if stack in forces and stack not in found:
                found.append(stack)
    return found


def _off_map(m: dict[str, Any], forces: dict[str, Any], fortresses: dict[str, int], gone: list[str],
             event: Any) -> dict[str, Any]:
    """Stacks ``gone`` leave the map (destroyed by a ruling, disbanded) with their leaders and their part in a
    siege; ``destroyed`` remembers them, so a correction of the event that took them off puts them back."""
    if not gone:
        return {**m, "forces": forces, "fortresses": fortresses}
    sieges = {p: [b for b in bs if b not in gone] for p, bs in m["sieges"].items()}
    return {**m, "forces": {k: v for k, v in forces.items() if k not in gone}, "fortresses": fortresses,
            "sieges": {p: bs for p, bs in sieges.items() if bs},
            "destroyed": {**(m.get("destroyed") or {}), **{s: {"position": event.originator_version} for s in gone}}}


def _leader_values(forces: dict[str, Any], event: Any) -> dict[str, Any]:
    """A leader's printed values restated (``LeaderValuesChanged``), on the stack that holds him."""
    out = dict(forces)
    for sid, force in forces.items():
        if event.leader in names(force):
            out[sid] = {**force, "leaders": [{**x, **{k: v for k, v in event.values.items() if k in LEADER_VALUES}}
                                             if x["name"] == event.leader else x for x in force["leaders"]]}
    return out
