"""The stored turn groups as of a head the view went past (``projections.turn_groups.as_of``), completed with the
events after the position it names, are the groups of the events up to that head: for every campaign (turns
contiguous, each event public or hidden, some without a turn) and every head."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections import turn_groups
from projections.records import Record

VISIBILITIES = [None, {"scope": "public"}, {"scope": "gm"}, {"scope": "countries", "countries": ["FRA"]}]


def campaign(draw_turns: list[tuple[int, list[int]]]) -> list[Record]:
    """Events in order: per turn (None: before the first), the visibility index of each event."""
    out, position = [], 0
    for turn, events in draw_turns:
        for v in events:
            position += 1
            data = {"context": {"turn": turn} if turn else {}, "visibility": VISIBILITIES[v]}
            out.append(Record("c", position, "MarkerPlaced", data))
    return out


def grouped(records: list[Record]) -> tuple[int, dict]:
    """(reached, groups) as ``stored`` reads them back, from the view's own handling of the records."""
    view = turn_groups.TurnGroupsView.__new__(turn_groups.TurnGroupsView)
    view.groups, view._last, view.hidden = {}, turn_groups._NO_RUN, []
    for r in records:
        view.handle(None, r)
    reached = max((last for first, last, n in view.groups.values()), default=0)
    return reached, {(turn, text): [text, first, last, n] for (_, turn, text), (first, last, n) in view.groups.items()
                     if turn != turn_groups.NO_TURN}


events = st.lists(st.integers(0, len(VISIBILITIES) - 1), min_size=1, max_size=6)
campaigns = st.tuples(st.lists(events, max_size=1), st.lists(events, min_size=1, max_size=5)).map(
    lambda t: [(None, e) for e in t[0]] + [(i + 1, e) for i, e in enumerate(t[1])])


@given(campaigns, st.data())
def test_the_groups_as_of_a_head_and_the_events_after_their_position_are_the_groups_up_to_that_head(turns, data):
    records = campaign(turns)
    head = data.draw(st.integers(0, len(records)))
    upto, groups = turn_groups.as_of(*grouped(records), head)
    assert upto <= head
    _, rest = grouped([r for r in records if upto < r.position <= head])
    for key, (vis, first, last, n) in rest.items():  # what ``Reader._turn_groups`` adds from the timeline
        found = groups.setdefault(key, [vis, first, last, 0])
        found[1], found[2], found[3] = min(found[1], first), max(found[2], last), found[3] + n
    assert groups == grouped(records[:head])[1]
