"""The map keeps the game (issue 37, item 3), on both stores: a stack a ruling destroys (its
``stack_destroyed`` effect, rule M19 "a side whose losses take every LD it had is destroyed") leaves the map
on the write side (``CampaignState.stacks`` and ``.military``) as on the map view, and comes back when a
correction of the ruling no longer destroys it; a disbanded stack leaves the map and a correction striking
the disbanding puts it back where it was; a leader's printed values are given without a departure.

The sample campaign: after its first turn ENG-1 (Talbot) stands in Picardie, FRA-1 (La Trémoille) in
Normandie."""

from __future__ import annotations

import pytest

from ledger.domain import commands as cmd
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.sample import GM, reach_phase
from projections import corrections
from projections import map as map_model
from projections.read import records
from projections.timeline import summary
from tests.integration.test_board_rulings import BATTLE, IN_PICARDIE
from tests.integration.test_projections import sample


@pytest.fixture
def cid(ledger):
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")  # battles and moves are the military phase's
    return cid


def the_map(ledger, cid):
    """The map view folded from the history, corrections applied as the view applies them."""
    doc = map_model.empty()
    for r in records(ledger, cid):
        doc, _ = corrections.apply(map_model, doc, r, lambda n: records(ledger, cid, lte=n))
    return doc


def both_sides_agree(ledger, cid):
    state = ledger.campaign(cid)
    doc = the_map(ledger, cid)
    assert set(state.military["forces"]) == set(doc["stacks"]) == set(state.stacks)
    for sid, (at, *_) in state.stacks.items():
        assert doc["stacks"][sid]["location"] == at
    return state, doc


def correct(ledger, cid, position, replacement):
    return ledger.handle(cid, cmd.RecordCorrection(corrects=position, reason="disputed", replacement=replacement),
                         actor=GM)


def test_m19_a_side_destroyed_by_a_battle_leaves_the_map_and_a_correction_of_the_battle_brings_it_back(
        ledger, cid):
    battle = ledger.record_ruling(cid, procedure="M19", inputs=BATTLE, context=IN_PICARDIE, actor=GM)
    at = battle.events[0]["position"]
    eng = ledger.campaign(cid).military["forces"]["ENG-1"]["units"]["LD"]
    # The game master restates the battle: the attacker lost every LD and was destroyed.
    correct(ledger, cid, at, {"effects": [{"kind": "ld_lost", "target": "attacker", "amount": eng},
                                          {"kind": "stack_destroyed", "target": "attacker"}]})
    state, doc = both_sides_agree(ledger, cid)
    assert "ENG-1" not in state.stacks and "ENG-1" not in doc["stacks"]
    assert doc["leaders"]["Talbot"]["stack"] is None and doc["leaders"]["Talbot"]["status"] == "stack destroyed"
    before = ledger.campaign(cid).version
    with pytest.raises(StateConflict) as info:
        ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Picardie", destination="Artois"), actor=GM)
    assert info.value.field == "stack" and "no longer on the map" in info.value.message
    assert ledger.campaign(cid).version == before
    # Corrected again: the attacker lost 1 LD and stood; it is back where it fought.
    correct(ledger, cid, at, {"effects": [{"kind": "ld_lost", "target": "attacker", "amount": 1}]})
    state, doc = both_sides_agree(ledger, cid)
    assert state.stacks["ENG-1"][0] == "Picardie"
    assert doc["stacks"]["ENG-1"]["units"]["LD"] == eng - 1 and doc["stacks"]["ENG-1"]["leaders"] == ["Talbot"]
    assert state.military["forces"]["ENG-1"]["leaders"][0]["name"] == "Talbot"


def test_a_ruling_destroying_a_stack_says_so_in_words(ledger, cid):
    battle = ledger.record_ruling(cid, procedure="M19", inputs=BATTLE, context=IN_PICARDIE, actor=GM)
    at = battle.events[0]["position"]
    correct(ledger, cid, at, {"effects": [{"kind": "stack_destroyed", "target": "defender"}]})
    [r] = [r for r in records(ledger, cid) if r.position == at]
    fixed = corrections.corrected(r, {"ruling": {"effects": [{"kind": "stack_destroyed", "target": "defender"}]}})
    assert "stack FRA-1 destroyed: off the map" in summary({}, fixed)
    assert "FRA-1" not in the_map(ledger, cid)["stacks"]


def test_a_disbanded_stack_leaves_the_map_and_a_correction_striking_it_puts_it_back(ledger, cid):
    done = ledger.handle(cid, cmd.DisbandStack(stack="FRA-1", reason="paid off"), actor=GM)
    state, doc = both_sides_agree(ledger, cid)
    assert "FRA-1" not in state.stacks and doc["leaders"]["La Trémoille"]["status"] == "stack disbanded"
    [r] = [r for r in records(ledger, cid) if r.position == done.events[0]["position"]]
    assert summary({}, r).endswith("stack FRA-1 leaves the map in Normandie with 5 LD, La Trémoille (paid off)")
    with pytest.raises(StateConflict):  # gone: not disbanded twice
        ledger.handle(cid, cmd.DisbandStack(stack="FRA-1", reason="again"), actor=GM)
    correct(ledger, cid, done.events[0]["position"], None)
    state, doc = both_sides_agree(ledger, cid)
    assert state.stacks["FRA-1"][0] == "Normandie" and doc["stacks"]["FRA-1"]["units"] == {"LD": 5}
    # It moves again from where it stood.
    ledger.handle(cid, cmd.MoveStack(stack="FRA-1", origin="Normandie", destination="Caux"), actor=GM)


def test_a_leaders_values_are_given_without_a_departure_and_a_battle_reads_them(ledger, cid):
    ledger.handle(cid, cmd.RaiseStack(stack="ENG-9", country="ENG", location="Kent", units={"LD": 2},
                                      leaders=[cmd.ArrivingLeader(name="La Palice")]), actor=GM)
    done = ledger.handle(cid, cmd.SetLeaderValues(leader="La Palice", values=cmd.LeaderValues(
        fire=1, shock=2, manoeuvre=3, siege=0), reason="raised without his values"), actor=GM)
    assert done.data["previous"] == {"fire": 0, "shock": 0, "manoeuvre": 0, "siege": 0}
    state, doc = both_sides_agree(ledger, cid)
    [palice] = state.military["forces"]["ENG-9"]["leaders"]
    assert (palice["fire"], palice["shock"], palice["manoeuvre"]) == (1, 2, 3)
    assert doc["leaders"]["La Palice"]["values"] == {"fire": 1, "shock": 2, "manoeuvre": 3, "siege": 0}
    assert doc["leaders"]["La Palice"]["status"] == "active" and doc["stacks"]["ENG-9"]["leaders"] == ["La Palice"]
    # Corrected: his manoeuvre is 4 (the other values as the correction leaves them).
    correct(ledger, cid, done.events[0]["position"], {"values": {"manoeuvre": 4}})
    state, doc = both_sides_agree(ledger, cid)
    assert state.military["forces"]["ENG-9"]["leaders"][0]["manoeuvre"] == 4
    assert doc["leaders"]["La Palice"]["values"]["manoeuvre"] == 4


def test_a_leader_not_on_the_map_is_named_with_a_suggestion(ledger, cid):
    with pytest.raises(InvalidInput) as info:
        ledger.handle(cid, cmd.SetLeaderValues(leader="Talbott", values=cmd.LeaderValues(fire=3)), actor=GM)
    assert info.value.field == "leader" and "Talbot" in info.value.message
