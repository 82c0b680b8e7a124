""""Since you last looked" (issue 38, item 2): what changed for one reader since the position they marked read.

A reader marks "read up to here" (``MarkAsRead``: an event whose audience is their country and the game
masters, ledger/usecases/pacing.py); the campaign's state keeps each reader's mark (``read_marks``), so this
page starts from it without reading the history before it. It reads forward from there at most ``LIMIT``
records (a reader back after months gets the first ``LIMIT`` and a link to the next part), keeps those the
reader may see (``projections.read.visible``: ``ledger.access.can_see``, the one predicate) and says each in
the timeline's words (``projections.timeline.summary``), in order, with its kind, its turn and phase, a link to
its step on the turn page and one to each place it touched on the map. A correction says whether the reader had
seen what it corrects (before their mark). The pace of the turn (ledger/domain/pace.py: deadline, who is
ready, who is late) heads it. Times are in the reader's zone (their choice, else the campaign's).

The same catch-up is a turn report in plain text or Markdown (``text``, ``markdown``), to paste in a forum or
an e-mail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from ledger.domain import pace, sight
from ledger.domain.zones import campaign_zone, zone
from ledger.economy.milestones import TITLES
from ledger.usecases.pacing import reader_key
from projections import timeline
from projections.read import records, visible
from projections.records import Record
from projections.words import moment_in

#: The most records one catch-up reads (bounded: no open of the page reads a whole history).
LIMIT = 2000  # ~90 ms on the 2-core test machine (SQLite), markdown included
#: Bookkeeping nobody wants told: a reader's own bookmark, the access tokens, the dice commitments.
QUIET = frozenset({"MarkedAsRead", "TokenIssued", "TokenRevoked", "DiceSeedCommitted"})
#: The eu procedures that are fights (INDEX.md): battles, naval battles, sieges and assaults.
BATTLES = frozenset({"M19", "M20", "M21"})
_TURN = frozenset({"TurnOpened", "TurnClosed", "PhaseClosed", "DiceSeedRevealed", "CampaignCreated",
                   "ScenarioImported", "CampaignSettingsChanged"})
_MAP = frozenset({"ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "FortressChanged",
                  "StackRaised", "StackSplit", "StacksMerged", "StackChanged", "StackDisbanded",
                  "LeaderValuesChanged", "SiegeStarted", "SiegeEnded"})


@dataclass(frozen=True)
class Item:
    position: int
    turn: int
    phase: str
    kind: str
    words: str
    when: str
    step: str  # the turn page at this step
    places: list[tuple[str, str]]  # (place, its page as of this step)
    note: str = ""
    yours: bool = False  # it touches the reader's country (``touches``); a game master's or an observer's: all


@dataclass(frozen=True)
class CatchUp:
    campaign: str
    slug: str
    reader: str  # who it is for, in words: "ENG's player", "the game master", "an observer"
    since: int
    upto: int  # the last position read (the mark a "Mark as read up to here" records)
    head: int
    more: bool  # the history goes on past ``upto``: the next part starts there
    zone: str
    items: list[Item] = field(default_factory=list)
    pace: dict[str, Any] = field(default_factory=dict)
    mine: bool = False  # only the changes that touch the reader's country are listed
    country: str | None = None  # the reader's country (a player's)


def mark_of(state: Any, actor: Any) -> int:
    """Where this reader marked the campaign read (0: never)."""
    return int(state.read_marks.get(reader_key(actor), 0))


def reader_zone(state: Any, chosen: str | None) -> str:
    """The reader's zone: theirs when they chose one (``ValueError`` with a did-you-mean if it is not one), else
    the campaign's."""
    if chosen:
        zone(chosen)
        return chosen
    return campaign_zone(state.settings)


def _kind(r: Record, actor: Any) -> str:
    t = r.type
    if t == "StackMoved":
        return "Move"
    if t == "RulingRecorded":
        return "Battle" if r.data.get("procedure") in BATTLES else "Ruling"
    if t == "CorrectionRecorded":
        return "Correction"
    if t in ("TreasuryEntryRecorded", "IncomeConfirmed", "SheetsPublished"):
        return "Your sheet" if actor.role == "player" and r.data.get("country") == actor.country else "Sheet"
    if t in timeline.PACE:
        return "Deadline"
    if t in _TURN:
        return "Turn"
    if t in _MAP:
        return "Map"
    if t in ("WarDeclared", "PeaceMade"):
        return "Diplomacy"
    return "Other"


def _who(actor: Any) -> str:
    if actor.role == "player":
        return f"{actor.country}'s player"
    return "an observer" if actor.role == "observer" else "the game master"


#: Events every country is concerned by: the turn and its phases, deadlines, the campaign's settings.
FOR_ALL = frozenset({"TurnOpened", "TurnClosed", "PhaseClosed", "DeadlineSet", "DeadlineCleared",
                     "CampaignSettingsChanged", "SheetsPublished"})
_COUNTRY_FIELDS = ("country", "controller", "owner", "previous")
_STACK_FIELDS = ("stack", "new_stack", "merged")


def touches(r: Record, country: str, military: dict[str, Any]) -> bool:
    """Whether a change concerns ``country``: it names it (a sheet's line, a control or owner change, a war, a
    reminder naming it late), it was shown to it alone or with a few (``visibility``), it names one of its
    stacks, or it touched a place it owns or controls, as the reader's own map (``military``: ``sight.seen``)
    says today."""
    d, t = r.data, r.type
    if t in FOR_ALL:
        return True
    if any(d.get(k) == country for k in _COUNTRY_FIELDS):
        return True
    named = [*(d.get("attackers") or ()), *(d.get("defenders") or ()), *(d.get("not_ready") or ())]
    if country in named or country in ((d.get("visibility") or {}).get("countries") or ()):
        return True
    forces = military.get("forces") or {}
    stacks = [d.get(k) for k in _STACK_FIELDS] + list(d.get("besiegers") or ()) + list(
        (r.context.get("stacks") or {}).values())
    if any(isinstance(s, str) and (forces.get(s) or {}).get("country", s.split("-")[0]) == country
           for s in stacks):
        return True
    provinces = military.get("provinces") or {}
    return any(country in ((provinces.get(p) or {}).get("owner"), (provinces.get(p) or {}).get("controller"))
               for p in timeline.places(r))


def catch_up(ledger: Any, state: Any, actor: Any, *, since: int | None = None, zone_name: str | None = None,
             now: datetime | None = None, limit: int = LIMIT, mine: bool = False) -> CatchUp:
    """What changed for ``actor`` after ``since`` (default: their mark), at most ``limit`` records read; ``mine``:
    only what touches their country (a player's; for the others, every change)."""
    start = mark_of(state, actor) if since is None else since
    start = max(0, min(start, state.version))
    tz = reader_zone(state, zone_name)
    read = records(ledger, state.id, gt=start, lte=state.version, limit=limit)
    upto = read[-1].position if read else state.version
    base = f"/ui/campaigns/{quote(state.slug)}"
    country = actor.country if actor.role == "player" else None
    military = sight.seen(state, actor)[1] if country else {}
    items = []
    for r in visible(actor, read, state.revealed):
        if r.type in QUIET:
            continue
        yours = country is None or touches(r, country, military)
        if mine and not yours:
            continue
        ctx = r.context
        turn = ctx.get("turn") or 0
        words = (timeline.pace_summary(r.type, r.data, tz) if r.type in timeline.PACE
                 else timeline.summary({}, r, ctx))
        note = ""
        if r.type == "CorrectionRecorded":
            note = _corrected(ledger, state, actor, r.data["corrects"], start)
        places = [(p, f"{base}/places/{quote(p, safe='')}?at={r.position}") for p in timeline.places(r, ctx)]
        items.append(Item(position=r.position, turn=turn, phase=str(ctx.get("phase") or ""), kind=_kind(r, actor),
                          words=words, when=moment_in(r.data.get("timestamp"), tz),
                          step=f"{base}/turns/{turn}?position={r.position}", places=places, note=note,
                          yours=yours))
    return CatchUp(campaign=state.name, slug=state.slug, reader=_who(actor), since=start, upto=upto,
                   head=state.version, more=upto < state.version, zone=tz, items=items,
                   pace=pace_words(state, tz, now or datetime.now(UTC)), mine=mine and country is not None, country=country)


def _corrected(ledger: Any, state: Any, actor: Any, n: int, start: int) -> str:
    """What a correction corrects, as the reader saw it (one record read, and said only if they may see it)."""
    original = visible(actor, records(ledger, state.id, gt=n - 1, lte=n), state.revealed)
    what = f"#{n}" + (f" ({timeline.summary({}, original[0])})" if original else "")
    return f"corrects {what}, which you had seen" if n <= start else f"corrects {what}, listed above"


def pace_words(state: Any, tz: str, now: datetime) -> dict[str, Any]:
    """The turn's pace for the table, in words, times in ``tz``."""
    s = pace.status(state, now)
    if s["phase"] is None:
        return {"line": "No turn is open." if not state.turn_open else f"Every phase of turn {state.turn} is closed.",
                "rows": []}
    title = TITLES.get(s["phase"], s["phase"])
    d = s["deadline"]
    if d is None:
        due = "no deadline"
    else:
        left = pace.utc(d["due"]) - now
        hours = int(abs(left.total_seconds()) // 3600)
        span = f"{hours // 24} d {hours % 24} h" if hours >= 24 else f"{hours} h {int(abs(left.total_seconds()) // 60) % 60} min"
        due = f"due {moment_in(d['due'], tz)} ({'in ' + span if left.total_seconds() > 0 else span + ' ago'})"
    rows = [("Ready", ", ".join(s["ready"]) or "nobody yet"), ("Not ready", ", ".join(s["not_ready"]) or "nobody")]
    if s["overdue"]:
        rows.append(("Late", ", ".join(s["late"]) or "nobody"))
    if s["close_when_all_ready"]:
        rows.append(("Closes early", "when every country is ready"))
    return {"line": f"Turn {state.turn}, {title} phase: {due}.", "rows": rows, "late": s["late"]}


# ------------------------------------------------------------------ the turn report


def _heading(c: CatchUp) -> str:
    span = f"positions {c.since + 1}–{c.upto}" if c.upto > c.since else "nothing new"
    only = ", only what touches your country" if c.mine else ""
    return f"{c.campaign}: since you last looked ({c.reader}, {span}{only}; times in {c.zone})"


def text(c: CatchUp, origin: str = "") -> str:
    """The catch-up as plain text: one line per change, its links below it (``origin``: the site's address)."""
    out = [_heading(c), "", c.pace["line"]]
    out += [f"  {k}: {v}" for k, v in c.pace["rows"]]
    out.append("")
    if not c.items:
        out.append("Nothing new for you.")
    for i in c.items:
        where = f"turn {i.turn}" + (f", {i.phase}" if i.phase else "")
        you = f" ({c.country})" if c.country and i.yours and not c.mine else ""
        out.append(f"#{i.position} ({where}; {i.when}) {i.kind}{you}: {i.words}" + (f" [{i.note}]" if i.note else ""))
        out.append(f"    step: {origin}{i.step}")
        out += [f"    {p}: {origin}{url}" for p, url in i.places]
    if c.more:
        out += ["", f"More after #{c.upto}: mark as read up to {c.upto} for the next part."]
    return "\n".join(out) + "\n"


def _md(s: str) -> str:
    """Markdown's special characters in a text of the ledger, escaped (a reason may hold any)."""
    return "".join("\\" + ch if ch in "\\`*_[]<>#|" else ch for ch in s)


def markdown(c: CatchUp, origin: str = "") -> str:
    """The catch-up as Markdown: a heading, the pace as a table, one list item per change with its links."""
    out = [f"## {_md(_heading(c))}", "", _md(c.pace["line"]), ""]
    if c.pace["rows"]:
        out += ["| | |", "|---|---|", *(f"| {k} | {_md(v)} |" for k, v in c.pace["rows"]), ""]
    if not c.items:
        out.append("Nothing new for you.")
    for i in c.items:
        where = f"turn {i.turn}" + (f", {i.phase}" if i.phase else "")
        links = [f"[step]({origin}{i.step})", *(f"[{_md(p)}]({origin}{url})" for p, url in i.places)]
        note = f" *({_md(i.note)})*" if i.note else ""
        you = f" ({c.country})" if c.country and i.yours and not c.mine else ""
        out.append(f"- **#{i.position}** {_md(where)}, {_md(i.when)}. **{i.kind}**{you}: {_md(i.words)}{note} "
                   f"— {' · '.join(links)}")
    if c.more:
        out += ["", f"More after #{c.upto}: mark as read up to {c.upto} for the next part."]
    return "\n".join(out) + "\n"
