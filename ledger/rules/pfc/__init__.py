"""Ruleset ``pfc``: the French operational wargame tables (PF, cohesion, VC).

Seed: ``pf-cohesion-wargame-tables.fr.txt``. Each procedure module registers its
resolvers on ``PFC`` when imported; ``load_all()`` (called by
``get_ruleset("pfc")``) imports every module so the registry is complete.
"""

from ledger.rules.core import Ruleset, import_procedure_modules, register_ruleset

#: Bump when a table or a resolver changes what a ruling computes: recorded
#: rulings keep the version they were computed with.
VERSION = "1.0"

PFC = register_ruleset(
    Ruleset(id="pfc", version=VERSION, title="French operational wargame tables (PF, cohesion, command)")
)


def load_all() -> None:
    import_procedure_modules(__name__, __path__)
