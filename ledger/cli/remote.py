"""The command line against a served ledger (``ledger --server URL --token T``, or ``LEDGER_SERVER`` and
``LEDGER_TOKEN``): the same commands, sent as the HTTP requests the API documents, instead of written into a
local store. A game master whose service runs on a rented machine needs no shell there.

``Remote`` answers the part of ``Ledger`` the write commands use: ``handle`` (a command, sent to its route with
its JSON body and the idempotency key as ``Idempotency-Key``), ``campaign`` and ``history`` (what the command
line reads to say a write in words), token issue and list. A refusal comes back as the error the service
named (its type, field and words), printed as a local one is. The token decides who records (the ``--actor``
option is the local store's).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any
from uuid import UUID

import typer

from ledger.cli import base
from ledger.domain import commands as cmd
from ledger.domain import errors, pace
from ledger.rules.core import RulesError

#: Command → its route under ``/campaigns/{id}`` (None: ``/campaigns`` itself), and whether it sends a body.
def _route(command: cmd.Command) -> tuple[str | None, bool]:
    match command:
        case cmd.CreateCampaign():
            return None, True
        case cmd.OpenTurn():
            return "/turns", False
        case cmd.CloseTurn(turn=turn):
            return f"/turns/{turn}/close", False
        case cmd.ClosePhase(phase=phase):
            return f"/phases/{phase}/close", False
        case cmd.ChangeSettings():
            return "/settings", True
        case cmd.RecordTreasuryEntry():
            return "/treasury", True
        case cmd.RecordCorrection():
            return "/corrections", True
        case cmd.RollDice():
            return "/rolls", True
        case cmd.RecordRuling():
            return "/rulings", True
        case cmd.RevealEvent():
            return "/reveals", True
        case cmd.PublishSheets():
            return "/ers/publish", True
        case cmd.IssueToken():
            return "/tokens", True
        case cmd.RevokeToken(token_id=token_id):
            return f"/tokens/{token_id}/revoke", True
        case cmd.RegisterEndpoint():
            return "/endpoints", True
        case cmd.ChangeEndpoint(endpoint_id=eid):
            return f"/endpoints/{eid}/topics", True
        case cmd.RemoveEndpoint(endpoint_id=eid):
            return f"/endpoints/{eid}/remove", True
        case pace.SetDeadline():
            return "/deadlines", True
        case pace.ClearDeadline():
            return "/deadlines/clear", True
        case pace.MarkReady():
            return "/ready", True
        case pace.SendReminders():
            return "/reminders", False
        case pace.MarkAsRead():
            return "/read", True
    raise errors.InvalidInput(f"{type(command).__name__} is not sent to a server by this command line yet: run "
                              "it on the server, or use the web page", field="server")


class _Event(SimpleNamespace):
    def payload(self) -> dict[str, Any]:
        return self.data


class Remote:
    """A served ledger, spoken to over HTTP with a token."""

    def __init__(self, server: str, token: str | None, client: Any = None):
        import httpx  # here, not at import: every command line run loads this module, few talk to a server

        self.base = server.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = client or httpx.Client(base_url=self.base, headers=headers, timeout=30)
        if client is not None:
            self.client.headers.update(headers)
        self.settings = SimpleNamespace(backend="server", server=self.base)

    def close(self) -> None:
        self.client.close()

    def _answer(self, response: Any) -> Any:
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
            except (ValueError, KeyError, TypeError):
                raise errors.LedgerError(f"the service at {self.base} answered {response.status_code}: "
                                         f"{response.text[:200]}", field="server") from None
            kind = getattr(errors, str(error.get("type")), None)
            kind = kind if isinstance(kind, type) and issubclass(kind, errors.LedgerError) else errors.LedgerError
            raised = kind.__new__(kind)
            errors.LedgerError.__init__(raised, error.get("message") or "", field=error.get("field"),
                                        rule=error.get("rule"))
            raise raised
        return response.json()

    def _post(self, path: str, body: dict[str, Any] | None, key: str | None) -> Any:
        import httpx

        headers = {"Idempotency-Key": key} if key else {}
        try:
            response = self.client.post(path, json=body, headers=headers)
        except httpx.HTTPError as e:
            raise errors.LedgerError(f"no answer from {self.base}: {e}", field="server") from None
        return self._answer(response)

    def _get(self, path: str, **params: Any) -> Any:
        import httpx

        try:
            response = self.client.get(path, params=params)
        except httpx.HTTPError as e:
            raise errors.LedgerError(f"no answer from {self.base}: {e}", field="server") from None
        return self._answer(response)

    def handle(self, cid: UUID, command: cmd.Command, *, actor: Any = None, idempotency_key: str | None = None,
               **_: Any) -> SimpleNamespace:
        """``command`` sent to its route; the answer as ``Ledger.handle``'s (``to_json``)."""
        route, has_body = _route(command)
        path = "/campaigns" if route is None else f"/campaigns/{cid}{route}"
        body = command.model_dump(mode="json", exclude_none=True) if has_body else None
        if isinstance(command, (cmd.RevokeToken, cmd.RemoveEndpoint)):
            body = {"reason": command.reason}
        elif isinstance(command, cmd.ChangeEndpoint):
            body = {"topics": list(command.topics)}
        answer = self._post(path, body, idempotency_key)
        return SimpleNamespace(to_json=lambda: {k: answer.get(k) for k in ("campaign", "events", "data",
                                                                             "checkpoint")},
                               events=answer.get("events", []), data=answer.get("data", {}), answer=answer)

    def issue_token(self, cid: UUID, command: cmd.IssueToken, key: str | None) -> dict[str, Any]:
        """The token issued by the service: its secret is in this answer only."""
        answer = self._post(f"/campaigns/{cid}/tokens", command.model_dump(mode="json", exclude_none=True), key)
        return {**{k: answer.get(k) for k in ("campaign", "events", "data", "checkpoint")},
                "token": answer.get("token")}

    def live_tokens(self, cid: UUID) -> list[dict[str, Any]]:
        return self._get(f"/campaigns/{cid}/tokens")

    def endpoints(self, cid: UUID) -> list[dict[str, Any]]:
        """The notification endpoints this token may list, with their deliveries (``ledger notify list``)."""
        return self._get(f"/campaigns/{cid}/endpoints")

    def deliveries(self, cid: UUID, endpoint_id: str) -> list[dict[str, Any]]:
        return self._get(f"/campaigns/{cid}/endpoints/{endpoint_id}/deliveries")

    def campaign(self, cid: UUID) -> SimpleNamespace:
        try:
            return SimpleNamespace(**self._get(f"/campaigns/{cid}"))
        except errors.CampaignNotFound as e:
            raise errors.CampaignNotFound(f"{e.message} at {self.base}", field="campaign") from None

    def history(self, cid: UUID, *, after: int = 0, limit: int | None = None) -> list[_Event]:
        shown = self._get(f"/campaigns/{cid}/events", after=after, limit=limit or 500)
        return [_Event(position=e["position"], type=e["type"], data=e["payload"], context=e["context"])
                for e in shown]


@contextmanager
def connected(server: str, token: str | None) -> Iterator[Remote]:
    """``ledger_app`` for ``--server``: the served ledger; an error it answers exits 2 naming its field."""
    remote = Remote(server, token)
    running = base._running.set(remote)  # type: ignore[arg-type]  # ``emit`` says a write in words with it
    try:
        yield remote
    except (errors.LedgerError, RulesError) as e:
        base.err.print(base.error_text(str(e), getattr(e, "field", None)))
        raise typer.Exit(2) from None
    finally:
        base._running.reset(running)
        remote.close()
