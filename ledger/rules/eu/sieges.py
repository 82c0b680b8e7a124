"""M21 Sieges: undermining, assault, capture, port siegeworks (eu-military-rules.tex §Sieges,
eu8-fast-combat-and-tables.fr.txt §2.3; numbers from TABLES.md "Sieges").

One procedure, four actions chosen by ``action``. A siege needs at least as many LD as the
fortress level (the siege upkeep): below that no die is rolled and the ruling records the
forced redeployment.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, Step, TableCell, clamp, load_table, parse_loss
from ledger.rules.eu import EU
from ledger.rules.eu import combat_tables as ct

SEC = "eu-military-rules.tex §Sieges"
SEC_FR = "eu8-fast-combat-and-tables.fr.txt §2.3 Les sièges"
SEC_T = "TABLES.md Sieges"


def _t() -> dict:
    return load_table("ledger.rules.eu", "siege_tables.toml")


def _m(value: int, reason: str, section: str = SEC) -> Modifier:
    return Modifier(value=value, reason=reason, rule="eu:M21", section=section)


ArtillerySource = Literal["eu8", "tables"]


class SiegeInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["undermine", "assault", "capture", "port_siegeworks_fire"]
    fortress_level: int = Field(ge=0, le=5, description="0 = fort")
    map_level: int = Field(default=0, ge=0, le=5, description="Level printed on the map (minimum after capture)")
    besieger_ld: int = Field(default=0, ge=0, le=60)
    besieger_has_army: bool = True
    besieger_technology: ct.LandTech = "MUS"
    besieger_morale: int = Field(default=3, ge=0, le=6)
    besieger_leader_fire: int = Field(default=0, ge=0, le=9)
    besieger_leader_shock: int = Field(default=0, ge=0, le=9)
    besieger_leader_siege: int = Field(default=0, ge=0, le=5)
    artillery_value: int = Field(default=0, ge=0, le=20, description="Artillery value of the besieger")
    artillery_source: ArtillerySource = Field(
        default="eu8",
        description="Ruleset option (campaign setting rules_options 'M21.artillery_source'): 'eu8' = the French "
        "seed §2.3.1, artillery reduces the fortress-level malus of the assault FIRE only (−1 at 4× the level, "
        "−2 at 6×); 'tables' = TABLES.md 'Artillery bonus against Fortresses' +1..+3 to assault fire and shock "
        "and to undermining (DECISIONS.md M21)",
    )
    besieged_technology: ct.LandTech = "MUS"
    besieged_ld_inside: int = Field(default=0, ge=0, le=10)
    besieged_morale: int = Field(default=3, ge=0, le=6, description="A fortress is veteran")
    besieged_leader_fire: int = Field(default=0, ge=0, le=9)
    besieged_leader_shock: int = Field(default=0, ge=0, le=9)
    besieged_leader_siege: int = Field(default=0, ge=0, le=5)
    clear_terrain: bool = True
    port: bool = False
    blockaded: bool = False
    breach: bool = Field(default=False, description="A breach was obtained this turn")
    bloody_assault_this_turn: bool = Field(default=False, description="An assault this turn caused at least 1 loss")
    siegeworks_minus: int = Field(default=0, ge=0, le=2)
    siegeworks_plus: int = Field(default=0, ge=0, le=2)
    garrison: bool = Field(default=False, description="Capture: the new occupant garrisons with 1 LD (lost)")

    @model_validator(mode="after")
    def _checks(self) -> "SiegeInputs":
        if self.map_level > self.fortress_level:
            raise ValueError("map_level cannot exceed fortress_level")
        if self.action in ("undermine", "assault") and self.besieger_ld == 0:
            raise ValueError("besieger_ld: a siege needs a besieger")
        return self


def artillery_bonus(level: int, artillery: int) -> int:
    t = _t()["artillery_bonus"]
    for bonus, key in ((3, "plus3"), (2, "plus2"), (1, "plus1")):
        if artillery >= t[key][level]:
            return bonus
    return 0


def artillery_malus_reduction(level: int, artillery: int) -> int:
    """eu8 §2.3.1: artillery of at least 4× (6×) the fortress level reduces its malus by 1 (2), never
    beyond the malus itself; a fort (level 0) has no malus to reduce."""
    t = _t()["artillery_eu8"]
    if level == 0:
        return 0
    reduction = next((r for times, r in t["reductions"] if artillery >= times * level), 0)
    return min(reduction, level)


def undermining_modifiers(i: SiegeInputs) -> list[Modifier]:
    t = _t()["modifiers"]
    m = [_m(-i.fortress_level, "fortress level", SEC_T)] if i.fortress_level else []
    # Terrain: not cumulative (one at most).
    if i.port and not i.blockaded:
        m.append(_m(t["port_clear"] if i.clear_terrain else t["port_rough"],
                    f"port without blockade, {'clear' if i.clear_terrain else 'non-clear'} terrain"))
    elif not i.clear_terrain:
        m.append(_m(t["rough_no_port"], "rough terrain without port (or blockaded)"))
    if i.breach:
        m.append(_m(t["breach_this_turn"], "breach this turn", SEC_T))
    elif i.bloody_assault_this_turn:
        m.append(_m(t["bloody_assault"], "an assault caused at least 1 loss this turn (not with a breach)"))
    if i.siegeworks_minus:
        m.append(_m(t["siegework_minus"] * i.siegeworks_minus, f"{i.siegeworks_minus} Siegework−", SEC_T))
    if i.siegeworks_plus:
        m.append(_m(t["siegework_plus"] * i.siegeworks_plus, f"{i.siegeworks_plus} Siegework+", SEC_T))
    if i.besieged_leader_siege:
        m.append(_m(-i.besieged_leader_siege, "siege value of the besieged leader", SEC_T))
    if i.besieger_leader_siege:
        m.append(_m(i.besieger_leader_siege, "siege value of the besieger leader", SEC_T))
    art = artillery_bonus(i.fortress_level, i.artillery_value) if i.artillery_source == "tables" else 0
    if art:
        m.append(_m(art, f"artillery value {i.artillery_value} against level {i.fortress_level}", SEC_T))
    return m


def _undermine(i: SiegeInputs, dice: DiceSource) -> Ruling:
    mods = undermining_modifiers(i)
    d = dice.roll("undermining")
    total = d.total + sum(m.value for m in mods)
    result = next(r for mx, r in _t()["undermining"] if total <= mx)
    effects = []
    if result == "siegework_minus":
        effects.append(Effect(kind="marker_placed", marker="Siegework-", detail={"note": "2 Siegework− = 1 Siegework+, max 2 counters"}))
    elif result == "siegework_plus":
        effects.append(Effect(kind="marker_placed", marker="Siegework+"))
    elif result == "rendition":
        effects.append(Effect(kind="control_changed", detail={"fortress_falls": True, "survivors": False}))
    return EU.ruling("M21", i, modifiers=tuple(mods), dice=(d,), total=total,
                     table_cell=TableCell(table="Siegeworks", row=str(total), value=result),
                     outcome={"action": "undermine", "result": result,
                              "assault_allowed": result in ("breach", "breach_or_war_honours"),
                              "war_honours_option": result == "breach_or_war_honours"},
                     effects=tuple(effects), summary=f"Undermining: die {d.total}, total {total} → {result}")


def _assault(i: SiegeInputs, dice: DiceSource) -> Ruling:
    t = _t()
    steps: list[Step] = []
    morale = {"besieger": i.besieger_morale, "besieged": i.besieged_morale}
    inflicted = {"besieger": Fraction(0), "besieged": Fraction(0)}  # losses inflicted BY the side
    routed_at: dict[str, str] = {}
    for kind in ("fire", "shock"):
        hits = {}
        for w in ("besieger", "besieged"):
            tech = i.besieger_technology if w == "besieger" else i.besieged_technology
            name = f"assault {kind} ({w})"
            if w in routed_at:
                steps.append(Step(name=name, side=w, outcome={"rolled": False, "reason": "routed during fire: no shock"}))
                hits[w] = (Fraction(0), 0)
                continue
            if kind == "fire" and (tech == "MED" or (tech == "REN" and not (w == "besieger" and i.besieger_has_army))):
                steps.append(Step(name=name, side=w, outcome={"rolled": False, "reason": f"{tech}: no fire"}))
                hits[w] = (Fraction(0), 0)
                continue
            mods: list[Modifier] = []
            if w == "besieger":
                if i.besieged_technology == "MED":
                    mods.append(_m(t["modifiers"]["besieger_vs_medieval"], "besieged is Medieval", SEC_T))
                elif i.besieged_technology not in ("REN",):
                    mods.append(_m(t["modifiers"]["besieger_vs_arquebus_or_better"], "besieged is Arquebus or better", SEC_T))
                if not i.breach and i.fortress_level:
                    mods.append(_m(-i.fortress_level, "fortress level (no breach)", SEC_T))
                if i.artillery_source == "tables":
                    art = artillery_bonus(i.fortress_level, i.artillery_value)
                    if art:
                        mods.append(_m(art, "artillery bonus against the fortress (TABLES.md)", SEC_T))
                elif kind == "fire" and not i.breach:  # eu8: "pour le tir uniquement", only against the malus
                    art = artillery_malus_reduction(i.fortress_level, i.artillery_value)
                    if art:
                        mods.append(_m(art, f"artillery {i.artillery_value} reduces the fortress malus (fire only)",
                                       SEC_FR))
            own = (i.besieger_leader_fire if kind == "fire" else i.besieger_leader_shock) if w == "besieger" else (i.besieged_leader_fire if kind == "fire" else i.besieged_leader_shock)
            opp = (i.besieged_leader_fire if kind == "fire" else i.besieged_leader_shock) if w == "besieger" else (i.besieger_leader_fire if kind == "fire" else i.besieger_leader_shock)
            if own > opp:
                mods.append(_m(own - opp, f"leaders' {kind} differential", SEC_T))
            d = dice.roll(f"assault {kind} ({w})")
            total = d.total + sum(m.value for m in mods)
            row = str(clamp(total, t["assault"]["min_row"], t["assault"]["max_row"]))
            cells = t["assault"][f"{w}_{kind}"][row]
            if w == "besieged":
                loss = parse_loss(cells[0])
                if i.breach:  # breach column: fewer losses, same stars
                    loss = ct.Loss(parse_loss(cells[1]).amount, loss.morale)
                text = cells[1] if i.breach else cells[0]
            else:
                loss, text = parse_loss(cells), cells
            amount = loss.amount
            if kind == "fire" and tech == "REN":
                amount = Fraction(0)
            elif kind == "fire" and tech == "ARQ":
                amount = ct.floor_third(amount / 2)
            hits[w] = (amount, loss.morale)
            steps.append(Step(name=name, side=w, modifiers=tuple(mods), dice=(d,), total=total,
                              table_cell=TableCell(table="Assault Results", row=row, column=f"{w} {kind}" + (" (breach)" if i.breach and w == "besieged" else ""), value=text),
                              outcome={"losses_inflicted": ct.fmt(amount), "morale_inflicted": loss.morale}))
        for w, o in (("besieger", "besieged"), ("besieged", "besieger")):
            inflicted[w] += hits[w][0]
            morale[o] -= hits[w][1]
        for w in morale:
            if morale[w] <= 0 and w not in routed_at:
                routed_at[w] = kind
        if len(routed_at) == 2:
            break

    # Loss adjustments.
    red = ct.small_stack_reduction(i.besieger_ld) or Fraction(0)
    on_besieged = max(Fraction(0), inflicted["besieger"] + red)
    resist = ct.frac(t["resistance"]["breach" if i.breach else "normal"][i.fortress_level])
    inside_lost = min(on_besieged, Fraction(i.besieged_ld_inside))
    resist_left = max(Fraction(0), resist - (on_besieged - inside_lost))
    cap = i.besieged_ld_inside + 2 * resist
    on_besieger = min(inflicted["besieged"], cap)
    if "besieger" in routed_at:
        on_besieger += ct.frac(t["modifiers"]["routed_besieger_extra"])
    besieger_lost = ct.round_losses(on_besieger)
    steps.append(Step(name="assault losses", outcome={
        "besieged_losses_raw": ct.fmt(inflicted["besieger"]), "small_stack_reduction": ct.fmt(red),
        "on_troops_inside": ct.fmt(inside_lost), "resistance": ct.fmt(resist), "resistance_left": ct.fmt(resist_left),
        "besieger_losses_cap": ct.fmt(cap), "besieger_losses_exact": ct.fmt(on_besieger), "besieger_ld_lost": besieger_lost}))

    inside_left = i.besieged_ld_inside - inside_lost
    if besieger_lost >= i.besieger_ld:
        winner, why = "besieged", "besieger eliminated"
    elif (inside_left <= 0 and resist_left <= 0) or "besieged" in routed_at:
        winner, why = "besieger", "troops inside eliminated and resistance at 0" if "besieged" not in routed_at else "besieged routed"
    else:
        winner, why = "besieged", "the fortress holds"
    effects = []
    if besieger_lost:
        effects.append(Effect(kind="ld_lost", target="besieger", amount=Fraction(min(besieger_lost, i.besieger_ld))))
    inside_final = ct.round_losses(inside_lost) if inside_lost else 0
    if inside_final:
        effects.append(Effect(kind="ld_lost", target="besieged", amount=Fraction(min(inside_final, i.besieged_ld_inside))))
    if winner == "besieger":
        effects.append(Effect(kind="control_changed", detail={"fortress_falls": True, "by": "assault"}))
    caused_loss = inflicted["besieger"] >= 1
    return EU.ruling("M21", i, steps=tuple(steps),
                     outcome={"action": "assault", "winner": winner, "reason": why, "routed": sorted(routed_at),
                              "besieger_ld_lost": besieger_lost, "bloody_assault": caused_loss and winner != "besieger"},
                     effects=tuple(effects), summary=f"Assault: {winner} wins ({why}); besieger loses {besieger_lost} LD")


def _capture(i: SiegeInputs) -> Ruling:
    lost = 0 if i.garrison else _t()["modifiers"]["levels_lost_on_capture"]
    new = max(i.map_level, i.fortress_level - lost)
    effects = [Effect(kind="fortress_level_changed", amount=Fraction(new - i.fortress_level), detail={"new_level": new})]
    if i.garrison:
        effects.append(Effect(kind="ld_lost", target="besieger", amount=Fraction(1), detail={"garrison": True}))
    return EU.ruling("M21", i, outcome={"action": "capture", "new_level": new, "garrison": i.garrison},
                     effects=tuple(effects) if new != i.fortress_level or i.garrison else tuple(effects[1:]),
                     summary=f"Fortress captured: level {i.fortress_level} → {new}" + (" (garrisoned, 1 LD lost)" if i.garrison else ""))


def _port_fire(i: SiegeInputs, dice: DiceSource) -> Ruling:
    t = _t()["port_siegeworks"]
    mods = [_m(t["per_siegework_plus"] * i.siegeworks_plus, f"{i.siegeworks_plus} Siegework+")] if i.siegeworks_plus else []
    d = dice.roll("port siegeworks fire")
    total = d.total + sum(m.value for m in mods)
    nd = 2 if total >= t["two_nd"] else 1 if total >= t["one_nd"] else 0
    stopped = total >= t["stopped"]
    effects = [Effect(kind="nd_lost", amount=Fraction(nd))] if nd else []
    if stopped:
        effects.append(Effect(kind="stack_stopped"))
    return EU.ruling("M21", i, modifiers=tuple(mods), dice=(d,), total=total,
                     table_cell=TableCell(table="Presidio fire", row=str(total), value={"stopped": stopped, "nd_lost": nd}),
                     outcome={"action": "port_siegeworks_fire", "stopped": stopped, "nd_lost": nd, "port_blockaded": False},
                     effects=tuple(effects), summary=f"Port siegeworks fire: total {total} → stopped {stopped}, {nd} ND lost")


@EU.procedure("M21", title="Siege", seed="eu-military-rules.tex §Sieges; eu8 §2.3", inputs=SiegeInputs,
              options=("artillery_source",))
def resolve_siege(inputs: SiegeInputs, dice: DiceSource) -> Ruling:
    """M21: siege upkeep check, then the chosen action."""
    if inputs.action in ("undermine", "assault") and inputs.besieger_ld < inputs.fortress_level:
        return EU.ruling("M21", inputs,
                         outcome={"action": inputs.action, "siege_impossible": True,
                                  "reason": f"{inputs.besieger_ld} LD < fortress level {inputs.fortress_level}"},
                         effects=(Effect(kind="stack_retreats", target="besieger", detail={"forced_redeployment": True}),),
                         summary="Siege impossible: fewer LD than the fortress level; forced redeployment")
    if inputs.action == "undermine":
        return _undermine(inputs, dice)
    if inputs.action == "assault":
        return _assault(inputs, dice)
    if inputs.action == "capture":
        return _capture(inputs)
    return _port_fire(inputs, dice)
