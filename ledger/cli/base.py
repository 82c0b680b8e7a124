"""What every topic module of the command line shares: the consoles, the options, the error handling.

Topic modules (``ledger/cli/<topic>.py``) import this module only, never each
other nor the app (``ledger/cli/root.py``), so there is no import circle.

Exit codes: 0 success; 1 a verification found a problem; 2 bad input or state.

Nothing a user typed and no error text is ever read as Rich markup: errors are
printed as plain ``Text`` (``fail``), and every other interpolation goes through
``escape`` (``ledger/cli/*`` prints with markup only its own tags). Neither sends
the terminal a control character or an escape sequence that an event holds (a
roll's purpose that would clear the screen or set its title): each is shown as
``\x1b`` (ledger/text.py ``for_terminal``). JSON output escapes them itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, NoReturn, Optional
from uuid import UUID

import orjson
import typer
from rich.console import Console
from rich.markup import escape as markup_escape
from rich.text import Text

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain.actors import Actor
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import Command, build
from ledger.domain.errors import CampaignNotFound, ContradictsBoard, LedgerError, OutOfSequence
from ledger.i18n import gettext
from ledger.rules.core import RulesError
from ledger.text import for_terminal, typed

__all__ = ["Actor", "ActorOpt", "KeyOpt", "cid_of", "dotted", "emit", "err", "error_text", "escape", "fail", "in_words",
           "ledger_app", "out", "pair_of", "parse_ints", "parse_json", "record", "scalar"]

out = Console()
#: Errors and notes on stderr, never wrapped (an error line stays one line, whatever the terminal's width).
err = Console(stderr=True, soft_wrap=True)

KeyOpt = Annotated[Optional[str], typer.Option("--idempotency-key", help="Retry-safe key: a repeat appends nothing")]


def _actor_name(value: str) -> str:
    """The name ``--actor`` (``LEDGER_ACTOR``) gives, recorded in every event: typed text of one line."""
    try:
        return typed(value)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


#: Who records: ``--actor``, else ``LEDGER_ACTOR`` (set it once per shell), else "gm".
ActorOpt = Annotated[str, typer.Option("--actor", envvar="LEDGER_ACTOR", callback=_actor_name,
                                       help="Who records (your name as game master; default $LEDGER_ACTOR)")]


def escape(text: str) -> str:
    """``text`` to print as it is: no Rich markup read in it, and no control character or escape sequence sent
    to the terminal (shown as ``\\x1b``)."""
    return markup_escape(for_terminal(text))


def error_text(message: str, field: str | None = None) -> Text:
    """``error [field]: message`` as plain text: neither the field nor the message is read as markup, nor sends
    the terminal a control character."""
    head = gettext("error [{field}]:").format(field=for_terminal(field)) if field else gettext("error:")
    return Text.assemble((head, "red"), " ", for_terminal(str(message)))


def fail(field: str | None, message: str, code: int = 2) -> NoReturn:
    """Print ``error [field]: message`` on stderr and exit (2: bad input or state)."""
    err.print(error_text(message, field))
    raise typer.Exit(code)


def store_name(settings: Settings) -> str:
    """Where the events are, in words: the SQLite file (absolute), the PostgreSQL database, or the service."""
    if getattr(settings, "server", None):
        return f"the service {settings.server}"  # type: ignore[attr-defined]
    if settings.backend == "sqlite":
        return f"the store {settings.sqlite_path.resolve()} (LEDGER_DATA_DIR={settings.data_dir})"
    return f"the PostgreSQL store (schema {settings.postgres_schema or 'public'}, LEDGER_POSTGRES_DSN)"


#: The served ledger of this invocation (``--server``, ledger/cli/root.py): the context that yields it
#: (ledger/cli/remote.py ``connected``), else None: the local store.
REMOTE: ContextVar[Callable[[], AbstractContextManager[Any]] | None] = ContextVar("ledger_cli_remote", default=None)


@contextmanager
def ledger_app() -> Iterator[Ledger]:
    """The ledger on the configured store, or the service ``--server`` names; a ledger or rules error exits 2
    naming its field."""
    connect = REMOTE.get()
    if connect is not None:
        with connect() as remote:
            yield remote
        return
    settings = Settings()
    fresh = settings.backend == "sqlite" and not settings.sqlite_path.exists()
    ledger = Ledger(settings)
    if fresh:  # say so: a command run from another directory would otherwise read an empty store silently
        err.print(escape(gettext("note: no store was found, so a new empty one was created: {store}").format(
            store=store_name(settings))))
    running = _running.set(ledger)
    try:
        yield ledger
    except (LedgerError, RulesError) as e:
        hint = ""
        if isinstance(e, ContradictsBoard) and (e.keep or (e.field and "inputs." in e.field)):
            hint = f'; here: --override {e.keep or e.field.split("inputs.", 1)[1]}="why you keep it"'
        elif isinstance(e, OutOfSequence) and "may keep it" in e.message:
            hint = '; here: --out-of-sequence "why you keep it"'
        err.print(error_text(f"{e}{hint}", getattr(e, "field", None)))
        raise typer.Exit(2) from None
    finally:
        _running.reset(running)
        ledger.close()


def cid_of(ledger: Ledger, campaign: str) -> UUID:
    """The id of CAMPAIGN (a slug or an id), checking that it exists; the error names what was typed."""
    try:
        cid = UUID(campaign)
    except ValueError:
        cid = campaign_id(campaign)
    try:
        ledger.campaign(cid)
    except CampaignNotFound as e:
        # Name what was typed and where it was looked for: the usual cause is another data directory.
        hint = "; set LEDGER_DATA_DIR to the directory that holds it" if ledger.settings.backend == "sqlite" else ""
        raise CampaignNotFound(f"no campaign {campaign!r} in {store_name(ledger.settings)}{hint}",
                               field=e.field or "campaign") from None
    return cid


#: The ledger of the command running (``ledger_app``), so that ``emit`` can say a write in words.
_running: ContextVar[Ledger | None] = ContextVar("ledger_cli_running", default=None)
#: A write's answer (``Appended.to_json``): what it recorded and the checkpoint that seals it.
_WRITE_KEYS = {"campaign", "events", "data", "checkpoint"}


def in_words() -> bool:
    """Words for a person at a terminal; JSON for a script (stdout piped) or with ``LEDGER_OUTPUT=json``."""
    forced = os.environ.get("LEDGER_OUTPUT", "").lower()
    return forced == "words" or (forced != "json" and out.is_terminal)


def emit(data: Any) -> None:
    """A command's answer: a write said in words at a terminal (one line per event recorded, as ``ledger
    events`` says it), everything else, and everything piped, as JSON."""
    ledger = _running.get()
    if ledger is not None and isinstance(data, dict) and _WRITE_KEYS <= set(data) and in_words():
        say_written(ledger, data)
        return
    out.print_json(orjson.dumps(data, default=str).decode())


def record(campaign: str, command: type[Command], actor: Actor, key: str | None, **fields: Any) -> None:
    """Build ``command`` from ``fields`` and record it in CAMPAIGN as ``actor`` (a bad field exits 2 naming it),
    then say what was recorded: what a write of the command line does."""
    with ledger_app() as ledger:
        built = build(command, **fields)
        emit(ledger.handle(cid_of(ledger, campaign), built, actor=actor, idempotency_key=key).to_json())


def say_written(ledger: Ledger, data: dict[str, Any]) -> None:
    from projections.records import Record
    from projections.timeline import empty, row
    from projections.words import label, plain

    positions = [e["position"] for e in data["events"]]
    if not positions:
        out.print("Nothing recorded.")
    else:
        cid = UUID(data["campaign"])
        doc = empty()  # the timeline's summaries name stacks by their country when the scenario is known
        for e in ledger.history(cid, after=min(positions) - 1, limit=max(positions) - min(positions) + 1):
            r = Record("", e.position, e.type, {**e.payload(), "context": e.context})
            line = row(doc, r)["summary"] or e.type
            out.print(escape(f"Recorded at position {e.position}: {line}"), soft_wrap=True)
    extra = {k: v for k, v in data.items() if k not in _WRITE_KEYS}
    for key, value in {**(data.get("data") or {}), **extra}.items():
        if value is not None and value != [] and value != {}:
            out.print(escape(f"  {label(key)}: {plain(value)}"), soft_wrap=True)
    if data.get("checkpoint"):
        size = data["checkpoint"].split("\n")[1]
        out.print(escape(f"  Signed checkpoint at {size} events (LEDGER_OUTPUT=json prints it, to keep as a "
                         "receipt for `ledger audit --receipts`)"), soft_wrap=True)


def parse_json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(name, f"not valid JSON: {e}")


def parse_ints(text: str, name: str) -> list[int]:
    """``3,5`` → [3, 5]; anything else exits 2 naming the option."""
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        fail(name, f"{text!r}: whole numbers, comma-separated (e.g. 3,5)")


def given(**fields: object) -> dict[str, object]:
    """The options given (an option left out keeps the command's default)."""
    return {k: v for k, v in fields.items() if v is not None}


def pair_of(text: str, option: str) -> tuple[str, str]:
    """``NAME=VALUE`` → (name, value); anything else exits 2 naming the option."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        fail(option, f"{text!r}: NAME=VALUE (e.g. attacker.ld=6)")
    return name.strip(), value.strip()


def dotted(pairs: list[str] | None, option: str, into: dict[str, Any] | None = None) -> dict[str, Any]:
    """``attacker.ld=6`` (repeatable) → {"attacker": {"ld": 6}}, over ``into``: fields typed one at a
    time instead of a JSON document; each value read by ``scalar``."""
    data = dict(into or {})
    for pair in pairs or ():
        name, value = pair_of(pair, option)
        *parents, leaf = name.split(".")
        node = data
        for parent in parents:
            node = node.setdefault(parent, {})
            if not isinstance(node, dict):
                fail(option, f"{name!r}: {parent} is a value, not a group of fields")
        node[leaf] = scalar(value)
    return data


def scalar(text: str) -> Any:
    """A typed input as a person types it: 6 → 6, yes/no → true/false, anything else is text."""
    if text.lower() in ("yes", "true", "no", "false"):
        return text.lower() in ("yes", "true")
    try:
        return int(text)
    except ValueError:
        return text
