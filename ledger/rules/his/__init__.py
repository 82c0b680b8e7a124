"""Ruleset ``his``: the "Here I Stand" land movement extract (his-land-movement.ru.txt).

Each procedure module registers its resolvers on ``HIS`` when imported.
``load_all()`` (called by ``get_ruleset("his")``) imports every module, so the
registry is complete; importing one module alone stays cheap.
"""

from ledger.rules.core import Ruleset, import_procedure_modules, register_ruleset

#: Bump when a table or a resolver changes what a ruling computes: recorded
#: rulings keep the version they were computed with.
VERSION = "1.0"

HIS = register_ruleset(
    Ruleset(id="his", version=VERSION, title='"Here I Stand": land movement, interception, avoid battle, withdrawal')
)


def load_all() -> None:
    import_procedure_modules(__name__, __path__)
