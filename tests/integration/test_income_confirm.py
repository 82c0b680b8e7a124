"""The game master confirms the income lines the board works out (issue 36, items 3 and 5), on the rules' own
example: Portugal's turn 1 (BAMGames/europa-universalis-rules rules/engIncomes.tex, provinces income 29 from
seven provinces). Both stores."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import ContradictsBoard, Forbidden, InvalidInput, StateConflict
from ledger.sample import GM
from projections.income import proposal_answer

ADMIN = "test-admin-token-0123456789abcdef0123456789"
PORTUGAL = {"Tras-os-Montes": 5, "Beira": 3, "Tejo": 6, "Alentejo": 6, "Algarve": 5, "Tanger": 2, "Acores": 2}


@pytest.fixture
def europa(ledger):
    """The 1492 board, turn 1 open, Portugal given Tanger and the Acores as the rules' example has them."""
    cid = campaign_id("europa")
    # A blank start: the tests set the facts of the rules' examples themselves.
    ledger.handle(cid, cmd.CreateCampaign(slug="europa", name="Europa", ruleset="eu", scenario="eu-1492",
                                     start=False), actor=GM)
    ledger.open_turn(cid, actor=GM)
    for place in ("Tanger", "Acores"):
        ledger.handle(cid, cmd.ChangeOwner(province=place, owner="POR", reason="Portugal's start"), actor=GM)
    return cid


def confirm(ledger, cid, **fields):
    fields.setdefault("position", ledger.campaign(cid).version)
    return ledger.handle(cid, cmd.build(cmd.ConfirmIncome, **fields), actor=GM)


def appended_since(ledger, cid, before):
    return list(ledger.history(cid, after=before))


def sheet_value(ledger, cid, country, code, turn=1):
    return ledger.budget_of(ledger.campaign(cid)).sheet(country, turn).cells[code].value


def test_portugal_provinces_income_29_is_confirmed_in_one_action_with_its_lineage(ledger, europa):
    before = ledger.campaign(europa).version
    done = confirm(ledger, europa, countries=["POR"])
    [confirmed, *entries] = appended_since(ledger, europa, before)
    assert isinstance(confirmed, ev.IncomeConfirmed) and confirmed.at == before and confirmed.country == "POR"
    [b1] = [x for x in confirmed.lines if x["line"] == "B1"]
    assert (b1["amount"], b1["computed"], b1["kept"]) == (29, 29, None)
    assert {s["name"]: s["amount"] for s in b1["lineage"]} == PORTUGAL
    [entry] = [e for e in entries if e.line == "B1"]
    assert (entry.amount, entry.source) == (29, confirmed.position)
    assert "B1 29: Acores 2, Alentejo 6, Algarve 5, Beira 3, Tanger 2, Tejo 6, Tras-os-Montes 5 (each owned by POR)" \
        in entry.reason
    assert sheet_value(ledger, europa, "POR", "B1") == 29
    assert done.data["confirmed"]["POR"]["lines"]["B1"] == 29


def test_every_country_is_confirmed_by_one_command_one_event_each(ledger, europa):
    before = ledger.campaign(europa).version
    confirm(ledger, europa)
    confirmed = [e for e in appended_since(ledger, europa, before) if isinstance(e, ev.IncomeConfirmed)]
    assert [e.country for e in confirmed] == list(ledger.campaign(europa).countries)


def test_a_typed_value_the_board_contradicts_is_refused_naming_the_line_typed_and_computed(ledger, europa):
    before = ledger.campaign(europa).version
    with pytest.raises(ContradictsBoard) as e:
        confirm(ledger, europa, countries=["POR"], values={"POR": {"B1": 32}})
    assert e.value.field == "values.POR.B1"
    assert "POR B1: typed 32, but the board works out 29" in e.value.message
    assert "keep it with kept.POR.B1 and a reason" in e.value.message
    assert ledger.campaign(europa).version == before
    confirm(ledger, europa, countries=["POR"], values={"POR": {"B1": 29}})  # typed as the board says: recorded


def test_a_value_kept_with_a_reason_is_recorded_as_an_override(ledger, europa):
    before = ledger.campaign(europa).version
    confirm(ledger, europa, countries=["POR"], values={"POR": {"B1": 32}},
            kept={"POR": {"B1": {"amount": 32, "reason": "the Beira revolt ended before the phase"}}})
    [confirmed, *entries] = appended_since(ledger, europa, before)
    [b1] = [x for x in confirmed.lines if x["line"] == "B1"]
    assert (b1["amount"], b1["computed"], b1["kept"]) == (32, 29, "the Beira revolt ended before the phase")
    [entry] = [e for e in entries if e.line == "B1"]
    assert entry.overridden == {"line": "B1", "typed": 32, "board": 29,
                                "reason": "the Beira revolt ended before the phase"}
    assert sheet_value(ledger, europa, "POR", "B1") == 32
    assert ledger.verify(europa).intact  # the override is hashed as stored


def test_keeping_what_the_board_works_out_is_refused(ledger, europa):
    with pytest.raises(InvalidInput, match="the board works out 29 too: nothing to keep"):
        confirm(ledger, europa, countries=["POR"], kept={"POR": {"B1": {"amount": 29, "reason": "sure"}}})


def test_a_proposal_read_before_the_map_changed_is_refused(ledger, europa):
    read_at = ledger.campaign(europa).version
    ledger.handle(europa, cmd.ChangeOwner(province="Beira", owner="SPA", reason="ceded"), actor=GM)
    with pytest.raises(StateConflict) as e:
        confirm(ledger, europa, countries=["POR"], position=read_at)
    assert e.value.field == "position" and "POR B1 is now 26 (was 29)" in e.value.message
    # A change that moves no line of the countries confirmed does not refuse it.
    read_at = ledger.campaign(europa).version
    ledger.handle(europa, cmd.PlaceMarker(province="Picardie", marker="Siegework", reason="a siege"), actor=GM)
    confirm(ledger, europa, countries=["POR"], position=read_at)


def test_a_change_of_the_map_after_the_confirmation_marks_it_stale_until_the_phase_closes(ledger, europa):
    confirm(ledger, europa, countries=["POR"])
    state = ledger.campaign(europa)
    assert proposal_answer(ledger, europa, GM, state, "POR")["stale"] == ""
    ledger.handle(europa, cmd.ChangeOwner(province="Beira", owner="SPA", reason="ceded"), actor=GM)
    answer = proposal_answer(ledger, europa, GM, ledger.campaign(europa), "POR")
    assert answer["stale"].startswith("Stale: the map changed after POR's income was confirmed")
    assert "B1 is now 26 (worked out 29 then)" in answer["stale"]
    # Confirming again books the difference: the line totals the new value.
    confirm(ledger, europa, countries=["POR"])
    assert sheet_value(ledger, europa, "POR", "B1") == 26
    assert proposal_answer(ledger, europa, GM, ledger.campaign(europa), "POR")["stale"] == ""
    for phase in ("events", "diplomacy", "incomes"):
        ledger.close_phase(europa, phase, actor=GM)
    ledger.handle(europa, cmd.ChangeOwner(province="Tejo", owner="SPA", reason="ceded"), actor=GM)
    assert proposal_answer(ledger, europa, GM, ledger.campaign(europa), "POR")["stale"] == ""
    with pytest.raises(StateConflict, match="incomes phase of turn 1 is closed"):
        confirm(ledger, europa, countries=["POR"])


def test_an_entry_typed_by_hand_on_a_computed_line_is_held_to_the_board(ledger, europa):
    before = ledger.campaign(europa).version
    with pytest.raises(ContradictsBoard) as e:
        ledger.record_treasury_entry(europa, country="POR", line="B1", amount=20, reason="provinces", actor=GM)
    assert e.value.field == "amount"
    assert "B1: this entry makes the line 20 for POR this turn, but the board works out 29" in e.value.message
    assert ledger.campaign(europa).version == before
    ledger.record_treasury_entry(europa, country="POR", line="B1", amount=20, reason="provinces", actor=GM,
                                 keep="Beira and Tejo were given as a dowry")
    [entry] = appended_since(ledger, europa, before)
    assert entry.overridden == {"line": "B1", "typed": 20, "board": 29, "reason": "Beira and Tejo were given as a dowry"}
    ledger.record_treasury_entry(europa, country="POR", line="B1", amount=9, reason="the rest", actor=GM)  # 29
    [plain] = appended_since(ledger, europa, before + 1)
    assert plain.overridden is None and "overridden" not in plain.payload()  # stored as entries always were
    assert ledger.verify(europa).intact
    with pytest.raises(InvalidInput, match="nothing to keep"):
        ledger.record_treasury_entry(europa, country="POR", line="A9", amount=5, reason="loot", actor=GM,
                                     keep="no board line")


def test_recompute_reports_a_confirmed_line_kept_against_the_state_at_its_position(ledger, europa):
    confirm(ledger, europa, countries=["POR"],
            kept={"POR": {"B1": {"amount": 32, "reason": "the Beira revolt ended before the phase"}}})
    confirm(ledger, europa, countries=["ENG"])
    incomes: list[dict] = []
    assert ledger.recompute(europa, incomes=incomes) == []
    assert [(i["country"], i["line"], i["recorded"], i["again"], i["kept"]) for i in incomes] == [
        ("POR", "B1", 32, 29, "the Beira revolt ended before the phase")]


def test_http_the_game_master_confirms_and_a_player_reads_only_their_own_proposal(ledger, europa):
    settings = ledger.settings.model_copy(update={"admin_token": ADMIN})
    with TestClient(create_app(settings, ledger), headers={"Authorization": f"Bearer {ADMIN}"}) as http:
        token = http.post("/campaigns/europa/tokens", json={"role": "player", "country": "POR"}).json()["token"]
        other = http.post("/campaigns/europa/tokens", json={"role": "player", "country": "SPA"}).json()["token"]
        gm = http.get("/campaigns/europa/income", params={"country": "POR"})
        assert gm.status_code == 200, gm.text
        [b1] = [x for x in gm.json()["lines"] if x["line"] == "B1"]
        assert b1["words"].startswith("B1 29: Acores 2, Alentejo 6, Algarve 5, Beira 3")
        at = gm.json()["position"]
        refused = http.post("/campaigns/europa/income/confirm",
                            json={"position": at, "countries": ["POR"], "values": {"POR": {"B1": 30}}})
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "values.POR.B1"
        ok = http.post("/campaigns/europa/income/confirm", json={"position": at, "countries": ["POR"]})
        assert ok.status_code == 201, ok.text
        mine = http.get("/campaigns/europa/income", params={"country": "POR"},
                        headers={"Authorization": f"Bearer {token}"})
        assert mine.status_code == 200 and mine.json()["confirmed"]["lines"]["B1"] == 29
        theirs = http.get("/campaigns/europa/income", params={"country": "POR"},
                          headers={"Authorization": f"Bearer {other}"})
        assert theirs.status_code == 403
        assert http.post("/campaigns/europa/income/confirm", json={"position": at},
                         headers={"Authorization": f"Bearer {token}"}).status_code == 403
        audit = http.get("/campaigns/europa/recompute")
        assert audit.status_code == 200 and audit.json()["incomes"] == []
        assert http.get("/campaigns/europa/recompute", headers={"Authorization": f"Bearer {token}"}).status_code == 403


def test_cli_proposes_confirms_with_a_kept_line_and_recompute_reports_it(ledger, europa, settings, monkeypatch):
    from typer.testing import CliRunner

    from ledger.cli import app

    for k, v in settings.model_dump().items():
        if v is not None and k in ("data_dir", "store", "postgres_dsn", "postgres_schema"):
            monkeypatch.setenv(f"LEDGER_{k.upper()}", str(v))
    runner = CliRunner()
    env = {"COLUMNS": "200", "LEDGER_OUTPUT": "words"}
    shown = runner.invoke(app, ["income", "propose", "europa", "--country", "POR"], env=env)
    assert shown.exit_code == 0, shown.output
    at = ledger.campaign(europa).version
    assert f"worked out at position {at}" in shown.output and "Tras-os-Montes 5" in shown.output
    assert f"ledger income confirm europa --position {at}" in shown.output
    refused = runner.invoke(app, ["income", "confirm", "europa", "--position", str(at), "--country", "POR",
                                  "--keep", "POR.B1=29:as the map says"], env=env)
    assert refused.exit_code == 2 and "nothing to keep" in refused.output
    done = runner.invoke(app, ["income", "confirm", "europa", "--position", str(at), "--country", "POR",
                               "--keep", "POR.B1=32:the Beira revolt ended before the phase"], env=env)
    assert done.exit_code == 0, done.output
    assert "POR's income of turn 1 confirmed from the state at" in done.output and "B1 32 (kept)" in done.output
    audit = runner.invoke(app, ["recompute", "europa"], env=env)
    assert "POR's B1 of turn 1 confirmed 32, the state at" in audit.output
    assert "kept by the game master (the Beira revolt ended before the phase)" in audit.output
    assert "1 disagree, 1 kept by the game master with a reason, 0 not" in audit.output
    assert audit.exit_code == 0, audit.output
