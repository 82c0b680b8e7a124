"""Trade and the rest of the world recorded on the 1492 board (issue 36), on both stores: each kind of fact by
its command, refused naming the field when a name is unknown or the board forbids it (appending nothing), the
write side following each command and its corrections, and the income lines worked out from them: Portugal's
turn 1 of engIncomes.tex, recorded as a game master would."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import LedgerError
from ledger.economy.board_income import work_out
from ledger.sample import GM
from projections.read import records
from projections.timeline import empty, row

CID = campaign_id("europa")


@pytest.fixture
def europa(ledger):
    # A blank start: these tests record the worked examples' trade facts themselves.
    ledger.handle(CID, cmd.CreateCampaign(slug="europa", name="Europa", ruleset="eu", scenario="eu-1492",
                                     start=False), actor=GM)
    ledger.open_turn(CID, actor=GM)
    return ledger


def record(ledger, command):
    return ledger.handle(CID, command, actor=GM).events[0]["position"]


def lines(ledger, country="POR"):
    return {x.code: x for x in work_out(ledger.campaign(CID), country).lines}


def test_portugal_turn_1_recorded_on_the_board_gives_the_rules_trade_and_colonial_lines(europa):
    canarias = record(europa, cmd.ChangeTradeFleet(country="POR", zone="STZ Canarias", level=3))
    guinee = record(europa, cmd.ChangeTradeFleet(country="POR", zone="ZMGuinee", level=1))  # the board's id
    cabo = record(europa, cmd.ChangeEstablishment(country="POR", kind="colony", place="Cabo Verde~I", level=3))
    elmina = record(europa, cmd.ChangeEstablishment(country="POR", kind="trading_post", place="Cotedor~W", level=3,
                                                    exploits={"sl": 3}))
    found = lines(europa)
    assert {c: found[c].amount for c in ("B11", "B12", "B13", "B14", "B17", "B18", "B19", "B32")} == {
        "B11": 4, "B12": 7, "B13": 0, "B14": 0, "B17": 4, "B18": 1, "B19": 6, "B32": 0}
    assert [(s.name, s.position) for s in found["B11"].lineage] == [("STZ Canarias", canarias), ("STZ Guinee", guinee)]
    assert [s.position for s in found["B17"].lineage] == [cabo]
    assert [s.position for s in found["B19"].lineage] == [elmina]


def test_the_write_side_follows_a_trade_fleet_raised_lowered_and_corrected(europa):
    first = record(europa, cmd.ChangeTradeFleet(country="ENG", zone="STZ Nord", level=2))
    assert lines(europa, "ENG")["B11"].amount == 2
    record(europa, cmd.RecordCorrection(corrects=first, reason="it was level 5", replacement={"level": 5}))
    [source] = lines(europa, "ENG")["B12"].lineage
    assert (source.amount, source.position) == (30 // 2, first)  # a partial monopoly, set where it was corrected
    record(europa, cmd.ChangeTradeFleet(country="ENG", zone="STZ Nord", level=0))
    assert lines(europa, "ENG")["B11"].lineage == ()


def test_a_trade_centre_and_a_mission_recorded_on_the_board(europa):
    record(europa, cmd.ChangeTradeCentre(centre="atlantic", holder="ENG", province="Kent"))
    record(europa, cmd.ChangeMission(country="SPA", place="Cuba~W", present=True))
    assert lines(europa, "ENG")["B14"].amount == 100
    assert lines(europa, "SPA")["B32"].amount == 1
    record(europa, cmd.ChangeControl(province="Kent", controller="FRA", reason="taken"))
    assert lines(europa, "ENG")["B14"].amount == 0  # occupied: no income this turn


REFUSED = [
    ({"command": cmd.ChangeTradeFleet, "country": "POR", "zone": "STZ Canaris", "level": 3}, "zone",
     "did you mean 'STZ Canarias'"),
    ({"command": cmd.ChangeTradeFleet, "country": "PRO", "zone": "STZ Canarias", "level": 3}, "country", "'POR'"),
    ({"command": cmd.ChangeTradeFleet, "country": "POR", "zone": "STZ Canarias", "level": "3"}, "level",
     "valid integer"),
    ({"command": cmd.ChangeTradeFleet, "country": "POR", "zone": "STZ Canarias", "level": 7}, "level", "6"),
    ({"command": cmd.ChangeEstablishment, "country": "POR", "kind": "colony", "place": "Cabo Verd", "level": 3},
     "place", "Cabo Verde~I"),
    ({"command": cmd.ChangeEstablishment, "country": "POR", "kind": "colony", "place": "Cabo Verde~I", "level": 3,
      "exploits": {"sl": 1}}, "exploits.sl", "Cabo Verde holds 0"),
    ({"command": cmd.ChangeEstablishment, "country": "POR", "kind": "colony", "place": "Cabo Verde~I", "level": 3,
      "gold": True}, "gold", "no gold mine"),
    ({"command": cmd.ChangeEstablishment, "country": "POR", "kind": "trading_post", "place": "Cotedor~W",
      "level": 2, "gold": True}, "gold", "only a colony"),
    ({"command": cmd.ChangeEstablishment, "country": "POR", "kind": "colony", "place": "Cabo Verde~I", "level": 0},
     "level", "no colony"),
    ({"command": cmd.ChangeTradeCentre, "centre": "atlantic", "holder": "ENG", "province": "Kentt"}, "province",
     "'Kent'"),
    ({"command": cmd.ChangeTradeCentre, "centre": "atlantic", "holder": "ENG", "income": 120}, "income",
     "Great Orient"),
    ({"command": cmd.ChangeMission, "country": "SPA", "place": "Cuba~W", "present": False}, "present", "no mission"),
]


@pytest.mark.parametrize(("fields", "field", "said"), REFUSED)
def test_a_trade_command_the_board_refuses_names_the_field_and_appends_nothing(europa, fields, field, said):
    before = europa.campaign(CID).version
    fields = dict(fields)
    with pytest.raises(LedgerError) as info:
        europa.handle(CID, cmd.build(fields.pop("command"), **fields), actor=GM)
    assert info.value.field == field and said in str(info.value), str(info.value)
    assert europa.campaign(CID).version == before


def refused(ledger, command, said):
    before = ledger.campaign(CID).version
    with pytest.raises(LedgerError, match=said) as info:
        record(ledger, command)
    assert info.value.field == "level" and ledger.campaign(CID).version == before


def test_one_face_plus_fleet_per_zone_and_nothing_beside_a_total_monopoly(europa):
    fleet = lambda country, level: cmd.ChangeTradeFleet(country=country, zone="STZ Guinee", level=level)  # noqa: E731
    record(europa, fleet("ENG", 4))
    refused(europa, fleet("POR", 5), r"ENG already has a Face\+ fleet \(level 4\) in STZ Guinee")
    record(europa, fleet("POR", 1))
    refused(europa, fleet("ENG", 6), "a total monopoly .* leaves no other fleet in STZ Guinee, where POR 1")
    record(europa, fleet("POR", 0))
    record(europa, fleet("ENG", 6))
    refused(europa, fleet("POR", 1), "ENG holds the total monopoly of STZ Guinee")
    assert lines(europa, "ENG")["B13"].amount == 1


def test_a_correction_restating_an_unknown_zone_is_refused_naming_it(europa):
    first = record(europa, cmd.ChangeTradeFleet(country="POR", zone="STZ Canarias", level=3))
    before = europa.campaign(CID).version
    with pytest.raises(LedgerError) as info:
        record(europa, cmd.RecordCorrection(corrects=first, reason="r", replacement={"zone": "STZ Guine"}))
    assert info.value.field == "replacement.zone" and "STZ Guinee" in str(info.value)
    assert europa.campaign(CID).version == before


def test_the_timeline_says_each_trade_fact_in_words(europa):
    record(europa, cmd.ChangeTradeFleet(country="POR", zone="STZ Canarias", level=4, reason="trade"))
    record(europa, cmd.ChangeEstablishment(country="POR", kind="trading_post", place="Cotedor~W", level=3,
                                           exploits={"sl": 3}, reason="Elmina"))
    doc = empty()
    said = [row(doc, r)["summary"] for r in records(europa, CID)][-2:]
    assert said[0].endswith("POR trade fleet in STZ Canarias: level 4 (Face+), was none (trade)")
    assert said[1].endswith("POR trading post in Cotedor~W: level 3 (Face−); exploits 3 Slaves (Elmina)")


def test_the_game_master_records_a_trade_fleet_over_http_and_a_typo_is_a_422_naming_the_zone(settings, europa):
    admin = "admin-secret-for-trade"
    with TestClient(create_app(settings.model_copy(update={"admin_token": admin}), europa),
                    headers={"Authorization": f"Bearer {admin}"}) as http:
        r = http.post("/campaigns/europa/trade/fleets", json={"country": "POR", "zone": "STZ Canarias", "level": 3})
        assert r.status_code == 201, r.text
        assert [e["type"] for e in r.json()["events"]] == ["TradeFleetChanged"]
        before = europa.campaign(CID).version
        r = http.post("/campaigns/europa/trade/establishments",
                      json={"country": "POR", "kind": "colony", "place": "Cabo Verd", "level": 3})
        assert r.status_code == 422 and r.json()["error"]["field"] == "place", r.text
        r = http.post("/campaigns/europa/trade/missions", json={"country": "SPA", "place": "Cuba~W", "present": "yes"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "present", r.text
        assert europa.campaign(CID).version == before


def test_a_trading_post_in_a_province_in_revolt_brings_nothing_this_turn(europa):
    record(europa, cmd.ChangeEstablishment(country="POR", kind="trading_post", place="Cotedor~W", level=3,
                                           exploits={"sl": 3}))
    revolt = record(europa, cmd.PlaceMarker(province="Cotedor~W", marker="Revolt"))
    found = lines(europa)
    assert (found["B18"].amount, found["B19"].amount) == (0, 0)
    assert [s.position for s in found["B18"].lineage] == [revolt]


def test_the_cli_records_each_trade_fact_and_names_a_misspelt_zone(settings):
    from tests.integration.test_cli import run

    assert run(settings, "campaign", "create", "europa", "--name", "Europa", "--scenario", "eu-1492",
               "--no-start").exit_code == 0
    assert run(settings, "turn", "open", "europa").exit_code == 0
    for args in (("fleet", "europa", "POR", "STZ Canarias", "3"),
                 ("establishment", "europa", "POR", "trading_post", "Cotedor~W", "3", "--exploits", "sl=3"),
                 ("centre", "europa", "atlantic", "ENG", "--province", "Kent"),
                 ("mission", "europa", "SPA", "Cuba~W")):
        r = run(settings, "trade", *args)
        assert r.exit_code == 0, r.output
    r = run(settings, "trade", "fleet", "europa", "POR", "STZ Guine", "1")
    assert r.exit_code != 0 and "zone" in r.output and "STZ Guinee" in r.output


def test_a_player_records_no_trade_fact_even_where_players_may_move(settings, europa):
    from tests.e2e.test_access import bearer, issue, make_client

    europa.handle(CID, cmd.ChangeSettings(settings={"players_may_move": True}, reason="players move"), actor=GM)
    player = issue(europa, CID, "player", "POR")
    before = europa.campaign(CID).version
    with make_client(settings, europa) as http:
        r = http.post("/campaigns/europa/trade/fleets", json={"country": "POR", "zone": "STZ Canarias", "level": 3},
                      headers=bearer(player))
    assert r.status_code == 403, r.text
    assert europa.campaign(CID).version == before
