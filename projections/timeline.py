"""Timeline read model: every event of a turn in order, with a one-line human summary.

Example: "Round S2, FRA impulse: interception of ENG stack ENG-1 by FRA at
Picardie failed (6 + 1 − 2 = 5 < 8)". The only state kept is which country
each stack belongs to (from the scenario), to name stacks by their country.
"""

from __future__ import annotations

from typing import Any

from ledger.dice import audience_words
from ledger.economy.milestones import TITLES
from ledger.rules.explain import plain
from projections.records import Record
from projections.words import country_facts, moment_in, trade_fact, units

NAME = "timeline"


def empty() -> dict[str, Any]:
    return {"stacks": {}, "position": 0}


def _signed(v: int) -> str:
    return f"+ {v}" if v >= 0 else f"− {-v}"


def _prefix(ctx: dict[str, Any]) -> str:
    """"Round S2, FRA impulse: ", "Round S2: ", "FRA impulse: ", "Diplomacy phase: " or "" (one per event)."""
    rnd, impulse = ctx.get("round"), ctx.get("impulse")
    if rnd:
        return f"Round {rnd}, {impulse} impulse: " if impulse else f"Round {rnd}: "
    if impulse:
        return f"{impulse} impulse: "
    phase = ctx.get("phase")
    return f"{str(phase).capitalize()} phase: " if phase else ""


def _arithmetic(ruling: dict[str, Any]) -> str:
    dice = sum(sum(d["values"]) for d in ruling.get("dice") or ())
    mods = " ".join(_signed(m["value"]) for m in ruling.get("modifiers") or ())
    return f"{dice}{' ' + mods if mods else ''} = {ruling.get('total')}"


def _interception(doc: dict[str, Any], ruling: dict[str, Any], ctx: dict[str, Any]) -> str:
    out = ruling.get("outcome") or {}
    stacks = ctx.get("stacks") or {}
    target, interceptor = stacks.get("target"), stacks.get("interceptor")
    what = out.get("kind", "interception")
    if target:
        what += f" of {doc['stacks'].get(target, '?')} stack {target}"
    if interceptor:
        what += f" by {doc['stacks'].get(interceptor, ctx.get('impulse') or '?')}"
    if ctx.get("where"):
        what += f" at {ctx['where']}"
    if not out.get("eligible", True):
        return f"{what} not allowed ({out.get('reason')})"
    verdict = "succeeded" if out.get("success") else "failed"
    if out.get("unmodified_die") == 10:
        why = "unmodified 10"
    else:
        why = f"{_arithmetic(ruling)} {'≥' if out.get('success') else '<'} 8"
    return f"{what} {verdict} ({why})"


def _ruling(doc: dict[str, Any], d: dict[str, Any], ctx: dict[str, Any]) -> str:
    ruling = d["ruling"]
    if d["procedure"] in ("M14", "M15"):
        return _interception(doc, ruling, ctx)
    text = ruling.get("summary") or ruling.get("title") or ""
    where = f" at {ctx['where']}" if ctx.get("where") else ""
    roles = ctx.get("stacks") or {}
    gone = [roles.get(e.get("target"), e.get("target")) for e in ruling.get("effects") or ()
            if e.get("kind") == "stack_destroyed" and e.get("target")]
    off = f"; stack {', '.join(gone)} destroyed: off the map" if gone else ""
    return f"{d['procedure']} {ruling.get('title', '')}{where}: {text}{off}"


def summary(doc: dict[str, Any], r: Record, ctx: dict[str, Any] | None = None) -> str:
    """``ctx``: ``r.context`` when the caller already has it (a rebuild summarises every event). A command the
    game master kept against the sequence of play (ledger/sequence.py) says so, with his reason."""
    if ctx is None:
        ctx = r.context
    text = _summary(doc, r, ctx)
    kept = ctx.get("out_of_sequence")
    if isinstance(kept, dict) and kept.get("reason"):
        text += f"; kept out of sequence by the game master: {kept['reason']} ({'; '.join(kept.get('refused') or ())})"
    return text


def _summary(doc: dict[str, Any], r: Record, ctx: dict[str, Any]) -> str:
    t, d = r.type, r.data
    p = _prefix(ctx)
    if t == "CampaignCreated":
        return f"Campaign “{d['name']}” created ({', '.join(d['countries'])}; ruleset {d['ruleset']})"
    if t == "ScenarioImported":
        s = d["scenario"]
        return (f"Scenario “{d['name']}” imported: {len(s['provinces'])} provinces, {len(s['sea_zones'])} sea zones, "
                f"{len(s['stacks'])} stacks")
    if t == "TurnOpened":
        return f"Turn {d['turn']} opened (dice commitment {d['commitment'][:12]}…)"
    if t == "TurnClosed":  # scheme 2 (ledger/dice.py): the seed and the count are the public rolls'
        n, public = d["rolls"], "public " if d.get("dice_scheme", 1) != 1 else ""
        return f"Turn {d['turn']} closed: {public}seed revealed, {n} {public}server roll{'' if n == 1 else 's'}"
    if t == "DiceSeedCommitted":
        return f"{p}dice commitment for rolls {audience_words(d['audience'])} ({d['commitment'][:12]}…)"
    if t == "DiceSeedRevealed":
        n = d["rolls"]
        return (f"Turn {d['turn']}: dice seed revealed for the rolls {audience_words(d['audience'])} "
                f"({n} server roll{'' if n == 1 else 's'})")
    if t == "DiceRolled":
        how = "physical " if d["manual"] else ""
        return f"{p}{how}{d['count']}d{d['sides']} → {plain(d['values'])} ({d['purpose']})"
    if t == "RulingRecorded":
        return p + _ruling(doc, d, ctx)
    if t == "TreasuryEntryRecorded":
        kept = d.get("overridden")
        kept = f"; kept against the board's {kept['board']}: {kept['reason']}" if kept else ""
        return f"{p}{d['country']}: {d['amount']:+d} ducats on {d['line']} (turn {d['turn']}: {d['reason']}{kept})"
    if t == "IncomeConfirmed":
        lines = ", ".join(f"{x['line']} {x['amount']}" + (" (kept)" if x.get("kept") else "")
                          for x in d.get("lines") or ())
        return f"{p}{d['country']}'s income of turn {d['turn']} confirmed from the state at #{d['at']}: {lines}"
    if t == "CorrectionRecorded":
        rep = d.get("replacement")
        how = ("struck" if rep is None else "resolved again" if isinstance(rep, dict) and "rework" in rep
               else "restated")
        return f"{p}correction of position {d['corrects']} ({how}): {d['reason']}"
    if t == "StackMoved":
        path = d.get("path") or [d["origin"], d["destination"]]  # moves recorded before the board carry none
        forced = d.get("forced")
        return (f"{p}stack {d['stack']} moved {' → '.join(path)} ({d['reason']})"
                + (f"; forced by the game master: {forced['reason']}" if forced else ""))
    if t == "ControlChanged":
        prev = f" from {d['previous']}" if d.get("previous") else ""
        return f"{p}{d['province']} now controlled by {d['controller']}{prev} ({d['reason']})"
    if t == "OwnerChanged":
        prev = f" from {d['previous']}" if d.get("previous") else ""
        return f"{p}{d['province']} now owned by {d['owner']}{prev} ({d['reason']})"
    if t == "MarkerPlaced":
        return f"{p}{d['marker']} marker placed in {d['province']} ({d['reason']})"
    if t == "CountryFactsSet":
        return f"{p}{d['country']}: {country_facts(d['facts'])} ({d['reason']})"
    if t == "MarkerRemoved":
        return f"{p}{d['marker']} marker removed from {d['province']} ({d['reason']})"
    if t == "WarDeclared":
        return f"{p}war: {', '.join(d['attackers'])} against {', '.join(d['defenders'])} ({d['reason']})"
    if t == "FortressChanged":
        was = f" (was {d['previous']})" if d.get("previous") is not None else ""
        return f"{p}{d['province']}: fortress level {d['level']}{was} ({d['reason']})"
    if t == "PeaceMade":
        return f"{p}peace: {', '.join(d['attackers'])} and {', '.join(d['defenders'])} ({d['reason']})"
    if t == "StackRaised":
        parts = ([units(d["units"])] if d["units"] else []) + [a["name"] for a in d["leaders"]]
        return f"{p}stack {d['stack']} ({d['country']}) raised in {d['location']}: {', '.join(parts)} ({d['reason']})"
    if t == "StackSplit":
        parts = [units(d["units"])] if d["units"] else []
        parts += d["leaders"]
        return f"{p}{', '.join(parts)} of stack {d['stack']} form stack {d['new_stack']} in {d['location']} ({d['reason']})"
    if t == "StacksMerged":
        return f"{p}stack {d['merged']} joins stack {d['stack']} in {d['location']} ({d['reason']})"
    if t == "StackChanged":
        parts = [units(d["units"], signed=True)] if d["units"] else []
        parts += [f"{a['name']} arrives" + (f" (leaves in turn {a['departs']})" if a.get("departs") else "")
                  for a in d["arrived"]]
        parts += [f"{name} leaves the game" for name in d["departed"]]
        return f"{p}stack {d['stack']}: {'; '.join(parts)} in turn {d['turn']} ({d['reason']})"
    if t == "StackDisbanded":
        parts = ([units(d["units"])] if d["units"] else []) + list(d["leaders"])
        return (f"{p}stack {d['stack']} leaves the map in {d['location']}"
                + (f" with {', '.join(parts)}" if parts else "") + f" ({d['reason']})")
    if t == "LeaderValuesChanged":
        values = "/".join(str(d["values"].get(k, "·")) for k in ("fire", "shock", "manoeuvre", "siege"))
        was = "/".join(str(d["previous"].get(k, "·")) for k in ("fire", "shock", "manoeuvre", "siege"))
        return (f"{p}{d['leader']} ({d['stack']}): fire/shock/manoeuvre/siege {values}, was {was} "
                f"({d['reason']})")
    if t == "SiegeStarted":
        return f"{p}siege of {d['province']} begins, besieged by {', '.join(d['besiegers'])} ({d['reason']})"
    if t == "SiegeEnded":
        how = {"taken": "taken", "lifted": "lifted: the besiegers leave", "relieved": "relieved by an army"}
        return f"{p}siege of {d['province']} over, {how.get(d['outcome'], d['outcome'])} ({d['reason']})"
    fact = trade_fact(t, d)
    if fact is not None:
        return p + fact
    if t == "PhaseClosed":
        by = d.get("closed_by") or {}
        early = (f", early: every country is ready ({by['last']} last)" if by.get("by") == "all ready" else "")
        return f"Turn {d['turn']}: {TITLES.get(d['phase'], d['phase'])} phase closed{early}"
    if t in PACE:
        return pace_summary(t, d, "UTC")
    if t == "TokenIssued":
        return f"access token issued ({d.get('role')})"
    if t == "TokenRevoked":
        return "access token revoked"
    if t == "SessionOpened":
        return f"logged in on the web page (until {d['expires_at'][:16].replace('T', ' ')} UTC)"
    if t == "SessionEnded":
        return f"web page login ended ({d['reason']})"
    if t == "CampaignSettingsChanged":
        changed = ", ".join(f"{k.replace('_', ' ')}: {plain(v)}" for k, v in sorted((d.get("changed") or {}).items()))
        return f"settings changed: {changed} ({d.get('reason')})"
    if t == "VisibilityRevealed":
        return f"position {d.get('revealed')} made public"
    if t == "SheetsPublished":
        n = len(d.get("positions") or ())
        return (f"turn {d.get('turn')} sheets of {', '.join(d.get('countries') or ())} published: "
                f"{n} {'entry' if n == 1 else 'entries'} made public ({d.get('reason')})")
    return f"{p}{t}"


#: The events of a turn's pace (ledger/domain/pace.py) and a reader's bookmark: their words name times.
PACE = frozenset({"DeadlineSet", "DeadlineCleared", "ReadinessMarked", "ReminderIssued", "MarkedAsRead"})


def _before(minutes: int) -> str:
    from ledger.domain.pace import before_words

    return before_words(minutes)


def pace_summary(t: str, d: dict[str, Any], zone_name: str) -> str:
    """A deadline, a readiness, a reminder or a bookmark in words, its times in ``zone_name`` (the reader's)."""
    phase = f"the {TITLES.get(d.get('phase'), d.get('phase'))} phase of turn {d.get('turn')}"
    if t == "DeadlineSet":
        reminders = ", ".join(_before(m) for m in d.get("reminders") or ())
        moved = f" (moved from {moment_in(d['previous'], zone_name)})" if d.get("previous") else ""
        return (f"Deadline of {phase}: {moment_in(d['due'], zone_name)}{moved}"
                + (f"; reminders {reminders} before" if reminders else "")
                + (f" ({d['reason']})" if d.get("reason") else ""))
    if t == "DeadlineCleared":
        return f"Deadline of {phase} cleared (was {moment_in(d['previous'], zone_name)}; {d['reason']})"
    if t == "ReadinessMarked":
        return f"{d['country']} is {'ready' if d['ready'] else 'no longer ready'} for {phase}"
    if t == "ReminderIssued":
        late = ", ".join(d.get("not_ready") or ()) or "nobody: every country is ready"
        return (f"Reminder, {_before(d['before'])} before the deadline of {phase} "
                f"({moment_in(d['due'], zone_name)}): not ready, {late}")
    return f"Marked as read up to position {d.get('up_to')}"


def row(doc: dict[str, Any], r: Record) -> dict[str, Any]:
    """The timeline row of an event (and the stack owners the scenario declares)."""
    if r.type == "ScenarioImported":
        doc["stacks"] = {s["id"]: s["country"] for s in r.data["scenario"]["stacks"]}
    elif r.type == "StackSplit":
        doc.setdefault("stacks", {})[r.data["new_stack"]] = r.data["country"]
    doc["position"] = r.position
    ctx = r.context
    return {"position": r.position, "turn": ctx.get("turn"), "type": r.type, "summary": summary(doc, r, ctx),
            "context": ctx, "visibility": r.data.get("visibility") or {"scope": "public"}}


#: Events naming one province (``province``) or the place a stack is (``location``).
_PROVINCE = frozenset({"ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "FortressChanged",
                       "SiegeStarted", "SiegeEnded"})
_LOCATION = frozenset({"StackRaised", "StackSplit", "StacksMerged", "StackChanged", "StackDisbanded"})
#: Ruling effects that act on a place (their ``target``), as the map applies them.
#: The fields of a ruling ``summary`` and ``places`` read (map.RULING_READS says why).
RULING_READS = frozenset({"dice", "modifiers", "total", "outcome", "summary", "title", "effects"})
PLACE_EFFECTS = frozenset({"control_changed", "marker_placed", "marker_removed", "marker_flipped"})


def places(r: Record, ctx: dict[str, Any] | None = None) -> list[str]:
    """The places an event touched, each once: a move's whole path, the province a change names, where a stack
    was raised, split or changed, and a ruling's place (``context.where``) and the places its effects act on."""
    d, t = r.data, r.type
    ctx = r.context if ctx is None else ctx
    found: list[Any] = []
    if t == "StackMoved":
        found = list(d.get("path") or [d.get("origin"), d.get("destination")])
    elif t in _PROVINCE:
        found = [d.get("province")]
    elif t in _LOCATION:
        found = [d.get("location")]
    elif t == "RulingRecorded":
        found = [e.get("target") for e in (d.get("ruling") or {}).get("effects") or ()
                 if e.get("kind") in PLACE_EFFECTS]
    found.append(ctx.get("where"))
    out: list[str] = []  # each once, in order: a short list, so a list beats a dict
    for p in found:
        if isinstance(p, str) and p and p not in out:
            out.append(p)
    return out
