"""A place's page: its state as of a position as the caller may see it, the board's facts, and its history.

The state is the map document the turn page reads (``Reader.state_at``, already
filtered for the caller; at the head, ``Reader.map``, the same document kept at the head); the facts are the board's (``ledger/board.py``); the
history is ``Reader.place_history``: the events that touched the place
(``projections.timeline.places``: moves through or into it, control and owner
changes, markers, sieges, fortress changes, stacks raised, split or changed
there, rulings at it or acting on it), newest first, only those the caller may
see, read from the ``proj_places`` index rather than the campaign's history.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import orjson

from ledger.application import Actor, Ledger
from ledger.board import BoardError, did_you_mean, load_board
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import InvalidInput, PlaceNotFound
from ledger.i18n import gettext
from projections import words
from projections.head import Reader

#: Events of the history shown on one page.
PAGE = 25


def _facts(board: str | None, name: str) -> dict[str, Any] | None:
    """The board's printed facts of a place, with each neighbour and its border; None off the board."""
    try:
        b = load_board(board or "eu")
    except BoardError:
        return None
    if name not in b.places:
        return None
    neighbours = [{"name": n, "border": str(b.border(name, n) or "").replace("_", " ")} for n in b.neighbours(name)]
    if name in b.provinces:
        p = b.provinces[name]
        return {"kind": "province", "terrain": p.terrain.replace("_", " "), "income": p.income,
                "fortress": p.fortress, "owner": p.owner, "port": p.port, "capital": p.capital,
                "neighbours": neighbours}
    if name in b.seas:
        return {"kind": "sea zone", "neighbours": neighbours}
    r = b.rotw[name]
    kind = gettext("province of {region} (rest of the world)").format(region=r.region)
    return {"kind": kind, "terrain": r.terrain.replace("_", " "),
            "fortress": r.fortress, "neighbours": neighbours}


def place_view(ledger: Ledger, reader: Reader, cid: UUID, actor: Actor, state: CampaignState, name: str,
               at: int | None, page: int) -> dict[str, Any]:
    n = state.version if at is None else at
    if not 0 <= n <= state.version:
        raise InvalidInput(f"position {n} is not in the campaign (0..{state.version})", field="at")
    board = (ledger.scenario(cid) or {}).get("board")
    # At the head (the page's default), the map the process keeps at the head for the caller's audience: no
    # checkpoint read and fold per request.
    doc = (orjson.loads(reader.map(cid, actor, state)) if n == state.version
           else reader.state_at(cid, actor, state, n)["map"])
    places = doc.get("provinces") or {}
    facts = _facts(board, name)
    if name not in places and facts is None:
        try:
            known = set(places) | load_board(board or "eu").places
        except BoardError:
            known = set(places)
        raise PlaceNotFound(gettext("no place {name} in this campaign or on its board").format(name=repr(name))
                            + did_you_mean(name, known),
                            field="place")
    stacks = [{"id": sid, **st, "units_words": words.units(st.get("units"))}
              for sid, st in sorted((doc.get("stacks") or {}).items()) if st.get("location") == name]
    siege = (doc.get("sieges") or {}).get(name)
    count, page, history = reader.place_page(cid, actor, state, name, n, page, PAGE)
    pages = max((count + PAGE - 1) // PAGE, 1)
    return {"name": name, "at": n, "state": places.get(name), "facts": facts, "stacks": stacks, "siege": siege,
            "history": history, "page": page, "pages": pages, "events": count}
