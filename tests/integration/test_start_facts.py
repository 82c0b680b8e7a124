"""The 1492 placement's economic facts (engGreatCampaign.tex, "Placement in 1492 (turn 1)"; issue 36): a campaign
set up from eu-1492 records them as the events the game master's own commands record, and the income lines
read them from the first turn."""

from __future__ import annotations

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.economy.board_income import work_out
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from ledger.usecases import start


def _facts_without_lineage(ledger, cid) -> dict:
    return {c: {k: v for k, v in f.items() if k != "at"}
            for c, f in (ledger.campaign(cid).military.get("countries") or {}).items()}


def created(ledger, slug: str):
    cid = campaign_id(slug)
    ledger.handle(cid, cmd.build(cmd.CreateCampaign, slug=slug, name=slug, scenario="eu-1492"), actor=GM)
    return cid


def test_the_1492_placement_records_what_the_sources_give_as_the_commands_would(ledger, monkeypatch):
    with_start = created(ledger, "placed")
    # The same scenario set up without its start, then each start command sent by hand, through the use cases
    # that check every name against the board and the scenario (a zone, a place, a country it lacks: refused).
    with monkeypatch.context() as m:
        m.setattr(start, "record", lambda *a, **k: 0)
        bare = created(ledger, "bare")
    assert "POR" not in (ledger.campaign(bare).military.get("countries") or {})
    ledger.open_turn(bare, actor=GM)
    for command in start.commands("eu", "start_1492"):
        ledger.handle(bare, command, actor=GM)
    assert _facts_without_lineage(ledger, with_start) == _facts_without_lineage(ledger, bare)
    placed = _facts_without_lineage(ledger, with_start)
    assert placed["POR"]["domestic_trade_index"] == 3 and placed["POR"]["trade_fleets"] == {
        "STZ Canarias": 3, "STZ Guinee": 1}
    assert placed["POR"]["colonies"] == {"Cabo Verde~I": 4} and placed["POR"]["trading_posts"] == {"Cotedor~W": 3}
    assert placed["ENG"]["vassals"] == ["SCO"] and placed["VEN"]["trade_centres"] == {
        "mediterranean": {"province": None, "income": None}}
    assert placed["TUR"]["missions"] == ["Nedj~W"]


def test_the_placement_is_recorded_in_the_append_that_sets_the_campaign_up(ledger):
    cid = created(ledger, "placed")
    history = ledger.history(cid)
    assert [type(e).__name__ for e in history[:2]] == ["CampaignCreated", "ScenarioImported"]
    recorded = history[2:]
    assert len(recorded) == len(start.commands("eu", "start_1492"))
    assert all(e.reason == "the placement in 1492 (engGreatCampaign.tex)" for e in recorded)
    assert {type(e) for e in recorded} == {ev.CountryFactsSet, ev.TradeFleetChanged, ev.TradeCentreChanged,
                                           ev.EstablishmentChanged, ev.MissionChanged}


def test_portugals_domestic_trade_is_worked_out_from_the_first_turn_with_the_placement_as_its_lineage(ledger):
    cid = created(ledger, "por")
    ledger.open_turn(cid, actor=GM)
    proposal = work_out(ledger.campaign(cid), "POR")
    assert "B9" not in dict(proposal.unresolved)  # before the placement: "until a domestic trade index is set"
    [b9] = [line for line in proposal.lines if line.code == "B9"]
    [set_at] = [e.originator_version for e in ledger.history(cid)
                if isinstance(e, ev.CountryFactsSet) and e.country == "POR"]
    assert any(s.position == set_at for s in b9.lineage), b9.lineage


def test_the_sample_scenarios_record_no_start(ledger):
    cid, _ = import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    assert [type(e).__name__ for e in ledger.history(cid)] == ["CampaignCreated", "ScenarioImported"]
