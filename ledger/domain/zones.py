"""Time zones by IANA name (issue 38): a campaign's (``settings.time_zone``) and a reader's own choice."""

from __future__ import annotations

from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

#: The zone of a campaign that chose none.
DEFAULT_ZONE = "UTC"


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; ``ValueError`` naming the closest known zones when it is not one."""
    if name in _zones():
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    from ledger.board import did_you_mean

    raise ValueError(f"unknown time zone {name!r} (an IANA name, like 'Europe/Paris' or 'UTC')"
                     f"{did_you_mean(name, sorted(_zones()))}")


def campaign_zone(settings: dict[str, Any]) -> str:
    return settings.get("time_zone") or DEFAULT_ZONE
