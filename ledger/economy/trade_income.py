"""The trade and rest-of-the-world lines of the Economic Record Sheet worked out from the board (issue 36):
B11 and B12 (trade fleets' level and monopoly income), B13 (count of trade monopolies), B14 (trade centres),
B17 and B18 (colonies, trading posts), B19 (exotic resources), B32 (missions' maintenance).

Each worker reads a country's facts as the write side holds them (ledger/domain/trade_facts.py, in
``EconomyFacts.countries``: trade fleets, trade centres, colonies, trading posts, what they exploit, missions,
each with the position that set it) and the board (trade zones' presence and monopoly values, areas' income and
resources). The readings the rules leave open are ruleset data (``tables/trade_income.toml``), each with its
DECISIONS.md heading; ``options`` overrides them by key. Registered in ``board_income.WORKERS`` when imported
(``ledger/economy/__init__.py`` imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from ledger.domain.trade_facts import position_key
from ledger.economy.board_income import EconomyFacts, ProposedLine, Source, Undetermined, worker
from ledger.rules.core import load_table

#: The trade centres as people name them.
CENTRES = {"great_orient": "Great Orient", "atlantic": "Atlantic", "mediterranean": "Mediterranean",
           "indian_ocean": "Indian Ocean"}
#: Exotic resources by the board's codes, as people name them.
RESOURCE_NAMES = {"sl": "Slaves", "sp": "Spices", "silk": "Silk", "fur": "Fur", "fish": "Fish", "salt": "Salt",
                  "su": "Sugar", "subr": "Sugar (Brazil)", "co": "Cotton", "coas": "Cotton (Asia)",
                  "pa": "Products of America", "po": "Products of Orient", "wood": "Wood"}


@cache
def _data(ruleset: str) -> Mapping[str, Any]:
    return MappingProxyType(load_table(f"ledger.rules.{ruleset}", "trade_income.toml"))


def option(facts: EconomyFacts, key: str) -> Any:
    """A reading: the campaign's choice (``options``), else the ruleset's (tables/trade_income.toml)."""
    if key in facts.options:
        return facts.options[key]
    return _data(facts.ruleset)["defaults"][key]


@cache
def zone_ids() -> Mapping[str, str]:
    """Trade zone name on the map ("STZ Canarias") -> its board id ("ZMCanarias") (tables/trade_centres.toml)."""
    return MappingProxyType({n: z["board"] for n, z in
                             load_table("ledger.rules.eu", "trade_centres.toml")["zones"].items()})


def _zone(facts: EconomyFacts, zone: str) -> Any:
    if facts.board is None:
        raise Undetermined("the campaign's board is unknown: its trade zones' values cannot be read")
    return facts.board.trade_zones[zone_ids()[zone]]


def _line(code: str, lineage: list[Source], rule: str) -> ProposedLine:
    return ProposedLine(code=code, amount=sum(s.amount for s in lineage), lineage=tuple(lineage), rule=rule)


def _fleets(facts: EconomyFacts, country: str) -> list[tuple[str, int, int | None]]:
    """(zone, level, position that set it) of each of the country's trade fleets, by zone."""
    c = facts.country(country)
    at = c.get("at") or {}
    return [(z, int(level), at.get(position_key("trade_fleets", z)))
            for z, level in sorted((c.get("trade_fleets") or {}).items())]


# ------------------------------------------------------------------------------------- trade (B11-B14)


@worker("B11")
def fleet_level_income(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each trade fleet: 1 ducat a level in a sea trade zone, 2 in a country's trade zone (the Baltic's too)."""
    lineage = []
    for zone, level, at in _fleets(facts, country):
        kind = _zone(facts, zone).type
        per = int(option(facts, "B11.ctz_per_level" if kind == "CTZ" else "B11.stz_per_level"))
        lineage.append(Source("trade_zone", zone, level * per, at, f"level {level} x {per} ducat{'s' * (per != 1)} "
                                                                   f"({kind})"))
    return _line("B11", lineage, "Incomes, commercial fleets: 1 ducat per level in an STZ, 2 in a CTZ "
                                 "(engIncomes.tex, Trading zones)")


def monopoly(facts: EconomyFacts, level: int) -> str:
    """What a fleet of ``level`` holds in its zone: "total", "partial" or "presence"."""
    if level >= int(option(facts, "B12.total")):
        return "total"
    return "partial" if level >= int(option(facts, "B12.face_plus")) else "presence"


@worker("B12")
def fleet_monopoly_income(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each trade fleet: a total monopoly (level 6) the zone's large print, a partial one (Face+) half of it
    rounded down, a Face− fleet the small print (its presence)."""
    lineage = []
    for zone, level, at in _fleets(facts, country):
        z = _zone(facts, zone)
        held = monopoly(facts, level)
        if held == "total":
            lineage.append(Source("trade_zone", zone, z.monopoly, at, f"total monopoly (level {level}): {z.monopoly}"))
        elif held == "partial":
            lineage.append(Source("trade_zone", zone, z.monopoly // 2, at,
                                  f"partial monopoly (level {level}, Face+): half of {z.monopoly}, rounded down"))
        else:
            lineage.append(Source("trade_zone", zone, z.presence, at, f"presence (level {level}, Face−): {z.presence}"))
    return _line("B12", lineage, "Incomes, monopolies: the large print for a total monopoly, half of it for a "
                                 "partial one, the small print for a Face− fleet (engIncomes.tex, Monopolies)")


@worker("B13")
def trade_monopolies(facts: EconomyFacts, country: str) -> ProposedLine:
    """The number (not ducats) of the zones where the country holds a partial or a total monopoly."""
    lineage = [Source("trade_zone", zone, 1, at, f"{held} monopoly (level {level})")
               for zone, level, at in _fleets(facts, country) if (held := monopoly(facts, level)) != "presence"]
    return _line("B13", lineage, "Incomes, monopolies: the number of partial and total monopolies in trade zones, "
                                 "for victory points (engIncomes.tex, Monopolies)")


@worker("B14")
def trade_centres_income(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each centre the country holds: 100 ducats (Atlantic, Mediterranean), 50 (Indian Ocean), the Great
    Orient's recorded income; nothing while another country controls the centre's province."""
    c = facts.country(country)
    at = c.get("at") or {}
    fixed = option(facts, "B14.fixed")
    lineage = []
    for centre, where in sorted((c.get("trade_centres") or {}).items()):
        name, set_at = f"{CENTRES.get(centre, centre)} centre", at.get(position_key("trade_centres", centre))
        if centre in fixed:
            income, note = int(fixed[centre]), f"fixed income {fixed[centre]}"
        elif where.get("income") is not None:
            income, note = int(where["income"]), f"income recorded: {where['income']}"
        else:
            raise Undetermined(f"the {name}'s income is not recorded (ledger trade centre ... {country} "
                               "--income N)")
        province = where.get("province")
        p = facts.provinces.get(province or "") or {}
        controller = p.get("controller") or p.get("owner")
        if province and option(facts, "B14.occupied_brings_nothing") and controller and controller != country:
            lineage.append(Source("trade_centre", name, 0, facts.set_at(province, "controller"),
                                  f"{province} controlled by {controller}: occupied, no income this turn"))
        else:
            lineage.append(Source("trade_centre", name, income, set_at, note + (f", in {province}" if province else "")))
    return _line("B14", lineage, "Incomes, trade centres: 100 ducats for the Atlantic and Mediterranean centres, "
                                 "50 for the Indian Ocean's, the Great Orient's computed income; none while "
                                 "occupied (engIncomes.tex, Trade centres)")


# ------------------------------------------------------------------------- rest of the world (B17-B19)


@dataclass(frozen=True)
class Establishment:
    kind: str  # colonies | trading_posts
    place: str
    level: int
    at: int | None
    lost: tuple[str, int | None] | None  # why it brings nothing this turn, and the position that made it so


def establishments(facts: EconomyFacts, country: str, kind: str) -> list[Establishment]:
    c = facts.country(country)
    at = c.get("at") or {}
    out = []
    for place, level in sorted((c.get(kind) or {}).items()):
        lost = facts.lost(place) if place in facts.provinces else None
        out.append(Establishment(kind, place, int(level), at.get(position_key(kind, place)), lost))
    return out


def _area(facts: EconomyFacts, place: str) -> Any:
    if facts.board is None:
        raise Undetermined("the campaign's board is unknown: its areas' income cannot be read")
    return facts.board.region(facts.board.rotw[place].region)


@worker("B17")
def colonies(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each colony: 1 ducat a level plus its area's income (twice it on the Face+ side); nothing from one
    exploiting gold, or pillaged, in revolt or occupied."""
    gold = set(facts.country(country).get("gold") or ())
    face_plus = int(option(facts, "B17.face_plus"))
    lineage = []
    for e in establishments(facts, country, "colonies"):
        area = _area(facts, e.place)
        if e.place in gold:
            lineage.append(Source("colony", e.place, 0, e.at, "exploits gold: no other income"))
        elif e.lost is not None:
            lineage.append(Source("colony", e.place, 0, e.lost[1], e.lost[0]))
        else:
            times = 2 if e.level >= face_plus else 1
            income = int(area.income or 0)
            lineage.append(Source("colony", e.place, e.level + times * income, e.at,
                                  f"level {e.level} + {'twice ' if times == 2 else ''}the income of {area.name} "
                                  f"({income})"))
    return _line("B17", lineage, "Incomes, colonies: 1 ducat per level and the area's income (twice on the Face+ "
                                 "side); none exploiting gold (engIncomes.tex, Colonies & Trading-posts)")


@worker("B18")
def trading_posts(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each trading post: 1 ducat on its Face− side, 2 on its Face+ side; nothing pillaged, in revolt or occupied."""
    lineage = []
    for e in establishments(facts, country, "trading_posts"):
        if e.lost is not None:
            lineage.append(Source("trading_post", e.place, 0, e.lost[1], e.lost[0]))
            continue
        plus = e.level >= int(option(facts, "B18.face_plus_from"))
        income = int(option(facts, "B18.face_plus" if plus else "B18.face_minus"))
        lineage.append(Source("trading_post", e.place, income, e.at,
                              f"level {e.level}, {'Face+' if plus else 'Face−'}: {income}"))
    return _line("B18", lineage, "Incomes, trading posts: 1 ducat on the Face− side, 2 on the Face+ side "
                                 "(engIncomes.tex, Colonies & Trading-posts)")


@dataclass(frozen=True)
class Exploited:
    """Units of one resource a country exploits in one place, at a price; ``plantation``: it needs a slave."""

    place: str
    resource: str
    units: int
    price: int
    plantation: bool
    at: int | None


def plantations(exploited: list[Exploited], slaves_received: int, contraband: str) -> list[tuple[Exploited, int, str]]:
    """(exploited, income, how) for each exploitation (engIncomes.tex, Slaves and plantations): every unit of a
    plantation resource in America needs one exploited slave: the country's own (which also bring their own
    income), those received from others, then contraband: half the price rounded down per unit with direct
    contraband, nothing with international contraband. The slaves go first to the dearest units (the player's
    best choice: the rules' own example puts contraband on the cheapest)."""
    own = sum(e.units for e in exploited if e.resource == "sl")
    slaves = own + slaves_received
    out: list[tuple[Exploited, int, str]] = []
    for e in sorted(exploited, key=lambda e: (not e.plantation, -e.price, e.place, e.resource)):
        if not e.plantation:
            out.append((e, e.units * e.price, f"{e.units} x {e.price}"))
            continue
        worked = min(e.units, slaves)
        slaves -= worked
        rest = e.units - worked
        half = e.price // 2 if contraband == "direct" else 0
        parts = [f"{worked} x {e.price} with slaves"] if worked else []
        if rest:
            parts.append(f"{rest} x {half} with {contraband} contraband")
        out.append((e, worked * e.price + rest * half, ", ".join(parts)))
    return out


@worker("B19")
def exotic_resources(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each resource exploited: units x price; the plantations of America need slaves (``plantations``)."""
    c = facts.country(country)
    at = c.get("at") or {}
    prices = option(facts, "B19.prices")
    square, not_america = set(option(facts, "B19.plantation")), set(option(facts, "B19.not_america"))
    standing = {e.place: e for kind in ("colonies", "trading_posts") for e in establishments(facts, country, kind)}
    lineage, exploited = [], []
    for place, resources in sorted((c.get("exploits") or {}).items()):
        e = standing.get(place)
        if e is None:
            continue
        kind = "colony" if e.kind == "colonies" else "trading_post"
        if e.lost is not None and option(facts, "B19.lost_exploits_nothing"):
            lineage.append(Source(kind, place, 0, e.lost[1], f"{e.lost[0]}: exploits nothing"))
            continue
        for resource, units in sorted(resources.items()):
            if resource not in prices:
                raise Undetermined(f"the price of {RESOURCE_NAMES.get(resource, resource)} is not set (rules option "
                                   "B19.prices)")
            area = _area(facts, place).name
            exploited.append(Exploited(place, resource, int(units), int(prices[resource]),
                                       resource in square and area not in not_america, e.at))
    received = int((option(facts, "B19.slaves_received") or {}).get(country, 0))
    zones = set(option(facts, "B19.contraband_zones"))
    contraband = "direct" if zones & set((c.get("trade_fleets") or {})) else "international"
    for e, income, how in plantations(exploited, received, contraband):
        kind = "colony" if e.place in (c.get("colonies") or {}) else "trading_post"
        lineage.append(Source(kind, e.place, income, at.get(position_key(
            "colonies" if kind == "colony" else "trading_posts", e.place)),
            f"{RESOURCE_NAMES.get(e.resource, e.resource)}: {how}"))
    return _line("B19", lineage, "Incomes, exotic resources: the units exploited times their price; plantations in "
                                 "America need slaves (engIncomes.tex, Exotic resources)")


# ------------------------------------------------------------------------------------ expenses (B32)


@worker("B32")
def missions_maintenance(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each mission's fort: 1 ducat (the forts of colonies and trading posts are free), as a positive expense."""
    c = facts.country(country)
    at = c.get("at") or {}
    per = int(option(facts, "B32.per_mission"))
    lineage = [Source("mission", place, per, at.get(position_key("missions", place)), f"its fort: {per} ducat")
               for place in c.get("missions") or ()]
    return _line("B32", lineage, "Expenses, maintenance of fortresses: a mission's fort is maintained, 1 ducat "
                                 "(engExpLogistic.tex)")
