"""Sending one message: the body each kind of endpoint expects, signed, over HTTP or SMTP (stdlib only).

``deliver`` raises ``DeliveryError`` with what went wrong in words (the owner reads it on their page); it never
follows a redirect (a webhook that moved is the owner's to update, and a redirect could point anywhere). Webhooks
go over kept-alive connections, one per sending thread and host (``post``).
"""

from __future__ import annotations

import http.client
import smtplib
import socket
import ssl
import threading
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


_LOCAL = threading.local()  # per sending thread: its open connections, by (scheme, host, port)


def _connection(parts: Any, timeout: float, fresh: bool) -> http.client.HTTPConnection:
    """A kept-alive connection to the URL's host, one per sending thread (a webhook receiver is a few hosts:
    Discord's, Slack's, yours): a new TCP and TLS handshake per message cost more than the message."""
    pool = _LOCAL.__dict__.setdefault("pool", {})
    key = (parts.scheme, parts.hostname, parts.port)
    conn = pool.get(key)
    if conn is None or fresh:
        if conn is not None:
            conn.close()
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = pool[key] = kind(parts.hostname, parts.port, timeout=timeout)
    conn.timeout = timeout
    return conn


def post(url: str, body: bytes, content_type: str, headers: dict[str, str], timeout: float) -> None:
    """POST ``body``; a redirect is not followed (the webhook moved: its owner updates it)."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sent = {"Content-Type": content_type, "User-Agent": USER_AGENT, **headers}
    for attempt in (0, 1):  # a kept-alive connection the receiver closed meanwhile: once more on a new one
        conn = _connection(parts, timeout, fresh=attempt == 1)
        try:
            conn.request("POST", path, body=body, headers=sent)
            answer = conn.getresponse()
            said = answer.read(64 * 1024)
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
            conn.close()
            if attempt == 0:
                continue
            raise DeliveryError(f"could not reach the receiver: {e}") from None
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise DeliveryError(f"could not reach the receiver: {e}") from None
        if answer.will_close:
            conn.close()
        if answer.status >= 300:
            text = said[:200].decode("utf-8", "replace").strip()
            # A redirect, or 4xx but a timeout or "too many requests": the webhook moved, is gone or refuses this.
            raise DeliveryError(f"the receiver answered HTTP {answer.status} {answer.reason}"
                                + (f": {text}" if text else ""),
                                permanent=300 <= answer.status < 500 and answer.status not in (408, 429))
        return


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
