"""Victory points: pure functions giving VP awards with their reason and source.

Sources: BAMGames/europa-universalis-rules rules/engVictories.tex (§VPs per
turn, §End of period VPs), TABLES.md "Victory points", seed
eu8-fast-combat-and-tables.fr.txt §2.2 C.2. Amounts: ``tables/victory.toml``.
Amounts are exact ``Fraction``s: half VPs (a minor's share, a battle won
without a rout) are not rounded here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.rules.core import Effect, RulesError, load_table

PACKAGE = "ledger.rules.eu"
RULE = "eu:VP"


def _table() -> dict:
    return load_table(PACKAGE, "victory.toml")


class VPAward(BaseModel):
    """VPs (and, for a major battle, a stability change) for one country."""

    model_config = ConfigDict(frozen=True)

    country: str
    vp: Fraction
    reason: str
    source: str
    rule: str = RULE
    stability: int = Field(default=0, description="Stability change that goes with the award")

    def to_effects(self) -> tuple[Effect, ...]:
        effects = []
        if self.vp:
            effects.append(Effect(kind="victory_points", country=self.country, amount=self.vp,
                                  detail={"reason": self.reason, "source": self.source}))
        if self.stability:
            effects.append(Effect(kind="stability_changed", country=self.country, amount=self.stability,
                                  detail={"reason": self.reason, "source": self.source}))
        return tuple(effects)


def _award(country: str, vp: int | Fraction, reason: str, source: str, stability: int = 0) -> VPAward:
    if not country:
        raise RulesError("a VP award needs a country", field="country", rule=RULE)
    return VPAward(country=country, vp=Fraction(vp), reason=reason, source=source, stability=stability)


def _non_negative(name: str, value: int) -> None:
    if value < 0:
        raise RulesError(f"{name} must not be negative, not {value}", field=name, rule=RULE)


def major_battle(winner: str, loser: str, *, halved: bool = False) -> list[VPAward]:
    """+5 VPs to the winner of a major battle; winner +1 STAB, loser −1 STAB.

    ``halved``: the loser did not rout (fast combat C.2): half the VPs.
    """
    t = _table()["major_battle"]
    vp = Fraction(t["vp"], 2 if halved else 1)
    source = t["source"] + (f"; {t['half_source']}" if halved else "")
    return [
        _award(winner, vp, "major battle won" + (" (loser did not rout: half VPs)" if halved else ""),
               source, t["winner_stability"]),
        _award(loser, 0, "major battle lost", source, t["loser_stability"]),
    ]


def war_without_casus_belli(country: str, against: Literal["player", "minor"]) -> VPAward:
    """−10 per declaration of war without casus belli against a player, −5 against a minor."""
    t = _table()["war_without_casus_belli"]
    if against not in ("player", "minor"):
        raise RulesError(f"against must be 'player' or 'minor', not {against!r}", field="against", rule=RULE)
    return _award(country, t[against], f"declaration of war without casus belli against a {against}", t["source"])


def bankruptcy(country: str, level: Literal["small", "major", "complete"]) -> VPAward:
    """−5 / −15 / −30 for a small / major / complete bankruptcy."""
    t = _table()["bankruptcy"]
    if level not in ("small", "major", "complete"):
        raise RulesError(f"unknown bankruptcy level {level!r}", field="level", rule=RULE)
    return _award(country, t[level], f"{level} bankruptcy", t["source"])


def province_annexed(country: str, income_value: int, province: str = "") -> VPAward:
    """+ the income value of a province annexed (peace or dowry)."""
    _non_negative("income_value", income_value)
    t = _table()["provinces"]
    return _award(country, t["annexed"] * income_value, f"province annexed {province}".strip(), t["source"])


def province_lost(country: str, income_value: int, via: Literal["peace", "dowry"], province: str = "") -> VPAward:
    """− the income value of a province lost by a peace; − twice it for a dowry."""
    _non_negative("income_value", income_value)
    t = _table()["provinces"]
    if via not in ("peace", "dowry"):
        raise RulesError(f"via must be 'peace' or 'dowry', not {via!r}", field="via", rule=RULE)
    factor = t["lost_by_peace"] if via == "peace" else t["lost_by_dowry"]
    return _award(country, factor * income_value, f"province lost by {via} {province}".strip(), t["source"])


def peace_levels(
    country: str, levels: int, *, won: bool, against_a_major: bool = True
) -> VPAward:
    """+2 per peace level won against at least one major (+1 against minors only); −2 per level lost."""
    _non_negative("levels", levels)
    t = _table()["peace_levels"]
    if won:
        per = t["won_against_a_major"] if against_a_major else t["won_against_minors_only"]
        reason = f"{levels} peace level(s) won against {'a major' if against_a_major else 'minors only'}"
    else:
        per, reason = t["lost"], f"{levels} peace level(s) lost"
    return _award(country, per * levels, reason, t["source"])


def forced_religious_conversion(country: str) -> VPAward:
    """−20 for a forced religious conversion (unless an event says otherwise)."""
    t = _table()["forced_religious_conversion"]
    return _award(country, t["vp"], "forced religious conversion", t["source"])


def exotic_monopolies(country: str, partial: int, total: int) -> VPAward:
    """+1 per partial and +3 per total exotic-resource monopoly (Interphase)."""
    _non_negative("partial", partial)
    _non_negative("total", total)
    t = _table()["exotic_monopolies"]
    return _award(country, t["partial"] * partial + t["total"] * total,
                  f"exotic-resource monopolies: {partial} partial, {total} total", t["source"])


def discovery(country: str, key: str, count: int = 1) -> VPAward:
    """VPs of a discovery (``key`` from the table); ``count`` only for per-province entries."""
    t = _table()["discoveries"]
    entry = t.get(key)
    if not isinstance(entry, dict):
        known = sorted(k for k, v in t.items() if isinstance(v, dict))
        raise RulesError(f"unknown discovery {key!r}; known: {known}", field="key", rule=RULE)
    if count < 1 or (count > 1 and entry["per"] != "province"):
        raise RulesError(f"count {count} is not valid for discovery {key!r}", field="count", rule=RULE)
    return _award(country, entry["vp"] * count,
                  f"discovery: {entry['name']}" + (f" × {count}" if count > 1 else ""), t["source"])


def prestige(country: str, a26: int) -> VPAward:
    """Prestige VPs: ERS A26 (prestige income not spent)."""
    _non_negative("a26", a26)
    t = _table()["prestige"]
    return _award(country, t["per_ducat"] * a26, "prestige (ERS A26)", t["source"])


def minor_share(player: str, minor: str, minor_vp: int | Fraction) -> VPAward:
    """A player earns or loses half the VPs of a minor it controls."""
    t = _table()["minors"]
    share = Fraction(t["share_numerator"], t["share_denominator"])
    return _award(player, share * Fraction(minor_vp), f"half the VPs of the controlled minor {minor}", t["source"])


def period_wealth(
    country: str, period: str, wealth: Sequence[int], percent: int | None = None
) -> VPAward:
    """End-of-period wealth VPs: mean of the turns' wealth (ERS A27) × the country's percent.

    ``percent`` overrides the table (a caller's own per-country table); when
    the table has no entry for the country or period, the caller must supply it.
    """
    t = _table()["period_wealth"]
    if not wealth:
        raise RulesError("no turn wealth for the period", field="wealth", rule=RULE)
    if period not in t["periods"]:
        raise RulesError(f"unknown period {period!r}", field="period", rule=RULE)
    if percent is None:
        row = t["percent"].get(country)
        value = row[t["periods"].index(period)] if row else None
        if not isinstance(value, int):
            raise RulesError(
                f"no wealth percentage for {country} in period {period}: supply percent",
                field="percent",
                rule=RULE,
            )
        percent = value
    _non_negative("percent", percent)
    mean = Fraction(sum(wealth), len(wealth))
    return _award(country, mean * percent / 100,
                  f"period {period} wealth: mean {mean} × {percent}%", t["source"])
