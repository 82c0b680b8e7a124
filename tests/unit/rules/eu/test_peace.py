"""Peace phase P3–P6 (eu-redeployment-peace-interphase.tex §The Formal Peace, §Peace with Minor powers)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ledger.rules.core import FixedDice
from ledger.rules.eu import EU
from ledger.rules.eu import peace as p

# --------------------------------------------------------------------------- P3


@pytest.mark.parametrize(
    "stabs,expected",
    [([2], 2), ([1, 2], 1), ([2, 3], 2), ([-1, -2], -2), ([1, 2, 2], 2), ([0, 1, 1, 1], 1), ([-3, 3], 0),
     ([1, 1, 2], 1), ([-1, 0], -1)],
)
def test_alliance_stability_is_the_average_rounded_to_nearest_halves_down(stabs, expected):
    assert p.alliance_stability(stabs) == expected


@pytest.mark.parametrize("diff,bonus", [(Fraction(0), 0), (Fraction(3, 2), 0), (Fraction(2), 1), (Fraction(7, 2), 1),
                                        (Fraction(4), 2), (Fraction(11, 2), 2), (Fraction(6), 3), (Fraction(12), 3),
                                        (Fraction(-5), 0)])
def test_military_situation_bonus_at_2_4_6_more_provinces(diff, bonus):
    assert p.military_bonus(diff) == bonus


@pytest.mark.parametrize(
    "side,overseas,count",
    [
        ({"provinces_held": 3}, False, Fraction(3)),
        ({"capitals_held": 1}, False, Fraction(2)),
        ({"settlements_held": 3}, False, Fraction(3, 2)),
        ({"settlements_held": 3}, True, Fraction(3)),
        ({"privateer_fleets": 1, "privateer_fleets_in_enemy_ctz": 1}, True, Fraction(3)),
        ({"privateer_fleets": 1, "privateer_fleets_in_enemy_ctz": 1}, False, Fraction(0)),
    ],
)
def test_provinces_counted_for_the_military_situation(side, overseas, count):
    s = p.AllianceSituation(name="X", major_stabilities=[0], **side)
    assert p.provinces_count(s, overseas) == count


def test_peace_differential_sums_stability_and_military_situation():
    inputs = {"side_a": {"name": "FRA", "major_stabilities": [1, 2], "provinces_held": 3, "capitals_held": 1},
              "side_b": {"name": "HAB", "major_stabilities": [-1], "settlements_held": 1}}
    ruling = EU.get("P3").resolve(inputs, FixedDice([]))
    # FRA: 1 (1.5 halves down) + 2 (5 − ½ = 4½ more provinces); HAB: −1
    assert ruling.outcome["scores"] == {"a": 3, "b": -1}
    assert ruling.total == 4 and ruling.outcome["dominant"] == "a"
    assert [m.value for m in ruling.steps[0].modifiers] == [1, 2]


def test_peace_differential_is_zero_without_a_dominant_alliance():
    inputs = {"side_a": {"name": "A", "major_stabilities": [1]}, "side_b": {"name": "B", "major_stabilities": [1]}}
    ruling = EU.get("P3").resolve(inputs, FixedDice([]))
    assert (ruling.total, ruling.outcome["dominant"]) == (0, None)


# --------------------------------------------------------------------------- P4


def _permitted(pd, dominant, majors=()):
    return p.permitted_peaces(pd, dominant, list(majors))


def test_small_pd_permits_white_and_negotiated_level_1_for_either_side():
    peaces = _permitted(2, "a")
    assert {"type": "white", "level": 0, "winner": None} in peaces
    assert {"type": "negotiated", "level": 1, "winner": "b"} in peaces
    assert {"type": "conditional", "level": 2, "winner": "a"} in peaces
    assert {"type": "conditional", "level": 1, "winner": "b"} not in peaces


@pytest.mark.parametrize("pd,max_level", [(3, 3), (5, 5), (8, 5)])
def test_conditional_peace_level_is_the_pd_at_most_5(pd, max_level):
    levels = [x["level"] for x in _permitted(pd, "a") if x["type"] == "conditional"]
    assert max(levels) == max_level
    assert {"type": "white", "level": 0, "winner": None} not in _permitted(pd, "a")


def _major(**kw):
    base = {"country": "AUS", "side": "b", "capitals_controlled_by_enemy": True, "national_provinces": 9,
            "national_provinces_controlled_by_enemy": 5}
    return p.MajorOccupation(**{**base, **kw})


@pytest.mark.parametrize("capital,held,allowed", [(True, 5, True), (True, 4, False), (False, 9, False)])
def test_unconditional_peace_needs_the_capital_and_half_the_national_provinces(capital, held, allowed):
    m = _major(capitals_controlled_by_enemy=capital, national_provinces_controlled_by_enemy=held)
    assert p.unconditional_against(m) is allowed
    assert ({"type": "unconditional", "level": 5, "winner": "a"} in _permitted(1, "b", [m])) is allowed


@pytest.mark.parametrize("turns,russia,forced", [(1, False, False), (2, False, True), (2, True, False), (3, True, True)])
def test_constrained_peace_after_two_turns_at_stab_minus_3(turns, russia, forced):
    m = _major(capitals_controlled_by_enemy=False, consecutive_turns_at_minus_3=turns, russia_underdeveloped=russia)
    ruling = EU.get("P4").resolve({"pd": 3, "dominant": "a", "majors": [m.model_dump()]}, FixedDice([]))
    assert ("b" in ruling.outcome["constrained"]) is forced
    if forced:
        assert ruling.outcome["constrained"]["b"] == {"type": "conditional", "level": 3, "winner": "a"}


@pytest.mark.parametrize("level,conditions,indemnity",
                         [(1, 1, 50), (2, 1, 75), (3, 2, 150), (4, 3, 300), (5, 3, 450)])
def test_indemnities_by_peace_level(level, conditions, indemnity):
    proposal = {"type": "conditional", "level": level, "winner": "a",
                "conditions": ["indemnity"] * conditions, "payer": "AUS", "receiver": "FRA"}
    ruling = EU.get("P4").resolve({"pd": 5, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["indemnity"] == indemnity
    effects = [(e.country, e.ers_line, e.amount) for e in ruling.effects if e.kind == "ducats"]
    assert effects == [("AUS", "A30", -indemnity), ("FRA", "A30", indemnity)]


def test_negotiated_peace_is_refused_when_the_pd_exceeds_2():
    proposal = {"type": "negotiated", "level": 1, "winner": "b", "conditions": ["cession"]}
    ruling = EU.get("P4").resolve({"pd": 3, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["permitted"] is False
    ruling = EU.get("P4").resolve({"pd": 2, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["permitted"] is True


def test_indemnities_may_be_paid_partly_now_the_rest_within_three_turns():
    proposal = {"type": "conditional", "level": 2, "winner": "a", "conditions": ["indemnity"], "payer": "AUS",
                "receiver": "FRA", "paid_now": 25}
    ruling = EU.get("P4").resolve({"pd": 2, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["outstanding"] == 50
    assert ruling.outcome["proposal"]["due_within_turns"] == 3


def test_a_proposal_above_the_pd_or_with_too_many_conditions_is_refused():
    proposal = {"type": "conditional", "level": 4, "winner": "a", "conditions": ["cession"]}
    ruling = EU.get("P4").resolve({"pd": 3, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["permitted"] is False and ruling.effects == ()
    proposal = {"type": "conditional", "level": 2, "winner": "a", "conditions": ["cession", "diplomatic"]}
    ruling = EU.get("P4").resolve({"pd": 3, "dominant": "a", "proposal": proposal}, FixedDice([]))
    assert ruling.outcome["proposal"]["reasons"] == ["at most 1 condition(s) at this level"]


def test_permitted_peace_rejects_a_dominant_side_with_a_zero_pd():
    with pytest.raises(ValidationError, match="dominant"):
        EU.get("P4").resolve({"pd": 0, "dominant": "a"}, FixedDice([]))


# --------------------------------------------------------------------------- P5

MINOR = {"minor": "Savoie", "player": "FRA", "level": 0}


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({"level": 2, "favours": "player"}, [-6]),
        ({"level": 1, "favours": "minor"}, [3]),
        ({"minor": "Perse"}, [-4]),
        ({"minor": "venise"}, [-3]),
        ({"minor": "Brandebourg"}, []),
        ({"minor": "Brandebourg", "brandenburg_after_iv11": True}, [-3]),
        ({"minor": "Danemark"}, [-2]),
        ({"situation": {"province_lost_by_minor": 2}}, [4]),
        ({"situation": {"province_lost_by_minor": 2, "capital_lost_by_minor": 1}}, [2, 4]),
        ({"situation": {"province_conquered_by_minor": 1}}, [-2]),
        ({"situation": {"capital_conquered_by_minor": 1, "province_conquered_by_minor": 1}}, [-4]),
        ({"situation": {"tp_minus_lost_by_minor": 2}}, [2]),
        ({"situation": {"tp_minus_conquered_by_minor": 1}}, [-1]),
        ({"situation": {"minor_capital_conquered_this_turn": True}}, [2]),
        ({"situation": {"major_capital_captured_by_minor": True}}, [-4]),
        ({"situation": {"major_battle_won_by_minor": 1}}, [-2]),
        ({"situation": {"major_battle_won_by_player": 2}}, [4]),
        ({"situation": {"battle_won_by_minor": 1}}, [-1]),
        ({"situation": {"battle_won_by_player": 1}}, [1]),
        ({"situation": {"minor_leader_killed_or_captured": 1}}, [1]),
        ({"situation": {"minor_monarch_ransom_used": True}}, [2]),
        ({"situation": {"player_leader_killed_or_captured": 2}}, [-2]),
        ({"situation": {"siege_won_by_player": 1}}, [1]),
        ({"situation": {"siege_won_by_minor": 1}}, [-1]),
        ({"situation": {"heretic_minor": True}}, [-2]),
        ({"separate_peace": True}, [-2]),
        ({"separate_peace": True, "controller_pd": 2}, [-2, 2]),
        ({"separate_peace": True, "controller_pd": 5}, [-2, 3]),
        ({"separate_peace": True, "controller_pd": -7}, [-2, -3]),
    ],
)
def test_peace_with_a_minor_modifier_list(extra, expected):
    ruling = EU.get("P5").resolve({**MINOR, **extra}, FixedDice([5]))
    assert [m.value for m in ruling.modifiers] == expected
    assert all(m.rule == "eu:P5" for m in ruling.modifiers)


@pytest.mark.parametrize("typed", ["venise", "Venice", "VEN", "ven", "VENISE"])
def test_venice_is_minus_3_by_its_seed_name_english_name_or_board_code(typed):
    # Issue 18: "Venice" or "VEN" silently dropped the −3 and flipped the outcome.
    ruling = EU.get("P5").resolve({**MINOR, "minor": typed}, FixedDice([8]))
    assert [m.value for m in ruling.modifiers] == [-3]
    assert ruling.inputs["minor"] == "venise"  # the ruling records what the alias resolved to
    assert ruling.outcome["signed"] is False  # 8 − 3 = 5 < 6


def test_egypt_is_the_boards_mamluks_at_minus_4():
    for typed in ("egypte", "MAM", "Mamluks", "mamelouks"):
        ruling = EU.get("P5").resolve({**MINOR, "minor": typed}, FixedDice([8]))
        assert ruling.inputs["minor"] == "egypte" and [m.value for m in ruling.modifiers] == [-4]


@pytest.mark.parametrize("typed", ["Venise!", "Venezia", "Persia (Safavid)", ""])
def test_an_unknown_minor_is_refused_naming_the_field(typed):
    with pytest.raises(ValidationError) as e:
        EU.get("P5").resolve({**MINOR, "minor": typed}, FixedDice([8]))
    assert e.value.errors()[0]["loc"] == ("minor",)


def test_every_minor_with_a_nationality_modifier_is_a_known_minor():
    names = p.minor_names()
    assert set(p.peace_data()["minor"]["nationality"]) <= set(names)
    schema = EU.get("P5").input_schema()["properties"]["minor"]
    assert "venise" in schema["enum"] and set(schema["x-aliases"]["venise"]) == {"VEN", "Venice"}


def test_controller_pd_modifier_says_it_was_capped():
    ruling = EU.get("P5").resolve({**MINOR, "separate_peace": True, "controller_pd": 5}, FixedDice([5]))
    assert ruling.modifiers[-1].reason == "PD of the controller +5 (capped at ±3)"


@pytest.mark.parametrize("die,signed", [(6, True), (5, False), (10, True), (1, False)])
def test_peace_with_a_minor_is_signed_on_6_or_more(die, signed):
    ruling = EU.get("P5").resolve(MINOR, FixedDice([die]))
    assert ruling.outcome["signed"] is signed
    assert ruling.outcome["war_continues"] is not signed


def test_overseas_white_peace_is_always_accepted_without_a_roll():
    ruling = EU.get("P5").resolve({**MINOR, "overseas_war": True, "minor": "Perse"}, FixedDice([]))
    assert ruling.outcome["signed"] is True and ruling.outcome["automatic"] is True
    assert ruling.dice == ()


def test_overseas_separate_white_peace_is_rolled():
    ruling = EU.get("P5").resolve({**MINOR, "overseas_war": True, "separate_peace": True}, FixedDice([9]))
    assert ruling.outcome["automatic"] is False and ruling.total == 7


def test_minor_indemnities_are_capped_at_four_times_its_income():
    inputs = {**MINOR, "level": 1, "favours": "player", "indemnity": 100, "minor_income": 12,
              "situation": {"province_lost_by_minor": 3}}
    ruling = EU.get("P5").resolve(inputs, FixedDice([4]))  # 4 − 3 + 6 = 7
    assert ruling.outcome["signed"] is True
    assert ruling.outcome["indemnity"] == 48 and ruling.outcome["indemnity_capped"] is True
    assert [(e.ers_line, e.amount) for e in ruling.effects if e.kind == "ducats"] == [("A30", 48)]


def test_controller_pd_is_refused_outside_a_separate_peace():
    with pytest.raises(ValidationError, match="controller_pd"):
        EU.get("P5").resolve({**MINOR, "controller_pd": 2}, FixedDice([5]))


# --------------------------------------------------------------------------- P6


def _cession(**kw):
    base = {"province": "Lombardia", "from_country": "AUS", "to_country": "FRA", "conquered_this_war": True}
    return {**base, **kw}


@pytest.mark.parametrize(
    "cession,weight",
    [({}, Fraction(1)), ({"kind": "COL", "settlement_claim": True}, Fraction(1, 2)),
     ({"kind": "COL", "col_level": 6, "settlement_claim": True}, Fraction(1)),
     ({"kind": "TP", "controlled_at_end": False, "settlement_claim": True}, Fraction(1))],
)
def test_ceded_settlements_count_half_a_province_when_controlled(cession, weight):
    assert p.cession_weight(p.Cession(**_cession(**cession))) == weight


@pytest.mark.parametrize(
    "inputs,problem",
    [
        ({"cessions": [_cession(conquered_this_war=False)]}, "neither conquered"),
        ({"cessions": [_cession(european_mainland=True)], "overseas_war": True}, "overseas war"),
        ({"cessions": [_cession()], "victor_national_provinces_unchosen": 1}, "national provinces"),
        ({"cessions": [_cession(province=p) for p in ("Picardie", "Caux", "Artois", "Champagne")]}, "at most 3"),
    ],
)
def test_province_transfers_break_the_transfer_rules(inputs, problem):
    ruling = EU.get("P6").resolve(inputs, FixedDice([]))
    assert ruling.outcome["cessions_valid"] is False
    assert any(problem in x for x in ruling.outcome["problems"])
    assert not [e for e in ruling.effects if e.kind == "province_ceded"]


def test_three_provinces_and_two_half_settlements_exceed_three():
    cessions = [_cession(province=p) for p in ("Picardie", "Caux")] + [
        _cession(province=p, kind="COL", settlement_claim=True) for p in ("Virginia~E", "Virginia~W")]
    ruling = EU.get("P6").resolve({"cessions": cessions}, FixedDice([]))
    assert ruling.outcome["cessions_valid"] is True and ruling.outcome["provinces_ceded"] == "3"


def test_separate_peace_costs_two_stab_and_gives_former_allies_a_casus_belli():
    inputs = {"signatories": [{"country": "ENG", "fully_at_peace": False, "separate_peace": True,
                               "former_allies": ["HOL", "POR"]}]}
    ruling = EU.get("P6").resolve(inputs, FixedDice([]))
    assert [(e.kind, e.country, e.amount) for e in ruling.effects] == [
        ("stability_changed", "ENG", -2), ("casus_belli", "HOL", None), ("casus_belli", "POR", None)]


def test_constrained_separate_peace_has_no_penalty():
    inputs = {"signatories": [{"country": "ENG", "fully_at_peace": False, "separate_peace": True,
                               "constrained": True, "former_allies": ["HOL"]}]}
    assert EU.get("P6").resolve(inputs, FixedDice([])).effects == ()


@pytest.mark.parametrize(
    "peace_with,at_peace,already,gain",
    [("player", True, False, 1), ("player", False, False, 0), ("player", True, True, 0),
     ("minor", True, False, 0), ("minor_by_event", True, False, 1)],
)
def test_stability_plus_one_per_signatory_fully_at_peace_at_most_once_per_phase(peace_with, at_peace, already, gain):
    inputs = {"peace_with": peace_with, "signatories": [
        {"country": "FRA", "fully_at_peace": at_peace, "stability_gained_this_phase": already}]}
    ruling = EU.get("P6").resolve(inputs, FixedDice([]))
    assert ruling.outcome["stability_gains"].get("FRA", 0) == gain


# --------------------------------------------------------------------------- invariants

stabs = st.lists(st.integers(-3, 3), min_size=1, max_size=4)
sides = st.builds(p.AllianceSituation, name=st.just("S"), major_stabilities=stabs,
                  provinces_held=st.integers(0, 10), capitals_held=st.integers(0, 2),
                  settlements_held=st.integers(0, 6), privateer_fleets=st.integers(0, 3),
                  privateer_fleets_in_enemy_ctz=st.integers(0, 2))


@settings(max_examples=150)
@given(stabs)
def test_alliance_stability_stays_within_the_members_range(values):
    assert min(values) <= p.alliance_stability(values) <= max(values)


@settings(max_examples=150)
@given(sides, sides, st.booleans())
def test_peace_differential_is_symmetric_and_bounded(a, b, overseas):
    one = EU.get("P3").resolve(p.PeaceDifferentialInputs(side_a=a, side_b=b, overseas_war=overseas), FixedDice([]))
    two = EU.get("P3").resolve(p.PeaceDifferentialInputs(side_a=b, side_b=a, overseas_war=overseas), FixedDice([]))
    assert one.total == two.total
    assert 0 <= one.total <= 9
    assert one.total == abs(one.outcome["scores"]["a"] - one.outcome["scores"]["b"])
    one.model_dump(mode="json")


situations = st.builds(p.MinorSituation, province_lost_by_minor=st.integers(0, 4),
                       province_conquered_by_minor=st.integers(0, 4), battle_won_by_player=st.integers(0, 3),
                       major_battle_won_by_minor=st.integers(0, 2), heretic_minor=st.booleans())
minor_inputs = st.builds(p.MinorPeaceInputs, minor=st.sampled_from(["Perse", "Venise", "Savoie", "Danemark"]),
                         player=st.just("FRA"), level=st.integers(0, 5),
                         favours=st.sampled_from(["minor", "player"]), situation=situations,
                         indemnity=st.integers(0, 300), minor_income=st.integers(0, 50))


@settings(max_examples=150)
@given(minor_inputs, st.integers(1, 9))
def test_peace_with_a_minor_total_is_die_plus_modifiers_and_monotonic(inputs, die):
    low = EU.get("P5").resolve(inputs, FixedDice([die]))
    high = EU.get("P5").resolve(inputs, FixedDice([die + 1]))
    assert low.total == die + sum(m.value for m in low.modifiers)
    assert high.outcome["signed"] >= low.outcome["signed"]
    assert low.outcome["indemnity"] <= max(inputs.indemnity, 0)
    low.model_dump(mode="json")


@settings(max_examples=100)
@given(st.integers(0, 12), st.sampled_from(["a", "b"]))
def test_every_permitted_conditional_peace_favours_the_dominant_side(pd, dominant):
    for peace in p.permitted_peaces(pd, dominant if pd else None, []):
        if peace["type"] == "conditional":
            assert peace["winner"] == dominant and 1 <= peace["level"] <= min(pd, 5)
