"""The reader's language: gettext catalogues through Babel, English (the source text) and French.

The catalogues' sources are the ``.po`` files under ``ledger/locale/<lang>/LC_MESSAGES/ledger.po``, compiled in
memory with Babel the first time a language is used (no binary ``.mo`` in the repository, nothing to build after a
clone). The language is a context variable: the web layer sets it per request (``api/language.py``), the CLI from
``--lang`` / ``LEDGER_LANG`` / ``LANG``; everything below reads it through ``_``. English is the text itself, so
an English answer is byte-for-byte what it was before the catalogues.

Strings defined at import time (tables of labels) are marked with ``N_`` for extraction and translated where they
are shown: ``_(LABEL)``.

``PSEUDO`` is a test language: every string the French catalogue translates comes back wrapped in ``⟦ ⟧``, any
other string as it was, so a page rendered in it shows at a glance (and to a test) which words escaped the
catalogue.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from io import BytesIO
from pathlib import Path

DOMAIN = "ledger"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT = "en"
#: The languages a reader may choose, each named in its own language (the switch on every page).
LANGUAGES = {"en": "English", "fr": "Français"}
PSEUDO = "qps"  # the pseudo-locale of the tests (ISO 639 reserves qaa–qtz for local use)
OPEN, CLOSE = "⟦", "⟧"

_current: ContextVar[str] = ContextVar("ledger_language", default=DEFAULT)


@cache
def catalogue(lang: str) -> _gettext.NullTranslations:
    """The translations of ``lang``, compiled from its ``.po`` (fuzzy entries are left out, as msgfmt does)."""
    if lang == PSEUDO:
        return _Pseudo(catalogue("fr"))
    if lang == DEFAULT or lang not in LANGUAGES:
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po", "rb") as f:
        compiled = BytesIO()
        write_mo(compiled, read_po(f, locale=lang, domain=DOMAIN))
    compiled.seek(0)
    return _gettext.GNUTranslations(compiled)


class _Pseudo(_gettext.NullTranslations):
    def __init__(self, french: _gettext.NullTranslations):
        super().__init__()
        self.french = french

    def gettext(self, message: str) -> str:
        if message not in _catalogued(self.french):
            return message
        return f"{OPEN}{self.french.gettext(message)}{CLOSE}"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        said = self.french.ngettext(singular, plural, n)
        return f"{OPEN}{said}{CLOSE}" if said not in (singular, plural) else said


def _catalogued(t: _gettext.NullTranslations) -> dict:
    # By msgid, not by a changed text: a French word equal to its English (« Total ») is translated too.
    return getattr(t, "_catalog", {})


def current() -> str:
    return _current.get()


def gettext(message: str) -> str:
    """``message`` in the current language (itself in English, or where the catalogue lacks it)."""
    lang = _current.get()
    return message if lang == DEFAULT else catalogue(lang).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    lang = _current.get()
    if lang == DEFAULT:
        return singular if n == 1 else plural
    return catalogue(lang).ngettext(singular, plural, n)


_ = gettext


def N_(message: str) -> str:
    """Marks ``message`` for the catalogue without translating it now (a label table built at import)."""
    return message


@contextmanager
def language(lang: str) -> Iterator[None]:
    """Everything inside speaks ``lang`` (a request, a CLI command, a test)."""
    token = _current.set(lang if lang in LANGUAGES or lang == PSEUDO else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def use(lang: str) -> None:
    """Sets the language of the rest of this context (the CLI's one command)."""
    _current.set(lang if lang in LANGUAGES or lang == PSEUDO else DEFAULT)


def known(value: str | None) -> str | None:
    """``value`` as one of LANGUAGES ("fr", "fr-CA", "FR_fr.UTF-8" are French), else None."""
    if not value:
        return None
    code = value.strip().replace("_", "-").split("-")[0].split(".")[0].lower()
    return code if code in LANGUAGES or code == PSEUDO else None


def negotiate(accept_language: str | None) -> str:
    """The reader's browser's first language the ledger speaks (``Accept-Language``, by its q-values), else
    English."""
    best, best_q = DEFAULT, 0.0
    for part in (accept_language or "").split(","):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            name, _eq, val = p.strip().partition("=")
            if name == "q":
                try:
                    q = float(val)
                except ValueError:
                    q = 0.0
        code = known(tag)
        # Earlier wins a tie: the browser lists its languages in the reader's order.
        if code is not None and code != PSEUDO and q > best_q:
            best, best_q = code, q
    return best


#: The keys of a ruleset's TOML tables whose values people read (an ERS line's name, its warning).
TOML_KEYS = ("name", "alert_if_negative")


def extract_toml(fileobj, keywords, comment_tags, options):  # noqa: ANN001, ARG001 - Babel's extractor signature
    """Babel extractor (babel.cfg) for the ruleset tables people read: each ``name = "..."`` and
    ``alert_if_negative = "..."`` of a TOML file is a message (translated where shown, ``gettext(line.name)``)."""
    import re

    pattern = re.compile(r'^\s*(' + "|".join(TOML_KEYS) + r')\s*=\s*"((?:[^"\\]|\\.)*)"')
    for lineno, raw in enumerate(fileobj, 1):
        m = pattern.match(raw.decode("utf-8"))
        if m:
            yield lineno, None, m.group(2).replace('\\"', '"'), []
