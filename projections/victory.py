"""Victory read model: victory points per country and turn, stability and inflation tracks, wars and war turns.

``apply(doc, record)`` updates one campaign's document and returns the victory
point awards the event makes, each linked to its event position (the view store
keeps them as rows). Sources: the scenario (starting stability, inflation box,
wars in progress), ``WarDeclared`` and ``PeaceMade``, and the effects of recorded rulings
(``victory_points``, ``stability_changed``, ``inflation_changed``, ``peace``).
A war turn is counted for every country at war when a turn closes.
"""

from __future__ import annotations

from typing import Any

from projections.records import Record, num, plain_sum

NAME = "victory"
#: The event types whose fields ``apply`` reads (of every other it takes the position only).
READS = frozenset({"ScenarioImported", "TurnOpened", "TurnClosed", "WarDeclared", "PeaceMade", "RulingRecorded"})
#: The fields of a ruling this model reads (map.RULING_READS says why).
RULING_READS = frozenset({"effects", "title"})


#: The document's lists a fold only appends to, never changing an entry (``records.copy_doc`` shares their
#: entries; ``views.View.dump`` serialises each entry once).
APPEND_ONLY = ("stability_log", "inflation_log")


def empty() -> dict[str, Any]:
    return {"countries": [], "vp": {}, "vp_by_turn": {}, "stability": {}, "stability_log": [], "inflation": None,
            "inflation_log": [], "wars": [], "war_turns": {}, "turn": None, "position": 0}


def _at_war(doc: dict[str, Any]) -> set[str]:
    return {c for w in doc["wars"] if w["ended"] is None for c in (*w["attackers"], *w["defenders"])}


def _end_wars(doc: dict[str, Any], r: Record, e: dict[str, Any]) -> None:
    parties = {c for c in (e.get("country"), e.get("target"), (e.get("detail") or {}).get("winner")) if c}
    for w in doc["wars"]:
        sides = set(w["attackers"]) | set(w["defenders"])
        if w["ended"] is None and parties and parties <= sides | {None}:
            w["ended"] = r.position
            w["ended_turn"] = doc["turn"]


def apply(doc: dict[str, Any], r: Record) -> list[dict[str, Any]]:
    t, d = r.type, r.data
    doc["position"] = r.position
    awards: list[dict[str, Any]] = []
    if t == "ScenarioImported":
        s = d["scenario"]
        doc["countries"] = [c["code"] for c in s["countries"]]
        doc["stability"] = {c["code"]: c["stability"] for c in s["countries"]}
        doc["vp"] = {c["code"]: 0 for c in s["countries"]}
        doc["war_turns"] = {c["code"]: 0 for c in s["countries"]}
        doc["inflation"] = s["inflation"]
        for att, dfn in s["wars"]:
            doc["wars"].append({"attackers": att, "defenders": dfn, "since": r.position, "since_turn": None,
                                "ended": None, "ended_turn": None})
    elif t == "TurnOpened":
        doc["turn"] = d["turn"]
    elif t == "TurnClosed":
        for c in sorted(_at_war(doc)):
            doc["war_turns"][c] = doc["war_turns"].get(c, 0) + 1
    elif t == "WarDeclared":
        doc["wars"].append({"attackers": d["attackers"], "defenders": d["defenders"], "since": r.position,
                            "since_turn": doc["turn"], "ended": None, "ended_turn": None})
    elif t == "PeaceMade":
        for war in doc["wars"]:
            if war["ended"] is None and (sorted(war["attackers"]), sorted(war["defenders"])) == (
                    sorted(d["attackers"]), sorted(d["defenders"])):
                war.update(ended=r.position, ended_turn=doc["turn"])
                break
    elif t == "RulingRecorded":
        for i, e in enumerate(d["ruling"].get("effects") or ()):
            kind, country = e["kind"], e.get("country")
            if kind == "victory_points" and country:
                amount = e.get("amount")
                doc["vp"][country] = plain_sum(doc["vp"].get(country, 0), amount)
                per_turn = doc["vp_by_turn"].setdefault(country, {})
                key = str(doc["turn"] or 0)
                per_turn[key] = plain_sum(per_turn.get(key, 0), amount)
                awards.append({"effect": i, "country": country, "turn": doc["turn"], "points": plain_sum(0, amount),
                               "reason": f"{d['procedure']}: {d['ruling'].get('title', '')}".strip(": "),
                               "hash": d.get("hash")})  # its event's: the victory export's lineage
            elif kind == "stability_changed" and country:
                before = doc["stability"].get(country, 0)
                after = max(-3, min(3, before + int(num(e.get("amount")))))
                doc["stability"][country] = after
                doc["stability_log"].append({"position": r.position, "turn": doc["turn"], "country": country,
                                             "from": before, "to": after})
            elif kind == "inflation_changed":
                before = doc["inflation"] or 0
                after = (e.get("detail") or {}).get("to_box", before + int(num(e.get("amount"))))
                doc["inflation"] = after
                doc["inflation_log"].append({"position": r.position, "turn": doc["turn"], "from": before,
                                             "to": after})
            elif kind == "peace":
                _end_wars(doc, r, e)
    return awards
