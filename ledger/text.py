"""What people type, checked once; and how text is written for the programs it goes to.

**In** (``typed``, through the command models' text types, ledger/domain/commands.py): every text a person
types is Unicode in NFC form, holds no control character (no NUL, no escape, no bell...), no lone surrogate
(bytes that were not UTF-8) and no non-character (U+FFFE, U+FFFF). A text of several lines (a reason) may hold
line breaks and tabs; a carriage return (a browser's textarea sends CRLF) becomes a line break. Anything else
is refused naming the character, and the caller names the field.

**Out**: the events stored before this rule (or appended around it) may hold any of those, and an event is
immutable. So each writer of text for another program makes it safe for that program, whatever it holds:

- a terminal (``for_terminal``): control characters, escape sequences and bidirectional overrides are shown
  as ``\\x1b``-style escapes, never sent;
- a spreadsheet's XML (``for_xml``): the characters XML 1.0 cannot hold are shown the same way;
- a CSV cell (``for_csv``): a text that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a
  tab or a carriage return first: OWASP's rule) gets a leading apostrophe;
- a PostgreSQL text column (``storable``): a NUL, which it cannot hold, becomes U+FFFD.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: Control characters (C0, DEL, C1), lone surrogates and the two non-characters: never in a typed text.
_REFUSED = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: The same but the line break and the tab, for a text of several lines.
_REFUSED_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")

_NAMES = {"\x00": "a NUL character", "\x1b": "an escape character", "\n": "a line break", "\r": "a carriage return",
          "\t": "a tab", "\x07": "a bell character", "\x08": "a backspace", "\x7f": "a delete character"}


def _named(ch: str) -> str:
    code = f"U+{ord(ch):04X}"
    if ch in _NAMES:
        return f"{_NAMES[ch]} ({code})"
    if "\ud800" <= ch <= "\udfff":
        return f"bytes that are not UTF-8 text ({code})"
    if ch in "\ufffe\uffff":
        return f"a non-character ({code})"
    return f"a control character ({code})"


def typed(value: str, *, lines: bool = False) -> str:
    """``value`` as a person's text: NFC; ``lines``: line breaks and tabs allowed, CRLF and CR made line breaks.

    Raises ``ValueError`` in plain words naming the first character refused and where it is.
    """
    if lines and "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    bad = (_REFUSED_IN_LINES if lines else _REFUSED).search(value)
    if bad is not None:
        ch = bad.group()
        if ch in "\n\t":
            rule = "this text is one line"
        elif "\ud800" <= ch <= "\udfff" or ch in "\ufffe\uffff":
            rule = "a text is Unicode characters"
        else:
            rule = "a text may hold no control character"
        raise ValueError(f"holds {_named(ch)} at character {bad.start() + 1}: {rule}")
    return value if value.isascii() else unicodedata.normalize("NFC", value)


def typed_json(value: Any, where: str = "") -> Any:
    """Free-form JSON (a ruling's inputs, a campaign's settings) with every text in it, keys too, ``typed``
    (several lines allowed): a copy, its texts in NFC. ``ValueError`` names the path of a refused text."""
    if isinstance(value, str):
        try:
            return typed(value, lines=True)
        except ValueError as e:
            raise ValueError(f"{where}: {e}" if where else str(e)) from None
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            key = typed_json(k, f"{where} (a key)" if where else "a key") if isinstance(k, str) else k
            out[key] = typed_json(v, path)
        return out
    if isinstance(value, list):
        return [typed_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


# --------------------------------------------------------------------------- out


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: What a terminal must not receive: every control character but the line break and the tab (ESC starts its
#: escape sequences, CSI U+009B too), and the bidirectional embeddings, overrides and isolates (they reorder
#: what is shown after them).
_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                       "\ud800-\udfff]")
#: What XML 1.0 cannot hold (a worksheet's cells and comments): the C0 controls but tab, line break and carriage
#: return (openpyxl's ``ILLEGAL_CHARACTERS_RE``), lone surrogates and the two non-characters.
_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def for_terminal(text: str) -> str:
    """``text`` to print at a terminal: each control character, escape and bidirectional override shown as
    ``\\x1b`` (``\\u202e``) instead of sent; line breaks and tabs kept."""
    return _TERMINAL.sub(_shown, text) if _TERMINAL.search(text) else text


def for_xml(text: str) -> str:
    """``text`` for a worksheet's XML: each character XML cannot hold shown as ``\\x00``-style text."""
    return _XML.sub(_shown, text) if _XML.search(text) else text


#: The first characters that make a spreadsheet read a CSV cell as a formula (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def for_csv(text: str) -> str:
    """A CSV cell's text that no spreadsheet reads as a formula: a leading apostrophe before ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return (spreadsheets show the text; a program reading the CSV sees the
    apostrophe)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


#: How the stored JSON of an event writes a NUL character (orjson escapes it so): the projections look for it
#: before walking an event's fields.
NUL_IN_JSON = b"\\u0000"


def holds_nul(state: bytes) -> bool:
    """Whether an event's stored JSON holds a NUL in a text: a backslash first (one byte, found at memory speed:
    most events have none), then the escape (a rebuild asks it of every event)."""
    return b"\\" in state and NUL_IN_JSON in state


def storable(value: Any) -> Any:
    """``value`` (decoded JSON) with every NUL in its texts, keys too, replaced by U+FFFD: what a PostgreSQL text
    column can hold (it refuses NUL). The same on both stores, so their views stay the same."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable(v) for v in value]
    return value
