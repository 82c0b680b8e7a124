"""The README's standalone dice verifier works on a real closed turn."""

from __future__ import annotations

import re
from pathlib import Path
from uuid import UUID

import pytest

from api.routes.views import event_public
from ledger.application import Actor
from ledger.sample import close_open_phases

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
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
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


@pytest.mark.parametrize("campaign, turn, feed, says", [
    ("readme", 1, None, "CAMPAIGN is the campaign's id, a UUID (GET /campaigns/SLUG shows it as \"id\"), not 'readme'"),
    (None, 2, None, "turn 2 is not opened and closed in these events"),
    (None, 1, {"events": []}, "the input is the JSON list that GET /campaigns/{id}/events returns"),
])
def test_the_readme_verifier_says_what_it_needs_when_given_the_wrong_input(ledger, campaign, turn, feed, says):
    cid = closed_turn(ledger)
    events = [event_public(e).model_dump(mode="json") for e in ledger.history(cid)]
    with pytest.raises(SystemExit) as stopped:
        readme_verifier()["verify"](events if feed is None else feed, campaign or str(cid), turn)
    assert says in str(stopped.value) and str(stopped.value).startswith("verify.py: ")


def test_the_readme_verifier_script_answers_a_slug_with_a_sentence_not_a_traceback(ledger, tmp_path):
    import json
    import subprocess
    import sys

    cid = closed_turn(ledger)
    events = json.dumps([event_public(e).model_dump(mode="json") for e in ledger.history(cid)])
    text = README.read_text().split("## Verifying the dice", 1)[1]
    script = tmp_path / "verify.py"
    script.write_text(re.findall(r"```python\n(.*?)```", text, re.S)[0])
    for args, says in ((["readme", "1"], "not 'readme'"), ([str(cid)], "usage: python verify.py CAMPAIGN_ID TURN")):
        done = subprocess.run([sys.executable, str(script), *args], input=events, capture_output=True, text=True)
        assert done.returncode == 1 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    ok = subprocess.run([sys.executable, str(script), str(cid), "1"], input=events, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("3 rolls verified; 0 rolls whose seed you did not receive"), ok.stdout
