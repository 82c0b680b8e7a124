"""Verifiable dice (commit, derive, reveal).

When a turn opens the server draws a secret 32-byte seed and records only its
commitment ``sha256(seed)``. Roll number ``index`` of the turn is derived from
``HMAC-SHA256(seed, "campaign|turn|index|<count>d<sides>|purpose")``: the HMAC
output is extended by a block counter and read as 32-bit big-endian integers;
an integer is accepted only below the largest multiple of ``sides`` (rejection
sampling, so no face is favoured by a modulo), and ``u % sides + 1`` is the die.
When the turn closes the seed is revealed and anyone can recompute every roll.
The README carries a standalone verifier of this algorithm.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

MAX_SIDES = 1000
MAX_COUNT = 100


class DiceError(ValueError):
    def __init__(self, message: str, field: str = "dice"):
        super().__init__(message)
        self.field = field


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def check_die_type(sides: int, count: int) -> None:
    if not 2 <= sides <= MAX_SIDES:
        raise DiceError(f"a die has between 2 and {MAX_SIDES} sides, not {sides}", "sides")
    if not 1 <= count <= MAX_COUNT:
        raise DiceError(f"between 1 and {MAX_COUNT} dice per roll, not {count}", "count")


def roll_message(campaign: str, turn: int, index: int, sides: int, count: int, purpose: str) -> bytes:
    return f"{campaign}|{turn}|{index}|{count}d{sides}|{purpose}".encode()


def accept(u: int, sides: int) -> int | None:
    """Face for a 32-bit integer, or None when it falls in the rejected top slice.

    Accepted integers are those below the largest multiple of ``sides``, so each
    face is reached by exactly the same number of integers.
    """
    limit = (1 << 32) - ((1 << 32) % sides)
    return u % sides + 1 if u < limit else None


def derive(seed: bytes, campaign: str, turn: int, index: int, sides: int, count: int, purpose: str) -> tuple[int, ...]:
    """The faces of roll ``index``: deterministic, uniform, unbiased."""
    check_die_type(sides, count)
    message = roll_message(campaign, turn, index, sides, count, purpose)
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        digest = hmac.new(seed, message + b"|" + str(block).encode(), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            face = accept(int.from_bytes(digest[i : i + 4], "big"), sides)
            if face is not None:
                faces.append(face)
                if len(faces) == count:
                    break
        block += 1
    return tuple(faces)


@dataclass(frozen=True)
class RecordedRoll:
    """A roll as the history records it (from a DiceRolled event or a ruling)."""

    position: int
    index: int | None
    sides: int
    count: int
    purpose: str
    values: tuple[int, ...]
    manual: bool = False


@dataclass(frozen=True)
class DiceReport:
    turn: int
    checked: int
    manual: int
    mismatches: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches


def verify_turn(seed: bytes, committed: str, campaign: str, turn: int, rolls: Iterable[RecordedRoll]) -> DiceReport:
    """Recompute every server roll of a closed turn; report what does not match.

    Checks the seed against the commitment, each roll's faces, and that the roll
    indices run 0, 1, 2 ... without a gap (a gap would expose a discarded roll).
    """
    problems: list[str] = []
    if commitment(seed) != committed:
        problems.append(f"turn {turn}: revealed seed does not match the commitment {committed}")
    rolls = list(rolls)
    # Physical dice take no index: they are reported, not recomputed.
    manual = sum(1 for r in rolls if r.manual)
    checked = 0
    expected = 0
    for roll in sorted((r for r in rolls if not r.manual), key=lambda r: r.index):
        if roll.index != expected:
            problems.append(f"turn {turn}: roll index {expected} is missing (next recorded is {roll.index})")
            expected = roll.index
        expected += 1
        faces = derive(seed, campaign, turn, roll.index, roll.sides, roll.count, roll.purpose)
        checked += 1
        if faces != tuple(roll.values):
            problems.append(
                f"turn {turn}: roll {roll.index} at position {roll.position} ({roll.purpose}) "
                f"recorded {list(roll.values)}, the seed gives {list(faces)}"
            )
    return DiceReport(turn, checked, manual, tuple(problems))
