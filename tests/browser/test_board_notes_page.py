"""What the game master kept against the board, on the replay page in a real browser: the ruling's
"Against the board" list says, in words, the typed value, the board's and the reason, and what the board filled."""

from __future__ import annotations

import pytest

from ledger.sample import GM
from tests.browser.conftest import login
from tests.conftest import playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser


def test_a_siege_kept_against_the_board_reads_in_words_on_the_turn_page(site, context):
    state = site.ledger.campaign(site.cid)
    done = site.ledger.record_ruling(
        site.cid, procedure="M21", inputs={"action": "undermine", "fortress_level": 3}, actor=GM,
        context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}},
        overrides={"fortress_level": "the English found the walls rebuilt"})
    at = done.events[0]["position"]
    page = login(context, site, site.gm, f"/ui/campaigns/sample/turns/{state.turn}?position={at}")
    notes = page.locator("#board-notes li")
    expect(notes.first).to_have_text("fortress level: typed 3, the board says 2; kept by the game master: "
                                     "the English found the walls rebuilt")
    expect(page.locator("#board-notes")).to_contain_text("port: yes, filled from the board and the map")
    expect(page.locator("#board-notes")).not_to_contain_text("{")  # words, never a dict
    shot = site.shot(page, "board-notes")
    assert shot.exists()
