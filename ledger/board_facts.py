"""What the board and the map state say of a ruling's inputs at its position (the table and its facts).

A ruling names where it happens (``context.where``) and the stacks of its roles (``context.stacks``:
``{"attacker": "ENG-1"}``). ``CHECKS`` is the one table of which input of which procedure the board or the
map can check, and with which fact (``FACTS``): the terrain, river or pass, fortress level and port of a
province as printed (ledger/board.py), a sea zone's difficulty, and from the write-side state
(``CampaignState.stacks`` and ``.military``, ledger/domain/forces.py: never a history read) where each stack
is, its LD and its leader's values, fortress levels changed by the game master or by rulings. A fact the board or the map cannot tell (a stack
with ARMY counters, two generals to choose a commander from, a province off the board) checks nothing.

- A typed input that disagrees is refused (422 on ``inputs.<field>``, naming the typed value and the board's
  or the map's), unless the game master keeps it with ``overrides = {field: reason}``; the ruling records
  ``overridden: [{field, typed, board, reason}]``. An override where nothing disagrees is refused too.
- An input left out that the board or the map knows is filled, and the ruling records it in
  ``from_board: {field: value}``.
- ``audit`` compares a recorded ruling's inputs with the state before it (``ledger recompute``).

The use case that records a ruling applies it (ledger/usecases/board_rulings.py); this module is pure
and imports neither the application nor the use cases, so the audit can run in ``Ledger.recompute``.

Which readings are ambiguous (forests, commanders, LD equivalents, crossings) is in the ruleset's
DECISIONS.md, "Rulings checked against the board".
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.board import Board, load_board

if TYPE_CHECKING:
    from ledger.domain.campaign import CampaignState


@dataclass(frozen=True)
class Check:
    """``field``: the input (``attacker.ld``; ``zones[*].difficulty`` for each entry of a list); ``fact``: a
    key of ``FACTS``; ``role``: the stack it is about (``context.stacks`` role); ``place``: the input naming
    the place (a sibling of the field), else ``context.where``."""

    field: str
    fact: str
    role: str | None = None
    place: str | None = None


def _side(role: str) -> tuple[Check, ...]:
    """A battle side's LD, whether it has a leader, and its leader's values (M19 BattleSide)."""
    return (Check(f"{role}.ld", "stack_ld", role), Check(f"{role}.has_leader", "has_leader", role),
            Check(f"{role}.leader_man", "leader_manoeuvre", role),
            Check(f"{role}.leader_fire", "leader_fire", role), Check(f"{role}.leader_shock", "leader_shock", role))


#: The moving stack's id, the input ``stack`` its effects (``ld_lost``, ``nd_lost``...) are placed with.
_MOVING = Check("stack", "stack_id", "moving stack")


# The inputs each procedure's ruling can have checked, and by what (eu). Roles are those of the procedures'
# effects: M9/M10/M12 "moving stack" (or the input ``stack`` when it names a map stack), M14 "interceptor"
# ("interceptor 2"... for the other stacks of its side) and "target", M19 "attacker" and "defender", M21 "besieger".
CHECKS: dict[tuple[str, str], tuple[Check, ...]] = {
    ("eu", "M9"): (_MOVING, Check("ld", "stack_ld", "moving stack")),
    ("eu", "M10"): (_MOVING, Check("province", "where"), Check("area", "area"), Check("ld", "stack_ld", "moving stack"),
                    Check("commander_man", "leader_manoeuvre", "moving stack")),
    ("eu", "M12"): (_MOVING, Check("zones[*].difficulty", "sea_difficulty", place="name"),
                    Check("commander_man", "leader_manoeuvre", "moving stack")),
    ("eu", "M14"): (Check("same_province", "same_province", "interceptor"),
                    Check("across_river_or_pass", "river_or_pass", "interceptor"),
                    Check("target_swamp", "swamp"), Check("side_ld", "side_ld", "interceptor"),
                    Check("interceptor_man", "leader_manoeuvre", "interceptor"),
                    Check("target_man", "leader_manoeuvre", "target")),
    ("eu", "M19"): (Check("terrain", "terrain"), Check("rotw", "rotw"), Check("crossing", "crossing", "attacker"),
                    *_side("attacker"), *_side("defender")),
    ("eu", "M21"): (Check("fortress_level", "fortress"), Check("map_level", "printed_fortress"),
                    Check("port", "port"), Check("clear_terrain", "clear_terrain"),
                    Check("besieger_ld", "stack_ld", "besieger"),
                    *(Check(f"besieger_leader_{v}", f"leader_{v}", "besieger") for v in ("fire", "shock", "siege"))),
}

# The procedures whose two sides must be at war (eu): the role of one side's stack and of the other's. A siege's
# other side is the stack named "besieged", else the holder of the besieged province (the scenario's controller
# or owner, else the board's printed owner). DECISIONS.md "Sieges, battles and interceptions need a war".
AT_WAR: dict[tuple[str, str], tuple[str, str]] = {
    ("eu", "M14"): ("interceptor", "target"), ("eu", "M15"): ("interceptor", "target"),
    ("eu", "M19"): ("attacker", "defender"), ("eu", "M20"): ("attacker", "defender"),
    ("eu", "M21"): ("besieger", "besieged"),
}
#: Inputs naming a minor (eu P5 ``minor``): a country a player plays in the campaign is a major power there,
#: whatever kind the board gives it (a minormajor such as Venice): refused, never kept (a peace between players
#: is P4). DECISIONS.md "P5 — the minor is never a major power; the player is one".
MINOR_INPUTS: dict[tuple[str, str], str] = {("eu", "P5"): "minor"}

#: The override that keeps a ruling whose sides are not at war: ``overrides = {"war": reason}``.
WAR = "war"

# A border crossed into the battle's province, as M19 reads it (a landing: from a sea zone).
CROSSING = {"plain": "none", "river": "river_or_pass", "pass": "river_or_pass", "strait": "strait_or_landing",
            "bering_strait": "strait_or_landing"}


@dataclass(frozen=True)
class Fact:
    value: Any
    said: str  # what the board or the map says, in words: "Normandie is dense_forest"
    source: str = "board"  # "board" or "map"
    fills: bool = True  # False: the board's value is not one the input takes (a forest for M19)


@dataclass(frozen=True)
class At:
    """What is known at a ruling's position."""

    board: Board | None
    scenario: dict[str, Any]
    where: str | None
    roles: dict[str, str]
    stacks: dict[str, list[Any]]  # CampaignState.stacks: id -> [place, moved at, origin]
    forces: dict[str, Any]  # CampaignState.military["forces"]: stack -> {country, units, leaders}
    fortresses: dict[str, int]  # CampaignState.military["fortresses"]: place -> level changed
    inputs: dict[str, Any]
    wars: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()  # CampaignState.military["wars"]: the two sides

    @classmethod
    def of(cls, state: CampaignState, scenario: dict[str, Any] | None, context: dict[str, Any],
           inputs: dict[str, Any]) -> At:
        s, military = scenario or {}, state.military or {}
        name = s.get("board") or state.settings.get("board")
        return cls(board=load_board(name) if name else None, scenario=s, where=context.get("where"),
                   roles=dict(context.get("stacks") or {}), stacks=dict(state.stacks or {}),
                   forces=military.get("forces") or {}, fortresses=military.get("fortresses") or {}, inputs=inputs,
                   wars=tuple((tuple(a), tuple(d)) for a, d in military.get("wars") or ()))

    def stack(self, role: str | None) -> str | None:
        sid = self.roles.get(role or "")
        if sid is None and role == "moving stack" and isinstance(self.inputs.get("stack"), str):
            sid = self.inputs["stack"]
        return sid if sid in self.forces else None

    def province(self, name: str | None) -> Any:
        if self.board is None or not name:
            return None
        return self.board.provinces.get(name) or self.board.rotw.get(name)

    def located(self, sid: str) -> str | None:
        return (self.stacks.get(sid) or [None])[0]

    def holder(self, place: str | None) -> str | None:
        """Who holds a province as far as the write side knows: the scenario's controller (its owner when it
        names none), else the board's printed owner. Changes of control are not followed here (the map view
        follows them): a siege of a province taken since names its besieged stack or is kept with a reason."""
        for p in self.scenario.get("provinces") or ():
            if p.get("name") == place:
                return p.get("controller") or p.get("owner")
        return getattr(self.province(place), "owner", None)

    def at_war(self, a: str, b: str) -> bool:
        """Whether two countries are on the two sides of a war in progress."""
        return any((a in x and b in y) or (b in x and a in y) for x, y in self.wars)


def _terrain(at: At, c: Check, place: str | None) -> Fact | None:
    p = at.province(place)
    return p and Fact(p.terrain, f"{place} is {p.terrain}", fills=not p.terrain.endswith("forest"))


def _swamp(at: At, c: Check, place: str | None) -> Fact | None:
    p = at.province(place)
    return p and Fact(p.terrain == "swamp", f"{place} is {p.terrain}")


def _clear(at: At, c: Check, place: str | None) -> Fact | None:
    p = at.province(place)
    return p and Fact(p.terrain == "plain", f"{place} is {p.terrain}")


def _rotw(at: At, c: Check, place: str | None) -> Fact | None:
    if at.board is None or at.province(place) is None:
        return None
    rotw = place in at.board.rotw
    return Fact(rotw, f"{place} is {'in the rest of the world' if rotw else 'in Europe'}")


def _area(at: At, c: Check, place: str | None) -> Fact | None:
    f = _rotw(at, c, place)
    return f and Fact("rotw" if f.value else "europe", f.said)


def _where(at: At, c: Check, place: str | None) -> Fact | None:
    return Fact(place, f"the ruling happens in {place}", source="context") if place else None


def _port(at: At, c: Check, place: str | None) -> Fact | None:
    p = at.province(place)
    port = getattr(p, "port", None)
    return None if port is None else Fact(port, f"{place} {'has' if port else 'has no'} port")


def _printed_fortress(at: At, c: Check, place: str | None) -> Fact | None:
    level = getattr(at.province(place), "fortress", None)
    return None if level is None else Fact(level, f"{place} is printed with fortress {level}")


def _fortress(at: At, c: Check, place: str | None) -> Fact | None:
    if place in at.fortresses:
        level = at.fortresses[place]
        return Fact(level, f"{place}'s fortress is {level} since it was changed", source="map")
    for p in at.scenario.get("provinces") or ():
        if p["name"] == place and isinstance(p.get("fortress"), int):
            return Fact(p["fortress"], f"{place}'s fortress is {p['fortress']} in the scenario", source="map")
    return _printed_fortress(at, c, place)


def _sea_difficulty(at: At, c: Check, place: str | None) -> Fact | None:
    z = at.board.seas.get(place or "") if at.board is not None else None
    return z and Fact(z.difficulty, f"sea zone {place} has difficulty {z.difficulty}")


def _stack_ld(at: At, c: Check, place: str | None) -> Fact | None:
    sid = at.stack(c.role)
    if sid is None:
        return None
    units = at.forces[sid]["units"]
    ld = units.get("LD", 0)
    if "ARM" in units or not isinstance(ld, int):  # LD equivalents of an army or a third: the GM's count
        return None
    return Fact(ld, f"stack {sid} has {ld} LD", source="map")


def _stack_id(at: At, c: Check, place: str | None) -> Fact | None:
    """The stack the context names for the role (``context.stacks``): the input ``stack`` its losses are placed
    with on the map. Named only in the input (no role), it is its own fact."""
    sid = at.stack(c.role)
    return None if sid is None else Fact(sid, f"the ruling's {c.role} is stack {sid}", source="context")


def _has_leader(at: At, c: Check, place: str | None) -> Fact | None:
    """Whether the stack has a leader (eu8 §2.2.5 G: a side without one has no leader to test)."""
    sid = at.stack(c.role)
    if sid is None:
        return None
    leaders = at.forces[sid]["leaders"]
    said = f"stack {sid} has {'no leader' if not leaders else 'a leader (' + ', '.join(x['name'] for x in leaders) + ')'}"
    return Fact(bool(leaders), said, source="map")


def _side_ld(at: At, c: Check, place: str | None) -> Fact | None:
    """The LD of a side: every stack the context names for the role or a numbered one ("interceptor 2")."""
    role = c.role or ""
    named = [r for r in at.roles if r == role or r.startswith(role + " ")]
    sizes = [_stack_ld(at, Check(c.field, "stack_ld", r), place) for r in named]
    if not sizes or any(f is None for f in sizes):
        return None
    total = sum(f.value for f in sizes if f is not None)
    return Fact(total, f"{' and '.join(at.roles[r] for r in named)} have {total} LD", source="map")


def _leader(value: str) -> Callable[[At, Check, str | None], Fact | None]:
    def fact(at: At, c: Check, place: str | None) -> Fact | None:
        sid = at.stack(c.role)
        if sid is None:
            return None
        leaders = at.forces[sid]["leaders"]
        if not leaders:
            return Fact(0, f"stack {sid} has no leader", source="map")
        if len(leaders) > 1:  # which one commands is the game master's reading
            return None
        ld = leaders[0]
        return Fact(ld[value], f"{ld['name']} ({sid}) has {value} {ld[value]}", source="map")
    return fact


def _same_province(at: At, c: Check, place: str | None) -> Fact | None:
    sid = at.stack(c.role)
    here = at.located(sid) if sid else None
    if here is None or place is None:
        return None
    return Fact(here == place, f"stack {sid} is in {here}, the interception is in {place}", source="map")


def _river_or_pass(at: At, c: Check, place: str | None) -> Fact | None:
    sid = at.stack(c.role)
    here = at.located(sid) if sid else None
    if here is None or place is None or at.board is None or here not in at.board.places \
            or place not in at.board.places:
        return None
    if here == place:
        # In its own province the interceptor crosses nothing: the crossing is the target's, into the province
        # (DECISIONS.md "M14 — same province and across a river or pass are cumulative"), read as M19's crossing
        # is; unknown (the target not on the map, or not next to it), nothing is checked.
        crossed = _crossing(at, Check(c.field, "crossing", "target"), place)
        if crossed is None:
            return None
        return Fact(crossed.value == "river_or_pass", f"stack {sid} is in {place} itself and {crossed.said}",
                    source=crossed.source, fills=crossed.fills)
    border = at.board.border(here, place)
    if border is None:
        return None  # not adjacent: the board has no border to read
    return Fact(border in ("river", "pass"), f"stack {sid} is in {here}, across a {border} border from {place}",
                source="board")


def _crossing(at: At, c: Check, place: str | None) -> Fact | None:
    """The border the attacker crossed into the battle: from where its last move started if that move ended
    in the battle's province, else from the province it stands in next to it."""
    sid = at.stack(c.role)
    if sid is None or place is None or at.board is None or sid not in at.stacks:
        return None
    here, _, origin = at.stacks[sid]
    came = origin if here == place else here
    if came is None or came == place:
        return Fact("none", f"stack {sid} did not move into {place}", source="map") if came is None else None
    if came not in at.board.places or place not in at.board.places:
        return None
    border = at.board.border(came, place)
    if border is None:
        return None
    crossing = "strait_or_landing" if came in at.board.seas else CROSSING[border]
    # Standing next to the battle, the attacker crosses that border now: filled. A move that ended in the
    # battle's province may be older than this battle: checked (the game master overrides), never filled.
    return Fact(crossing, f"stack {sid} came from {came} ({'by sea' if came in at.board.seas else border + ' border'})",
                source="board", fills=here != place)


FACTS: dict[str, Callable[[At, Check, str | None], Fact | None]] = {
    "terrain": _terrain, "swamp": _swamp, "clear_terrain": _clear, "rotw": _rotw, "area": _area, "where": _where,
    "port": _port, "fortress": _fortress, "printed_fortress": _printed_fortress, "sea_difficulty": _sea_difficulty,
    "stack_ld": _stack_ld, "side_ld": _side_ld, "same_province": _same_province, "river_or_pass": _river_or_pass,
    "crossing": _crossing, "stack_id": _stack_id, "has_leader": _has_leader,
    **{f"leader_{v}": _leader(v) for v in ("fire", "shock", "manoeuvre", "siege")},
}


def _kind(fact: str, value: Any) -> Any:
    """What must agree: the board's dense or sparse forest fits any forest M19 names (eastern, western...)."""
    return "forest" if fact == "terrain" and isinstance(value, str) and value.endswith("forest") else value


def _same_type(a: Any, b: Any) -> bool:
    return type(a) is type(b)  # bool is not int; a wrong type is the resolver's validation error


_LIST = re.compile(r"^(\w+)\[\*\]\.(\w+)$")


def _slots(inputs: dict[str, Any], c: Check) -> Iterator[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    """(path, the dict holding the field, the field's key, the dict the place input is read from)."""
    m = _LIST.match(c.field)
    if m:
        items = inputs.get(m[1])
        for i, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict):
                yield f"{m[1]}[{i}].{m[2]}", item, m[2], item
        return
    *parents, key = c.field.split(".")
    holder: Any = inputs
    for p in parents:
        holder = holder.get(p) if isinstance(holder, dict) else None
    if isinstance(holder, dict):
        yield c.field, holder, key, inputs


def war(at: At, ruleset: str, procedure: str) -> dict[str, Any] | None:
    """The disagreement when a ruling sets two sides against each other that are not at war on the map (None
    when they are, or when the map cannot tell who a side is: a stack it does not have, a province without a
    holder). Its ``path`` is the first side's role, its ``field`` the override that keeps it (``war``)."""
    roles = AT_WAR.get((ruleset, procedure))
    if roles is None:
        return None
    first, second = roles
    sid = at.stack(first)
    if sid is None:
        return None
    mine = at.forces[sid].get("country")
    other_sid = at.stack(second)
    if other_sid is not None:
        theirs, them = at.forces[other_sid].get("country"), f"{other_sid} ({at.forces[other_sid].get('country')})"
    elif procedure == "M21" and at.where:
        theirs = at.holder(at.where)
        them = f"{at.where}, held by {theirs}"
    else:
        return None
    if not mine or not theirs or at.at_war(mine, theirs):
        return None
    wars = "; ".join(f"{', '.join(a)} against {', '.join(d)}" for a, d in at.wars) or "none"
    said = (f"{mine} is not at war with itself" if mine == theirs
            else f"no war between {mine} and {theirs} is declared on the map (wars in progress: {wars})")
    return {"field": WAR, "path": f"context.stacks.{first}", "typed": f"{mine} against {theirs}",
            "board": "not at war", "source": "map", "said": said,
            "message": f"{first} {sid} ({mine}) against {them}: {said}; the sides of a {TITLES[procedure]} must be "
                       f"at war (declare the war, or keep the ruling with overrides.{WAR} and a reason)"}


TITLES = {"M14": "land interception", "M15": "sea interception", "M19": "battle", "M20": "naval battle",
          "M21": "siege"}


def checked(ruleset: str, procedure: str) -> bool:
    """Whether the board or the map checks anything of this procedure's rulings."""
    return (ruleset, procedure) in CHECKS or (ruleset, procedure) in AT_WAR


def compare(at: At, ruleset: str, procedure: str) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(disagreements [{field, typed, board, said, source}], inputs filled, the filled {field: value})."""
    inputs = copy.deepcopy(at.inputs)
    found: list[dict[str, Any]] = []
    filled: dict[str, Any] = {}
    for c in CHECKS.get((ruleset, procedure), ()):
        for path, holder, key, around in _slots(inputs, c):
            place = around.get(c.place) if c.place else at.where
            fact = FACTS[c.fact](at, c, place if isinstance(place, str) else None)
            if fact is None:
                continue
            if key not in holder:
                if fact.fills:
                    holder[key] = filled[path] = fact.value
                continue
            typed = holder[key]
            if _same_type(typed, fact.value) and _kind(c.fact, typed) != _kind(c.fact, fact.value):
                found.append({"field": path, "typed": typed, "board": fact.value, "said": fact.said,
                              "source": fact.source})
    not_at_war = war(at, ruleset, procedure)
    if not_at_war is not None:
        found.append(not_at_war)
    return found, inputs, filled


def audit(state: CampaignState, scenario: dict[str, Any] | None, ruleset: str, procedure: str,
          ruling: dict[str, Any], context: dict[str, Any]) -> list[dict[str, Any]]:
    """The disagreements of a recorded ruling's inputs with the board and the map before it (``state``),
    each marked ``overridden`` with its reason when the game master kept it."""
    inputs = ruling.get("inputs")
    if not checked(ruleset, procedure) or not isinstance(inputs, dict):
        return []
    found, _, _ = compare(At.of(state, scenario, context, inputs), ruleset, procedure)
    reasons = {o.get("field"): o.get("reason") for o in ruling.get("overridden") or ()}
    return [{**f, "overridden": reasons.get(f["field"])} for f in found]
