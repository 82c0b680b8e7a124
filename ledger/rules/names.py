"""Closed vocabularies for procedure inputs: countries, minors, zones, technologies.

A name a procedure looks something up by (a modifier, a centre, a column) is
never a free string: an unknown name would read as "no modifier" and change
the outcome silently. ``vocabulary`` builds a pydantic type whose values are
the canonical names and which also accepts listed aliases (the board's code,
the English name...), exactly, ignoring case. The input is validated to its
canonical value, so the ruling's recorded inputs name what the alias resolved
to; anything else is a validation error naming the field, in plain words: the
closest names first ("unknown minor 'Venisse': did you mean venise?", the
project's one did-you-mean, ``ledger.board.did_you_mean``), or why a name the
board has is not one of this input's ("France (FRA) is a major power on the
board, not a minor"). The aliases are listed in the JSON Schema (``x-aliases``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


#: Up to this many names, an unknown one is answered with all of them when none is close.
LISTED = 12


def vocabulary(what: str, names: Mapping[str, Iterable[str]], description: str = "", *,
               refused: Mapping[str, str] | None = None) -> Any:
    """An input type: one of ``names`` (canonical value → its aliases), resolved to the canonical value.
    ``refused``: spellings of names that are known but not this input's (a major where a minor is asked), each
    with the reason said instead of "unknown"."""
    canonical = list(names)
    why_not = {_key(k): v for k, v in (refused or {}).items()}
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
            raise ValueError(why_not.get(_key(raw)) or unknown(what, raw, names))
        return found

    schema: dict[str, Any] = {"type": "string", "enum": canonical, "x-aliases": listed}
    if description:
        schema["description"] = description
    return Annotated[str, BeforeValidator(resolve), WithJsonSchema(schema)]


def unknown(what: str, raw: str, names: Mapping[str, Iterable[str]]) -> str:
    """Why ``raw`` is not one of ``names``, in plain words: the closest names first, else every name of a short
    list, else how many there are and where they are listed."""
    from ledger.board import did_you_mean

    close = did_you_mean(raw, names, aliases=names, quote=False, lead=": ")
    if close:
        return f"unknown {what} {raw!r}{close}"
    if len(names) <= LISTED:
        return f"unknown {what} {raw!r}: one of {', '.join(names)}"
    return f"unknown {what} {raw!r}: not one of the {len(names)} this input knows (its schema lists them)"


@cache
def board_countries(ruleset: str = "eu", types: tuple[str, ...] | None = None) -> dict[str, tuple[str, ...]]:
    """The board's country codes, each with its aliases: the tables' French name and the English label;
    with ``types``, only countries of those types (the board's R_COUNTRY TYPE: major, minormajor, minor...)."""
    from ledger.board import load_board

    return {c.code: (c.name, c.label) for c in load_board(ruleset).countries.values()
            if types is None or c.type in types}


def not_among(ruleset: str, types: tuple[str, ...], what: str, *, extra: Mapping[str, Iterable[str]] | None = None
              ) -> dict[str, str]:
    """Every spelling of a board country outside ``types``, with why it is refused where a ``what`` is asked:
    "France (FRA) is a major power on the board, not a minor"."""
    from ledger.board import load_board

    extra = extra or {}
    out: dict[str, str] = {}
    for c in load_board(ruleset).countries.values():
        if c.type in types:
            continue
        why = f"{c.label} ({c.code}) is {TYPE_WORDS.get(c.type, c.type)} on the board, not {what}"
        for spelling in (c.code, c.name, c.label, *extra.get(c.code, ())):
            out[spelling] = why
    return out


#: The board's country types (R_COUNTRY TYPE) in words.
TYPE_WORDS = {"major": "a major power", "minormajor": "a power played as a major or a minor",
              "minor": "a minor", "rotw": "a minor of the rest of the world", "revolt": "a country born of a revolt",
              "hab": "a Habsburg holding", "virtual": "a virtual country (rebels, pirates, natives, the Empire...)"}


def country_code(
    description: str = "Board country code; its French or English name is accepted and recorded as the code",
    *, extra: Mapping[str, Iterable[str]] | None = None, ruleset: str = "eu", types: tuple[str, ...] | None = None,
    what: str = "country",
) -> Any:
    """An input type for a country: the board's code, with ``extra`` aliases (a seed's own abbreviation); with
    ``types``, only the board's countries of those types, the others refused saying what they are."""
    extra = extra or {}
    names = {code: (*aliases, *extra.get(code, ())) for code, aliases in board_countries(ruleset, types).items()}
    refused = not_among(ruleset, types, f"a {what}" if not what.startswith(("a ", "an ")) else what, extra=extra) \
        if types is not None else None
    return vocabulary(what, names, description, refused=refused)
