"""Changing a campaign's settings after its creation: a ``CampaignSettingsChanged`` event, by its game master.

Only the settings that govern access can change (``CHANGEABLE``): the budget
reads its own settings (``period_start_turns``, ``ers_variants``) from
``CampaignCreated`` and a later change would rewrite past sheets, so those stay
fixed. The change counts at once on every server process: each request checks
the campaign's state against its head (ledger/application.py).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.application import Actor, Appended, Draft, Ledger
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict

#: setting -> the type its value must have.
CHANGEABLE: dict[str, type] = {"players_may_roll": bool}


def change_settings(ledger: Ledger, cid: UUID, changed: dict[str, Any], *, reason: str, actor: Actor,
                    idempotency_key: str | None = None) -> Appended:
    if not isinstance(changed, dict) or not changed:
        raise InvalidInput("name at least one setting to change", field="settings")
    for name, value in changed.items():
        kind = CHANGEABLE.get(name)
        if kind is None:
            raise InvalidInput(f"setting {name!r} cannot be changed (changeable: {', '.join(CHANGEABLE)})",
                               field=f"settings.{name}")
        if not isinstance(value, kind):
            raise InvalidInput(f"setting {name} is a {kind.__name__}", field=f"settings.{name}")
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput("reason must not be empty", field="reason")

    def command(d: Draft) -> dict[str, Any]:
        previous = {name: d.state.settings.get(name) for name in changed}
        if all(previous[name] == value for name, value in changed.items()):
            raise StateConflict(f"the settings already have these values: {changed}", field="settings")
        d.add(ev.CampaignSettingsChanged, changed=dict(changed), previous=previous, reason=reason)
        return {"settings": {**d.state.settings, **changed}}

    request = {"change_settings": changed, "reason": reason}
    return ledger.execute(cid, actor, command, idempotency_key=idempotency_key, request=request)
