"""A bound on a request's head that holds whatever HTTP parser uvicorn runs (issue 34, item 3).

uvicorn's only head bound, ``h11_max_incomplete_event_size``, is read by its h11 parser alone; with httptools
(chosen whenever it is installed, as it is here) a 50 MB head was read and answered, and unfinished heads held
their bytes in the parser's buffers without a token. So the service runs httptools behind this protocol, which
counts the bytes of each request head as they arrive, before the parser buffers them, and answers
``431 Request Header Fields Too Large`` (and closes) once a head passes the bound. A body is not counted: the
app bounds what it reads of one (api/guards.py). Without httptools, h11 with its own bound is used.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

logger = logging.getLogger("ledger.http")

END_OF_HEAD = b"\r\n\r\n"

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: uvicorn's h11 bounds the head itself
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


def http_protocol() -> str:
    """What ``uvicorn.run(http=...)`` takes, by name (a worker process imports it): the bounded httptools
    protocol, or "h11" (bounded by ``h11_max_incomplete_event_size``) where httptools is missing."""
    return "h11" if HttpToolsProtocol is None else "api.headbound:BoundedHead"


@functools.cache
def _limit() -> int:
    """The bound of the process's settings (``LEDGER_MAX_HEADER_BYTES``), read once: a worker process is
    started with the server's environment."""
    from ledger.config import Settings

    return Settings().max_header_bytes


if HttpToolsProtocol is not None:
    class BoundedHead(HttpToolsProtocol):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limit = _limit()
            self._head: int | None = 0  # bytes of the head being read; None: its end was seen (a body may follow)
            self._tail = b""  # the last bytes of a head, so an end split across two reads is found

        def data_received(self, data: bytes) -> None:
            if self._head is not None:
                window = self._tail + data
                end = window.find(END_OF_HEAD)
                size = self._head + (len(data) if end < 0 else end + len(END_OF_HEAD) - len(self._tail))
                if size > self.limit:
                    logger.warning("request head over %d bytes from %s: answered 431 and closed",
                                   self.limit, self.client)
                    self._refuse()
                    return
                if end < 0:
                    self._head, self._tail = size, window[-(len(END_OF_HEAD) - 1):]
                else:
                    self._head, self._tail = None, b""
            super().data_received(data)

        def on_message_complete(self) -> None:
            self._head, self._tail = 0, b""  # the next bytes start the next request's head
            super().on_message_complete()

        def _refuse(self) -> None:
            msg = f"Request head over {self.limit} bytes.".encode("ascii")
            self.transport.write(b"".join([
                b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
                b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: ", str(len(msg)).encode("ascii"), b"\r\n",
                b"connection: close\r\n\r\n", msg]))
            self.transport.close()
            self._head = None
