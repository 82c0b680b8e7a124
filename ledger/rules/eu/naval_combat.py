"""M20 Naval battles (eu-military-rules.tex §Les batailles navales, 2016 text).

Up to two days of fire then boarding, cumulating losses until one side flees (forced flight at
morale 0 or when the losses received exceed its size; voluntary flight after day 1). Losses are
modified by the size of the inflicting fleet, split into damaged / destroyed / refitted (winner)
or damaged / destroyed / damaged (loser), and pursuit stars capture warships, transports or gold.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step, TableCell, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode
from ledger.rules.eu import combat_tables as ct

SEC = "eu-military-rules.tex §Les batailles navales"
SEC_MODS = "engGeneralTables.tex 'Combat results' legends (see DECISIONS.md M19/M20)"
SideName = Literal["attacker", "defender"]
Prize = Literal["warships", "transports", "gold"]


class NavalSide(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    technology: ct.NavalTech
    nd: int = Field(default=0, ge=0, le=60, description="Sailing warship detachments (NWD)")
    ngd: int = Field(default=0, ge=0, le=60, description="Galley detachments (NGD)")
    nde: int = Field(default=0, ge=0, le=10, description="Exploration detachments (ignored for size)")
    ntd: int = Field(default=0, ge=0, le=20, description="Transports (do not fight)")
    gold_ntd: int = Field(default=0, ge=0, le=20, description="Transports loaded with gold")
    galleasses: int = Field(default=0, ge=0, le=2, description="Venetian galleass detachments")
    galleys_in_front: bool = Field(default=False, description="Galleys in the first line (fire losses halved)")
    morale: int | None = Field(default=None, ge=0, le=6)
    veteran: bool = False
    leader_man: int = Field(default=0, ge=0, le=9)
    leader_fire: int = Field(default=0, ge=0, le=9)
    leader_shock: int = Field(default=0, ge=0, le=9)
    retreats_after_day_one: bool = Field(default=False, description="Chooses to go back to port after day 1")
    pursuit_prizes: list[Prize] = Field(default_factory=list, max_length=6, description="Use of each pursuit ★, in order")
    nd_purchase_cost: int | None = Field(default=None, ge=0, le=200, description="Purchase cost of one ND (refit = half)")

    @model_validator(mode="after")
    def _fights(self) -> "NavalSide":
        if self.nd + self.ngd + self.nde == 0:
            raise ValueError("a fleet needs at least one warship detachment (ND, NGD or NDE)")
        if self.gold_ntd > self.ntd:
            raise ValueError("gold_ntd cannot exceed ntd")
        return self

    @property
    def size(self) -> int:
        # ND count of the fleet, NDE ignored; a galley detachment counts as one D in combat.
        return self.nd + self.ngd


class NavalBattleInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    attacker: NavalSide
    defender: NavalSide


def _m(value: int, reason: str, section: str = SEC) -> Modifier:
    return Modifier(value=value, reason=reason, rule="eu:M20", section=section)


def size_bonus(own: int, enemy: int) -> dict[str, int]:
    """Size-difference bonuses (tiers, not cumulative): +1 → shock +1; +3 → fire, shock +1;
    +5 → fire, shock, pursuit +1; +7 → fire +1, shock +2, pursuit +1."""
    diff = own - enemy
    for need, bonus in load_table("ledger.rules.eu", "naval_combat_rules.toml")["size_bonus"]:
        if diff >= need:
            return {"fire": bonus[0], "shock": bonus[1], "pursuit": bonus[2]}
    return {"fire": 0, "shock": 0, "pursuit": 0}


def modify_losses(inflicter: NavalSide, raw: Fraction, sufferer_routed: bool) -> tuple[Fraction, dict]:
    """Loss variation by the inflicting fleet's size, cap 2 × size (1 if NDE alone), minimum 1
    when the enemy routed."""
    n = inflicter.size
    if n < 6:
        red = ct.naval_small_stack_reduction(n)
        value, how = max(Fraction(0), raw + red), f"fewer than 6 ND: {ct.fmt(red)}"
    else:
        line = ct.naval_size_line(n)
        value, how = ct.naval_losses_by_size(raw, line), f"{n} ND: size line {line:+d}"
    cap = Fraction(1) if n == 0 else Fraction(2 * n)
    capped = min(value, cap)
    if sufferer_routed and raw > 0:
        capped = max(capped, Fraction(1))
    return capped, {"raw": ct.fmt(raw), "variation": how, "after_variation": ct.fmt(value), "cap": ct.fmt(cap), "losses": ct.fmt(capped)}


def split_losses(losses: Fraction, *, winner: bool, galleys: bool) -> dict:
    """Split losses into damaged / destroyed / refitted (eu-military-rules.tex, Répartition des
    pertes). Winner: 1st damaged, 2nd destroyed, 3rd refitted, then loop; loser (or equality):
    damaged, destroyed, damaged. Fractions against galleys or transports are rounded up; against
    ND they become NDE (⅓ → 1 NDE, ⅔ → 2 NDE) in the next category."""
    cycle = ["damaged", "destroyed", "refitted"] if winner else ["damaged", "destroyed", "damaged"]
    whole, rest = int(losses), losses - int(losses)
    if galleys and rest:
        whole, rest = whole + 1, Fraction(0)
    out = {k: {"nd": 0, "nde": 0} for k in ("damaged", "destroyed", "refitted")}
    for i in range(whole):
        out[cycle[i % 3]]["nd"] += 1
    if rest:
        out[cycle[whole % 3]]["nde"] += int(rest * 3)
    return out


@EU.procedure("M20", title="Naval battle", seed="eu-military-rules.tex §Les batailles navales", inputs=NavalBattleInputs)
def resolve_naval_battle(inputs: NavalBattleInputs, dice: DiceSource) -> Ruling:
    sides = {"attacker": inputs.attacker, "defender": inputs.defender}
    other = {"attacker": "defender", "defender": "attacker"}
    morale0 = {w: s.morale if s.morale is not None else ct.naval_morale(s.technology, veteran=s.veteran) for w, s in sides.items()}
    morale = dict(morale0)
    received = {w: Fraction(0) for w in sides}
    steps: list[Step] = []
    fled: dict[str, str] = {}  # side -> "forced" | "voluntary"
    max_leader = load_table("ledger.rules.eu", "combat_modifiers.toml")["leader_differential_max"]

    def forced(w: str) -> bool:
        adj, _ = modify_losses(sides[other[w]], received[w], False)
        return morale[w] <= 0 or adj > sides[w].size

    for day in (1, 2):
        for kind in ("fire", "shock"):
            hits = {}
            for w in ("attacker", "defender"):
                s, e = sides[w], sides[other[w]]
                fire_col, board_col = ct.naval_columns(s.technology, e.technology)
                col = fire_col if kind == "fire" else board_col
                name = f"day {day} {'fire' if kind == 'fire' else 'boarding'} ({w})"
                if col is None:
                    steps.append(Step(name=name, side=w, outcome={"rolled": False, "reason": "no fire column"}))
                    hits[w] = (Fraction(0), 0)
                    continue
                mods: list[Modifier] = []
                if day == 2:
                    mods.append(_m(-1, "second day"))
                own = s.leader_fire if kind == "fire" else s.leader_shock
                opp = e.leader_fire if kind == "fire" else e.leader_shock
                if own > opp:
                    mods.append(_m(min(own - opp, max_leader), f"admirals' {kind} differential", SEC_MODS))
                b = size_bonus(s.size, e.size)[kind]
                if b:
                    mods.append(_m(b, f"size difference {s.size - e.size:+d} ND"))
                if (morale0[w] - morale[w]) > (morale0[other[w]] - morale[other[w]]):
                    mods.append(_m(-1, "more morale lost than the enemy"))
                galleys_only_enemy = e.nd == 0 and e.ngd > 0
                if kind == "fire" and s.galleasses >= 2 and galleys_only_enemy:
                    mods.append(_m(1, "two galleass detachments against galleys"))
                d = dice.roll(f"naval {kind} day {day} ({w})")
                total = d.total + sum(m.value for m in mods)
                loss, cell = ct.combat_result(col, total)
                amount = loss.amount
                rule = "losses as printed"
                if kind == "fire" and s.galleys_in_front and not (s.galleasses and galleys_only_enemy):
                    amount, rule = ct.ceil_third(amount / 2), "galleys in front: fire losses halved, rounded up"
                hits[w] = (amount, loss.morale)
                steps.append(Step(name=name, side=w, modifiers=tuple(mods), dice=(d,), total=total, table_cell=cell,
                                  outcome={"losses_inflicted": ct.fmt(amount), "morale_inflicted": loss.morale, "rule": rule}))
            for w in sides:
                received[other[w]] += hits[w][0]
                morale[other[w]] -= hits[w][1]
            flight = [w for w in sides if forced(w)]
            steps.append(Step(name=f"day {day} {kind}: morale and forced flight",
                              outcome={w: {"morale": max(morale[w], 0), "losses_received": ct.fmt(received[w]), "forced_flight": w in flight} for w in sides}))
            for w in flight:
                fled[w] = "forced"
            if fled:
                break
        if fled or day == 2:
            break
        for w in ("defender", "attacker"):
            if sides[w].retreats_after_day_one:
                fled[w] = "voluntary"
                steps.append(Step(name=f"end of day 1: {w} returns to port", side=w, outcome={"voluntary_flight": True}))
                break
        if fled:
            break

    if len(fled) == 2 or (not fled and morale["attacker"] == morale["defender"]):
        winner = None
    elif fled:
        winner = other[next(iter(fled))]
    else:
        winner = "attacker" if morale["attacker"] > morale["defender"] else "defender"
    loser = other[winner] if winner else None

    captures: list[dict] = []
    if winner:
        s, e = sides[winner], sides[loser]
        mods = []
        if s.leader_man != e.leader_man:
            mods.append(_m(s.leader_man - e.leader_man, "MAN differential (at sea)", SEC_MODS))
        b = size_bonus(s.size, e.size)["pursuit"]
        if b:
            mods.append(_m(b, f"size difference {s.size - e.size:+d} ND"))
        d = dice.roll(f"naval pursuit ({winner})")
        total = d.total + sum(m.value for m in mods)
        loss, cell = ct.combat_result("E", total)
        received[loser] += loss.amount
        prizes = list(s.pursuit_prizes) + ["warships"] * loss.morale
        ntd_left, gold_left = e.ntd, e.gold_ntd
        for star in range(loss.morale):
            prize = prizes[star]
            if prize == "warships":
                captures.append({"star": star + 1, "prize": "warships", "nd": 1 if e.nd else 0, "ngd": 0 if e.nd else 2})
            elif prize == "transports":
                n = min(2, ntd_left - gold_left)
                ntd_left -= n
                captures.append({"star": star + 1, "prize": "transports", "ntd_sunk": n})
            else:
                n = min(2, gold_left)
                gold_left -= n
                ntd_left -= n
                captures.append({"star": star + 1, "prize": "gold", "ntd_captured": n, "ducats_captured": 10 * n, "ducats_sunk": 5 * n})
        steps.append(Step(name=f"pursuit ({winner})", side=winner, modifiers=tuple(mods), dice=(d,), total=total, table_cell=cell,
                          outcome={"losses_inflicted": ct.fmt(loss.amount), "stars": loss.morale, "captures": captures}))

    effects: list[Effect] = []
    final: dict[str, Fraction] = {}
    for w in ("attacker", "defender"):
        adj, detail = modify_losses(sides[other[w]], received[w], fled.get(w) == "forced")
        final[w] = adj
        galleys = sides[w].nd == 0 and sides[w].ngd > 0
        split = split_losses(adj, winner=(w == winner), galleys=galleys)
        refit = None
        if sides[w].nd_purchase_cost is not None:
            refit = Fraction(sides[w].nd_purchase_cost, 2) * split["damaged"]["nd"] + Fraction(sides[w].nd_purchase_cost, 6) * split["damaged"]["nde"]
        steps.append(Step(name=f"losses variation and split ({w}'s losses)", side=w,
                          table_cell=TableCell(table="Naval loss modification <S1> / <L2/S2>", row=detail["variation"], value=detail["losses"]),
                          outcome={**detail, "split": split, "sequence": "winner" if w == winner else "loser or equality",
                                   "refit_cost_ducats": ct.fmt(refit) if refit is not None else None}))
        unit = "ngd" if galleys else "nd"
        if split["destroyed"]["nd"] or split["destroyed"]["nde"]:
            effects.append(Effect(kind="nd_lost", country=sides[w].country, target=w,
                                  amount=Fraction(split["destroyed"]["nd"]) + Fraction(split["destroyed"]["nde"], 3), detail={"unit": unit}))
        if split["damaged"]["nd"] or split["damaged"]["nde"]:
            effects.append(Effect(kind="units_damaged", country=sides[w].country, target=w,
                                  amount=Fraction(split["damaged"]["nd"]) + Fraction(split["damaged"]["nde"], 3), detail={"unit": unit}))
    for c in captures:
        effects.append(Effect(kind="units_captured", country=sides[winner].country, target=loser, detail=c))
    major = False
    if winner and fled.get(loser) == "forced":
        diff = final[loser] - final[winner]
        need = 8 if (sides[loser].nd == 0 and sides[loser].ngd > 0) else 5
        major = diff >= need
    if loser:
        effects.append(Effect(kind="stack_retreats", country=sides[loser].country, target=loser, detail={"to": "nearest friendly port", "routed": fled.get(loser) == "forced"}))
    if major:
        effects.append(Effect(kind="victory_points", country=sides[winner].country, amount=Fraction(5), detail={"major_battle": True}))
    outcome = {
        "winner": winner, "loser": loser, "flight": fled, "morale": {w: max(morale[w], 0) for w in sides},
        "losses": {w: ct.fmt(final[w]) for w in sides}, "major_victory": major,
        "no_sea_transport_after_battle": True,
    }
    steps.append(Step(name="major victory", outcome={"major": major}))
    return EU.ruling("M20", inputs, steps=tuple(steps), outcome=outcome, effects=tuple(effects),
                     summary=f"Naval battle: winner {winner or 'none'}; losses attacker {ct.fmt(final['attacker'])}, defender {ct.fmt(final['defender'])}" + ("; major victory" if major else ""))
