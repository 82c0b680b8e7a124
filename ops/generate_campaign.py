"""Generate a realistic campaign through the real application, deterministic from a seed.

    python ops/generate_campaign.py --events 20000 --seed 7 --slug gen-7

Uses whatever store the LEDGER_* environment selects. The campaign starts from
the sample scenario (ledger/scenarios/sample.yaml) with the 8 majors and plays turns of about
``--turn-size`` events: stack moves, control changes, markers, treasury
entries, and rulings resolved by the ruleset's resolvers (M2 starting round, M8
campaign choice, M14 interceptions, M19 battles, M13 blockade escapes, E1
exceptional taxes). Dice are drawn from ``random.Random(seed)`` and entered as
physical dice, so two runs with the same seed record the same rulings (only
hashes, times and turn commitments differ).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ledger.domain.commands import ChangeControl, MoveStack, PlaceMarker, RaiseStack, RemoveMarker  # noqa: E402
from ledger import board_facts  # noqa: E402
from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.rules.core import Die, get_ruleset  # noqa: E402
from ledger.scenario import import_scenario, load_text, normalise, parse  # noqa: E402
from ledger.sample import close_open_phases, reach_phase  # noqa: E402

GM = Actor("gm", "gm")
# The 8-player variant's majors: the sample's England and France, and six more without provinces on the sample's
# corner of the board, who keep treasuries, record entries and are named by rulings (8 sheets, 8 audiences).
MORE_COUNTRIES = [("SPA", "Spain"), ("POR", "Portugal"), ("VEN", "Venice"), ("TUR", "Turkey"), ("POL", "Poland"),
                  ("RUS", "Russia")]
COUNTRIES = ["ENG", "FRA"] + [code for code, _ in MORE_COUNTRIES]


def scenario_text() -> str:
    """The sample scenario with the six other majors added after France."""
    text = load_text("sample")
    anchor = "  - {code: FRA, name: France, player: bruno, treasury: 150, stability: 0}\n"
    assert anchor in text, "the sample scenario's France line moved"
    more = "".join(f"  - {{code: {code}, name: {name}, player: player-{code.lower()}, treasury: 100, stability: 0}}\n"
                   for code, name in MORE_COUNTRIES)
    return text.replace(anchor, anchor + more)
# The sample stands on the real board: moves go to a neighbour (the ledger refuses any other), a battle is
# fought in the terrain the board prints (any forest is M19's western forest here, in northern France).
SAMPLE = normalise(parse(load_text("sample"))[0])
LAND = [p["name"] for p in SAMPLE["provinces"]]
SEA = [z["name"] for z in SAMPLE["sea_zones"]]
NEIGHBOURS = {name: sorted({b for pair in SAMPLE["adjacency"] for a, b in (pair, pair[::-1]) if a == name})
              for name in LAND + SEA}
BATTLE_TERRAIN = {p["name"]: "western_forest" if p["terrain"] == "forest" else p["terrain"]
                  for p in SAMPLE["provinces"]}
ROUNDS = ["S1", "W1", "S2", "W2", "S3"]


def battle(attacker: str, defender: str, rng: random.Random, where: str) -> dict:
    def side(country: str) -> dict:
        return {"technology": rng.choice(["MED", "REN", "ARQ"]), "ld": rng.randint(2, 10), "army_class": "iv",
                "class_size": 2, "leader_man": rng.randint(1, 5), "country": country}

    return {"attacker": side(attacker), "defender": side(defender), "terrain": BATTLE_TERRAIN[where], "period": 2,
            "attacker_phasing_not_intercepted": False}


def generate(ledger: Ledger, slug: str, events: int, seed: int, turn_size: int = 200,
             progress=None) -> int:
    rng = random.Random(seed)
    cid, _ = import_scenario(ledger, scenario_text(), slug=slug, actor=GM)
    location = {"ENG-1": "Kent", "FRA-1": "Picardie", "ENG-F1": "Manche"}
    head = ledger.campaign(cid).version
    turn = 0

    rules = get_ruleset("eu")

    class SeededDice:
        """Dice from the generator's rng, so a seed fixes every ruling."""

        def roll(self, purpose: str, sides: int = 10, count: int = 1) -> Die:
            return Die(purpose=purpose, sides=sides, count=count,
                       values=tuple(rng.randint(1, sides) for _ in range(count)))

    def ruling(procedure: str, inputs: dict, ctx: dict, _n_dice: int = 0) -> None:
        # The random inputs stay: where the board or the map says otherwise, the game master keeps them (the
        # ledger refuses them otherwise), and what the ledger fills is filled here too, so that resolving
        # once with seeded dice learns the dice the ledger will use; they are recorded as physical dice.
        at = board_facts.At.of(ledger.campaign(cid), ledger.scenario(cid), ctx, inputs)
        found, filled, _ = board_facts.compare(at, "eu", procedure)
        drawn = rules.get(procedure).resolve(filled, SeededDice()).all_dice()
        ledger.record_ruling(cid, procedure=procedure, inputs=inputs, actor=GM, context=ctx,
                             overrides={f["field"]: "generated load" for f in found} or None,
                             manual_dice=[list(d.values) for d in drawn] if drawn else None)

    while head < events:
        ledger.open_turn(cid, actor=GM)
        turn += 1
        reach_phase(ledger, cid, "military")  # the sequence of play: nothing in events, diplomacy, incomes
        ruling("M2", {"poor_weather": False}, {"phase": "military"}, 1)
        start = ledger.campaign(cid).version
        while ledger.campaign(cid).version - start < turn_size and ledger.campaign(cid).version < events - 2:
            country = rng.choice(["ENG", "FRA"])
            anyone = rng.choice(COUNTRIES)
            ctx = {"phase": "military", "round": rng.choice(ROUNDS), "impulse": country}
            roll = rng.random()
            if roll < 0.25:
                stack = rng.choice(["ENG-1", "FRA-1"])
                dest = rng.choice([p for p in NEIGHBOURS[location[stack]] if p in LAND])
                ledger.submit(cid, MoveStack, stack=stack, origin=location[stack], destination=dest, actor=GM,
                              context=ctx)
                location[stack] = dest
            elif roll < 0.32:
                stack = "ENG-F1"
                dest = rng.choice([z for z in NEIGHBOURS[location[stack]] if z in SEA])
                ledger.submit(cid, MoveStack, stack=stack, origin=location[stack], destination=dest, actor=GM,
                              context=ctx)
                location[stack] = dest
            elif roll < 0.40:
                ledger.submit(cid, ChangeControl, province=rng.choice(LAND), controller=country, actor=GM, context=ctx)
            elif roll < 0.48:
                kind = PlaceMarker if rng.random() < 0.6 else RemoveMarker
                ledger.submit(cid, kind, province=rng.choice(LAND), marker=rng.choice(["Pillage-", "Revolt", "Siegework"]),
                              actor=GM, context=ctx)
            elif roll < 0.62:
                ledger.record_treasury_entry(cid, country=anyone, line="A9", amount=rng.randint(1, 40),
                                             reason="looting", actor=GM, context=ctx)
            elif roll < 0.72:
                ruling("M8", {"country": anyone, "land": rng.choice(["passive", "active"])}, ctx, 0)
            elif roll < 0.84:
                where = location["FRA-1" if country == "ENG" else "ENG-1"]
                ruling("M14", {"interceptor_man": rng.randint(0, 6), "target_man": rng.randint(0, 6),
                               "last_campaign": "active", "bad_weather": rng.random() < 0.3},
                       {**ctx, "where": where, "stacks": {"interceptor": f"{country}-1",
                                                          "target": ("FRA-1" if country == "ENG" else "ENG-1")}}, 1)
            elif roll < 0.92:
                other = "FRA" if country == "ENG" else "ENG"
                ruling("M19", battle(country, other, rng, location[f"{other}-1"]), {**ctx, "where": location[f"{other}-1"],
                       "stacks": {"attacker": f"{country}-1", "defender": f"{other}-1"}})
                for sid in ("ENG-1", "FRA-1"):  # a side the battle destroyed left the map: a new army is raised
                    if sid not in ledger.campaign(cid).stacks:
                        ledger.submit(cid, RaiseStack, stack=sid, country=sid[:3], location=location[sid],
                                      units={"LD": rng.randint(4, 8)}, reason="a new army", actor=GM, context=ctx)
            else:
                ruling("M13", {"direction": "exit", "moving_man": rng.randint(0, 4), "blockader_man": rng.randint(0, 4),
                               "moving_nd": rng.randint(1, 8), "blockader_nd": rng.randint(1, 8),
                               "blockader_all_nwd": True, "blockader_technology": "GAL"},
                       {**ctx, "where": location["ENG-F1"], "stacks": {"moving stack": "ENG-F1"}}, 1)
        reach_phase(ledger, cid, "exchequer")
        for who in COUNTRIES:
            ruling("E1", {"country": who, "adm": rng.randint(0, 9), "stability": 0}, {"phase": "exchequer"}, 1)
        close_open_phases(ledger, cid)
        ledger.close_turn(cid, actor=GM)
        head = ledger.campaign(cid).version
        if progress:
            progress(head)
    return head


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slug", default=None)
    ap.add_argument("--turn-size", type=int, default=200)
    args = ap.parse_args()
    ledger = Ledger(Settings())
    t0 = time.perf_counter()
    try:
        n = generate(ledger, args.slug or f"gen-{args.seed}", args.events, args.seed, args.turn_size,
                     progress=lambda h: print(f"\r{h} events", end="", file=sys.stderr))
    finally:
        ledger.close()
    secs = time.perf_counter() - t0
    print(f"\ngenerated {n} events in {secs:.1f} s ({n / secs:,.0f} events/s)")


if __name__ == "__main__":
    main()
