"""H2 Interception (his-land-movement.ru.txt §Перехват, §Процедура перехвата)."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice, RulesError, Ruling, get_ruleset

from .conftest import POWERS, formations

H2 = get_ruleset("his").get("H2")


def attempt(power="Hapsburg", from_space="Vienna", **kw):
    return {"power": power, "from_space": from_space, "formation": kw.pop("formation", {"land_units": 3}),
            "destination_control": kw.pop("destination_control", "enemy"), **kw}


def move(*attempts, moving_power="Protestant", moving_formation=None, **kw):
    return {"moving_power": moving_power, "moving_formation": moving_formation or {"land_units": 4},
            "destination": "Buda", "attempts": list(attempts) or [attempt()], **kw}


# --------------------------------------------------------------------------- modifiers

CAV_OTTOMAN = {"land_units": 4, "cavalry": 1}


@pytest.mark.parametrize(
    "case,att,ctx,expected",
    [
        ("no modifier", {}, {}, []),
        ("best of two leaders", {"formation": {"land_units": 2, "leaders": [
            {"name": "Ferdinand", "battle_rating": 1}, {"name": "Charles V", "battle_rating": 2}]}}, {},
         [(2, "best battle rating of an army leader in the formation (Charles V)")]),
        ("leader rated 0 listed as +0", {"formation": {"land_units": 1, "leaders": [
            {"name": "Ferdinand", "battle_rating": 0}]}}, {},
         [(0, "best battle rating of an army leader in the formation (Ferdinand)")]),
        ("Ottoman with cavalry", {"power": "Ottoman", "formation": {"land_units": 3, "cavalry": 1}}, {},
         [(1, "Ottoman intercepting formation with at least 1 cavalry unit")]),
        ("Ottoman without cavalry", {"power": "Ottoman", "formation": {"land_units": 3}}, {}, []),
        ("non-Ottoman against Ottoman cavalry", {}, {"moving_power": "Ottoman", "moving_formation": CAV_OTTOMAN},
         [(-1, "non-Ottoman power intercepting a formation with Ottoman cavalry")]),
        ("non-Ottoman against Ottoman without cavalry", {}, {"moving_power": "Ottoman"}, []),
        ("non-Ottoman cavalry gives nothing", {}, {"moving_formation": {"land_units": 4, "cavalry": 2}}, []),
        ("Telescope", {"telescope": True}, {}, [(1, "'Telescope' science bonus")]),
        ("all Ottoman bonuses", {"power": "Ottoman", "telescope": True, "formation": {
            "land_units": 3, "cavalry": 2, "leaders": [{"name": "Ibrahim", "battle_rating": 1}]}},
         {"moving_power": "Hapsburg"},
         [(1, "best battle rating of an army leader in the formation (Ibrahim)"),
          (1, "Ottoman intercepting formation with at least 1 cavalry unit"), (1, "'Telescope' science bonus")]),
        ("all non-Ottoman modifiers", {"telescope": True, "formation": {
            "land_units": 3, "leaders": [{"name": "Charles V", "battle_rating": 2}]}},
         {"moving_power": "Ottoman", "moving_formation": CAV_OTTOMAN},
         [(2, "best battle rating of an army leader in the formation (Charles V)"),
          (-1, "non-Ottoman power intercepting a formation with Ottoman cavalry"), (1, "'Telescope' science bonus")]),
    ],
)
def test_interception_modifiers_each_with_and_without(case, att, ctx, expected):
    r = H2.resolve(move(attempt(**att), **ctx), FixedDice([[3, 2]]))
    step = r.steps[0]
    assert [(m.value, m.reason) for m in step.modifiers] == expected, case
    assert all(m.rule == "his:H2" and "Процедура перехвата" in m.section for m in step.modifiers)
    assert step.total == 5 + sum(v for v, _ in expected)


@pytest.mark.parametrize(
    "dice,rating,success",
    [((4, 4), None, False), ((4, 5), None, True), ((1, 1), None, False), ((6, 6), None, True),
     ((3, 4), 1, False), ((3, 4), 2, True)],
)
def test_interception_succeeds_on_modified_9_or_more(dice, rating, success):
    f = {"land_units": 2, "leaders": [{"name": "Ferdinand", "battle_rating": rating}]} if rating is not None else None
    r = H2.resolve(move(attempt(**({"formation": f} if f else {}))), FixedDice([list(dice)]))
    total = sum(dice) + (rating or 0)
    assert r.steps[0].total == total
    assert r.steps[0].outcome["success"] is success
    assert r.outcome["intercepted"] is success
    assert r.steps[0].dice[0].sides == 6 and r.steps[0].dice[0].count == 2


def test_interception_with_modifiers_at_threshold_edges():
    vs_cavalry = {"moving_power": "Ottoman", "moving_formation": CAV_OTTOMAN}
    assert H2.resolve(move(attempt(), **vs_cavalry), FixedDice([[4, 5]])).steps[0].outcome["success"] is False  # 9 − 1
    assert H2.resolve(move(attempt(telescope=True)), FixedDice([[4, 4]])).steps[0].outcome["success"] is True  # 8 + 1


# --------------------------------------------------------------------------- order and first success


def test_interception_attempts_resolved_in_impulse_order():
    r = H2.resolve(move(attempt("Papacy", "Rome"), attempt("England", "Calais"), attempt("Hapsburg", "Vienna"),
                        moving_power="France"),
                   FixedDice([[1, 1], [1, 2], [2, 2]]))
    assert [s.side for s in r.steps] == ["Hapsburg", "England", "Papacy"]
    assert [s.dice[0].values for s in r.steps] == [(1, 1), (1, 2), (2, 2)]
    assert r.steps[0].dice[0].purpose == "interception: Hapsburg from Vienna"
    assert r.outcome["intercepted"] is False and r.outcome["attempted_from"] == ["Vienna", "Calais", "Rome"]


def test_interception_first_success_stops_other_powers():
    dice = FixedDice([[5, 4]])
    r = H2.resolve(move(attempt("France", "Lyon"), attempt("Hapsburg", "Vienna"), attempt("Papacy", "Rome")), dice)
    assert dice.unused == 0 and len(dice.drawn) == 1
    assert [s.outcome for s in r.steps[1:]] == [
        {"rolled": False, "success": False, "reason": "not rolled: Hapsburg already intercepted"}] * 2
    assert [s.side for s in r.steps] == ["Hapsburg", "France", "Papacy"]
    assert r.outcome["intercepting_power"] == "Hapsburg" and r.outcome["not_rolled_from"] == ["Lyon", "Rome"]
    assert [e.kind for e in r.effects] == ["interception_succeeded", "battle_forced"]
    assert r.effects[0].country == "Hapsburg" and r.effects[0].target == "Buda"
    assert r.outcome["next_step"] == 8 and r.outcome["interceptors_may_not_avoid_or_withdraw"] is True


def test_interception_successful_power_keeps_attempting_from_other_spaces():
    r = H2.resolve(move(attempt("France", "Lyon"), attempt("Hapsburg", "Vienna"), attempt("Hapsburg", "Graz")),
                   FixedDice([[6, 6], [2, 1]]))
    assert [(s.side, s.outcome["rolled"]) for s in r.steps] == [("Hapsburg", True), ("Hapsburg", True), ("France", False)]
    assert r.outcome["successful_from"] == ["Vienna"]


def test_interception_failure_lets_the_next_power_roll():
    r = H2.resolve(move(attempt("France", "Lyon"), attempt("Hapsburg", "Vienna")), FixedDice([[1, 2], [5, 5]]))
    assert [s.outcome["success"] for s in r.steps] == [False, True]
    assert r.outcome["intercepting_power"] == "France"
    assert [e.country for e in r.effects if e.kind == "interception_succeeded"] == ["France"]


def test_interception_impulse_order_can_be_overridden():
    r = H2.resolve(move(attempt("Hapsburg", "Vienna"), attempt("France", "Lyon"),
                        impulse_order=["Protestant", "France", "Hapsburg", "England", "Papacy", "Ottoman"]),
                   FixedDice([[6, 6]]))
    assert [s.side for s in r.steps] == ["France", "Hapsburg"] and r.outcome["intercepting_power"] == "France"


def test_interception_power_missing_from_impulse_order_rejected():
    with pytest.raises(RulesError) as e:
        H2.resolve(move(attempt("Hapsburg"), impulse_order=["France"]), FixedDice([]))
    assert e.value.field == "attempts[0].power" and e.value.rule == "his:H2"


# --------------------------------------------------------------------------- restrictions


@pytest.mark.parametrize(
    "att,ctx,field,message",
    [
        ({"across_pass": True}, {}, "attempts[0].across_pass", "never intercept across a mountain pass"),
        ({"at_war_with_moving_power": False}, {}, "attempts[0].at_war_with_moving_power",
         "only units of a power at war with the active power (Protestant) may intercept"),
        ({"already_attempted_this_impulse": True}, {}, "attempts[0].already_attempted_this_impulse",
         "already tried to intercept this impulse"),
        ({"besieged": True}, {}, "attempts[0].besieged", "besieged units and leaders may not intercept"),
        ({"was_besieged_by_moving_formation": True}, {}, "attempts[0].was_besieged_by_moving_formation",
         "formerly besieged formation may not intercept"),
        ({"formation_starts_in_one_space": False}, {}, "attempts[0].formation_starts_in_one_space",
         "must start in the same space"),
        ({"formation_may_move_together": False}, {}, "attempts[0].formation_may_move_together",
         "allowed to move as one formation"),
        ({"formation": {"leaders": [{"name": "Charles V", "battle_rating": 2}]}}, {},
         "attempts[0].formation.land_units", "army leaders may not intercept alone"),
        ({}, {"destination_has_land_units": True}, "attempts[0].friendly_units_in_destination",
         "only the power of those units or its ally may intercept"),
        ({"friendly_units_in_destination": True}, {}, "attempts[0].friendly_units_in_destination",
         "contradicts destination_has_land_units = false"),
        ({"destination_control": "neither"}, {}, "attempts[0].destination_control",
         "neither an enemy nor an ally"),
        ({"power": "Protestant"}, {}, "attempts[0].power", "cannot intercept its own move"),
        ({}, {"move_kind": "avoid_battle"}, "move_kind", "moves by avoid battle"),
        ({}, {"move_kind": "interception"}, "move_kind", "moves by interception"),
        ({}, {"move_kind": "retreat"}, "move_kind", "moves by retreat"),
        ({}, {"moving_into_own_unbesieged_fortified_space": True}, "moving_into_own_unbesieged_fortified_space",
         "its own fortified space that is not besieged cannot be intercepted"),
        ({"friendly_units_in_destination": True},
         {"destination_has_land_units": True, "destination_has_besieged_units": True},
         "destination_has_besieged_units", "holding besieged units"),
    ],
)
def test_interception_restriction_rejected_with_its_reason(att, ctx, field, message):
    dice = FixedDice([[6, 6]])
    with pytest.raises(RulesError) as e:
        H2.resolve(move(attempt(**att), **ctx), dice)
    assert e.value.field == field and e.value.rule == "his:H2"
    assert message in str(e.value) and str(e.value).startswith("his:H2: ")
    assert dice.drawn == []  # rejected before any die


def test_interception_second_attempt_from_the_same_space_rejected():
    with pytest.raises(RulesError) as e:
        H2.resolve(move(attempt("Hapsburg", "Vienna"), attempt("England", "Vienna")), FixedDice([[1, 1], [1, 1]]))
    assert e.value.field == "attempts[1].from_space" and "already chosen by attempt 0" in str(e.value)


def test_interception_leaders_alone_allowed_with_friendly_units_in_destination():
    solo = attempt(formation={"leaders": [{"name": "Charles V", "battle_rating": 2}]}, friendly_units_in_destination=True)
    r = H2.resolve(move(solo, destination_has_land_units=True), FixedDice([[3, 4]]))
    assert r.steps[0].total == 9 and r.outcome["intercepted"] is True


@pytest.mark.parametrize(
    "bad,loc",
    [
        ({"attempts": [attempt(formation={"land_units": 1, "cavalry": 2})]}, ("attempts", 0, "formation")),
        ({"attempts": [attempt(formation={"land_units": 0})]}, ("attempts", 0, "formation")),
        ({"attempts": [attempt(formation={"land_units": 1, "leaders": [{"name": "X", "battle_rating": -1}]})]},
         ("attempts", 0, "formation", "leaders", 0, "battle_rating")),
        ({"moving_power": "Venice"}, ("moving_power",)),
        ({"attempts": [attempt(destination_control="friendly")]}, ("attempts", 0, "destination_control")),
        ({"attempts": [attempt(weather="snow")]}, ("attempts", 0, "weather")),
        ({"attempts": []}, ("attempts",)),
    ],
)
def test_interception_impossible_inputs_rejected_by_the_model(bad, loc):
    with pytest.raises(ValidationError) as e:
        H2.resolve({**move(), **bad}, FixedDice([]))
    assert e.value.errors()[0]["loc"] == loc


# --------------------------------------------------------------------------- invariants


@st.composite
def valid_moves(draw):
    mover = draw(st.sampled_from(POWERS))
    others = [p for p in POWERS if p != mover]
    n = draw(st.integers(1, 4))
    attempts = [attempt(draw(st.sampled_from(others)), f"space{k}", formation=draw(formations(min_units=1)),
                        telescope=draw(st.booleans()), destination_control=draw(st.sampled_from(["own", "ally", "enemy"])))
                for k in range(n)]
    return move(*attempts, moving_power=mover, moving_formation=draw(formations()))


@settings(max_examples=150, deadline=None)
@given(valid_moves(), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=4, max_size=4))
def test_interception_invariants_on_valid_inputs(data, dice):
    r = H2.resolve(data, FixedDice([list(d) for d in dice]))
    winner = r.outcome["intercepting_power"]
    seen_success = False
    for s in r.steps:
        if s.outcome["rolled"]:
            assert s.total == sum(s.dice[0].values) + sum(m.value for m in s.modifiers)
            assert s.outcome["success"] is (s.total >= 9)
            assert not seen_success or s.side == winner  # after a success only the winner rolls
            seen_success |= s.outcome["success"]
        else:
            assert seen_success and s.side != winner and s.dice == ()
    assert {s.side for s in r.steps if s.outcome["success"]} <= {winner}
    assert Ruling.model_validate(r.model_dump(mode="json")) == r


def test_interception_ruling_round_trips_through_json():
    r = H2.resolve(move(attempt(telescope=True)), FixedDice([[5, 4]]))
    dumped = r.model_dump(mode="json")
    assert dumped["steps"][0]["dice"][0]["values"] == [5, 4] and dumped["outcome"]["intercepted"] is True
    assert Ruling.model_validate(dumped) == r
