"""``ledger map ...``: every map command of a turn (moves, splits and merges, units and leaders, control, owner,
markers, sieges, war and peace) from plain arguments, and the map drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, fail, given, ledger_app, out, pair_of, record, scalar
from ledger.domain.commands import (ChangeControl, ChangeFortress, ChangeOwner, ChangeStack, DeclareWar, DisbandStack,
                                     EndSiege, MakePeace, MergeStacks, MoveStack, PlaceMarker, RaiseStack, RemoveMarker,
                                     SetCountryFacts, SetLeaderValues, SplitStack, StartSiege, leader_counter)

map_app = typer.Typer(help="Record moves, sieges, war and peace on the map; draw the map.", no_args_is_help=True)
ReasonOpt = Annotated[Optional[str], typer.Option(help="Why (recorded in the event)")]
UnitsOpt = Annotated[Optional[list[str]], typer.Option("--units", help="UNIT=N, e.g. LD=3; repeat for each type")]
SequenceOpt = Annotated[Optional[str], typer.Option(
    "--out-of-sequence", help="Game master: keep it although the sequence of play refuses it (why; recorded)")]


def kept(reason: str | None) -> dict[str, object]:
    """The context of a command the game master keeps out of sequence (nothing when no reason is given)."""
    return {"context": {"out_of_sequence": reason}} if reason is not None else {}


def _counts(pairs: list[str] | None) -> dict[str, object]:
    """``["LD=3", "CAV=-1"]`` → ``{"LD": 3, "CAV": -1}`` (the command names a count that is not a number)."""
    return {unit: scalar(n) for unit, n in (pair_of(p, "--units") for p in pairs or ())}


@map_app.command("move")
def map_move(
    campaign: str,
    stack: str,
    origin: str,
    destination: str,
    via: Annotated[Optional[list[str]], typer.Option("--via", help="A place passed through; repeat in order")] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded in the event)")] = "movement",
    forced_reason: Annotated[Optional[str], typer.Option(
        help="Record the move although the board or the map refuses a step (game master; recorded as forced)")] = None,
    out_of_sequence: SequenceOpt = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Move STACK from ORIGIN to DESTINATION; each step must share a border on the board, and enter a province of
    the stack's country or of one it is at war with."""
    record(campaign, MoveStack, Actor(actor, "gm"), key, **given(stack=stack, origin=origin, via=via or [], destination=destination,
                                           reason=reason, forced_reason=forced_reason), **kept(out_of_sequence))


@map_app.command("owner")
def map_owner(
    campaign: str,
    province: str,
    owner: str,
    previous: Annotated[Optional[str], typer.Option(help="The owner before (a country of the campaign)")] = None,
    reason: Annotated[str, typer.Option(help="Why (a treaty, an annexation)")] = "ownership",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record that PROVINCE now belongs to OWNER (who controls it is another event: POST .../map/control)."""
    record(campaign, ChangeOwner, Actor(actor, "gm"), key, **given(province=province, owner=owner, previous=previous, reason=reason))


@map_app.command("control")
def map_control(campaign: str, province: str, controller: str,
                previous: Annotated[Optional[str], typer.Option(help="The controller before")] = None,
                reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Record that CONTROLLER now controls PROVINCE (a siege taken, a revolt)."""
    record(campaign, ChangeControl, Actor(actor, "gm"), key, **given(province=province, controller=controller, previous=previous,
                                               reason=reason))


@map_app.command("marker")
def map_marker(campaign: str, province: str, marker: str,
               remove: Annotated[bool, typer.Option("--remove", help="Remove the marker instead")] = False,
               reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Place MARKER (Pillage+, Pillage-, Revolt, Revolt+, Siegework, Siegework+, Foraging, Unrest) on PROVINCE."""
    record(campaign, RemoveMarker if remove else PlaceMarker, Actor(actor, "gm"), key,
           **given(province=province, marker=marker, reason=reason))


@map_app.command("fortress")
def map_fortress(campaign: str, province: str, level: int, reason: ReasonOpt = None, actor: ActorOpt = "gm",
                 key: KeyOpt = None) -> None:
    """PROVINCE's fortress is now at LEVEL (0-5): built up, razed, lowered by a capture."""
    record(campaign, ChangeFortress, Actor(actor, "gm"), key, **given(province=province, level=level, reason=reason))


@map_app.command("raise")
def map_raise(campaign: str, stack: str, country: str, location: str, units: UnitsOpt = None,
              leader: Annotated[Optional[list[str]], typer.Option(
                  "--leader", help="A leader with it and the values printed on the counter, NAME:FIRE/SHOCK/"
                                   "MANOEUVRE/SIEGE (\"Talbot:3/3/2/1\"; a name alone: no values); repeat")] = None,
              reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """A new stack STACK of COUNTRY in LOCATION, with its units (--units LD=6) and leaders (--leader NAME:F/S/M/S)."""
    record(campaign, RaiseStack, Actor(actor, "gm"), key, **given(stack=stack, country=country, location=location, units=_counts(units),
                                            leaders=[_leader(text) for text in leader or ()], reason=reason))


def _leader(text: str) -> dict[str, object]:
    """``"Talbot:3/3/2/1"``: a leader and the fire, shock, manoeuvre and siege printed on the counter."""
    try:
        return leader_counter(text)
    except ValueError as e:
        fail("--leader", str(e))


@map_app.command("split")
def map_split(campaign: str, stack: str, new_stack: str, units: UnitsOpt = None,
              leader: Annotated[Optional[list[str]], typer.Option("--leader", help="A leader who goes; repeat")] = None,
              reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Split units (--units LD=3) and leaders (--leader NAME) off STACK as NEW_STACK, in the same place."""
    record(campaign, SplitStack, Actor(actor, "gm"), key, **given(stack=stack, new_stack=new_stack, units=_counts(units),
                                            leaders=leader or [], reason=reason))


@map_app.command("merge")
def map_merge(campaign: str, stack: str, merged: str, reason: ReasonOpt = None, actor: ActorOpt = "gm",
              key: KeyOpt = None) -> None:
    """MERGED joins STACK (both in the same place) and leaves the map."""
    record(campaign, MergeStacks, Actor(actor, "gm"), key, **given(stack=stack, merged=merged, reason=reason))


@map_app.command("units")
def map_units(campaign: str, stack: str, units: UnitsOpt = None, reason: ReasonOpt = None, actor: ActorOpt = "gm",
              key: KeyOpt = None) -> None:
    """STACK gains (--units LD=2) or loses (--units LD=-1) units outside a ruling."""
    record(campaign, ChangeStack, Actor(actor, "gm"), key, **given(stack=stack, units=_counts(units), reason=reason or "units"))


@map_app.command("leader-arrives")
def map_leader_arrives(
    campaign: str, stack: str, name: str,
    kind: Annotated[str, typer.Option(help="general, admiral, explorer, conquistador, governor, monarch")] = "general",
    fire: int = 0, shock: int = 0, manoeuvre: int = 0, siege: int = 0,
    departs: Annotated[Optional[int], typer.Option(help="Turn of departure printed on the counter")] = None,
    reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None,
) -> None:
    """Leader NAME arrives on STACK this turn (I3), with the values printed on the counter."""
    leader = {"name": name, "kind": kind, "fire": fire, "shock": shock, "manoeuvre": manoeuvre, "siege": siege,
              "departs": departs}
    record(campaign, ChangeStack, Actor(actor, "gm"), key, stack=stack, arriving=[given(**leader)],
           reason=reason or "leader arrives")


@map_app.command("leader-values")
def map_leader_values(campaign: str, leader: Annotated[str, typer.Argument(
        help="NAME:FIRE/SHOCK/MANOEUVRE/SIEGE as printed on the counter, e.g. \"Talbot:3/3/2/1\"")],
                      reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Give a leader on the map the values printed on his counter (he stays where he is: no departure)."""
    counter = _leader(leader)
    if len(counter) == 1:
        fail("leader", f"{leader!r}: give the values, NAME:FIRE/SHOCK/MANOEUVRE/SIEGE, e.g. \"Talbot:3/3/2/1\"")
    name = counter.pop("name")
    record(campaign, SetLeaderValues, Actor(actor, "gm"), key, **given(leader=name, values=counter, reason=reason))


@map_app.command("disband")
def map_disband(campaign: str, stack: str, reason: Annotated[str, typer.Option(help="Why it leaves the map")],
                actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """STACK leaves the map with its units and leaders (a stack a battle destroys leaves by the ruling)."""
    record(campaign, DisbandStack, Actor(actor, "gm"), key, stack=stack, reason=reason)


@map_app.command("leader-leaves")
def map_leader_leaves(campaign: str, stack: str, name: str, reason: ReasonOpt = None, actor: ActorOpt = "gm",
                      key: KeyOpt = None) -> None:
    """Leader NAME leaves the game from STACK this turn (I3: the turn of departure on the counter)."""
    record(campaign, ChangeStack, Actor(actor, "gm"), key, **given(stack=stack, departing=[name], reason=reason or "leader leaves"))


@map_app.command("siege")
def map_siege(campaign: str, province: str, besiegers: list[str], reason: ReasonOpt = None,
              out_of_sequence: SequenceOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """A siege of PROVINCE begins, by the stacks BESIEGERS (each in the province)."""
    record(campaign, StartSiege, Actor(actor, "gm"), key, **given(province=province, besiegers=besiegers, reason=reason), **kept(out_of_sequence))


@map_app.command("siege-end")
def map_siege_end(campaign: str, province: str,
                  outcome: Annotated[str, typer.Argument(help="taken, lifted or relieved")],
                  reason: ReasonOpt = None, out_of_sequence: SequenceOpt = None, actor: ActorOpt = "gm",
                  key: KeyOpt = None) -> None:
    """The siege of PROVINCE is over: taken, lifted or relieved (control is its own command: map control)."""
    record(campaign, EndSiege, Actor(actor, "gm"), key, **given(province=province, outcome=outcome, reason=reason), **kept(out_of_sequence))


@map_app.command("war")
def map_war(campaign: str,
            attackers: Annotated[list[str], typer.Option("--attacker", help="A country that declares; repeat")],
            defenders: Annotated[list[str], typer.Option("--defender", help="A country at war with them; repeat")],
            reason: ReasonOpt = None, out_of_sequence: SequenceOpt = None, actor: ActorOpt = "gm",
            key: KeyOpt = None) -> None:
    """Declare war: --attacker ENG --defender FRA."""
    record(campaign, DeclareWar, Actor(actor, "gm"), key, **given(attackers=attackers, defenders=defenders, reason=reason), **kept(out_of_sequence))


@map_app.command("peace")
def map_peace(campaign: str,
              attackers: Annotated[list[str], typer.Option("--attacker", help="A country of the war's attackers")],
              defenders: Annotated[list[str], typer.Option("--defender", help="A country of its defenders")],
              reason: ReasonOpt = None, out_of_sequence: SequenceOpt = None, actor: ActorOpt = "gm",
              key: KeyOpt = None) -> None:
    """Peace ends the war of --attacker ENG against --defender FRA (the sides as declared)."""
    record(campaign, MakePeace, Actor(actor, "gm"), key, **given(attackers=attackers, defenders=defenders, reason=reason),
           **kept(out_of_sequence))


@map_app.command("country")
def map_country(
    campaign: str,
    country: str,
    land_technology: Annotated[Optional[str], typer.Option(help="Land technology (MED, REN... or its name)")] = None,
    naval_technology: Annotated[Optional[str], typer.Option(help="Naval technology (CAR, GAL... or its name)")] = None,
    domestic_trade_index: Annotated[Optional[int], typer.Option(help="DTI, 1-5: the domestic trade table's column")] = None,
    vassal: Annotated[Optional[list[str]], typer.Option("--vassal", help="A vassal (repeat); with --no-vassals: none")] = None,
    no_vassals: Annotated[bool, typer.Option("--no-vassals", help="The country has no vassal")] = False,
    manufacture: Annotated[Optional[list[str]], typer.Option(
        "--manufacture", help="RESOURCE:PROVINCE:LEVEL:INCOME, e.g. Wine:Tras-os-Montes:1:4 (repeat)")] = None,
    mine: Annotated[Optional[list[str]], typer.Option(
        "--mine", help="PLACE=COUNT: mines exploited as European mines beyond the board's gold, e.g. Cotedor=2")] = None,
    depleted: Annotated[Optional[list[str]], typer.Option("--depleted", help="A board gold province whose mine is depleted")] = None,
    reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None,
) -> None:
    """Set COUNTRY's economic facts the income lines read (a fact left out keeps its value)."""
    made = []
    for m in manufacture or ():
        parts = m.split(":")
        if len(parts) != 4:
            fail("manufacture", f"{m!r}: RESOURCE:PROVINCE:LEVEL:INCOME")
        made.append({"resource": parts[0], "province": parts[1], "level": scalar(parts[2]), "income": scalar(parts[3])})
    mines = {place: scalar(n) for place, n in (pair_of(p, "--mine") for p in mine or ())}
    record(campaign, SetCountryFacts, Actor(actor, "gm"), key, **given(
        country=country, land_technology=land_technology, naval_technology=naval_technology,
        domestic_trade_index=domestic_trade_index, vassals=[] if no_vassals else vassal or None,
        manufactures=made or None, mines=mines or None, depleted_mines=depleted, reason=reason))


@map_app.command("svg")
def map_svg(
    campaign: str,
    output: Annotated[Path, typer.Option("--out", help="Where to write the SVG")],
    at: Annotated[Optional[int], typer.Option(help="Position N (default: the head)")] = None,
) -> None:
    """Draw the map as of position N (as a game master sees it) into an SVG file."""
    from projections import read, replay, svg  # the CLI is the write side's one door to the read side
    from projections.runner import Projector

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        state = ledger.campaign(cid)
        n = state.version if at is None else at
        projector = Projector(ledger)
        projector.catch_up()
        doc = replay.state_at(ledger, projector.db, cid, n)["map"]
        record = read.records(ledger, cid, n - 1, n)[0] if n else None
        board = (ledger.scenario(cid) or {}).get("board")
        output.write_text(svg.render(doc, record, board=board, title=state.name), encoding="utf-8")
        out.print(f"map as of position {n} written to {output}")
