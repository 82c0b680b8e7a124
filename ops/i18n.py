"""Extract the strings marked for translation and merge them into each language's catalogue.

    python ops/i18n.py            # ledger/locale/ledger.pot, then every ledger/locale/<lang>/LC_MESSAGES/ledger.po
    python ops/i18n.py --check    # exit 1, naming them, when a marked string has no translation in a catalogue

What is marked: ``_()``, ``N_()``, ``gettext``/``ngettext`` in the Python of ledger/, projections/ and api/;
``{{ _("...") }}`` and ``{% trans %}`` in api/web/templates; the ERS lines' names in the ruleset's table (babel.cfg
maps them). New strings come into each .po untranslated (an empty msgstr: English is shown until someone writes
it); strings no longer in the code are dropped. Nothing is compiled: ledger/i18n.py compiles a .po when its
language is first used.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ledger" / "locale"
METHODS = {"ledger_toml": "ledger.i18n:extract_toml"}  # babel.cfg's names for the extractors of ledger/i18n.py


def template() -> Catalog:
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    method_map = [(pattern, METHODS.get(method, method)) for pattern, method in method_map]
    pot = Catalog(project="ledger", charset="utf-8")
    sys.path.insert(0, str(ROOT))  # the extractors of ledger/i18n.py, from this checkout
    for path, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords={**DEFAULT_KEYWORDS, "N_": None}, strip_comment_tags=True):
        pot.add(message, None, [(path, lineno)], auto_comments=comments, context=context)
    return pot


def write(catalog: Catalog, path: Path) -> None:
    # Sorted and without locations: branches adding strings merge as lines, not as conflicts.
    with open(path, "wb") as f:
        write_po(f, catalog, sort_output=True, no_location=True, omit_header=False, ignore_obsolete=True)


def main(argv: list[str]) -> int:
    pot = template()
    write(pot, LOCALE / "ledger.pot")
    missing = 0
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/ledger.po")):
        with open(po, "rb") as f:
            catalog = read_po(f)
        catalog.update(pot, no_fuzzy_matching=True)
        write(catalog, po)
        empty = [m.id for m in catalog if m.id and not m.string]
        missing += len(empty)
        if "--check" in argv and empty:
            print(f"{po.relative_to(ROOT)}: {len(empty)} untranslated", *(f"  {m!r}" for m in empty), sep="\n")
    return 1 if "--check" in argv and missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
