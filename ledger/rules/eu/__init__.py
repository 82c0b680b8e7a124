"""Ruleset ``eu``: the Europa Universalis 8-player variant (seeds 2015-2016).

Each procedure module registers its resolvers on ``EU`` when imported.
``load_all()`` (called by ``get_ruleset("eu")``) imports every module, so the
registry is complete; importing one module alone stays cheap.
"""

from ledger.rules.core import Ruleset, import_procedure_modules, register_ruleset

#: Bump when a table or a resolver changes what a ruling computes: recorded
#: rulings keep the version they were computed with.
VERSION = "2016.2"

EU = register_ruleset(
    Ruleset(id="eu", version=VERSION, title="Europa Universalis, 8-player variant")
)


def load_all() -> None:
    import_procedure_modules(__name__, __path__)
