"""Budget projection speed: one campaign of N events through ledger.economy.sheets.budget.

Prints the events read, the sheets computed and the time taken. The history is
synthetic but shaped like a long game: 8 countries, 60 turns, a third of the
events treasury entries (spread over the entered lines), the rest events the
budget skips (dice, rulings), plus corrections and phase closes.

    .venv/bin/python ops/bench_budget.py [EVENTS]
"""

from __future__ import annotations

import random
import sys
import time

from ledger.economy.sheets import budget

COUNTRIES = ["ENG", "FRA", "HIS", "HAB", "TUR", "POR", "SUE", "RUS"]
LINES = ["A5", "A9", "A10", "B1", "B2", "B6", "B9", "B10", "B17", "B30", "B31", "B33", "B37", "B40", "B41"]


class Rec:
    __slots__ = ("type", "position", "data")

    def __init__(self, kind: str, position: int, data: dict):
        self.type, self.position, self.data = kind, position, data


def history(n: int, turns: int = 60) -> list[Rec]:
    rnd = random.Random(7)
    out = [Rec("CampaignCreated", 1, {"countries": COUNTRIES, "settings": {}})]
    per_turn = (n - 1) // turns
    pos = 1
    for turn in range(1, turns + 1):
        pos += 1
        out.append(Rec("TurnOpened", pos, {"turn": turn}))
        if turn == 1:
            for c in COUNTRIES:
                pos += 1
                out.append(Rec("TreasuryEntryRecorded", pos, {"country": c, "turn": 1, "line": "A1", "amount": 300,
                                                              "reason": "start", "source": None}))
        for i in range(per_turn - 1 - (len(COUNTRIES) if turn == 1 else 0)):
            pos += 1
            if i % 3 == 0:
                out.append(Rec("TreasuryEntryRecorded", pos, {
                    "country": rnd.choice(COUNTRIES), "turn": turn, "line": rnd.choice(LINES),
                    "amount": rnd.randint(0, 3), "reason": "x", "source": None}))
            elif i % 997 == 0:
                out.append(Rec("CorrectionRecorded", pos, {"corrects": pos - 3, "reason": "fix",
                                                           "replacement": {"amount": 1}}))
            else:
                out.append(Rec("DiceRolled", pos, {"turn": turn, "values": [rnd.randint(1, 10)]}))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
    events = history(n)
    t0 = time.perf_counter()
    b = budget(events)
    elapsed = time.perf_counter() - t0
    broken = sum(1 for s in b.sheets.values() if s.cells is None)
    print(f"events {len(events):,}  sheets {len(b.sheets)} ({broken} not computable)  "
          f"budget {elapsed:.2f} s  ({len(events) / elapsed:,.0f} events/s)")


if __name__ == "__main__":
    main()
