"""``ledger events|verify|recompute``, and the rulesets: ``ledger procedures|resolve`` (records nothing)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from ledger.cli.base import cid_of, emit, err, error_text, escape, fail, ledger_app, out, parse_ints, parse_json
from ledger.domain import events as ev
from ledger.rules.core import FixedDice, RulesError, get_ruleset


def events(campaign: str, after: int = 0, limit: Optional[int] = None,
           as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """The history in order, with hashes."""
    with ledger_app() as ledger:
        history = ledger.history(cid_of(ledger, campaign), after=after, limit=limit)
    if as_json:
        emit([{"position": e.position, "type": e.type, "timestamp": e.timestamp, "context": e.context,
               "actor": e.actor, "visibility": e.visibility, "payload": e.payload(), "hash": e.hash}
              for e in history])
        return
    from projections.records import Record
    from projections.timeline import empty, row

    doc = empty()  # the timeline's summaries name stacks by their country, as the web page does
    table = Table("pos", "type", "turn", "actor", "what", "hash")
    for e in history:
        if isinstance(e, ev.ScenarioImported):
            row(doc, Record("", e.position, e.type, {**e.payload(), "context": e.context}))
        summary = row(doc, Record("", e.position, e.type, {**e.payload(), "context": e.context}))["summary"]
        table.add_row(str(e.position), escape(e.type), escape(str(e.context.get("turn") or "—")),
                      escape(str(e.actor.get("id", ""))), escape(summary), e.hash[:12])
    out.print(table)


def verify(campaign: str) -> None:
    """Walk the hash chain; exit 1 naming the first broken position."""
    with ledger_app() as ledger:
        report = ledger.verify(cid_of(ledger, campaign))
    if not report.intact:
        out.print(f"[red]BROKEN[/red] at position {report.broken_at}: {escape(str(report.reason))}")
        raise typer.Exit(1)
    out.print(f"intact: {report.count} events, head {report.head_hash}")


def recompute(campaign: str, position: Annotated[Optional[int], typer.Option(
        "--position", help="Only the ruling (or re-resolution) at this position")] = None) -> None:
    """Recompute every recorded ruling (and every ruling a correction resolved again) from its inputs and
    dice; list those that differ, with counts."""
    checked: list[int] = []
    with ledger_app() as ledger:
        diffs = ledger.recompute(cid_of(ledger, campaign), position, checked=checked)
    for d in diffs:
        out.print(escape(f"position {d['position']} {d['procedure']}: {d['status']} ({d['reason']})"))
    if position is not None and not checked:
        out.print(error_text(f"position {position} is not a ruling", "position"))
        raise typer.Exit(2)
    counts = {s: sum(1 for d in diffs if d["status"] == s) for s in ("differs", "error", "skipped")}
    same = len(checked) - sum(counts.values())
    out.print(f"{len(checked)} ruling(s) recomputed: {same} as recorded, {counts['differs']} differ, "
              f"{counts['error']} could not be recomputed, {counts['skipped']} skipped (other ruleset version)")
    if counts["differs"] or counts["error"]:
        raise typer.Exit(1)


def _order(code: str) -> tuple[str, int]:
    return code[0], int("0" + "".join(filter(str.isdigit, code)))


def procedures(ruleset: str, schemas: Annotated[bool, typer.Option("--schemas/--no-schemas")] = True) -> None:
    """Every procedure of a ruleset with its title, seed reference and input JSON Schema."""
    try:
        rs = get_ruleset(ruleset)
    except RulesError as e:
        fail(None, str(e))
    listing = [
        {"code": p.code, "title": p.title, "seed": p.seed, **({"inputs": p.input_schema()} if schemas else {})}
        for p in sorted(rs.procedures.values(), key=lambda p: _order(p.code))
    ]
    emit({"ruleset": rs.id, "version": rs.version, "procedures": listing})


def resolve(
    ruleset: str,
    procedure: str,
    inputs: Annotated[str, typer.Option(help="JSON object of the inputs")] = "{}",
    dice: Annotated[Optional[list[str]], typer.Option("--dice", help="A die (repeat in draw order); 3,4 for a group")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Readable text instead of JSON")] = False,
) -> None:
    """Resolve a procedure with given dice and print the ruling; records nothing."""
    data = parse_json(inputs, "inputs")
    given: list[Any] = []
    for d in dice or []:
        values = parse_ints(d, "dice")
        given.append(values if "," in d else values[0])
    try:
        proc = get_ruleset(ruleset).get(procedure)
        source = FixedDice(given)
        ruling = proc.resolve(data, source)
    except RulesError as e:
        fail(e.field or "inputs", str(e))
    except ValueError as e:
        fail("inputs", str(e))
    if source.unused:
        err.print(f"[yellow]warning:[/yellow] {source.unused} dice were not used")
    if explain:
        from ledger.rules.explain import explain as explain_ruling

        print(explain_ruling(ruling))
    else:
        emit(ruling.model_dump(mode="json"))

