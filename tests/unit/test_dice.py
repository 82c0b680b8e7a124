"""Verifiable dice: deterministic, uniform, unbiased, verifiable after reveal, gapless."""

from __future__ import annotations

import hmac
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import dice
from ledger.domain.actors import Actor
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


@given(st.binary(min_size=32, max_size=32), st.integers(1, 300), st.integers(0, 5000),
       st.integers(2, 100), st.integers(1, 20), st.text(max_size=40))
def test_the_faces_are_the_published_hmac_sha256_derivation(seed, turn, index, sides, count, purpose):
    """Rolls already recorded must still verify: the faces are HMAC-SHA256(seed, message|block) cut in 4-byte
    big-endian integers, the top slice rejected (a faster HMAC path must give the same faces)."""
    message = dice.roll_message(CAMPAIGN, turn, index, sides, count, purpose)
    faces, block = [], 0
    while len(faces) < count:
        digest = hmac.digest(seed, message + b"|" + str(block).encode(), "sha256")
        faces += [f for i in range(0, 32, 4) if (f := accept(int.from_bytes(digest[i:i + 4], "big"), sides))]
        block += 1
    assert derive(seed, CAMPAIGN, turn, index, sides, count, purpose) == tuple(faces[:count])


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


# ------------------------------------------------------------ one seed per audience (scheme 2)

GM_SEED, PUBLIC_SEED = bytes(range(1, 33)), bytes(range(2, 34))
GM_VIS, PUBLIC_VIS = {"scope": "gm"}, {"scope": "public"}


def rolled(position: int, index: int, seed: bytes, vis: dict) -> dice.TurnRecord:
    values = derive(seed, CAMPAIGN, 1, index, 6, 2, f"roll {position}")
    return dice.TurnRecord(position, "DiceRolled", vis, 1, {"turn": 1, "index": index, "sides": 6, "count": 2,
                                                           "purpose": f"roll {position}", "values": list(values),
                                                           "manual": False})


def scheme_2_turn(gm_rolls_revealed: int = 1) -> list[dice.TurnRecord]:
    """Turn 1: a public roll and a GM-only roll, each from its audience's seed; closed."""
    return [
        dice.TurnRecord(1, "TurnOpened", PUBLIC_VIS, 1, {"turn": 1, "commitment": commitment(PUBLIC_SEED),
                                                         "dice_scheme": 2}),
        rolled(2, 0, PUBLIC_SEED, PUBLIC_VIS),
        dice.TurnRecord(3, "DiceSeedCommitted", GM_VIS, 1, {"turn": 1, "audience": "gm",
                                                            "commitment": commitment(GM_SEED)}),
        rolled(4, 0, GM_SEED, GM_VIS),
        dice.TurnRecord(5, "DiceSeedRevealed", GM_VIS, 1, {"turn": 1, "audience": "gm", "seed": GM_SEED.hex(),
                                                           "rolls": gm_rolls_revealed}),
        dice.TurnRecord(6, "TurnClosed", PUBLIC_VIS, 1, {"turn": 1, "seed": PUBLIC_SEED.hex(), "rolls": 1,
                                                         "dice_scheme": 2}),
    ]


def test_each_audience_is_recomputed_from_its_own_seed():
    report = dice.verify_records(CAMPAIGN, 1, scheme_2_turn())
    assert (report.ok, report.checked, report.hidden) == (True, 2, 0)


def test_a_roll_whose_seed_is_not_among_the_events_is_counted_hidden_not_verified():
    shown = [r for r in scheme_2_turn() if r.type not in ("DiceSeedCommitted", "DiceSeedRevealed")]
    report = dice.verify_records(CAMPAIGN, 1, shown)
    assert (report.ok, report.checked, report.hidden) == (True, 1, 1)


def test_a_hidden_roll_discarded_before_the_close_is_caught_by_its_reveals_count():
    report = dice.verify_records(CAMPAIGN, 1, scheme_2_turn(gm_rolls_revealed=2))
    assert report.mismatches == ("turn 1: the reveal at position 5 counts 2 server rolls seen by the game masters "
                                 "only, the history holds 1",)


def test_a_revealed_seed_without_its_commitment_is_not_trusted():
    report = dice.verify_records(CAMPAIGN, 1, [r for r in scheme_2_turn() if r.type != "DiceSeedCommitted"])
    assert report.checked == 1 and report.mismatches == (
        "turn 1: the seed of the rolls seen by the game masters only (revealed at position 5) has no commitment "
        "among these events",)


@given(st.one_of(st.just({"scope": "public"}), st.just({"scope": "gm"}),
                 st.lists(st.sampled_from(["ENG", "FRA", "SPA"]), min_size=1, unique=True).map(
                     lambda cs: {"scope": "countries", "countries": cs})))
def test_an_audiences_seed_events_have_the_visibility_of_its_rolls(vis):
    normalised = {**vis, "countries": sorted(vis["countries"])} if "countries" in vis else vis
    assert dice.audience_visibility(dice.audience(vis)) == normalised


# ------------------------------------------------------------ what one reader hears (dice.verify_for)

GM, OBSERVER = Actor("gina", "gm"), Actor("olga", "observer")


def test_the_game_master_hears_of_every_audiences_count_and_a_reader_outside_it_of_nothing():
    turn = scheme_2_turn(gm_rolls_revealed=2)  # the GM's reveal counts a roll the history does not hold
    assert dice.verify_for(GM, (), CAMPAIGN, 1, turn).mismatches == (
        "turn 1: the reveal at position 5 counts 2 server rolls seen by the game masters only, the history holds 1",)
    heard = dice.verify_for(OBSERVER, (), CAMPAIGN, 1, turn)
    assert (heard.ok, heard.checked, heard.manual, heard.hidden) == (True, 1, 0, 0)


def test_a_roll_revealed_to_a_reader_is_checked_against_its_seed_without_its_audiences_count():
    turn = scheme_2_turn(gm_rolls_revealed=2)
    heard = dice.verify_for(OBSERVER, {4}, CAMPAIGN, 1, turn)
    assert (heard.ok, heard.checked) == (True, 2)
    forged = [dice.TurnRecord(r.position, r.type, r.visibility, r.turn, {**r.data, "values": [1, 1]})
              if r.position == 4 else r for r in turn]
    [problem] = dice.verify_for(OBSERVER, {4}, CAMPAIGN, 1, forged).mismatches
    assert problem.startswith("turn 1: roll 0 at position 4 (roll 4) recorded [1, 1]")


@given(st.lists(st.sampled_from([PUBLIC_VIS, GM_VIS]), min_size=1, max_size=6), st.sets(st.integers(1, 12)))
def test_a_reader_hears_of_the_rolls_they_may_see_only_whatever_the_game_masters_rolled(audiences, revealed):
    """An observer's report counts the public rolls and those revealed to them, each checked against the seed the
    service holds, and nothing else; the game master's counts every roll."""
    seeds = {"public": PUBLIC_SEED, "gm": GM_SEED}
    records = [dice.TurnRecord(1, "TurnOpened", PUBLIC_VIS, 1, {"turn": 1, "commitment": commitment(PUBLIC_SEED),
                                                                "dice_scheme": 2}),
               dice.TurnRecord(2, "DiceSeedCommitted", GM_VIS, 1, {"turn": 1, "audience": "gm",
                                                                   "commitment": commitment(GM_SEED)})]
    index = {"public": 0, "gm": 0}
    for vis in audiences:
        key = vis["scope"]
        position = len(records) + 1
        values = derive(seeds[key], CAMPAIGN, 1, index[key], 6, 2, f"roll {position}")
        records.append(dice.TurnRecord(position, "DiceRolled", vis, 1, {
            "turn": 1, "index": index[key], "sides": 6, "count": 2, "purpose": f"roll {position}",
            "values": list(values), "manual": False}))
        index[key] += 1
    n = len(records)
    records += [dice.TurnRecord(n + 1, "DiceSeedRevealed", GM_VIS, 1, {"turn": 1, "audience": "gm",
                                                                       "seed": GM_SEED.hex(), "rolls": index["gm"]}),
                dice.TurnRecord(n + 2, "TurnClosed", PUBLIC_VIS, 1, {"turn": 1, "seed": PUBLIC_SEED.hex(),
                                                                     "rolls": index["public"], "dice_scheme": 2})]
    heard = dice.verify_for(OBSERVER, revealed, CAMPAIGN, 1, records)
    shown = sum(1 for r in records if r.type == "DiceRolled" and (r.visibility == PUBLIC_VIS or r.position in revealed))
    assert (heard.ok, heard.checked, heard.mismatches) == (True, shown, ())
    assert dice.verify_for(GM, revealed, CAMPAIGN, 1, records).checked == len(audiences)
