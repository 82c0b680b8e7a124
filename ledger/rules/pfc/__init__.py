"""Ruleset ``pfc``: the French operational wargame tables (PF, cohesion, VC).

Seed: ``pf-cohesion-wargame-tables.fr.txt``. Each procedure module registers its
resolvers on ``PFC`` when imported; ``load_all()`` (called by
``get_ruleset("pfc")``) imports every module so the registry is complete.
"""

import importlib
import pkgutil

from ledger.rules.core import Ruleset, register_ruleset

#: Bump when a table or a resolver changes what a ruling computes: recorded
#: rulings keep the version they were computed with.
VERSION = "1.0"

PFC = register_ruleset(
    Ruleset(id="pfc", version=VERSION, title="French operational wargame tables (PF, cohesion, command)")
)


def load_all() -> None:
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
