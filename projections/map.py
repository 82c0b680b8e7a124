"""Map read model: provinces and sea zones, stacks, leaders, sieges, discoveries.

``apply(doc, record)`` is pure bookkeeping on one campaign's document (a plain
dict, stored as JSON by the view store). The map starts from ``ScenarioImported``
and changes by the map events (``StackMoved``, ``StackRaised``, ``StackSplit``, ``StacksMerged``,
``StackChanged``, ``ControlChanged``, ``OwnerChanged``, ``MarkerPlaced``/``MarkerRemoved``,
``SiegeStarted``/``SiegeEnded``, ``FortressChanged``) and by the effects inside recorded rulings
(``ld_lost``, ``marker_*``, ``control_changed``, ``leader_killed``, ``discovery``,
``fortress_level_changed``).

A ruling's effect names its target the way the rules see it ("attacker",
"moving stack"); the recording's context may map those roles to map names
(``context.stacks = {"attacker": "FRA-1"}``, ``context.where = "Picardie"``).
An effect whose target still cannot be placed on the map is kept in
``unplaced`` with its position, never silently dropped.
"""

from __future__ import annotations

from typing import Any

from ledger.domain.sight import COMMANDED, held
from projections.records import Record, plain_sum

NAME = "map"
UNIT_LOSS = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}
FLIP = {"Pillage+": "Pillage-", "Pillage-": "Pillage+", "Revolt": "Revolt+", "Revolt+": "Revolt",
        "Siegework": "Siegework+", "Siegework+": "Siegework"}


def empty() -> dict[str, Any]:
    return {"scenario": None, "provinces": {}, "adjacency": [], "stacks": {}, "leaders": {}, "sieges": {},
            "discoveries": {}, "unplaced": [], "position": 0, "turn": None}


def _scenario(doc: dict[str, Any], s: dict[str, Any]) -> None:
    doc["scenario"] = s["name"]
    for p in s["provinces"]:
        doc["provinces"][p["name"]] = {
            "kind": "province", "terrain": p["terrain"], "owner": p["owner"], "controller": p["controller"],
            "income": p["income"], "fortress": p["fortress"], "coastal": p["coastal"], "area": p["area"],
            "markers": list(p["markers"]),
        }
    for z in s["sea_zones"]:
        doc["provinces"][z["name"]] = {"kind": "sea", "area": z["area"], "markers": []}
    doc["adjacency"] = [list(a) for a in s["adjacency"]]
    for st in s["stacks"]:
        doc["stacks"][st["id"]] = {"country": st["country"], "location": st["location"], "units": dict(st["units"]),
                                   "leaders": [ld["name"] for ld in st["leaders"]]}
        for ld in st["leaders"]:
            doc["leaders"][ld["name"]] = {
                "country": st["country"], "kind": ld["kind"], "stack": st["id"], "status": "active",
                "values": {k: ld[k] for k in ("fire", "shock", "manoeuvre", "siege")},
            }
    doc["discoveries"] = {c["code"]: [] for c in s["countries"]}


def _stack_of(doc: dict[str, Any], target: str | None, ctx: dict[str, Any]) -> str | None:
    if target in doc["stacks"]:
        return target
    mapped = (ctx.get("stacks") or {}).get(target or "")
    return mapped if mapped in doc["stacks"] else None


def _place_of(doc: dict[str, Any], target: str | None, ctx: dict[str, Any]) -> str | None:
    if target in doc["provinces"]:
        return target
    where = ctx.get("where")
    return where if where in doc["provinces"] else None


def _unplaced(doc: dict[str, Any], r: Record, effect: dict[str, Any]) -> None:
    doc["unplaced"].append({"position": r.position, "kind": effect["kind"], "target": effect.get("target"),
                            "country": effect.get("country"), "amount": effect.get("amount")})


def _effect(doc: dict[str, Any], r: Record, e: dict[str, Any], ctx: dict[str, Any]) -> None:
    kind = e["kind"]
    if kind in UNIT_LOSS:
        stack = _stack_of(doc, e.get("target"), ctx)
        if stack is None:
            return _unplaced(doc, r, e)
        units = doc["stacks"][stack]["units"]
        unit = UNIT_LOSS[kind]
        units[unit] = plain_sum(units.get(unit, 0), e.get("amount"), minus=True, floor=0)
    elif kind in ("marker_placed", "marker_removed", "marker_flipped"):
        place = _place_of(doc, e.get("target"), ctx)
        marker = e.get("marker")
        if place is None or not marker:
            return _unplaced(doc, r, e)
        markers = doc["provinces"][place]["markers"]
        if kind == "marker_placed":
            markers.append(marker)
        elif marker in markers:
            i = markers.index(marker)
            if kind == "marker_removed":
                markers.pop(i)
            else:
                markers[i] = (e.get("detail") or {}).get("to_marker") or FLIP.get(marker, marker)
        if marker.startswith("Siegework"):
            _siege_from_markers(doc, place, r.position)
    elif kind == "control_changed":
        place = _place_of(doc, e.get("target"), ctx)
        if place is None or not e.get("country"):
            return _unplaced(doc, r, e)
        doc["provinces"][place]["controller"] = e["country"]
        doc["sieges"].pop(place, None)
    elif kind == "fortress_level_changed":
        place = _place_of(doc, e.get("target"), ctx)
        level = (e.get("detail") or {}).get("new_level")
        if place is None or level is None:
            return _unplaced(doc, r, e)
        doc["provinces"][place]["fortress"] = level
    elif kind in ("leader_killed", "leader_captured"):
        leader = doc["leaders"].get(e.get("target") or "")
        if leader is None:
            return _unplaced(doc, r, e)
        leader["status"] = "killed" if kind == "leader_killed" else "captured"
        stack = doc["stacks"].get(leader["stack"] or "")
        if stack and e["target"] in stack["leaders"]:
            stack["leaders"].remove(e["target"])
        leader["stack"] = None
    elif kind == "stack_destroyed":
        stack = _stack_of(doc, e.get("target"), ctx)
        if stack is None:
            return _unplaced(doc, r, e)
        _off_map(doc, stack, "destroyed")
    elif kind == "discovery":
        country, zone = e.get("country"), e.get("target")
        if not country or not zone:
            return _unplaced(doc, r, e)
        known = doc["discoveries"].setdefault(country, [])
        if zone not in known:
            known.append(zone)


def _siege_from_markers(doc: dict[str, Any], place: str, position: int) -> None:
    # ``in`` first: a province's marker list runs to hundreds in a long campaign, and a substring test is a
    # fifth of a method call per marker (a rebuild calls this 7,000 times); startswith keeps the meaning.
    works = [m for m in doc["provinces"][place]["markers"] if "Siegework" in m and m.startswith("Siegework")]
    if works:
        siege = doc["sieges"].setdefault(place, {"since": position, "besiegers": []})
        siege["siegeworks"] = works
    else:
        doc["sieges"].pop(place, None)


def _held(doc: dict[str, Any], r: Record) -> bool:
    """A player's stack command this map cannot take (``ledger.domain.sight.held``: a stack id or a leader it
    already has, a stack elsewhere or gone, more units than the stack holds): recorded against the map the
    player saw, it is held here, as on the write side, never applied over what this map holds (a stack hidden
    from that player)."""
    stacks = doc["stacks"]

    def stack(sid: str) -> Any:
        s = stacks.get(sid)
        return None if s is None else (s["country"], s["location"], s["units"], s["leaders"])

    return held(r.type, r.data, stack, lambda: {n for s in stacks.values() for n in s["leaders"]}) is not None


def apply(doc: dict[str, Any], r: Record) -> None:
    t, d = r.type, r.data
    doc["position"] = r.position
    if t in COMMANDED and (d.get("actor") or {}).get("role") == "player" and _held(doc, r):
        return
    if t == "ScenarioImported":
        _scenario(doc, d["scenario"])
    elif t == "TurnOpened":
        doc["turn"] = d["turn"]
    elif t == "StackMoved":
        stack = doc["stacks"].get(d["stack"])
        if stack is not None:
            stack["location"] = d["destination"]
    elif t == "ControlChanged":
        p = doc["provinces"].get(d["province"])
        if p is not None:
            p["controller"] = d["controller"]
            doc["sieges"].pop(d["province"], None)
    elif t == "OwnerChanged":
        p = doc["provinces"].get(d["province"])
        if p is not None:
            p["owner"] = d["owner"]
    elif t in ("MarkerPlaced", "MarkerRemoved"):
        p = doc["provinces"].get(d["province"])
        if p is not None:
            if t == "MarkerPlaced":
                p["markers"].append(d["marker"])
            elif d["marker"] in p["markers"]:
                p["markers"].remove(d["marker"])
            if d["marker"].startswith("Siegework"):
                _siege_from_markers(doc, d["province"], r.position)
    elif t == "FortressChanged":
        p = doc["provinces"].get(d["province"])
        if p is not None:
            p["fortress"] = d["level"]
    elif t in STACK_EVENTS:
        STACK_EVENTS[t](doc, r)
    elif t == "SiegeStarted":
        siege = doc["sieges"].setdefault(d["province"], {"since": r.position, "besiegers": []})
        siege["besiegers"] = sorted({*siege["besiegers"], *d["besiegers"]})
    elif t == "SiegeEnded":
        doc["sieges"].pop(d["province"], None)
    elif t == "RulingRecorded":
        ctx = r.context
        ruling = d["ruling"]
        if d["procedure"] == "M21":
            _siege_ruling(doc, r, ruling, ctx)
        for e in ruling.get("effects") or ():
            _effect(doc, r, e, ctx)


def _off_map(doc: dict[str, Any], sid: str, how: str) -> None:
    """A stack leaves the map (destroyed by a ruling, disbanded), as on the write side (ledger/domain/forces.py):
    its leaders are left without a stack, its part in a siege ends. A correction of the event folds the map
    again without it (projections/corrections.py), so the stack is back."""
    stack = doc["stacks"].pop(sid, None)
    if stack is None:
        return
    for name in stack["leaders"]:
        if name in doc["leaders"]:
            doc["leaders"][name].update(stack=None, status=f"stack {how}")
    for place, siege in list(doc["sieges"].items()):
        if sid in siege.get("besiegers", ()):
            siege["besiegers"] = [b for b in siege["besiegers"] if b != sid]
            if not siege["besiegers"] and not siege.get("siegeworks"):
                doc["sieges"].pop(place)


def _disbanded(doc: dict[str, Any], r: Record) -> None:
    _off_map(doc, r.data["stack"], "disbanded")


def _leader_values(doc: dict[str, Any], r: Record) -> None:
    leader = doc["leaders"].get(r.data["leader"])
    if leader is not None:
        leader["values"] = {**leader.get("values", {}), **r.data["values"]}


def _raised(doc: dict[str, Any], r: Record) -> None:
    d = r.data
    doc["stacks"][d["stack"]] = {"country": d["country"], "location": d["location"], "units": dict(d["units"]),
                                 "leaders": []}
    _arrive(doc, d["stack"], d["leaders"], d["turn"])


def _arrive(doc: dict[str, Any], sid: str, leaders: list[dict[str, Any]], turn: int) -> None:
    """Leaders placed on a stack (I3: the turn they arrive, the turn printed for their departure)."""
    stack = doc["stacks"][sid]
    for a in leaders:
        stack["leaders"].append(a["name"])
        doc["leaders"][a["name"]] = {"country": stack["country"], "kind": a["kind"], "stack": sid, "status": "active",
                                     "values": {k: a[k] for k in ("fire", "shock", "manoeuvre", "siege")},
                                     "arrived": turn, "departs": a.get("departs")}


def _split(doc: dict[str, Any], r: Record) -> None:
    d = r.data
    old = doc["stacks"].get(d["stack"])
    if old is None:
        return
    for unit, n in d["units"].items():
        old["units"][unit] = plain_sum(old["units"].get(unit, 0), n, minus=True, floor=0)
    old["leaders"] = [x for x in old["leaders"] if x not in d["leaders"]]
    doc["stacks"][d["new_stack"]] = {"country": d["country"], "location": d["location"], "units": dict(d["units"]),
                                     "leaders": list(d["leaders"])}
    for name in d["leaders"]:
        if name in doc["leaders"]:
            doc["leaders"][name]["stack"] = d["new_stack"]


def _merge(doc: dict[str, Any], r: Record) -> None:
    d = r.data
    kept, gone = doc["stacks"].get(d["stack"]), doc["stacks"].pop(d["merged"], None)
    if kept is None or gone is None:
        return
    for unit, n in gone["units"].items():
        kept["units"][unit] = plain_sum(kept["units"].get(unit, 0), n)
    kept["leaders"] = [*kept["leaders"], *gone["leaders"]]
    for name in gone["leaders"]:
        if name in doc["leaders"]:
            doc["leaders"][name]["stack"] = d["stack"]
    for siege in doc["sieges"].values():
        if d["merged"] in siege.get("besiegers", ()):
            siege["besiegers"] = sorted({d["stack"] if b == d["merged"] else b for b in siege["besiegers"]})


def _change(doc: dict[str, Any], r: Record) -> None:
    d = r.data
    stack = doc["stacks"].get(d["stack"])
    if stack is None:
        return
    for unit, n in d["units"].items():
        stack["units"][unit] = plain_sum(stack["units"].get(unit, 0), n, floor=0)
    _arrive(doc, d["stack"], d["arrived"], d["turn"])
    for name in d["departed"]:
        if name in stack["leaders"]:
            stack["leaders"].remove(name)
        if name in doc["leaders"]:
            doc["leaders"][name].update(status="departed", stack=None, departed=d["turn"])


#: The fields of a ruling (``RulingRecorded.ruling``) this model reads, "a.b" for a field of a field: a rebuild
#: decodes no other (projections/runner.py: a ruling's ``steps`` alone are two thirds of its bytes).
RULING_READS = frozenset({"effects", "outcome", "summary", "inputs.action"})

STACK_EVENTS = {"StackRaised": _raised, "StackSplit": _split, "StacksMerged": _merge, "StackChanged": _change,
                "StackDisbanded": _disbanded, "LeaderValuesChanged": _leader_values}


def _siege_ruling(doc: dict[str, Any], r: Record, ruling: dict[str, Any], ctx: dict[str, Any]) -> None:
    place = _place_of(doc, None, ctx)
    if place is None:
        return
    outcome = ruling.get("outcome") or {}
    siege = doc["sieges"].setdefault(place, {"since": r.position, "besiegers": []})
    besieger = _stack_of(doc, "besieger", ctx)
    if besieger and besieger not in siege["besiegers"]:
        siege["besiegers"].append(besieger)
    siege["last_ruling"] = r.position
    siege["last_action"] = (ruling.get("inputs") or {}).get("action")
    siege["last_outcome"] = ruling.get("summary") or ""
    if outcome.get("action") == "capture" or outcome.get("captured") or outcome.get("fortress_taken"):
        doc["sieges"].pop(place, None)
