"""A ruling's effects on the provinces (markers placed, removed, flipped; control changed), placed on their
target or on ``context.where``, are followed by the write side's forces model exactly as by the map view."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.domain import forces as forcelib
from ledger.scenario import load_text, normalise, parse
from projections import map as map_model
from projections.records import Record


class ScenarioImported(SimpleNamespace):
    """Stands for the event of that name (the fold reads the type's name and the fields)."""


class RulingRecorded(SimpleNamespace):
    pass


SCENARIO = normalise(parse(load_text("sample"))[0])

effect = st.fixed_dictionaries({
    "kind": st.sampled_from(("marker_placed", "marker_removed", "marker_flipped", "control_changed")),
    "target": st.sampled_from((None, "Kent", "Picardie", "Manche", "defender", "Nowhere")),
    "marker": st.sampled_from((None, "Revolt", "Revolt+", "Pillage+", "Pillage-")),
    "country": st.sampled_from((None, "ENG", "FRA")),
    "detail": st.sampled_from(({}, {"to_marker": "Pillage-"})),
})
ruling = st.tuples(st.sampled_from((None, "Caux", "Kent", "Manche", "Atlantis")), st.lists(effect, max_size=4))


@settings(max_examples=150, deadline=None)
@given(rulings=st.lists(ruling, max_size=8))
def test_a_rulings_markers_and_control_change_the_write_side_as_the_map_view(rulings):
    m = forcelib.apply(forcelib.empty(), ScenarioImported(scenario=SCENARIO, originator_version=2))
    doc = map_model.empty()
    map_model.apply(doc, Record("c", 2, "ScenarioImported", {"scenario": SCENARIO}))
    for i, (where, effects) in enumerate(rulings, start=3):
        context = {"where": where} if where else {}
        event = RulingRecorded(context=context, ruling={"effects": effects}, originator_version=i)
        m = forcelib.apply(m, event)
        map_model.apply(doc, Record("c", i, "RulingRecorded", {"context": context, "procedure": "X",
                                                               "ruling": {"effects": effects}}))
    for name, p in m["provinces"].items():
        shown = doc["provinces"][name]
        assert p["markers"] == shown["markers"], name
        if "income" in p:
            assert p["controller"] == shown["controller"], name
            changed = p["at"].get("controller")
            assert changed is None or 3 <= changed < 3 + len(rulings)
