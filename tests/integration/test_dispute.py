"""Settling a dispute (issue 14): corrections validated per event type, a ruling resolved again with its
recorded dice matched by purpose, its treasury entries following, on both stores."""

from __future__ import annotations

import pytest

from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.sample import GM
from projections import replay
from projections.runner import Projector
from tests.integration.test_projections import positions_of, sample


def appended_nothing(ledger, cid, fn):
    before = ledger.campaign(cid).version
    with pytest.raises((InvalidInput, StateConflict)) as err:
        fn()
    assert ledger.campaign(cid).version == before
    return err.value


@pytest.mark.parametrize("replacement, field", [
    ({"foo": 1, "amount": "lots"}, "replacement.amount"),
    ({"foo": 1}, "replacement.foo"),
    ({"amount": "35"}, "replacement.amount"),
    ({"amount": True}, "replacement.amount"),
    ({"line": "A99"}, "replacement.line"),
    ({}, "replacement"),
])
def test_an_invalid_replacement_of_a_treasury_entry_is_refused_naming_the_field(ledger, replacement, field):
    cid = sample(ledger)
    [entry] = positions_of(ledger, cid, "TreasuryEntryRecorded")[:1]
    err = appended_nothing(ledger, cid, lambda: ledger.record_correction(
        cid, corrects=entry, reason="x", replacement=replacement, actor=GM))
    assert err.field == field, err.message


def test_structural_events_cannot_be_corrected(ledger):
    cid = sample(ledger)
    for kind in ("CampaignCreated", "ScenarioImported", "TurnOpened"):
        [at] = positions_of(ledger, cid, kind)[:1]
        err = appended_nothing(ledger, cid, lambda: ledger.record_correction(cid, corrects=at, reason="x", actor=GM))
        assert err.field == "corrects" and kind in err.message


def test_a_map_replacement_takes_only_the_fields_of_its_event(ledger):
    cid = sample(ledger)
    [move] = positions_of(ledger, cid, "StackMoved")[:1]
    err = appended_nothing(ledger, cid, lambda: ledger.record_correction(
        cid, corrects=move, reason="x", replacement={"amount": 3}, actor=GM))
    assert err.field == "replacement.amount"
    [ruling] = positions_of(ledger, cid, "RulingRecorded", "M19")
    err = appended_nothing(ledger, cid, lambda: ledger.record_correction(
        cid, corrects=ruling, reason="x", replacement={"effects": [{"kind": "lots"}]}, actor=GM))
    assert err.field.startswith("replacement.effects")


def test_a_correction_of_a_correction_is_folded_in_order_by_the_budget_and_the_views(ledger):
    cid = sample(ledger)
    ledger.submit(cid, cmd.MoveStack, stack="FRA-1", origin="Normandie", destination="Caux", actor=GM)
    [move] = positions_of(ledger, cid, "StackMoved")[-1:]
    first = ledger.record_correction(cid, corrects=move, reason="Kent", replacement={"destination": "Kent"},
                                     actor=GM).events[0]["position"]
    p = Projector(ledger)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["location"] == "Kent"
    ledger.record_correction(cid, corrects=first, reason="not Kent: Picardie", replacement={"destination": "Picardie"},
                             actor=GM)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["location"] == "Picardie"
    # Withdrawing the first correction (a correction of it without replacement) restores the move.
    ledger.record_correction(cid, corrects=first, reason="the move stood", actor=GM)
    p.catch_up()
    assert replay.current(p.db, cid, "map")["stacks"]["FRA-1"]["location"] == "Caux"
    head = ledger.campaign(cid).version
    assert replay.state_at(ledger, p.db, cid, head)["map"] == replay.state_from_scratch(ledger, cid, head)["map"]

    # The budget: an entry corrected, the correction corrected, then withdrawn.
    entry = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=35, reason="loot",
                                         actor=GM).events[0]["position"]
    e = ledger.event_at(cid, entry)

    def cell():
        return ledger.budget_of(ledger.campaign(cid)).sheet(e.country, e.turn).cells[e.line].value
    base = cell()
    c1 = ledger.record_correction(cid, corrects=entry, reason="x", replacement={"amount": 45},
                                  actor=GM).events[0]["position"]
    assert cell() == base + 10
    ledger.record_correction(cid, corrects=c1, reason="y", replacement={"amount": 38}, actor=GM)
    assert cell() == base + 3
    ledger.record_correction(cid, corrects=c1, reason="z", actor=GM)
    assert cell() == base
    p.catch_up()  # the budget view folds the same way as the write side


def test_a_player_never_sees_a_correction_wider_than_the_event(ledger):
    cid = sample(ledger)
    hidden = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=5, reason="secret", actor=GM,
                                          vis={"scope": "gm"}).events[0]["position"]
    err = appended_nothing(ledger, cid, lambda: ledger.record_correction(
        cid, corrects=hidden, reason="x", replacement={"amount": 6}, vis={"scope": "public"}, actor=GM))
    assert err.field == "visibility"
    c = ledger.record_correction(cid, corrects=hidden, reason="x", replacement={"amount": 6}, actor=GM)
    assert ledger.event_at(cid, c.events[0]["position"]).visibility == {"scope": "gm"}


M19_INPUTS = {
    "attacker": {"technology": "MUS", "ld": 6, "army_class": "iv", "class_size": 2, "leader_man": 3, "country": "ENG"},
    "defender": {"technology": "MED", "ld": 5, "army_class": "iv", "class_size": 2, "leader_man": 4, "country": "FRA"},
    "terrain": "plain", "period": 2, "attacker_phasing_not_intercepted": False}


def _dice_purposes(doc):
    return [(d["purpose"], tuple(d["values"])) for d in [*doc.get("dice", []), *[x for s in doc.get("steps", [])
                                                                                for x in s.get("dice", [])]]]


def test_a_battle_resolved_again_reuses_its_dice_by_purpose_and_recomputes(ledger):
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    battle = ledger.record_ruling(cid, procedure="M19", inputs=M19_INPUTS, actor=GM,
                                  context={"where": "Picardie", "stacks": {"attacker": "ENG-1", "defender": "FRA-1"}})
    at = battle.events[0]["position"]
    original = ledger.event_at(cid, at).ruling
    amended = {**M19_INPUTS, "defender": {**M19_INPUTS["defender"], "ld": 6}}
    preview = ledger.preview(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=amended, reason="6 LD"), actor=GM)
    assert preview.events == () or all(e["type"] != "DiceRolled" for e in preview.events)
    version = ledger.campaign(cid).version
    assert ledger.campaign(cid).version == version
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=amended, reason="6 LD"), actor=GM)
    report = done.data["rework"]
    matched = [(d["purpose"], tuple(d["values"])) for d in report["matched"]]
    recorded = dict(_dice_purposes(original))
    assert matched and all(recorded[p] == v for p, v in matched)  # every reused die is the one recorded for it
    assert done.data["ruling"]["inputs"]["defender"]["ld"] == 6
    [corr] = [e for e in done.events if e["type"] == "CorrectionRecorded"][:1]
    stored = ledger.event_at(cid, corr["position"])
    assert stored.corrects == at and "rework" in stored.replacement
    checked: list[int] = []
    assert ledger.recompute(cid, checked=checked) == [] and corr["position"] in checked


def test_an_interception_needing_a_die_it_did_not_draw_draws_one_and_flags_it(ledger):
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    # Not eligible (no campaign last turn): no die drawn. Eligible: the die is drawn now, by the server.
    r = ledger.record_ruling(cid, procedure="M14", inputs={"interceptor_man": 4, "target_man": 3,
                                                         "last_campaign": "none"}, actor=GM)
    at = r.events[0]["position"]
    assert _dice_purposes(ledger.event_at(cid, at).ruling) == []
    again = {"interceptor_man": 4, "target_man": 3, "last_campaign": "active"}
    preview = ledger.preview(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=again, reason="active"), actor=GM)
    assert "needs_die" in preview.data["rework"]
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=again, reason="active"), actor=GM)
    [drawn] = done.data["rework"]["drawn"]
    [rolled] = [e for e in done.events if e["type"] == "DiceRolled"]
    die = ledger.event_at(cid, rolled["position"])
    assert die.index == drawn["index"] and list(die.values) == drawn["values"] and "re-resolving" in die.purpose
    # And back: a die no longer needed is reported unused.
    corr = [e for e in done.events if e["type"] == "CorrectionRecorded"][0]["position"]
    back = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs={
        "interceptor_man": 4, "target_man": 3, "last_campaign": "none"}, reason="none after all"), actor=GM)
    assert [d["values"] for d in back.data["rework"]["unused"]] == [drawn["values"]]
    assert ledger.recompute(cid) == []
    assert corr


def test_a_reworked_ruling_moves_its_treasury_entries(ledger):
    cid = sample(ledger)
    rulings = [e for e in ledger.history(cid) if isinstance(e, ev.RulingRecorded)]
    booked = {e.source for e in ledger.history(cid) if isinstance(e, ev.TreasuryEntryRecorded) and e.source}
    with_entries = [r for r in rulings if r.originator_version in booked]
    if not with_entries:
        pytest.skip("the sample books no entry from a ruling")
    r = with_entries[0]
    done = ledger.record_correction(cid, corrects=r.originator_version, reason="never happened", actor=GM)
    entries = done.data["entries"]
    assert entries and all(x["to"] is None for x in entries)


def test_a_player_reads_no_correction_of_an_event_hidden_from_them(ledger):
    from ledger.application import Actor
    from projections import read

    cid = sample(ledger)
    hidden = ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=5, reason="secret", actor=GM,
                                          vis={"scope": "countries", "countries": ["FRA"]}).events[0]["position"]
    fix = ledger.record_correction(cid, corrects=hidden, reason="it was 4", replacement={"amount": 4},
                                   actor=GM).events[0]["position"]
    state = ledger.campaign(cid)
    records = read.records(ledger, cid, 0, state.version)
    eng = read.visible(Actor("alice", "player", "ENG"), records, state.revealed)
    fra = read.visible(Actor("bruno", "player", "FRA"), records, state.revealed)
    assert fix not in {r.position for r in eng} and fix in {r.position for r in fra}


def test_the_command_line_shows_settles_and_recomputes_a_dispute(settings, ledger):
    from tests.integration.test_cli import run

    cid = sample(ledger)
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    ledger.close()
    shown = run(settings, "ruling", "show", "sample", str(battle))
    assert shown.exit_code == 0 and "loses" in shown.output and "{'" not in shown.output, shown.output
    dry = run(settings, "ruling", "rework", "sample", str(battle), "--inputs", '{"defender": {"ld": 6}}',
              "--reason", "6 LD", "--dry-run")
    assert dry.exit_code == 0 and "recorded die reused" in dry.output and "nothing recorded" in dry.output, dry.output
    done = run(settings, "ruling", "rework", "sample", str(battle), "--inputs", '{"defender": {"ld": 6}}',
               "--reason", "6 LD")
    assert done.exit_code == 0 and "recorded at position" in done.output, done.output
    shown = run(settings, "ruling", "show", "sample", str(battle))
    assert "resolved again" in shown.output and "defender ld: 8 → 6" in shown.output, shown.output
    counted = run(settings, "recompute", "sample")
    assert counted.exit_code == 0 and "as recorded, 0 differ" in counted.output, counted.output
    one = run(settings, "recompute", "sample", "--position", str(battle))
    assert one.exit_code == 0 and "1 ruling(s) recomputed: 1 as recorded" in one.output, one.output
    from typer.testing import CliRunner

    from ledger.cli import app
    from tests.integration.test_cli import cli_env

    events = CliRunner().invoke(app, ["events", "sample"], env={**cli_env(settings), "COLUMNS": "300"})
    assert events.exit_code == 0 and "correction of position" in events.output, events.output[-2000:]
