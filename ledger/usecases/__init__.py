"""The use cases, one module per topic, each a function ``(draft, command) -> response data``.

A use case reads the campaign's write-side state (``draft.state``), checks
what depends on it (the command's own fields were checked by its model), may
draw server dice (``draft.dice_for(visibility)``), queues events (``draft.add``) and returns
what the caller is told. It raises before queueing anything that does not fit.
The machinery around it (state, draft, seal, append, retry, idempotency) is
``ledger.application.Ledger.execute``, in one place.
"""

from ledger.usecases import (access, campaigns, country_facts, income, map, notify, pacing, phases,  # noqa: F401
                             records, trade)
from ledger.usecases.registry import HANDLERS, UseCase

__all__ = ["HANDLERS", "UseCase"]
