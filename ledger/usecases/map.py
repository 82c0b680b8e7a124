"""Commands that change the map: a stack moves, splits, merges, gains or loses units and leaders; control or
ownership changes; a marker is placed or removed; a siege starts or ends; a war is declared or ends in peace.

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

Players record stack commands (move, split, merge, change, start a siege) when
the campaign's ``players_may_move`` setting allows it (ledger/access.py), and
only with their own country's stacks; a player never forces a move. A
player's command is checked against the map as they see it (``sight.seen``):
names, suggestions, owners, places, conflicts. A stack, leader or siege hidden
from them is answered as one that does not exist; what only the game master's
map contradicts is recorded as the player's view accepts it and held there for
the game master (``CampaignState.held``, ledger/domain/sight.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger import sequence
from ledger.board import did_you_mean, load_board
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain import sight
from ledger.domain.forces import names, unit_count, war_key
from ledger.domain.errors import Forbidden, InvalidInput, StateConflict
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft


def scenario(d: Draft) -> dict[str, Any]:
    """The campaign's imported scenario (position 2), cached by the ledger: it never changes."""
    found = d.ledger.scenario(d.state.id)
    if found is None:
        raise StateConflict("this campaign was not set up from a scenario: the map is unknown", field="campaign")
    return found


def _require(value: str, known: set[str], what: str, field: str) -> None:
    if value not in known:
        raise InvalidInput(f"unknown {what} {value!r}{did_you_mean(value, known)}", field=field)


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


def _seen(d: Draft) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """(stacks, military): the map as the caller sees it (ledger/domain/sight.py). A player's command is judged
    against their own view: a stack, leader or siege hidden from them is one that does not exist, and a
    suggestion names only what they may see; the game master's map then holds what it cannot take."""
    return sight.seen(d.state, d.actor)


def _stacks(d: Draft) -> dict[str, list[Any]]:
    return _seen(d)[0]


def _military(d: Draft) -> dict[str, Any]:
    return _seen(d)[1]


def _forces(d: Draft) -> dict[str, dict[str, Any]]:
    return _military(d).get("forces") or {}


def _own(d: Draft, stack: str, field: str) -> None:
    """A player commands their own country's stacks only (the game master commands every stack)."""
    if d.actor.role != "player":
        return
    country = (_forces(d).get(stack) or {}).get("country")
    if country != d.actor.country:
        raise Forbidden(f"{stack} is a stack of {country}, not of {d.actor.country}: a player commands their own "
                        "country's stacks", field=field, rule="access.own_stacks")


def _stack(d: Draft, stack: str, field: str) -> list[Any]:
    """Where the stack is ([place, ...]): a known stack, commanded by this caller."""
    stacks = _stacks(d)
    _gone(d, stack, field)
    _require(stack, set(stacks), "stack", field)
    _own(d, stack, field)
    return stacks[stack]


@handles(cmd.MoveStack)
def move_stack(d: Draft, c: cmd.MoveStack) -> dict[str, Any]:
    s = scenario(d)
    stacks = _stacks(d)
    _stack(d, c.stack, "stack")
    if c.forced_reason is not None and d.actor.role == "player":
        raise Forbidden("only a game master forces a move", field="forced_reason", rule="access.forced_move")
    places = _places(s)
    _require(c.origin, places, "province or sea zone", "origin")
    for i, place in enumerate(c.via):
        _require(place, places, "province or sea zone", f"via[{i}]")
    _require(c.destination, places, "province or sea zone", "destination")
    d.state.require_open_turn()
    units = {u for u, n in ((_forces(d).get(c.stack) or {}).get("units") or {}).items() if unit_count(n)}
    naval = bool(units) and units <= NAVAL_UNITS  # a unit type lost to the last one does not make it a land stack
    refused = []
    at = stacks[c.stack][0]
    if at != c.origin:
        refused.append(("origin", f"{c.stack} is in {at}, not in {c.origin}"))
    refused += _step_refusals(s, c, naval)
    refused += sequence.not_at_war(d.state, s, _military(d), c.stack, c.path(),
                                   [_step_field(i, c) for i in range(len(c.via) + 1)])
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


def _require_sides(d: Draft, c: cmd.DeclareWar | cmd.MakePeace) -> None:
    countries = _countries(scenario(d))
    for name, side in (("attackers", c.attackers), ("defenders", c.defenders)):
        for country in side:
            _require(country, countries, "country", name)


@handles(cmd.DeclareWar)
def declare_war(d: Draft, c: cmd.DeclareWar) -> dict[str, Any]:
    _require_sides(d, c)
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
        elif name in ("stack", "besiegers"):  # the scenario's stacks and those raised since
            for fld, stack in listed:
                _require(stack, {st["id"] for st in s["stacks"]} | set(_stacks(d)), "stack", prefix + fld)
        elif name == "province" and kind in ("ControlChanged", "OwnerChanged"):  # held by a country: land only
            _require(value, {p["name"] for p in s["provinces"]}, "province", prefix + name)
        elif name in ("origin", "destination", "path", "province"):
            for fld, place in listed:
                _require(place, _places(s), "province or sea zone", prefix + fld)
        elif name in _NAMED:  # controller, owner, previous, attackers, defenders
            for fld, country in listed:
                _require(country, _countries(s), "country", prefix + fld)


def check_ruling_context(d: Draft, context: cmd.Context) -> None:
    """Where a ruling happens and the stacks its roles name, checked against the campaign's scenario (a 422
    naming ``context.where`` or ``context.stacks.<role>``): the map places the ruling's effects with them, so
    a misspelt name would leave them unplaced. A campaign without a scenario has no map to check against."""
    if (context.where is None and not context.stacks) or d.ledger.scenario(d.state.id) is None:
        return
    s = scenario(d)
    if context.where is not None:
        _require(context.where, _places(s), "province or sea zone", "context.where")
    for role, stack in (context.stacks or {}).items():
        _require(stack, {st["id"] for st in s["stacks"]} | set(_stacks(d)), "stack", f"context.stacks.{role}")


_NAMED = frozenset({"stack", "origin", "destination", "path", "province", "controller", "owner", "previous",
                    "attackers", "defenders", "besiegers"})


@handles(cmd.ChangeFortress)
def change_fortress(d: Draft, c: cmd.ChangeFortress) -> dict[str, Any]:
    s = scenario(d)
    _require(c.province, {p["name"] for p in s["provinces"]}, "province", "province")
    d.state.require_open_turn()
    # The level before: the scenario's unless a FortressChanged came since (the map view adds rulings' changes).
    printed = next(p.get("fortress") for p in s["provinces"] if p["name"] == c.province)
    before = (_military(d).get("fortresses") or {}).get(c.province, printed)
    d.add(ev.FortressChanged, c.visibility.as_dict(), province=c.province, level=c.level, previous=before,
          reason=c.reason)
    return {"previous": before}


@handles(cmd.MakePeace)
def make_peace(d: Draft, c: cmd.MakePeace) -> dict[str, Any]:
    _require_sides(d, c)
    wars = _military(d).get("wars") or []
    if war_key(c.attackers, c.defenders) not in wars:
        known = "; ".join(f"{' + '.join(a)} against {' + '.join(b)}" for a, b in wars) or "none"
        raise StateConflict(f"no war of {' + '.join(sorted(c.attackers))} against {' + '.join(sorted(c.defenders))} "
                            f"is in progress (wars in progress: {known})", field="defenders")
    d.state.require_open_turn()
    d.add(ev.PeaceMade, attackers=sorted(c.attackers), defenders=sorted(c.defenders), reason=c.reason)
    return {}


@handles(cmd.RaiseStack)
def raise_stack(d: Draft, c: cmd.RaiseStack) -> dict[str, Any]:
    s = scenario(d)
    if c.stack in _stacks(d):
        raise StateConflict(f"{c.stack} is already a stack on the map: choose another id", field="stack")
    _require(c.country, _countries(s), "country", "country")
    _require(c.location, _places(s), "province or sea zone", "location")
    _arrivals(d, c.leaders, "leaders")
    turn = d.state.require_open_turn()
    d.add(ev.StackRaised, c.visibility.as_dict(), stack=c.stack, country=c.country, location=c.location,
          units=dict(c.units), leaders=[x.model_dump(mode="json") for x in c.leaders], turn=turn, reason=c.reason)
    return {"turn": turn}


def _arrivals(d: Draft, leaders: list[cmd.ArrivingLeader], field: str) -> None:
    """Leaders arriving on the map: none already on it."""
    on_map = {name for f in _forces(d).values() for name in names(f)}
    for i, leader in enumerate(leaders):
        if leader.name in on_map or any(x.name == leader.name for x in leaders[:i]):
            raise StateConflict(f"{leader.name} is already on the map", field=f"{field}[{i}].name")


@handles(cmd.SplitStack)
def split_stack(d: Draft, c: cmd.SplitStack) -> dict[str, Any]:
    scenario(d)
    at = _stack(d, c.stack, "stack")[0]
    if c.new_stack in _stacks(d):
        raise StateConflict(f"{c.new_stack} is already a stack on the map: choose another id", field="new_stack")
    force = _forces(d)[c.stack]
    for unit, n in c.units.items():
        if n > unit_count(force["units"].get(unit, 0)):
            raise InvalidInput(f"{c.stack} has {force['units'].get(unit, 0)} {unit}, not {n}", field=f"units.{unit}")
    for i, leader in enumerate(c.leaders):
        if leader not in names(force):
            raise InvalidInput(f"{leader} is not with {c.stack} (leaders: {', '.join(names(force)) or 'none'})",
                               field=f"leaders[{i}]")
    d.state.require_open_turn()
    d.add(ev.StackSplit, c.visibility.as_dict(), stack=c.stack, new_stack=c.new_stack, country=force["country"],
          location=at, units=dict(c.units), leaders=list(c.leaders), reason=c.reason)
    return {"location": at}


@handles(cmd.MergeStacks)
def merge_stacks(d: Draft, c: cmd.MergeStacks) -> dict[str, Any]:
    scenario(d)
    here = _stack(d, c.stack, "stack")[0]
    there = _stack(d, c.merged, "merged")[0]
    if here != there:
        raise StateConflict(f"{c.merged} is in {there}, {c.stack} in {here}: stacks merge in the same place",
                            field="merged")
    forces = _forces(d)
    if forces[c.stack]["country"] != forces[c.merged]["country"]:
        raise StateConflict(f"{c.merged} is a stack of {forces[c.merged]['country']}, {c.stack} of "
                            f"{forces[c.stack]['country']}: a stack holds one country's forces", field="merged")
    d.state.require_open_turn()
    gone = forces[c.merged]
    d.add(ev.StacksMerged, c.visibility.as_dict(), stack=c.stack, merged=c.merged, location=here,
          units=dict(gone["units"]), leaders=names(gone), reason=c.reason)
    return {"location": here}


@handles(cmd.ChangeStack)
def change_stack(d: Draft, c: cmd.ChangeStack) -> dict[str, Any]:
    scenario(d)
    _stack(d, c.stack, "stack")
    force = _forces(d)[c.stack]
    for unit, n in c.units.items():
        if unit_count(force["units"].get(unit, 0)) + n < 0:
            raise InvalidInput(f"{c.stack} has {force['units'].get(unit, 0)} {unit}: it cannot lose {-n}",
                               field=f"units.{unit}")
    _arrivals(d, c.arriving, "arriving")
    for i, name in enumerate(c.departing):
        if name not in names(force):
            raise InvalidInput(f"{name} is not with {c.stack} (leaders: {', '.join(names(force)) or 'none'})",
                               field=f"departing[{i}]")
    turn = d.state.require_open_turn()
    d.add(ev.StackChanged, c.visibility.as_dict(), stack=c.stack, units=dict(c.units),
          arrived=[a.model_dump(mode="json") for a in c.arriving], departed=list(c.departing), turn=turn,
          reason=c.reason)
    return {"turn": turn}


@handles(cmd.StartSiege)
def start_siege(d: Draft, c: cmd.StartSiege) -> dict[str, Any]:
    _require(c.province, {p["name"] for p in scenario(d)["provinces"]}, "province", "province")
    sieges = _military(d).get("sieges") or {}
    if c.province in sieges:
        raise StateConflict(f"{c.province} is already besieged by {', '.join(sieges[c.province])}", field="province")
    for i, stack in enumerate(c.besiegers):
        at = _stack(d, stack, f"besiegers[{i}]")[0]
        if at != c.province:
            raise StateConflict(f"{stack} is in {at}, not in {c.province}: a besieger stands in the province",
                                field=f"besiegers[{i}]")
    d.state.require_open_turn()
    d.add(ev.SiegeStarted, c.visibility.as_dict(), province=c.province, besiegers=list(c.besiegers),
          reason=c.reason)
    return {}


@handles(cmd.EndSiege)
def end_siege(d: Draft, c: cmd.EndSiege) -> dict[str, Any]:
    _require(c.province, {p["name"] for p in scenario(d)["provinces"]}, "province", "province")
    sieges = _military(d).get("sieges") or {}
    if c.province not in sieges:
        raise StateConflict(f"no siege of {c.province} is in progress (besieged: {', '.join(sieges) or 'none'})",
                            field="province")
    d.state.require_open_turn()
    d.add(ev.SiegeEnded, c.visibility.as_dict(), province=c.province, outcome=c.outcome, reason=c.reason)
    return {}


def _gone(d: Draft, stack: str, field: str) -> None:
    """A stack a ruling destroyed or a disbanding took off the map is said to be gone, not unknown."""
    grave = (_military(d).get("destroyed") or {}).get(stack)
    if grave is not None and stack not in _stacks(d):
        raise StateConflict(f"{stack} is no longer on the map: it left it at position {grave['position']} (a "
                            "correction of that event brings it back)", field=field)


@handles(cmd.DisbandStack)
def disband_stack(d: Draft, c: cmd.DisbandStack) -> dict[str, Any]:
    scenario(d)
    at = _stack(d, c.stack, "stack")[0]
    force = _forces(d)[c.stack]
    d.state.require_open_turn()
    d.add(ev.StackDisbanded, c.visibility.as_dict(), stack=c.stack, location=at, units=dict(force["units"]),
          leaders=names(force), reason=c.reason)
    return {"location": at}


@handles(cmd.SetLeaderValues)
def set_leader_values(d: Draft, c: cmd.SetLeaderValues) -> dict[str, Any]:
    scenario(d)
    forces = _forces(d)
    found = [(sid, x) for sid, f in forces.items() for x in f["leaders"] if x["name"] == c.leader]
    if not found:
        on_map = {x["name"] for f in forces.values() for x in f["leaders"]}
        raise InvalidInput(f"no leader {c.leader!r} is on the map{did_you_mean(c.leader, on_map)}", field="leader")
    sid, leader = found[0]
    _own(d, sid, "leader")
    values = c.values.model_dump(exclude_none=True)
    d.state.require_open_turn()
    d.add(ev.LeaderValuesChanged, c.visibility.as_dict(), leader=c.leader, stack=sid, values=values,
          previous={k: leader.get(k, 0) for k in values}, reason=c.reason)
    return {"stack": sid, "previous": {k: leader.get(k, 0) for k in values}}
