"""A game master's turn from the browser alone (issue 37, item 1), from an empty service: the operator creates a
1492 campaign, issues a player's token (shown once, with a login link that logs the player in), opens turn 1,
records a treasury entry (a mistyped one first: the error beside its field, what was typed kept), closes the
eight phases in the sequence of play and closes the turn; the player then sees none of the game master's
forms. Screenshots under test-output/screenshots."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest

from ledger.application import Ledger
from ledger.domain import events as ev
from ledger.domain.campaign import campaign_id
from ledger.economy.milestones import PHASES, TITLES
from tests.browser.conftest import ADMIN, SCREENSHOTS, _settings, serving
from tests.conftest import PG_DSN, STORES, playwright_expect

expect = playwright_expect()

pytestmark = pytest.mark.browser
CID = campaign_id("friends-1492")


@pytest.fixture(scope="module", params=STORES)
def empty(request, browser):
    """A real uvicorn server over a store with no campaign at all: (store, base URL, ledger)."""
    from api.main import create_app

    tmp = Path(tempfile.mkdtemp(prefix="ledger-gm-"))
    settings, schema = _settings(request.param, tmp)
    ledger = Ledger(settings)
    try:
        with serving(create_app(settings, ledger)) as url:
            yield request.param, url, ledger
    finally:
        ledger.close()
        shutil.rmtree(tmp, ignore_errors=True)
        if schema:
            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def shot(page, store: str, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{store}-gm-{name}.png"), full_page=True)


def test_a_game_master_runs_a_turn_from_an_empty_service_with_the_web_page_alone(empty, context, browser):
    store, base, ledger = empty
    page = context.new_page()
    page.goto(f"{base}/ui")
    page.fill("#token", ADMIN)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(f"{base}/ui")

    # A campaign: the 1492 scenario, a player named, the budgets each country's own.
    page.click("#new-campaign-link")
    page.fill("#create-name", "Friends 1492")
    page.fill("#create-slug", "Friends 1492")  # not a short name: said beside the field, the rest kept
    page.select_option("#create-scenario", "eu-1492")
    page.fill("#create-players", "FRA: bruno")
    page.click("#form-create button[type=submit]")
    expect(page.locator("#error-create-slug")).to_contain_text("lower-case letters, digits and dashes")
    expect(page.locator("#create-name")).to_have_value("Friends 1492")
    expect(page.locator("#create-players")).to_have_value("FRA: bruno")
    shot(page, store, "create-refused")
    page.fill("#create-slug", "friends-1492")
    page.click("#form-create button[type=submit]")
    page.wait_for_url(re.compile(r"/ui/campaigns/friends-1492/gm\?created=1"))
    expect(page.locator("#created")).to_contain_text("The campaign Friends 1492 is created")
    expect(page.locator("#turn-state")).to_have_text("No turn is open yet: open turn 1 to begin.")
    shot(page, store, "created")

    # A player's token: shown once, with the link that logs the player in.
    page.click("#tokens-link")
    page.select_option("#issue-token-role", "player")
    page.select_option("#issue-token-country", "FRA")
    page.fill("#issue-token-holder", "bruno")
    page.click("#form-issue-token button[type=submit]")
    expect(page.locator("#issued")).to_contain_text("This is the only time it is shown")
    link = page.locator("#issued-link").input_value()
    assert link.startswith(f"{base}/ui/login?next=%2Fui%2Fcampaigns%2Ffriends-1492#token=lt_")
    expect(page.locator("#tokens")).to_contain_text("bruno")
    shot(page, store, "token-issued")

    # Turn 1.
    page.goto(f"{base}/ui/campaigns/friends-1492/gm")
    page.click("#form-open-turn button[type=submit]")
    expect(page.locator("#turn-state")).to_have_text("Turn 1 is open: the next phase to close is Events.")

    # A treasury entry, mistyped first.
    form = page.locator("#form-treasury")
    form.locator("#treasury-country").select_option("FRA")
    form.locator("#treasury-line").fill("A99")
    form.locator("#treasury-amount").fill("35")
    form.locator("#treasury-reason").fill("looting of Picardie")
    form.locator("button[type=submit]").click()
    expect(page.locator("#error-treasury-line")).to_have_text(
        "an ERS line is a sheet letter A, B or C and a line number, as A9 or B12")
    expect(page.locator("#treasury-reason")).to_have_value("looting of Picardie")
    expect(page.locator("#treasury-amount")).to_have_value("35")
    shot(page, store, "treasury-refused")
    page.locator("#treasury-line").fill("A9")
    page.locator("#form-treasury button[type=submit]").click()
    [entry] = [e for e in ledger.history(CID) if isinstance(e, ev.TreasuryEntryRecorded)]
    expect(page.locator("#recorded")).to_contain_text(
        f"Recorded at position {entry.originator_version}: Events phase: FRA: +35 ducats on A9 (turn 1: looting of "
        "Picardie)")
    assert (entry.country, entry.line, entry.amount, entry.turn) == ("FRA", "A9", 35, 1)

    # The phases, in the sequence of play; the page says where the turn stands after each.
    for i, phase in enumerate(PHASES):
        expect(page.locator(f"#phase-{phase}")).to_have_class("next")
        button = page.locator("#form-close-phase button[type=submit]")
        expect(button).to_have_text(f"Close the phase: {TITLES[phase]}")
        if phase == "military":
            shot(page, store, "phases-half")
        button.click()
        expect(page.locator(f"#phase-{phase}")).to_have_class("closed")
        if i + 1 < len(PHASES):
            expect(page.locator("#next-phase")).to_have_text(TITLES[PHASES[i + 1]])
    expect(page.locator("#turn-state")).to_have_text("Turn 1 is open: every phase is closed, the turn may close.")
    shot(page, store, "phases-closed")
    page.click("#form-close-turn button[type=submit]")
    expect(page.locator("#turn-state")).to_have_text("Turn 1 is closed: open turn 2 to go on.")
    shot(page, store, "turn-closed")
    kinds = [type(e).__name__ for e in ledger.history(CID)]
    assert kinds.count("PhaseClosed") == 8 and kinds[-1] == "TurnClosed"

    # The player logs in with the link alone, and is offered nothing of the game master's.
    player = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        theirs = player.new_page()
        theirs.goto(link)
        expect(theirs.locator("#token")).to_have_value(link.split("#token=")[1])
        assert "#token" not in theirs.url  # taken out of the address bar and the history
        theirs.click("form.stack button[type=submit]")
        theirs.wait_for_url(f"{base}/ui/campaigns/friends-1492")
        expect(theirs.locator("#whoami")).to_have_text("bruno · player of FRA")
        for link_id in ("gm-link", "tokens-link", "new-ruling-link", "map-forms-link"):
            expect(theirs.locator(f"#{link_id}")).to_have_count(0)
        shot(theirs, store, "player-campaign")
        assert theirs.goto(f"{base}/ui/campaigns/friends-1492/gm").status == 403
    finally:
        player.close()
