"""The web pages' Jinja environment: the stock one, with a faster ``a.b`` on the dicts the views hand it.

Jinja reads ``cell.value`` as ``getattr(cell, "value")`` first and the item only after catching the
AttributeError; the pages' rows and cells are dicts, so every such read raised and caught an exception. An ERS
page reads thousands of them: a fifth of its CPU (py-spy, ``Environment.getattr``). For a name that is not an
attribute of ``dict`` the getattr can only fail, so the item is read straight away: the same answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from ledger import i18n

_DICT_ATTRIBUTES = frozenset(dir(dict))


class Environment(jinja2.Environment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass  # undefined, as Jinja says it
        return super().getattr(obj, attribute)


def environment(directory: Path) -> Environment:
    """What ``Jinja2Templates(directory=...)`` builds (its autoescape), with the faster attribute read, and
    without ``auto_reload``: it stat()ed each template file a page includes on every render to see whether it
    changed on disk; the templates ship with the code, and a new release is a new process.

    The pages speak the reader's language: ``{{ _("Turn") }}`` and ``{% trans %}`` read the catalogue of the
    request's language (``ledger/i18n.py``; new-style gettext: the values are escaped, ``%(name)s`` filled in).
    ``lang`` and ``languages`` name it and the choices, for the switch in base.html."""
    env = Environment(loader=jinja2.FileSystemLoader(str(directory)), autoescape=jinja2.select_autoescape(),
                      auto_reload=False, extensions=["jinja2.ext.i18n"])
    env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.globals["lang"] = i18n.current
    env.globals["languages"] = i18n.LANGUAGES
    return env
