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

#: A country of the board, by code; its French or English name is accepted and recorded as the code.
CountryCode = country_code(extra=load_table("ledger.rules.eu", "country_aliases.toml")["seed"])

#: A trade zone (STZ / CTZ) by the seed's name, with its board id as an alias (tables/trade_centres.toml).
TradeZone = vocabulary(
    "trade zone",
    {name: (z["board"],) for name, z in load_table("ledger.rules.eu", "trade_centres.toml")["zones"].items()},
    "Trade zone by the seed's name ('STZ Lion', 'CTZ Venise'); the board's id (ZMLion, ZPvenise) is accepted",
)
