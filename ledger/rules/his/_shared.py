"""Models and helpers shared by the ``his`` procedures (H1–H4).

Not a procedure module (the leading underscore keeps ``load_all`` from treating it as one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import RulesError, load_table

PACKAGE = "ledger.rules.his"
SEED = "his-land-movement.ru.txt"
SEC_PROCEDURE = f"{SEED} §Процедура сухопутного движения (land movement procedure)"
SEC_INTERCEPTION = f"{SEED} §Перехват (interception)"
SEC_INTERCEPTION_LIMITS = f"{SEED} §Перехват, Ограничения (interception restrictions)"
SEC_INTERCEPTION_ROLL = f"{SEED} §Процедура перехвата, шаг 2 (interception roll)"
SEC_INTERCEPTION_STEPS = f"{SEED} §Процедура перехвата (interception procedure)"
SEC_AVOID = f"{SEED} §Уклонение от сражения (avoid battle)"
SEC_AVOID_LIMITS = f"{SEED} §Уклонение от сражения, Ограничения (avoid battle restrictions)"
SEC_WITHDRAW = f"{SEED} §Процедура сухопутного движения, шаг 7 (withdraw into fortifications)"

#: The six major powers. Minor powers' units act inside the formation of the major power
#: they are associated with (DECISIONS.md).
Power = Literal["Ottoman", "Hapsburg", "England", "France", "Papacy", "Protestant"]


def movement_table() -> dict:
    return load_table(PACKAGE, "land_movement.toml")


def default_impulse_order() -> list[str]:
    return list(load_table(PACKAGE, "impulse_order.toml")["order"])


class ArmyLeader(BaseModel):
    """An army leader (командующий армией) with his battle rating."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Leader's name, e.g. 'Suleiman'")
    battle_rating: int = Field(ge=0, description="Battle rating printed on the leader's counter")


class Formation(BaseModel):
    """A formation (соединение): land units and army leaders moving together."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    land_units: int = Field(default=0, ge=0, description="Land units in the formation, cavalry included")
    cavalry: int = Field(default=0, ge=0, description="How many of those land units are cavalry")
    leaders: list[ArmyLeader] = Field(default_factory=list, description="Army leaders in the formation")

    @model_validator(mode="after")
    def _consistent(self) -> "Formation":
        if self.cavalry > self.land_units:
            raise ValueError(f"cavalry ({self.cavalry}) cannot exceed land_units ({self.land_units})")
        if self.land_units == 0 and not self.leaders:
            raise ValueError("a formation needs at least one land unit or army leader")
        return self

    def best_leader(self) -> ArmyLeader | None:
        """The leader with the best battle rating (the first listed on a tie)."""
        return max(self.leaders, key=lambda l: l.battle_rating, default=None)

    def describe(self) -> str:
        bits = [f"{self.land_units} unit{'s' if self.land_units != 1 else ''}"]
        if self.cavalry:
            bits.append(f"{self.cavalry} cavalry")
        if self.leaders:
            bits.append(", ".join(f"{l.name} ({l.battle_rating})" for l in self.leaders))
        return ", ".join(bits)


def impulse_order(override: Sequence[str] | None, *, field: str, rule: str) -> list[str]:
    """The impulse order used (table default unless the inputs override it)."""
    if override is None:
        return default_impulse_order()
    order = list(override)
    if len(set(order)) != len(order):
        raise RulesError(f"{rule}: impulse_order lists a power twice: {order}", field=field, rule=rule)
    return order


T = TypeVar("T")


def in_impulse_order(
    items: Sequence[T], power_of: Callable[[T], str], order: list[str], *, field: str, rule: str
) -> list[tuple[int, T]]:
    """Items (with their input index) sorted by their power's impulse position; stable within a power."""
    for i, item in enumerate(items):
        if power_of(item) not in order:
            raise RulesError(
                f"{rule}: {power_of(item)} is not in impulse_order {order}", field=f"{field}[{i}].power", rule=rule
            )
    return sorted(enumerate(items), key=lambda pair: order.index(power_of(pair[1])))


def reject(rule: str, field: str, message: str) -> RulesError:
    """A restriction violated: the message starts with the rule code and ends with the field."""
    return RulesError(f"{rule}: {message} ({field})", field=field, rule=rule)
