"""The API against its own published schema: schemathesis, every phase (examples, coverage, fuzzing, stateful
sequences of calls), against a real service holding the sample campaign, as the admin.

    python ops/schema_check.py --short      # CI (.ci/run's ops lane): 5 examples an operation, about a minute
    python ops/schema_check.py              # 50 examples an operation: what the closing notes report

Every check of schemathesis runs but one, ``positive_data_acceptance`` (ST202 "schema-valid request rejected"):
the ledger refuses, with a 422 naming the field, input the schema cannot describe, because it depends on the
campaign (a country or a province that is not in it, a setting change that names no setting, a turn that is not
open). Those refusals are the rules, not disagreements between the schema and the server; every other check
(server errors, undocumented statuses and content types, responses against their schemas, the Allow header,
unauthenticated access, missing required headers, use after free...) must find nothing. Exits with
schemathesis's status: 0 when it found no failure.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ops.results import Results, add_option  # noqa: E402

#: The one check left out, and why: the module docstring.
EXCLUDED = "positive_data_acceptance"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the service did not answer {url} within {seconds:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--short", action="store_true", help="5 examples an operation (CI)")
    ap.add_argument("--max-examples", type=int, default=50)
    add_option(ap)
    args = ap.parse_args()
    examples = 5 if args.short else args.max_examples
    results = Results(args.results)
    admin, port = secrets.token_urlsafe(24), _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="schema-check-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
        env.update(LEDGER_DATA_DIR=tmp, LEDGER_ADMIN_TOKEN=admin, LEDGER_ENV="test")
        server = subprocess.Popen([sys.executable, "-m", "ledger", "serve", "--host", "127.0.0.1",
                                   "--port", str(port), "--sample"], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait(f"{base}/health")
            st = Path(sys.executable).with_name("st")
            started = time.monotonic()
            done = subprocess.run(
                [str(st), "run", f"{base}/openapi.json", "-H", f"Authorization: Bearer {admin}",
                 "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", str(examples),
                 "--exclude-checks", EXCLUDED, "--request-timeout", "30", "--seed", "1", "--no-color"],
                cwd=tmp, env={**env, "SCHEMATHESIS_HOOKS": ""}, capture_output=True, text=True)
            seconds = time.monotonic() - started
        finally:
            server.terminate()
            server.wait(timeout=30)
    out = done.stdout + done.stderr
    summary = out[out.rfind("SUMMARY"):] if "SUMMARY" in out else out[-4000:]
    print(summary if done.returncode == 0 else out[-20000:])
    failures = re.search(r"(\d+) failures?", summary)
    cases = re.search(r"(\d+) generated", summary)
    results.add("schemathesis, every phase", examples_per_operation=examples,
                generated=int(cases.group(1)) if cases else None,
                failures=int(failures.group(1)) if failures else 0, excluded_check=EXCLUDED,
                seconds=round(seconds, 1), verdict="OK" if done.returncode == 0 else "FAILED")
    print(f"schemathesis: {examples} examples an operation, every phase, {seconds:.0f} s: "
          f"{'no failure' if done.returncode == 0 else 'FAILURES (above)'}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
