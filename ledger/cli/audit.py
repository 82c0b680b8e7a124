"""``ledger events|verify|recompute``, and the rulesets: ``ledger procedures|resolve`` (records nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional
from uuid import UUID

import typer
from rich.table import Table

from ledger import sequence
from ledger.cli.base import cid_of, emit, err, error_text, escape, fail, ledger_app, out, parse_ints, parse_json
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import first_error
from ledger.rules.core import FixedDice, RulesError, get_ruleset, procedure_order


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


def _cid(campaign: str) -> UUID:
    # Not cid_of: that loads the campaign's state, which a damaged history refuses; verify never needs it.
    try:
        return UUID(campaign)
    except ValueError:
        return campaign_id(campaign)


def verify(campaign: str,
           expect_head: Annotated[Optional[str], typer.Option(
               "--expect-head", help="POSITION:HASH you noted: a deleted or rewritten tail shows")] = None,
           checkpoint: Annotated[Optional[Path], typer.Option(
               "--checkpoint", help="A signed checkpoint you kept (a file)")] = None,
           views: Annotated[bool, typer.Option(
               "--views", help="Also fold the campaign again and compare the stored views (map, victory, timeline, "
                               "awards) with it")] = False) -> None:
    """Walk the stored rows and the service's signed checkpoints, and check the latest snapshot; exit 1 naming
    the first broken position, a snapshot the service ignores, or (--views) each stored view the chain does not
    give."""
    head = None
    if expect_head is not None:
        position, sep, digest = expect_head.partition(":")
        if not sep or not position.isdigit() or len(digest) != 64:
            fail("--expect-head", "expected POSITION:HASH (a position and a 64-hex-digit hash)")
        head = (int(position), digest.lower())
    note = _read(checkpoint, "--checkpoint") if checkpoint is not None else None
    cid = _cid(campaign)
    with ledger_app() as ledger:
        report = ledger.verify(cid, expect_head=head, checkpoint=note)
        if not report.intact:
            out.print(f"[red]BROKEN[/red] at position {report.broken_at}: {escape(str(report.reason))}")
            raise typer.Exit(1)
        out.print(f"intact: {report.count} events, head {report.head_hash}, root {report.root}")
        bad = False
        snapshot = ledger.check_snapshot(cid)
        if snapshot is not None and snapshot[1] is not None:
            # A cache, not a record: the service ignores it and folds the events instead; someone wrote it.
            out.print(f"[red]SNAPSHOT IGNORED[/red] at position {snapshot[0]}: {escape(snapshot[1])} (the service "
                      "folds the events instead; the row was not written by the service)")
            bad = True
        if views:
            from projections.audit import check_views
            from projections.runner import Projector

            compared, problems = check_views(ledger, Projector(ledger).db, cid)
            for problem in problems:
                out.print(f"[red]VIEW DIFFERS[/red] {escape(problem)}")
            if problems:
                out.print(f"{len(problems)} differences between the stored views and the chain: rebuild them "
                          "(`ledger rebuild`) and find who wrote them")
                bad = True
            else:
                out.print(f"views hold: {compared} stored documents and rows are what the chain gives")
    if bad:
        raise typer.Exit(1)


def sign_head(campaign: str) -> None:
    """Sign the head of a history written before signed checkpoints (the operator attests to it); print it."""
    with ledger_app() as ledger:
        print(ledger.sign_head(_cid(campaign)), end="")


def _read(path: Path, option: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        fail(option, f"cannot read {path}: {e}")


def audit(campaign: str,
          receipts: Annotated[Path, typer.Option("--receipts", help="A directory of signed checkpoints you kept")]
          ) -> None:
    """Check a player's receipts: signed by the service, consistent with each other and with the current
    history (a truncation, a rewritten tail or a fork exits 1)."""
    from ledger.receipts import audit_receipts

    if not receipts.is_dir():
        fail("--receipts", f"{receipts} is not a directory")
    notes = {p.name: _read(p, "--receipts") for p in sorted(receipts.iterdir()) if p.is_file()}
    if not notes:
        fail("--receipts", f"{receipts} holds no receipt")
    with ledger_app() as ledger:
        report = audit_receipts(ledger, _cid(campaign), notes)
    for problem in report.problems:
        out.print(f"[red]PROBLEM[/red] {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)
    out.print(f"{report.checked} receipts: each signed by the service and extended by the history "
              f"({report.head} events)")


def recompute(campaign: str, position: Annotated[Optional[int], typer.Option(
        "--position", help="Only the ruling (or re-resolution) at this position")] = None) -> None:
    """Recompute every recorded ruling (and every ruling a correction resolved again) from its inputs and
    dice; list those that differ, with counts."""
    from projections.words import board_disagreement

    from ledger.economy.income import audit_words

    checked: list[int] = []
    board: list[dict] = []
    incomes: list[dict] = []
    with ledger_app() as ledger:
        diffs = ledger.recompute(cid_of(ledger, campaign), position, checked=checked, board=board,
                                 incomes=incomes)
        # The sequence of play (ledger/sequence.py): what it refuses in the history, kept or not.
        played = sequence.audit(ledger, cid_of(ledger, campaign)) if position is None else None
    for d in diffs:
        out.print(escape(f"position {d['position']} {d['procedure']}: {d['status']} ({d['reason']})"))
    for b in board:
        kept = f"; kept by the game master: {b['overridden']}" if b["overridden"] else ""
        out.print(escape(f"position {b['position']} {b['procedure']}: {board_disagreement(b)} ({b['said']}){kept}"))
    for i in incomes:
        out.print(escape(audit_words(i)), soft_wrap=True)
    if position is not None and not checked and not incomes:
        out.print(error_text(f"position {position} is not a ruling", "position"))
        raise typer.Exit(2)
    counts = {s: sum(1 for d in diffs if d["status"] == s) for s in ("differs", "error", "skipped")}
    same = len(checked) - sum(counts.values())
    out.print(f"{len(checked)} ruling(s) recomputed: {same} as recorded, {counts['differs']} differ, "
              f"{counts['error']} could not be recomputed, {counts['skipped']} skipped (other ruleset version)")
    kept = sum(1 for b in board if b["overridden"])
    out.print(f"against the board and the map: {len(board)} input(s) disagree in "
              f"{len({b['position'] for b in board})} ruling(s), {kept} kept by the game master with a reason, "
              f"{len(board) - kept} not")
    unkept = [i for i in incomes if not (i["kept"] and i["computed"] == i["again"])]
    out.print(f"confirmed income lines against the state at their position: {len(incomes)} disagree, "
              f"{len(incomes) - len(unkept)} kept by the game master with a reason, {len(unkept)} not")
    if played is not None:
        for p in played:
            kept_by = f"; kept by the game master: {p['kept']}" if p["kept"] else ""
            out.print(escape(f"position {p['position']} {p['type']}: {'; '.join(p['refused'])}{kept_by}"))
        kept = sum(1 for p in played if p["kept"])
        out.print(f"against the sequence of play: {len(played)} event(s) out of sequence, {kept} kept by the game "
                  f"master with a reason, {len(played) - kept} not")
    if counts["differs"] or counts["error"] or unkept:
        raise typer.Exit(1)


def procedures(ruleset: str,
               code: Annotated[Optional[str], typer.Argument(help="Only this procedure (e.g. M14)")] = None,
               schemas: Annotated[bool, typer.Option("--schemas/--no-schemas")] = True,
               where: Annotated[bool, typer.Option(
                   "--where", help="Readable: each procedure's module, tables, DECISIONS.md headings and tests")
               ] = False) -> None:
    """Every procedure of a ruleset with its title, seed reference, ruleset options and input JSON Schema."""
    try:
        rs = get_ruleset(ruleset)
    except RulesError as e:
        fail(None, str(e))
    ordered = sorted(rs.procedures.values(), key=lambda p: procedure_order(p.code))
    if code is not None:
        try:
            ordered = [rs.get(code.upper())]
        except RulesError as e:
            fail(e.field, str(e))
    if where:
        _print_where(rs, ordered)
        return
    listing = [
        {"code": p.code, "title": p.title, "seed": p.seed, "options": list(p.options),
         **({"inputs": p.input_schema()} if schemas else {})}
        for p in ordered
    ]
    emit({"ruleset": rs.id, "version": rs.version, "procedures": listing})


def _print_where(rs: Any, ordered: list[Any]) -> None:
    from ledger.rules.where import where

    count = f"{len(ordered)} procedure" + ("s" if len(ordered) != 1 else "")
    out.print(escape(f"{rs.title} (ruleset {rs.id}, version {rs.version}): {count}"), soft_wrap=True)
    for p in ordered:
        w = where(rs, p)
        lines = [f"{w.code}  {w.title}", f"  seed       {p.seed}", f"  module     {w.module} ({w.resolver})"]
        lines += [f"  table      {t}" for t in w.tables] or ["  table      none of its own"]
        lines += [f"  option     {o} (campaign setting rules_options \"{w.code}.{o}\")" for o in p.options]
        lines += [f"  decision   {h}" for h in (*w.decisions, *w.shared_decisions)]
        files = list(dict.fromkeys(t.split("::")[0] for t in w.tests))
        lines += [f"  tests      {f} ({sum(t.startswith(f + '::') for t in w.tests)})" for f in files] \
            or ["  tests      none found"]
        out.print(escape("\n".join(lines)), soft_wrap=True)


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
    except ValueError as e:  # the model's refusal, in plain words (never pydantic's "1 validation error for ...")
        loc, why = first_error(e)
        fail(f"inputs.{loc}" if loc else "inputs", f"{loc}: {why}" if loc else why)
    if source.unused:
        err.print(f"[yellow]warning:[/yellow] {source.unused} dice were not used")
    if explain:
        from ledger.rules.explain import explain as explain_ruling

        print(explain_ruling(ruling))
    else:
        emit(ruling.model_dump(mode="json"))

