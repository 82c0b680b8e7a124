"""``ledger serve``, ``ledger sample``, ``ledger openapi``: running the service and exporting its schema."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from ledger.cli.base import err, escape, ledger_app, out
from ledger.config import Settings


def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
    sample: Annotated[bool, typer.Option("--sample/--no-sample", help="Create the sample campaign first")] = True,
    workers: Annotated[int, typer.Option(min=1, max=64, help="uvicorn worker processes")] = 1,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level")] = "info",
) -> None:
    """Run the HTTP service (SQLite under the data directory unless PostgreSQL is configured).

    One worker runs the projection runner in a thread (the embedded default);
    with several, the runner is one process of its own (`ledger project
    --follow`, started and stopped here) unless LEDGER_PROJECTION_RUNNER=external
    says it runs elsewhere. Reads never wait for it: they add the events the
    views have not reached yet (projections/head.py).
    """
    import os
    import subprocess

    import uvicorn

    settings = Settings()
    if sample:
        from ledger.sample import ensure_sample

        with ledger_app() as ledger:
            slug = ensure_sample(ledger)
        out.print(f"sample campaign [bold]{escape(slug)}[/bold] ready ({escape(str(settings.backend))} store)")
    # No uvicorn access log: api/observability.py already logs every request as one JSON line.
    if workers == 1:
        from api.main import create_app

        uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, access_log=False)
        return
    follower = None
    if settings.projection_runner == "thread":
        follower = subprocess.Popen([sys.executable, "-m", "ledger", "project", "--follow"],
                                    stdout=subprocess.DEVNULL)
    os.environ["LEDGER_PROJECTION_RUNNER"] = "external"  # read by each worker's Settings
    try:
        uvicorn.run("api.main:create_app", factory=True, host=host, port=port, workers=workers,
                    log_level=log_level, access_log=False)
    finally:
        if follower is not None:
            follower.terminate()
            follower.wait(timeout=10)


def sample() -> None:
    """Create the sample campaign if it does not exist."""
    from ledger.sample import ensure_sample

    with ledger_app() as ledger:
        out.print(f"sample campaign: {escape(ensure_sample(ledger))}")


def openapi(out: Annotated[Optional[str], typer.Option("--out", help="File to write (default: stdout)")] = None
            ) -> None:
    """Export the HTTP API's OpenAPI schema (e.g. --out api/openapi.json)."""
    from api.main import create_app

    schema = create_app(Settings(env="test", admin_token="unused")).openapi()
    text = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
        err.print(f"wrote {escape(out)} ({len(schema['paths'])} paths)")
    else:
        sys.stdout.write(text)
