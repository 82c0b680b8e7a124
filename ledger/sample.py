"""The sample campaign the README's run command serves: the Channel scenario and one real turn.

The scenario is a corner of the real board (ledger/scenarios/sample.yaml, ``board: eu``): the English land
in Picardie across the Manche, win the battle, and the French retreat along the board's borders, through
Caux (Picardie does not border Normandie) into Normandie.

Every step goes through the real use cases and resolvers (server dice), so the
views, the replay and the audit tools have something true to show: M2 starting
round, M8 campaign choice, a land interception (M14) at Picardie, a blockade
escape (M13), a battle (M19), a treasury entry, exceptional taxes (E1), map
commands, each in its phase of the sequence of play (the phases closed in order); then turn 1 closes and
turn 2 opens, at its military phase (nothing happens in its events, diplomacy and incomes phases). Idempotency keys make it safe to
run twice.
"""

from __future__ import annotations

from ledger.domain.commands import ChangeControl, MoveStack, PlaceMarker
from ledger.application import Actor, Ledger
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import CampaignNotFound
from ledger.scenario import import_scenario, load_text

SLUG = "sample"
GM = Actor("gm", "gm")


def ensure_sample(ledger: Ledger) -> str:
    """Create the sample campaign once (a no-op when it exists)."""
    cid = campaign_id(SLUG)
    try:
        ledger.campaign(cid)
        return SLUG
    except CampaignNotFound:
        pass
    import_scenario(ledger, load_text("sample"), slug=SLUG, name="Sample campaign (Channel, 1492)",
                    source="ledger/scenarios/sample.yaml", actor=GM, idempotency_key="sample-scenario")
    play_sample_turn(ledger)
    return SLUG


#: Physical dice that make the sample turn's outcome fixed (the tests' hand-worked expectations):
#: M2 5 → S2; M14 6 + 1 + 1 − 2 = 6 < 8, interception fails; M19 ENG wins a major victory
#: (FRA-1 loses 3 LD, ENG +5 VP, stability ENG +1, FRA −1); M13 2 → stopped; E1 (6 + 5) × 10 = 110.
FIXED_DICE: dict[str, list[list[int]]] = {
    "M2": [[5]], "M14": [[6]], "M19": [[10], [1], [10], [1], [10]], "M13": [[2]], "E1": [[6]],
}


def play_sample_turn(ledger: Ledger, dice: dict[str, list[list[int]]] | None = None, slug: str = SLUG) -> None:
    """Turn 1 of the sample; ``dice`` (procedure → physical dice) fixes outcomes, else server dice."""
    cid = campaign_id(slug)
    k = f"{slug}-"
    dice = dice or {}

    def ruling(procedure: str, inputs: dict, context: dict, key: str) -> None:
        ledger.record_ruling(cid, procedure=procedure, inputs=inputs, actor=GM, context=context,
                             manual_dice=dice.get(procedure), idempotency_key=k + key)

    ledger.open_turn(cid, actor=GM, idempotency_key=k + "turn-1")
    # The sequence of play (ledger/sequence.py): nothing happens in the events, diplomacy and incomes phases of
    # this turn; the war of ENG against FRA is the scenario's.
    for phase in ("events", "diplomacy", "incomes"):
        ledger.close_phase(cid, phase, actor=GM, idempotency_key=k + f"close-{phase}-1")
    military = {"phase": "military"}
    ruling("M2", {"poor_weather": False}, military, "m2")
    s2_eng = {"phase": "military", "round": "S2", "impulse": "ENG"}
    s2_fra = {"phase": "military", "round": "S2", "impulse": "FRA"}
    ruling("M8", {"country": "ENG", "land": "active", "sea": "passive"}, s2_eng, "m8-eng")
    ledger.submit(cid, MoveStack, stack="ENG-F1", origin="Manche", destination="Celtique", reason="naval move",
                  actor=GM, context=s2_eng, idempotency_key=k + "move-f1")
    ledger.submit(cid, MoveStack, stack="ENG-1", origin="Kent", via=["Manche"], destination="Picardie",
                  reason="landing in Picardie", actor=GM, context=s2_eng, idempotency_key=k + "move-eng1")
    # FRA-1 (La Trémoille, MAN 4) tries to intercept ENG-1 (Talbot, MAN 3) at Picardie in bad weather.
    ruling("M14", {"interceptor_man": 4, "target_man": 3, "last_campaign": "active", "same_province": True,
                   "target_province_friendly": False, "bad_weather": True},
           {**s2_eng, "where": "Picardie", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}}, "m14")
    # ENG-1 attacks FRA-1 in Picardie (fast combat).
    ruling("M19", {"attacker": {"technology": "MUS", "ld": 6, "army_class": "iv", "class_size": 2, "leader_man": 3,
                                "country": "ENG"},
                   "defender": {"technology": "MED", "ld": 8, "army_class": "iv", "class_size": 2, "leader_man": 4,
                                "country": "FRA"},
                   "terrain": "plain", "period": 2, "attacker_phasing_not_intercepted": False},
           {**s2_eng, "where": "Picardie", "stacks": {"attacker": "ENG-1", "defender": "FRA-1"}}, "m19")
    ledger.submit(cid, MoveStack, stack="FRA-1", origin="Picardie", via=["Caux"], destination="Normandie",
                  reason="retreat after the battle of Picardie", actor=GM, context=s2_eng,
                  idempotency_key=k + "retreat")
    ruling("M13", {"direction": "exit", "moving_man": 2, "blockader_man": 0, "moving_nd": 4, "blockader_nd": 2,
                   "blockader_all_nwd": True, "blockader_technology": "GAL"},
           {**s2_eng, "where": "Celtique", "stacks": {"moving stack": "ENG-F1"}}, "m13")
    ledger.submit(cid, PlaceMarker, province="Picardie", marker="Pillage-", reason="ENG-1 forages in Picardie",
                    actor=GM, context=s2_eng, idempotency_key=k + "pillage")
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=12, reason="looting of Picardie",
                                 actor=GM, context=s2_eng, idempotency_key=k + "a9")
    ledger.submit(cid, ChangeControl, province="Picardie", controller="ENG", previous="FRA",
                      reason="ENG-1 holds the open country of Picardie", actor=GM, context=s2_fra,
                      idempotency_key=k + "control")
    for phase in ("military", "redeployment"):
        ledger.close_phase(cid, phase, actor=GM, idempotency_key=k + f"close-{phase}-1")
    ruling("E1", {"country": "FRA", "adm": 5, "stability": 0}, {"phase": "exchequer"}, "e1")
    for phase in ("exchequer", "peace", "interphase"):
        ledger.close_phase(cid, phase, actor=GM, idempotency_key=k + f"close-{phase}-1")
    ledger.close_turn(cid, turn=1, actor=GM, idempotency_key=k + "close-1")
    ledger.open_turn(cid, actor=GM, idempotency_key=k + "turn-2")
    # Nothing happens in turn 2's events, diplomacy and incomes phases: the sample stops at its military phase.
    for phase in ("events", "diplomacy", "incomes"):
        ledger.close_phase(cid, phase, actor=GM, idempotency_key=k + f"close-{phase}-2")


def reach_phase(ledger: Ledger, cid, phase: str, actor: Actor = GM) -> None:
    """Close the open turn's phases before ``phase``, in order (those already closed stay so): the sequence of
    play (ledger/sequence.py) then accepts what belongs to ``phase``."""
    from ledger.domain.commands import PHASES

    closed = ledger.campaign(cid).phases_closed
    for earlier in PHASES[:PHASES.index(phase)]:
        if earlier not in closed:
            ledger.close_phase(cid, earlier, actor=actor)


def close_open_phases(ledger: Ledger, cid, actor: Actor = GM) -> None:
    """Close every phase of the open turn still open, in order, so that the turn may close."""
    from ledger.domain.commands import PHASES

    closed = ledger.campaign(cid).phases_closed
    for phase in PHASES:
        if phase not in closed:
            ledger.close_phase(cid, phase, actor=actor)
