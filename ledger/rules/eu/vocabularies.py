"""The closed vocabularies of the eu ruleset's inputs: countries, trade zones and technologies.

Countries are the board's codes (their French and English names accepted). Land
and naval technologies are built from ``tables/technologies.toml``: the code is
what a ruling records; the full names and the spellings the seeds use elsewhere
(``Nau``, ``74s``, ``\\TSF``) are accepted and resolved to it.
"""

from __future__ import annotations

from ledger.rules.core import load_table
from ledger.rules.names import country_code, vocabulary

_TABLE = load_table("ledger.rules.eu", "technologies.toml")

LAND_TECHNOLOGIES: tuple[str, ...] = tuple(_TABLE["land"])
NAVAL_TECHNOLOGIES: tuple[str, ...] = tuple(_TABLE["naval"])

LandTech = vocabulary("land technology", _TABLE["land"], "Land technology (TABLES.md code; full name accepted)")
NavalTech = vocabulary("naval technology", _TABLE["naval"], "Naval technology (TABLES.md code; full name accepted)")

_SEED_ALIASES = load_table("ledger.rules.eu", "country_aliases.toml")["seed"]
_KINDS = load_table("ledger.rules.eu", "country_kinds.toml")
#: The board's country types a seed's "minor" and "major" name (tables/country_kinds.toml).
MINOR_TYPES: tuple[str, ...] = tuple(_KINDS["minor"])
MAJOR_TYPES: tuple[str, ...] = tuple(_KINDS["major"])

#: A country of the board, by code; its French or English name is accepted and recorded as the code.
CountryCode = country_code(extra=_SEED_ALIASES)
#: A major power: a country the board marks major, or minormajor (a game may play it as a major).
MajorCode = country_code("A major power of the board (a major or a minormajor), by code; its French or English "
                         "name is accepted and recorded as the code", extra=_SEED_ALIASES, types=MAJOR_TYPES,
                         what="major power")
#: A minor: a country the board marks minor, rest of the world, revolt or minormajor.
MinorCode = country_code("A minor of the board (a minor, of the rest of the world, born of a revolt, or a "
                         "minormajor left minor), by code; its French or English name is accepted and recorded "
                         "as the code", extra=_SEED_ALIASES, types=MINOR_TYPES, what="minor")


def country_type(code: str) -> str:
    """The board's type of a country code (major, minormajor, minor, rotw, revolt, hab, virtual)."""
    from ledger.board import load_board

    return load_board("eu").countries[code].type

#: A trade zone (STZ / CTZ) by the seed's name, with its board id as an alias (tables/trade_centres.toml).
TradeZone = vocabulary(
    "trade zone",
    {name: (z["board"],) for name, z in load_table("ledger.rules.eu", "trade_centres.toml")["zones"].items()},
    "Trade zone by the seed's name ('STZ Lion', 'CTZ Venise'); the board's id (ZMLion, ZPvenise) is accepted",
)


def _places() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Provinces (European and rest of the world) and sea zones of the board, each with its other printed
    names as aliases; an other name two places share is nobody's alias (it would be a silent choice)."""
    from collections import Counter

    from ledger.board import load_board

    board = load_board("eu")
    provinces = {n: p.other_names for n, p in (*board.provinces.items(), *board.rotw.items())}
    seas = {n: () for n in board.seas}
    taken = Counter(a.casefold() for names in provinces.values() for a in set(names))
    taken.update(n.casefold() for n in (*provinces, *seas))
    provinces = {n: tuple(a for a in names if taken[a.casefold()] == 1) for n, names in provinces.items()}
    return provinces, seas


_PROVINCES, _SEAS = _places()
#: A province of the board (Europe or the rest of the world), by its printed name; other printed names accepted.
ProvinceName = vocabulary("province", _PROVINCES, "Province of the board, by its printed name")
#: A sea zone of the board, by its printed name.
SeaZoneName = vocabulary("sea zone", _SEAS, "Sea zone of the board, by its printed name")
#: A province or a sea zone of the board.
PlaceName = vocabulary("place", {**_PROVINCES, **_SEAS}, "Province or sea zone of the board, by its printed name")
