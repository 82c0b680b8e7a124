"""Sending one message: the body each kind of endpoint expects, signed, over HTTP or SMTP (stdlib only).

``deliver`` raises ``DeliveryError`` with what went wrong in words (the owner reads it on their page); it never
follows a redirect (a webhook that moved is the owner's to update, and a redirect could point anywhere).
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import urllib.error
import urllib.request
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import orjson

from ledger.notify import signing

#: Discord refuses a message longer than this; Slack truncates near 40,000.
DISCORD_MAX = 2000
USER_AGENT = "wargame-ledger-notify/1"


class DeliveryError(Exception):
    """A message could not be delivered; the text says why, for the endpoint's owner. ``permanent``: trying again
    will not help (the receiver said the webhook is gone or refused it): the message is given up at once."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


def _headline(message: dict[str, Any]) -> str:
    turn = f" · turn {message['turn']}" if message.get("turn") else ""
    return f"{message.get('campaign_name') or message['campaign']}{turn} · #{message['position']}"


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def body_of(kind: str, message: dict[str, Any]) -> tuple[bytes, str]:
    """(body, content type) of ``message`` for an endpoint of ``kind``."""
    if kind == "discord":
        text = f"**{_headline(message)}**\n{message['text']}"
        # No mention is ever parsed: a name typed in a reason must not ping @everyone.
        return orjson.dumps({"content": text[:DISCORD_MAX], "allowed_mentions": {"parse": []}}), "application/json"
    if kind == "slack":
        return orjson.dumps({"text": f"*{_slack_escape(_headline(message))}*\n{_slack_escape(message['text'])}"}), \
            "application/json"
    if kind == "json":
        return orjson.dumps({"ledger": 1, **message}, option=orjson.OPT_SORT_KEYS), "application/json"
    if kind == "email":
        return f"{_headline(message)}\n\n{message['text']}\n".encode(), "text/plain; charset=utf-8"
    raise DeliveryError(f"unknown endpoint kind {kind!r}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, D102
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def post(url: str, body: bytes, content_type: str, headers: dict[str, str], timeout: float) -> None:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type, "User-Agent": USER_AGENT, **headers})
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            answer.read(1024)
    except urllib.error.HTTPError as e:
        said = e.read(200).decode("utf-8", "replace").strip() if e.fp is not None else ""
        # A redirect, or 4xx but a timeout or "too many requests": the webhook moved, is gone or refuses this message.
        raise DeliveryError(f"the receiver answered HTTP {e.code} {e.reason}" + (f": {said}" if said else ""),
                            permanent=300 <= e.code < 500 and e.code not in (408, 429)) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise DeliveryError(f"could not reach the receiver: {reason}") from None


def send_mail(smtp_url: str, to: str, subject: str, body: bytes, headers: dict[str, str], timeout: float) -> None:
    """``smtp_url``: ``smtp://[user:password@]host[:port][?from=ADDRESS&starttls=1]`` or ``smtps://...``."""
    parts = urlsplit(smtp_url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    sender = query.get("from") or f"ledger@{parts.hostname or 'localhost'}"
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    for name, value in headers.items():
        msg[name] = value
    msg.set_content(body.decode())
    try:
        if parts.scheme == "smtps":
            server: smtplib.SMTP = smtplib.SMTP_SSL(parts.hostname or "localhost", parts.port or 465, timeout=timeout,
                                                    context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(parts.hostname or "localhost", parts.port or 25, timeout=timeout)
        with server:
            if query.get("starttls") in ("1", "true", "yes"):
                server.starttls(context=ssl.create_default_context())
            if parts.username:
                server.login(unquote(parts.username), unquote(parts.password or ""))
            server.send_message(msg)
    except (smtplib.SMTPException, OSError, socket.timeout) as e:
        raise DeliveryError(f"the mail server refused or could not be reached: {e}") from None


def deliver(kind: str, target: str, message: dict[str, Any], secret: str, now: float, *, timeout: float = 5.0,
            smtp_url: str | None = None) -> None:
    """Send ``message`` to one endpoint, signed with its ``secret`` at ``now`` (``signing``)."""
    body, content_type = body_of(kind, message)
    signed = signing.headers(secret, int(now), body)
    if kind == "email":
        if not smtp_url:
            raise DeliveryError("no mail server is configured (LEDGER_SMTP_URL)")
        send_mail(smtp_url, target, f"[ledger] {_headline(message)}: {message['text'][:80]}", body, signed, timeout)
        return
    post(target, body, content_type, signed, timeout)
