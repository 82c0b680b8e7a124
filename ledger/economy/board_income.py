"""The lines of the Economic Record Sheet the board determines, worked out from the write-side state (issue 36).

``work_out(state, country)`` proposes, for one country, every line a worker of ``WORKERS`` can work out
from the map as the write side knows it (``CampaignState.military``, ledger/domain/forces.py: the provinces'
owners, controllers and markers, the stacks, the fortress levels, each country's economic facts) and the
board and ruleset files. It reads no history: working out every major at the head costs a few milliseconds
(ops/bench_income.py).

Each proposed line keeps its lineage: the provinces, stacks, facts and tables it reads, each with what it
adds to the line and the position of the event that last set the fact read (None: the scenario or the board
as printed), so a player can check "B1 29: Tras-os-Montes 5, Beira 3, ..." on the map. A line's amount is
the sum of its lineage, except a line read on a table (B9), whose lineage ends with the table's result.

A line the state cannot determine (a country's technology never set, a cost table the seed does not print)
is not proposed: ``Proposal.unresolved`` says, in words, why it stays entered by hand.

The readings the rules leave open are ruleset data (``tables/board_income.toml``) with a DECISIONS.md
heading each; ``options`` (a campaign's choice) overrides them by key ("B3.besieged": false).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ledger.board import Board, load_board
from ledger.domain.forces import unit_count
from ledger.rules.core import load_table

if TYPE_CHECKING:
    from ledger.domain.campaign import CampaignState

__all__ = ["COMPUTED", "WORKERS", "EconomyFacts", "Proposal", "ProposedLine", "Source", "Undetermined",
           "work_out", "work_out_all"]


@dataclass(frozen=True)
class Source:
    """One thing a computed line reads, as a person would check it on the map."""

    kind: str  # "province" | "stack" | "fortress" | "marker" | "trade_zone" | ... | "table" | "fact"
    name: str  # the province, stack, zone, table... as people read it ("Beira", "POR-1")
    amount: int  # what it adds to the line, in the line's unit (signed as it adds)
    position: int | None  # the event that last set the fact read (None: the scenario / board as printed)
    note: str = ""  # plain words: "Revolt: its income is lost"


@dataclass(frozen=True)
class ProposedLine:
    code: str  # ERS line code: "B1"
    amount: int
    lineage: tuple[Source, ...]
    rule: str  # the rule it follows, in words with its reference


@dataclass(frozen=True)
class Proposal:
    country: str
    position: int  # the write-side state's version it was worked out at
    lines: tuple[ProposedLine, ...]
    #: (line code, why it is not proposed), in words: those lines stay entered by hand.
    unresolved: tuple[tuple[str, str], ...] = ()


class Undetermined(Exception):
    """A worker cannot work its line out from the state: the reason, in words, for the people who read it."""


# ----------------------------------------------------------------------------------------------- facts


@cache
def rules_data(ruleset: str = "eu") -> Mapping[str, Any]:
    """The readings of the income lines (tables/board_income.toml), read once per process."""
    return MappingProxyType(load_table(f"ledger.rules.{ruleset}", "board_income.toml"))


@dataclass(frozen=True)
class EconomyFacts:
    """A read-only view of what the income lines read: the write-side state's provinces, stacks, fortress
    levels and countries (``CampaignState.military``), the board, and the readings chosen (``option``).
    Built once per state; a worker reads only this."""

    position: int
    provinces: Mapping[str, Any]  # place -> {"owner", "controller", "markers", "income", "fortress", "at"}
    forces: Mapping[str, Any]  # stack -> {"country", "units", "leaders"}
    fortresses: Mapping[str, int]  # place -> level changed since the scenario
    sieges: Mapping[str, Any]  # place -> besieging stacks
    countries: Mapping[str, Any]  # country -> {fact: value, "at": {fact: position}}
    touched: Mapping[str, int]  # "part:name" -> the position that last changed it (forces.py)
    board: Board | None
    ruleset: str
    options: Mapping[str, Any]
    owned: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # owner -> its provinces, sorted

    @classmethod
    def of(cls, state: CampaignState, options: Mapping[str, Any] | None = None) -> EconomyFacts:
        m = state.military or {}
        provinces = m.get("provinces") or {}
        owned: dict[str, list[str]] = {}
        for name in sorted(provinces):
            p = provinces[name]
            if p.get("owner") and "income" in p:
                owned.setdefault(p["owner"], []).append(name)
        ruleset = state.ruleset or "eu"
        name = m.get("board") or state.settings.get("board") or ruleset
        try:
            board: Board | None = load_board(name)
        except Exception:  # a ruleset that ships no board: the lines that need one are unresolved
            board = None
        data = rules_data(ruleset)
        chosen = {**data.get("defaults", {}), **dict(options or {})}
        return cls(position=state.version, provinces=provinces, forces=m.get("forces") or {},
                   fortresses=m.get("fortresses") or {}, sieges=m.get("sieges") or {},
                   countries=m.get("countries") or {}, touched=m.get("touched") or {}, board=board,
                   ruleset=ruleset, options=chosen, owned={k: tuple(v) for k, v in owned.items()})

    def option(self, key: str) -> Any:
        return self.options[key]

    def country(self, code: str) -> Mapping[str, Any]:
        return self.countries.get(code) or {"at": {}}

    def fact(self, code: str, name: str) -> tuple[Any, int | None]:
        """A country's fact and the position that set it (None, None: never set)."""
        c = self.country(code)
        return c.get(name), (c.get("at") or {}).get(name)

    def set_at(self, place: str, fact: str) -> int | None:
        return (self.provinces[place].get("at") or {}).get(fact)

    def vassals(self, code: str) -> list[str]:
        return list(self.fact(code, "vassals")[0] or ())

    def lost(self, place: str) -> tuple[str, int | None] | None:
        """Why a province brings no income this turn (revolt, pillage, enemy control, military occupation) and
        the position that made it so; None when it yields its income. The rules' list: Incomes, land income
        (DECISIONS.md "B3")."""
        p = self.provinces[place]
        for marker in p.get("markers") or ():
            if marker in self.option("B3.markers"):
                return f"{marker} marker: its income is lost", self.set_at(place, "markers")
        owner, controller = p.get("owner"), p.get("controller")
        if self.option("B3.enemy_control") and controller and owner and controller != owner:
            return f"controlled by {controller}: its income is lost", self.set_at(place, "controller")
        if self.option("B3.besieged") and place in self.sieges:
            return (f"besieged by {', '.join(self.sieges[place])}: occupied, its income is lost",
                    self.touched.get(f"sieges:{place}"))
        return None


# --------------------------------------------------------------------------------------------- workers

Worker = Callable[[EconomyFacts, str], ProposedLine]


def _order(code: str) -> tuple[str, int]:
    return code[0], int(code[1:])


#: The codes worked out, ordered as on the sheet (every registered worker's, econ-trade's included).
COMPUTED: tuple[str, ...] = ()
#: line code -> worker(facts, country) -> ProposedLine (raises ``Undetermined``); econ-trade adds its own.
WORKERS: dict[str, Worker] = {}


def worker(code: str) -> Callable[[Worker], Worker]:
    """Register ``fn`` as the worker of line ``code`` (``COMPUTED`` follows)."""
    def register(fn: Worker) -> Worker:
        global COMPUTED
        WORKERS[code] = fn
        COMPUTED = tuple(sorted(WORKERS, key=_order))
        return fn
    return register


def _line(code: str, lineage: list[Source], rule: str) -> ProposedLine:
    return ProposedLine(code=code, amount=sum(s.amount for s in lineage), lineage=tuple(lineage), rule=rule)


def _income(facts: EconomyFacts, place: str) -> int:
    return int(facts.provinces[place].get("income") or 0)


@worker("B1")
def provinces_income(facts: EconomyFacts, country: str) -> ProposedLine:
    """Every province the country owns, at its printed income, whoever controls it (what it loses is B3)."""
    return _line("B1", [Source("province", p, _income(facts, p), facts.set_at(p, "owner"), f"owned by {country}")
                        for p in facts.owned.get(country, ())],
                 "Incomes, land income: the income of all the country's provinces (engIncomes.tex)")


def work_out(state: CampaignState, country: str, *, options: Mapping[str, Any] | None = None,
             facts: EconomyFacts | None = None) -> Proposal:
    """The lines the state determines for ``country`` at the state's position (no history read)."""
    facts = facts or EconomyFacts.of(state, options)
    lines, unresolved = [], []
    for code in sorted(WORKERS, key=_order):
        fn = WORKERS[code]
        try:
            lines.append(fn(facts, country))
        except Undetermined as why:
            unresolved.append((code, str(why)))
    return Proposal(country=country, position=state.version, lines=tuple(lines), unresolved=tuple(unresolved))


def work_out_all(state: CampaignState, *, options: Mapping[str, Any] | None = None) -> dict[str, Proposal]:
    """Every campaign country's proposal, from one view of the state."""
    facts = EconomyFacts.of(state, options)
    return {c: work_out(state, c, facts=facts) for c in state.countries}


