"""The budget view's cache computes per page only the sheets an event may change (and the later ones of that
country): whatever the events and wherever the pages end, what it has written adds up to a fresh computation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.budget_view import Cache

COUNTRIES = ["ENG", "FRA", "SPA"]
START = [["CampaignCreated", 1, {"countries": COUNTRIES, "settings": {}}],
         ["ScenarioImported", 2, {"scenario": {"countries": [{"code": c, "treasury": 100} for c in COUNTRIES]}}],
         ["TurnOpened", 3, {"turn": 1}]]

entry = st.fixed_dictionaries({
    "country": st.sampled_from(COUNTRIES + ["XXX"]), "turn": st.integers(1, 5),
    # A2/B5 add up, A15_pct: the latest stands, A8 is derived and Z9 no line (both unbooked); a negative A5
    # breaks the sheet and every later one of the country.
    "line": st.sampled_from(["A2", "A2", "B5", "A15_pct", "A8", "Z9", "A5"]), "amount": st.integers(-20, 300),
    "reason": st.just("r")})
replacement = st.one_of(st.none(), st.fixed_dictionaries({"amount": st.integers(0, 300)}),
                        st.fixed_dictionaries({"turn": st.integers(1, 5)}),
                        st.fixed_dictionaries({"country": st.sampled_from(COUNTRIES)}))
step = st.one_of(
    st.tuples(st.just("TreasuryEntryRecorded"), entry),
    st.tuples(st.just("TreasuryEntryRecorded"), entry),
    st.tuples(st.just("CorrectionRecorded"), st.tuples(st.integers(0, 200), replacement)),
    st.tuples(st.just("TurnOpened"), st.integers(2, 5)),
    st.tuples(st.just("PhaseClosed"), st.tuples(st.integers(1, 5), st.sampled_from(["E1", "E2"]))),
)


def events_of(steps):
    out, earlier = list(START), []
    for kind, data in steps:
        pos = len(out) + 1
        if kind == "CorrectionRecorded":
            if not earlier:
                continue
            target, repl = data
            data = {"corrects": earlier[target % len(earlier)], "replacement": repl}
        elif kind == "TurnOpened":
            data = {"turn": data}
        elif kind == "PhaseClosed":
            data = {"turn": data[0], "phase": data[1], "ers": {"ENG": {"A2": 5}}}
        if kind in ("TreasuryEntryRecorded", "CorrectionRecorded"):
            earlier.append(pos)
        out.append([kind, pos, data])
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=40), st.lists(st.booleans(), min_size=45, max_size=45))
def test_a_sheet_is_computed_again_when_an_event_may_change_it_so_pages_add_up_to_a_fresh_budget(steps, ends):
    events = events_of(steps)
    cache, stored = Cache(events[:3]), {}
    stored.update(cache.sheets()[0])
    for i, (kind, pos, data) in enumerate(events[3:]):
        cache.add(kind, pos, data)
        if ends[i % len(ends)]:  # a page ends here
            new, every = cache.sheets()
            stored = dict(new) if every else {**stored, **new}
    new, every = cache.sheets()
    stored = dict(new) if every else {**stored, **new}
    assert stored == Cache(events).sheets()[0]


def test_a_sheet_that_breaks_after_it_was_computed_breaks_the_next_turns_sheet_too():
    # Hypothesis found it: turn 1's sheet computed, then an entry breaks it (a negative percentage), then turn 2
    # opens. Turn 2 must say turn 1's sheet could not be computed, not be primed from turn 1's older answer.
    entry = {"country": "ENG", "turn": 1, "line": "A2", "amount": 0, "reason": "r"}
    events = START + [["TreasuryEntryRecorded", 4, entry],
                      ["TreasuryEntryRecorded", 5, {**entry, "line": "A15_pct", "amount": -1}],
                      ["TurnOpened", 6, {"turn": 2}]]
    cache = Cache(events[:4])
    cache.sheets()
    cache.add(*events[4])
    cache.sheets()
    cache.add(*events[5])
    new, _ = cache.sheets()
    fresh = Cache(events)
    assert new[("ENG", 2)] == fresh.sheets()[0][("ENG", 2)]
    assert fresh.seen[("ENG", 2)][0].error == {"message": "turn 1's sheet could not be computed", "field": None}
