"""M19 Battles: the fast-combat sequence A–G (eu8-fast-combat-and-tables.fr.txt §2.2).

One ruling holds every step so that a game master can read the battle as it happened:
A fire / shock rounds (simultaneous), B break-off, second round at −1, C outcome and pursuit,
D losses variation (small stack, cap, class comparison), E retreat attrition, F rounding,
G leader tests and major victory. Losses are exact fractions until step F.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Die, Effect, Modifier, Ruling, Step, TableCell, load_table
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode
from ledger.rules.eu import combat_tables as ct

SEC_SEQ = "eu8-fast-combat-and-tables.fr.txt §2.2.2 Séquence de la bataille"
SEC_ROUNDS = "eu8-fast-combat-and-tables.fr.txt §2.2.3 Pendant les rounds de combat"
SEC_LOSSES = "eu8-fast-combat-and-tables.fr.txt §2.2.4 Variation des pertes"
SEC_WIN = "eu8-fast-combat-and-tables.fr.txt §2.2.5 Qui gagne le combat"
SEC_CLASSES = "eu-military-rules.tex §Les batailles terrestres (Organisation des armées et cavaleries)"
SEC_MAJOR = "eu-military-rules.tex §Les batailles (Victoire majeure)"
SEC_MODS = "engGeneralTables.tex 'Combat results' legends (see DECISIONS.md M19)"

ArmyClass = Literal["i", "im", "ii", "iim", "iii", "iiim", "iv", "ivm", "a"]
Terrain = Literal[
    "plain", "desert", "eastern_forest", "western_forest", "northern_forest", "swamp", "mountain"
]
SideName = Literal["attacker", "defender"]
LeaderReading = Literal["unharmed", "wounded", "killed", "captured"]

ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII"}


class BattleSide(BaseModel):
    """One side of a land battle as the game master sees it."""

    model_config = ConfigDict(extra="forbid")

    country: CountryCode | None = None
    technology: ct.LandTech
    ld: int = Field(ge=0, le=60, description="LD equivalents fighting (ARMY− = 2, ARMY+ = 4)")
    lde: int = Field(default=0, ge=0, le=2, description="Extra LDE (a third of an LD each)")
    has_army: bool = Field(default=True, description="At least one ARMY counter")
    army_class: ArmyClass = Field(description="Army class of its ARMY counters (bonuses need one ARMY of the class)")
    class_size: int = Field(ge=0, le=7, description="Average class size of the stack (Army Classes table)")
    morale: int | None = Field(default=None, ge=0, le=6, description="Starting morale; default from the technology table")
    veteran: bool = False
    tercios: bool = Field(default=False, description="Spanish Tercios in the stack")
    sipahi: bool = Field(default=False, description="Turkish Sipahi (before reform M-2)")
    swedish: bool = Field(default=False, description="Swedish army (SUE bonus in northern forests)")
    non_european: bool = Field(default=False, description="Natives or a non-European country")
    leader_man: int = Field(default=0, ge=0, le=9)
    leader_fire: int = Field(default=0, ge=0, le=9)
    leader_shock: int = Field(default=0, ge=0, le=9)
    has_leader: bool = True
    cavalry_per_detachment: Fraction = Field(
        default=Fraction(1), ge=0, le=5, description="Cavalry per detachment (nation and period table)"
    )
    foraging: bool = Field(default=False, description="Foraging result of a movement attrition this impulse")
    attempts_break_off: bool = Field(default=False, description="Will try to break off at segment B")

    @model_validator(mode="after")
    def _size(self) -> "BattleSide":
        if self.ld == 0 and self.lde == 0:
            raise ValueError("a side needs at least one LD or LDE")
        return self

    @property
    def size(self) -> Fraction:
        return self.ld + Fraction(self.lde, 3)

    @property
    def cavalry(self) -> Fraction:
        return Fraction(self.cavalry_per_detachment) * self.size


class BattleInputs(BaseModel):
    """M19 inputs: both sides, where and when."""

    model_config = ConfigDict(extra="forbid")

    attacker: BattleSide
    defender: BattleSide
    terrain: Terrain
    period: int = Field(ge=1, le=7)
    rotw: bool = Field(default=False, description="Battle in the rest of the world")
    attacker_phasing_not_intercepted: bool = Field(
        default=True, description="The attacker is the phasing stack and was not intercepted"
    )
    crossing: Literal["none", "river_or_pass", "strait_or_landing"] = "none"
    leader_readings: dict[SideName, LeaderReading] = Field(
        default_factory=dict,
        description="Game master's reading of each leader test (the leader-loss table is not in the seeds)",
    )


# --------------------------------------------------------------------------- helpers


def _mods_table() -> dict:
    return load_table("ledger.rules.eu", "combat_modifiers.toml")


def _m(value: int, reason: str, section: str = SEC_ROUNDS) -> Modifier:
    return Modifier(value=value, reason=reason, rule="eu:M19", section=section)


def start_morale(side: BattleSide, enemy: BattleSide) -> int:
    if side.morale is not None:
        return side.morale
    return ct.land_morale(side.technology, enemy.technology, veteran=side.veteran, tercios=side.tercios)


def cavalry_advantage(side: BattleSide, enemy: BattleSide, terrain: str) -> bool:
    """≥ 2× the enemy's cavalry, in plain or eastern forest (eu8 §2.2.3 point 3)."""
    if terrain not in ("plain", "eastern_forest") or side.cavalry == 0:
        return False
    return side.cavalry >= 2 * enemy.cavalry


def class_shock_bonuses(side: BattleSide, enemy: BattleSide, terrain: str, period: int) -> list[Modifier]:
    """Army-class bonuses to shock (eu-military-rules.tex §Les batailles terrestres); they need
    at least one ARMY counter of the class."""
    out: list[Modifier] = []
    if side.has_army:
        if side.sipahi and terrain in ("plain", "desert"):
            out.append(_m(1, "Sipahi (Turkey before reform M-2) in plain/desert", SEC_CLASSES))
        if side.army_class == "iim" and period <= 4 and terrain in ("plain", "eastern_forest"):
            out.append(_m(1, "class iim, periods I–IV, plain/eastern forest", SEC_CLASSES))
        if side.army_class == "iiim" and 4 <= period <= 5 and terrain in ("plain", "western_forest"):
            out.append(_m(1, "class iiim, periods IV–V, plain/western forest", SEC_CLASSES))
        if side.swedish and 2 <= period <= 6 and terrain == "northern_forest":
            out.append(_m(1, "Sweden, periods II–VI, northern forest", SEC_CLASSES))
        if side.army_class == "iv" and 3 <= period <= 5 and terrain in ("plain", "western_forest"):
            out.append(_m(1, "class iv, periods III–V, plain/western forest", SEC_CLASSES))
    if enemy.tercios and enemy.has_army and period <= 5 and side.army_class not in ("i", "im", "ii", "iim"):
        out.append(_m(-1, "shock against Tercios (periods I–V, not classes i, im, ii, iim)", SEC_CLASSES))
    return out


def round_modifiers(
    inputs: BattleInputs, who: str, kind: str, rnd: int, fire_bonus: int
) -> list[Modifier]:
    """Modifiers of one fire or shock roll of side ``who`` in round ``rnd`` (1 or 2)."""
    t = _mods_table()
    side: BattleSide = getattr(inputs, who)
    enemy: BattleSide = getattr(inputs, "defender" if who == "attacker" else "attacker")
    k = 0 if kind == "fire" else 1
    mods: list[Modifier] = []
    if rnd == 2:
        mods.append(_m(t["second_round"], "second round"))
    if rnd == 1 and side.foraging:
        mods.append(_m(t["foraging_first_round"], "foraging (first round)", SEC_MODS))
    own = side.leader_fire if kind == "fire" else side.leader_shock
    opp = enemy.leader_fire if kind == "fire" else enemy.leader_shock
    if side.has_leader and own - (opp if enemy.has_leader else 0) > 0:
        diff = min(own - (opp if enemy.has_leader else 0), t["leader_differential_max"])
        mods.append(_m(diff, f"leaders' {kind} differential (max +{t['leader_differential_max']})", SEC_MODS))
    terrain = t["terrain"][inputs.terrain][rnd - 1][k]
    if terrain:
        mods.append(_m(terrain, f"terrain: {inputs.terrain}", SEC_MODS))
    if who == "attacker" and inputs.attacker_phasing_not_intercepted:
        if inputs.terrain == "mountain":
            v = t["phasing"]["mountain"][rnd - 1][k]
            if v:
                mods.append(_m(v, "mountain, phasing and not intercepted", SEC_MODS))
        if inputs.crossing != "none":
            v = t["phasing"][inputs.crossing][rnd - 1][k]
            if v:
                mods.append(_m(v, f"{inputs.crossing.replace('_', ' ')}, phasing and not intercepted", SEC_MODS))
    if kind == "fire" and fire_bonus:
        mods.append(_m(fire_bonus, "enemy failed to break off (+2 to the next fire)"))
    if kind == "shock":
        if cavalry_advantage(side, enemy, inputs.terrain):
            mods.append(_m(1, "cavalry advantage (at least twice the enemy's cavalry)"))
        mods.extend(class_shock_bonuses(side, enemy, inputs.terrain, inputs.period))
    return mods


def can_fire(side: BattleSide, enemy: BattleSide) -> tuple[bool, str]:
    if side.technology == "MED":
        return False, "Medieval: no fire roll"
    if side.technology == "REN" and not ct.renaissance_fires(side.has_army, enemy.non_european):
        return False, "Renaissance without ARMY, not against natives/non-European: no fire roll"
    return True, ""


@dataclass
class _State:
    morale: int
    received: list[tuple[str, Fraction]] = field(default_factory=list)
    broke_round: int | None = None  # index 0..3 of the round (or 4 = pursuit) when morale hit 0
    broke_at_fire: bool = False

    @property
    def total_received(self) -> Fraction:
        return sum((a for _, a in self.received), Fraction(0))


def _other(who: str) -> str:
    return "defender" if who == "attacker" else "attacker"


def adjust_losses(
    inflicter: BattleSide, sufferer: BattleSide, raw: Fraction, dice: DiceSource | None, label: str
) -> tuple[Fraction, list[Step], bool]:
    """Step D for the losses ``sufferer`` takes from ``inflicter``: small-stack reduction and
    cap to the inflicter's size (D.1), then class comparison (D.2). Returns the adjusted losses,
    the steps (empty when called for the segment-B check) and whether a die was needed."""
    steps: list[Step] = []
    red = ct.small_stack_reduction(inflicter.ld, inflicter.lde)
    dice_used: tuple[Die, ...] = ()
    note = ""
    if red is None:  # 7 LD: −⅓ on an odd die
        if dice is None:
            red = ct.seven_ld_odd_reduction()  # pessimistic for the elimination check
        else:
            d = dice.roll(f"small-stack reduction, 7 LD ({label})")
            dice_used = (d,)
            red = ct.seven_ld_odd_reduction() if d.total % 2 else Fraction(0)
            note = f"7 LD: die {d.total} {'odd' if d.total % 2 else 'even'}"
    reduced = max(Fraction(0), raw + red)
    cap = inflicter.size
    capped = min(reduced, cap)
    row = ct.size_comparison(inflicter.class_size, sufferer.class_size)
    varied = ct.losses_variation(capped, row)
    if dice is not None:
        steps.append(
            Step(
                name=f"D.1 losses variation by size ({label})",
                side=label.split("'")[0],
                dice=dice_used,
                table_cell=TableCell(
                    table="Loss modification for small stacks <L1>",
                    row=f"{inflicter.ld} LD" + (f" + {inflicter.lde} LDE" if inflicter.lde else ""),
                    value=ct.fmt(red),
                ),
                outcome={
                    "raw_losses": ct.fmt(raw),
                    "reduction": ct.fmt(red),
                    "after_reduction": ct.fmt(reduced),
                    "cap_size_of_inflicting_army": ct.fmt(cap),
                    "losses": ct.fmt(capped),
                    **({"note": note} if note else {}),
                },
            )
        )
        steps.append(
            Step(
                name=f"D.2 class comparison ({label})",
                side=label.split("'")[0],
                table_cell=TableCell(
                    table="Comparaison des tailles / Variation de pertes selon la taille",
                    row=f"size {inflicter.class_size} vs {sufferer.class_size} → line {row:+d}",
                    column=ct.fmt(capped),
                    value=ct.fmt(varied),
                ),
                outcome={"size_comparison": row, "losses_before": ct.fmt(capped), "losses": ct.fmt(varied)},
            )
        )
    return varied, steps, bool(dice_used)


# --------------------------------------------------------------------------- resolver


@EU.procedure("M19", title="Battle (fast combat)", seed="eu8-fast-combat-and-tables.fr.txt §2.2", inputs=BattleInputs)
def resolve_battle(inputs: BattleInputs, dice: DiceSource) -> Ruling:
    """M19: the A–G sequence of eu8 §2.2.2, one Step per die or computation."""
    sides = {"attacker": inputs.attacker, "defender": inputs.defender}
    st = {w: _State(morale=start_morale(sides[w], sides[_other(w)])) for w in sides}
    steps: list[Step] = []
    fire_bonus = {"attacker": 0, "defender": 0}
    broke_off: str | None = None
    eliminated: list[str] = []
    rounds = [("fire", 1), ("shock", 1), ("fire", 2), ("shock", 2)]

    for idx, (kind, rnd) in enumerate(rounds):
        if idx == 2:
            # B. elimination check, then break-off (defender first, then attacker).
            for w in sides:
                adj, _, _ = adjust_losses(sides[_other(w)], sides[w], st[w].total_received, None, w)
                if adj >= sides[w].size:
                    eliminated.append(w)
            if eliminated:
                steps.append(
                    Step(name="B. elimination check", outcome={"eliminated": eliminated, "stop": True}),
                )
                break
            for w in ("defender", "attacker"):
                if not sides[w].attempts_break_off:
                    continue
                side = sides[w]
                target = side.leader_man + st[w].morale
                d = dice.roll(f"break-off ({w})")
                ok = d.total < target
                steps.append(
                    Step(
                        name=f"B. break-off ({w})",
                        side=w,
                        dice=(d,),
                        total=d.total,
                        table_cell=TableCell(table="Break-off", row=str(d.total), column=f"< MAN {side.leader_man} + morale {st[w].morale}", value="success" if ok else "failure"),
                        outcome={"success": ok, "needed_below": target},
                    )
                )
                if ok:
                    broke_off = w
                    break
                fire_bonus[_other(w)] = _mods_table()["break_off_failed_enemy_fire_bonus"]
            if broke_off:
                break
        label = f"A.{idx + 1} {kind}" + (", second round" if rnd == 2 else "")
        hits: dict[str, tuple[Fraction, int]] = {}
        for w in ("attacker", "defender"):
            side, enemy = sides[w], sides[_other(w)]
            fire_col, shock_col = ct.land_columns(side.technology, enemy.technology)
            if kind == "fire":
                ok, why = can_fire(side, enemy)
                if not ok or fire_col is None:
                    steps.append(Step(name=f"{label} ({w})", side=w, outcome={"rolled": False, "reason": why or "no fire column"}))
                    hits[w] = (Fraction(0), 0)
                    continue
            col = fire_col if kind == "fire" else shock_col
            mods = round_modifiers(inputs, w, kind, rnd, fire_bonus[w] if kind == "fire" else 0)
            d = dice.roll(f"{kind} round {rnd} ({w})")
            total = d.total + sum(m.value for m in mods)
            loss, cell = ct.combat_result(col, total)
            note = "losses as printed"
            if kind == "fire":
                loss, note = ct.land_fire_rule(side.technology, loss)
                fire_bonus[w] = 0
            hits[w] = (loss.amount, loss.morale)
            steps.append(
                Step(
                    name=f"{label} ({w})",
                    side=w,
                    modifiers=tuple(mods),
                    dice=(d,),
                    total=total,
                    table_cell=cell,
                    outcome={"losses_inflicted": ct.fmt(loss.amount), "morale_inflicted": loss.morale, "rule": note},
                )
            )
        # Simultaneous: apply both results, then look at morale.
        for w in ("attacker", "defender"):
            amount, stars = hits[w]
            o = _other(w)
            if amount:
                st[o].received.append((label, amount))
            st[o].morale -= stars
        for w in ("attacker", "defender"):
            if st[w].morale <= 0 and st[w].broke_round is None:
                st[w].broke_round = idx
                st[w].broke_at_fire = kind == "fire"
        steps.append(
            Step(
                name=f"{label}: morale",
                outcome={w: {"morale": max(st[w].morale, 0), "routed": st[w].morale <= 0} for w in sides},
            )
        )
        if any(st[w].morale <= 0 for w in sides):
            break

    # C. who wins.
    routed = [w for w in sides if st[w].morale <= 0]
    winner: str | None
    if eliminated:
        winner = _other(eliminated[0]) if len(eliminated) == 1 else None
        case = "C.1 (eliminated)" if winner else "C.3"
    elif len(routed) == 2:
        winner, case = None, "C.3"
    elif len(routed) == 1:
        winner, case = _other(routed[0]), "C.1"
    elif broke_off:
        winner, case = _other(broke_off), "C.2 (break-off)"
    elif st["attacker"].morale == st["defender"].morale:
        winner, case = None, "C.3"
    else:
        winner = "attacker" if st["attacker"].morale > st["defender"].morale else "defender"
        case = "C.2"
    loser = _other(winner) if winner else None

    if winner and not (eliminated and loser in eliminated):
        w, lo = winner, loser
        t = _mods_table()
        mods: list[Modifier] = []
        diff = (sides[w].leader_man if sides[w].has_leader else 0) - (sides[lo].leader_man if sides[lo].has_leader else 0)
        if diff:
            mods.append(_m(diff, "MAN differential (pursuer − pursued)"))
        pt = t["pursuit_terrain"].get(inputs.terrain, 0)
        if pt:
            mods.append(_m(pt, f"terrain: {inputs.terrain}", SEC_MODS))
        if cavalry_advantage(sides[w], sides[lo], inputs.terrain):
            mods.append(_m(1, "cavalry advantage"))
        if sides[w].sipahi and sides[w].has_army and inputs.terrain in ("plain", "desert"):
            mods.append(_m(1, "Sipahi in plain/desert", SEC_CLASSES))
        if st[lo].broke_round is not None and st[lo].broke_at_fire:
            mods.append(_m(t["pursuit_broke_at_fire"], "enemy broke at fire"))
        if st[lo].broke_round is not None and st[lo].broke_round <= 1:
            mods.append(_m(t["pursuit_broke_first_two_rounds"], "enemy broke in one of the first two rounds"))
        d = dice.roll(f"pursuit ({w})")
        total = d.total + sum(m.value for m in mods)
        loss, cell = ct.combat_result("E", total)
        st[lo].received.append(("C. pursuit", loss.amount))
        was_routed = st[lo].morale <= 0
        st[lo].morale -= loss.morale
        if not was_routed and st[lo].morale <= 0:
            st[lo].broke_round = 4
            case += " → rout in pursuit (ends as C.1)"
        steps.append(
            Step(
                name=f"C. pursuit ({w})",
                side=w,
                modifiers=tuple(mods),
                dice=(d,),
                total=total,
                table_cell=cell,
                outcome={
                    "case": case,
                    "losses_inflicted": ct.fmt(loss.amount),
                    "morale_inflicted": loss.morale,
                    "loser_morale": max(st[lo].morale, 0),
                    "loser_routed": st[lo].morale <= 0,
                },
            )
        )
    else:
        steps.append(Step(name="C. outcome", outcome={"case": case, "winner": winner, "pursuit": False}))

    # D. losses variation per side (losses a side takes, caused by the other).
    adjusted: dict[str, Fraction] = {}
    for w in ("attacker", "defender"):
        adj, dsteps, _ = adjust_losses(sides[_other(w)], sides[w], st[w].total_received, dice, f"{w}'s losses")
        adjusted[w] = adj
        steps.extend(dsteps)

    # E. retreat attrition of the loser (not in C.3).
    retreat: dict[str, Fraction] = {"attacker": Fraction(0), "defender": Fraction(0)}
    if loser:
        routed_loser = st[loser].morale <= 0
        man = 0 if routed_loser else (sides[loser].leader_man if sides[loser].has_leader else 0)
        mods = [_m(-man, "MAN of the leader (force not routed)", SEC_SEQ)] if man else []
        d = dice.roll(f"retreat attrition ({loser})")
        total = d.total - man
        rows = load_table("ledger.rules.eu", "combat_retreat.toml")["rows"]
        extra = next(ct.frac(r["losses"]) for r in rows if total <= r["max"])
        retreat[loser] = extra
        steps.append(
            Step(
                name=f"E. retreat attrition ({loser})",
                side=loser,
                modifiers=tuple(mods),
                dice=(d,),
                total=total,
                table_cell=TableCell(table="Retreat", row=str(total), value=ct.fmt(extra)),
                outcome={"extra_losses": ct.fmt(extra), "routed": routed_loser},
            )
        )

    # F. rounding.
    final = {w: ct.round_losses(adjusted[w] + retreat[w]) for w in sides}
    steps.append(
        Step(
            name="F. rounding",
            outcome={
                w: {
                    "before_rounding": ct.fmt(adjusted[w] + retreat[w]),
                    "ld_lost": min(final[w], sides[w].ld + (1 if sides[w].lde else 0)),
                }
                for w in sides
            },
        )
    )
    final = {w: min(final[w], sides[w].ld + (1 if sides[w].lde else 0)) for w in sides}

    # G. leader tests, then major victory.
    effects: list[Effect] = []
    gm: list[str] = []
    for w in ("attacker", "defender"):
        side, enemy = sides[w], sides[_other(w)]
        if not side.has_leader:
            continue
        if not inputs.rotw and enemy.size < 3:
            steps.append(Step(name=f"G. leader test ({w})", side=w, outcome={"tested": False, "reason": "enemy had fewer than 3 LD"}))
            continue
        d = dice.roll(f"leader test ({w})")
        reading = inputs.leader_readings.get(w)
        if reading:
            gm.append(f"leader test ({w}): {reading}")
            if reading != "unharmed":
                effects.append(Effect(kind=f"leader_{reading}", country=side.country, target=w))
        steps.append(
            Step(
                name=f"G. leader test ({w})",
                side=w,
                dice=(d,),
                total=d.total,
                outcome={"tested": True, "reading": reading or "pending: game master reads the usual leader-loss rule"},
            )
        )
    major = False
    threshold = None
    if winner and loser and st[loser].morale <= 0:
        loser_row = ct.size_comparison(sides[loser].class_size, sides[winner].class_size)
        threshold = 4 if loser_row == -2 else 3
        diff = final[loser] - final[winner]
        rotw_ok = (not inputs.rotw) or (sides[loser].has_army and not sides[loser].non_european)
        major = diff >= threshold and rotw_ok
    steps.append(
        Step(
            name="G. major victory",
            outcome={"major": major, "threshold": threshold, "loss_difference": (final[loser] - final[winner]) if loser else 0},
        )
    )

    for w in ("attacker", "defender"):
        if final[w]:
            effects.append(Effect(kind="ld_lost", country=sides[w].country, target=w, amount=Fraction(final[w])))
    # A side whose losses take every LD it had is destroyed: it does not retreat (a 3-LD loser losing 3 LD).
    destroyed = [w for w in sides if final[w] >= sides[w].ld + (1 if sides[w].lde else 0)]
    for w in destroyed:
        effects.append(Effect(kind="stack_destroyed", country=sides[w].country, target=w,
                              detail={"ld_lost": final[w], "reason": "losses take every LD of the stack"}))
    if loser and loser not in destroyed:
        effects.append(Effect(kind="stack_retreats", country=sides[loser].country, target=loser, detail={"routed": st[loser].morale <= 0}))
    elif not loser:
        for w in ("attacker", "defender"):
            if w not in destroyed:
                effects.append(Effect(kind="stack_retreats", country=sides[w].country, target=w, detail={"back_where_it_came_from": True}))
    if major and winner and loser:
        effects.append(Effect(kind="victory_points", country=sides[winner].country, amount=Fraction(5), detail={"major_battle": True}))
        effects.append(Effect(kind="stability_changed", country=sides[winner].country, amount=Fraction(1)))
        effects.append(Effect(kind="stability_changed", country=sides[loser].country, amount=Fraction(-1)))

    vp = "none" if not winner else ("normal" if st[loser].morale <= 0 or eliminated else "half")
    outcome = {
        "case": case,
        "winner": winner,
        "loser": loser,
        "routed": [w for w in sides if st[w].morale <= 0],
        "eliminated": eliminated,
        "broke_off": broke_off,
        "morale": {w: max(st[w].morale, 0) for w in sides},
        "losses_exact": {w: ct.fmt(adjusted[w] + retreat[w]) for w in sides},
        "ld_lost": final,
        "major_victory": major,
        "vp_award": vp,
        "destroyed": destroyed,
        "moving_stack_may_continue": winner == "attacker" and "attacker" not in destroyed,
    }
    summary = (
        f"Battle: {case}; winner {winner or 'none'}; losses attacker {final['attacker']} LD, "
        f"defender {final['defender']} LD" + ("; major victory" if major else "")
        + "".join(f"; {w} destroyed" for w in destroyed)
    )
    return EU.ruling("M19", inputs, steps=tuple(steps), outcome=outcome, effects=tuple(effects), gm_supplied=tuple(gm), summary=summary)
