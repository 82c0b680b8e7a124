"""Commands that set a country's trade and rest-of-the-world facts on the board (issue 36): trade fleets by
trade zone and level, trade centres held, colonies and trading posts with their levels and what they exploit,
missions. The income sheet's trade and colonial lines are worked out from them (ledger/economy/trade_income.py).

Names are checked against the campaign's board: trade zones by their names on the map ("STZ Canarias", the
board's id "ZMCanarias" accepted and recorded as the name), rest-of-the-world provinces, the scenario's
countries; a typo is a 422 naming the field with the closest names, and nothing is appended. What the rules
forbid on the board is a 409 naming the field: a second Face+ fleet (4-6) in a zone, any other fleet beside a
total monopoly (level 6) (engIncomes.tex, Monopolies), a resource the area does not have or more units of it
than the area holds, gold where the province has no mine. The game master records them (the access table:
``ledger/access.py``); they are public, like the map's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.board import did_you_mean, load_board
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.domain.trade_facts import ESTABLISHMENTS, fleets_in, holder_of
from ledger.economy.trade_income import zone_ids
from ledger.usecases.map import scenario
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft

#: A trade fleet on its Face+ side (a partial monopoly), and a total monopoly (engIncomes.tex, Monopolies).
FACE_PLUS, TOTAL = 4, 6


def zone_name(value: str, field: str) -> str:
    """A trade zone by its name on the map, or the board's id (recorded as the name); else a 422."""
    names = zone_ids()
    if value in names:
        return value
    by_id = {board: name for name, board in names.items()}
    if value in by_id:
        return by_id[value]
    raise InvalidInput(f"unknown trade zone {value!r}"
                       f"{did_you_mean(value, names, aliases={n: (b,) for n, b in names.items()})}", field=field)


def _board(d: Draft) -> Any:
    return load_board(scenario(d).get("board") or d.state.ruleset or "eu")


def _country(d: Draft, code: str, field: str) -> None:
    known = {c["code"] for c in scenario(d)["countries"]}
    if code not in known:
        raise InvalidInput(f"unknown country {code!r}{did_you_mean(code, known)}", field=field)


def _rotw_place(d: Draft, place: str, field: str) -> Any:
    """A rest-of-the-world province of the board (its other printed names suggested)."""
    rotw = _board(d).rotw
    if place not in rotw:
        aliases = {n: p.other_names for n, p in rotw.items()}
        raise InvalidInput(f"unknown rest-of-the-world province {place!r}"
                           f"{did_you_mean(place, rotw, aliases=aliases)}", field=field)
    return rotw[place]


def _province(d: Draft, name: str, field: str) -> None:
    known = {p["name"] for p in scenario(d)["provinces"]}
    if name not in known:
        raise InvalidInput(f"unknown province {name!r}{did_you_mean(name, known)}", field=field)


def countries(d: Draft) -> dict[str, Any]:
    """Each country's facts as the write side holds them (the forces model's ``"countries"`` part)."""
    return (d.state.military or {}).get("countries") or {}


def _payload(c: cmd.Command) -> dict[str, Any]:
    return c.model_dump(mode="json", exclude={"visibility", "context"})


@handles(cmd.ChangeTradeFleet)
def change_trade_fleet(d: Draft, c: cmd.ChangeTradeFleet) -> dict[str, Any]:
    _country(d, c.country, "country")
    zone = zone_name(c.zone, "zone")
    d.state.require_open_turn()
    present = fleets_in(countries(d), zone)
    previous = present.pop(c.country, 0)
    if c.level == previous:
        raise StateConflict(f"{c.country}'s trade fleet in {zone} is already at level {previous}", field="level")
    _fleets_fit(zone, c.country, c.level, present)
    d.add(ev.TradeFleetChanged, c.visibility.as_dict(), country=c.country, zone=zone, level=c.level,
          previous=previous, reason=c.reason)
    return {"zone": zone, "previous": previous}


def _fleets_fit(zone: str, country: str, level: int, others: dict[str, int]) -> None:
    """engIncomes.tex, Monopolies: beside a level 6 fleet no other fleet; one Face+ (4-6) fleet per zone."""
    listed = ", ".join(f"{k} {v}" for k, v in others.items())
    total = next((k for k, v in others.items() if v >= TOTAL), None)
    if total is not None:
        raise StateConflict(f"{total} holds the total monopoly of {zone} (level 6): no other country may have a "
                            f"trade fleet there", field="level")
    if level >= TOTAL and others:
        raise StateConflict(f"a total monopoly (level 6) leaves no other fleet in {zone}, where {listed} "
                            "have one: lower theirs first", field="level")
    plus = next((k for k, v in others.items() if v >= FACE_PLUS), None)
    if level >= FACE_PLUS and plus is not None:
        raise StateConflict(f"{plus} already has a Face+ fleet (level {others[plus]}) in {zone}: only one "
                            "country may (levels 4-6)", field="level")


@handles(cmd.ChangeTradeCentre)
def change_trade_centre(d: Draft, c: cmd.ChangeTradeCentre) -> dict[str, Any]:
    if c.holder is not None:
        _country(d, c.holder, "holder")
    if c.province is not None:
        _province(d, c.province, "province")
    d.state.require_open_turn()
    previous = holder_of(countries(d), c.centre)
    d.add(ev.TradeCentreChanged, c.visibility.as_dict(), centre=c.centre, holder=c.holder, previous=previous,
          province=c.province, income=c.income, reason=c.reason)
    return {"previous": previous}


@handles(cmd.ChangeEstablishment)
def change_establishment(d: Draft, c: cmd.ChangeEstablishment) -> dict[str, Any]:
    _country(d, c.country, "country")
    province = _rotw_place(d, c.place, "place")
    _exploitable(d, province, c)
    d.state.require_open_turn()
    what = "colony" if c.kind == "colony" else "trading post"
    previous = ((countries(d).get(c.country) or {}).get(ESTABLISHMENTS[c.kind]) or {}).get(c.place, 0)
    if c.level == 0 and previous == 0:
        raise StateConflict(f"{c.country} has no {what} in {c.place}", field="level")
    d.add(ev.EstablishmentChanged, c.visibility.as_dict(), **{**_payload(c), "previous": previous})
    return {"previous": previous}


def _exploitable(d: Draft, province: Any, c: cmd.ChangeEstablishment) -> None:
    """What an establishment exploits is in its area (engIncomes.tex, Exotic resources: an area's resources
    are shared by its establishments), at most the units the area holds; gold needs the province's mine."""
    region = _board(d).region(province.region)
    for resource, units in c.exploits.items():
        there = region.resources.get(resource, 0)
        if units > there:
            held = ", ".join(f"{k} {v}" for k, v in region.resources.items()) or "none"
            raise StateConflict(f"the area {region.name} holds {there} {resource}, not {units} (its resources: "
                                f"{held})", field=f"exploits.{resource}")
    if c.gold and province.gold is None:
        raise StateConflict(f"{c.place} has no gold mine", field="gold")


@handles(cmd.ChangeMission)
def change_mission(d: Draft, c: cmd.ChangeMission) -> dict[str, Any]:
    _country(d, c.country, "country")
    _rotw_place(d, c.place, "place")
    d.state.require_open_turn()
    there = c.place in ((countries(d).get(c.country) or {}).get("missions") or ())
    if there == c.present:
        raise StateConflict(f"{c.country} {'already has' if there else 'has no'} mission in {c.place}",
                            field="present")
    d.add(ev.MissionChanged, c.visibility.as_dict(), **_payload(c))
    return {}


def check_restated(d: Draft, fields: dict[str, Any], prefix: str = "") -> None:
    """The names a correction restates of a trade event, checked as the commands check theirs (a 422 naming
    ``prefix + field``)."""
    for name, value in fields.items():
        if name in ("country", "holder") and value is not None:
            _country(d, value, prefix + name)
        elif name == "zone":
            if zone_name(value, prefix + name) != value:
                raise InvalidInput(f"a trade zone is restated by its name on the map, {zone_name(value, name)!r}",
                                   field=prefix + name)
        elif name == "place":
            _rotw_place(d, value, prefix + name)
        elif name == "province" and value is not None:
            _province(d, value, prefix + name)
