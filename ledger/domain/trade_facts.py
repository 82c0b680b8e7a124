"""Each country's trade and rest-of-the-world facts, as the write side keeps them in the forces model's
``"countries"`` part (ledger/domain/forces.py): what the income sheet's trade and colonial lines read.

    country -> {"trade_fleets": {zone: level}, "trade_centres": {centre: {"province", "income"}},
                "colonies": {place: level}, "trading_posts": {place: level},
                "exploits": {place: {resource: units}}, "gold": [place], "missions": [place],
                "at": {"<key>/<name>": position of the event that last set it}, ...}

(the other keys of a country, its technologies, vassals, manufactures, mines, are econ-land's). A few values
per country, never a history read; the fold never changes a dict in place (the forces model shares what did
not change between the audiences' copies). ``at`` is the lineage: the event each fact comes from.
"""

from __future__ import annotations

from typing import Any

from ledger.domain import events as ev

#: The events this fold follows (public facts set by the game master with the trade commands).
FOLLOWED = (ev.TradeFleetChanged, ev.TradeCentreChanged, ev.EstablishmentChanged, ev.MissionChanged)
KINDS = frozenset(c.__name__ for c in FOLLOWED)
KEYS = ("trade_fleets", "trade_centres", "colonies", "trading_posts", "exploits", "gold", "missions", "at")
#: An establishment's kind -> the key its levels are kept under.
ESTABLISHMENTS = {"colony": "colonies", "trading_post": "trading_posts"}


def position_key(key: str, name: str) -> str:
    """Where ``at`` keeps the lineage of one fact: ``trade_fleets/STZ Canarias``."""
    return f"{key}/{name}"


def change(countries: dict[str, Any], kind: str, event: Any, position: int | None) -> dict[str, Any]:
    """The countries' facts after an event of type ``kind`` (or as a correction restates it: any object with
    the event's fields), set at ``position``; an event of another type changes nothing (the same dict)."""
    if kind == "TradeFleetChanged":
        return _set(countries, event.country, "trade_fleets", event.zone, event.level or None, position)
    if kind == "EstablishmentChanged":
        key = ESTABLISHMENTS[event.kind]
        out = _set(countries, event.country, key, event.place, event.level or None, position)
        gone = not event.level
        c = dict(out[event.country])
        exploits = {p: v for p, v in (c.get("exploits") or {}).items() if p != event.place}
        if not gone and event.exploits:
            exploits[event.place] = dict(sorted(event.exploits.items()))
        gold = sorted({*(c.get("gold") or ()), event.place} if event.gold and not gone
                      else set(c.get("gold") or ()) - {event.place})
        c["exploits"], c["gold"] = exploits, gold
        return {**out, event.country: c}
    if kind == "MissionChanged":
        c = dict(countries.get(event.country) or {})
        missions = set(c.get("missions") or ())
        missions = missions | {event.place} if event.present else missions - {event.place}
        c["missions"] = sorted(missions)
        c["at"] = {**(c.get("at") or {}), position_key("missions", event.place): position}
        return {**countries, event.country: c}
    if kind == "TradeCentreChanged":
        out = dict(countries)
        for code, c in countries.items():  # one counter: whoever held it before holds it no more
            if event.centre in (c.get("trade_centres") or {}):
                out[code] = {**c, "trade_centres": {k: v for k, v in c["trade_centres"].items() if k != event.centre}}
        if event.holder is None:
            return out
        c = dict(out.get(event.holder) or {})
        c["trade_centres"] = {**(c.get("trade_centres") or {}),
                              event.centre: {"province": event.province, "income": event.income}}
        c["at"] = {**(c.get("at") or {}), position_key("trade_centres", event.centre): position}
        out[event.holder] = c
        return out
    return countries


def _set(countries: dict[str, Any], country: str, key: str, name: str, value: Any, position: int | None
         ) -> dict[str, Any]:
    """``countries[country][key][name] = value`` (None: removed), recorded as set at ``position``."""
    c = dict(countries.get(country) or {})
    values = {k: v for k, v in (c.get(key) or {}).items() if k != name}
    if value is not None:
        values[name] = value
    c[key] = dict(sorted(values.items()))
    c["at"] = {**(c.get("at") or {}), position_key(key, name): position}
    return {**countries, country: c}


def holder_of(countries: dict[str, Any], centre: str) -> str | None:
    """Who holds a trade centre (None: nobody)."""
    return next((code for code, c in countries.items() if centre in (c.get("trade_centres") or {})), None)


def fleets_in(countries: dict[str, Any], zone: str) -> dict[str, int]:
    """Every country's trade fleet level in a zone."""
    return {code: c["trade_fleets"][zone] for code, c in sorted(countries.items())
            if zone in (c.get("trade_fleets") or {})}
