"""The income lines worked out from the 1492 board (ledger/economy/board_income.py), on the worked examples of
the rules' Incomes chapter (BAMGames/europa-universalis-rules rules/engIncomes.tex: Portugal's turn 1), on
each store."""

from __future__ import annotations

import pytest

from ledger.application import Ledger
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput
from ledger.economy.board_income import work_out
from ledger.sample import GM


@pytest.fixture
def europa(ledger):
    """The 1492 board, turn 1 open, Portugal given Tanger and the Acores as the rules' example has them at the
    start (the board prints them unowned: DECISIONS.md "B1 — Portugal's Tanger and Acores")."""
    cid = campaign_id("europa")
    # A blank start: the tests set the facts of the rules' examples themselves.
    ledger.handle(cid, cmd.CreateCampaign(slug="europa", name="Europa", ruleset="eu", scenario="eu-1492",
                                     start=False), actor=GM)
    ledger.open_turn(cid, actor=GM)
    for place in ("Tanger", "Acores"):
        ledger.handle(cid, cmd.ChangeOwner(province=place, owner="POR", reason="Portugal's start"), actor=GM)
    return ledger, cid


def line(ledger: Ledger, cid, code: str, country: str = "POR"):
    [found] = [x for x in work_out(ledger.campaign(cid), country).lines if x.code == code]
    return found


def test_engincomes_portugal_provinces_income_is_29_from_seven_provinces(europa):
    ledger, cid = europa
    b1 = line(ledger, cid, "B1")
    assert b1.amount == 29
    assert {s.name: s.amount for s in b1.lineage} == {"Tras-os-Montes": 5, "Beira": 3, "Tejo": 6, "Alentejo": 6,
                                                       "Algarve": 5, "Tanger": 2, "Acores": 2}
    tanger = next(s for s in b1.lineage if s.name == "Tanger")
    assert tanger.position is not None and tanger.position > 2  # set by the owner change, not the scenario
    assert next(s for s in b1.lineage if s.name == "Beira").position is None  # as printed


def test_provinces_income_follows_a_conquest(europa):
    ledger, cid = europa
    ledger.handle(cid, cmd.ChangeOwner(province="Beira", owner="SPA", reason="ceded"), actor=GM)
    assert line(ledger, cid, "B1").amount == 26
    assert "Beira" in {s.name for s in line(ledger, cid, "B1", "SPA").lineage}


@pytest.fixture
def turn_one(europa):
    """The rules' Portugal at turn 1: a revolt in Beira, an Instruments manufacture in Tejo (7 ducats) and a
    Wine one in Tras-os-Montes (4), the two Elmina mines exploited as European ones, DTI 3."""
    ledger, cid = europa
    ledger.handle(cid, cmd.PlaceMarker(province="Beira", marker="Revolt", reason="turn 1 events"), actor=GM)
    ledger.handle(cid, cmd.SetCountryFacts(
        country="POR", domestic_trade_index=3, mines={"Cotedor": 2},
        manufactures=[cmd.Manufacture(resource="Instruments", province="Tejo", income=7),
                      cmd.Manufacture(resource="Wine", province="Tras-os-Montes", income=4)]), actor=GM)
    return ledger, cid


def test_engincomes_portugal_has_no_vassal_provinces_income(turn_one):
    ledger, cid = turn_one
    assert line(ledger, cid, "B2").amount == 0 and line(ledger, cid, "B2").lineage == ()


def test_engincomes_a_revolt_in_beira_is_written_3_on_occupation_pillages_revolts_and_land_income_is_26(turn_one):
    ledger, cid = turn_one
    b3 = line(ledger, cid, "B3")
    [beira] = b3.lineage
    assert (b3.amount, beira.name, beira.amount) == (3, "Beira", 3)
    assert "Revolt" in beira.note and beira.position == ledger.campaign(cid).version - 1  # the marker's event
    assert line(ledger, cid, "B1").amount + line(ledger, cid, "B2").amount - b3.amount == 26


def test_engincomes_portugal_manufactures_bring_7_plus_4_is_11(turn_one):
    ledger, cid = turn_one
    b6 = line(ledger, cid, "B6")
    assert b6.amount == 11 and sorted(s.amount for s in b6.lineage) == [4, 7]


def test_a_manufacture_in_a_revolted_province_brings_nothing(turn_one):
    ledger, cid = turn_one
    ledger.handle(cid, cmd.PlaceMarker(province="Tejo", marker="Pillage+"), actor=GM)
    b6 = line(ledger, cid, "B6")
    assert b6.amount == 4
    assert [s.note for s in b6.lineage if s.amount == 0] == ["Tejo: Pillage+ marker: its income is lost"]


def test_engincomes_portugal_exploits_two_elmina_mines_as_european_gold_for_40(turn_one):
    ledger, cid = turn_one
    b7 = line(ledger, cid, "B7")
    assert b7.amount == 40
    assert line(ledger, cid, "B6").amount + b7.amount == 51  # the example's industrial income


def test_european_gold_of_a_board_gold_province_stops_when_depleted_or_in_revolt(europa):
    ledger, cid = europa
    assert line(ledger, cid, "B7", "SPA").amount == 20  # Toledo, gold 20 on the board
    ledger.handle(cid, cmd.PlaceMarker(province="Toledo", marker="Revolt"), actor=GM)
    assert line(ledger, cid, "B7", "SPA").amount == 0
    ledger.handle(cid, cmd.RemoveMarker(province="Toledo", marker="Revolt"), actor=GM)
    ledger.handle(cid, cmd.SetCountryFacts(country="SPA", depleted_mines=["Toledo"]), actor=GM)
    assert line(ledger, cid, "B7", "SPA").amount == 0


def test_engincomes_portugal_reads_3_on_the_domestic_trade_table_line_1_40_column_3(turn_one):
    ledger, cid = turn_one
    b9 = line(ledger, cid, "B9")
    assert b9.amount == 3
    assert b9.lineage[-1].kind == "table" and b9.lineage[-1].amount == 3
    assert all(s.amount == 0 for s in b9.lineage[:-1])


def test_engincomes_a_cereals_manufacture_lifts_portugal_to_the_41_80_line_for_9(turn_one):
    ledger, cid = turn_one
    facts = ledger.campaign(cid).military["countries"]["POR"]
    ledger.handle(cid, cmd.SetCountryFacts(country="POR", manufactures=[
        *facts["manufactures"], {"resource": "Cereals", "province": "Alentejo", "level": 1, "income": 0}]), actor=GM)
    assert line(ledger, cid, "B9").amount == 9


def test_domestic_trade_stays_entered_until_the_dti_is_set(europa):
    ledger, cid = europa
    proposal = work_out(ledger.campaign(cid), "POR")
    assert "B9" not in {x.code for x in proposal.lines}
    assert [code for code, _ in proposal.unresolved] == ["B9"]


def test_a_province_under_enemy_control_is_lost_to_its_owner(europa):
    ledger, cid = europa
    ledger.handle(cid, cmd.ChangeControl(province="Algarve", controller="SPA"), actor=GM)
    [algarve] = line(ledger, cid, "B3").lineage
    assert (algarve.name, algarve.amount) == ("Algarve", 5) and "SPA" in algarve.note
    assert line(ledger, cid, "B1").amount == 29  # still Portugal's


def test_fortress_maintenance_follows_the_fortress_levels_the_map_knows(europa):
    ledger, cid = europa
    before = line(ledger, cid, "B31").amount
    ledger.handle(cid, cmd.SetCountryFacts(country="POR", land_technology="REN"), actor=GM)
    ledger.handle(cid, cmd.ChangeFortress(province="Tejo", level=3, reason="built"), actor=GM)
    [tejo] = [s for s in line(ledger, cid, "B31").lineage if s.name == "Tejo"]
    assert tejo.amount == 6 and "before the Arquebus" in tejo.note  # level 3 pays double before ARQ
    assert line(ledger, cid, "B31").amount == before - 2 + 6


def test_unit_maintenance_reads_the_countrys_naval_technology(europa):
    ledger, cid = europa
    ledger.handle(cid, cmd.RaiseStack(stack="POR-1", country="POR", location="Tejo", units={"ND": 2}), actor=GM)
    assert [c for c, _ in work_out(ledger.campaign(cid), "POR").unresolved] == ["B9", "B30"]
    ledger.handle(cid, cmd.SetCountryFacts(country="POR", naval_technology="Carrack"), actor=GM)
    b30 = line(ledger, cid, "B30")
    assert b30.amount == 30  # Portugal's carrack sheet: 15 ducats a naval detachment
    assert ledger.campaign(cid).military["countries"]["POR"]["naval_technology"] == "CAR"


def test_unit_maintenance_stays_entered_where_the_seed_prints_no_land_table(europa):
    ledger, cid = europa
    ledger.handle(cid, cmd.RaiseStack(stack="POR-1", country="POR", location="Tejo", units={"LD": 2}), actor=GM)
    ledger.handle(cid, cmd.SetCountryFacts(country="POR", land_technology="MED"), actor=GM)
    [(code, why)] = [u for u in work_out(ledger.campaign(cid), "POR").unresolved if u[0] == "B30"]
    assert "prints no land maintenance for POR" in why


@pytest.mark.parametrize("fields, field, suggestion", [
    ({"country": "PRT", "domestic_trade_index": 3}, "country", "POR"),
    ({"country": "POR", "vassals": ["NAPP"]}, "vassals[0]", "NAP"),
    ({"country": "POR", "land_technology": "Medival"}, "land_technology", "Medieval"),
    ({"country": "POR", "manufactures": [{"resource": "Wine", "province": "Tejoo", "income": 4}]},
     "manufactures[0].province", "Tejo"),
    ({"country": "POR", "depleted_mines": ["Toled"]}, "depleted_mines[0]", "Toledo"),
    ({"country": "POR", "mines": {"Cotedorr": 2}}, "mines.Cotedorr", "Cotedor"),
])
def test_unknown_names_in_country_facts_are_refused_with_a_suggestion_and_nothing_appended(europa, fields, field,
                                                                                          suggestion):
    ledger, cid = europa
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput) as e:
        ledger.handle(cid, cmd.build(cmd.SetCountryFacts, **fields), actor=GM)
    assert e.value.field == field and suggestion in e.value.message
    assert ledger.campaign(cid).version == before


def test_a_correction_of_the_country_facts_is_followed(turn_one):
    ledger, cid = turn_one
    position = ledger.campaign(cid).version
    ledger.handle(cid, cmd.RecordCorrection(corrects=position, reason="DTI misread",
                                            replacement={"facts": {"domestic_trade_index": 4}}), actor=GM)
    assert line(ledger, cid, "B9").amount == 4
    assert line(ledger, cid, "B6").amount == 0  # the restated event sets the DTI alone
