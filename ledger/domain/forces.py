"""The write side's one model of the forces on the map (``CampaignState.military``): what the map commands
(ledger/usecases/map.py) and the board checks of rulings (ledger/board_facts.py) both read, so a split, a
merge, a units change or a ruling's losses are seen by both.

    {"forces": stack -> {"country", "units": {unit: n}, "leaders": [{name, kind, fire, shock, manoeuvre, siege}]},
     "wars": [[attackers], [defenders]] (sorted), "sieges": province -> [besieging stacks],
     "fortresses": province -> level, where a FortressChanged or a ruling's ``fortress_level_changed`` set it,
     "provinces": place -> {"owner", "controller", "markers": [...], "income", "fortress", "at": {fact: position}}
         (a sea zone: {"markers", "at"}), the scenario's, then as OwnerChanged, ControlChanged, MarkerPlaced,
         MarkerRemoved and a ruling's ``marker_placed``/``_removed``/``_flipped`` and ``control_changed`` (its
         target, else ``context.where``) set them; "at": the position of the event that last set each fact
         (absent: as the scenario set it). What the economy reads (ledger/economy/board_income.py),
     "countries": country -> {fact: value, "at": {fact: position}}, as CountryFactsSet set them, and the trade
         and rest-of-the-world facts the trade commands set (ledger/domain/trade_facts.py: trade fleets, trade
         centres, colonies, trading posts, what they exploit, missions; "at": {"<key>/<name>": position})}

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
from ledger.domain import trade_facts
from ledger.domain.corrections import replaced

#: A ruling's effects that change a stack's units (the map view applies the same ones).
LOSSES = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}
LEADER_VALUES = ("fire", "shock", "manoeuvre", "siege")
#: The events this fold follows.
FOLLOWED = (ev.ScenarioImported, ev.StackRaised, ev.StackSplit, ev.StacksMerged, ev.StackChanged,
            ev.FortressChanged, ev.WarDeclared, ev.PeaceMade, ev.SiegeStarted, ev.SiegeEnded, ev.ControlChanged,
            ev.OwnerChanged, ev.MarkerPlaced, ev.MarkerRemoved, ev.CountryFactsSet,
            ev.RulingRecorded, ev.CorrectionRecorded, ev.StackDisbanded, ev.LeaderValuesChanged,
            *trade_facts.FOLLOWED)
#: The events a correction may restate whose change of the forces the fold can undo (the others that change
#: them, raised, split and merged stacks, are structural: ``cmd.REPLACEMENTS``).
UNDOABLE = ("StackChanged", "FortressChanged", "WarDeclared", "PeaceMade", "SiegeStarted", "SiegeEnded",
            "ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "CountryFactsSet", "RulingRecorded",
            "StackDisbanded", "LeaderValuesChanged", *sorted(trade_facts.KINDS))
#: ``destroyed``: stack -> {"position" of the ruling or disbanding that took it off the map, "place" where it
#: was (``CampaignState.stacks``' entry, kept by ledger/domain/sight.py so a correction can put it back)}.
PARTS = ("forces", "fortresses", "sieges", "provinces", "countries", "destroyed")
#: A marker flipped by a ruling (``marker_flipped`` without a ``detail.to_marker``), as the map view flips it.
FLIP = {"Pillage+": "Pillage-", "Pillage-": "Pillage+", "Revolt": "Revolt+", "Revolt+": "Revolt",
        "Siegework": "Siegework+", "Siegework+": "Siegework"}


def empty() -> dict[str, Any]:
    return {"forces": {}, "wars": [], "sieges": {}, "fortresses": {}, "provinces": {}, "countries": {},
            "touched": {}, "undo": {}}


def current(m: Any) -> bool:
    """A state of this shape: one restored from a snapshot of an older one (leaders by name only, before
    corrections were followed, before the provinces and countries joined) is folded again from the events."""
    return isinstance(m, dict) and "undo" in m and "touched" in m and "provinces" in m and "countries" in m


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
    after = _change(m, kind, event, event.originator_version)
    if after is m:
        return m
    if kind == "ScenarioImported":
        return {**after, "touched": {}, "undo": {}}
    changed = _diff(m, after, _named(event))
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


def _named(event: Any) -> set[str]:
    """The places an event (or a restatement of one) may change the facts of: its province, a ruling's
    ``context.where`` and its effects' targets."""
    ctx = getattr(event, "context", None) or {}
    effects = (getattr(event, "ruling", None) or {}).get("effects") or ()
    names = {getattr(event, "province", None), ctx.get("where"), *(e.get("target") for e in effects)}
    return {n for n in names if isinstance(n, str)}


def _diff(m: dict[str, Any], after: dict[str, Any], places: set[str] | None = None) -> list[str]:
    """What ``after`` changed of ``m``; ``places``: the only provinces that may have changed (None: any)."""
    # A part the event left alone is the same dict, and so is every entry it left alone (the fold never changes
    # one in place): only the entries that are not the same object are compared, so the hundreds of provinces
    # of a board cost an identity test each to an event that changes one.
    found = []
    for p in PARTS:
        a, b = m.get(p) or {}, after.get(p) or {}
        if a is b:
            continue
        if p == "provinces" and places is not None:  # a board's hundreds of provinces: only those named
            found += [_key(p, n) for n in places if a.get(n) != b.get(n)]
            continue
        get = a.get
        found += [_key(p, n) for n, v in b.items() if get(n) is not v and get(n) != v]
        found += [_key(p, n) for n in a.keys() - b.keys()]
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
    after = restored if standing is None else _change(
        restored, record["kind"], SimpleNamespace(**{**standing, "originator_version": corrects}), corrects)
    named = {k.split(":", 1)[1] for k in record["before"] if k.startswith("provinces:")}
    changed = set(_diff(restored, after, named | (_named(SimpleNamespace(**standing)) if standing else set())))
    touched = m.get("touched") or {}
    if any(touched.get(k, 0) > corrects for k in changed):  # it would change what changed since: not followed
        return m
    before = {**{k: _get(restored, k) for k in changed}, **record["before"]}
    return _touch(after, restored, sorted(before), corrects, {**record, "before": before})


def _change(m: dict[str, Any], kind: str, event: Any, position: int) -> dict[str, Any]:
    """The forces, wars, sieges, fortress levels, provinces and countries after an event of type ``kind`` at
    ``position`` (or as a correction restates it: any object with the event's fields)."""
    if kind in trade_facts.KINDS:  # a country's trade and rest-of-the-world facts (ledger/domain/trade_facts.py)
        return {**m, "countries": trade_facts.change(m.get("countries") or {}, kind, event, position)}
    forces, wars, sieges, fortresses = m["forces"], m["wars"], m["sieges"], m.get("fortresses") or {}
    provinces, countries = m.get("provinces") or {}, m.get("countries") or {}
    if kind == "ScenarioImported":
        s = event.scenario
        forces = {st["id"]: {"country": st["country"], "units": dict(st.get("units") or {}),
                             "leaders": [leader(x) for x in st.get("leaders") or ()]} for st in s.get("stacks", ())}
        places = {p["name"]: {"owner": p.get("owner"), "controller": p.get("controller"),
                              "markers": list(p.get("markers") or ()), "income": p.get("income"),
                              "fortress": p.get("fortress"), "at": {}} for p in s.get("provinces") or ()}
        places.update({z["name"]: {"markers": [], "at": {}} for z in s.get("sea_zones") or ()})
        return {**m, "forces": forces, "wars": [war_key(a, d) for a, d in s.get("wars") or ()], "sieges": {},
                "fortresses": {}, "provinces": places, "countries": {}, "board": s.get("board"), "destroyed": {}}
    if kind == "RulingRecorded":
        forces, fortresses = _ruling_effects(forces, fortresses, event)
        provinces = _ruling_places(provinces, event, position)
        after = _off_map(m, forces, fortresses, _destroyed_by(m["forces"], event), event)
        return after if provinces is m.get("provinces") else {**after, "provinces": provinces}
    if kind == "StackDisbanded":
        return _off_map(m, forces, fortresses, [event.stack] if event.stack in forces else [], event)
    if kind == "LeaderValuesChanged":
        return {**m, "forces": _leader_values(forces, event)}
    elif kind == "OwnerChanged":
        return _set_place(m, provinces, event.province, "owner", event.owner, position)
    elif kind in ("MarkerPlaced", "MarkerRemoved"):
        p = provinces.get(event.province)
        if p is None:
            return m
        markers = _marked(p["markers"], "marker_placed" if kind == "MarkerPlaced" else "marker_removed",
                          event.marker, None)
        if markers is p["markers"]:  # a marker the place does not have: nothing removed
            return m
        return _set_place(m, provinces, event.province, "markers", markers, position)
    elif kind == "CountryFactsSet":
        old = countries.get(event.country) or {"at": {}}
        facts = dict(event.facts or {})
        countries = {**countries, event.country: {**old, **facts,
                                                  "at": {**old["at"], **{k: position for k in facts}}}}
        return {**m, "countries": countries}
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
        if kind == "ControlChanged":
            m = _set_place(m, provinces, event.province, "controller", event.controller, position)
    else:
        return m
    return {**m, "forces": forces, "wars": wars, "sieges": sieges, "fortresses": fortresses}


def _set_place(m: dict[str, Any], provinces: dict[str, Any], place: str, fact: str, value: Any,
               position: int) -> dict[str, Any]:
    """``m`` with one fact of a province set at ``position`` (a place the scenario lacks: nothing, as on the map)."""
    p = provinces.get(place)
    if p is None or (fact != "markers" and "income" not in p):
        return m
    return {**m, "provinces": {**provinces, place: {**p, fact: value, "at": {**p["at"], fact: position}}}}


def _marked(markers: list[str], kind: str, marker: str, detail: dict[str, Any] | None) -> list[str]:
    """A place's markers after a marker is placed, removed (its first copy) or flipped, as the map view does."""
    if kind == "marker_placed":
        return [*markers, marker]
    if marker not in markers:
        return markers
    i = markers.index(marker)
    if kind == "marker_removed":
        return markers[:i] + markers[i + 1:]
    return [*markers[:i], (detail or {}).get("to_marker") or FLIP.get(marker, marker), *markers[i + 1:]]


def _ruling_places(provinces: dict[str, Any], event: Any, position: int) -> dict[str, Any]:
    """Markers placed, removed or flipped and control changed by a ruling's effects, placed on their target
    when it names a place, else on ``context.where`` (the map view's reading: projections/map.py)."""
    context = event.context or {}
    out = provinces
    for e in (event.ruling or {}).get("effects") or ():
        kind, target = e.get("kind"), e.get("target")
        if kind not in ("marker_placed", "marker_removed", "marker_flipped", "control_changed"):
            continue
        place = target if target in out else context.get("where")
        p = out.get(place) if isinstance(place, str) else None
        if p is None:
            continue
        if kind == "control_changed":
            if not e.get("country") or "income" not in p:
                continue
            changed = {**p, "controller": e["country"], "at": {**p["at"], "controller": position}}
        else:
            marker = e.get("marker")
            if not marker:
                continue
            markers = _marked(p["markers"], kind, marker, e.get("detail"))
            if markers is p["markers"]:
                continue
            changed = {**p, "markers": markers, "at": {**p["at"], "markers": position}}
        out = {**out, place: changed}
    return out


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
