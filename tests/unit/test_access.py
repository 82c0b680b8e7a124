"""The access rules, as pure functions: who sees which event, who may write what, token parsing."""

from __future__ import annotations

from uuid import uuid4

import pytest

from ledger import tokens
from ledger.access import WRITES, can_see, may_write, revealable, visible
from ledger.application import Actor

GM = Actor("gina", "gm")
FRA = Actor("bruno", "player", "FRA")
ENG = Actor("alice", "player", "ENG")
OBSERVER = Actor("olga", "observer")
ADMIN = Actor("admin", "admin")


def event(position: int, scope: str, countries: list[str] | None = None) -> dict:
    vis = {"scope": scope, **({"countries": countries} if countries else {})}
    return {"position": position, "type": "DiceRolled", "visibility": vis}


@pytest.mark.parametrize(
    "actor, public, fra_only, fra_eng, gm_only",
    [
        (GM, True, True, True, True),
        (ADMIN, True, True, True, True),
        (FRA, True, True, True, False),
        (ENG, True, False, True, False),
        (OBSERVER, True, False, False, False),
    ],
)
def test_each_role_sees_public_plus_what_names_its_country(actor, public, fra_only, fra_eng, gm_only):
    assert can_see(actor, event(1, "public")) is public
    assert can_see(actor, event(2, "countries", ["FRA"])) is fra_only
    assert can_see(actor, event(3, "countries", ["ENG", "FRA"])) is fra_eng
    assert can_see(actor, event(4, "gm")) is gm_only


def test_a_revealed_event_is_public_for_everyone():
    hidden = event(7, "gm")
    assert not can_see(OBSERVER, hidden)
    assert can_see(OBSERVER, hidden, revealed={7})
    assert can_see(ENG, event(8, "countries", ["FRA"]), revealed=(8,))
    assert not can_see(ENG, event(9, "countries", ["FRA"]), revealed=(8,))


def test_a_player_without_a_country_sees_no_country_event():
    assert not can_see(Actor("x", "player", None), event(1, "countries", ["FRA"]))


def test_visible_keeps_order_and_drops_hidden_events():
    history = [event(1, "public"), event(2, "gm"), event(3, "countries", ["FRA"]), event(4, "public")]
    assert [e["position"] for e in visible(FRA, history)] == [1, 3, 4]
    assert [e["position"] for e in visible(OBSERVER, history, revealed=[2])] == [1, 2, 4]
    assert [e["position"] for e in visible(GM, history)] == [1, 2, 3, 4]


@pytest.mark.parametrize("action", ["open_turn", "close_turn", "roll", "record_ruling", "record_treasury",
                                    "record_correction", "reveal", "issue_token", "revoke_token", "list_tokens",
                                    "a_future_action"])
def test_the_game_master_may_do_everything_in_the_campaign_and_the_observer_nothing(action):
    assert may_write(GM, action)
    assert may_write(ADMIN, action)
    assert not may_write(OBSERVER, action, {"players_may_roll": True})


def test_only_the_admin_creates_campaigns():
    assert may_write(ADMIN, "create_campaign")
    assert not may_write(GM, "create_campaign")
    assert not may_write(FRA, "create_campaign", {"players_may_roll": True})


@pytest.mark.parametrize("action", ["roll", "record_ruling"])
def test_players_request_dice_only_where_the_campaign_allows_it(action):
    assert not may_write(FRA, action)
    assert not may_write(FRA, action, {"players_may_roll": False})
    assert may_write(FRA, action, {"players_may_roll": True})
    assert WRITES[("player", action)] == "players_may_roll"


@pytest.mark.parametrize("action", ["open_turn", "record_treasury", "record_correction", "reveal", "issue_token"])
def test_players_never_write_anything_else(action):
    assert not may_write(FRA, action, {"players_may_roll": True})


def test_token_records_are_never_revealable():
    assert not revealable({"type": "TokenIssued"}) and not revealable({"type": "TokenRevoked"})
    assert revealable({"type": "DiceRolled"})


def test_a_token_names_its_campaign_and_only_its_hash_is_kept():
    cid = uuid4()
    raw = tokens.new_token(cid)
    assert raw.startswith(f"lt_{cid.hex}_") and len(raw) == 3 + 32 + 1 + 43
    assert tokens.token_campaign(raw) == cid
    assert tokens.digest(raw) == __import__("hashlib").sha256(raw.encode()).hexdigest()
    assert tokens.new_token(cid) != raw


@pytest.mark.parametrize("bad", ["", "lt_", "lt_xyz_abc", f"lt_{'g' * 32}_abc", f"xx_{'0' * 32}_abc",
                                 f"lt_{'0' * 31}_abc", "lt_" + "0" * 32 + "_" + "a" * 300])
def test_malformed_tokens_name_no_campaign(bad):
    assert tokens.token_campaign(bad) is None


def test_the_admin_token_is_compared_whole():
    assert tokens.admin_matches("s3cret", "s3cret")
    assert not tokens.admin_matches("s3cret", "s3cre")
    assert not tokens.admin_matches(None, "")
    assert not tokens.admin_matches("", "")


def test_the_readme_lists_every_write_action_and_every_route_permit_is_a_known_action():
    import re
    from pathlib import Path

    from ledger.access import ACTIONS

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z_]+)`: ", readme, flags=re.M)
    assert listed == list(ACTIONS)
    used = {a for f in (root / "api" / "routes").glob("*.py")
            for a in re.findall(r'Permit\("([a-z_]+)"\)', f.read_text(encoding="utf-8"))}
    assert used <= set(ACTIONS), used - set(ACTIONS)
    assert {"close_phase", "change_settings"} <= used

