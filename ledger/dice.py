"""Verifiable dice (commit, derive, reveal).

When a turn opens the server draws a secret 32-byte seed and records only its
commitment ``sha256(seed)``. Roll number ``index`` of the turn is derived from
``HMAC-SHA256(seed, "campaign|turn|index|<count>d<sides>|purpose")``: the HMAC
output is extended by a block counter and read as 32-bit big-endian integers;
an integer is accepted only below the largest multiple of ``sides`` (rejection
sampling, so no face is favoured by a modulo), and ``u % sides + 1`` is the die.
When the turn closes the seed is revealed and anyone can recompute every roll.
The README carries a standalone verifier of this algorithm.

Audiences (scheme 2, ``TurnOpened.dice_scheme``): a hidden roll must not be
recomputable by those who may not see it, so each audience of a turn (public,
the game masters, a set of countries: ``audience``) has a seed of its own and
its own gapless indices. The public seed is committed in ``TurnOpened``; any
other audience's seed is committed by a ``DiceSeedCommitted`` event of that
audience's visibility, appended before its first roll. At the close, the public
seed is revealed in ``TurnClosed`` and each other seed in a ``DiceSeedRevealed``
of its audience's visibility. Scheme 1 (turns opened before): one seed, one
index sequence for every roll of the turn, revealed in ``TurnClosed``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ledger.access import ALL_SEEING, can_see
from ledger.domain.actors import Actor
from ledger.domain.errors import InvalidInput, StateConflict

MAX_SIDES = 1000
MAX_COUNT = 100
SINGLE_SEED = 1  # scheme of turns opened before audiences: one seed for every roll
PER_AUDIENCE = 2  # one seed per audience (public, gm, each set of countries)
PUBLIC = "public"


class DiceError(ValueError):
    def __init__(self, message: str, field: str = "dice"):
        super().__init__(message)
        self.field = field


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def audience(visibility: Mapping[str, Any]) -> str:
    """The audience of a roll, from its event's visibility: "public", "gm" or "countries:ENG,FRA"."""
    scope = visibility.get("scope", "public")
    if scope == "countries":
        return "countries:" + ",".join(sorted(set(visibility.get("countries") or ())))
    return scope


def audience_visibility(key: str) -> dict[str, Any]:
    """The visibility of the events that commit and reveal an audience's seed (the inverse of ``audience``)."""
    if key.startswith("countries:"):
        return {"scope": "countries", "countries": key.removeprefix("countries:").split(",")}
    return {"scope": key}


def audience_words(key: str) -> str:
    if key.startswith("countries:"):
        return "seen by " + ", ".join(key.removeprefix("countries:").split(","))
    return "seen by the game masters only" if key == "gm" else "public"


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
        digest = hmac.digest(seed, message + b"|" + str(block).encode(), "sha256")  # = hmac.new(...).digest(), in C
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
    hidden: int = 0  # server rolls among the events whose audience's seed is not among them: not recomputed

    @property
    def ok(self) -> bool:
        return not self.mismatches


def verify_turn(seed: bytes, committed: str, campaign: str, turn: int, rolls: Iterable[RecordedRoll], *,
                gapless: bool = True) -> DiceReport:
    """Recompute every server roll of a closed turn; report what does not match.

    Checks the seed against the commitment, each roll's faces, and that the roll
    indices run 0, 1, 2 ... without a gap (a gap would expose a discarded roll).
    ``gapless=False``: the rolls are some of the seed's only (what a reader may see of an audience they are not
    in): their indices are not checked.
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
        if not gapless:
            expected = roll.index
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


@dataclass(frozen=True)
class TurnRecord:
    """An event as the dice verification reads it: an event of the history or a record of the read side."""

    position: int
    type: str
    visibility: Mapping[str, Any]
    turn: int | None  # the event's context turn
    data: Mapping[str, Any]  # its payload (more fields are ignored)


def verify_records(campaign: str, turn: int, records: Iterable[TurnRecord], *,
                   shown: Callable[[TurnRecord], bool] | None = None,
                   whole: Callable[[str | None], bool] | None = None) -> DiceReport:
    """Verify the server rolls of a closed turn from the events given (a history, or what one reader sees).

    Scheme 2: each audience whose seed is revealed among the events is checked (the seed against its
    commitment, the faces, indices 0 .. n-1 with n the count its reveal states); rolls of an audience whose
    seed is not among the events are counted as ``hidden``: whoever may not see a seed cannot recompute them.

    A reader's check (``verify_for``): the seeds are the records' (the service's, every one), but only the rolls of
    the records ``shown`` accepts are checked, counted and reported, and an audience none of whose rolls is shown is
    not named; an audience's stated count and gapless indices are checked only where ``whole`` accepts its key
    (``None``: every roll of a scheme-1 turn), that is where the reader may see every roll of it: elsewhere the rolls
    they do not see are not theirs to count.
    """
    def complete(key: str | None) -> bool:
        return whole is None or whole(key)

    opened = closed = None
    commitments: dict[str, str] = {}
    revealed: dict[str, tuple[int, str, int]] = {}  # audience -> (position, seed, rolls)
    rolls: list[tuple[str, RecordedRoll]] = []
    for r in records:
        d = r.data
        if d.get("turn", r.turn) != turn:
            continue
        if r.type == "TurnOpened":
            opened = d
        elif r.type == "TurnClosed":
            closed = d
        elif r.type == "DiceSeedCommitted":
            commitments[d["audience"]] = d["commitment"]
        elif r.type == "DiceSeedRevealed":
            revealed[d["audience"]] = (r.position, d["seed"], d["rolls"])
        elif shown is not None and r.type in ("DiceRolled", "RulingRecorded") and not shown(r):
            continue
        elif r.type == "DiceRolled":
            rolls.append((audience(r.visibility), RecordedRoll(r.position, d.get("index"), d["sides"], d["count"],
                                                               d["purpose"], tuple(d["values"]), bool(d.get("manual")))))
        elif r.type == "RulingRecorded":
            for die in ruling_dice(d["ruling"]):
                rolls.append((audience(r.visibility), RecordedRoll(r.position, die.get("index"), die["sides"],
                                                                   die["count"], die["purpose"], tuple(die["values"]),
                                                                   bool(die.get("manual")))))
    if opened is None:
        raise InvalidInput(f"turn {turn} was never opened", field="turn")
    if closed is None:
        raise StateConflict(f"turn {turn} is still open: its seeds are revealed when it closes", field="turn")
    if opened.get("dice_scheme", SINGLE_SEED) == SINGLE_SEED:
        every = [roll for _, roll in rolls]
        report = verify_turn(bytes.fromhex(closed["seed"]), opened["commitment"], campaign, turn, every,
                             gapless=complete(None))
        return _counted(report, turn, closed["rolls"], every, "the closing event") if complete(None) else report
    commitments[PUBLIC] = opened["commitment"]
    revealed[PUBLIC] = (0, closed["seed"], closed["rolls"])
    checked = manual = hidden = 0
    problems: list[str] = []
    for key in sorted({k for k, _ in rolls} | {k for k in revealed if complete(k)}):
        own = [roll for k, roll in rolls if k == key]
        if key not in revealed:
            hidden += sum(1 for roll in own if not roll.manual)
            manual += sum(1 for roll in own if roll.manual)
            continue
        position, seed, count = revealed[key]
        if key not in commitments:
            where = f" (revealed at position {position})" if complete(key) else ""
            problems.append(f"turn {turn}: the seed of the rolls {audience_words(key)}{where} has no commitment "
                            "among these events")
            continue
        report = verify_turn(bytes.fromhex(seed), commitments[key], campaign, turn, own, gapless=complete(key))
        if complete(key):
            reveal = "the closing event" if key == PUBLIC else f"the reveal at position {position}"
            report = _counted(report, turn, count, own, reveal, key)
        checked, manual = checked + report.checked, manual + report.manual
        problems.extend(report.mismatches)
    return DiceReport(turn, checked, manual, tuple(problems), hidden)


def verify_for(actor: Actor, revealed: Collection[int], campaign: str, turn: int,
               records: Iterable[TurnRecord]) -> DiceReport:
    """``verify_records`` as ``actor`` may hear it: the game masters (and the admin, the ledger) every roll of every
    audience; anyone else only the rolls they may see (``ledger.access.can_see``, reveals included), each checked
    against the seed the service holds, and the count and indices of the audiences they belong to. The report is
    then a function of what they may see: it tells nobody outside an audience that it rolled, nor how often."""
    if actor.role in ALL_SEEING:
        return verify_records(campaign, turn, records)
    shown = frozenset(revealed)

    def sees(r: TurnRecord) -> bool:
        return can_see(actor, {"visibility": r.visibility, "position": r.position}, shown)

    def belongs(key: str | None) -> bool:  # every roll of the audience is theirs to see (not by a reveal)
        return key is not None and can_see(actor, {"visibility": audience_visibility(key)})

    return verify_records(campaign, turn, records, shown=sees, whole=belongs)


def _counted(report: DiceReport, turn: int, stated: int, rolls: list[RecordedRoll], where: str,
             key: str | None = None) -> DiceReport:
    """The report, with a problem when the count a reveal states is not the number of server rolls held."""
    held = sum(1 for r in rolls if not r.manual)
    if stated == held:
        return report
    whose = "" if key is None else f" {audience_words(key)}"
    problem = f"turn {turn}: {where} counts {stated} server rolls{whose}, the history holds {held}"
    return replace(report, mismatches=(*report.mismatches, problem))


def ruling_dice(ruling: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every die of a recorded ruling (top level and steps), in draw order."""
    dice = list(ruling.get("dice") or [])
    for step in ruling.get("steps") or []:
        dice.extend(step.get("dice") or [])
    return dice
