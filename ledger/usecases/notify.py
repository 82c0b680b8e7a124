"""Notification endpoints: registered, changed and removed as events (opt-in, auditable; ledger/notify).

Each event is seen by the endpoint's owner and the game master only: a player's by their country, the
campaign's and the table's by the game master. A player acts on their own country's endpoints alone, and an id
that is not theirs is "not found" whether a rival holds it or nobody does.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ledger.board import did_you_mean
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import EndpointNotFound, Forbidden, InvalidInput, StateConflict
from ledger.notify.topics import MAX_PER_AUDIENCE
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft
    from ledger.domain.actors import Actor

GM_ONLY = {"scope": "gm"}


def visibility_of(audience: str) -> dict[str, Any]:
    """Who reads an endpoint's events: its country (and the game master), or the game master alone."""
    return GM_ONLY if audience in ("gm", "public") else {"scope": "countries", "countries": [audience]}


def owns(actor: Actor, audience: str) -> bool:
    """Whether ``actor`` acts on the endpoints of ``audience``: a player on their country's, the others on all."""
    return actor.role != "player" or audience == actor.country


def _audience(d: Draft, c: cmd.RegisterEndpoint) -> str:
    if d.actor.role == "player":
        if c.audience not in (None, d.actor.country):
            raise Forbidden(f"a player registers endpoints for their own country ({d.actor.country}) only",
                            field="audience", rule="access.register_endpoint")
        return str(d.actor.country)
    audience = c.audience or "gm"
    if audience not in ("gm", "public") and audience not in d.state.countries:
        raise InvalidInput(f"country {audience!r} is not in this campaign "
                           f"({', '.join(d.state.countries)}){did_you_mean(audience, d.state.countries)}",
                           field="audience")
    return audience


def _private(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False  # a name: not resolved here (it could change after); the operator's network decides
    return not address.is_global


def _reachable(d: Draft, c: cmd.RegisterEndpoint) -> None:
    settings = d.ledger.settings
    if c.kind == "email":
        if not settings.smtp_url:
            raise InvalidInput("this ledger sends no e-mail: its operator configured no mail server "
                               "(LEDGER_SMTP_URL); register a webhook instead", field="kind")
        return
    host = urlsplit(c.target).hostname or ""
    if settings.env == "production" and not settings.notify_private_targets and _private(host):
        raise InvalidInput(f"a webhook may not point at {host}: a loopback or private address "
                           "(the operator may allow it: LEDGER_NOTIFY_PRIVATE_TARGETS)", field="target")


@handles(cmd.RegisterEndpoint)
def register_endpoint(d: Draft, c: cmd.RegisterEndpoint, *, endpoint_id: str) -> dict[str, Any]:
    """``endpoint_id``: made by the caller outside the command (as a token's secret), so a retried request
    hashes the same; the signing secret is derived from it (ledger/notify/signing.py)."""
    audience = _audience(d, c)
    _reachable(d, c)
    live = [e for e in d.state.endpoints.values() if e["audience"] == audience]
    if len(live) >= MAX_PER_AUDIENCE:
        raise StateConflict(f"{audience} already has {len(live)} endpoints, the most one may have: remove one "
                            "first", field="audience")
    if any(e["target"] == c.target and e["kind"] == c.kind for e in live):
        raise StateConflict("this target is already registered for these messages: change its topics instead",
                            field="target")
    label = c.label or {"gm": "the campaign's", "public": "the table's"}.get(audience, audience) + f" {c.kind}"
    d.add(ev.EndpointRegistered, visibility_of(audience), endpoint_id=endpoint_id, audience=audience, kind=c.kind,
          target=c.target, topics=list(c.topics), label=label)
    return {"endpoint_id": endpoint_id, "audience": audience, "kind": c.kind, "topics": list(c.topics),
            "label": label}


def _endpoint(d: Draft, endpoint_id: str) -> dict[str, Any]:
    found = d.state.endpoints.get(endpoint_id)
    if found is None or not owns(d.actor, found["audience"]):
        raise EndpointNotFound(f"no endpoint {endpoint_id} of yours in this campaign", field="endpoint_id")
    return found


@handles(cmd.ChangeEndpoint)
def change_endpoint(d: Draft, c: cmd.ChangeEndpoint) -> dict[str, Any]:
    found = _endpoint(d, c.endpoint_id)
    if list(c.topics) == found["topics"]:
        raise StateConflict(f"endpoint {c.endpoint_id} is already told about {', '.join(c.topics)}", field="topics")
    d.add(ev.EndpointChanged, visibility_of(found["audience"]), endpoint_id=c.endpoint_id, topics=list(c.topics),
          previous=list(found["topics"]))
    return {"endpoint_id": c.endpoint_id, "topics": list(c.topics)}


@handles(cmd.RemoveEndpoint)
def remove_endpoint(d: Draft, c: cmd.RemoveEndpoint) -> dict[str, Any]:
    found = _endpoint(d, c.endpoint_id)
    d.add(ev.EndpointRemoved, visibility_of(found["audience"]), endpoint_id=c.endpoint_id, reason=c.reason)
    return {"endpoint_id": c.endpoint_id, "removed": True}


def live_endpoints(state: Any, actor: Actor) -> dict[str, dict[str, Any]]:
    """The campaign's endpoints ``actor`` may list: a player's country's, every one for the game master."""
    return {k: v for k, v in state.endpoints.items() if owns(actor, v["audience"])}
