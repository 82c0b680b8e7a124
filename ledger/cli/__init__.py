"""The ``ledger`` command line: the same use cases as the HTTP API, plus audit tools.

One module per topic, each importing only ``ledger.cli.base`` (the shared
helpers: consoles, options, ``ledger_app``, ``cid_of``, ``emit``):

- ``service``: serve, sample, openapi
- ``campaigns``: campaign create, settings, list
- ``turns``: turn open, close; roll; dice verify
- ``records``: ruling record, treasury, correct
- ``audit``: events, verify, recompute, procedures, resolve
- ``access``: token issue, list, revoke
- ``economy``: ers, publish-sheets, phase close
- ``projections``: project, rebuild, state, replay, scenario
- ``export``: export, chart

The Typer app is built in ``ledger.cli.root`` alone; ``app`` and ``main`` are
loaded from it on first use, so importing a topic module (or ``base``) does not
build the whole command line. Every write builds a command model
(``ledger/domain/commands.py``) and hands it to ``Ledger.handle``.

Exit codes: 0 success; 1 a verification found a problem; 2 bad input or state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger.cli.root import app, main

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from ledger.cli import root

        return getattr(root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
