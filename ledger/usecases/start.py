"""The economic facts a scenario's placement gives at the start (``start:`` in the scenario: the name of a table
of its ruleset, as ``start_1492``), recorded in the same append as the scenario, as the events the game master's
own commands record (``CountryFactsSet``, ``TradeFleetChanged``, ``TradeCentreChanged``, ``EstablishmentChanged``,
``MissionChanged``): the income lines' lineage then names them, and a correction changes them as any other.

Each is built as its command (the same validation as a request body); the names in the table are checked
against the board and the scenario by tests/integration/test_start_facts.py, which sends the same commands to a
campaign set up without them and compares the two states."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.rules.core import load_table

if TYPE_CHECKING:
    from ledger.draft import Draft


def commands(ruleset: str, table: str) -> list[cmd.Command]:
    """The commands of a placement table, in the order they are recorded: facts, fleets, centres,
    establishments, missions."""
    t = load_table(f"ledger.rules.{ruleset}", f"{table}.toml")
    reason = t["reason"]
    out: list[cmd.Command] = [cmd.build(cmd.SetCountryFacts, country=c, reason=reason, **facts)
                              for c, facts in t.get("facts", {}).items()]
    out += [cmd.build(cmd.ChangeTradeFleet, country=c, zone=zone, level=level, reason=reason)
            for c, fleets in t.get("fleets", {}).items() for zone, level in fleets.items()]
    out += [cmd.build(cmd.ChangeTradeCentre, reason=reason, **{"province": None, **x}) for x in t.get("centres", ())]
    out += [cmd.build(cmd.ChangeEstablishment, reason=reason, **x) for x in t.get("establishments", ())]
    out += [cmd.build(cmd.ChangeMission, present=True, reason=reason, **x) for x in t.get("missions", ())]
    return out


def record(d: Draft, ruleset: str, table: str | None) -> int:
    """The placement's facts added to the draft (nothing held before them: a campaign's first facts); how many."""
    if not table:
        return 0
    done = 0
    for c in commands(ruleset, table):
        vis = c.visibility.as_dict()
        if isinstance(c, cmd.SetCountryFacts):
            facts = c.facts()
            d.add(ev.CountryFactsSet, vis, country=c.country, facts=facts, previous={k: None for k in facts},
                  reason=c.reason)
        elif isinstance(c, cmd.ChangeTradeFleet):
            d.add(ev.TradeFleetChanged, vis, country=c.country, zone=c.zone, level=c.level, previous=0,
                  reason=c.reason)
        elif isinstance(c, cmd.ChangeTradeCentre):
            d.add(ev.TradeCentreChanged, vis, centre=c.centre, holder=c.holder, previous=None,
                  province=c.province, income=c.income, reason=c.reason)
        elif isinstance(c, cmd.ChangeEstablishment):
            d.add(ev.EstablishmentChanged, vis, **c.model_dump(mode="json", exclude={"visibility", "context"}),
                  previous=0)
        elif isinstance(c, cmd.ChangeMission):
            d.add(ev.MissionChanged, vis, **c.model_dump(mode="json", exclude={"visibility", "context"}))
        done += 1
    return done
