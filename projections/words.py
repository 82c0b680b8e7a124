"""Values and changes in plain words: the one formatter the web page, the terminal replay and the timeline use.

People read these pages, not programmers: "FRA-1: 8 LD → 6 LD", "Picardie: controlled by ENG (was FRA)",
"FRA turn 1, A9 Pillages, privateers: 35 → 30 ducats". No JSON, no Python repr: None is "—", booleans are
yes/no, fractions are 2⅓ (``ledger.rules.explain.plain``, the value formatter the ledger's own explanations
use, since the ledger cannot import this package).
"""

from __future__ import annotations

import ast
import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from ledger.economy.trade_income import CENTRES, RESOURCE_NAMES
from ledger.rules.core import Ruling
from ledger.rules.explain import explain, label, plain

__all__ = ["plain", "label", "value", "units", "siege_changes", "ers_key", "budget_line", "changes", "effect",
           "outcome_rows", "step_heading", "fields_diff", "ruling_diff", "dice_line", "budget_changes", "ruling_words",
           "formula", "line_code", "board_notes",
           "board_disagreement", "moment", "moment_in", "country_facts", "trade_fact"]

value = plain


def moment(ts: Any) -> str:
    """An event's server time as a person reads it, "2026-11-27 15:39:09 UTC": to the second (the position orders
    events; microseconds and the ISO "T" are for machines), always in UTC, so players in several countries
    quoting it in a dispute name the same moment."""
    if not ts:
        return "—"
    if isinstance(ts, str) and len(ts) >= 19 and ts[10] == "T" and ts.endswith(("+00:00", "Z")):
        return f"{ts[:10]} {ts[11:19]} UTC"  # what the ledger stores; the page lists hundreds of them
    when = ts if isinstance(ts, datetime) else datetime.fromisoformat(str(ts))
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")
def moment_in(ts: Any, zone_name: str) -> str:
    """A time as a reader who chose ``zone_name`` (an IANA name: theirs, else the campaign's) reads it, to the
    minute: "2026-12-01 20:00 Europe/Paris" (deadlines and "since you last looked"; ``moment`` says why the
    events' own times are shown in UTC to the second)."""
    from ledger.domain.zones import zone

    if not ts:
        return "—"
    when = ts if isinstance(ts, datetime) else datetime.fromisoformat(str(ts).replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return f"{when.astimezone(zone(zone_name)):%Y-%m-%d %H:%M} {zone_name}"


#: Document keys that are bookkeeping, not something a person sees change.
_INTERNAL = frozenset({"position", "corrections", "correction_log", "scenario", "adjacency", "stability_log",
                       "inflation_log", "vp_by_turn", "turn"})
_LINE = re.compile(r"^([A-Z])(\d+)(.*)$")


def ers_key(code: str) -> tuple[str, int, str]:
    """Sort ERS lines by sheet and number: A9 before A13, A15_pct before A15."""
    m = _LINE.match(code)
    return (m.group(1), int(m.group(2)), "" if m.group(3) else "~") if m else (code, 0, "")


def _line_name(code: str) -> tuple[str, str]:
    try:
        from ledger.rules.eu.ers import ers_definition

        d = ers_definition().get(code)
        return d.name, {"ducats": "ducats", "percent": "%"}.get(d.unit, d.unit)
    except Exception:  # noqa: BLE001 - a line this sheet does not define is named by its code alone
        return "", ""


def budget_line(b: dict[str, Any]) -> str:
    """One ERS cell that changed: "FRA turn 1, A9 Pillages, privateers: 35 → 30 ducats"."""
    name, unit = _line_name(b["line"])
    before = plain(b.get("from"))
    after = plain(b.get("to")) if b.get("to") is not None else "struck"
    return f"{b['country']} turn {b['turn']}, {b['line']}{' ' + name if name else ''}: {before} → {after}" + (
        f" {unit}" if unit and b.get("to") is not None else "")


def units(counts: dict[str, Any] | None, signed: bool = False) -> str:
    """Units in words: "6 LD, 2 NTD"; ``signed``: a change, "+2 LD, −1 CAV"."""
    def n(v: Any) -> str:
        return ("−" + plain(v).lstrip("-") if str(v).startswith("-") else "+" + plain(v)) if signed else plain(v)
    return ", ".join(f"{n(v)} {u}" for u, v in (counts or {}).items()) or "no units"



#: A country's economic facts (``CountryFactsSet.facts``) as people read them.
_FACT_NAMES = {"land_technology": "land technology", "naval_technology": "naval technology",
               "domestic_trade_index": "domestic trade index", "vassals": "vassals", "manufactures": "manufactures",
               "mines": "European mines", "depleted_mines": "depleted mines"}


def country_facts(facts: dict[str, Any]) -> str:
    """A country's facts set, in words: "land technology MED; manufactures Instruments 1 in Tejo (7 ducats)"."""
    def said(key: str, v: Any) -> str:
        if key == "manufactures":
            return ", ".join(f"{m['resource']} {m['level']} in {m['province']} ({m['income']} ducats)" for m in v) or "none"
        if key == "mines":
            return ", ".join(f"{n} in {place}" for place, n in v.items()) or "none"
        if isinstance(v, list):
            return ", ".join(map(str, v)) or "none"
        return plain(v)
    keys = [k for k in _FACT_NAMES if k in facts] + sorted(k for k in facts if k not in _FACT_NAMES)
    return "; ".join(f"{_FACT_NAMES.get(k, k.replace('_', ' '))} {said(k, facts[k])}" for k in keys) or "no facts"


def _stack(sid: str, a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    if a is None and b is not None:
        return [f"{sid}: appears in {plain(b.get('location'))} with {units(b.get('units'))}"]
    if b is None:
        return [f"{sid}: removed from the map"]
    out = []
    if a.get("location") != b.get("location"):
        out.append(f"{sid}: moved {plain(a.get('location'))} → {plain(b.get('location'))}")
    ua, ub = a.get("units") or {}, b.get("units") or {}
    for u in sorted(set(ua) | set(ub)):
        if ua.get(u) != ub.get(u):
            out.append(f"{sid}: {plain(ua.get(u, 0))} {u} → {plain(ub.get(u, 0))} {u}")
    if a.get("leaders") != b.get("leaders"):
        out.append(f"{sid}: leaders {', '.join(b.get('leaders') or ()) or 'none'} "
                   f"(were {', '.join(a.get('leaders') or ()) or 'none'})")
    for k in sorted(set(a) | set(b)):
        if k not in ("location", "units", "leaders") and a.get(k) != b.get(k):
            out.append(f"{sid}: {label(k)} {plain(b.get(k))} (was {plain(a.get(k))})")
    return out


def _leader(name: str, a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    """A leader arriving (I3: with the turn and the turn of departure), leaving the game, killed, captured, or
    changing stacks: "Gié: arrives with FRA-1 in turn 2, leaves in turn 9", "La Trémoille: departed in turn 2"."""
    if b is None:
        return [f"{name}: off the map"]
    if a is None:
        return [f"{name}: arrives with {b.get('stack') or 'no stack'}"
                + (f" in turn {b['arrived']}" if b.get("arrived") is not None else "")
                + (f", leaves in turn {b['departs']}" if b.get("departs") is not None else "")]
    if a.get("status") != b.get("status"):
        return [f"{name}: {b.get('status')}" + (f" in turn {b['departed']}" if b.get("departed") is not None else "")]
    if a.get("stack") != b.get("stack"):
        return [f"{name}: now with {b.get('stack') or 'no stack'} (was with {a.get('stack') or 'no stack'})"]
    return [line for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)
            for line in _generic(f"{name}, {label(k)}", a.get(k), b.get(k))]


_PROVINCE = {"controller": "controlled by", "owner": "owned by", "fortress": "fortress level", "markers": "markers"}


def _province(name: str, a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    a, b = a or {}, b or {}
    return [f"{name}: {_PROVINCE.get(k, label(k))} {plain(b.get(k))} (was {plain(a.get(k))})"
            for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _per_country(what: str, a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    a, b = a or {}, b or {}
    return [f"{c}: {what} {plain(a.get(c))} → {plain(b.get(c))}" for c in sorted(set(a) | set(b))
            if a.get(c) != b.get(c)]


def _generic(path: str, a: Any, b: Any) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [line for k in sorted(set(a) | set(b), key=str) if k not in _INTERNAL
                for line in _generic(f"{path}, {label(k)}" if path else label(k), a.get(k), b.get(k))]
    return [] if a == b else [f"{path}: {plain(a)} → {plain(b)}"]


def changes(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[str]:
    """What changed between two sets of view documents (map, victory), one sentence per change."""
    out: list[str] = []
    ma, mb = before.get("map") or {}, after.get("map") or {}
    sa, sb = ma.get("stacks") or {}, mb.get("stacks") or {}
    for sid in sorted(set(sa) | set(sb)):
        if sa.get(sid) != sb.get(sid):
            out += _stack(sid, sa.get(sid), sb.get(sid))
    pa, pb = ma.get("provinces") or {}, mb.get("provinces") or {}
    for name in sorted(set(pa) | set(pb)):
        if pa.get(name) != pb.get(name):
            out += _province(name, pa.get(name), pb.get(name))
    out += siege_changes(ma.get("sieges") or {}, mb.get("sieges") or {})
    la, lb = ma.get("leaders") or {}, mb.get("leaders") or {}
    for name in sorted(set(la) | set(lb)):
        if la.get(name) != lb.get(name):
            out += _leader(name, la.get(name), lb.get(name))
    for k in sorted(set(ma) | set(mb)):
        if k not in ("stacks", "provinces", "sieges", "leaders") and k not in _INTERNAL:
            out += _generic(label(k), ma.get(k), mb.get(k))
    va, vb = before.get("victory") or {}, after.get("victory") or {}
    out += _per_country("victory points", va.get("vp"), vb.get("vp"))
    out += _per_country("stability", va.get("stability"), vb.get("stability"))
    if va.get("inflation") != vb.get("inflation"):
        out.append(f"inflation {plain(va.get('inflation'))} → {plain(vb.get('inflation'))}")
    wa, wb = va.get("wars") or [], vb.get("wars") or []
    for w in wb:
        if w not in wa:
            out.append(f"war: {' + '.join(w.get('attackers') or [])} against {' + '.join(w.get('defenders') or [])}"
                       + (" (ended)" if w.get("ended") is not None else ""))
    for k in sorted(set(va) | set(vb)):
        if k not in ("vp", "stability", "inflation", "wars", "countries") and k not in _INTERNAL:
            out += _generic(label(k), va.get(k), vb.get(k))
    return out


def siege_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Sieges begun, over, or whose besiegers changed: "Picardie: besieged by ENG-1", "Picardie: siege over"."""
    out = []
    for place in sorted(set(a) | set(b)):
        before, after = a.get(place), b.get(place)
        if after is None:
            out.append(f"{place}: siege over")
        elif before is None or before.get("besiegers") != after.get("besiegers"):
            out.append(f"{place}: besieged by {', '.join(after.get('besiegers') or ()) or 'siegeworks'}")
    return out


_EFFECTS = {"ld_lost": "loses {amount} LD", "nd_lost": "loses {amount} ND", "ntd_lost": "loses {amount} NTD",
            "victory_points": "{amount} victory points", "stability_changed": "stability {signed}",
            "inflation_changed": "inflation {signed}", "ducats": "{signed} ducats on {ers_line}",
            "ers_entry": "{amount} on {ers_line}", "ers_tick": "{amount} tick(s) on {ers_line}",
            "marker_placed": "{marker} marker placed", "marker_removed": "{marker} marker removed",
            "stack_retreats": "retreats", "stack_destroyed": "destroyed", "stack_stopped": "stopped",
            "control_changed": "control changes"}


def effect(e: dict[str, Any]) -> str:
    """One effect of a ruling: "FRA (defender) loses 3 LD", "ENG: 5 victory points"."""
    amount = e.get("amount")
    signed = plain(amount)
    if amount is not None:  # a change reads with its sign: +1, −1 (a minus sign, not a hyphen)
        signed = "−" + signed.lstrip("-−") if str(amount).startswith("-") else "+" + signed
    text = _EFFECTS.get(e.get("kind", ""), label(e.get("kind", "")) + (" {amount}" if amount is not None else ""))
    text = text.format(amount=plain(amount), signed=signed, ers_line=e.get("ers_line") or "?",
                       marker=e.get("marker") or "a")
    who = " ".join(x for x in (e.get("country") or "", f"({e['target']})" if e.get("target") else "") if x)
    detail = e.get("detail") or {}
    extra = f" ({plain(detail)})" if detail else ""
    return f"{who}: {text}{extra}" if who else f"{text}{extra}"


def outcome_rows(outcome: dict[str, Any] | None) -> list[tuple[str, str]]:
    """An outcome as (what, value) rows; a nested mapping (per side) reads "attacker 2; defender 0"."""
    return [(label(k), plain(v)) for k, v in (outcome or {}).items()]


def step_heading(step: dict[str, Any]) -> str:
    """A step's name with its side, unless the name already says it ("A.1 fire (attacker)")."""
    name, side = step.get("name") or "", step.get("side")
    return f"{name} ({side})" if side and side not in name else name


def dice_line(d: dict[str, Any]) -> str:
    return f"{d.get('count', 1)}d{d.get('sides', 10)} {plain(list(d.get('values') or []))} ({d.get('purpose')})"


def fields_diff(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(field, before, after) for every field a correction changed, in words."""
    return [(label(k), plain(before.get(k)), plain(after.get(k))) for k in after
            if k not in ("ruling", "rework") and before.get(k) != after.get(k)]


def ruling_diff(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """A ruling against its correction: inputs and outcome that changed, effects gone and added."""
    old, new = old or {}, new or {}

    def flat(d: Any, prefix: str = "") -> dict[str, Any]:
        if isinstance(d, dict):
            return {k: v for key, x in d.items() for k, v in flat(x, f"{prefix} {label(key)}".strip()).items()}
        return {prefix: d}

    def rows(a: Any, b: Any) -> list[tuple[str, str, str]]:
        fa, fb = flat(a or {}), flat(b or {})
        return [(k, plain(fa.get(k)), plain(fb.get(k))) for k in dict.fromkeys([*fa, *fb]) if fa.get(k) != fb.get(k)]

    ea = [effect(e) for e in old.get("effects") or []]
    eb = [effect(e) for e in new.get("effects") or []]
    return {"inputs": rows(old.get("inputs"), new.get("inputs")) if "inputs" in new else [],
            "outcome": rows(old.get("outcome"), new.get("outcome")) if "outcome" in new else [],
            "removed": [e for e in ea if e not in eb], "added": [e for e in eb if e not in ea],
            "kept": [e for e in eb if e in ea]}


def budget_changes(before: list[list[Any]], event: Any, *, inputs: Any = None, memo: dict[Any, Any] | None = None,
                   since: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The ERS cells whose value differs between the budget without and with ``event`` (``before``: the
    budget's inputs before it, as [type, position, fields]; or ``inputs`` gathered already, which ``event``
    is added to, and a ``memo`` of their sheets; ``since``: only the sheets from these turns on, the memo
    holding those before: ``compute``'s), sorted by country, turn, sheet and line number, each with its
    sentence (``text``). One gathering of the inputs, two computations sharing a memo."""
    from ledger.economy.sheets import RELEVANT, Budget, Inputs, compute
    from projections import budget_view

    if event.type not in RELEVANT - {"CampaignCreated", "ScenarioImported", "TurnOpened"}:
        return []

    def cells(b: Budget) -> dict[tuple[str, int, str], Any]:
        return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
                for code, c in (sheet.cells or {}).items()}

    try:
        if inputs is None:
            inputs = Inputs()
            for kind, position, data in before:
                inputs.add(kind, position, data)
        memo = {} if memo is None else memo
        c0 = cells(compute(inputs, memo=memo, since=since))
        inputs.add(event.type, event.position, budget_view.trim(event))
        c1 = cells(compute(inputs, memo=memo, since=since))
    except Exception as exc:  # noqa: BLE001 - a budget that cannot be computed yet is shown, not fatal
        return [{"error": str(exc), "text": f"budget unavailable: {exc}"}]
    out = [{"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": v}
           for k, v in sorted(c1.items(), key=lambda kv: (kv[0][0], kv[0][1], ers_key(kv[0][2])))
           if c0.get(k) != v]
    return [{**b, "text": budget_line(b), "name": _line_name(b["line"])[0] or "—", "before": plain(b["from"]),
             "after": plain(b["to"]) if b["to"] is not None else "struck"} for b in out]


def _input(path: str) -> str:
    """An input's path as words: "attacker.ld" → "attacker ld", "zones[0].difficulty" → "zones 1 difficulty"."""
    return label(re.sub(r"\[(\d+)\]", lambda m: f" {int(m[1]) + 1}", path).replace(".", " "))


def board_disagreement(d: dict[str, Any]) -> str:
    """One input the board or the map state contradicts: "terrain: typed plain, the board says dense forest";
    sides the map has at peace: "war: ENG against FRA, not at war on the map"."""
    if d.get("field") == "war":
        return f"war: {plain(d.get('typed'))}, {plain(d.get('board'))} on the map"
    return f"{_input(d['field'])}: typed {plain(d.get('typed'))}, the board says {label(plain(d.get('board')))}"


def board_notes(doc: dict[str, Any]) -> list[str]:
    """What the board checks did to a ruling's inputs: kept against the board (with the game master's reason)
    and filled from the board or the map state."""
    kept = [f"{board_disagreement(o)}; kept by the game master: {o.get('reason')}" for o in doc.get("overridden") or ()]
    filled = [f"{_input(k)}: {label(plain(v))}, filled from the board and the map"
              for k, v in (doc.get("from_board") or {}).items()]
    return kept + filled


def ruling_words(doc: dict[str, Any]) -> dict[str, Any]:
    """A ruling as the page shows it: outcome as rows, effects as sentences, steps with one heading each."""
    ruling = Ruling.model_validate(doc)
    model = ruling.model_dump(mode="json")
    steps = [{**s, "heading": step_heading(s), "outcome_rows": outcome_rows(s.get("outcome")),
              "dice_words": [dice_line(d) for d in s.get("dice") or ()]} for s in model["steps"]]
    inputs = [(k, b) for k, _, b in ruling_diff({"inputs": {}}, {"inputs": model["inputs"]})["inputs"]]
    return {"model": {**model, "steps": steps}, "text": explain(ruling),
            "outcome_rows": outcome_rows(model["outcome"]),
            "effects": [effect(e) for e in model["effects"]], "inputs": inputs, "board": board_notes(doc)}


# ------------------------------------------------------------------ ERS formulas

_OPS = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×"}
_RANK = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2}


def line_code(code: str) -> str:
    """An ERS line as printed on the sheet: the percentage box ``A15_pct`` is "A15 %"."""
    return f"{code.removesuffix('_pct')} %" if code.endswith("_pct") else code


@lru_cache(maxsize=1024)  # a ruleset's few dozen formulas, parsed for each line of every ERS page otherwise
def formula(expr: str | None) -> str:
    """An ERS formula (``ledger/rules/eu/ers.py``) as a person reads it: ``pct_down(A14, A15_pct)`` is
    "A15 % of A14, rounded down", ``sum_range(B29, B37)`` "the sum of B29 to B37", ``prev(A33)`` "A33 of
    the turn before". Something it cannot read is shown as written, never hidden."""
    if not expr:
        return ""
    try:
        return _formula(ast.parse(expr, mode="eval").body)
    except (SyntaxError, ValueError):
        return expr


def _formula(node: ast.AST, rank: int = 0) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return plain(node.value)
    if isinstance(node, ast.Name):
        return line_code(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return ("−" if isinstance(node.op, ast.USub) else "") + _formula(node.operand, 3)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        mine = _RANK[type(node.op)]
        # The right side of a subtraction keeps its brackets: A − (B + C) is not A − B + C; a percentage
        # ("…, rounded up") is bracketed too, so its comma does not run into the next term.
        left, right = (f"({_formula(x)})" if _rounded(x) else _formula(x, r)
                       for x, r in ((node.left, mine), (node.right, mine + 1)))
        text = f"{left} {_OPS[type(node.op)]} {right}"
        return f"({text})" if mine < rank else text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return _call(node.func.id, node.args)
    raise ValueError(f"not an ERS formula: {ast.dump(node)}")


def _rounded(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("pct_down", "pct_up")


def _call(name: str, args: list[ast.expr]) -> str:
    said = [_formula(a, 3 if name in ("pct_down", "pct_up") else 0) for a in args]
    if name in ("pct_down", "pct_up") and len(args) == 2:
        percent = said[1] if said[1].endswith("%") else f"{said[1]} %"
        return f"{percent} of {said[0]}, rounded {'down' if name == 'pct_down' else 'up'}"
    if name == "sum_range" and len(args) == 2:
        return f"the sum of {said[0]} to {said[1]}"
    if name == "prev" and len(args) in (1, 2):
        back = args[1].value if len(args) == 2 and isinstance(args[1], ast.Constant) else 1
        return f"{said[0]} of the turn before" if back == 1 else f"{said[0]} of {back} turns before"
    if name == "abs" and len(args) == 1:
        return f"{said[0]} without its sign"
    if name in ("min", "max") and len(args) >= 2:
        return f"the {'smaller' if name == 'min' else 'larger'} of {', '.join(said[:-1])} and {said[-1]}"
    raise ValueError(f"not an ERS function: {name}")


_ESTABLISHMENTS = {"colony": "colony", "trading_post": "trading post"}


def _level(level: int) -> str:
    """A trade fleet's or an establishment's level with its side: 1-3 Face−, 4-6 Face+."""
    return f"level {level} ({'Face+' if level >= 4 else 'Face−'})"


def trade_fact(kind: str, d: dict[str, Any]) -> str | None:
    """A trade or rest-of-the-world fact set on the board, in words ("POR trade fleet in STZ Canarias: level 3
    (Face−), was none"); None for another kind of event."""
    if kind == "TradeFleetChanged":
        now = _level(d["level"]) if d["level"] else "none"
        was = _level(d["previous"]) if d.get("previous") else "none"
        return f"{d['country']} trade fleet in {d['zone']}: {now}, was {was} ({d['reason']})"
    if kind == "TradeCentreChanged":
        name = CENTRES.get(d["centre"], d["centre"])
        holder = f"held by {d['holder']}" if d.get("holder") else "held by nobody"
        where = f" in {d['province']}" if d.get("province") else ""
        income = f", income {d['income']} ducats" if d.get("income") is not None else ""
        was = f" (was {d['previous']})" if d.get("previous") else ""
        return f"{name} trade centre {holder}{where}{income}{was} ({d['reason']})"
    if kind == "EstablishmentChanged":
        what = _ESTABLISHMENTS.get(d["kind"], d["kind"])
        now = _level(d["level"]) if d["level"] else "gone"
        was = f", was level {d['previous']}" if d.get("previous") else ""
        uses = [f"{n} {RESOURCE_NAMES.get(r, r)}" for r, n in sorted((d.get("exploits") or {}).items())]
        uses += ["gold"] if d.get("gold") else []
        exploits = f"; exploits {', '.join(uses)}" if uses and d["level"] else ""
        return f"{d['country']} {what} in {d['place']}: {now}{was}{exploits} ({d['reason']})"
    if kind == "MissionChanged":
        return (f"{d['country']} mission in {d['place']} {'founded' if d['present'] else 'gone'} "
                f"({d['reason']})")
    return None
