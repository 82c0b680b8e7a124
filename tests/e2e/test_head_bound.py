"""The request-head bound holds whatever parser the service runs (issue 34, item 3).

`ledger serve` runs as a real process (uvicorn, httptools installed): a 1 MB head, sent at once or in slices, or
never finished, is answered 431 and the connection closed, the service's memory does not take the head, and a
request just under the bound, a body far over it, and pipelined requests are served as before.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_supervision import ROOT, free_port, kill_group, wait_for

BOUND = 16_384


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("head-bound")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env.update(LEDGER_DATA_DIR=str(data), LEDGER_ADMIN_TOKEN="admin-" + uuid.uuid4().hex, PYTHONPATH=str(ROOT),
               LEDGER_MAX_HEADER_BYTES=str(BOUND))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ledger", "serve", "--no-sample", "--port", str(port)], env=env,
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: httpx.get(f"{base}/health", timeout=2).status_code == 200, 60, "the service to start")
        yield proc, port
    finally:
        kill_group(proc)


def exchange(port: int, *chunks: bytes, pause: float = 0.0, answers: int = 1) -> bytes:
    """Send ``chunks`` on one connection (stopping when the server closes it) and read what it answers, until it
    closes or ``answers`` responses came."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        for chunk in chunks:
            try:
                s.sendall(chunk)
            except OSError:  # closed by the server
                break
            time.sleep(pause)
        answer = b""
        try:
            while answer.count(b"HTTP/1.1 ") < answers or not answer.endswith(b"}"):
                part = s.recv(65536)
                if not part:
                    break
                answer += part
        except OSError:
            pass
        return answer


def head(size: int) -> bytes:
    """A GET whose head is ``size`` bytes long (one long header)."""
    start, end = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Filler: ", b"\r\n\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_one_megabyte_head_is_answered_431_and_closed(served):
    _, port = served
    answer = exchange(port, head(1_048_576))
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]
    assert b"connection: close" in answer


def test_a_head_sent_in_slices_is_counted_across_them(served):
    _, port = served
    whole = head(4 * BOUND)
    answer = exchange(port, *(whole[i:i + 1000] for i in range(0, len(whole), 1000)))
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]


def test_a_head_under_the_bound_is_served_even_when_its_end_arrives_split(served):
    _, port = served
    whole = head(BOUND - 200)
    cut = len(whole) - 2  # "\r\n" | "\r\n": the end of the head spans two reads
    answer = exchange(port, whole[:cut], whole[cut:], pause=0.05)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]


def test_pipelined_requests_each_get_their_own_bound(served):
    _, port = served
    one = head(BOUND - 200)
    answer = exchange(port, one + one + one, answers=3)
    assert answer.count(b"HTTP/1.1 200 ") == 3, answer[:200]


def test_a_body_longer_than_the_head_bound_is_not_counted_as_head(served):
    _, port = served
    body = b"x" * (4 * BOUND)
    request = (b"POST /campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    answer = exchange(port, request)
    status = int(answer.split(b" ", 2)[1])
    assert status != 431 and status < 500, answer[:120]  # refused by the app (no token), not by the bound


def test_unfinished_heads_do_not_hold_their_bytes_in_the_service(served):
    proc, port = served
    before = rss_kib(proc.pid)
    socks = []
    try:
        for _ in range(8):  # eight heads of 20 MB that never end, as the attack measured
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            socks.append(s)
            try:
                s.sendall(b"GET /health HTTP/1.1\r\nX-Filler: ")
                for _ in range(20):
                    s.sendall(b"a" * 1_048_576)
            except (BrokenPipeError, ConnectionResetError):
                pass  # closed by the server: the bound held
        grown_mib = (rss_kib(proc.pid) - before) / 1024
    finally:
        for s in socks:
            s.close()
    assert grown_mib < 40, f"the service grew by {grown_mib:.0f} MiB holding unfinished heads"
