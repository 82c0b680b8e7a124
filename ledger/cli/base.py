"""What every topic module of the command line shares: the consoles, the options, the error handling.

Topic modules (``ledger/cli/<topic>.py``) import this module only, never each
other nor the app (``ledger/cli/root.py``), so there is no import circle.

Exit codes: 0 success; 1 a verification found a problem; 2 bad input or state.

Nothing a user typed and no error text is ever read as Rich markup: errors are
printed as plain ``Text`` (``fail``), and every other interpolation goes through
``escape`` (``ledger/cli/*`` prints with markup only its own tags).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn, Optional
from uuid import UUID

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain.actors import Actor
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import CampaignNotFound, LedgerError
from ledger.rules.core import RulesError

__all__ = ["Actor", "ActorOpt", "KeyOpt", "cid_of", "emit", "err", "error_text", "escape", "fail", "ledger_app", "out",
           "parse_ints", "parse_json"]

out = Console()
#: Errors and notes on stderr, never wrapped (an error line stays one line, whatever the terminal's width).
err = Console(stderr=True, soft_wrap=True)

KeyOpt = Annotated[Optional[str], typer.Option("--idempotency-key", help="Retry-safe key: a repeat appends nothing")]
ActorOpt = Annotated[str, typer.Option("--actor", help="Who records (a game master's name)")]


def error_text(message: str, field: str | None = None) -> Text:
    """``error [field]: message`` as plain text: neither the field nor the message is read as markup."""
    head = f"error [{field}]:" if field else "error:"
    return Text.assemble((head, "red"), " ", str(message))


def fail(field: str | None, message: str, code: int = 2) -> NoReturn:
    """Print ``error [field]: message`` on stderr and exit (2: bad input or state)."""
    err.print(error_text(message, field))
    raise typer.Exit(code)


@contextmanager
def ledger_app() -> Iterator[Ledger]:
    """The ledger on the configured store; a ledger or rules error exits 2 naming its field."""
    ledger = Ledger(Settings())
    try:
        yield ledger
    except (LedgerError, RulesError) as e:
        err.print(error_text(str(e), getattr(e, "field", None)))
        raise typer.Exit(2) from None
    finally:
        ledger.close()


def cid_of(ledger: Ledger, campaign: str) -> UUID:
    """The id of CAMPAIGN (a slug or an id), checking that it exists; the error names what was typed."""
    try:
        cid = UUID(campaign)
    except ValueError:
        cid = campaign_id(campaign)
        typed = True
    else:
        typed = False
    try:
        ledger.campaign(cid)
    except CampaignNotFound as e:
        if not typed:
            raise
        raise CampaignNotFound(f"no campaign {campaign!r} (id {cid})", field=e.field or "campaign") from None
    return cid


def emit(data: Any) -> None:
    out.print_json(orjson.dumps(data, default=str).decode())


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
