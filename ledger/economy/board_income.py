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
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ledger.board import Board, BoardError, load_board
from ledger.domain.forces import unit_count
from ledger.rules.core import RulesError
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
    turn: int = 0  # the campaign's turn (B31: level 4 fortresses pay double before turn 40)
    controlled: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # controller -> its provinces, sorted

    @classmethod
    def of(cls, state: CampaignState, options: Mapping[str, Any] | None = None) -> EconomyFacts:
        m = state.military or {}
        provinces = m.get("provinces") or {}
        owned: dict[str, list[str]] = {}
        controlled: dict[str, list[str]] = {}
        for name in sorted(provinces):
            p = provinces[name]
            if "income" not in p:
                continue
            if p.get("owner"):
                owned.setdefault(p["owner"], []).append(name)
            holder = p.get("controller") or p.get("owner")
            if holder:
                controlled.setdefault(holder, []).append(name)
        ruleset = state.ruleset or "eu"
        name = m.get("board") or state.settings.get("board") or ruleset
        try:
            board: Board | None = load_board(name)
        except BoardError:  # a ruleset that ships no board: the lines that need one are unresolved
            board = None
        data = rules_data(ruleset)
        chosen = {**data.get("defaults", {}), **dict(options or {})}
        return cls(position=state.version, provinces=provinces, forces=m.get("forces") or {},
                   fortresses=m.get("fortresses") or {}, sieges=m.get("sieges") or {},
                   countries=m.get("countries") or {}, touched=m.get("touched") or {}, board=board,
                   ruleset=ruleset, options=chosen, owned={k: tuple(v) for k, v in owned.items()}, turn=state.turn,
                   controlled={k: tuple(v) for k, v in controlled.items()})

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


def _vassal_provinces(facts: EconomyFacts, country: str) -> list[tuple[str, str]]:
    return [(v, p) for v in facts.vassals(country) for p in facts.owned.get(v, ())]


@worker("B2")
def vassal_provinces_income(facts: EconomyFacts, country: str) -> ProposedLine:
    """Every province of the country's vassals, at its printed income."""
    vassals, at = facts.fact(country, "vassals")
    lineage = [Source("fact", f"{country}'s vassals", 0, at, f"vassals: {', '.join(vassals)}")] if vassals else []
    lineage += [Source("province", p, _income(facts, p), facts.set_at(p, "owner"), f"owned by {country}'s vassal {v}")
                for v, p in _vassal_provinces(facts, country)]
    return _line("B2", lineage, "Incomes, land income: the income of the provinces of the country's vassals "
                                "(engIncomes.tex)")


@worker("B3")
def occupation_pillages_revolts(facts: EconomyFacts, country: str) -> ProposedLine:
    """The income of the country's and its vassals' provinces that yield nothing this turn, as a positive
    number (the sheet subtracts it: B5 = B1 + B2 - B3 + B4)."""
    lineage = []
    for p in [*facts.owned.get(country, ()), *(p for _, p in _vassal_provinces(facts, country))]:
        lost = facts.lost(p)
        if lost is not None and _income(facts, p):
            lineage.append(Source("province", p, _income(facts, p), lost[1], lost[0]))
    return _line("B3", lineage, "Incomes, land income: the provinces made inexploitable by revolt, occupation, "
                                "pillage or enemy control, subtracted (engIncomes.tex)")


@worker("B6")
def manufactures(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each manufacture's fixed income, nothing from one whose province yields nothing or is no longer the
    country's (or a vassal's)."""
    found, at = facts.fact(country, "manufactures")
    held = {*facts.owned.get(country, ()), *(p for _, p in _vassal_provinces(facts, country))}
    lineage = []
    for m in found or ():
        place, name = m["province"], f"{m['resource']} manufacture (level {m['level']}) in {m['province']}"
        lost = facts.lost(place) if place in facts.provinces else None
        if place not in held:
            lineage.append(Source("fact", name, 0, at, f"{place} is not {country}'s: no income"))
        elif lost is not None:
            lineage.append(Source("fact", name, 0, lost[1], f"{place}: {lost[0]}"))
        else:
            lineage.append(Source("fact", name, int(m["income"]), at, f"its fixed income, {m['income']} ducats"))
    return _line("B6", lineage, "Incomes, industrial income: the fixed income of the manufactures, none where "
                                "the province brings none (engIncomes.tex)")


@worker("B7")
def european_mines(facts: EconomyFacts, country: str) -> ProposedLine:
    """The board's gold provinces the country owns, at the value printed (none if depleted or if the province
    yields nothing), and the mines it exploits as European ones (Portugal's Elmina), 20 ducats each."""
    if facts.board is None:
        raise Undetermined("the campaign's board is unknown: its gold provinces cannot be read")
    depleted, depleted_at = facts.fact(country, "depleted_mines")
    lineage = []
    for p in facts.owned.get(country, ()):
        printed = getattr(facts.board.provinces.get(p), "gold", None)
        if not printed:
            continue
        lost = facts.lost(p)
        if p in (depleted or ()):
            lineage.append(Source("province", p, 0, depleted_at, "its mine is depleted"))
        elif lost is not None:
            lineage.append(Source("province", p, 0, lost[1], lost[0]))
        else:
            lineage.append(Source("province", p, int(printed), facts.set_at(p, "owner"), f"gold {printed} on the board"))
    mines, at = facts.fact(country, "mines")
    value = int(facts.option("B7.mine_value"))
    for place, n in sorted((mines or {}).items()):
        lineage.append(Source("fact", f"mines of {place}", n * value, at,
                              f"{n} mine{'s' if n != 1 else ''} exploited as European, {value} ducats each"))
    return _line("B7", lineage, "Incomes, industrial income: 20 ducats per European mine not depleted whose "
                                "province brings its income (engIncomes.tex, European gold)")


@worker("B9")
def domestic_trade(facts: EconomyFacts, country: str) -> ProposedLine:
    """Read on the Domestic Trade Income table: the row of B1 + B2 (+ 20 per side of Cereals manufacture),
    the column of the country's DTI. Revolts and occupation do not change it."""
    dti, dti_at = facts.fact(country, "domestic_trade_index")
    if dti is None:
        raise Undetermined(f"{country}'s domestic trade index is not set (ledger map country {country} "
                           "--domestic-trade-index N)")
    table = rules_data(facts.ruleset)["domestic_trade"]
    b1, b2 = provinces_income(facts, country), vassal_provinces_income(facts, country)
    cereals_at = facts.fact(country, "manufactures")[1]
    sides = sum(int(m["level"]) for m in facts.fact(country, "manufactures")[0] or () if m["resource"] == "Cereals")
    total = b1.amount + b2.amount + sides * int(table["cereals_per_side"])
    row = max((r for r in table["rows"] if r[0] <= total), key=lambda r: r[0])
    result = int(row[int(dti)])
    following = [r[0] for r in table["rows"] if r[0] > row[0]]
    band = f"{row[0]}-{min(following) - 1}" if following else f"{row[0]} or more"
    lineage = [Source("fact", "Provinces income (B1)", 0, None, f"{b1.amount} ducats"),
               Source("fact", "Vassal provinces income (B2)", 0, None, f"{b2.amount} ducats")]
    if sides:
        lineage.append(Source("fact", "Cereals manufactures", 0, cereals_at,
                              f"{sides} side{'s' if sides != 1 else ''}: +{sides * table['cereals_per_side']}"))
    lineage += [Source("fact", f"{country}'s domestic trade index", 0, dti_at, f"DTI {dti}"),
                Source("table", "Domestic Trade Income", result, None, f"row {band} ({total}), column DTI {dti}")]
    return ProposedLine(code="B9", amount=result, lineage=tuple(lineage),
                        rule="Incomes, domestic trade: read on the Domestic Trade Income table (engIncomes.tex, "
                             "engGeneralTables.tex)")


def _seed_code(country: str) -> str:
    """The seed's own code of a country in its cost tables (ENG is ANG there: country_aliases.toml)."""
    aliases = load_table("ledger.rules.eu", "country_aliases.toml")["seed"]
    return (aliases.get(country) or [country])[0]


def _figure(cell: str, which: str) -> Fraction:
    parts = str(cell).split("/")
    return Fraction(parts[0] if which == "first" or len(parts) == 1 else parts[1])


@worker("B30")
def unit_maintenance(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each of the country's stacks: its detachments at the maintenance its land or naval technology prints
    (the seed's country sheets), rounded up once for the line."""
    from ledger.rules.eu.french_tables import country_costs

    weights = rules_data(facts.ruleset)["maintenance"]["units"]
    costs: dict[str, Fraction] = {}
    lineage, exact = [], Fraction(0)
    for sid in sorted(facts.forces):
        force = facts.forces[sid]
        if force.get("country") != country:
            continue
        parts, paid = [], Fraction(0)
        for unit, n in sorted((force.get("units") or {}).items()):
            count = unit_count(n)
            if not count:
                continue
            if unit not in weights:
                raise Undetermined(f"{sid} holds {n} {unit}: the map does not say what a {unit} pays")
            kind, weight = weights[unit][0], Fraction(weights[unit][1])
            if kind not in costs:
                tech, _ = facts.fact(country, f"{kind}_technology")
                if tech is None:
                    raise Undetermined(f"{country}'s {kind} technology is not set (ledger map country {country} "
                                       f"--{kind}-technology ...)")
                try:
                    printed = country_costs(_seed_code(country), tech)
                except RulesError:
                    raise Undetermined(f"the seed prints no {kind} maintenance for {country} at {tech}") from None
                costs[kind] = _figure(printed["maintenance_D"], facts.option("B30.figure"))
            paid += count * weight * costs[kind]
            parts.append(f"{n} {unit} x {weight * costs[kind]}")
        if parts:
            exact += paid
            lineage.append((sid, paid, "; ".join(parts)))
    out = [Source("stack", sid, math.floor(paid), facts.touched.get(f"forces:{sid}"), f"{note} ducats")
           for sid, paid, note in lineage]
    rest = math.ceil(exact) - sum(s.amount for s in out)
    if rest:
        out.append(Source("fact", "rounding", rest, None, f"{exact} ducats in all, rounded up"))
    for kind in costs:
        tech, at = facts.fact(country, f"{kind}_technology")
        out.append(Source("fact", f"{country}'s {kind} technology", 0, at, f"{tech}: {costs[kind]} ducats a detachment"))
    return _line("B30", out, "Expenses, logistics: maintenance of the units, per detachment at the country's "
                             "technology (the seed's country cost tables)")


def _fortress_level(facts: EconomyFacts, place: str) -> tuple[int, int | None]:
    """A province's fortress level and the position that set it (None: as printed)."""
    if place in facts.fortresses:
        return int(facts.fortresses[place]), facts.touched.get(f"fortresses:{place}")
    return int(facts.provinces[place].get("fortress") or 0), None


@worker("B31")
def fortress_maintenance(facts: EconomyFacts, country: str) -> ProposedLine:
    """Each fortress the country holds (controls, or owns: a rules option) at its level's maintenance in Europe;
    level 3 doubled before the Arquebus, level 4 before turn 40. Presidios are not on the map: entered."""
    from ledger.rules.eu.french_tables import fortress_cost

    data = rules_data(facts.ruleset)["fortress_maintenance"]
    payer, counted = facts.option("B31.payer"), facts.option("B31.counted")
    land, _ = facts.fact(country, "land_technology")
    order = list(load_table(f"ledger.rules.{facts.ruleset}", "technologies.toml")["land"])
    lineage = []
    for place in (facts.controlled if payer == "controller" else facts.owned).get(country, ()):
        p = facts.provinces[place]
        level, at = _fortress_level(facts, place)
        printed = int(p.get("fortress") or 0)
        paid_levels = level - printed if counted == "above_printed" else level
        if level <= 0 or paid_levels <= 0:
            continue
        cost = int(data["level_1"]) if level == 1 else int(fortress_cost(level)["maintenance"])
        note = f"level {level}: {cost} ducats"
        if level == 3 and (land is None or order.index(land) < order.index(data["double_level_3_before"])):
            if land is None:
                raise Undetermined(f"{country}'s land technology is not set: a level 3 fortress pays double "
                                   "before the Arquebus")
            cost, note = cost * 2, f"level 3 before the Arquebus ({land}): {cost * 2} ducats"
        elif level == 4 and facts.turn < int(data["double_level_4_before_turn"]):
            cost, note = cost * 2, f"level 4 before turn 40: {cost * 2} ducats"
        if counted == "above_printed":
            note += f" (printed level {printed})"
        lineage.append(Source("fortress", place, cost, at, note))
    return _line("B31", lineage, "Expenses, logistics: maintenance of the fortresses, per level (Cost of "
                                 "Fortresses table; the seed's fr_fortress_costs.toml)")


def work_out(state: CampaignState, country: str, *, options: Mapping[str, Any] | None = None,
             facts: EconomyFacts | None = None) -> Proposal:
    """The lines the state determines for ``country`` at the state's position (no history read)."""
    facts = facts or EconomyFacts.of(state, options)
    lines, unresolved = [], []
    for code in sorted(WORKERS, key=_order):
        fn = WORKERS[code]
        try:
            lines.append(_with_readings(fn(facts, country), facts.ruleset, options or {}))
        except Undetermined as why:
            unresolved.append((code, str(why)))
    return Proposal(country=country, position=state.version, lines=tuple(lines), unresolved=tuple(unresolved))


@cache
def readings(ruleset: str = "eu") -> Mapping[str, Any]:
    """Every reading of the income lines a campaign may choose, with the ruleset's own (the ``[defaults]`` of
    tables/board_income.toml and tables/trade_income.toml)."""
    out: dict[str, Any] = {}
    for table in ("board_income.toml", "trade_income.toml"):
        try:
            out.update(load_table(f"ledger.rules.{ruleset}", table).get("defaults", {}))
        except (ModuleNotFoundError, FileNotFoundError):
            continue
    return MappingProxyType(out)


@cache
def reading_choices(ruleset: str = "eu") -> Mapping[str, tuple[Any, ...]]:
    """The readings that take one of a few values (``[choices]`` of the same tables)."""
    out: dict[str, tuple[Any, ...]] = {}
    for table in ("board_income.toml", "trade_income.toml"):
        try:
            out.update({k: tuple(v) for k, v in load_table(f"ledger.rules.{ruleset}", table).get("choices", {}).items()})
        except (ModuleNotFoundError, FileNotFoundError):
            continue
    return MappingProxyType(out)


def reading_words(value: Any) -> str:
    """A reading's value as a person reads it: yes/no, "Revolt, Pillage+", "sl 2, sp 5", "owner"."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
    return str(value).replace("_", " ")


def _with_readings(line: ProposedLine, ruleset: str, options: Mapping[str, Any]) -> ProposedLine:
    """The line with each reading of it the campaign chose otherwise than the ruleset in its lineage (adding
    nothing: the line is still the sum of its lineage), so whoever checks it sees why it differs."""
    defaults = readings(ruleset)
    chosen = [(k, v) for k, v in sorted(options.items())
              if k.partition(".")[0] == line.code and k in defaults and v != defaults[k]]
    if not chosen:
        return line
    said = tuple(Source("reading", f"reading {k.partition('.')[2].replace('_', ' ')}: {reading_words(v)}", 0, None,
                        f"the campaign's setting; the ruleset reads {reading_words(defaults[k])}") for k, v in chosen)
    return ProposedLine(code=line.code, amount=line.amount, lineage=line.lineage + said, rule=line.rule)


def work_out_all(state: CampaignState, *, options: Mapping[str, Any] | None = None,
                 countries: tuple[str, ...] | None = None) -> dict[str, Proposal]:
    """Every campaign country's proposal (or those of ``countries``), from one view of the state."""
    facts = EconomyFacts.of(state, options)
    return {c: work_out(state, c, facts=facts) for c in (state.countries if countries is None else countries)}


