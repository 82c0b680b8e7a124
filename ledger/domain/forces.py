"""What the board checks of rulings read from the map besides places: units, leaders, fortress levels.

Kept in the write-side state (``CampaignState.forces``: a few numbers per stack), so checking a ruling's
inputs never reads the history. It starts from ``ScenarioImported`` and follows the effects of recorded
rulings the way the map view does (projections/map.py): ``ld_lost``/``nd_lost``/``ntd_lost`` on a stack
(its id, or a role the ruling's ``context.stacks`` maps to one), ``leader_killed``/``leader_captured``,
``fortress_level_changed`` (target, else ``context.where``). A correction of a ruling's effects is not
followed here: a stale figure is a contradiction the game master overrides with a reason.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.domain import events as ev

UNIT_LOSS = {"ld_lost": "LD", "nd_lost": "ND", "ntd_lost": "NTD"}
LEADER_VALUES = ("fire", "shock", "manoeuvre", "siege")


def empty() -> dict[str, Any]:
    """units: stack -> {unit: n}; leaders: stack -> [{name, kind, fire, shock, manoeuvre, siege}];
    fortress: place -> level, only where a ruling changed it (else the scenario's)."""
    return {"units": {}, "leaders": {}, "fortress": {}}


def _plain(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else str(x)


def apply(forces: dict[str, Any], event: Any) -> dict[str, Any]:
    if isinstance(event, ev.ScenarioImported):
        stacks = event.scenario.get("stacks", ())
        return {"units": {st["id"]: dict(st["units"]) for st in stacks},
                "leaders": {st["id"]: [{"name": ld["name"], "kind": ld.get("kind", "general"),
                                        **{k: ld.get(k, 0) for k in LEADER_VALUES}} for ld in st["leaders"]]
                            for st in stacks},
                "fortress": {}}
    if not isinstance(event, ev.RulingRecorded):
        return forces
    roles = event.context.get("stacks") or {}
    units, leaders, fortress = forces["units"], forces["leaders"], forces["fortress"]
    for e in event.ruling.get("effects") or ():
        target = e.get("target")
        stack = target if target in units else roles.get(target or "")
        if e.get("kind") in UNIT_LOSS and stack in units:
            unit = UNIT_LOSS[e["kind"]]
            left = max(Fraction(str(units[stack].get(unit, 0))) - Fraction(str(e.get("amount") or 0)), Fraction(0))
            units = {**units, stack: {**units[stack], unit: _plain(left)}}
        elif e.get("kind") in ("leader_killed", "leader_captured"):
            # A leader by name; a side (combat names "attacker") is its stack's leader when it has only one.
            gone = target if stack is None or len(leaders.get(stack, ())) != 1 else leaders[stack][0]["name"]
            leaders = {s: [ld for ld in lds if ld["name"] != gone] for s, lds in leaders.items()}
        elif e.get("kind") == "fortress_level_changed":
            place = target or event.context.get("where")
            level = (e.get("detail") or {}).get("new_level")
            if isinstance(place, str) and isinstance(level, int):
                fortress = {**fortress, place: level}
    return {"units": units, "leaders": leaders, "fortress": fortress}
