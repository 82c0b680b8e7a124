"""The ``ledger`` command line: the same use cases as the HTTP API, plus audit tools.

Exit codes: 0 success; 1 a verification found a problem; 2 bad input or state.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Optional
from uuid import UUID

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ledger.application import Actor, Ledger
from ledger.cli_economy import register as register_economy
from ledger.config import Settings
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import LedgerError
from ledger.rules.core import FixedDice, RulesError, get_ruleset

app = typer.Typer(help="Event-sourced ledger for hex-and-counter wargames.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
campaign_app = typer.Typer(help="Create and list campaigns.", no_args_is_help=True)
turn_app = typer.Typer(help="Open and close turns (dice commitment and reveal).", no_args_is_help=True)
dice_app = typer.Typer(help="Verify the dice of a closed turn.", no_args_is_help=True)
ruling_app = typer.Typer(help="Record rulings.", no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")
app.add_typer(turn_app, name="turn")
app.add_typer(dice_app, name="dice")
app.add_typer(ruling_app, name="ruling")
register_economy(app)  # ledger ers, ledger phase close (ledger/cli_economy.py)
from ledger.cli_projections import register as register_projections  # noqa: E402
register_projections(app)  # ledger project/rebuild/state/replay/scenario (ledger/cli_projections.py)
from ledger.cli_export import register as register_export  # noqa: E402
register_export(app)  # ledger export, ledger chart (ledger/cli_export.py)

out = Console()
err = Console(stderr=True)

KeyOpt = Annotated[Optional[str], typer.Option("--idempotency-key", help="Retry-safe key: a repeat appends nothing")]
ActorOpt = Annotated[str, typer.Option("--actor", help="Who records (a game master's name)")]


@contextmanager
def ledger_app() -> Iterator[Ledger]:
    ledger = Ledger(Settings())
    try:
        yield ledger
    except (LedgerError, RulesError) as e:
        field = escape(f" [{e.field}]") if getattr(e, "field", None) else ""
        err.print(f"[red]error{field}:[/red] {escape(str(e))}")
        raise typer.Exit(2) from None
    finally:
        ledger.close()


def cid_of(ledger: Ledger, campaign: str) -> UUID:
    try:
        cid = UUID(campaign)
    except ValueError:
        cid = campaign_id(campaign)
    ledger.campaign(cid)
    return cid


def emit(data: Any) -> None:
    out.print_json(orjson.dumps(data, default=str).decode())


def parse_json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        err.print(f"[red]error {escape(f'[{name}]')}:[/red] not valid JSON: {escape(str(e))}")
        raise typer.Exit(2) from None


# ---------------------------------------------------------------- service


@app.command()
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
    views have not reached yet (api/readpath.py).
    """
    import os
    import subprocess

    import uvicorn

    settings = Settings()
    if sample:
        from ledger.sample import ensure_sample

        with ledger_app() as ledger:
            slug = ensure_sample(ledger)
        out.print(f"sample campaign [bold]{slug}[/bold] ready ({settings.backend} store)")
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


@app.command()
def sample() -> None:
    """Create the sample campaign if it does not exist."""
    from ledger.sample import ensure_sample

    with ledger_app() as ledger:
        out.print(f"sample campaign: {ensure_sample(ledger)}")


# ---------------------------------------------------------------- campaigns


@campaign_app.command("create")
def campaign_create(
    slug: str,
    name: Annotated[str, typer.Option()],
    country: Annotated[list[str], typer.Option("--country", help="Repeat per country, e.g. --country FRA")],
    ruleset: Annotated[str, typer.Option()] = "eu",
    player: Annotated[Optional[list[str]], typer.Option("--player", help="COUNTRY=name")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    players = dict(p.split("=", 1) for p in player or [])
    with ledger_app() as ledger:
        r = ledger.create_campaign(slug=slug, name=name, ruleset=ruleset, countries=country, players=players,
                                   actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


@campaign_app.command("settings")
def campaign_settings_cmd(
    campaign: str,
    players_may_roll: Annotated[Optional[bool], typer.Option(
        "--players-may-roll/--no-players-may-roll", help="Players may roll server dice and record rulings")] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded in the event)")] = "",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Change a campaign's settings (recorded as CampaignSettingsChanged); without options, show them."""
    from ledger.campaign_settings import change_settings

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        if players_may_roll is None:
            emit(ledger.campaign(cid).settings)
            return
        emit(change_settings(ledger, cid, {"players_may_roll": players_may_roll}, reason=reason,
                             actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@campaign_app.command("list")
def campaign_list() -> None:
    with ledger_app() as ledger:
        table = Table("slug", "name", "ruleset", "countries", "turn", "events")
        for c in ledger.campaigns():
            turn = f"{c.turn} ({'open' if c.turn_open else 'closed'})" if c.turn else "-"
            table.add_row(c.slug, c.name, f"{c.ruleset} {c.ruleset_version}", " ".join(c.countries), turn,
                          str(c.version))
        out.print(table)


# ---------------------------------------------------------------- turns and dice


@turn_app.command("open")
def turn_open(campaign: str, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    with ledger_app() as ledger:
        emit(ledger.open_turn(cid_of(ledger, campaign), actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@turn_app.command("close")
def turn_close(campaign: str, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    with ledger_app() as ledger:
        emit(ledger.close_turn(cid_of(ledger, campaign), actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@app.command()
def roll(
    campaign: str,
    purpose: Annotated[str, typer.Option()],
    sides: Annotated[int, typer.Option()] = 10,
    count: Annotated[int, typer.Option()] = 1,
    manual: Annotated[Optional[str], typer.Option(help="Physical dice, comma-separated, e.g. 3,5")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Roll server dice (or record physical ones with --manual)."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        if manual:
            values = [int(v) for v in manual.split(",")]
            r = ledger.record_manual_roll(cid, purpose=purpose, sides=sides, values=values,
                                          actor=Actor(actor, "gm"), idempotency_key=key)
        else:
            r = ledger.roll(cid, purpose=purpose, sides=sides, count=count, actor=Actor(actor, "gm"),
                            idempotency_key=key)
        emit(r.to_json())


@dice_app.command("verify")
def dice_verify(campaign: str, turn: int) -> None:
    """Recompute every server roll of a closed turn from its revealed seed."""
    with ledger_app() as ledger:
        report = ledger.verify_dice(cid_of(ledger, campaign), turn)
    for problem in report.mismatches:
        out.print(f"[red]MISMATCH[/red] {problem}")
    if not report.ok:
        raise typer.Exit(1)
    out.print(f"turn {turn}: {report.checked} server rolls verified, {report.manual} physical rolls (not derivable)")


# ---------------------------------------------------------------- records


@ruling_app.command("record")
def ruling_record(
    campaign: str,
    procedure: str,
    inputs: Annotated[str, typer.Option(help="JSON object of the procedure's inputs")] = "{}",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Resolve a procedure with server dice and record the ruling."""
    data = parse_json(inputs, "inputs")
    with ledger_app() as ledger:
        r = ledger.record_ruling(cid_of(ledger, campaign), procedure=procedure, inputs=data,
                                 actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


@app.command()
def treasury(
    campaign: str,
    country: str,
    line: str,
    amount: int,
    reason: Annotated[str, typer.Option()],
    turn: Annotated[Optional[int], typer.Option()] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a treasury entry on an ERS line (e.g. A9 35 --reason 'looting')."""
    with ledger_app() as ledger:
        r = ledger.record_treasury_entry(cid_of(ledger, campaign), country=country, line=line, amount=amount,
                                         reason=reason, turn=turn, actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


@app.command()
def correct(
    campaign: str,
    position: int,
    reason: Annotated[str, typer.Option()],
    replacement: Annotated[Optional[str], typer.Option(help="JSON of the corrected content")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a correction of the event at POSITION (the original stays)."""
    repl = parse_json(replacement, "replacement") if replacement else None
    with ledger_app() as ledger:
        r = ledger.record_correction(cid_of(ledger, campaign), corrects=position, reason=reason,
                                     replacement=repl, actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


# ---------------------------------------------------------------- audit


@app.command()
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
    table = Table("pos", "type", "turn", "actor", "hash")
    for e in history:
        table.add_row(str(e.position), e.type, str(e.context.get("turn") or "-"), e.actor.get("id", ""),
                      e.hash[:16])
    out.print(table)


@app.command()
def verify(campaign: str) -> None:
    """Walk the hash chain; exit 1 naming the first broken position."""
    with ledger_app() as ledger:
        report = ledger.verify(cid_of(ledger, campaign))
    if not report.intact:
        out.print(f"[red]BROKEN[/red] at position {report.broken_at}: {report.reason}")
        raise typer.Exit(1)
    out.print(f"intact: {report.count} events, head {report.head_hash}")


@app.command()
def recompute(campaign: str) -> None:
    """Recompute every recorded ruling from its inputs and dice; list those that differ."""
    with ledger_app() as ledger:
        diffs = ledger.recompute(cid_of(ledger, campaign))
    for d in diffs:
        out.print(f"position {d['position']} {d['procedure']}: {d['status']} ({d['reason']})")
    if any(d["status"] != "skipped" for d in diffs):
        raise typer.Exit(1)
    out.print("every ruling recomputes to what was recorded" if not diffs else "no ruling differs")


@app.command()
def procedures(ruleset: str, schemas: Annotated[bool, typer.Option("--schemas/--no-schemas")] = True) -> None:
    """Every procedure of a ruleset with its title, seed reference and input JSON Schema."""
    try:
        rs = get_ruleset(ruleset)
    except RulesError as e:
        err.print(f"[red]error:[/red] {e}")
        raise typer.Exit(2) from None
    listing = [
        {"code": p.code, "title": p.title, "seed": p.seed, **({"inputs": p.input_schema()} if schemas else {})}
        for p in sorted(rs.procedures.values(), key=lambda p: (p.code[0], int("0" + "".join(filter(str.isdigit, p.code)))))
    ]
    emit({"ruleset": rs.id, "version": rs.version, "procedures": listing})


@app.command()
def resolve(
    ruleset: str,
    procedure: str,
    inputs: Annotated[str, typer.Option(help="JSON object of the inputs")] = "{}",
    dice: Annotated[Optional[list[str]], typer.Option("--dice", help="A die (repeat in draw order); 3,4 for a group")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Readable text instead of JSON")] = False,
) -> None:
    """Resolve a procedure with given dice and print the ruling; records nothing."""
    data = parse_json(inputs, "inputs")
    given: list[Any] = [[int(v) for v in d.split(",")] if "," in d else int(d) for d in dice or []]
    try:
        proc = get_ruleset(ruleset).get(procedure)
        source = FixedDice(given)
        ruling = proc.resolve(data, source)
    except RulesError as e:
        where = escape(f"[{e.field or 'inputs'}]")
        err.print(f"[red]error {where}:[/red] {escape(str(e))}")
        raise typer.Exit(2) from None
    except ValueError as e:
        err.print(f"[red]error {escape('[inputs]')}:[/red] {escape(str(e))}")
        raise typer.Exit(2) from None
    if source.unused:
        err.print(f"[yellow]warning:[/yellow] {source.unused} dice were not used")
    if explain:
        from ledger.rules.explain import explain as explain_ruling

        print(explain_ruling(ruling))
    else:
        emit(ruling.model_dump(mode="json"))


# ---------------------------------------------------------------- access (tokens) and the OpenAPI schema

token_app = typer.Typer(help="Issue, list and revoke a campaign's access tokens (as the operator).",
                        no_args_is_help=True)
app.add_typer(token_app, name="token")


@token_app.command("issue")
def token_issue(
    campaign: str,
    role: Annotated[str, typer.Option(help="gm, player or observer")],
    country: Annotated[Optional[str], typer.Option(help="The player's country")] = None,
    holder: Annotated[Optional[str], typer.Option(help="Who holds it")] = None,
    actor: ActorOpt = "admin",
    key: KeyOpt = None,
) -> None:
    """Issue a token and print it once (only its sha256 is stored)."""
    from ledger import tokens

    with ledger_app() as ledger:
        result, raw = tokens.issue_token(ledger, cid_of(ledger, campaign), role=role, country=country,
                                         holder=holder, actor=Actor(actor, "admin"), idempotency_key=key)
        emit({**result.to_json(), "token": raw})


@token_app.command("list")
def token_list(campaign: str) -> None:
    """The live tokens: ids, roles, countries, holders (never the secrets)."""
    from ledger import tokens

    with ledger_app() as ledger:
        emit(tokens.live_tokens(ledger, cid_of(ledger, campaign)))


@token_app.command("revoke")
def token_revoke(campaign: str, token_id: str, reason: Annotated[str, typer.Option()],
                 actor: ActorOpt = "admin", key: KeyOpt = None) -> None:
    """Revoke a token at once (by its id, from `ledger token list`)."""
    from ledger import tokens

    with ledger_app() as ledger:
        emit(tokens.revoke_token(ledger, cid_of(ledger, campaign), token_id, reason=reason,
                                 actor=Actor(actor, "admin"), idempotency_key=key).to_json())


@app.command()
def openapi(out: Annotated[Optional[str], typer.Option("--out", help="File to write (default: stdout)")] = None
            ) -> None:
    """Export the HTTP API's OpenAPI schema (e.g. --out api/openapi.json)."""
    from api.main import create_app

    schema = create_app(Settings(env="test", admin_token="unused")).openapi()
    text = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
        out_console = Console(stderr=True)
        out_console.print(f"wrote {out} ({len(schema['paths'])} paths)")
    else:
        sys.stdout.write(text)


def main() -> None:  # pragma: no cover
    sys.exit(app())
