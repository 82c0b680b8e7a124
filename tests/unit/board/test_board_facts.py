"""The board's checks of a ruling's inputs, as properties over every typed value (no database): an input is
reported iff it differs from what the board or the map says, and what the board fills is never reported."""

from __future__ import annotations

from uuid import uuid4

from hypothesis import given
from hypothesis import strategies as st

from ledger.board_facts import At, compare
from ledger.domain.campaign import CampaignState

def military(units, leaders=None, fortresses=None, wars=(((("ENG",), ("FRA",))),)):
    """CampaignState.military (ledger/domain/forces.py) holding these English stacks, England at war with France
    (a siege of French Picardie needs it: DECISIONS.md "M14/M15/M19/M20/M21 — the sides must be at war")."""
    return {"forces": {sid: {"country": "ENG", "units": u, "leaders": (leaders or {}).get(sid, [])}
                       for sid, u in units.items()}, "wars": [[list(a), list(d)] for a, d in wars], "sieges": {},
            "fortresses": fortresses or {}}


TALBOT = {"name": "Talbot", "kind": "general", "fire": 2, "shock": 3, "manoeuvre": 3, "siege": 1}


def at(inputs, ld=6, leaders=(TALBOT,), fortress=None):
    state = CampaignState(id=uuid4(), settings={"board": "eu"}, stacks={"ENG-1": ["Picardie", 0, None]},
                          military=military({"ENG-1": {"LD": ld}}, {"ENG-1": list(leaders)}, fortress))
    return At.of(state, None, {"where": "Picardie", "stacks": {"besieger": "ENG-1"}}, inputs)


@given(fortress_level=st.integers(0, 5), besieger_ld=st.integers(0, 60), port=st.booleans(),
       siege=st.integers(0, 5), ld=st.integers(0, 60))
def test_a_siege_input_is_reported_exactly_when_it_differs_from_the_board_or_the_map(
        fortress_level, besieger_ld, port, siege, ld):
    typed = {"action": "undermine", "fortress_level": fortress_level, "besieger_ld": besieger_ld, "port": port,
             "besieger_leader_siege": siege}
    found, inputs, filled = compare(at(typed, ld=ld), "eu", "M21")
    board = {"fortress_level": 2, "besieger_ld": ld, "port": True, "besieger_leader_siege": 1}
    assert {f["field"] for f in found} == {k for k, v in board.items() if typed[k] != v}
    assert all(f["board"] == board[f["field"]] and f["typed"] == typed[f["field"]] for f in found)
    assert set(filled) == {"map_level", "clear_terrain", "besieger_leader_fire", "besieger_leader_shock"}
    assert {k: inputs[k] for k in typed} == typed  # a typed value is never replaced


@given(ld=st.integers(0, 60), level=st.integers(0, 5))
def test_what_the_board_fills_agrees_with_the_board(ld, level):
    _, inputs, filled = compare(at({"action": "undermine"}, ld=ld, fortress={"Picardie": level}), "eu", "M21")
    assert filled["fortress_level"] == level and filled["besieger_ld"] == ld
    again, _, refilled = compare(at(inputs, ld=ld, fortress={"Picardie": level}), "eu", "M21")
    assert again == [] and refilled == {}


def test_two_generals_in_a_stack_leave_the_commanders_values_to_the_game_master():
    second = {**TALBOT, "name": "Shrewsbury", "siege": 3}
    found, _, filled = compare(at({"action": "undermine", "besieger_leader_siege": 2}, leaders=(TALBOT, second)),
                               "eu", "M21")
    assert found == [] and not any(k.startswith("besieger_leader") for k in filled)


def test_a_stack_with_armies_leaves_its_ld_equivalents_to_the_game_master():
    state = at({"action": "undermine", "besieger_ld": 9})
    state.forces["ENG-1"]["units"]["ARM"] = 1
    found, _, filled = compare(state, "eu", "M21")
    assert "besieger_ld" not in {f["field"] for f in found} | set(filled)


def test_any_forest_fits_the_boards_dense_forest_and_a_forest_is_never_filled():
    def battle(**kw):
        state = CampaignState(id=uuid4(), settings={"board": "eu"})
        return compare(At.of(state, None, {"where": "Normandie"}, kw), "eu", "M19")

    assert battle(terrain="eastern_forest")[0] == [] and battle(terrain="northern_forest")[0] == []
    [found] = battle(terrain="swamp")[0]
    assert (found["field"], found["typed"], found["board"]) == ("terrain", "swamp", "dense_forest")
    assert "terrain" not in battle()[2]


def test_an_intercepting_side_of_two_stacks_counts_the_ld_of_both():
    state = CampaignState(id=uuid4(), settings={"board": "eu"},
                          stacks={"FRA-1": ["Caux", 0, None], "FRA-2": ["Caux", 0, None]},
                          military=military({"FRA-1": {"LD": 5}, "FRA-2": {"LD": 4}}))
    roles = {"interceptor": "FRA-1", "interceptor 2": "FRA-2"}
    found, _, _ = compare(At.of(state, None, {"where": "Picardie", "stacks": roles}, {"side_ld": 5}), "eu", "M14")
    [side] = [f for f in found if f["field"] == "side_ld"]
    assert side["board"] == 9 and side["said"] == "FRA-1 and FRA-2 have 9 LD"


def test_a_crossing_is_filled_from_a_neighbouring_attacker_and_only_checked_after_a_move_into_the_battle():
    def battle(stacks, **typed):
        state = CampaignState(id=uuid4(), settings={"board": "eu"}, stacks=stacks,
                              military=military({"FRA-1": {"LD": 5}}))
        return compare(At.of(state, None, {"where": "Caux", "stacks": {"attacker": "FRA-1"}}, typed), "eu", "M19")

    # In Normandie, across the Seine from Caux: the crossing is now, a river.
    assert battle({"FRA-1": ["Normandie", 0, None]})[2]["crossing"] == "river_or_pass"
    # Moved from Normandie into Caux at some earlier position: maybe not this battle's crossing.
    moved = {"FRA-1": ["Caux", 40, "Normandie"]}
    assert "crossing" not in battle(moved)[2]
    [found] = battle(moved, crossing="none")[0]
    assert (found["field"], found["board"]) == ("crossing", "river_or_pass")


def test_m21_a_siege_without_a_war_between_the_besieger_and_the_provinces_holder_is_reported():
    state = CampaignState(id=uuid4(), settings={"board": "eu"}, stacks={"ENG-1": ["Champagne", 0, None]},
                          military=military({"ENG-1": {"LD": 6}}, wars=()))
    found, _, _ = compare(At.of(state, None, {"where": "Champagne", "stacks": {"besieger": "ENG-1"}},
                                {"action": "undermine"}), "eu", "M21")
    [war] = found
    assert (war["field"], war["path"], war["typed"], war["board"]) == ("war", "context.stacks.besieger",
                                                                       "ENG against FRA", "not at war")
    assert "no war between ENG and FRA is declared on the map (wars in progress: none)" in war["message"]
    at_war = CampaignState(id=uuid4(), settings={"board": "eu"}, stacks=state.stacks,
                           military=military({"ENG-1": {"LD": 6}}, wars=((("FRA",), ("ENG", "SAV")),)))
    assert compare(At.of(at_war, None, {"where": "Champagne", "stacks": {"besieger": "ENG-1"}},
                         {"action": "undermine"}), "eu", "M21")[0] == []


@given(attacker=st.sampled_from(["ENG", "FRA", "SAV"]), defender=st.sampled_from(["ENG", "FRA", "SAV"]),
       wars=st.lists(st.tuples(st.sets(st.sampled_from(["ENG", "FRA", "SAV"]), min_size=1, max_size=2),
                               st.sets(st.sampled_from(["ENG", "FRA", "SAV"]), min_size=1, max_size=2)), max_size=2))
def test_m19_a_battle_is_reported_exactly_when_its_sides_are_on_no_two_sides_of_a_war(attacker, defender, wars):
    forces = {"A-1": {"country": attacker, "units": {"LD": 3}, "leaders": []},
              "D-1": {"country": defender, "units": {"LD": 3}, "leaders": []}}
    state = CampaignState(id=uuid4(), settings={"board": "eu"},
                          stacks={"A-1": ["Caux", 0, None], "D-1": ["Caux", 0, None]},
                          military={"forces": forces, "wars": [[sorted(a), sorted(d)] for a, d in wars],
                                    "sieges": {}, "fortresses": {}})
    found, _, _ = compare(At.of(state, None, {"where": "Caux", "stacks": {"attacker": "A-1", "defender": "D-1"}},
                                {}), "eu", "M19")
    at_war = any((attacker in a and defender in d) or (attacker in d and defender in a) for a, d in wars)
    assert ("war" in {f["field"] for f in found}) == (not at_war)
