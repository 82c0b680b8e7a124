"""A background write load for the drills: W threads POSTing rolls with unique keys until stopped."""

from __future__ import annotations

import threading

import httpx

from _harness import AUTH, post


class Load:
    def __init__(self, base: str, slug: str, writers: int = 4):
        self.base, self.slug, self.writers = base, slug, writers
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.acked: list[str] = []  # purposes answered 201, in order
        self.failed: list[tuple[str, int, str]] = []
        self.retries = 0
        self.threads = [threading.Thread(target=self._run, args=(w,), daemon=True) for w in range(writers)]

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=120)

    def snapshot(self) -> set[str]:
        with self.lock:
            return set(self.acked)

    def _run(self, w: int) -> None:
        i = 0
        with httpx.Client(base_url=self.base, headers=AUTH, timeout=30) as http:
            while not self.stop_event.is_set():
                purpose = f"l{w}-{i}"
                try:
                    r, tries = post(http, f"/campaigns/{self.slug}/rolls", {"purpose": purpose}, purpose,
                                    deadline=90)
                except TimeoutError as e:  # no answer for 90 s: a failure the drill reports, not a dead writer
                    with self.lock:
                        self.failed.append((purpose, 0, str(e)))
                    i += 1
                    continue
                with self.lock:
                    self.retries += tries
                    if r.status_code == 201:
                        self.acked.append(purpose)
                    else:
                        self.failed.append((purpose, r.status_code, r.text[:160]))
                i += 1
