"""The income lines worked out from the 1492 board (ledger/economy/board_income.py), on the worked examples of
the rules' Incomes chapter (BAMGames/europa-universalis-rules rules/engIncomes.tex: Portugal's turn 1)."""

from __future__ import annotations

import pytest

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.economy.board_income import work_out
from ledger.sample import GM


@pytest.fixture
def europa(tmp_path):
    """The 1492 board, turn 1 open, Portugal given Tanger and the Acores as the rules' example has them at the
    start (the board prints them unowned: DECISIONS.md "B1 — Portugal's Tanger and Acores")."""
    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    cid = campaign_id("europa")
    ledger.handle(cid, cmd.CreateCampaign(slug="europa", name="Europa", ruleset="eu", scenario="eu-1492"), actor=GM)
    ledger.open_turn(cid, actor=GM)
    for place in ("Tanger", "Acores"):
        ledger.handle(cid, cmd.ChangeOwner(province=place, owner="POR", reason="Portugal's start"), actor=GM)
    try:
        yield ledger, cid
    finally:
        ledger.close()


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
