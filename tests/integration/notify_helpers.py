"""A local webhook receiver and mail server (no outside network), and a three-player campaign, for the tests of
notifications (issue 38)."""

from __future__ import annotations

import socketserver
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson

from ledger.domain import commands as cmd
from ledger.domain.actors import Actor
from ledger.notify.signing import new_endpoint_id
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text

ALL_TOPICS = ["turns", "rulings", "moves", "corrections", "sheets", "deadlines"]
PLAYERS = {c: Actor(name, "player", c) for c, name in (("ENG", "alice"), ("FRA", "bruno"), ("SPA", "carla"))}


class Receiver:
    """Records every POST (path, headers, raw body); ``fail[path]``: answers to give before succeeding."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self.fail: dict[str, list[int]] = {}
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    pending = outer.fail.get(self.path) or []
                    code = pending.pop(0) if pending else 204
                    if code < 300:
                        outer.received.append((self.path, dict(self.headers), body))
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def bodies(self, path: str) -> list[dict]:
        with self.lock:
            return [orjson.loads(b) for p, _, b in self.received if p == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class MailServer:
    """Just enough SMTP to take messages: each DATA is kept (``mails``: raw text)."""

    def __init__(self) -> None:
        self.mails: list[str] = []
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                self.wfile.write(b"220 test ESMTP\r\n")
                while line := self.rfile.readline():
                    verb = line.strip().split(b" ")[0].upper()
                    if verb == b"DATA":
                        self.wfile.write(b"354 go on\r\n")
                        data = []
                        while (part := self.rfile.readline()) not in (b".\r\n", b""):
                            data.append(part)
                        outer.mails.append(b"".join(data).decode())
                        self.wfile.write(b"250 queued\r\n")
                    elif verb == b"QUIT":
                        self.wfile.write(b"221 bye\r\n")
                        return
                    else:
                        self.wfile.write(b"250 ok\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.server.server_address[1]}?from=ledger@example.org"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def three_players(ledger, slug: str = "three"):
    """The sample scenario with a third country (SPA, Carla's), before its first turn."""
    fra = "  - {code: FRA, name: France, player: bruno, treasury: 150, stability: 0}\n"
    text = load_text("sample").replace(fra, fra + "  - {code: SPA, name: Spain, player: carla, treasury: 90, "
                                                  "stability: 0}\n")
    cid, _ = import_scenario(ledger, text, slug=slug, actor=GM)
    return cid


def register(ledger, cid, actor, target: str, topics=None, kind: str = "json", audience: str | None = None,
             key: str | None = None) -> str:
    eid = new_endpoint_id()
    fields = {"kind": kind, "target": target, "topics": topics or ALL_TOPICS}
    if audience is not None:
        fields["audience"] = audience
    ledger.handle(cid, cmd.build(cmd.RegisterEndpoint, **fields), actor=actor, endpoint_id=eid, idempotency_key=key)
    return eid
