"""Hidden dice stay hidden, and stay verifiable (issue 16; ledger/dice.py, the README's dice section).

Each audience of a turn (public, the game masters, a set of countries) draws from a seed of its own; at the
close each seed is revealed in an event of its audience's visibility. What a reader receives from
``GET /campaigns/{id}/events`` is what they verify with the README's standalone verifier.
"""

from __future__ import annotations

import sqlite3
from uuid import UUID

import orjson
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from ledger import dice as dicelib
from ledger.application import Draft, Ledger
from ledger.domain import events as ev
from ledger.domain.commands import RevealEvent
from ledger.domain.errors import StateConflict
from projections.runner import Projector
from tests.conftest import PG_DSN, events_table, raw_execute
from tests.e2e.test_access import COUNTRIES, SYSTEM, VISIBILITY, bearer, issue, make_client, new_campaign
from tests.integration.test_readme_verifier import readme_verifier
from ledger.sample import close_open_phases

GM_ONLY = {"scope": "gm"}
FRA_ONLY = {"scope": "countries", "countries": ["FRA"]}
# Ten d100: a seed that is not the roll's own reproduces its faces with a chance of 10**-20.
MANY = {"sides": 100, "count": 10}


@pytest.fixture
def turn(settings, ledger):
    """Campaign `dice`, turn 1 closed: a public roll, a roll the game masters alone see, one FRA alone sees."""
    cid = new_campaign(ledger, "dice")
    tokens = {c: issue(ledger, cid, "player", c) for c in COUNTRIES}
    tokens["observer"] = issue(ledger, cid, "observer")
    ledger.open_turn(cid, actor=SYSTEM)
    rolls = {"public": ledger.roll(cid, purpose="weather", actor=SYSTEM, **MANY),
             "gm": ledger.roll(cid, purpose="secret mission", actor=SYSTEM, vis=GM_ONLY, **MANY),
             "FRA": ledger.roll(cid, purpose="French spy", actor=SYSTEM, vis=FRA_ONLY, **MANY)}
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=SYSTEM)
    positions = {k: next(e["position"] for e in r.events if e["type"] == "DiceRolled") for k, r in rolls.items()}
    return {"cid": cid, "client": make_client(settings, ledger), "tokens": tokens, "positions": positions}


def events_of(world, reader: str | None) -> list[dict]:
    token = world["tokens"][reader] if reader else world["gm"]
    r = world["client"].get(f"/campaigns/{world['cid']}/events", headers=bearer(token))
    assert r.status_code == 200
    return r.json()


@pytest.fixture
def world(turn, ledger):
    turn["gm"] = issue(ledger, turn["cid"], "gm")
    return turn


def seeds_in(events: list[dict]) -> list[bytes]:
    return [bytes.fromhex(e["payload"]["seed"]) for e in events if e["type"] in ("TurnClosed", "DiceSeedRevealed")]


def test_a_player_cannot_compute_a_game_masters_roll_after_the_turn_closes(world):
    verify = readme_verifier()["verify"]
    gm_events, eng_events = events_of(world, None), events_of(world, "ENG")
    [gm_roll] = [e for e in gm_events if e["position"] == world["positions"]["gm"]]
    # The player's view lacks the GM-only roll and its seed; no seed they received reproduces the roll.
    assert world["positions"]["gm"] not in {e["position"] for e in eng_events}
    assert not [e for e in eng_events if e["type"] in ("DiceSeedCommitted", "DiceSeedRevealed")]
    p = gm_roll["payload"]
    assert all(dicelib.derive(seed, str(world["cid"]), 1, p["index"], p["sides"], p["count"], p["purpose"])
               != tuple(p["values"]) for seed in seeds_in(eng_events))
    # The public roll still verifies from the player's events; nothing they see is left unverified.
    assert verify(eng_events, str(world["cid"]), 1) == (1, 0)


def test_a_hidden_roll_shown_without_its_seed_cannot_be_verified_by_the_verifier(world, ledger):
    ledger.submit(world["cid"], RevealEvent, position=world["positions"]["gm"], reason="the mission failed",
                  actor=SYSTEM)
    eng_events = events_of(world, "ENG")
    assert world["positions"]["gm"] in {e["position"] for e in eng_events}
    assert readme_verifier()["verify"](eng_events, str(world["cid"]), 1) == (1, 1)  # the public roll; one not
    records = [dicelib.TurnRecord(e["position"], e["type"], e["visibility"], e["context"]["turn"], e["payload"])
               for e in eng_events]
    report = dicelib.verify_records(str(world["cid"]), 1, records)
    assert (report.ok, report.checked, report.hidden) == (True, 1, 1)


def test_a_country_recomputes_its_own_hidden_roll_and_no_other_country_can(world):
    verify = readme_verifier()["verify"]
    assert verify(events_of(world, "FRA"), str(world["cid"]), 1) == (2, 0)  # the public roll and FRA's
    spa = events_of(world, "SPA")
    assert world["positions"]["FRA"] not in {e["position"] for e in spa}
    assert verify(spa, str(world["cid"]), 1) == (1, 0)


def test_the_game_master_recomputes_every_roll(world, ledger):
    assert readme_verifier()["verify"](events_of(world, None), str(world["cid"]), 1) == (3, 0)
    report = ledger.verify_dice(world["cid"], 1)
    assert (report.ok, report.checked, report.hidden) == (True, 3, 0)


def test_after_the_game_master_reveals_a_hidden_roll_and_its_seed_everyone_can_verify_it(world, ledger):
    cid = world["cid"]
    gm_events = events_of(world, None)
    seed_events = [e["position"] for e in gm_events if e["type"] in ("DiceSeedCommitted", "DiceSeedRevealed")
                   and e["payload"]["audience"] == "gm"]
    assert len(seed_events) == 2
    for position in [world["positions"]["gm"], *seed_events]:
        ledger.submit(cid, RevealEvent, position=position, reason="published after the war", actor=SYSTEM)
    for reader in ("observer", "ENG"):
        assert readme_verifier()["verify"](events_of(world, reader), str(cid), 1) == (2, 0)  # public and GM's


def test_a_changed_hidden_roll_is_caught_by_its_audience(world):
    fra = events_of(world, "FRA")
    [roll] = [e for e in fra if e["position"] == world["positions"]["FRA"]]
    roll["payload"]["values"][0] = roll["payload"]["values"][0] % 100 + 1
    with pytest.raises(AssertionError):
        readme_verifier()["verify"](fra, str(world["cid"]), 1)


@pytest.mark.parametrize("reader", ["ENG", "FRA", "SPA", "observer"])
def test_no_reader_ever_receives_a_seed_of_rolls_they_may_not_see(world, reader):
    """Every seed a reader receives is the public one or the seed of an audience they belong to."""
    for e in events_of(world, reader):
        if e["type"] in ("DiceSeedCommitted", "DiceSeedRevealed"):
            assert e["payload"]["audience"] == f"countries:{reader}"


def test_what_each_reader_verifies_is_exactly_the_rolls_of_their_audiences(settings, ledger):
    """For any turn of rolls of any visibilities: each reader verifies the public rolls and those of the country
    sets they belong to, and no roll of theirs is left unverified; the game master verifies every roll."""
    client = make_client(settings, ledger)
    counter = iter(range(10_000))
    verify = readme_verifier()["verify"]

    @hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
    @given(plan=st.lists(VISIBILITY, min_size=1, max_size=6))
    def check(plan):
        slug = f"aud-{next(counter)}"
        cid = new_campaign(ledger, slug)
        readers = {c: issue(ledger, cid, "player", c) for c in COUNTRIES}
        readers["gm"] = issue(ledger, cid, "gm")
        ledger.open_turn(cid, actor=SYSTEM)
        for vis in plan:
            ledger.roll(cid, purpose="p", actor=SYSTEM, vis=vis, **MANY)
        close_open_phases(ledger, cid)  # the turn closes after its eight phases
        ledger.close_turn(cid, actor=SYSTEM)
        for reader, token in readers.items():
            events = client.get(f"/campaigns/{slug}/events", headers=bearer(token)).json()
            mine = sum(1 for vis in plan if reader == "gm" or vis["scope"] == "public"
                       or reader in (vis.get("countries") or ()))
            assert verify(events, str(cid), 1) == (mine, 0)

    check()


# ------------------------------------------------------------------ the seeds at rest


def dump(settings) -> bytes:
    """Every row of every table of the store, as bytes: what a database dump shows."""
    out = []
    if settings.backend == "sqlite":
        conn = sqlite3.connect(settings.sqlite_path)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for t in tables:
                out.extend(repr(row).encode() + b"".join(v for v in row if isinstance(v, bytes))
                           for row in conn.execute(f'SELECT * FROM "{t}"'))
        finally:
            conn.close()
    else:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                                 "WHERE table_schema=%s", (settings.postgres_schema,))]
            for t in tables:
                for row in conn.execute(f'SELECT * FROM "{settings.postgres_schema}"."{t}"'):
                    out.append(repr(row).encode() + b"".join(bytes(v) for v in row
                                                            if isinstance(v, (bytes, memoryview))))
    return b"\n".join(out)


def test_the_database_holds_no_seed_of_an_open_turn(settings, ledger):
    cid = new_campaign(ledger, "at-rest")
    ledger.open_turn(cid, actor=SYSTEM)
    for vis in ({"scope": "public"}, GM_ONLY, FRA_ONLY):
        ledger.roll(cid, purpose="p", actor=SYSTEM, vis=vis)
    before_close = dump(settings)
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=SYSTEM)
    seeds = [bytes.fromhex(e.seed) for e in ledger.history(cid) if isinstance(e, (ev.TurnClosed, ev.DiceSeedRevealed))]
    assert len(seeds) == 3
    for seed in seeds:
        for form in (seed, seed.hex().encode(), repr(seed).encode()):
            assert form not in before_close
    assert seeds[0].hex().encode() in dump(settings)  # the dump shows a revealed seed: the search finds one


def test_a_restarted_service_keeps_rolling_from_the_sealed_seeds(settings, ledger):
    cid = new_campaign(ledger, "restart")
    ledger.open_turn(cid, actor=SYSTEM)
    ledger.roll(cid, purpose="before", actor=SYSTEM, vis=GM_ONLY)
    again = Ledger(settings)
    try:
        again.roll(cid, purpose="after", actor=SYSTEM, vis=GM_ONLY)
        again.roll(cid, purpose="public", actor=SYSTEM)
        close_open_phases(again, cid)  # the turn closes after its eight phases
        again.close_turn(cid, actor=SYSTEM)
        report = again.verify_dice(cid, 1)
        assert (report.ok, report.checked) == (True, 3)
    finally:
        again.close()


def test_a_seed_row_moved_to_another_audience_in_the_database_is_refused(settings, ledger):
    cid = new_campaign(ledger, "moved")
    ledger.open_turn(cid, actor=SYSTEM)
    ledger.roll(cid, purpose="p", actor=SYSTEM, vis=GM_ONLY)
    ledger.roll(cid, purpose="p", actor=SYSTEM, vis=FRA_ONLY)
    # Someone with the database but not the key puts the public seed's row in place of the GM's.
    key = cid.hex if settings.backend == "sqlite" else str(cid)
    raw_execute(settings, "DELETE FROM ledger_dice_seeds WHERE campaign_id=? AND audience='gm'", (key,))
    raw_execute(settings, "UPDATE ledger_dice_seeds SET audience='gm' WHERE campaign_id=? AND audience='public'",
                (key,))
    again = Ledger(settings)
    try:
        with pytest.raises(StateConflict, match=r"stored seed of turn 1 \(gm\) cannot be used"):
            again.roll(cid, purpose="q", actor=SYSTEM, vis=GM_ONLY)
        assert again.roll(cid, purpose="q", actor=SYSTEM, vis=FRA_ONLY).data["dice"]  # another audience rolls
    finally:
        again.close()


# ------------------------------------------------------------------ turns opened before audiences


def open_single_seed_turn(settings, ledger, cid: UUID, monkeypatch) -> bytes:
    """Turn 1 opened as the service did before audiences: a TurnOpened stored without dice_scheme (its hash
    computed without it), one plain seed in ledger_turn_seeds."""
    seed = dicelib.new_seed()
    sealed_as_now = Draft.seal

    def sealed_as_then(draft):
        events = sealed_as_now(draft)
        for e in events:
            e.__dict__.pop("dice_scheme", None)  # the class default fills it in; the old event had no such field
        return events

    def old_open(d):
        d.context["turn"] = 1
        d.add(ev.TurnOpened, turn=1, commitment=dicelib.commitment(seed))
        return {}

    with monkeypatch.context() as m:
        m.setattr(Draft, "seal", sealed_as_then)
        ledger.execute(cid, SYSTEM, old_open)
    key = cid.hex if settings.backend == "sqlite" else str(cid)
    raw_execute(settings, "INSERT INTO ledger_turn_seeds (campaign_id, turn, seed) VALUES (?,?,?)", (key, 1, seed))
    return seed


def test_a_turn_opened_before_audiences_rolls_closes_and_verifies_as_then(settings, ledger, monkeypatch):
    cid = new_campaign(ledger, "old")
    seed = open_single_seed_turn(settings, ledger, cid, monkeypatch)
    [opened] = [e for e in ledger.history(cid) if isinstance(e, ev.TurnOpened)]
    assert "dice_scheme" not in orjson.loads(ledger.recorder.select_events(cid, gt=opened.position - 1,
                                                                           lte=opened.position)[0].state)
    ledger.roll(cid, purpose="public", actor=SYSTEM)
    gm = ledger.roll(cid, purpose="hidden", actor=SYSTEM, vis=GM_ONLY)
    # One index sequence for the whole turn, every roll from the one seed, no seed commitment event.
    assert [d["index"] for d in gm.data["dice"]] == [1]
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=SYSTEM)
    history = ledger.history(cid)
    assert not [e for e in history if isinstance(e, (ev.DiceSeedCommitted, ev.DiceSeedRevealed))]
    [closed] = [e for e in history if isinstance(e, ev.TurnClosed)]
    assert (closed.seed, closed.rolls) == (seed.hex(), 2)
    report = ledger.verify_dice(cid, 1)
    assert (report.ok, report.checked) == (True, 2)
    client = make_client(settings, ledger)
    gm_token = issue(ledger, cid, "gm")
    events = client.get(f"/campaigns/{cid}/events", headers=bearer(gm_token)).json()
    assert readme_verifier()["verify"](events, str(cid), 1) == (2, 0)
    assert ledger.verify(cid).intact  # the old event as stored is what its hash covers



def test_the_timeline_tells_each_reader_of_the_seeds_they_received_in_plain_words(world, ledger):
    Projector(ledger).catch_up()

    def lines(reader: str | None) -> list[str]:
        token = world["tokens"][reader] if reader else world["gm"]
        r = world["client"].get(f"/campaigns/{world['cid']}/turns/1/timeline", headers=bearer(token))
        assert r.status_code == 200
        return [row["summary"] for row in r.json()]

    fra = lines("FRA")
    assert any(line.startswith("dice commitment for rolls seen by FRA (") for line in fra)
    assert "Turn 1: dice seed revealed for the rolls seen by FRA (1 server roll)" in fra
    assert not [line for line in fra if "game masters" in line]
    assert "Turn 1: dice seed revealed for the rolls seen by the game masters only (1 server roll)" in lines(None)
    eng = lines("ENG")
    assert not [line for line in eng if "dice seed revealed" in line]
    assert eng[-1] == "Turn 1 closed: public seed revealed, 1 public server roll"


# ------------------------------------------------------------------ the service's dice check, per reader


def dice_check(world, reader: str | None, turn: int = 1) -> dict:
    token = world["tokens"][reader] if reader else world["gm"]
    r = world["client"].get(f"/campaigns/{world['cid']}/turns/{turn}/dice/verify", headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def forge_roll(settings, position: int, values: list[int], forged: list[int]) -> None:
    """Change a roll's faces in the stored row, as whoever can write the database would."""
    table = events_table(settings)
    old, new = f'"values":{values}'.replace(" ", ""), f'"values":{forged}'.replace(" ", "")
    if settings.backend == "sqlite":
        raw_execute(settings, f"DROP TRIGGER IF EXISTS {table}_no_update")
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), ?, ?) AS BLOB) "
                              "WHERE originator_version = ?", (old, new, position))
    else:
        raw_execute(settings, f"DROP TRIGGER IF EXISTS {table}_immutable ON {table}")
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "?, ?), 'UTF8') WHERE originator_version = ?", (old, new, position))


def test_each_readers_dice_check_counts_the_rolls_they_may_see_and_the_game_masters_every_roll(world):
    assert dice_check(world, None) == {"turn": 1, "checked": 3, "manual": 0, "ok": True, "mismatches": []}
    for reader, mine in (("FRA", 2), ("ENG", 1), ("SPA", 1), ("observer", 1)):
        assert dice_check(world, reader) == {"turn": 1, "checked": mine, "manual": 0, "ok": True, "mismatches": []}


def test_a_changed_hidden_roll_is_reported_to_its_audience_and_the_game_master_and_to_nobody_else(world, settings,
                                                                                                  ledger):
    before = {reader: dice_check(world, reader) for reader in ("ENG", "observer")}
    position = world["positions"]["FRA"]
    values = ledger.event_at(world["cid"], position).values
    forge_roll(settings, position, values, [v % 100 + 1 for v in values])
    for reader in (None, "FRA"):
        found = dice_check(world, reader)
        assert not found["ok"] and [m for m in found["mismatches"] if f"at position {position}" in m]
    for reader, answer in before.items():  # they hear of no roll but theirs: the same answer as before
        assert dice_check(world, reader) == answer


def test_a_revealed_roll_is_checked_for_every_reader_without_telling_them_how_often_its_audience_rolled(world,
                                                                                                      ledger):
    ledger.submit(world["cid"], RevealEvent, position=world["positions"]["gm"], reason="the mission failed",
                  actor=SYSTEM)
    # The roll is theirs to see now and is checked against the seed the service holds; the game masters' count of
    # rolls, stated in their seed's reveal, stays theirs.
    assert dice_check(world, "ENG") == {"turn": 1, "checked": 2, "manual": 0, "ok": True, "mismatches": []}


@pytest.fixture
def blank(settings, ledger):
    return {"client": make_client(settings, ledger), "count": iter(range(10_000))}


def rolled_turn(ledger, slug: str, plan: list[tuple[dict, bool]]) -> tuple[UUID, dict[str, str]]:
    """A campaign whose turn 1 rolled ``plan``'s (visibility, physical?) rolls, closed; readers' tokens."""
    cid = new_campaign(ledger, slug)
    readers = {c: issue(ledger, cid, "player", c) for c in COUNTRIES}
    readers["observer"], readers["gm"] = issue(ledger, cid, "observer"), issue(ledger, cid, "gm")
    ledger.open_turn(cid, actor=SYSTEM)
    for i, (vis, physical) in enumerate(plan):
        if physical:
            ledger.record_manual_roll(cid, purpose=f"table {i}", sides=6, values=[3], vis=vis, actor=SYSTEM)
        else:
            ledger.roll(cid, purpose=f"roll {i}", actor=SYSTEM, vis=vis, sides=6)
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=SYSTEM)
    return cid, readers


def sees(reader: str, vis: dict) -> bool:
    return reader == "gm" or vis["scope"] == "public" or reader in (vis.get("countries") or ())


def test_a_readers_dice_check_is_a_function_of_the_rolls_they_may_see_whatever_was_rolled_out_of_their_sight(
        blank, ledger):
    """Two turns that differ only in rolls hidden from a reader (how many, of which audiences, physical or not)
    give that reader the same answer: the server rolls and the physical ones they may see, nothing else."""
    rolls = st.lists(st.tuples(VISIBILITY, st.booleans()), max_size=5)

    @hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
    @given(reader=st.sampled_from(["ENG", "FRA", "SPA", "observer"]), shared=rolls, hidden_a=rolls,
           hidden_b=rolls)
    def check(reader, shared, hidden_a, hidden_b):
        seen = [r for r in shared if sees(reader, r[0])]
        answers = []
        for extra in (hidden_a, hidden_b):
            unseen = [r for r in extra if not sees(reader, r[0])]
            slug = f"dice-{next(blank['count'])}"
            cid, readers = rolled_turn(ledger, slug, [*unseen[:1], *seen, *unseen[1:]])
            got = blank["client"].get(f"/campaigns/{slug}/turns/1/dice/verify", headers=bearer(readers[reader]))
            assert got.status_code == 200, got.text
            answers.append(got.json())
            every = blank["client"].get(f"/campaigns/{slug}/turns/1/dice/verify", headers=bearer(readers["gm"]))
            assert (every.json()["checked"], every.json()["manual"]) == (
                sum(1 for _, physical in [*seen, *unseen] if not physical),
                sum(1 for _, physical in [*seen, *unseen] if physical))
        assert answers[0] == answers[1] == {
            "turn": 1, "checked": sum(1 for _, physical in seen if not physical),
            "manual": sum(1 for _, physical in seen if physical), "ok": True, "mismatches": []}

    check()
