"""The economy through the application, on both stores.

France's hand-filled ERS of tests/unit/rules/eu/test_ers.py, replayed as a
campaign: treasury entries, rulings whose effects become treasury entries (E1
exceptional taxes, E2 with an international loan, R4 land looting, R2 privateer
raid, P1 stability improvement, P4 indemnity, I4 inflation, M8 campaigns, R6
gold), a correction, and the eight phases of each turn closed for France and
England. The resulting sheets are checked line by line against the hand-worked
numbers.
"""

from __future__ import annotations

import orjson
import pytest
from fastapi.testclient import TestClient
from freezegun import freeze_time

from api.main import create_app
from ledger.economy.milestones import PHASES
from projections.economy import campaign_budget
from ledger.application import Actor
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput, StateConflict
from tests.unit.rules.eu.test_ers import TURN1, TURN2
from ledger.sample import close_open_phases

GM = Actor("gm")
ADMIN = "test-admin-token-0123456789abcdef0123456789"
SLUG = "europa-ers"


@pytest.fixture
def cid(ledger):
    ledger.create_campaign(slug=SLUG, name="Europa ERS", ruleset="eu", countries=["FRA", "ENG"], actor=GM)
    return campaign_id(SLUG)


def entry(ledger, cid, line, amount, reason, country="FRA"):
    return ledger.record_treasury_entry(cid, country=country, line=line, amount=amount, reason=reason, actor=GM)


def rule(ledger, cid, procedure, inputs, dice=()):
    return ledger.record_ruling(cid, procedure=procedure, inputs=inputs, manual_dice=[[d] for d in dice], actor=GM)


def close(ledger, cid, phase):
    return ledger.close_phase(cid, phase, actor=GM).data


def play_turn_one(ledger, cid) -> dict[str, dict]:
    """Turn 1 of the worked example; returns what each phase recorded when it closed."""
    ledger.open_turn(cid, actor=GM)
    closed = {}
    entry(ledger, cid, "A1", 150, "starting treasury")
    entry(ledger, cid, "A1", 100, "starting treasury", country="ENG")
    entry(ledger, cid, "A2", 140, "event: a fire in Paris costs 10")
    closed["events"] = close(ledger, cid, "events")
    entry(ledger, cid, "A5", 20, "diplomatic actions")
    entry(ledger, cid, "A7", 15, "dowry received")
    closed["diplomacy"] = close(ledger, cid, "diplomacy")
    for line, amount in {"B1": 180, "B2": 20, "B3": 12, "B6": 10, "B7": 5, "B9": 20, "B10": 15, "B11": 12,
                         "B17": 8, "B18": 6, "B19": 4, "B24": 5, "B30": 120, "B31": 10, "B33": 60, "B34": 25,
                         "B35": 30, "B37": 5}.items():
        entry(ledger, cid, line, amount, "incomes and administration")
    entry(ledger, cid, "B39", 9, "exceptional taxes planned: ADM 6 + 3 × STAB 1")
    closed["incomes"] = close(ledger, cid, "incomes")
    rule(ledger, cid, "M8", {"country": "FRA", "land": "passive"})
    rule(ledger, cid, "M8", {"country": "FRA", "sea": "passive"})
    rule(ledger, cid, "M8", {"country": "FRA", "land": "active"})
    closed["military"] = close(ledger, cid, "military")
    rule(ledger, cid, "R4", {"looter": "FRA", "looted": [
        {"target": "Flandre", "kind": "province", "owner": "SPA", "income": 22, "looter_ld": 4},
        {"target": "Hainaut", "kind": "province", "owner": "SPA", "income": 15, "looter_ld": 4}]})
    rule(ledger, cid, "R2", {"action": {
        "action": "trade_attack", "attacker": "privateers", "zone": "CTZ Angleterre", "target_column": "FLEET+",
        "trade_levels_present": 2, "zone_small_number": 6, "privateer_owners": [{"country": "FRA", "major": True}]}},
        dice=[5])
    closed["redeployment"] = close(ledger, cid, "redeployment")
    rule(ledger, cid, "E1", {"country": "FRA", "adm": 6, "stability": 1}, dice=[4])
    rule(ledger, cid, "E2", {"country": "FRA", "stability": 1, "gross_income": 273, "completely_at_peace": False,
                             "international_loan_test": True, "international_money": 150, "expenses": 290,
                             "from_prestige": 60, "from_national_loan": 50, "from_international_loan": 100},
         dice=[6, 8])
    rule(ledger, cid, "P1", {"country": "FRA", "stability": 1, "investment": 50, "adm": 6}, dice=[5])
    closed["exchequer"] = close(ledger, cid, "exchequer")
    peace = rule(ledger, cid, "P4", {"pd": 2, "dominant": "a", "proposal": {
        "type": "conditional", "level": 2, "winner": "a", "conditions": ["indemnity"], "payer": "SPA",
        "receiver": "FRA"}})
    closed["P4"] = peace.data
    rule(ledger, cid, "I4", {"box": 4, "rotw_gold_this_turn": 0, "countries": [
        {"country": "FRA", "royal_treasury": 368, "produces_american_gold": False},
        {"country": "ENG", "royal_treasury": 100, "produces_american_gold": True}]}, dice=[1])
    closed["peace"] = close(ledger, cid, "peace")
    closed["interphase"] = close(ledger, cid, "interphase")
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=GM)
    return closed


def play_turn_two(ledger, cid) -> int:
    """Turn 2 of the worked example, with a mistaken entry corrected; returns the correction's position."""
    ledger.open_turn(cid, actor=GM)
    for phase in ("events",):
        close(ledger, cid, phase)
    entry(ledger, cid, "A5", 10, "diplomatic actions")
    close(ledger, cid, "diplomacy")
    wrong = entry(ledger, cid, "B1", 170, "provinces income").events[0]["position"]
    for line, amount in {"B2": 20, "B6": 10, "B7": 5, "B9": 20, "B10": 15, "B11": 12, "B17": 8, "B18": 6,
                         "B19": 4, "B30": 120, "B31": 10, "C8": 20}.items():
        entry(ledger, cid, line, amount, "incomes and administration")
    fixed = ledger.record_correction(cid, corrects=wrong, reason="Picardie was forgotten",
                                     replacement={"amount": 180}, actor=GM).events[0]["position"]
    close(ledger, cid, "incomes")
    rule(ledger, cid, "M8", {"country": "FRA", "land": "passive"})
    close(ledger, cid, "military")
    rule(ledger, cid, "R6", {"action": "gold_repatriation", "country": "FRA", "gold": 30})
    close(ledger, cid, "redeployment")
    rule(ledger, cid, "E2", {"country": "FRA", "stability": 2, "gross_income": 280, "completely_at_peace": True,
                             "national_loans": 50, "international_loans": 1, "expenses": 175,
                             "from_prestige": 35}, dice=[7])
    close(ledger, cid, "exchequer")
    rule(ledger, cid, "I4", {"box": 4, "rotw_gold_this_turn": 0, "countries": [
        {"country": "FRA", "royal_treasury": 352, "produces_american_gold": False}]}, dice=[2])
    close(ledger, cid, "peace")
    close(ledger, cid, "interphase")
    return fixed


def values(sheet) -> dict[str, int]:
    return {code: c.value for code, c in sheet.cells.items()}


# --------------------------------------------------------------------------- the worked example


def test_hand_filled_ers_replayed_through_the_application_matches_line_by_line(ledger, cid):
    play_turn_one(ledger, cid)
    fixed = play_turn_two(ledger, cid)
    budget = campaign_budget(ledger, cid)
    turn1, turn2 = budget.sheet("FRA", 1), budget.sheet("FRA", 2)
    assert turn1.error is None and turn2.error is None
    got1, got2 = values(turn1), values(turn2)
    assert {k: got1[k] for k in TURN1} == TURN1
    assert {k: got2[k] for k in TURN2} == TURN2
    # B1 of turn 2 is the corrected amount, and its lineage names the entry and the correction
    assert got2["B1"] == 180 and turn2.cells["B1"].events[-1] == fixed
    assert budget.corrections_unapplied == ()


def test_ruling_effects_become_treasury_entries_in_the_same_transaction(ledger, cid):
    play_turn_one(ledger, cid)
    history = ledger.history(cid)
    by_position = {e.originator_version: e for e in history}
    entries = [e for e in history if isinstance(e, ev.TreasuryEntryRecorded) and e.source is not None]
    booked = [(by_position[e.source].procedure, e.country, e.line, e.amount) for e in entries]
    assert booked == [
        ("M8", "FRA", "B40", 1), ("M8", "FRA", "B40", 1), ("M8", "FRA", "B41", 1),  # ticks, not ducats
        ("R4", "FRA", "A9", 37), ("R2", "FRA", "A9", 12),
        ("E1", "FRA", "A12", 130),
        ("E2", "FRA", "A15_pct", 40), ("E2", "FRA", "A16_pct", 30), ("E2", "FRA", "A17_pct", 40),
        ("E2", "FRA", "A18", 105), ("E2", "FRA", "A21", 60), ("E2", "FRA", "A22", 50), ("E2", "FRA", "A23", 100),
        ("P1", "FRA", "A29", 50),
        ("P4", "FRA", "A30", 75),  # the payer, SPA, is not a country of the campaign: no ERS, reported unbooked
        ("I4", "FRA", "A32_pct", 10), ("I4", "ENG", "A32_pct", 10),
    ]
    for e in entries:  # each entry follows its ruling directly, with the same context and visibility
        ruling = by_position[e.source]
        assert e.originator_version > e.source and e.context == ruling.context and e.turn == 1
        assert e.reason.startswith(ruling.procedure + " ")
    assert by_position[entries[0].source].ruling["effects"][1]["amount"] == "10"  # the ruling keeps ducats


def test_a_ruling_paying_a_minor_reports_the_unbooked_share(ledger, cid):
    closed = play_turn_one(ledger, cid)
    [unbooked] = closed["P4"]["treasury_unbooked"]
    assert unbooked == {"effect": unbooked["effect"], "country": "SPA", "line": "A30", "amount": -75,
                        "reason": "SPA is not a country of this campaign (no ERS)"}
    effect = closed["P4"]["ruling"]["effects"][unbooked["effect"]]
    assert (effect["kind"], effect["country"], effect["amount"]) == ("ducats", "SPA", "-75")


def test_phases_record_the_ers_lines_they_complete_for_both_countries(ledger, cid):
    closed = play_turn_one(ledger, cid)
    assert closed["events"]["ers"] == {}
    assert closed["diplomacy"]["ers"] == {"FRA": {"A8": 135}, "ENG": {"A8": 100}}
    assert closed["redeployment"]["ers"] == {"FRA": {"A9": 49, "A10": 0}, "ENG": {"A9": 0, "A10": 0}}
    # A13, RT before the exchequer test, holds the exceptional taxes levied in the exchequer phase
    assert closed["exchequer"]["ers"] == {"FRA": {"A13": 314, "A25": 343}, "ENG": {"A13": 100, "A25": 100}}
    assert closed["peace"]["ers"] == {"FRA": {"A31": 368}, "ENG": {"A31": 100}}
    assert closed["interphase"]["ers"] == {"FRA": {"A32": 36, "A33": 332}, "ENG": {"A32": 10, "A33": 90}}
    assert [closed[p]["next"] for p in PHASES] == [*PHASES[1:], None]
    turn1 = campaign_budget(ledger, cid).sheet("ENG", 1)
    assert turn1.phases_closed == PHASES
    # The game master's answer only: no figure is recorded (a country's would tell its readers what stands
    # hidden behind it), so the sheet shows none beside its lines.
    assert turn1.cells["A33"].value == 90 and turn1.cells["A33"].at_close is None


# --------------------------------------------------------------------------- phases


def test_closing_a_phase_twice_is_a_conflict_and_appends_nothing(ledger, cid):
    ledger.open_turn(cid, actor=GM)
    close(ledger, cid, "events")
    before = ledger.campaign(cid).version
    with pytest.raises(StateConflict, match="already closed") as e:
        close(ledger, cid, "events")
    assert e.value.status == 409 and e.value.field == "phase"
    with pytest.raises(StateConflict, match="cannot close before diplomacy"):
        close(ledger, cid, "military")
    with pytest.raises(InvalidInput):
        close(ledger, cid, "lunch")
    assert ledger.campaign(cid).version == before


def test_phases_start_again_when_the_next_turn_opens(ledger, cid):
    ledger.open_turn(cid, actor=GM)
    for phase in PHASES:
        close(ledger, cid, phase)
    assert ledger.campaign(cid).phases_closed == PHASES
    with pytest.raises(StateConflict):
        close(ledger, cid, "interphase")
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=GM)
    with pytest.raises(StateConflict, match="closed"):
        close(ledger, cid, "events")
    ledger.open_turn(cid, actor=GM)
    assert ledger.campaign(cid).phases_closed == ()
    assert close(ledger, cid, "events")["turn"] == 2


def test_closed_phases_survive_a_cold_load_from_a_snapshot(settings, ledger, cid):
    from ledger.application import Ledger

    ledger.open_turn(cid, actor=GM)
    for phase in PHASES[:3]:
        close(ledger, cid, phase)
    for n in range(settings.snapshot_interval):  # past the snapshot interval
        entry(ledger, cid, "B37", 1, f"other expense {n}")
    cold = Ledger(settings)
    try:
        assert cold.campaign(cid).phases_closed == PHASES[:3]
        with pytest.raises(StateConflict):
            cold.close_phase(cid, "incomes", actor=GM)
    finally:
        cold.close()


def test_closing_a_phase_reads_no_history_even_on_a_cold_ledger_restored_from_a_snapshot(settings, ledger, cid):
    """The ERS a phase records comes from the write-side state (its treasury log), never from the events."""
    from ledger.application import Ledger

    play_turn_one(ledger, cid)
    ledger.open_turn(cid, actor=GM)
    for n in range(settings.snapshot_interval):  # past the snapshot interval: a cold load starts from it
        entry(ledger, cid, "B37", 1, f"other expense {n}")
    want = {p: close(ledger, cid, p)["ers"] for p in PHASES[:2]}
    cold = Ledger(settings)
    try:
        cold.campaign(cid)  # the state: snapshot plus tail, as every request loads it
        select = cold.recorder.select_events
        read: list[int] = []

        def counting(*args, **kwargs):
            rows = select(*args, **kwargs)
            read.append(len(rows))
            return rows

        cold.recorder.select_events = counting
        got = {p: close(cold, cid, p)["ers"] for p in PHASES[2:4]}
        assert sum(read) == 0
        assert got["incomes"] == {} and set(got["military"]) == set()
        assert set(want["diplomacy"]) == {"FRA", "ENG"}
        # The same figures as the budget computed from the events themselves.
        sheet = campaign_budget(cold, cid).sheet("FRA", 2)
        assert want["diplomacy"]["FRA"]["A8"] == sheet.cells["A8"].value
    finally:
        cold.close()


def test_the_treasury_log_survives_the_snapshot_round_trip_item_for_item(settings, ledger, cid):
    from ledger.domain.campaign import CampaignState

    play_turn_one(ledger, cid)
    state = ledger.campaign(cid)
    again = CampaignState.from_dict(orjson.loads(orjson.dumps(state.to_dict())))
    assert again.treasury == state.treasury and state.treasury.count > 10


def test_phase_closed_event_carries_the_phase_in_its_context_and_the_server_time(ledger, cid):
    ledger.open_turn(cid, actor=GM)
    with freeze_time("1492-10-12 09:30:00"):
        close(ledger, cid, "events")
    [closed] = [e for e in ledger.history(cid) if isinstance(e, ev.PhaseClosed)]
    assert closed.context["phase"] == "events" and closed.turn == 1
    assert closed.timestamp.isoformat().startswith("1492-10-12T09:30:00")


# --------------------------------------------------------------------------- refusals


def test_entries_on_lines_the_sheet_computes_are_refused(ledger, cid):
    ledger.open_turn(cid, actor=GM)
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput, match="computed by the sheet") as e:
        entry(ledger, cid, "A13", 500, "wrong line")
    assert e.value.field == "line"
    with pytest.raises(InvalidInput, match="not on the sheet"):
        entry(ledger, cid, "B49", 5, "no such line")
    assert ledger.campaign(cid).version == before
    entry(ledger, cid, "A32_pct", 10, "percentage box")  # a sub-box is an entered line


# --------------------------------------------------------------------------- HTTP and CLI


def test_http_closes_phases_and_serves_the_sheet_with_lineage(ledger, cid):
    play_turn_one(ledger, cid)
    ledger.open_turn(cid, actor=GM)
    settings = ledger.settings.model_copy(update={"admin_token": ADMIN})
    with TestClient(create_app(settings, ledger), headers={"Authorization": f"Bearer {ADMIN}"}) as http:
        r = http.post(f"/campaigns/{SLUG}/phases/events/close")
        assert r.status_code == 201, r.text
        again = http.post(f"/campaigns/{SLUG}/phases/events/close")
        assert again.status_code == 409 and again.json()["error"]["field"] == "phase"
        assert http.post(f"/campaigns/{SLUG}/phases/lunch/close").status_code == 422
        sheet = http.get(f"/campaigns/{SLUG}/ers/FRA/1").json()
        lines = {line["code"]: line for line in sheet["lines"]}
        assert len(lines) == 33 + 48 + 10 + 4  # A1–A33, B1–B48, C1–C10 and the four percentage boxes
        assert {c: lines[c]["amount"] for c in TURN1} == TURN1
        assert lines["A9"]["kind"] == "entered" and len(lines["A9"]["events"]) == 2
        assert lines["A13"]["kind"] == "derived" and lines["A13"]["sources"] == ["A8", "A9", "A10", "A12"]
        assert (lines["B40"]["ticks"], lines["B40"]["amount"]) == (2, 20)
        assert http.get(f"/campaigns/{SLUG}/ers/FRA/3").status_code == 422
        assert http.get(f"/campaigns/{SLUG}/ers/XYZ/1").status_code == 422


def test_cli_prints_the_sheet_as_on_paper_and_closes_phases(ledger, cid, settings, monkeypatch):
    from typer.testing import CliRunner

    from ledger.cli import app

    play_turn_one(ledger, cid)
    ledger.open_turn(cid, actor=GM)
    for k, v in settings.model_dump().items():
        if v is not None and k in ("data_dir", "store", "postgres_dsn", "postgres_schema"):
            monkeypatch.setenv(f"LEDGER_{k.upper()}", str(v))
    runner = CliRunner()
    shown = runner.invoke(app, ["ers", SLUG, "FRA", "1"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    for text in ("Sheet A", "Sheet B", "Sheet C", "RT after Diplomacy", "2 × 10 = 20", "40%"):
        assert text in shown.output
    assert "332" in shown.output
    done = runner.invoke(app, ["phase", "close", SLUG, "events"])
    assert done.exit_code == 0, done.output
    twice = runner.invoke(app, ["phase", "close", SLUG, "events"])
    assert twice.exit_code == 2 and "already closed" in twice.output
