"""The README's standalone dice verifier works on a real closed turn."""

from __future__ import annotations

import re
from pathlib import Path
from uuid import UUID

import pytest

from api.routes.views import event_public
from ledger.application import Actor

README = Path(__file__).resolve().parents[2] / "README.md"
GM = Actor("gm", "gm")


def readme_verifier() -> dict:
    text = README.read_text()
    section = text.split("## Verifying the dice", 1)[1]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)[:1]
    namespace: dict = {"__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)
    return namespace


def closed_turn(ledger):
    from tests.integration import rulesets  # noqa: F401

    cid = UUID(ledger.create_campaign(slug="readme", name="R", ruleset="check", countries=["ENG"]).data["id"])
    ledger.open_turn(cid, actor=GM)
    ledger.roll(cid, purpose="a", sides=6, count=3, actor=GM)
    ledger.record_manual_roll(cid, purpose="table", sides=10, values=[4], actor=GM)
    ledger.record_ruling(cid, procedure="T1", inputs={"bonus": 1, "target": 6}, actor=GM)
    ledger.roll(cid, purpose="b", sides=100, actor=GM)
    ledger.close_turn(cid, actor=GM)
    return cid


def test_the_readme_verifier_confirms_every_server_roll(ledger):
    cid = closed_turn(ledger)
    events = [event_public(e).model_dump(mode="json") for e in ledger.history(cid)]
    assert readme_verifier()["verify"](events, str(cid), 1) == (3, 0)


def test_the_readme_verifier_catches_a_changed_roll(ledger):
    cid = closed_turn(ledger)
    events = [event_public(e).model_dump(mode="json") for e in ledger.history(cid)]
    [roll] = [e for e in events if e["type"] == "DiceRolled" and e["payload"]["purpose"] == "b"]
    roll["payload"]["values"] = [roll["payload"]["values"][0] % 100 + 1]
    with pytest.raises(AssertionError):
        readme_verifier()["verify"](events, str(cid), 1)
