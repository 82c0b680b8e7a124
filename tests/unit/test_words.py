"""Plain words for people (projections/words.py) and the one rule corrections are folded by."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from ledger.domain.corrections import Standing
from projections import words


def test_values_read_as_words_never_as_reprs():
    assert [words.plain(v) for v in (None, True, False, [3, 4], "7/3", "-2/3", {"attacker": 2, "defender": 0})] == [
        "—", "yes", "no", "3, 4", "2⅓", "−⅔", "attacker 2; defender 0"]


def test_ers_lines_sort_by_sheet_and_number():
    assert sorted(["A13", "B2", "A9", "A15", "A15_pct", "A1"], key=words.ers_key) == [
        "A1", "A9", "A13", "A15_pct", "A15", "B2"]


def test_changes_are_sentences():
    before = {"map": {"stacks": {"FRA-1": {"location": "Normandie", "units": {"LD": 8}}},
                      "provinces": {"Picardie": {"controller": "FRA"}}, "corrections": {}}, "victory": {}}
    after = {"map": {"stacks": {"FRA-1": {"location": "Normandie", "units": {"LD": 6}}},
                     "provinces": {"Picardie": {"controller": "ENG"}}, "corrections": {"9": None}}, "victory": {}}
    assert words.changes(before, after) == ["FRA-1: 8 LD → 6 LD", "Picardie: controlled by ENG (was FRA)"]
    assert words.budget_line({"country": "FRA", "turn": 1, "line": "A9", "from": 35, "to": 30}) == \
        "FRA turn 1, A9 Pillages, privateers: 35 → 30 ducats"


def test_a_heading_names_its_side_once():
    assert words.step_heading({"name": "A.1 fire (attacker)", "side": "attacker"}) == "A.1 fire (attacker)"
    assert words.step_heading({"name": "B. shock", "side": "defender"}) == "B. shock (defender)"


def test_a_correction_of_a_correction_amends_it_and_a_withdrawal_lets_the_one_before_stand():
    s = Standing()
    s.add(10, 4, {"amount": 30})  # corrects the entry at 4
    s.add(11, 4, {"amount": 20})  # a second correction of 4: the latest stands
    assert s.standing(4) == (11, {"amount": 20})
    s.add(12, 11, {"amount": 25})  # corrects the correction at 11: restates it
    assert s.standing(4) == (12, {"amount": 25})
    s.add(13, 12, None)  # withdraws the amendment at 12: the correction at 11 stands as it said
    assert s.standing(4) == (13, {"amount": 20})
    s.add(14, 11, None)  # withdraws the correction at 11: the one at 10 stands again
    assert s.standing(4) == (14, {"amount": 30})
    s.add(15, 10, None)
    assert s.standing(4) is None and s.fixes() == {}


def test_ers_formulas_read_as_words_as_the_seeds_state_them():
    assert words.formula("pct_down(A14, A15_pct)") == "A15 % of A14, rounded down"
    assert words.formula("sum_range(B29, B37)") == "the sum of B29 to B37"
    assert words.formula("B26 + B27 + sum_range(B29, B37)") == "B26 + B27 + the sum of B29 to B37"
    assert words.formula("prev(A33)") == "A33 of the turn before"
    assert words.formula("prev(C1, 3)") == "C1 of 3 turns before"
    assert words.formula("pct_down(abs(A31), A32_pct)") == "A32 % of A31 without its sign, rounded down"
    assert words.formula("pct_up(prev(C1, 1), 10) + pct_up(prev(C1, 2), 10)") == (
        "(10 % of C1 of the turn before, rounded up) + (10 % of C1 of 2 turns before, rounded up)")
    assert words.formula("A25 - A29 + A30") == "A25 − A29 + A30"
    assert words.formula("A1 - (A2 - A3)") == "A1 − (A2 − A3)" and words.formula("(A1 + A2) * 3") == "(A1 + A2) × 3"
    assert words.formula("max(A1, 0)") == "the larger of A1 and 0"
    assert words.formula(None) == "" and words.formula("A1 +") == "A1 +"  # unreadable: shown as written


def test_every_formula_of_the_eu_sheet_reads_without_function_names():
    from ledger.rules.eu.ers import ers_definition

    said = [words.formula(line.formula) for line in ers_definition().lines if line.formula]
    assert len(said) > 30
    assert not [s for s in said if re.search(r"pct_|sum_range|prev\(|abs\(|_pct|\w\(", s)], said


CODES = st.sampled_from(["A1", "A9", "A14", "B5", "C1"])


def _trees(leaves):
    return st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", leaves, st.sampled_from("+-*"), leaves),
        st.builds(lambda a, b: f"pct_down({a}, {b}_pct)", leaves, CODES),
        st.builds(lambda a: f"prev({a})", CODES),
        st.builds(lambda a, b: f"sum_range({a}, {b})", CODES, CODES),
        st.builds(lambda a: f"({a})", leaves))


@given(st.recursive(CODES, _trees, max_leaves=8))
def test_any_formula_reads_as_words_naming_every_line_it_reads(expr):
    said = words.formula(expr)
    assert not re.search(r"pct_|sum_range|prev|_pct|\*", said)
    # Every line, as often as it is read (a percentage is said before the amount it is taken of).
    assert sorted(re.findall(r"[ABC]\d+", said)) == sorted(re.findall(r"[ABC]\d+", expr))
def test_a_siege_reads_as_begun_by_its_besiegers_then_over():
    from projections.words import siege_changes

    assert siege_changes({}, {"Picardie": {"besiegers": ["ENG-1"]}}) == ["Picardie: besieged by ENG-1"]
    assert siege_changes({"Picardie": {"besiegers": ["ENG-1"]}},
                         {"Picardie": {"besiegers": ["ENG-1", "ENG-2"]}}) == ["Picardie: besieged by ENG-1, ENG-2"]
    assert siege_changes({"Picardie": {"besiegers": ["ENG-1"]}}, {}) == ["Picardie: siege over"]


def test_a_unit_change_reads_with_its_sign():
    from projections.words import units

    assert units({"LD": 2, "CAV": -1}, signed=True) == "+2 LD, −1 CAV"
    assert units({"LD": 6, "NTD": 2}) == "6 LD, 2 NTD" and units({}) == "no units"


def test_a_leader_arriving_and_leaving_reads_with_its_turns_as_i3_records_them():
    from projections.words import changes

    before = {"map": {"leaders": {"La Trémoille": {"stack": "FRA-1", "status": "active"}},
                      "stacks": {"FRA-1": {"location": "Normandie", "units": {"LD": 5}, "leaders": ["La Trémoille"]}}}}
    after = {"map": {"leaders": {"La Trémoille": {"stack": None, "status": "departed", "departed": 2},
                                 "Gié": {"stack": "FRA-1", "status": "active", "arrived": 2, "departs": 9}},
                     "stacks": {"FRA-1": {"location": "Normandie", "units": {"LD": 5}, "leaders": ["Gié"]}}}}
    assert changes(before, after) == ["FRA-1: leaders Gié (were La Trémoille)",
                                      "Gié: arrives with FRA-1 in turn 2, leaves in turn 9",
                                      "La Trémoille: departed in turn 2"]


def test_an_events_time_reads_to_the_second_in_utc_without_the_iso_t_or_microseconds():
    assert words.moment("2026-11-25T07:09:08.123456+00:00") == "2026-11-25 07:09:08 UTC"
    assert words.moment("2026-11-25T07:09:08Z") == "2026-11-25 07:09:08 UTC"
    assert words.moment("2026-11-25T09:09:08+02:00") == "2026-11-25 07:09:08 UTC"  # another offset: the same moment
    assert words.moment(None) == "—"


@given(st.datetimes(timezones=st.timezones()))
def test_any_stored_time_reads_as_the_same_utc_moment_the_slow_path_gives(when):
    from datetime import UTC, datetime

    stored = when.astimezone(UTC).isoformat()  # how an event's time is kept
    shown = words.moment(stored)
    assert shown.endswith(" UTC") and "T" not in shown[:-4] and "." not in shown
    assert datetime.strptime(shown, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC) == when.astimezone(UTC).replace(
        microsecond=0)
