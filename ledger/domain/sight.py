"""The map as each audience sees it, and the rule that holds a player's command a map cannot take (issue 33).

A player's commands are judged against the player's own view of the map, never against the game master's:
a stack, leader or siege hidden from them is answered exactly as one that does not exist, and a "did you
mean" names only what they may see. So the write-side state (``CampaignState``) keeps, beside the game
master's map (``stacks`` and ``military``), the map as each audience sees it (``views``):

- audiences: ``public`` (observers, and players of a country the campaign does not list: they see what the
  public sees) and ``country:XXX`` (the players of XXX);
- copy on diverge: an audience gets a map of its own (``{"stacks": ..., "military": ...}``, the shapes of
  ``CampaignState.stacks`` and ``.military``) only at the first event hidden from it that changes the game
  master's map; until then it reads the game master's, which is then the fold of the events it may see. Each
  later event is folded into every copy whose audience may see it. The fold never changes a dict in place, so
  a copy shares what did not change with the game master's (and costs nothing in memory until then);
- no history is read: the copies are part of the state, snapshotted with it.

A reveal (``VisibilityRevealed``, ``SheetsPublished``) of an event a copy missed leaves that copy stale: it
stays the fold of what its audience saw when the events came, so it never tells more than they saw (safe);
their commands are judged on the map they knew until the game master restates it with a visible event.

The hold rule (``held``). Where the game master's map must decide (a split to an id a stack hidden from the
player already has, a leader already on the map, a stack a hidden move took elsewhere, a hidden siege), the
player's command is recorded exactly as their view accepted it (same answer, same event) and the map it
does not fit holds it: it changes nothing there, and the game master's state lists it in ``held`` (derived
state: no event is added, since an extra event would move positions the player can count) until the game
master resolves it with the map commands and records a correction of it. The same rule keeps every map from
failing on an event naming a stack it does not have (the game master's split of a stack hidden from an
audience, in that audience's copy), and the read side's map (projections/map.py) applies it too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from ledger.access import ALL_SEEING, can_see
from ledger.domain import events as ev
from ledger.domain import forces as forcelib
from ledger.domain.actors import Actor
from ledger.domain.forces import unit_count

PUBLIC = "public"

#: The player commands the hold rule judges, and the fields naming the stacks each one commands.
COMMANDED: dict[str, tuple[str, ...]] = {"StackMoved": ("stack",), "StackSplit": ("stack",),
                                         "StacksMerged": ("stack", "merged"), "StackChanged": ("stack",),
                                         "SiegeStarted": ()}

#: (country, place, units, leader names) of a stack on one map, or None when that map has no such stack.
Stack = tuple[str | None, str | None, Mapping[str, Any], list[str]]


def audiences(countries: tuple[str, ...]) -> list[str]:
    return [PUBLIC, *(f"country:{c}" for c in countries)]


def audience(countries: tuple[str, ...], actor: Actor) -> str | None:
    """The audience whose map ``actor`` reads (None: the game master's, for the all-seeing)."""
    if actor.role in ALL_SEEING:
        return None
    if actor.role == "player" and actor.country in countries:
        return f"country:{actor.country}"
    return PUBLIC  # an observer; a player of a country not listed sees public events only


@lru_cache(maxsize=512)
def _reader(name: str) -> Actor:
    return Actor("", "observer") if name == PUBLIC else Actor("", "player", name.removeprefix("country:"))


def sees(name: str, event: Any) -> bool:
    """Whether the audience may see ``event`` when it is folded (a reveal comes later, if ever)."""
    return can_see(_reader(name), event)


def seen(state: Any, actor: Actor) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """(stacks, military) as ``actor`` sees them: the game master's map, or their audience's copy."""
    name = audience(state.countries, actor)
    if name is None:
        return state.stacks or {}, state.military or {}
    if state.views is None:  # never at a command (such a snapshot is folded again); when unknown, show nothing
        return {}, forcelib.empty()
    view = state.views.get(name)
    if view is None:
        return state.stacks or {}, state.military or {}
    return view["stacks"], view["military"]


# ----------------------------------------------------------------- the hold rule


def held(kind: str, e: Mapping[str, Any], stack: Callable[[str], Stack | None],
         on_map: Callable[[], set[str]], sieges: Mapping[str, Any] | None = None) -> str | None:
    """Why the map ``stack`` and ``on_map`` describe cannot take the event (``kind``, its fields ``e``), or None.

    Any event naming a stack the map does not have is held (nothing to move, split, merge or change); a
    player's command is held too where the game master's command would be refused on this map. ``sieges``:
    the sieges to check a player's new siege against (None: not checked)."""
    names = COMMANDED.get(kind)
    if names is None:
        return None
    for field in names:
        if stack(e[field]) is None:
            return f"{e[field]} is not on the map"
    actor = e.get("actor") or {}
    if actor.get("role") != "player":
        return None
    country = actor.get("country")
    for sid in [*(e[f] for f in names), *(e.get("besiegers") or () if kind == "SiegeStarted" else ())]:
        found = stack(sid)
        if found is None:
            return f"{sid} is not on the map"
        if found[0] != country:
            return f"{sid} is a stack of {found[0]}, not of {country}"
    if kind == "SiegeStarted":
        province = e["province"]
        if sieges is not None and province in sieges:
            return f"{province} is already besieged by {', '.join(sieges[province])}"
        for sid in e["besiegers"]:
            at = stack(sid)[1]  # type: ignore[index]
            if at != province:
                return f"{sid} is in {at}, not in {province}"
        return None
    sid = e["stack"]
    _, at, units, leaders = stack(sid)  # type: ignore[misc]
    if kind == "StackMoved":
        return f"{sid} is in {at}, not in {e['origin']}" if e.get("forced") is None and at != e["origin"] else None
    if kind == "StacksMerged":
        there = stack(e["merged"])[1]  # type: ignore[index]
        return f"{e['merged']} is in {there}, {sid} in {at}" if there != at else None
    if kind == "StackSplit" and stack(e["new_stack"]) is not None:
        return f"{e['new_stack']} already names a stack on the map"
    for unit, n in (e.get("units") or {}).items():
        have = unit_count(units.get(unit))
        if kind == "StackSplit" and unit_count(n) > have:
            return f"{sid} has {units.get(unit, 0)} {unit}, not {n}"
        if kind == "StackChanged" and have + unit_count(n) < 0:
            return f"{sid} has {units.get(unit, 0)} {unit}: it cannot lose {-unit_count(n)}"
    gone = e.get("leaders") if kind == "StackSplit" else e.get("departed")
    for name in gone or ():
        if name not in leaders:
            return f"{name} is not with {sid}"
    if kind == "StackChanged":
        present = on_map()
        for a in e.get("arrived") or ():
            if a["name"] in present:
                return f"{a['name']} is already on the map"
    return None


# ----------------------------------------------------------------- one map's fold


def _lookup(stacks: dict[str, list[Any]], forces: dict[str, Any]) -> Callable[[str], Stack | None]:
    def stack(sid: str) -> Stack | None:
        force, at = forces.get(sid), stacks.get(sid)
        if force is None or at is None:
            return None
        return force["country"], at[0], force["units"], forcelib.names(force)
    return stack


def fold(stacks: dict[str, list[Any]], military: dict[str, Any], event: Any
         ) -> tuple[dict[str, list[Any]], dict[str, Any], str | None]:
    """(stacks, military) of one map after ``event``, and why the map held it (None: taken)."""
    kind = type(event).__name__
    if kind in COMMANDED:
        forces = military.get("forces") or {}
        why = held(kind, vars(event), _lookup(stacks, forces),
                   lambda: {n for f in forces.values() for n in forcelib.names(f)}, military.get("sieges") or {})
        if why is not None:
            if kind == "StacksMerged" and event.stack not in forces and event.merged in forces \
                    and (event.actor or {}).get("role") != "player":
                # The game master merged it into a stack hidden from this map's audience: it left the map,
                # as the read side's map shows it.
                return ({k: v for k, v in stacks.items() if k != event.merged},
                        {**military, "forces": {k: v for k, v in forces.items() if k != event.merged}}, why)
            return stacks, military, why
    if kind != "RulingRecorded":
        stacks = places(stacks, event)
    after = forcelib.apply(military, event)
    return (*graves(stacks, military, after), None)


def graves(stacks: dict[str, list[Any]], before: dict[str, Any], after: dict[str, Any]
           ) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Stacks a ruling destroyed or a disbanding took off the map leave ``stacks`` too, their place kept in
    ``military["destroyed"]``; a correction that brings one back (``forces`` has it again) puts it back there."""
    was, now = before.get("destroyed") or {}, after.get("destroyed") or {}
    if was is now:
        return stacks, after
    kept = dict(now)
    for sid, grave in now.items():
        if "place" in grave:
            continue
        if sid in stacks:  # taken off the map by this event
            kept[sid] = {**grave, "place": stacks[sid]}
            stacks = {k: v for k, v in stacks.items() if k != sid}
        elif sid in was and "place" in was[sid]:  # restated by a correction: still off the map
            kept[sid] = {**grave, "place": was[sid]["place"]}
    forces = after.get("forces") or {}
    for sid, grave in was.items():
        if sid not in now and sid in forces and sid not in stacks and grave.get("place"):
            stacks = {**stacks, sid: grave["place"]}
    return stacks, {**after, "destroyed": kept}


def places(stacks: dict[str, list[Any]], event: Any) -> dict[str, list[Any]]:
    """Where each stack is after ``event``: stack id -> [place, position of its last move, where that move
    started], so a correction of that move can be followed."""
    if isinstance(event, ev.ScenarioImported):
        return {st["id"]: [st["location"], 0, None] for st in event.scenario.get("stacks", ())}
    if isinstance(event, ev.StackMoved):
        return {**stacks, event.stack: [event.destination, event.originator_version, event.origin]}
    if isinstance(event, ev.StackSplit):
        return {**stacks, event.new_stack: [event.location, 0, None]}
    if isinstance(event, ev.StackRaised):
        return {**stacks, event.stack: [event.location, 0, None]}
    if isinstance(event, ev.StacksMerged):
        return {k: v for k, v in stacks.items() if k != event.merged}
    if not isinstance(event, ev.CorrectionRecorded):
        return stacks
    # A correction of a stack's latest move moves it where the correction says (struck: back where it
    # started). Earlier moves are not tracked here: the map view follows them, the game master forces.
    for stack, (at, moved_at, origin) in stacks.items():
        if moved_at and moved_at == event.corrects:
            place = origin if event.replacement is None else event.replacement.get("destination", at)
            if isinstance(place, str):
                return {**stacks, stack: [place, moved_at, origin]}
    return stacks


def follow(state: Any, event: Any) -> dict[str, Any]:
    """The fields of ``state`` a map event changes: the game master's map, each audience's copy, what the game
    master's map holds."""
    stacks, military, why = fold(state.stacks, state.military, event)
    changes: dict[str, Any] = {"stacks": stacks, "military": military}
    views = state.views
    if views is not None:
        hidden = [a for a in audiences(state.countries) if a not in views and not sees(a, event)]
        if hidden and (stacks != state.stacks or military != state.military):
            # The first event hidden from these audiences that changes the map: their copies start here.
            views = {**views, **{a: {"stacks": state.stacks, "military": state.military} for a in hidden}}
        folded, done = dict(views), {}
        for name, view in views.items():
            if name not in hidden and sees(name, event):
                # Audiences whose copies started together and saw the same events share them: folded once.
                key = (id(view["stacks"]), id(view["military"]))
                if key not in done:
                    s, m, _ = fold(view["stacks"], view["military"], event)
                    done[key] = {"stacks": s, "military": m}
                folded[name] = done[key]
        changes["views"] = folded
    gm_held = state.held
    if gm_held is not None:
        if why is not None and (event.actor or {}).get("role") == "player":
            gm_held = {**gm_held, str(event.originator_version): {
                "position": event.originator_version, "type": type(event).__name__,
                "actor": event.actor.get("id"), "country": event.actor.get("country"), "why": why}}
        elif isinstance(event, ev.CorrectionRecorded) and str(event.corrects) in gm_held:
            gm_held = {k: v for k, v in gm_held.items() if k != str(event.corrects)}  # resolved
        changes["held"] = gm_held
    return changes
