"""Verifiable dice: deterministic, uniform, unbiased, verifiable after reveal, gapless."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import dice
from ledger.dice import RecordedRoll, accept, commitment, derive, verify_turn

SEED = bytes(range(32))
CAMPAIGN = "b658f57c-d5c8-5e24-912b-791590257b38"


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """Upper critical value at p = 0.001 (z = 3.09), Wilson–Hilferty approximation."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_derivation_is_deterministic():
    first = [derive(SEED, CAMPAIGN, 1, i, 10, 1, "attrition") for i in range(50)]
    again = [derive(SEED, CAMPAIGN, 1, i, 10, 1, "attrition") for i in range(50)]
    assert first == again


@pytest.mark.parametrize("change", [
    {"seed": bytes(32)}, {"campaign": "other"}, {"turn": 2}, {"purpose": "battle"},
])
def test_every_input_of_the_derivation_changes_the_rolls(change):
    args = {"seed": SEED, "campaign": CAMPAIGN, "turn": 1, "purpose": "attrition"}
    base = [derive(args["seed"], args["campaign"], args["turn"], i, 10, 1, args["purpose"]) for i in range(40)]
    args.update(change)
    other = [derive(args["seed"], args["campaign"], args["turn"], i, 10, 1, args["purpose"]) for i in range(40)]
    assert base != other


@pytest.mark.slow
@pytest.mark.parametrize("sides", [6, 10, 20, 100])
def test_dice_are_uniform_chi_square_over_100000_rolls(sides):
    n = 100_000
    counts = [0] * sides
    for i in range(n):
        counts[derive(SEED, CAMPAIGN, 1, i, sides, 1, "uniformity")[0] - 1] += 1
    expected = n / sides
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    assert statistic < chi_square_critical(sides - 1), (statistic, counts)


@pytest.mark.slow
def test_two_d6_sums_follow_the_triangular_distribution():
    n = 100_000
    counts = {s: 0 for s in range(2, 13)}
    for i in range(n):
        counts[sum(derive(SEED, CAMPAIGN, 3, i, 6, 2, "2d6"))] += 1
    probability = {s: (6 - abs(s - 7)) / 36 for s in counts}
    statistic = sum((counts[s] - n * p) ** 2 / (n * p) for s, p in probability.items())
    assert statistic < chi_square_critical(10)


@given(st.integers(min_value=2, max_value=dice.MAX_SIDES))
def test_rejection_sampling_gives_every_face_the_same_number_of_integers(sides):
    limit = (1 << 32) - ((1 << 32) % sides)
    assert limit % sides == 0  # each face reached by exactly limit / sides integers
    assert accept(limit - 1, sides) == sides  # last accepted integer maps to the top face
    if limit < (1 << 32):
        assert accept(limit, sides) is None  # the slice that would favour low faces is rejected
        assert accept((1 << 32) - 1, sides) is None


def test_a_modulo_would_bias_low_faces_and_the_sampler_does_not():
    # For a d6 the top 4 integers of 2**32 are rejected: with a plain modulo they
    # would land on faces 1-4, making them more likely than 5 and 6.
    sides = 6
    rejected = [u for u in range((1 << 32) - 8, 1 << 32) if accept(u, sides) is None]
    assert rejected == list(range((1 << 32) - 4, 1 << 32))


@given(st.integers(min_value=2, max_value=1000), st.integers(min_value=1, max_value=10), st.integers(0, 10_000))
def test_every_face_is_in_range(sides, count, index):
    faces = derive(SEED, CAMPAIGN, 1, index, sides, count, "range")
    assert len(faces) == count and all(1 <= f <= sides for f in faces)


def rolls_of(turn_seed: bytes, n: int) -> list[RecordedRoll]:
    return [RecordedRoll(i + 3, i, 10, 1, f"roll {i}", derive(turn_seed, CAMPAIGN, 1, i, 10, 1, f"roll {i}"))
            for i in range(n)]


def test_rolls_verify_after_the_seed_is_revealed():
    report = verify_turn(SEED, commitment(SEED), CAMPAIGN, 1, rolls_of(SEED, 20))
    assert report.ok and report.checked == 20


def test_a_changed_roll_is_reported_with_its_position():
    rolls = rolls_of(SEED, 5)
    bad = rolls[2]
    rolls[2] = RecordedRoll(bad.position, bad.index, 10, 1, bad.purpose, ((bad.values[0] % 10) + 1,))
    report = verify_turn(SEED, commitment(SEED), CAMPAIGN, 1, rolls)
    assert not report.ok
    [problem] = report.mismatches
    assert "roll 2 at position 5" in problem


def test_a_skipped_roll_index_is_detected():
    rolls = rolls_of(SEED, 6)
    del rolls[3]
    report = verify_turn(SEED, commitment(SEED), CAMPAIGN, 1, rolls)
    assert any("roll index 3 is missing" in p for p in report.mismatches)


def test_a_seed_that_does_not_match_the_commitment_is_reported():
    report = verify_turn(bytes(32), commitment(SEED), CAMPAIGN, 1, [])
    assert any("does not match the commitment" in p for p in report.mismatches)


def test_physical_dice_are_counted_not_recomputed():
    rolls = rolls_of(SEED, 2) + [RecordedRoll(9, None, 6, 1, "table roll", (6,), manual=True)]
    report = verify_turn(SEED, commitment(SEED), CAMPAIGN, 1, rolls)
    assert report.ok and report.checked == 2 and report.manual == 1


@pytest.mark.parametrize("sides,count", [(1, 1), (1001, 1), (6, 0), (6, 101)])
def test_impossible_die_types_are_refused(sides, count):
    with pytest.raises(dice.DiceError):
        derive(SEED, CAMPAIGN, 1, 0, sides, count, "x")
