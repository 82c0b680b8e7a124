"""``ledger ruling record``, ``ledger treasury``, ``ledger correct``: what a game master records."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from ledger.cli.base import (Actor, ActorOpt, KeyOpt, cid_of, dotted, emit, error_text, escape, fail, in_words,
                             ledger_app, out, pair_of, parse_ints, parse_json)
from ledger.domain import events as ev
from ledger.domain.commands import RecordCorrection, RecordRuling, RecordTreasuryEntry, ReworkRuling, build

ruling_app = typer.Typer(help="Record rulings.", no_args_is_help=True)


@ruling_app.command("record")
def ruling_record(
    campaign: str,
    procedure: str,
    inputs: Annotated[str, typer.Option(help="JSON object of the procedure's inputs (or --input, one at a time)")] = "{}",
    input_: Annotated[Optional[list[str]], typer.Option(
        "--input", help="One input, NAME=VALUE; a side's with a dot: attacker.ld=6; repeat")] = None,
    where: Annotated[Optional[str], typer.Option(help="The province or sea zone where it happens")] = None,
    stack: Annotated[Optional[list[str]], typer.Option(
        "--stack", help="A role of the ruling and its stack, ROLE=STACK: attacker=ENG-1 (its effects land there)")] = None,
    override: Annotated[Optional[list[str]], typer.Option(
        "--override", help="An input kept although the board or the map contradicts it, FIELD=REASON: "
                           "attacker.ld=\"Burgundian allies joined\", or war=REASON for sides not at war on the map; "
                           "repeat (game masters only)")] = None,
    out_of_sequence: Annotated[Optional[str], typer.Option(
        "--out-of-sequence", help="Game master: keep it although the sequence of play refuses it (why; recorded)")
    ] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Resolve a procedure with server dice and record the ruling."""
    data = dotted(input_, "--input", parse_json(inputs, "inputs"))
    roles = dict(pair_of(pair, "--stack") for pair in stack or ())
    context = {k: v for k, v in (("where", where), ("stacks", roles or None), ("out_of_sequence", out_of_sequence))
               if v is not None}
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordRuling, procedure=procedure, inputs=data, context=context,
                        overrides=dict(pair_of(pair, "--override") for pair in override or ()) or None)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@ruling_app.command("show")
def ruling_show(
    campaign: str,
    position: int,
    explain: Annotated[bool, typer.Option("--explain", help="Every modifier, die and table cell")] = False,
) -> None:
    """A recorded ruling in words: outcome, effects, and the positions that correct it."""
    from projections import words

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        e = ledger.event_at(cid, position)
        if not isinstance(e, ev.RulingRecorded):
            out.print(error_text(f"position {position} is a {type(e).__name__}, not a ruling", "position"))
            raise typer.Exit(2)
        later = [x for x in ledger.history(cid, after=position) if isinstance(x, ev.CorrectionRecorded)]
    shown = words.ruling_words(e.ruling)  # the page's words for a ruling
    r = shown["model"]
    where = e.context.get("where")
    out.print(escape(f"position {position} · turn {e.context.get('turn')} · {r['procedure']} {r['title']}"
                     + (f" at {where}" if where else "")))
    if r.get("summary"):
        out.print(escape(r["summary"]))
    for k, x in shown["outcome_rows"]:
        out.print(escape(f"  {k}: {x}"))
    for f in shown["effects"]:
        out.print(escape(f"  effect: {f}"))
    for note in shown["board"]:
        out.print(escape(f"  against the board: {note}"))
    if explain:
        out.print(escape(shown["text"]))
    chain = {position}
    for x in later:  # corrections of it, and corrections of those
        if x.corrects in chain:
            chain.add(x.position)
            what = "withdrawn" if x.replacement is None and x.corrects != position else (
                "struck" if x.replacement is None else "resolved again" if "rework" in x.replacement else "restated")
            out.print(escape(f"corrected at position {x.position} ({what}; corrects {x.corrects}): {x.reason}"))
            if x.replacement and "ruling" in x.replacement:
                diff = words.ruling_diff(e.ruling, {**e.ruling, **x.replacement["ruling"]})
                for k, a, b in diff["inputs"] + diff["outcome"]:
                    out.print(escape(f"    {k}: {a} → {b}"))
                for f in diff["removed"]:
                    out.print(escape(f"    no longer: {f}"))
                for f in diff["added"]:
                    out.print(escape(f"    now: {f}"))


@ruling_app.command("rework")
def ruling_rework(
    campaign: str,
    position: int,
    reason: Annotated[str, typer.Option()],
    inputs: Annotated[str, typer.Option(help="JSON object of the amended inputs (left out: as recorded)")] = "{}",
    input_: Annotated[Optional[list[str]], typer.Option(
        "--input", help="One amended input, NAME=VALUE (attacker.ld=5); repeat; the others as recorded")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the difference, record nothing")] = False,
    manual: Annotated[Optional[str], typer.Option(
        help="Dice rolled at the table for the dice the recorded ones do not cover, comma-separated, e.g. 7")] = None,
    override: Annotated[Optional[list[str]], typer.Option(
        "--override", help="An input kept although the board or the map contradicts it, FIELD=REASON: "
                           "attacker.ld=\"Burgundian allies joined\", or war=REASON for sides not at war on the map; "
                           "repeat (game masters only)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Resolve the ruling at POSITION again with amended inputs, its recorded dice matched by purpose, and
    record the correction (with --dry-run: only show what would change)."""
    from projections import words

    amended = dotted(input_, "--input", parse_json(inputs, "inputs"))
    if not amended:
        fail("inputs", "name at least one amended input: --input attacker.ld=5 (or --inputs with a JSON object)")
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        e = ledger.event_at(cid, position)
        recorded = e.ruling.get("inputs", {}) if isinstance(e, ev.RulingRecorded) else {}
        merged = _merged(recorded, amended)
        physical = [[v] for v in parse_ints(manual, "manual")] if manual else None
        command = build(ReworkRuling, position=position, inputs=merged, reason=reason, manual_dice=physical,
                        overrides=dict(pair_of(pair, "--override") for pair in override or ()) or None)
        who = Actor(actor, "gm")
        result = ledger.preview(cid, command, actor=who) if dry_run else ledger.handle(
            cid, command, actor=who, idempotency_key=key)
    report = result.data.get("rework") or {}
    if report.get("needs_die"):
        out.print(escape(f"needs a die the original did not draw: {report['needs_die']}; "
                         "the server draws it when the correction is recorded"))
    diff = words.ruling_diff(result.data.get("original"), result.data.get("ruling"))
    for k, a, b in diff["inputs"] + diff["outcome"]:
        out.print(escape(f"{k}: {a} → {b}"))
    for f in diff["removed"]:
        out.print(escape(f"no longer: {f}"))
    for f in diff["added"]:
        out.print(escape(f"now: {f}"))
    drawn = "drawn now by the server" if not manual else "rolled at the table"
    if report.get("after_turn_closed"):
        drawn += f", after turn {report['after_turn_closed']} closed"
    for k, what in (("matched", "recorded die reused"), ("drawn", drawn),
                    ("unused", "recorded die no longer needed")):
        for d in report.get(k) or ():
            out.print(escape(f"{what}: {words.dice_line(d)}"))
    for b in result.data.get("entries") or ():
        out.print(escape(f"budget: {b['country']} {b['line']}: {words.plain(b['from'])} → "
                         f"{words.plain(b['to']) if b['to'] is not None else 'struck'}"))
    if dry_run:
        out.print("nothing recorded (--dry-run)")
    else:
        positions = ", ".join(str(x["position"]) for x in result.events)
        out.print(f"recorded at position(s) {positions}")


def _merged(recorded: Any, amended: Any) -> Any:
    """The recorded inputs with the amended ones laid over them, nested objects field by field."""
    if isinstance(recorded, dict) and isinstance(amended, dict):
        return {**recorded, **{k: _merged(recorded.get(k), v) for k, v in amended.items()}}
    return amended


def treasury(
    campaign: str,
    country: str,
    line: str,
    amount: int,
    reason: Annotated[str, typer.Option()],
    turn: Annotated[Optional[int], typer.Option()] = None,
    keep: Annotated[Optional[str], typer.Option(
        help="On a line the board works out (B1, B30...): why the line is kept at another total")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a treasury entry on an ERS line (e.g. A9 35 --reason 'looting'). An expense line (B30...) takes
    the expense as a positive number."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordTreasuryEntry, country=country, line=line, amount=amount, reason=reason, turn=turn,
                        keep=keep)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def correct(
    campaign: str,
    position: int,
    reason: Annotated[str, typer.Option()],
    replacement: Annotated[Optional[str], typer.Option(help="JSON of the corrected content")] = None,
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", help="One corrected field, NAME=VALUE (amount=45); repeat; without --set or --replacement the "
                      "event is struck")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a correction of the event at POSITION (the original stays)."""
    repl = dotted(set_, "--set", parse_json(replacement, "replacement") if replacement else None) \
        if replacement or set_ else None
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordCorrection, corrects=position, reason=reason, replacement=repl)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def whatif(
    campaign: str,
    position: int,
    replacement: Annotated[Optional[str], typer.Option(help="JSON of the corrected content")] = None,
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", help="One corrected field, NAME=VALUE (amount=45); repeat; without --set or --replacement: what if "
                      "the event had never happened")] = None,
    actor: ActorOpt = "gm",
) -> None:
    """What the map, the budget and the victory points would be now had the event at POSITION been otherwise
    (corrected as ``ledger correct`` would record it, or struck): the same answer as POST .../whatif, in words.
    Records nothing."""
    from projections import whatif as whatif_model
    from projections.head import Reader
    from projections.runner import Projector

    repl = dotted(set_, "--set", parse_json(replacement, "replacement") if replacement else None) \
        if replacement or set_ else None
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordCorrection, corrects=position, reason="what if", replacement=repl)
        projector = Projector(ledger)
        projector.catch_up()
        answer = whatif_model.ask(Reader(ledger, projector.db), cid,
                                  ledger.drafted(cid, command, actor=Actor(actor, "gm")))
    if not in_words():
        emit(answer)
        return
    how = "struck" if repl is None else "corrected"
    out.print(escape(f"Had position {position} been {how}, at position {answer['at']}:"))
    lines = [*answer["changes"], *answer["budget"],
             *(f"{country}: {vp['now']} victory points now, {vp['then']} then" for country, vp in
               answer["victory"].items() if vp["now"] != vp["then"])]
    for line in lines or ["nothing would change on the map, the budget or the victory points"]:
        out.print(escape(f"  {line}"))
    out.print("nothing recorded (a what-if)")
