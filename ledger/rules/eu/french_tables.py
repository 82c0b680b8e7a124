"""M22: the tables of the French seed (eu8-fast-combat-and-tables.fr.txt §2.2-2.8
and annexes).

Two halves:

* a small lookup API over the static tables (data files ``tables/fr_*.toml``)
  that other procedure families import: ``size_comparison``,
  ``losses_variation``, ``army_class_value``, ``cavalry_per_detachment``,
  ``artillery_per_army``, ``sea_transport_points``, ``naval_loss_multiplier``,
  ``naval_loss_distribution``, ``recruitment_limit``, ``fortress_cost``,
  ``monarch_average_value``, ``country_costs``;
* procedure ``M22`` which resolves the die-driven tables, the ``table`` input
  naming which one (see ``DIE_TABLES``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.rules.core import RulesError, load_table

PKG = "ledger.rules.eu"
SEED = "eu8-fast-combat-and-tables.fr.txt"

PERIODS = ("I", "II", "III", "IV", "V", "VI", "VII")


def _t(name: str) -> Any:
    return load_table(PKG, name)


def _period_index(period: str) -> int:
    try:
        return PERIODS.index(period)
    except ValueError:
        raise RulesError(f"unknown period {period!r} (I-VII)", field="period", rule="eu:M22") from None


# --------------------------------------------------------------------------- combat


def size_comparison(inflicting: int, receiving: int) -> int:
    """Size-comparison modifier (-2..+2) of the army inflicting losses (eu:M22, §2.2.4).

    ``inflicting`` and ``receiving`` are size values 0-7 (army class values by
    period, see ``army_class_value``).
    """
    table = _t("fr_size_comparison.toml")
    for name, value in (("inflicting", inflicting), ("receiving", receiving)):
        if not isinstance(value, int) or not 0 <= value <= 7:
            raise RulesError(f"size value {value!r} outside 0-7", field=name, rule="eu:M22")
    return table["rows"][str(inflicting)][table["columns"].index(receiving)]


def losses_column(losses: Fraction | int) -> Fraction:
    """The printed column a computed loss is read in, on a line other than 0.

    Combat cells are in thirds, the table's columns in halves: a loss is read
    in the column at or below it (the seed rounds losses down, step F), so ⅓
    is below the first column (½) and reads 0, ⅔ reads ½, 1⅓ reads 1. Line 0
    never reads a column: it is the step-A loss itself. See DECISIONS.md (M22
    losses variation); the reading is ruleset data (``thirds_column``).
    """
    losses = Fraction(losses)
    if losses < 0:
        raise RulesError(f"negative losses {losses}", field="losses", rule="eu:M22")
    reading = _t("fr_losses_variation.toml")["thirds_column"]
    if reading != "at_or_below":  # the data file names the reading this code implements
        raise RulesError(f"unknown thirds_column reading {reading!r}", field="thirds_column", rule="eu:M22")
    return Fraction(int(losses * 2), 2)


def losses_variation(losses: Fraction | int, modifier: int) -> Fraction:
    """Losses actually inflicted once the size comparison is applied (eu:M22, §2.2.4).

    ``losses`` is the total of fire, shock and pursuit (step A), exact
    fraction; ``modifier`` the size-comparison result (-2..+2). Line 0 is the
    step-A loss itself ("la ligne 0 correspondant au nombre de perte calculé à
    l'étape A"): it comes back unchanged, thirds included. Other lines read the
    printed cell of ``losses_column``; above 8 they add the printed "8 et +"
    amount to the losses. The cap by the size of the inflicting army and the
    final rounding (step F) are the combat procedure's business.
    """
    table = _t("fr_losses_variation.toml")
    if modifier not in range(-2, 3):
        raise RulesError(
            f"size-comparison modifier {modifier} outside -2..+2", field="modifier", rule="eu:M22"
        )
    losses = Fraction(losses)
    if losses < 0:
        raise RulesError(f"negative losses {losses}", field="losses", rule="eu:M22")
    if modifier == 0:
        return losses
    row = table["rows"][str(modifier)]
    if losses > 8:
        return max(Fraction(0), losses + Fraction(row["beyond_8"]))
    column = losses_column(losses)
    if column == 0:
        return Fraction(0)
    index = [Fraction(c) for c in table["columns"]].index(column)
    return Fraction(row["cells"][index])


# --------------------------------------------------------------------------- static lookups


def army_class_value(army_class: str, period: str) -> int:
    """Size value (0-7) of an army class in a period (eu:M22, §2.2.5)."""
    classes = _t("fr_army_classes.toml")["classes"]
    if army_class not in classes:
        raise RulesError(f"unknown army class {army_class!r}", field="army_class", rule="eu:M22")
    return classes[army_class]["values"][_period_index(period)]


def _printed(value: Any, what: str, field: str) -> Any:
    if value in ("", -1, None):
        raise RulesError(f"the seed prints no value for {what}", field=field, rule="eu:M22")
    return value


def cavalry_per_detachment(group: str, period: str) -> Fraction:
    """Cavalry per land detachment for a nation group (eu:M22, §2.2.3); exact fraction."""
    groups = _t("fr_cavalry.toml")["groups"]
    if group not in groups:
        raise RulesError(f"unknown cavalry group {group!r} (one of {sorted(groups)})", field="group", rule="eu:M22")
    cell = groups[group]["values"][_period_index(period)]
    return Fraction(_printed(cell, f"{group} in period {period}", "period"))


def artillery_per_army(nation_or_class: str, period: str, *, face: str = "+") -> int:
    """Artillery of an A+ (or an A-: half, rounded down) (eu:M22, §2.3.1-2.3.2)."""
    table = _t("fr_artillery.toml")
    row = table["nations"].get(nation_or_class) or table["classes"].get(nation_or_class)
    if row is None:
        raise RulesError(f"unknown nation or class {nation_or_class!r}", field="nation", rule="eu:M22")
    value = _printed(row[_period_index(period)], f"{nation_or_class} in period {period}", "period")
    return value if face == "+" else value // 2


def sea_transport_points(army_class: str, period: str, *, version: str | None = None) -> int:
    """Transport points an A- needs (an A+ counts double) (eu:M22, §2.7.4 or §2.4.4)."""
    table = _t("fr_sea_transport.toml")
    version = version or table["default"]
    i = _period_index(period)
    if version == "2.4.4":
        for row in table["2.4.4"]["classes"]:
            if row["class"] == army_class:
                return _printed(row["points"][i], f"class {army_class} in period {period}", "period")
        raise RulesError(f"unknown army class {army_class!r}", field="army_class", rule="eu:M22")
    if version != "2.7.4":
        raise RulesError(f"unknown sea transport table version {version!r}", field="version", rule="eu:M22")
    base = table["2.7.4"]["base"]
    if army_class not in base:
        raise RulesError(f"unknown army class {army_class!r}", field="army_class", rule="eu:M22")
    if army_class == "ivm" and period == "VII":
        return 6
    points = base[army_class]
    if army_class == "iiim" and period in ("IV", "V"):
        points += 1
    if period in ("VI", "VII") and army_class not in ("i", "ii", "iim"):
        points += 1
    return points


def naval_loss_multiplier(fleet_d: int) -> Fraction:
    """Multiplier of naval losses by the number of D of the fleet inflicting
    them (NDE count ½, rounded down) (eu:M22, §2.7.6 table 1-). Up to 14 D."""
    table = _t("fr_naval_losses.toml")["multiplier"]
    if fleet_d < 0:
        raise RulesError("negative fleet size", field="fleet_d", rule="eu:M22")
    for upper, value in zip(table["upper"], table["value"]):
        if fleet_d <= upper:
            return Fraction(value)
    raise RulesError("more than 14 D: use naval_losses_modified", field="fleet_d", rule="eu:M22")


def naval_losses_modified(losses: Fraction | int, fleet_d: int) -> Fraction:
    """Naval losses modified by fleet size, with the seed's rounding: up to the
    next half, except results ≤ 0.3 which become 0. Above 14 D: the losses of
    14 plus those of the remainder."""
    losses = Fraction(losses)
    raw = Fraction(0)
    d = fleet_d
    while d > 14:
        raw += losses * naval_loss_multiplier(14)
        d -= 14
    raw += losses * naval_loss_multiplier(d) if d or fleet_d <= 14 else 0
    if raw <= Fraction(_t("fr_naval_losses.toml")["multiplier"]["zero_at_most"]):
        return Fraction(0)
    halves = raw * 2
    return Fraction(-(-halves.numerator // halves.denominator), 2)


def naval_loss_distribution(losses: Fraction | int) -> dict[str, list[str]]:
    """Split naval losses into destroyed / immobilised / damaged (eu:M22, §2.7.6
    table 2-): blocks of 3 D and the rest; each value lists the cells read."""
    table = _t("fr_naval_losses.toml")["distribution"]
    losses = Fraction(losses)
    if losses < 0 or (losses * 2).denominator != 1:
        raise RulesError("naval losses are read in halves", field="losses", rule="eu:M22")
    out: dict[str, list[str]] = {"destroyed": [], "immobilised": [], "damaged": []}
    blocks = [Fraction(3)] * int(losses // 3) + ([losses % 3] if losses % 3 else [])
    for block in blocks:
        i = [Fraction(c) for c in table["columns"]].index(block)
        if table["destroyed"][i] == "" and block == Fraction(1, 2):
            raise RulesError("the seed's ½ column is blank: the game master reads it", field="losses", rule="eu:M22")
        for key in out:
            if table[key][i]:
                out[key].append(table[key][i])
    return out


def recruitment_limit(nation: str, period: str) -> int:
    """Maximum LD recruited per turn (eu:M22, §2.5)."""
    nations = _t("fr_recruitment.toml")["nations"]
    if nation not in nations:
        raise RulesError(f"unknown nation {nation!r}", field="nation", rule="eu:M22")
    return _printed(nations[nation][_period_index(period)], f"{nation} in period {period}", "period")


def fortress_cost(level: int) -> dict[str, Any]:
    """Cost, technology and maintenance of a fortress level 2-5 (eu:M22 annex)."""
    levels = _t("fr_fortress_costs.toml")["levels"]
    if str(level) not in levels:
        raise RulesError(f"no fortress cost for level {level} (2-5)", field="level", rule="eu:M22")
    return dict(levels[str(level)])


def monarch_average_value(mil: int, die: int) -> tuple[int, bool]:
    """Average value of a monarch as general (MIL 3-9 × 1d10) and whether the
    cell bears the '*' (artillery threshold note) (eu:M22 annex)."""
    rows = _t("fr_monarch_combat.toml")["average"]
    if str(mil) not in rows:
        raise RulesError(f"MIL {mil} outside 3-9", field="mil", rule="eu:M22")
    cell = rows[str(mil)][die - 1]
    return int(cell.rstrip("*")), cell.endswith("*")


def country_costs(country: str, technology: str) -> dict[str, Any]:
    """Purchase and maintenance costs of a country at a technology (eu:M22, annex
    country sheets). Keys follow the printed columns."""
    table = _t("fr_country_costs.toml")
    if country not in table["countries"]:
        raise RulesError(f"no cost table for {country!r}", field="country", rule="eu:M22")
    rows = table["countries"][country]
    if technology not in rows:
        raise RulesError(f"{country} prints no costs for technology {technology!r}", field="technology", rule="eu:M22")
    return dict(zip(table["columns"][rows[technology]["kind"]], rows[technology]["values"]))


# --------------------------------------------------------------------------- M22 die tables

from typing import Annotated, Literal, Union  # noqa: E402

from pydantic import BaseModel, ConfigDict, Field, RootModel  # noqa: E402

from ledger.rules.core import DiceSource, Effect, Modifier, Ruling, TableCell  # noqa: E402
from ledger.rules.eu import EU  # noqa: E402
from ledger.rules.names import country_code  # noqa: E402

ANNEX = f"{SEED} annexe E (tables d'administration)"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RevoltReductionInputs(_Table):
    table: Literal["revolt_reduction"]
    ld: int = Field(default=0, ge=0, le=50, description="Land detachments present")
    armies_minus: int = Field(default=0, ge=0, le=10, description="ARMY− counters present")
    armies_plus: int = Field(default=0, ge=0, le=10, description="ARMY+ counters present")
    man_differential: int = Field(default=0, ge=-9, le=9, description="MAN differential (own leader − revolt's)")
    terrain_not_plain: bool = Field(default=False, description="Terrain other than plain")
    strong_revolt: bool = Field(default=False, description="The revolt is strong (face +)")
    france_wars_of_religion: bool = False
    england_civil_war: bool = False
    spanish_netherlands_revolt: bool = False


class PirateReductionInputs(_Table):
    table: Literal["pirate_reduction"]
    fleets_minus: int = Field(default=0, ge=0, le=10, description="FLEET− present against the corsair")
    fleets_plus: int = Field(default=0, ge=0, le=10, description="FLEET+ present against the corsair")
    naval_units_present: bool = Field(default=False, description="At least one naval unit present against the corsair")
    man_differential: int = Field(default=0, ge=-9, le=9, description="MAN differential (own admiral − corsair's)")
    corsair_face: Literal["-", "+"] = Field(description="Face of the pirate / corsair counter")
    naval_battle_in_zone: bool = Field(default=False, description="A naval battle took place in the zone this turn")


class CrusadeCallInputs(_Table):
    table: Literal["crusade_call"]
    year: int = Field(ge=1492, le=1614, description="Current year (the call exists before 1615)")
    provinces_taken_by_turkey: int = Field(default=0, ge=0, le=99, description="Provinces conquered or annexed by Turkey from Christians")
    vienna_captured: bool = False
    catholic_majors_at_war_elsewhere: int = Field(default=0, ge=0, le=8, description="Catholic majors at war against a country other than Turkey")
    reformation_happened: bool = False


class MinorEntersWarInputs(_Table):
    table: Literal["minor_enters_war"]
    diplomatic_control_level: int = Field(default=0, ge=0, le=9)
    geopolitical_bonus: int = Field(default=0, ge=-9, le=9)
    common_border_with_enemy: bool = False
    poland_as_minor: bool = False
    same_religion_as_enemy_before_1614: bool = False
    enemy_far: bool = Field(default=False, description="Nearest enemy province at 6 MP or more, or 2 sea zones")
    already_at_war: bool = False


MinorKind = Literal[
    "other", "persia_or_mamluks", "hard", "portugal_before_1615", "portugal_after_1615"
]


class PeaceWithMinorOldInputs(_Table):
    table: Literal["peace_with_minor_old"]
    peace_level_offered: int = Field(ge=-5, le=5, description="Peace level offered (counted twice, signed)")
    minor_kind: MinorKind = Field(
        default="other",
        description="persia_or_mamluks −4; hard (USA, Japan, China, Mughal, Sweden, Prussia after 1700, "
        "Venice, Poland, Habsburg) −3; Portugal −2 before 1615, −1 after",
    )
    heretic_for_requester: bool = False
    separate_peace: bool = False
    provinces_lost_by_minor: int = Field(default=0, ge=0, le=50)
    provinces_conquered_by_minor: int = Field(default=0, ge=0, le=50)
    major_battles_won_by_minor: int = Field(default=0, ge=0, le=20)
    major_battles_lost_by_minor: int = Field(default=0, ge=0, le=20)
    battles_or_sieges_won_by_minor: int = Field(default=0, ge=0, le=20)
    battles_lost_by_minor: int = Field(default=0, ge=0, le=20)
    sieges_won_by_requester: int = Field(default=0, ge=0, le=20)
    requester_leaders_killed_or_captured: int = Field(default=0, ge=0, le=20)
    minor_leaders_killed_or_captured: int = Field(default=0, ge=0, le=20)
    peace_differential: int = Field(default=0, ge=-20, le=20, description="Peace differential of the major against the controller (max +3)")


ReplacementCountry = Literal[
    "mineur", "France", "Turquie", "Espagne", "England", "Russie", "Hollande", "Habsbourg",
    "Pologne", "Suede", "Prusse", "Venise", "Portugal", "indigenes",
]


class ReplacementLeaderInputs(_Table):
    table: Literal["replacement_leader"]
    country: ReplacementCountry
    gm_reading: str | None = Field(
        default=None, pattern=r"^(none|\d{3})$",
        description="Game master's reading when the die falls on a face the seed leaves blank ('none' or a code)",
    )


class MercenaryGeneralsInputs(_Table):
    table: Literal["mercenary_generals"]


MonarchCountry = country_code(extra={
    code: (row["seed"],) for code, row in _t("fr_monarch_combat.toml")["country_bonus"].items() if "seed" in row
})


class MonarchCombatInputs(_Table):
    table: Literal["monarch_combat"]
    mil: int = Field(ge=3, le=9, description="MIL of the monarch (the table prints 3-9)")
    country: MonarchCountry | None = Field(default=None, description="POL and SWE (the seed's SUE) have bonuses")


class MilitarySituationInputs(_Table):
    table: Literal["military_situation"]
    provinces_held: int = Field(ge=0, le=200, description="Enemy provinces this major occupies (capitals excluded)")
    capitals_held: int = Field(default=0, ge=0, le=20)
    provinces_lost: int = Field(ge=0, le=200, description="Own provinces the enemy occupies (capitals excluded)")
    capitals_lost: int = Field(default=0, ge=0, le=20)


M22Table = Annotated[
    Union[
        RevoltReductionInputs, PirateReductionInputs, CrusadeCallInputs, MinorEntersWarInputs,
        PeaceWithMinorOldInputs, ReplacementLeaderInputs, MercenaryGeneralsInputs,
        MonarchCombatInputs, MilitarySituationInputs,
    ],
    Field(discriminator="table"),
]


class FrenchTableInputs(RootModel[M22Table]):
    """Inputs of M22: ``table`` names the table, the other fields are that table's."""


#: table key -> (printed name, threshold or None, unmodified 10 always succeeds)
DIE_TABLES: dict[str, tuple[str, int | None, bool]] = {
    "revolt_reduction": ("Révolte affaiblie sur 8+", 8, True),
    "pirate_reduction": ("Pirate ou Corsaire réduit sur 8+", 8, True),
    "crusade_call": ("Appel à la Croisade sur 10+ (avant 1615)", 10, False),
    "minor_enters_war": ("Entrée en guerre des mineurs sur 8+", 8, False),
    "peace_with_minor_old": ("Paix acceptée par un mineur sur 5+", 5, False),
    "replacement_leader": ("Chefs de remplacement", None, False),
    "mercenary_generals": ("Généraux mercenaires", None, False),
    "monarch_combat": ("Valeurs des monarques au combat", None, False),
    "military_situation": ("Indice de situation militaire d'un pays majeur", None, False),
}


def _m(value: int, reason: str, table: str) -> Modifier:
    return Modifier(value=value, reason=reason, rule="eu:M22", section=f"{ANNEX}: {DIE_TABLES[table][0]}")


def _add(mods: list[Modifier], value: int, reason: str, table: str) -> None:
    if value:
        mods.append(_m(value, reason, table))


def revolt_reduction_modifiers(i: RevoltReductionInputs) -> list[Modifier]:
    t, mods = i.table, []
    _add(mods, i.ld, f"{i.ld} detachment(s) present (+1 each)", t)
    _add(mods, 2 * i.armies_minus, f"{i.armies_minus} ARMY− present (+2 each)", t)
    _add(mods, 4 * i.armies_plus, f"{i.armies_plus} ARMY+ present (+4 each)", t)
    _add(mods, i.man_differential, "MAN differential", t)
    _add(mods, -3 if i.terrain_not_plain else 0, "terrain other than plain", t)
    _add(mods, -2 if i.strong_revolt else 0, "strong revolt (face +)", t)
    _add(mods, 1 if i.france_wars_of_religion else 0, "revolt in France during the wars of religion", t)
    _add(mods, 1 if i.england_civil_war else 0, "revolt in England during the Civil War", t)
    _add(mods, 1 if i.spanish_netherlands_revolt else 0, "revolt in the Spanish Netherlands during the Dutch Revolt", t)
    return mods


def pirate_reduction_modifiers(i: PirateReductionInputs) -> list[Modifier]:
    t, mods = i.table, []
    _add(mods, 2 * i.fleets_minus, f"{i.fleets_minus} FLEET− present (+2 each)", t)
    _add(mods, 4 * i.fleets_plus, f"{i.fleets_plus} FLEET+ present (+4 each)", t)
    _add(mods, 1 if i.naval_units_present else 0, "at least one naval unit present against the corsair", t)
    _add(mods, i.man_differential, "MAN differential", t)
    _add(mods, -1 if i.corsair_face == "-" else -3, f"against a corsair / pirate {i.corsair_face}", t)
    _add(mods, -1 if i.naval_battle_in_zone else 0, "naval battle in the zone this turn", t)
    return mods


def crusade_call_modifiers(i: CrusadeCallInputs) -> list[Modifier]:
    t, mods = i.table, []
    _add(mods, i.provinces_taken_by_turkey, f"{i.provinces_taken_by_turkey} province(s) taken by Turkey from Christians (+1 each)", t)
    _add(mods, 5 if i.vienna_captured else 0, "Vienna captured by Turkey", t)
    _add(mods, -2 * i.catholic_majors_at_war_elsewhere, f"{i.catholic_majors_at_war_elsewhere} Catholic major(s) at war against another country than Turkey (−2 each)", t)
    _add(mods, -3 if i.reformation_happened else 0, "the Reformation has happened", t)
    return mods


def minor_enters_war_modifiers(i: MinorEntersWarInputs) -> list[Modifier]:
    t, mods = i.table, []
    _add(mods, i.diplomatic_control_level, "level of diplomatic control", t)
    _add(mods, i.geopolitical_bonus, "geopolitical bonus on the country", t)
    _add(mods, 2 if i.common_border_with_enemy else 0, "common border with the enemy", t)
    _add(mods, -2 if i.poland_as_minor else 0, "Poland as a minor", t)
    _add(mods, -4 if i.same_religion_as_enemy_before_1614 else 0, "same religion as the enemy, before 1614", t)
    _add(mods, -4 if i.enemy_far else 0, "nearest enemy province at 6 MP or more, or 2 sea zones", t)
    _add(mods, -4 if i.already_at_war else 0, "the minor is already at war", t)
    return mods


_MINOR_KIND = {
    "other": (0, ""),
    "persia_or_mamluks": (-4, "Persia or the Mamluks"),
    "hard": (-3, "USA, Japan, China, Mughal, Sweden, Prussia after 1700, Venice, Poland, Habsburg"),
    "portugal_before_1615": (-2, "Portugal before 1615"),
    "portugal_after_1615": (-1, "Portugal after 1615"),
}


def peace_with_minor_old_modifiers(i: PeaceWithMinorOldInputs) -> list[Modifier]:
    t, mods = i.table, []
    _add(mods, 2 * i.peace_level_offered, f"twice the peace level offered ({i.peace_level_offered})", t)
    value, reason = _MINOR_KIND[i.minor_kind]
    _add(mods, value, reason, t)
    _add(mods, -2 if i.heretic_for_requester else 0, "the minor is heretic for the requester", t)
    _add(mods, -2 if i.separate_peace else 0, "separate peace attempt", t)
    _add(mods, 3 * i.provinces_lost_by_minor, "provinces lost by the minor (+3 each)", t)
    _add(mods, -3 * i.provinces_conquered_by_minor, "provinces conquered by the minor (−3 each)", t)
    _add(mods, -2 * i.major_battles_won_by_minor, "major battles won by the minor against the requester (−2 each)", t)
    _add(mods, 2 * i.major_battles_lost_by_minor, "major battles lost by the minor against the requester (+2 each)", t)
    _add(mods, -i.battles_or_sieges_won_by_minor, "battles or sieges won by the minor (−1 each)", t)
    _add(mods, i.battles_lost_by_minor, "battles lost by the minor (+1 each)", t)
    _add(mods, i.sieges_won_by_requester, "sieges won by the requester (+1 each)", t)
    _add(mods, -i.requester_leaders_killed_or_captured, "requester's leaders killed or captured by the minor (−1 each)", t)
    _add(mods, i.minor_leaders_killed_or_captured, "minor's leaders killed or captured by the requester (+1 each)", t)
    _add(mods, min(i.peace_differential, 3), "peace differential of the major against the controller (max +3)", t)
    return mods


_MODIFIERS = {
    "revolt_reduction": revolt_reduction_modifiers,
    "pirate_reduction": pirate_reduction_modifiers,
    "crusade_call": crusade_call_modifiers,
    "minor_enters_war": minor_enters_war_modifiers,
    "peace_with_minor_old": peace_with_minor_old_modifiers,
}


def _threshold_effects(i: Any, success: bool) -> tuple[Effect, ...]:
    if not success:
        return ()
    if i.table == "revolt_reduction":
        return (Effect(kind="marker_flipped" if i.strong_revolt else "marker_removed", marker="Revolt", target="revolt", detail={"reduced": True}),)
    if i.table == "pirate_reduction":
        return (Effect(kind="marker_flipped" if i.corsair_face == "+" else "marker_removed", marker="corsair", target="corsair", detail={"reduced": True}),)
    if i.table == "peace_with_minor_old":
        return (Effect(kind="peace", detail={"accepted": True, "level": i.peace_level_offered}),)
    if i.table == "minor_enters_war":
        return (Effect(kind="note", detail={"minor_enters_war": True}),)
    return (Effect(kind="note", detail={"crusade_called": True}),)


def threshold_roll(i: Any, dice: DiceSource) -> Ruling:
    """A '... sur N+' table: 1d10 + modifiers ≥ N (an unmodified 10 always
    succeeds where the table says so)."""
    name, threshold, ten_always = DIE_TABLES[i.table]
    mods = _MODIFIERS[i.table](i)
    die = dice.roll(name)
    total = die.total + sum(m.value for m in mods)
    natural_ten = ten_always and die.total == 10
    success = total >= threshold or natural_ten
    reason = "unmodified 10" if natural_ten and total < threshold else (f"{total} ≥ {threshold}" if success else f"{total} < {threshold}")
    outcome = {"table": i.table, "success": success, "threshold": threshold, "reason": reason}
    return EU.ruling(
        "M22",
        i,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        table_cell=TableCell(table=name, row=str(total), value="success" if success else "failure"),
        outcome=outcome,
        effects=_threshold_effects(i, success),
        summary=f"{name}: die {die.total}, total {total} → {'success' if success else 'failure'} ({reason})",
    )


def _replacement_leader(i: ReplacementLeaderInputs, dice: DiceSource) -> Ruling:
    name = DIE_TABLES[i.table][0]
    cells = _t("fr_replacement_leaders.toml")["countries"][i.country]
    die = dice.roll(f"{name}: {i.country}")
    gm: tuple[str, ...] = ()
    if die.total <= len(cells):
        code = cells[die.total - 1]
    elif i.gm_reading is None:
        raise RulesError(
            f"the seed prints no replacement leader for {i.country} on a {die.total}: supply gm_reading",
            field="gm_reading", rule="eu:M22",
        )
    else:
        code = None if i.gm_reading == "none" else i.gm_reading
        gm = (f"replacement leader for {i.country} on {die.total}: {i.gm_reading}",)
    outcome = {"table": i.table, "leader": code, "notes": _t("fr_replacement_leaders.toml")["notes"]}
    return EU.ruling(
        "M22", i, dice=(die,), total=die.total,
        table_cell=TableCell(table=name, row=str(die.total), column=i.country, value=code),
        outcome=outcome, gm_supplied=gm,
        effects=(Effect(kind="note", detail={"replacement_leader": code, "country": i.country}),),
        summary=f"{name} ({i.country}): die {die.total} → {code or 'none'}",
    )


def _mercenary_generals(i: MercenaryGeneralsInputs, dice: DiceSource) -> Ruling:
    name = DIE_TABLES[i.table][0]
    die = dice.roll(name)
    low, high, count = next(r for r in _t("fr_mercenary_generals.toml")["rows"] if r[0] <= die.total <= r[1])
    return EU.ruling(
        "M22", i, dice=(die,), total=die.total,
        table_cell=TableCell(table=name, row=f"{low}-{high}", value=count),
        outcome={"table": i.table, "available": count},
        summary=f"{name}: die {die.total} → {count} available",
    )


VALUES = ("fire", "shock", "manoeuvre")


def _monarch_combat(i: MonarchCombatInputs, dice: DiceSource) -> Ruling:
    """Average value (MIL × 1d10), then one adjustment die per value (fire,
    shock, manoeuvre; never below 0), plus the POL / SUE bonuses."""
    name = DIE_TABLES[i.table][0]
    table = _t("fr_monarch_combat.toml")
    avg_die = dice.roll(f"{name}: average")
    average, star = monarch_average_value(i.mil, avg_die.total)
    bonus = {k: v for k, v in table["country_bonus"].get(i.country or "", {}).items() if k in VALUES}
    drawn, values, mods = [avg_die], {}, []
    for value in VALUES:
        die = dice.roll(f"{name}: {value} adjustment")
        drawn.append(die)
        adjust = table["adjustment"]["values"][die.total - 1]
        values[value] = max(0, average + adjust + bonus.get(value, 0))
        if bonus.get(value):
            mods.append(_m(bonus[value], f"{i.country} +{bonus[value]} {value}", i.table))
    outcome = {"table": i.table, "average": average, "values": values, "artillery_threshold_star": star}
    return EU.ruling(
        "M22", i, modifiers=tuple(mods), dice=tuple(drawn),
        table_cell=TableCell(table=name, row=f"MIL {i.mil}", column=str(avg_die.total), value=f"{average}{'*' if star else ''}"),
        outcome=outcome,
        summary=f"Monarch as general (MIL {i.mil}): average {average}; " + ", ".join(f"{k} {v}" for k, v in values.items()),
    )


def _military_situation(i: MilitarySituationInputs, dice: DiceSource) -> Ruling:
    """No die: surplus of occupied provinces (a capital counts 2) → +1 at 2, +2 at 4."""
    name = DIE_TABLES[i.table][0]
    surplus = (i.provinces_held + 2 * i.capitals_held) - (i.provinces_lost + 2 * i.capitals_lost)
    index = 2 if surplus >= 4 else 1 if surplus >= 2 else 0
    return EU.ruling(
        "M22", i, total=surplus,
        table_cell=TableCell(table=name, row=str(surplus), value=index),
        outcome={"table": i.table, "surplus": surplus, "index": index, "added_to": "peace differential"},
        summary=f"{name}: surplus {surplus} → +{index}",
    )


_RESOLVERS = {
    "replacement_leader": _replacement_leader,
    "mercenary_generals": _mercenary_generals,
    "monarch_combat": _monarch_combat,
    "military_situation": _military_situation,
}


@EU.procedure("M22", title="Tables from the French seed", seed=f"{SEED} §2.2-2.8 and annexes", inputs=FrenchTableInputs)
def resolve_french_table(inputs: FrenchTableInputs, dice: DiceSource) -> Ruling:
    """M22: resolve the die-driven table named by ``table``."""
    i = inputs.root
    if i.table in _MODIFIERS:
        return threshold_roll(i, dice)
    return _RESOLVERS[i.table](i, dice)
