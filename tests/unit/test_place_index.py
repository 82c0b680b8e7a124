"""The places an event touched (projections.timeline.places), which the proj_places index stores for a place's
history: a move's whole path, the province a change names, where a stack was raised or split, a ruling's place and
the places its effects act on; each once, never a non-name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections.records import Record
from projections.timeline import places

NAMES = st.sampled_from(["Picardie", "Caux", "Normandie", "Manche", "Kent", "Artois"])


def rec(kind: str, **data) -> Record:
    return Record(campaign="c", position=1, type=kind, data=data)


@given(path=st.lists(NAMES, min_size=2, max_size=8))
def test_a_move_touches_every_place_of_its_path_once(path):
    got = places(rec("StackMoved", stack="ENG-1", origin=path[0], destination=path[-1], path=path))
    assert got == list(dict.fromkeys(path))


def test_a_move_recorded_before_the_board_touches_its_origin_and_destination():
    assert places(rec("StackMoved", stack="ENG-1", origin="Kent", destination="Manche")) == ["Kent", "Manche"]


def test_a_control_change_a_marker_a_siege_and_a_fortress_touch_their_province():
    for kind in ("ControlChanged", "OwnerChanged", "MarkerPlaced", "MarkerRemoved", "FortressChanged",
                 "SiegeStarted", "SiegeEnded"):
        assert places(rec(kind, province="Picardie")) == ["Picardie"], kind


def test_a_stack_raised_or_split_touches_where_it_stands():
    assert places(rec("StackRaised", stack="FRA-2", location="Caux")) == ["Caux"]
    assert places(rec("StackSplit", stack="FRA-1", new_stack="FRA-2", location="Caux")) == ["Caux"]


def test_a_ruling_touches_its_place_and_the_places_its_effects_act_on_not_its_stacks_or_leaders():
    ruling = {"effects": [{"kind": "control_changed", "target": "Artois"},
                          {"kind": "losses", "target": "FRA-1"}, {"kind": "leader_killed", "target": "Talbot"}]}
    got = places(rec("RulingRecorded", procedure="M19", ruling=ruling, context={"where": "Picardie"}))
    assert got == ["Artois", "Picardie"]


def test_an_event_with_no_place_touches_none():
    assert places(rec("TurnOpened", turn=1, context={"turn": 1})) == []
    assert places(rec("ControlChanged", province=None)) == []
