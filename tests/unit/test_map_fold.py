"""The map view's stack events (projections/map.py) as pure bookkeeping: a split and the merge back leave the
stack as it was, whatever part of it left; a leader's arrival and departure carry their turn (I3)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections import map as map_model
from projections.records import Record

UNITS = ("LD", "CAV", "ART")


def doc_with(units: dict[str, int], leaders: list[str]) -> dict:
    doc = map_model.empty()
    doc["stacks"]["ENG-1"] = {"country": "ENG", "location": "Picardie", "units": dict(units), "leaders": list(leaders)}
    for name in leaders:
        doc["leaders"][name] = {"country": "ENG", "kind": "general", "stack": "ENG-1", "status": "active",
                                "values": {}}
    return doc


def record(position: int, kind: str, **data) -> Record:
    return Record(campaign="c", position=position, type=kind, data={**data, "context": {}})


@st.composite
def a_stack_and_a_split(draw):
    units = draw(st.dictionaries(st.sampled_from(UNITS), st.integers(1, 20), min_size=1))
    leaders = draw(st.lists(st.sampled_from(["Talbot", "Howard", "Percy"]), unique=True, max_size=3))
    taken = {u: draw(st.integers(0, n)) for u, n in units.items()}
    going = draw(st.lists(st.sampled_from(leaders), unique=True)) if leaders else []
    return units, leaders, {u: n for u, n in taken.items() if n}, going


@given(a_stack_and_a_split())
def test_a_split_then_the_merge_back_leaves_the_stack_as_it_was(case):
    units, leaders, taken, going = case
    doc = doc_with(units, leaders)
    map_model.apply(doc, record(2, "StackSplit", stack="ENG-1", new_stack="ENG-2", country="ENG",
                                location="Picardie", units=taken, leaders=going, reason="split"))
    assert doc["stacks"]["ENG-2"]["units"] == taken and doc["stacks"]["ENG-2"]["location"] == "Picardie"
    assert all(doc["leaders"][name]["stack"] == "ENG-2" for name in going)
    map_model.apply(doc, record(3, "StacksMerged", stack="ENG-1", merged="ENG-2", location="Picardie",
                                units=taken, leaders=going, reason="merge"))
    assert "ENG-2" not in doc["stacks"]
    assert {u: n for u, n in doc["stacks"]["ENG-1"]["units"].items() if n} == units
    assert sorted(doc["stacks"]["ENG-1"]["leaders"]) == sorted(leaders)
    assert all(doc["leaders"][name]["stack"] == "ENG-1" for name in leaders)


def test_a_leader_arrives_and_departs_by_turn():
    doc = doc_with({"LD": 6}, ["Talbot"])
    map_model.apply(doc, record(2, "StackChanged", stack="ENG-1", units={"LD": -2}, turn=3, reason="turn 3",
                                arrived=[{"name": "Howard", "kind": "general", "fire": 1, "shock": 2, "manoeuvre": 3,
                                          "siege": 0, "departs": 6}], departed=["Talbot"]))
    assert doc["stacks"]["ENG-1"] == {"country": "ENG", "location": "Picardie", "units": {"LD": 4},
                                      "leaders": ["Howard"]}
    assert doc["leaders"]["Howard"]["arrived"] == 3 and doc["leaders"]["Howard"]["departs"] == 6
    assert (doc["leaders"]["Talbot"]["status"], doc["leaders"]["Talbot"]["departed"]) == ("departed", 3)


def test_a_siege_started_and_ended_by_the_game_master_is_on_the_map_in_between():
    doc = doc_with({"LD": 6}, [])
    map_model.apply(doc, record(2, "SiegeStarted", province="Picardie", besiegers=["ENG-1"], reason="siege"))
    assert doc["sieges"]["Picardie"] == {"since": 2, "besiegers": ["ENG-1"]}
    map_model.apply(doc, record(3, "SiegeEnded", province="Picardie", outcome="lifted", reason="winter"))
    assert doc["sieges"] == {}


def test_plain_sum_is_the_exact_sum_made_plain():
    """``records.plain_sum`` adds whole numbers as ints: the same answers as ``plain(num(a) ± num(b))``."""
    from projections.records import num, plain, plain_sum

    values = [0, 3, -2, 7, "2", "1/3", "-5/2", None, True, 10]
    for a in values:
        for b in values:
            assert plain_sum(a, b) == plain(num(a) + num(b))
            assert plain_sum(a, b, minus=True, floor=0) == plain(max(num(a) - num(b), num(0)))
            assert plain_sum(a, b, floor=0) == plain(max(num(a) + num(b), num(0)))
            assert type(plain_sum(a, b)) is type(plain(num(a) + num(b)))


_AMOUNT_TEXTS = st.one_of(
    st.integers(-50, 50).map(str),
    st.tuples(st.integers(-50, 50), st.integers(1, 12)).map(lambda t: f"{t[0]}/{t[1]}"),
    st.sampled_from(["007", "-0", "0/5", "4/2", " 2", "+3", "1.5", "٣", "1/-2"]),
)


@given(a=st.one_of(st.integers(-50, 50), _AMOUNT_TEXTS), b=st.one_of(st.integers(-50, 50), _AMOUNT_TEXTS, st.none()),
       minus=st.booleans(), floor=st.sampled_from([None, 0]))
def test_units_and_points_add_exactly_whatever_texts_a_ruling_states_its_amounts_in(a, b, minus, floor):
    """Rulings state amounts as texts ("1", "1/2"): ``plain_sum`` reads the plain ones without a ``Fraction``
    and gives exactly ``plain(num(a) ± num(b))`` floored, for every text ``Fraction`` reads or refuses."""
    from projections.records import num, plain, plain_sum

    try:
        exact = num(a) - num(b) if minus else num(a) + num(b)
        expected = plain(exact if floor is None else max(exact, num(floor)))
    except (ValueError, ZeroDivisionError) as refused:
        try:
            plain_sum(a, b, minus=minus, floor=floor)
        except type(refused):
            return
        raise AssertionError(f"{a!r}, {b!r}: Fraction refuses them, plain_sum did not")
    got = plain_sum(a, b, minus=minus, floor=floor)
    assert got == expected and type(got) is type(expected)
