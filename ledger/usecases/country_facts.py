"""The game master sets a country's economic facts (``SetCountryFacts``): its land and naval technology, its
domestic trade index, its vassals, manufactures and mines. The income lines read them from the write-side
state (ledger/domain/forces.py part "countries", ledger/economy/board_income.py).

Every name is checked before anything is appended (a 422 naming the field, with a did-you-mean): the country
among the campaign's, a vassal among the scenario's countries, a technology in the ruleset's vocabulary
(recorded as its code: "Medieval" is recorded "MED"), a manufacture's province among the scenario's, a mine
among the board's places, a depleted mine among the board's gold provinces. A correction restating the facts
is checked the same way (ledger/usecases/records.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.board import did_you_mean, load_board
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput
from ledger.rules.core import load_table
from ledger.usecases.map import scenario
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft


def _require(value: str, known: set[str] | dict[str, str], what: str, field: str) -> None:
    if value not in known:
        raise InvalidInput(f"unknown {what} {value!r}{did_you_mean(value, known)}", field=field)


def _technology(ruleset: str, kind: str, raw: str, field: str) -> str:
    """A technology as its code (TABLES.md), from its code or full name, case ignored."""
    try:
        table = load_table(f"ledger.rules.{ruleset}", "technologies.toml")[kind]
    except (ModuleNotFoundError, FileNotFoundError, KeyError):
        return raw  # a ruleset without a vocabulary of technologies: recorded as typed
    names = {code.casefold(): code for code in table} | {a.casefold(): code for code, aa in table.items() for a in aa}
    code = names.get(raw.casefold())
    if code is None:
        known = [*table, *(a for aa in table.values() for a in aa)]
        raise InvalidInput(f"unknown {kind} technology {raw!r}{did_you_mean(raw, known)}", field=field)
    return code


def checked(d: Draft, country: str | None, facts: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``facts`` (a ``CountryFacts`` as JSON) with every name checked and technologies recorded as codes."""
    s = scenario(d)
    out = dict(facts)
    for kind in ("land", "naval"):
        key = f"{kind}_technology"
        if key in out:
            out[key] = _technology(d.state.ruleset or "eu", kind, out[key], prefix + key)
    countries = {c["code"] for c in s["countries"]}
    for i, vassal in enumerate(out.get("vassals") or ()):
        _require(vassal, countries, "country", f"{prefix}vassals[{i}]")
        if vassal == country:
            raise InvalidInput(f"{country} cannot be its own vassal", field=f"{prefix}vassals[{i}]")
    provinces = {p["name"] for p in s["provinces"]}
    for i, m in enumerate(out.get("manufactures") or ()):
        _require(m["province"], provinces, "province", f"{prefix}manufactures[{i}].province")
    board = load_board(s.get("board") or d.state.ruleset or "eu") if "mines" in out or "depleted_mines" in out else None
    if board is not None:
        places = {*board.provinces, *board.rotw, *board.regions}
        for place in out.get("mines") or {}:
            _require(place, places, "place", f"{prefix}mines.{place}")
        gold = {n for n, p in board.provinces.items() if p.gold}
        for i, place in enumerate(out.get("depleted_mines") or ()):
            _require(place, gold, "gold province", f"{prefix}depleted_mines[{i}]")
    return out


@handles(cmd.SetCountryFacts)
def set_country_facts(d: Draft, c: cmd.SetCountryFacts) -> dict[str, Any]:
    if c.country not in d.state.countries:
        raise InvalidInput(f"unknown country {c.country!r} of this campaign"
                           f"{did_you_mean(c.country, d.state.countries)}", field="country")
    facts = checked(d, c.country, c.facts())
    known = (d.state.military or {}).get("countries", {}).get(c.country) or {}
    d.add(ev.CountryFactsSet, c.visibility.as_dict(), country=c.country, facts=facts,
          previous={k: known.get(k) for k in facts}, reason=c.reason)
    return {"facts": facts}
