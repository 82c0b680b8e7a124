"""Poison input (issue 34, item 1): what people type is one kind of text, and every writer makes it safe.

In: a NUL, an escape sequence or another control character in a typed text is refused with a 422 (an exit 2 on the
command line) naming the field (ledger/text.py ``typed``, through the command models). Out: a history that already
holds such texts (appended around the commands here, as an older release or a crafted append could) projects,
follows, rebuilds, exports in every format and prints at a terminal without failing, on both stores; an event a
view cannot apply at all is passed, recorded, and reported by ``/ready`` while every other event goes on.
"""

from __future__ import annotations

import csv
import io
import json
import time

import openpyxl
import pyarrow.parquet as pq
import pytest

from ledger.domain import events as ev
from projections.runner import Projector, ProjectionRunner
from tests.e2e.test_access import SYSTEM, bearer, issue, make_client, new_campaign
from ledger.cli import app
from tests.integration.test_cli import cli_env, run, runner

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

#: What the attackers typed: a NUL (PostgreSQL's text columns refuse it), and escape sequences that set a
#: terminal's title, clear its screen and ring its bell.
NUL_PURPOSE = "player\x00nul"
TERMINAL_PURPOSE = "\x1b]0;pwned\x07\x1b[2Jcleared"
CONTROL_REASON = "loot\x00 of \x01Picardie\x1b[31m"
FORMULAS = ['=HYPERLINK("http://evil","click")', "+1+1", "-2+3", "@SUM(A1:A2)"]
#: What no terminal output and no CSV or worksheet text may hold of them.
RAW = ("\x00", "\x01", "\x07", "\x1b")


def poison(ledger, cid) -> dict[str, int]:
    """Append, around the commands' checks, the texts they now refuse (turn 1 open); their positions by name."""
    def append(d):
        at = {"roll": d.add(ev.DiceRolled, turn=1, index=None, purpose=NUL_PURPOSE + TERMINAL_PURPOSE, sides=6,
                            count=1, values=[3], manual=True),
              "entry": d.add(ev.TreasuryEntryRecorded, country="FRA", turn=1, line="A9", amount=5,
                             reason=CONTROL_REASON, source=None)}
        for i, reason in enumerate(FORMULAS):
            at[f"formula {i}"] = d.add(ev.TreasuryEntryRecorded, country="FRA", turn=1, line="A9", amount=i + 1,
                                       reason=reason, source=None)
        at["correction"] = d.add(ev.CorrectionRecorded, corrects=at["entry"], reason="typo\x00\x1b[2J",
                                 replacement={"amount": 6})
        return at

    return ledger.execute(cid, SYSTEM, append).data


@pytest.fixture
def poisoned(settings, ledger):
    """Campaign `poison` (turn 1 open) holding the poisoned texts, and campaign `after`, written after them."""
    cid = new_campaign(ledger, "poison")
    ledger.open_turn(cid, actor=SYSTEM)
    ledger.record_treasury_entry(cid, country="FRA", line="A1", amount=100, reason="starting treasury", actor=SYSTEM)
    at = poison(ledger, cid)
    after = new_campaign(ledger, "after")
    ledger.open_turn(after, actor=SYSTEM)
    ledger.roll(after, purpose="weather", actor=SYSTEM)
    return {"cid": cid, "after": after, "at": at, "gm": issue(ledger, cid, "gm")}


def timeline_row(projector: Projector, cid, position: int) -> dict | None:
    with projector.db.reading() as cur:
        cur.execute(projector.db.sql("SELECT summary FROM {proj_timeline} WHERE campaign = ? AND position = ?"),
                    (str(cid), position))
        return cur.fetchone()


def caught_up(runner: ProjectionRunner, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while runner.lag and time.monotonic() < deadline:
        runner.wake.set()
        time.sleep(0.1)
    assert runner.lag == 0, runner.status()


# ------------------------------------------------------------------ in: refused, naming the field


def test_a_nul_in_a_rolls_purpose_is_refused_naming_the_field(settings, ledger):
    cid = new_campaign(ledger, "typed")
    ledger.open_turn(cid, actor=SYSTEM)
    player = issue(ledger, cid, "player", "FRA")  # a player may roll
    client = make_client(settings, ledger)
    before = ledger.campaign(cid).version
    for purpose, words in [(NUL_PURPOSE, "NUL character (U+0000)"), (TERMINAL_PURPOSE, "escape character (U+001B)"),
                           ("two\nlines", "line break (U+000A)")]:
        r = client.post("/campaigns/typed/rolls", json={"purpose": purpose}, headers=bearer(player))
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["field"] == "purpose" and words in error["message"], error
        assert "\x00" not in r.text and "\x1b" not in r.text
    assert ledger.campaign(cid).version == before  # nothing appended
    ok = client.post("/campaigns/typed/rolls", json={"purpose": "Cafe\u0301 brawl"}, headers=bearer(player))
    assert ok.status_code == 201
    [roll] = [e for e in ledger.history(cid) if isinstance(e, ev.DiceRolled)]
    assert roll.purpose == "Caf\u00e9 brawl"  # NFC: one way to write each text


def test_a_control_character_in_a_reason_is_refused_and_a_line_break_kept(settings, ledger):
    cid = new_campaign(ledger, "reasons")
    ledger.open_turn(cid, actor=SYSTEM)
    gm = issue(ledger, cid, "gm")
    client = make_client(settings, ledger)
    entry = {"country": "FRA", "line": "A9", "amount": 5}
    r = client.post("/campaigns/reasons/treasury", json={**entry, "reason": "loot\x01"}, headers=bearer(gm))
    assert r.status_code == 422 and r.json()["error"]["field"] == "reason"
    assert "control character (U+0001)" in r.json()["error"]["message"]
    # A reason is several lines (a textarea sends CRLF): kept, as line breaks.
    r = client.post("/campaigns/reasons/treasury", json={**entry, "reason": "loot\r\nof Picardie"}, headers=bearer(gm))
    assert r.status_code == 201, r.text
    [e] = [e for e in ledger.history(cid) if isinstance(e, ev.TreasuryEntryRecorded)]
    assert e.reason == "loot\nof Picardie"
    # Free-form inputs and nested names too, named by their path.
    r = client.post("/campaigns/reasons/rulings", json={"procedure": "M13", "inputs": {"direction": "exit\x1b"}},
                    headers=bearer(gm))
    assert r.status_code == 422 and r.json()["error"]["field"] == "inputs", r.text
    assert "direction" in r.json()["error"]["message"]
    r = client.post("/campaigns/reasons/rolls", json={"purpose": "x", "context": {"where": "Pic\x00ardie"}},
                    headers=bearer(gm))
    assert r.status_code == 422 and r.json()["error"]["field"] == "context.where"


def test_the_command_line_refuses_a_control_character_naming_the_option(settings):
    assert run(settings, "campaign", "create", "cli", "--name", "Cli", "--country", "FRA").exit_code == 0
    assert run(settings, "turn", "open", "cli").exit_code == 0
    r = run(settings, "roll", "cli", "--purpose", TERMINAL_PURPOSE)
    assert r.exit_code == 2 and "error [purpose]" in r.output and "escape character (U+001B)" in r.output
    assert "\x1b" not in r.output
    r = run(settings, "treasury", "cli", "FRA", "A9", "5", "--reason", CONTROL_REASON)
    assert r.exit_code == 2 and "error [reason]" in r.output and "\x00" not in r.output
    # Who records is a typed text too: it goes into every event.
    r = run(settings, "roll", "cli", "--purpose", "storm", "--actor", "gina\x1b]0;x\x07")
    assert r.exit_code == 2 and "--actor" in r.output and "\x1b" not in r.output
    assert json.loads(run(settings, "events", "cli", "--json").output)[-1]["type"] == "TurnOpened"


# ------------------------------------------------------------------ out: a poisoned history is read without failing


def test_a_history_holding_a_nul_projects_following_and_rebuilding(settings, ledger, poisoned):
    runner = ProjectionRunner(ledger, poll=0.05).start()
    try:
        caught_up(runner)
        assert runner.last_error is None  # the follower never stopped on the NUL
    finally:
        runner.stop()
    projector = Projector(ledger)
    for _ in range(2):  # followed, then rebuilt
        row = timeline_row(projector, poisoned["cid"], poisoned["at"]["roll"])
        assert row is not None and "player\ufffdnul" in row["summary"]  # the view still holds the event
        assert timeline_row(projector, poisoned["after"], 3) is not None  # the other campaigns went on
        assert projector.failed() == {}
        projector.rebuild()
    assert projector.catch_up() == 0


def test_an_event_a_view_cannot_apply_is_passed_recorded_and_reported_by_ready(settings, ledger):
    broken = new_campaign(ledger, "broken")
    ledger.open_turn(broken, actor=SYSTEM)
    # An amount that is not a number: the timeline cannot say it. Nothing checks a raw append.
    bad = ledger.execute(broken, SYSTEM, lambda d: {"at": d.add(ev.TreasuryEntryRecorded, country="FRA", turn=1,
                                                                 line="A9", amount="5", reason="x", source=None)})
    later = new_campaign(ledger, "later")
    with make_client(settings, ledger) as client:  # its projection runner follows the log
        runner = client.app.state.projection_runner
        caught_up(runner)
        ready = client.get("/ready").json()
        assert ready["status"] == "degraded" and ready["projection_errors"] == {"timeline": 1}, ready
        assert ready["projections_lag"] == 0 and not ready["projections_failing"]
        [failure] = runner.projector.failed()["timeline"]["events"]
        assert (failure["campaign"], failure["position"]) == (str(broken), bad.data["at"])
        assert "ValueError" in failure["error"]
        # The rest of the log was applied, the broken campaign's later events too.
        ledger.roll(broken, purpose="after the bad one", actor=SYSTEM)
        caught_up(runner)
        assert timeline_row(runner.projector, later, 1) is not None
        assert timeline_row(runner.projector, broken, bad.data["at"] + 1) is not None
    # A rebuild records it once again, not twice; `ledger project` names it.
    projector = Projector(ledger)
    projector.rebuild()
    assert projector.failed()["timeline"]["count"] == 1
    said = run(settings, "project")
    assert said.exit_code == 0 and "timeline view could not apply 1 event" in said.output
    assert f"campaign {broken} position {bad.data['at']}" in said.output


def test_an_entry_whose_reason_starts_a_formula_is_written_to_csv_as_text(settings, ledger, poisoned):
    client = make_client(settings, ledger)
    headers = bearer(poisoned["gm"])
    for path in ("/campaigns/poison/export/entries.csv", "/campaigns/poison/export/entries.json"):
        assert client.get(path, headers=headers).status_code == 200
    body = client.get("/campaigns/poison/export/entries.csv", headers=headers).content.decode()
    reasons = [r["reason"] for r in csv.DictReader(io.StringIO(body))]
    for formula in FORMULAS:
        assert "'" + formula in reasons  # a spreadsheet shows it as the text it is
    assert not [r for r in reasons if r[:1] in ("=", "+", "-", "@")]
    # The same cells through the general writer (the whole-table download, as `ledger export` writes it).
    from projections import export

    history = client.get("/campaigns/poison/export/entries.json", headers=headers).json()
    general = export.to_csv("entries", history).decode()
    assert [r["reason"] for r in csv.DictReader(io.StringIO(general))] == reasons


def test_a_poisoned_history_exports_in_every_format(settings, ledger, poisoned):
    client = make_client(settings, ledger)
    headers = bearer(poisoned["gm"])
    for table in ("ers", "ers-wide", "entries", "victory"):
        for fmt in ("csv", "json", "parquet", "xlsx"):
            r = client.get(f"/campaigns/poison/export/{table}.{fmt}", headers=headers)
            assert r.status_code == 200, (table, fmt, r.text[:300])
    entries = client.get("/campaigns/poison/export/entries.json", headers=headers).json()
    assert {CONTROL_REASON.replace("\x00", "\ufffd"), CONTROL_REASON} & {e["reason"] for e in entries}
    table = pq.read_table(io.BytesIO(client.get("/campaigns/poison/export/entries.parquet", headers=headers).content))
    assert len(table) == len(entries)
    # The workbook opens; a character XML cannot hold is shown as text, in cells and in comments.
    book = openpyxl.load_workbook(io.BytesIO(client.get("/campaigns/poison/export/ers.xlsx",
                                                        headers=headers).content))
    texts = [c.value for ws in book.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    comments = [c.comment.text for ws in book.worksheets for row in ws.iter_rows() for c in row if c.comment]
    assert any("\\x01Picardie\\x1b[31m" in t for t in texts), texts
    assert any("Picardie" in t for t in comments)
    assert not [t for t in texts + comments if any(ch in t for ch in RAW)]


def test_ledger_events_prints_a_poisoned_history_without_sending_control_characters(settings, ledger, poisoned):
    r = runner.invoke(app, ["events", "poison"], env={**cli_env(settings), "COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    assert not [ch for ch in RAW if ch in r.output]
    assert "(player\\x00nul\\x1b]0;pwned\\x07\\x1b[2Jcleared)" in r.output  # shown, not sent
    shown = run(settings, "replay", "poison", "--turn", "1", "--commands", "n,n,n,n,n,q")
    assert shown.exit_code == 0 and not [ch for ch in RAW if ch in shown.output], shown.output
    listed = json.loads(run(settings, "events", "poison", "--json").output)  # JSON escapes them itself
    assert any(NUL_PURPOSE in e["payload"].get("purpose", "") for e in listed)


def test_an_event_whose_row_the_store_refuses_is_passed_by_that_view_alone(settings, ledger):
    broken = new_campaign(ledger, "outofrange")
    ledger.open_turn(broken, actor=SYSTEM)

    def crafted(d):  # a turn past PostgreSQL's integer columns (the timeline's, the turn groups'): SQLite stores it
        d.context["turn"] = 2**40
        return {"at": d.add(ev.DiceRolled, turn=1, index=None, purpose="x", sides=6, count=1, values=[3],
                            manual=True)}

    bad = ledger.execute(broken, SYSTEM, crafted).data["at"]
    later = new_campaign(ledger, "afterwards")
    projector = Projector(ledger)
    for again in (projector.catch_up, projector.rebuild):  # followed (page by page), then rebuilt (pipelined)
        again()
        assert set(projector.positions().values()) == {projector.db.head()}
        assert timeline_row(projector, later, 1) is not None  # the other campaigns went on
        failed = projector.failed()
        if settings.backend == "postgres":
            assert {"timeline", "turn_groups"} <= set(failed) and "map" not in failed
            assert all(doc["count"] == 1 and doc["events"][0]["position"] == bad for doc in failed.values())
            assert "out of range" in failed["timeline"]["events"][0]["error"]
        else:
            assert failed == {}
