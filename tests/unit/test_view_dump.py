"""A document view stores exactly ``orjson.dumps(doc)``, however it serialises its append-only logs
(``View.dump``: the victory document's stability and inflation logs are extended, not serialised again)."""

from __future__ import annotations

import copy

import orjson
from hypothesis import given, settings, strategies as st

from projections import victory
from projections.views import VictoryView

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
entry = st.fixed_dictionaries({"position": st.integers(0, 10**6), "turn": st.none() | st.integers(1, 300),
                               "country": text, "from": st.integers(-3, 3), "to": st.integers(-3, 3)})
#: What happens to the document between two serialisations: entries appended to a log, the document folded
#: again (a correction: new lists, maybe shorter), a log cut short in place, another field changed.
step = st.one_of(
    st.tuples(st.just("append"), st.sampled_from(["stability_log", "inflation_log"]), st.lists(entry, max_size=4)),
    st.tuples(st.just("refold"), st.integers(0, 5)),
    st.tuples(st.just("cut"), st.sampled_from(["stability_log", "inflation_log"]), st.integers(0, 3)),
    st.tuples(st.just("field"), text, st.integers(-10**9, 10**9)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(step, max_size=12))
def test_a_documents_stored_bytes_are_its_json_however_its_logs_grew(steps):
    view = VictoryView(None)  # dump reads no store
    doc = victory.empty()
    assert view.dump("c", doc) == orjson.dumps(doc)
    for s in steps:
        if s[0] == "append":
            doc[s[1]].extend(s[2])
        elif s[0] == "refold":
            doc = copy.deepcopy(doc)
            for key in ("stability_log", "inflation_log"):
                del doc[key][max(0, len(doc[key]) - s[1]):]
        elif s[0] == "cut":
            del doc[s[1]][s[2]:]
        else:
            doc["vp"][s[1]] = s[2]
        assert view.dump("c", doc) == orjson.dumps(doc)


def test_a_log_whose_entries_hold_quotes_backslashes_and_nul_still_serialises_as_json():
    view = VictoryView(None)
    doc = victory.empty()
    doc["stability_log"].append({"country": '"\\\0append-only stability_log\0', "from": 0, "to": 1})
    assert view.dump("c", doc) == orjson.dumps(doc)
    doc["stability_log"].append({"country": "ENG", "from": 1, "to": 2})
    assert view.dump("c", doc) == orjson.dumps(doc)
    assert orjson.loads(view.dump("c", doc))["stability_log"][1]["country"] == "ENG"
    doc["vp"]["\0append-only stability_log\0"] = 1  # the placeholder itself elsewhere: serialised whole
    assert view.dump("c", doc) == orjson.dumps(doc)
