"""``ledger project``, ``ledger rebuild``, ``ledger state``, ``ledger replay``, ``ledger scenario``: the views."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from rich.text import Text

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, err, error_text, escape, ledger_app, out
from ledger.rules.core import Ruling
from ledger.rules.explain import explain


def project(follow: Annotated[bool, typer.Option("--follow", help="Keep following the log")] = False,
            poll: Annotated[float, typer.Option(help="Seconds between polls (SQLite)")] = 0.5) -> None:
    """Bring the views up to date (once, or following the log: LISTEN/NOTIFY on PostgreSQL)."""
    from projections.runner import ProjectionRunner

    with ledger_app() as ledger:
        runner = ProjectionRunner(ledger, poll=poll)
        if follow:  # under `ledger serve --workers N`: exit with the master; beat so /ready sees us alive
            from ledger.supervision import Heartbeat, die_with_parent

            die_with_parent()
            Heartbeat(ledger).run(threading.Event())
        n = runner.catch_up()
        out.print(f"{n} events projected; lag {runner.lag}")
        say_failed(runner.projector)
        if not follow:
            return
        runner.start()
        try:
            while True:
                time.sleep(5)
                s = runner.status()
                out.print(f"head {s['head']} lag {s['lag']} processed {s['processed']}"
                          + (f" error {escape(s['last_error'])}" if s["last_error"] else ""))
        except KeyboardInterrupt:
            runner.stop()


def rebuild(view: Annotated[Optional[str], typer.Argument(help="map, victory or timeline (default: all)")] = None,
            restart: Annotated[bool, typer.Option("--restart", help="Start over even if a rebuild was "
                                                  "interrupted")] = False,
            page: Annotated[int, typer.Option(help="Events per transaction")] = 5000,
            jobs: Annotated[int, typer.Option(min=1, max=8, help="Processes to split the views over "
                                              "(PostgreSQL; each reads the log itself)")] = 1,
            throttle: Annotated[float, typer.Option(help="Seconds to pause between pages (spare a live "
                                                    "database)")] = 0.0) -> None:
    """Drop the views and project every event again (an interrupted rebuild resumes)."""
    from projections.runner import Projector
    from projections.views import VIEW_CLASSES

    if view is not None and view not in VIEW_CLASSES:
        out.print(error_text(f"unknown view {view!r} ({', '.join(VIEW_CLASSES)})", "view"))  # stdout, as ever
        raise typer.Exit(2)
    with ledger_app() as ledger:
        projector = Projector(ledger, [view] if view else None, page=page)
        head = projector.db.head()
        with Progress(TextColumn("rebuild {task.description}"), BarColumn(), MofNCompleteColumn(),
                      TaskProgressColumn(), TextColumn("{task.fields[rate]} events/s"), TimeRemainingColumn(),
                      console=Console(stderr=True)) as bar:
            task = bar.add_task(", ".join(projector.names), total=head, rate="—")
            start = time.perf_counter()
            done = [0]

            def progress(n: int) -> None:
                done[0] += n
                rate = done[0] / max(time.perf_counter() - start, 1e-9)
                bar.update(task, advance=n, rate=f"{rate:,.0f}")
                if throttle:
                    time.sleep(throttle)

            result = projector.rebuild(progress, restart=restart, jobs=jobs)
            if result["resumed_from"]:
                bar.update(task, completed=min(result["resumed_from"].values()) + done[0])
        secs = time.perf_counter() - start
        resumed = result["resumed_from"]
        note = f" (resumed from {resumed})" if resumed else ""
        out.print(f"rebuilt {', '.join(result['views'])}: {result['events']} events in {secs:.1f} s{note}")
        say_failed(projector)


def say_failed(projector: Any) -> None:
    """On stderr, the events a view could not apply and passed (``projections.store.Failures``), one a line."""
    for view, doc in sorted(projector.failed().items()):
        err.print(escape(f"warning: the {view} view could not apply {doc['count']} event(s) and passed them:"),
                  soft_wrap=True)
        for e in doc["events"]:
            err.print(escape(f"  campaign {e['campaign']} position {e['position']} ({e['type']}): {e['error']}"),
                      soft_wrap=True)
        if doc["count"] > len(doc["events"]):
            err.print(escape(f"  and {doc['count'] - len(doc['events'])} more (the service's log has them)"))


def state(campaign: str, at: Annotated[Optional[int], typer.Option("--at", help="Position N")] = None) -> None:
    """The map and victory state as of position N (checkpoint + replay)."""
    from projections import replay
    from projections.runner import Projector

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        projector = Projector(ledger)
        projector.catch_up()
        n = ledger.campaign(cid).version if at is None else at
        emit(replay.state_at(ledger, projector.db, cid, n))


def replay_cmd(campaign: str, turn: Annotated[int, typer.Option("--turn", help="Turn to step through")],
               commands: Annotated[Optional[str], typer.Option(
                   "--commands", help="Keys to run instead of reading the terminal, e.g. 'n,n,p,j 7,q'")] = None,
               ) -> None:
    """Step through a turn: n next, p previous, j N jump to position N, q quit."""
    from projections.head import Reader
    from projections.runner import Projector

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        state = ledger.campaign(cid)
        # The turn page's reader: the turn's events from the nearest checkpoint, never the whole history.
        reader = Reader(ledger, Projector(ledger).db)
        every = reader.turn_records(cid, turn, state.version)
        in_turn = [r for r in every if r.turn == turn]
        if not in_turn:
            out.print(error_text(f"turn {turn} has no events", "turn"))
            raise typer.Exit(2)
        steps = Steps(reader, cid, state, every)
        keys = iter(commands.split(",")) if commands is not None else None
        i = 0
        while True:
            steps.show(in_turn[i])
            out.print("[dim]n next · p previous · j N jump · q quit[/dim]")
            if keys is not None:
                key = next(keys, "q").strip()
            else:
                try:
                    key = input("> ").strip()
                except EOFError:
                    key = "q"
            if key in ("q", "quit"):
                return
            if key in ("n", ""):
                i = min(i + 1, len(in_turn) - 1)
            elif key == "p":
                i = max(i - 1, 0)
            elif key.startswith("j"):
                try:
                    target = int(key[1:].strip())
                except ValueError:
                    out.print("[red]j N: N is a position[/red]")
                    continue
                found = [k for k, r in enumerate(in_turn) if r.position == target]
                if found:
                    i = found[0]
                else:
                    out.print(Text(f"position {target} is not in turn {turn} "
                                   f"({in_turn[0].position}..{in_turn[-1].position})", "red"))


def scenario_import(path: Path, slug: str,
                    name: Annotated[Optional[str], typer.Option(help="Campaign name")] = None,
                    actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Create a campaign from a scenario file (YAML or JSON)."""
    from ledger.scenario import import_scenario

    with ledger_app() as ledger:
        cid, result = import_scenario(ledger, path.read_text(encoding="utf-8"), slug=slug, name=name,
                                      source=path.name, actor=Actor(actor, "gm"), idempotency_key=key)
        emit({"id": str(cid), **result.to_json()})


class Steps:
    """The steps of one turn as the web page shows them (``Reader.step``: the same fold, the same words as
    ``api/web/turn_view.py``), printed. The terminal reads as the ledger itself: everything."""

    def __init__(self, reader, cid, state, every) -> None:
        from projections.timeline import empty, row

        self.reader, self.cid, self.state, self.every = reader, cid, state, every
        self.actor = Actor("terminal", "gm")
        self.doc = empty()  # the stack owners the summaries name, as the timeline's
        for x in reader.of_types(cid, {"ScenarioImported"}, state.version):
            row(self.doc, x)
        self.fixes = reader.of_types(cid, {"CorrectionRecorded"}, state.version)

    def show(self, r) -> None:
        from projections.timeline import row

        line = row(dict(self.doc), r)
        out.rule(escape(f"position {r.position} · turn {r.turn} · {r.type}"))
        out.print(escape(line["summary"]))
        if r.type == "RulingRecorded":
            out.print(escape(explain(Ruling.model_validate(r.data["ruling"]))))
        for k in [x for x in self.fixes if x.data.get("corrects") == r.position]:
            out.print(escape(f"corrected at position {k.position}: {k.data.get('reason')}"))
        step = self.reader.step(self.cid, self.actor, self.state, r, self.every)
        if step.changes:
            out.print("[bold]changed:[/bold]")
            for c in step.changes:
                out.print("  " + escape(c))
        if step.budget:
            out.print("[bold]budget:[/bold]")
            for b in step.budget:
                out.print("  " + escape(b["text"]))
        sys.stdout.flush()
