"""Domain errors: each names the field at fault and, for rules, the rule code."""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """Base of every error the ledger reports to a user."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.rule = rule


class InvalidInput(LedgerError):
    status = 422


class ContradictsBoard(InvalidInput):
    """A typed input the board or the map contradicts: a game master may keep it with a reason (``overrides``),
    which no wrong type or missing value allows. ``keep``: the key of ``overrides`` that keeps it (the input,
    or ``war`` for sides not at war)."""

    def __init__(self, message: str, *, field: str | None = None, rule: str | None = None, keep: str | None = None):
        super().__init__(message, field=field, rule=rule)
        self.keep = keep


class CampaignNotFound(LedgerError):
    status = 404


class EventNotFound(LedgerError):
    status = 404


class PlaceNotFound(LedgerError):
    """A place neither the campaign nor its board has (the message names the closest ones)."""

    status = 404


class StateConflict(LedgerError):
    """The command does not fit the campaign's current state (turn closed, ...)."""

    status = 409


class OutOfSequence(StateConflict):
    """A command the sequence of play refuses (ledger/sequence.py): out of its phases, in a closed phase, a turn
    closed with phases open. A game master may keep it with a reason (``context.out_of_sequence``)."""


class IdempotencyConflict(LedgerError):
    """An idempotency key was reused with a different request."""

    status = 409


class ConcurrencyExhausted(LedgerError):
    status = 409


class Forbidden(LedgerError):
    status = 403


class Unauthorized(LedgerError):
    status = 401


class TokenNotFound(LedgerError):
    status = 404


class ChainBroken(LedgerError):
    """The stored history does not verify (edited outside the ledger): nothing is built on it."""

    status = 409


#: pydantic's own words before a validator's message ("Value error, unknown minor ..."): not the page's.
_PYDANTIC_HEADS = ("Value error, ", "Assertion failed, ")


def plain(message: str) -> str:
    """A validation message in the page's words: a validator's own message without pydantic's heading."""
    for head in _PYDANTIC_HEADS:
        if message.startswith(head):
            return message[len(head):]
    return message


def first_error(e: Exception) -> tuple[str | None, str]:
    """(the field, dotted, and the reason in plain words) of a pydantic validation error's first error; any
    other error is its text. Never pydantic's "1 validation error for MinorPeaceInputs ... [type=value_error]":
    the CLI, the API and the web forms all say what this says."""
    errors: Any = getattr(e, "errors", None)
    if callable(errors):
        found = errors()
        if found:
            loc = ".".join(str(p) for p in found[0].get("loc", ()))
            return loc or None, plain(str(found[0].get("msg", "invalid")))
    return None, plain(str(e))


class EndpointNotFound(LedgerError):
    """No such endpoint of the caller's: a player is told the same whether it is a rival's or none at all."""

    status = 404
