"""``ledger notify register|list|deliveries|topics|remove|deliver``: who is told what (issue 38), as the operator
or, with ``--server`` and a player's token, as that player."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, escape, in_words, ledger_app, out
from ledger.domain.commands import ChangeEndpoint, RegisterEndpoint, RemoveEndpoint, build

notify_app = typer.Typer(help="Webhooks and e-mail addresses told of a campaign's events, and their deliveries.",
                         no_args_is_help=True)
TopicOpt = Annotated[list[str], typer.Option("--topic", help="turns, rulings, moves, corrections or sheets "
                                                             "(repeat it)")]


def _when(seconds: float | None) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if seconds else "—"


@notify_app.command("register")
def notify_register(
    campaign: str,
    kind: Annotated[str, typer.Option(help="discord, slack, json (any URL) or email")],
    target: Annotated[str, typer.Option(help="The webhook's URL, or the e-mail address")],
    topic: TopicOpt,
    audience: Annotated[Optional[str], typer.Option(help="A country, gm (the campaign's) or public (the table's)")]
    = None,
    label: Annotated[Optional[str], typer.Option(help="A name for it")] = None,
    actor: ActorOpt = "admin",
    key: KeyOpt = None,
) -> None:
    """Register an endpoint and print its signing secret, once (it is stored nowhere)."""
    from ledger.notify.signing import endpoint_secret, new_endpoint_id

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RegisterEndpoint, kind=kind, target=target, topics=topic,
                        **{k: v for k, v in (("audience", audience), ("label", label)) if v is not None})
        result = ledger.handle(cid, command, actor=Actor(actor, "admin"), idempotency_key=key,
                               endpoint_id=new_endpoint_id())
        answer = getattr(result, "answer", None)  # a served ledger (--server): the service made the secret
        if answer is not None:
            secret = answer.get("secret")
        else:
            secret = None if result.replayed else endpoint_secret(ledger, cid, result.data["endpoint_id"])
        emit({**result.to_json(), "secret": secret})


def _listed(ledger: Any, cid: Any) -> list[dict[str, Any]]:
    if hasattr(ledger, "endpoints"):  # a served ledger: what the token may list
        return ledger.endpoints(cid)
    from ledger.usecases.notify import live_endpoints
    from projections import outbox
    from projections.runner import Projector

    mine = live_endpoints(ledger.campaign(cid), Actor("operator", "admin"))
    counts = outbox.status(Projector(ledger, ["outbox"]).db, str(cid), sorted(mine))
    return [{"id": eid, **{k: ep[k] for k in ("audience", "kind", "target", "label", "topics")}, **counts[eid]}
            for eid, ep in sorted(mine.items(), key=lambda kv: kv[1]["position"])]


@notify_app.command("list")
def notify_list(campaign: str) -> None:
    """The endpoints, what each is told, how many messages were delivered, wait or failed, and the last error."""
    with ledger_app() as ledger:
        rows = _listed(ledger, cid_of(ledger, campaign))
    if not in_words():
        emit(rows)
        return
    if not rows:
        out.print("No endpoint is registered.")
        return
    table = Table("id", "whose", "kind", "target", "told of", "delivered", "waiting", "failed", "last error")
    for r in rows:
        error = f"{r['last_error']} ({_when(r['last_error_at'])})" if r.get("last_error") else "—"
        table.add_row(*(escape(str(x)) for x in (r["id"], r["audience"], r["kind"], r["target"],
                                                 ", ".join(r["topics"]), r["delivered"], r["pending"], r["failed"],
                                                 error)))
    out.print(table)


@notify_app.command("deliveries")
def notify_deliveries(campaign: str, endpoint_id: str) -> None:
    """An endpoint's latest messages, newest first: what each said, whether it was delivered, the last error."""
    import orjson

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        if hasattr(ledger, "deliveries"):
            rows = ledger.deliveries(cid, endpoint_id)
        else:
            from projections import outbox
            from projections.runner import Projector

            rows = [{**r, "text": orjson.loads(r["message"])["text"]}
                    for r in outbox.deliveries(Projector(ledger, ["outbox"]).db, str(cid), endpoint_id)]
    if not in_words():
        emit([{k: r.get(k) for k in ("position", "topic", "text", "status", "attempts", "last_error",
                                      "delivered_at")} for r in rows])
        return
    table = Table("pos", "topic", "message", "state", "attempts", "last error")
    for r in rows:
        state = r["status"] + (f" {_when(r.get('delivered_at'))}" if r.get("delivered_at") else "")
        table.add_row(*(escape(str(x)) for x in (r["position"], r["topic"], r["text"], state, r["attempts"],
                                                 r.get("last_error") or "—")))
    out.print(table)


@notify_app.command("topics")
def notify_topics(campaign: str, endpoint_id: str, topic: TopicOpt, actor: ActorOpt = "admin",
                  key: KeyOpt = None) -> None:
    """Change what an endpoint is told about (the whole new list)."""
    with ledger_app() as ledger:
        command = build(ChangeEndpoint, endpoint_id=endpoint_id, topics=topic)
        emit(ledger.handle(cid_of(ledger, campaign), command, actor=Actor(actor, "admin"),
                           idempotency_key=key).to_json())


@notify_app.command("remove")
def notify_remove(campaign: str, endpoint_id: str,
                  reason: Annotated[str, typer.Option()] = "no longer wanted", actor: ActorOpt = "admin",
                  key: KeyOpt = None) -> None:
    """Remove an endpoint: it is told nothing more, and its waiting messages are not sent."""
    with ledger_app() as ledger:
        command = build(RemoveEndpoint, endpoint_id=endpoint_id, reason=reason)
        emit(ledger.handle(cid_of(ledger, campaign), command, actor=Actor(actor, "admin"),
                           idempotency_key=key).to_json())


@notify_app.command("deliver")
def notify_deliver(follow: Annotated[bool, typer.Option(help="Keep delivering as messages come")] = False) -> None:
    """Send the outbox's waiting messages (what the service's own thread does unless LEDGER_NOTIFY_DELIVERY=off)."""
    from projections.delivery import Deliveries
    from projections.runner import Projector

    with ledger_app() as ledger:
        projector = Projector(ledger, ["outbox"])
        deliveries = Deliveries(ledger)
        try:
            while True:
                projector.catch_up()
                sent = deliveries.run_once()
                if not follow and not sent:
                    break
                if sent < deliveries.batch:
                    time.sleep(0.2 if follow else 0)
        finally:
            deliveries.close()
