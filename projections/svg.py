"""The map, drawn: an SVG of the board's polygons coloured by who controls each place, with the stacks.

``render(doc, record, board=...)`` is pure: ``doc`` is a map document as of a
position (``projections.replay.state_at`` or the ``Reader``'s, already filtered
for the caller), ``record`` the event at that position when the caller may see
it (its changes are highlighted: a moving stack's path, a province that changed
hands, a marker), ``board`` the ruleset whose polygons to draw (ledger/board.py:
``load_geometry``). A small scenario is drawn alone, its view box fitted to its
places; a large one (the 1492 start) is drawn on the whole European map. Places
without a polygon (the rest of the world) are listed under the map, never
dropped silently.

Polygons are in board plane coordinates with y growing northwards: y is flipped
here. Colours: a fixed colour per major power, a stable hashed hue for the
others, so one country keeps its colour from one position to the next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import escape as html_escape
from typing import Any

from ledger.i18n import _
from ledger.terms import term
from ledger.board import BoardError, load_geometry
from ledger.text import for_xml
from projections import read
from projections.records import Record
from projections.timeline import PLACE_EFFECTS


def escape(text: str) -> str:
    """Text for the map's XML: markup escaped, and a character XML cannot hold (a name in an event stored before
    the ledger refused them) shown as ``\\x01`` instead of breaking the image (``ledger.text.for_xml``)."""
    return html_escape(for_xml(text))


#: A scenario with at most this many places is drawn alone, fitted; a larger one on the whole board.
SMALL = 80
SEA = "#cfe3f0"
NEUTRAL = "#ece4d0"
HIGHLIGHT = "#ffb000"
COLOURS = {"ENG": "#d9534f", "FRA": "#4a78c2", "SPA": "#e8c547", "POR": "#5aa469", "VEN": "#2aa198",
           "TUR": "#7a9a3a", "POL": "#c06090", "RUS": "#8a5a44", "AUS": "#f2f2f2", "BUR": "#9467bd",
           "SCO": "#6c8ebf", "SWE": "#3d6bb3", "DEN": "#b8584f"}
NAVAL = frozenset({"ND", "NTD", "NGD", "NDE", "FLT"})
GEOMETRY_ERRORS = (BoardError, ModuleNotFoundError, FileNotFoundError)


def colour(country: str | None) -> str:
    if not country:
        return NEUTRAL
    if country in COLOURS:
        return COLOURS[country]
    hue = int(hashlib.sha256(country.encode()).hexdigest()[:4], 16) % 360
    return f"hsl({hue},45%,62%)"


@lru_cache(maxsize=16)
def _polygons(board: str | None) -> dict[str, Any]:
    """The board's provinces and sea zones by name (read only: shared by every picture of the board)."""
    if not board:
        board = "eu"  # a scenario without a board may still use the board's names (the older Channel sample)
    try:
        g = load_geometry(board)
    except GEOMETRY_ERRORS:
        return {}
    return {**g["provinces"], **g["seas"]}


#: The printed EU board repeats the Low Countries enlarged in a box in its north-west corner (board plane
#: x 1.2-3.6, y 8.76-10.07): a province's part lying wholly inside it is that inset copy, not where the
#: province is. No place lies only there (checked when this was written).
INSET = (1.19, 3.6, 8.75, 10.08)


def _main(multi: list[Any]) -> list[Any]:
    """The parts of a place outside the inset (all of them if none is)."""
    x0, x1, y0, y1 = INSET
    main = [poly for poly in multi if not all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in poly[0])]
    return main or list(multi)


def _centroid(multi: list[Any]) -> tuple[float, float]:
    """The area centroid of the largest outer ring (a label inside the main land mass, not between islands)."""
    best, best_area = (0.0, 0.0), -1.0
    for polygon in multi:
        ring = polygon[0]
        a = cx = cy = 0.0
        for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
            cross = x0 * y1 - x1 * y0
            a += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        if abs(a) > best_area and a:
            best_area, best = abs(a), (cx / (3 * a), cy / (3 * a))
    return best


def _changes(record: Record | None) -> tuple[list[str], set[str], str | None]:
    """What the event at the position changed: a path, the places to highlight, the stack that moved."""
    if record is None:
        return [], set(), None
    d = record.data
    if record.type == "StackMoved":
        path = list(d.get("path") or [d["origin"], d["destination"]])
        return path, {d["destination"]}, d["stack"]
    if record.type in ("ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "SiegeStarted",
                       "SiegeEnded", "FortressChanged"):
        return [], {d["province"]}, None
    if record.type == "StackSplit":
        return [], {d["location"]}, d["new_stack"]
    if record.type == "StackRaised":
        return [], {d["location"]}, d["stack"]
    if record.type in ("StacksMerged", "StackChanged", "StackDisbanded"):
        return [], {d["location"]} if d.get("location") else set(), d["stack"]
    if record.type == "RulingRecorded":
        where = (record.context or {}).get("where")
        places = {e["target"] for e in (d.get("ruling") or {}).get("effects") or ()
                  if e.get("kind") in PLACE_EFFECTS and isinstance(e.get("target"), str)}
        return [], places | ({where} if where else set()), None
    return [], set(), None


@dataclass(frozen=True)
class _Layout:
    """What a picture's geometry depends on only (the board, the places drawn, which are seas): the view box,
    each place's outline as SVG path data, each label's centre. Built once per board and scenario, not per
    picture: the outlines were most of a map's rendering time (ops/load.py's calm pass)."""

    minx: float
    maxx: float
    miny: float
    maxy: float
    k: float
    width: float
    height: float
    font: float
    outline: dict[str, str]  # name: path data, in the order the places are drawn
    centre: dict[str, tuple[float, float]]  # name: the label's point, board plane

    def pt(self, x: float, y: float) -> str:
        return f"{(x - self.minx) * self.k:.1f},{(self.maxy - y) * self.k:.1f}"


@lru_cache(maxsize=256)
def _layout(board: str | None, small: bool, names: tuple[str, ...], seas: frozenset[str]) -> _Layout:
    """``names``: the scenario's places in document order (a small scenario is fitted to them), ``seas``: those
    of them that are sea zones."""
    polygons = _polygons(board)
    # A fitted view draws the main parts only; the whole board keeps its inset, as printed.
    drawn = {n: _main(polygons[n]) for n in names if n in polygons} if small else dict(polygons)
    # Fitted to the land: sea zones reach far beyond a corner of the board (Nord touches Norway).
    land = [m for n, m in drawn.items() if n not in seas] or list(drawn.values())
    xs = [x for m in land for poly in m for x, _ in poly[0]] or [0.0, 1.0]
    ys = [y for m in land for poly in m for _, y in poly[0]] or [0.0, 1.0]
    pad = 0.45 if small else 0.05
    minx, maxx, miny, maxy = min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad
    width = 900.0 if small else 1400.0
    k = width / (maxx - minx)

    def pt(x: float, y: float) -> str:
        return f"{(x - minx) * k:.1f},{(maxy - y) * k:.1f}"

    def inside(c: tuple[float, float]) -> tuple[float, float]:
        """A label or counter kept in the view (a big sea zone's centre may lie outside it)."""
        margin = 0.12 * (maxx - minx)
        return (min(max(c[0], minx + margin), maxx - margin), min(max(c[1], miny + margin * 0.6), maxy - margin * 0.6))

    outline = {n: " ".join("M" + " L".join(pt(x, y) for x, y in ring) + " Z" for poly in m for ring in poly)
               for n, m in drawn.items()}
    centre = {n: inside(_centroid(_main(m))) for n, m in drawn.items()}
    return _Layout(minx, maxx, miny, maxy, k, width, (maxy - miny) * k, 13.0 if small else 6.0, outline, centre)


def render(doc: dict[str, Any], record: Record | None = None, *, board: str | None = None,
           title: str = "", link: Callable[[str], str] | None = None) -> str:
    """``link``: the address of a place's page, given its name; each place's shape is then a link to it (the
    web page's map), else the picture links nowhere (``map.svg``, byte-stable)."""
    places: dict[str, Any] = doc.get("provinces") or {}
    polygons = _polygons(board)
    # Without a board the names may still be the EU board's (the Channel sample before it named one): drawn
    # alone, never on a whole map the campaign does not stand on.
    small = len(places) <= SMALL or not board
    seas = frozenset(n for n, p in places.items() if (p or {}).get("kind") == "sea")
    # A whole-board picture's outlines do not depend on the scenario's names, its view box on its seas only.
    lay = _layout(board, small, tuple(places) if small else (), seas)
    drawn = lay.outline
    missing = sorted(n for n in places if n not in polygons)
    path, highlighted, moved = _changes(record)
    minx, maxx, miny, maxy, k, width, height, font = (lay.minx, lay.maxx, lay.miny, lay.maxy, lay.k, lay.width,
                                                      lay.height, lay.font)
    pt = lay.pt
    centre = lay.centre
    legend_h = 78.0 + (18.0 if missing else 0.0)
    role = "" if link else ' role="img"'  # a picture of links is not one image to assistive technology
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height + legend_h:.0f}" '
           f'width="{width:.0f}" height="{height + legend_h:.0f}" font-family="sans-serif" '
           f'data-position="{doc.get("position", 0)}"{role}>',
           "<title>" + escape(_("{title} as of position {position}").format(
               title=title or _("Map"), position=doc.get("position", 0))) + "</title>", "<defs>",
           f'<marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
           f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{HIGHLIGHT}"/></marker>']
    owners = sorted({p.get("owner") for p in places.values() if p.get("owner")})
    for owner in owners:  # hatching in the owner's colour, over a province someone else controls
        out.append(f'<pattern id="hatch-{escape(owner)}" width="8" height="8" patternUnits="userSpaceOnUse" '
                   f'patternTransform="rotate(45)"><rect width="3" height="8" fill="{colour(owner)}"/></pattern>')
    out.append("</defs>")
    if link is not None:  # a click on a marker, a siege ring or a path goes through to the place below
        out.append("<style>.markers, .siege, .moved-path { pointer-events: none }</style>")
    out.append(f'<rect width="100%" height="{height:.0f}" fill="#f7f7f2"/>')

    # Places: the scenario's first, so the whole-board background never covers them.
    for name in sorted(drawn, key=lambda n: n in places):
        p = places.get(name)
        kind = (p or {}).get("kind") or ("sea" if _is_sea(name, board) else "province")
        sea = kind == "sea"
        fill = SEA if sea else (colour(p.get("controller")) if p else "#e6e6e6")
        cls = "place" + (" changed" if name in highlighted else "") + (" off-scenario" if p is None else "")
        attrs = (f' data-name="{escape(name)}" data-kind="{kind}"'
                 + (f' data-owner="{escape(p.get("owner") or "")}" data-controller="{escape(p.get("controller") or "")}"'
                    if p and not sea else ""))
        if link is not None:
            out.append(f'<a class="place-link" href="{escape(link(name))}">')
        out.append(f'<g class="{cls}"{attrs}><title>{escape(_tooltip(name, p))}</title>')
        out.append(f'<path d="{drawn[name]}" fill="{fill}" fill-opacity="{0.35 if p is None else 1}" '
                   f'stroke="#555" stroke-width="{0.6 if small else 0.3}"/>')
        if p and not sea and p.get("owner") and p.get("owner") != p.get("controller"):
            out.append(f'<path class="owner" d="{drawn[name]}" fill="url(#hatch-{escape(p["owner"])})" '
                       f'fill-opacity="0.8" stroke="{colour(p["owner"])}" stroke-width="3"/>')
        if name in highlighted:
            out.append(f'<path class="highlight" d="{drawn[name]}" fill="none" stroke="{HIGHLIGHT}" '
                       f'stroke-width="{4 if small else 2}"/>')
        out.append("</g></a>" if link is not None else "</g>")

    for name in places:  # labels above every polygon
        if name not in centre:
            continue
        x, y = centre[name]
        p = places[name]
        out.append((f'<a class="place-link" href="{escape(link(name))}">' if link is not None else "")
                   + f'<text class="label" x="{(x - minx) * k:.1f}" y="{(maxy - y) * k - font:.1f}" '
                   f'font-size="{font:.0f}" text-anchor="middle" fill="#222">{escape(name)}'
                   + (f' <tspan font-size="{font * 0.8:.0f}">F{p["fortress"]}</tspan>' if p.get("fortress") else "")
                   + "</text>" + ("</a>" if link is not None else ""))
        if p.get("markers"):
            out.append(f'<text class="markers" x="{(x - minx) * k:.1f}" y="{(maxy - y) * k + font * 2.6:.1f}" '
                       f'font-size="{font * 0.8:.0f}" text-anchor="middle" fill="#8a1c1c">'
                       + escape(", ".join(str(term(m)) for m in p["markers"])) + "</text>")

    if len(path) > 1 and all(n in centre for n in path):
        points = " ".join(pt(*centre[n]) for n in path)
        out.append(f'<polyline class="moved-path" points="{points}" fill="none" stroke="{HIGHLIGHT}" '
                   f'stroke-width="{4 if small else 2}" stroke-dasharray="8 4" marker-end="url(#arrow)"/>')

    for place, siege in sorted((doc.get("sieges") or {}).items()):  # a besieged place: a red dashed ring
        if place not in centre:
            continue
        x, y = centre[place]
        by = ", ".join(siege.get("besiegers") or ()) or _("siegeworks")
        besieged = _("{place} besieged by {who}").format(place=place, who=by)
        out.append(f'<g class="siege" data-province="{escape(place)}"><title>{escape(besieged)}</title><circle cx="{(x - minx) * k:.1f}" cy="{(maxy - y) * k:.1f}" '
                   f'r="{font * 3.2:.1f}" fill="none" stroke="#b00020" stroke-width="{3 if small else 1.5}" '
                   f'stroke-dasharray="6 3"/><text x="{(x - minx) * k:.1f}" y="{(maxy - y) * k - font * 2.2:.1f}" '
                   f'font-size="{font * 0.8:.0f}" text-anchor="middle" fill="#b00020">' + escape(_("siege")) + "</text></g>")

    here: dict[str, int] = {}
    size = 34.0 if small else 14.0
    for sid, st in sorted((doc.get("stacks") or {}).items()):
        loc = st.get("location")
        if loc not in centre:
            continue
        i = here[loc] = here.get(loc, -1) + 1
        x, y = centre[loc]
        cx, cy = (x - minx) * k - size / 2 + i * (size + 4), (maxy - y) * k
        units = st.get("units") or {}
        strength = sum(int(v) for v in units.values() if isinstance(v, int | float))
        naval = bool(units) and set(units) <= NAVAL
        cls = "stack" + (" moved" if sid == moved else "")
        if link is not None:  # a counter opens the place it stands in
            out.append(f'<a class="place-link" href="{escape(link(loc))}">')
        out.append(f'<g class="{cls}" data-stack="{escape(sid)}" data-location="{escape(loc)}" '
                   f'data-country="{escape(st.get("country") or "")}"><title>{escape(_stack_tip(sid, st))}</title>'
                   f'<rect x="{cx:.1f}" y="{cy:.1f}" width="{size:.0f}" height="{size:.0f}" rx="{3 if naval else 1}" '
                   f'fill="{colour(st.get("country"))}" stroke="{HIGHLIGHT if sid == moved else "#111"}" '
                   f'stroke-width="{3 if sid == moved else 1}"/>'
                   f'<text x="{cx + size / 2:.1f}" y="{cy + size * 0.45:.1f}" font-size="{size * 0.3:.0f}" '
                   f'text-anchor="middle" fill="#fff">{escape(sid)}</text>'
                   f'<text class="strength" x="{cx + size / 2:.1f}" y="{cy + size * 0.85:.1f}" '
                   f'font-size="{size * 0.36:.0f}" font-weight="bold" text-anchor="middle" fill="#fff">'
                   f'{strength}{"⚓" if naval else ""}</text></g>' + ("</a>" if link is not None else ""))

    y0 = height + 18
    x0 = 10.0
    colours = _("Colour: who controls the province; hatching: its owner when another controls it; F2: fortress "
                "level 2.")
    counters = _("Counters: stacks and their strength (⚓ fleets); orange: what position {position} changed; red "
                 "dashed ring: a siege.").format(position=doc.get("position", 0))
    out.append(f'<g class="legend" font-size="12"><text x="{x0}" y="{y0}">{escape(colours)}</text>'
               f'<text x="{x0}" y="{y0 + 46}">{escape(counters)}</text>')
    for i, country in enumerate(sorted({*owners, *(p.get("controller") for p in places.values()
                                                    if p.get("controller"))})[:8]):
        out.append(f'<rect x="{x0 + i * 62}" y="{y0 + 12}" width="14" height="14" fill="{colour(country)}" '
                   f'stroke="#555"/><text x="{x0 + i * 62 + 18}" y="{y0 + 24}">{escape(country)}</text>')
    if missing:
        more = _(" and {n} more").format(n=len(missing) - 12) if len(missing) > 12 else ""
        shown = ", ".join(missing[:12]) + more
        out.append(f'<text class="not-drawn" x="{x0}" y="{y0 + 64}">'
                   + escape(_("Not drawn (no polygon on the board): {places}").format(places=shown)) + "</text>")
    out.append("</g></svg>")
    return "\n".join(out)


def picture(ledger: Any, cid: Any, actor: Any, state: Any, doc: dict[str, Any], n: int,
            link: Callable[[str], str] | None = None, shown: Record | None = None) -> str:
    """The map document ``doc`` as of position ``n`` drawn for ``actor``: the event at ``n`` is highlighted only
    when the caller may see it (a hidden move stays hidden), on the campaign's board. ``shown``: that event, when
    the caller has it already and may see it (the turn page), so it is not read again."""
    if shown is not None and shown.position == n:
        record: Record | None = shown
    else:
        [record, *_] = (read.visible_records(ledger, cid, actor, state.revealed, n - 1, n) if n else []) or [None]
    board = (ledger.scenario(cid) or {}).get("board")
    return render(doc, record, board=board, title=state.name, link=link)


def _is_sea(name: str, board: str | None) -> bool:
    try:
        return name in load_geometry(board or "eu")["seas"]
    except GEOMETRY_ERRORS:
        return False


def _tooltip(name: str, p: dict[str, Any] | None) -> str:
    if p is None:
        return _("{name} (not in this campaign)").format(name=name)
    if p.get("kind") == "sea":
        return _("{name} (sea zone)").format(name=name)
    bits = [_("owner {who}").format(who=p.get("owner") or "-"),
            _("controller {who}").format(who=p.get("controller") or "-"),
            _("fortress {level}").format(level=p.get("fortress", 0)), _("income {n}").format(n=p.get("income", 0))]
    if p.get("markers"):
        bits.append(_("markers {markers}").format(markers=", ".join(str(term(m)) for m in p["markers"])))
    return f"{name}: " + ", ".join(bits)


def _stack_tip(sid: str, st: dict[str, Any]) -> str:
    units = ", ".join(f"{n} {u}" for u, n in (st.get("units") or {}).items())
    leaders = ", ".join(st.get("leaders") or ())
    return _("{stack} ({country}) in {place}: {units}").format(stack=sid, country=st.get("country"),
                                                              place=st.get("location"), units=units) + (
        f"; {leaders}" if leaders else "")
