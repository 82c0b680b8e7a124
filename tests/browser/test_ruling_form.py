"""A ruling recorded from the web page in a real browser: the game master picks M19 from the list of
procedures, fills in the battle as the form asks (selects, numbers, checkboxes, a place, the stacks), and lands
on the turn page at the new ruling, explained in words beside the map."""

from __future__ import annotations

import re

import pytest

from ledger.domain import events as ev
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser

#: The sides as the map has them at the head: ENG-1 with 6 LD under Talbot, FRA-1 with 5 LD under La Trémoille.
SIDES = {"attacker": ("ENG", "MUS", "6", "3"), "defender": ("FRA", "MED", "5", "4")}


def test_the_game_master_records_a_battle_from_the_form_and_reads_it_in_words(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample")
    page.click("#new-ruling-link")
    page.select_option("#procedure", "M19")
    page.click("#choose-procedure")
    form = page.locator("#ruling-form")
    expect(form.locator("h2")).to_contain_text("M19")
    for side, (country, technology, ld, leader) in SIDES.items():
        form.locator(f"[name='input.{side}.country']").select_option(country)
        form.locator(f"[name='input.{side}.technology']").select_option(technology)
        form.locator(f"[name='input.{side}.ld']").fill(ld)
        form.locator(f"[name='input.{side}.army_class']").select_option("iv")
        form.locator(f"[name='input.{side}.class_size']").fill("2")
        form.locator(f"[name='input.{side}.leader_man']").fill(leader)
    form.locator("[name='input.attacker.veteran'][type=checkbox]").check()
    form.locator("[name='input.terrain']").select_option("plain")
    form.locator("[name='input.period']").fill("2")
    form.locator("[name='where']").fill("Caux")
    form.locator("[name='where']").press("Tab")  # on to the next field: the list of suggested places closes
    expect(form.locator("[name='role.0']")).to_have_value("attacker")
    form.locator("[name='stack.0']").select_option("ENG-1")
    form.locator("[name='stack.1']").select_option("FRA-1")
    site.shot(page, "ruling-form")
    head = site.ledger.campaign(site.cid).version
    form.locator("#record-ruling").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/turns/\d+\?position=\d+#ruling$"))
    position = int(re.search(r"position=(\d+)", page.url).group(1))
    [ruling] = [e for e in site.ledger.history(site.cid, after=head) if isinstance(e, ev.RulingRecorded)]
    assert ruling.originator_version == position and ruling.procedure == "M19"
    assert ruling.ruling["inputs"]["attacker"]["veteran"] is True and ruling.context["where"] == "Caux"
    ruling_card = page.locator("#ruling")
    expect(ruling_card).to_contain_text("M19")
    expect(ruling_card).to_contain_text("veteran")
    expect(page.locator("#map")).to_be_visible()
    site.shot(page, "ruling-recorded")
    shown = page.locator("#main").inner_text()
    for repr_ in ("{'", "None", '"kind":', "True", "False"):
        assert repr_ not in shown, repr_


def fill_battle(form, where: str) -> None:
    for side, (_, technology, ld, _) in SIDES.items():
        form.locator(f"[name='input.{side}.technology']").select_option(technology)
        form.locator(f"[name='input.{side}.ld']").fill(ld)
        form.locator(f"[name='input.{side}.army_class']").select_option("iv")
        form.locator(f"[name='input.{side}.class_size']").fill("2")
    form.locator("[name='input.terrain']").select_option("plain")
    form.locator("[name='input.period']").fill("2")
    form.locator("[name='where']").fill(where)
    form.locator("[name='where']").press("Tab")


def test_a_refused_input_is_shown_beside_its_field_with_what_was_typed(site, context):
    page = login(context, site, site.gm, "/ui/campaigns/sample/rulings/new?procedure=M19")
    form = page.locator("#ruling-form")
    fill_battle(form, "Atlantis")  # no such place on the board
    head = site.ledger.campaign(site.cid).version
    form.locator("#record-ruling").click()
    error = page.locator("#error-where")
    expect(error).to_contain_text("Atlantis")
    expect(page.locator("#ruling-form [name='where']")).to_have_value("Atlantis")
    expect(page.locator("#ruling-form [name='input.attacker.ld']")).to_have_value("6")
    site.shot(page, "ruling-form-error")
    assert site.ledger.campaign(site.cid).version == head


def test_the_game_master_keeps_a_terrain_the_board_contradicts_with_a_reason(site, context):
    """Normandie is dense forest on the board: "plain" is refused beside the terrain, and kept once ticked
    with a reason (DECISIONS.md, M19's terrain), recorded in the ruling."""
    page = login(context, site, site.gm, "/ui/campaigns/sample/rulings/new?procedure=M19")
    fill_battle(page.locator("#ruling-form"), "Normandie")
    head = site.ledger.campaign(site.cid).version
    page.locator("#record-ruling").click()
    expect(page.locator("[id='error-input.terrain']")).to_contain_text("dense_forest")
    keep = page.locator("#keep-terrain")
    expect(keep).to_contain_text("keep my value")
    keep.locator("input[type=checkbox]").check()
    keep.locator("input[type=text]").fill("the battle was fought in the clearing")
    site.shot(page, "ruling-form-keep")
    page.locator("#record-ruling").click()
    page.wait_for_url(re.compile(r"/ui/campaigns/sample/turns/\d+\?position=\d+#ruling$"))
    [ruling] = [e for e in site.ledger.history(site.cid, after=head) if isinstance(e, ev.RulingRecorded)]
    assert ruling.ruling["overridden"][0]["reason"] == "the battle was fought in the clearing"
