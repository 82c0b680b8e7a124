"""Which use case handles which command: filled by the topic modules as they are imported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledger.domain.commands import Command

Handler = Callable[..., "dict[str, Any] | None"]


@dataclass(frozen=True)
class UseCase:
    run: Handler  # run(draft, command, **extra) -> the response data
    creating: bool = False  # runs on a campaign that may not exist yet


HANDLERS: dict[type[Command], UseCase] = {}


def handles(cls: type[Command], *, creating: bool = False) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        if cls in HANDLERS:
            raise RuntimeError(f"{cls.__name__} already has a use case")
        HANDLERS[cls] = UseCase(fn, creating)
        return fn

    return register
