"""The catalogues and the reader's language (ledger/i18n.py): negotiation from Accept-Language, the French
catalogue complete and safe to format, English the text itself."""

from __future__ import annotations

import re

from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from ledger import i18n
from ledger.terms import term

PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w*\}")


def _french():
    with open(i18n.LOCALE_DIR / "fr" / "LC_MESSAGES" / "ledger.po", "rb") as f:
        return [m for m in read_po(f) if m.id]


def test_the_browsers_first_language_the_ledger_speaks_wins_by_its_weight():
    assert i18n.negotiate("fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7") == "fr"
    assert i18n.negotiate("de-DE, en;q=0.5, fr;q=0.4") == "en"
    assert i18n.negotiate("en;q=0.3, fr-CA;q=0.7") == "fr"
    assert i18n.negotiate("fr;q=0, de") == "en"  # q=0: "not this one"
    assert i18n.negotiate(None) == "en" and i18n.negotiate("") == "en"


@given(st.text(max_size=200))
def test_any_accept_language_header_chooses_a_language_of_the_ledger(header):
    assert i18n.negotiate(header) in i18n.LANGUAGES


def test_every_string_of_the_french_catalogue_is_translated():
    untranslated = [m.id for m in _french() if not m.string or (isinstance(m.string, tuple) and not all(m.string))]
    assert not untranslated, f"{len(untranslated)} without French: {untranslated[:10]}"


def test_a_french_string_fills_in_the_same_values_as_its_english():
    # A translation that drops or renames %(turn)s or {turn} would raise when the page formats it.
    wrong = []
    for m in _french():
        for english, french in zip(m.id if isinstance(m.id, tuple) else (m.id,),
                                   m.string if isinstance(m.string, tuple) else (m.string,), strict=False):
            if sorted(PLACEHOLDER.findall(english)) != sorted(PLACEHOLDER.findall(french)):
                wrong.append((english, french))
    assert not wrong, wrong


def test_english_is_the_text_itself_and_french_reads_the_catalogue():
    assert i18n.gettext("Turn %(turn)s") == "Turn %(turn)s"  # no language set: English
    with i18n.language("fr"):
        assert i18n.gettext("Turn %(turn)s") == "Tour %(turn)s"
        assert i18n.gettext("a string no catalogue holds") == "a string no catalogue holds"
        assert i18n.ngettext("{code} {n} turn back (none: before turn 1)",
                             "{code} {n} turns back (none: before turn 1)", 2).startswith("{code} {n} tours")
    assert i18n.current() == "en"


def test_the_phases_and_markers_are_said_in_the_seeds_words():
    # eu8-fast-combat-and-tables.fr.txt: « la phase militaire », « 2.3.2 La sape » (the siegework).
    with i18n.language("fr"):
        assert term("military") == "militaire"
        assert term("Siegework") == "Sape"
        assert term("Picardie") == "Picardie"  # a name of the board stays as the board names it


def test_the_pseudo_language_wraps_exactly_what_the_catalogue_translates():
    with i18n.language(i18n.PSEUDO):
        assert i18n.gettext("Turn %(turn)s") == "⟦Tour %(turn)s⟧"
        assert i18n.gettext("not in the catalogue") == "not in the catalogue"
