"""Closed vocabularies for procedure inputs: countries, minors, zones, technologies.

A name a procedure looks something up by (a modifier, a centre, a column) is
never a free string: an unknown name would read as "no modifier" and change
the outcome silently. ``vocabulary`` builds a pydantic type whose values are
the canonical names and which also accepts listed aliases (the board's code,
the English name...), exactly, ignoring case. The input is validated to its
canonical value, so the ruling's recorded inputs name what the alias resolved
to; anything else is a validation error naming the field and the known names.
The aliases are listed in the JSON Schema (``x-aliases``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def vocabulary(what: str, names: Mapping[str, Iterable[str]], description: str = "") -> Any:
    """An input type: one of ``names`` (canonical value → its aliases), resolved to the canonical value."""
    canonical = list(names)
    index: dict[str, str] = {}
    for value, aliases in names.items():
        for spelling in (value, *aliases):
            previous = index.setdefault(_key(spelling), value)
            if previous != value:  # a vocabulary is data: an ambiguous alias is a bug in it
                raise ValueError(f"{what}: {spelling!r} would name both {previous!r} and {value!r}")
    listed = {v: sorted(set(a)) for v, a in names.items() if a}

    def resolve(raw: Any) -> str:
        if not isinstance(raw, str):
            raise ValueError(f"{what} must be a name, not {type(raw).__name__}")
        found = index.get(_key(raw))
        if found is None:
            shown = ", ".join(canonical[:40]) + (" …" if len(canonical) > 40 else "")
            raise ValueError(f"unknown {what} {raw!r}: one of {shown} (or an alias listed in the schema)")
        return found

    schema: dict[str, Any] = {"type": "string", "enum": canonical, "x-aliases": listed}
    if description:
        schema["description"] = description
    return Annotated[str, BeforeValidator(resolve), WithJsonSchema(schema)]


@cache
def board_countries(ruleset: str = "eu") -> dict[str, tuple[str, ...]]:
    """The board's country codes, each with its aliases: the tables' French name and the English label."""
    from ledger.board import load_board

    return {c.code: (c.name, c.label) for c in load_board(ruleset).countries.values()}


def country_code(
    description: str = "Board country code; its French or English name is accepted and recorded as the code",
    *, extra: Mapping[str, Iterable[str]] | None = None, ruleset: str = "eu",
) -> Any:
    """An input type for a country: the board's code, with ``extra`` aliases (a seed's own abbreviation)."""
    extra = extra or {}
    names = {code: (*aliases, *extra.get(code, ())) for code, aliases in board_countries(ruleset).items()}
    return vocabulary("country", names, description)
