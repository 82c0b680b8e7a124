"""The technologies of the eu ruleset: one vocabulary for every procedure.

Land and naval technologies are input types built from ``tables/technologies.toml``:
the code is what a ruling records; the full names and the spellings the seeds
use elsewhere (``Nau``, ``74s``, ``\\TSF``) are accepted and resolved to it.
"""

from __future__ import annotations

from ledger.rules.core import load_table
from ledger.rules.names import vocabulary

_TABLE = load_table("ledger.rules.eu", "technologies.toml")

LAND_TECHNOLOGIES: tuple[str, ...] = tuple(_TABLE["land"])
NAVAL_TECHNOLOGIES: tuple[str, ...] = tuple(_TABLE["naval"])

LandTech = vocabulary("land technology", _TABLE["land"], "Land technology (TABLES.md code; full name accepted)")
NavalTech = vocabulary("naval technology", _TABLE["naval"], "Naval technology (TABLES.md code; full name accepted)")
