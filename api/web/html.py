"""``{{ value }}`` of an autoescaping template, as a plain string, for the pages' rows written in Python.

``markupsafe.escape`` builds a ``Markup`` for each value (its ``__new__`` is Python): ~0.8 us, and the ERS and
turn pages' rows escape thousands of values. Its C core, ``_escape_inner`` (str in, str out), writes the same
text in ~0.1 us; a release of MarkupSafe without it falls back to ``escape`` itself.
"""

from __future__ import annotations

from typing import Any

from markupsafe import escape

try:
    from markupsafe import _escape_inner  # MarkupSafe 3: the C escaping, str to str
except ImportError:  # pragma: no cover - another MarkupSafe: the public, slower way, same text
    def _escape_inner(s: str) -> str:
        return str(escape(s))


def esc(value: Any) -> str:
    """``str(markupsafe.escape(value))``: markup (``__html__``) as it is, anything else as text, escaped."""
    if type(value) is str:
        return _escape_inner(value)
    if hasattr(value, "__html__"):
        return str(value.__html__())
    return _escape_inner(str(value))
