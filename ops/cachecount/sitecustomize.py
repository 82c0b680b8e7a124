"""Measurement only (``ops/load.py --cache-stats``): counts the hits and misses of every ``cachetools.LRUCache``
the server makes, by the line that made it (``head.py:120``), and writes them with each cache's entries, size
and bound to ``$LOAD_CACHE_COUNTS/<pid>.json`` every second; and the garbage collector's CPU by generation, beside
the process's own CPU, to ``<pid>.gc`` (``gc.callbacks``: the collections' time, in the thread that triggered
them). Python imports this module at start-up when its
directory is on ``PYTHONPATH`` (``site``), before the service's modules bind ``LRUCache``; the service's own
code is not changed, and a server started without it counts nothing."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

if os.environ.get("LOAD_CACHE_COUNTS"):
    import gc

    import cachetools

    _gc: dict[int, list[float]] = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}  # generation: collections, CPU seconds
    _gc_started = [0.0]

    def _gc_timed(phase: str, info: dict) -> None:
        if phase == "start":
            _gc_started[0] = time.process_time()
        else:
            kept = _gc[info["generation"]]
            kept[0] += 1
            kept[1] += time.process_time() - _gc_started[0]

    gc.callbacks.append(_gc_timed)

    _Plain = cachetools.LRUCache
    _made: list = []

    class LRUCache(_Plain):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            caller = sys._getframe(1)
            self._site = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
            self._hits = self._misses = 0
            _made.append(self)

        def __getitem__(self, key):
            try:
                value = _Plain.__getitem__(self, key)
            except KeyError:
                self._misses += 1
                raise
            self._hits += 1
            return value

        def get(self, key, default=None):
            # A writer's look at what it would replace (``ResponseCache.put`` keeps the newer answer) is not a
            # read: counted, each miss of the reads would be counted twice.
            caller = sys._getframe(1).f_code
            if caller.co_name == "put" and caller.co_filename.endswith("readpath.py"):
                return _Plain.__getitem__(self, key) if key in self else default
            if key in self:
                self._hits += 1
                return _Plain.__getitem__(self, key)
            self._misses += 1
            return default

    cachetools.LRUCache = LRUCache

    def _write() -> None:
        folder = os.environ["LOAD_CACHE_COUNTS"]
        while True:
            time.sleep(1.0)
            sites: dict[str, list[int]] = {}
            for cache in list(_made):
                s = sites.setdefault(cache._site, [0, 0, 0, 0, 0])
                s[0] += cache._hits
                s[1] += cache._misses
                s[2] += len(cache)
                s[3] += int(cache.currsize)
                s[4] += int(cache.maxsize)
            path = f"{folder}/{os.getpid()}.json"
            with open(path + ".tmp", "w") as f:
                json.dump(sites, f)
            os.replace(path + ".tmp", path)
            with open(f"{folder}/{os.getpid()}.gc.tmp", "w") as f:
                json.dump({"cpu": time.process_time(), "gc": _gc}, f)
            os.replace(f"{folder}/{os.getpid()}.gc.tmp", f"{folder}/{os.getpid()}.gc")

    threading.Thread(target=_write, name="cache-counts", daemon=True).start()
