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
from ledger.sample import close_open_phases


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


@pytest.mark.parametrize("kind, replacement, field", [
    ("StackMoved", {"destination": "Bretagne"}, "replacement.destination"),  # on the board, not in this scenario
    ("StackMoved", {"path": ["Manche", "Atlantide"]}, "replacement.path[1]"),
    ("StackMoved", {"stack": "FRA-9"}, "replacement.stack"),
    ("ControlChanged", {"province": "Manche"}, "replacement.province"),  # a sea zone is controlled by no one
    ("ControlChanged", {"controller": "SPA"}, "replacement.controller"),
    ("MarkerPlaced", {"province": "Bretagne"}, "replacement.province"),
    ("TreasuryEntryRecorded", {"country": "SPA"}, "replacement.country"),
])
def test_a_correction_names_only_places_and_countries_of_the_campaign(ledger, kind, replacement, field):
    cid = sample(ledger)
    [at] = positions_of(ledger, cid, kind)[:1]
    err = appended_nothing(ledger, cid, lambda: ledger.record_correction(
        cid, corrects=at, reason="x", replacement=replacement, actor=GM))
    [named] = replacement.values()
    assert err.field == field and (named[-1] if isinstance(named, list) else named) in err.message, err.message
    # The same check answers a what-if: the draft is the correction's own use case.
    with pytest.raises(InvalidInput) as drafted:
        ledger.drafted(cid, cmd.build(cmd.RecordCorrection, corrects=at, reason="what if", replacement=replacement),
                       actor=GM)
    assert drafted.value.field == field


def test_a_ruling_resolved_again_names_only_countries_of_the_campaign(ledger):
    cid = sample(ledger)
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    inputs = {**M19_INPUTS, "defender": {**M19_INPUTS["defender"], "country": "SPA"}}
    err = appended_nothing(ledger, cid, lambda: ledger.handle(
        cid, cmd.build(cmd.ReworkRuling, position=battle, inputs=inputs, reason="x"), actor=GM))
    assert err.field == "inputs.defender.country" and "SPA" in err.message, (err.field, err.message)


def test_a_correction_to_a_place_in_play_is_accepted(ledger):
    cid = sample(ledger)
    [move] = positions_of(ledger, cid, "StackMoved")[:1]
    done = ledger.record_correction(cid, corrects=move, reason="it sailed to Irlande",
                                    replacement={"destination": "Irlande"}, actor=GM)
    assert [e["type"] for e in done.events] == ["CorrectionRecorded"]


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
    # The map said 5 LD for FRA-1 before the battle: 6 is kept by the game master with a reason.
    kept = {"defender.ld": "a garrison LD joined the defence"}
    preview = ledger.preview(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=amended, reason="6 LD",
                                            overrides=kept), actor=GM)
    assert preview.events == () or all(e["type"] != "DiceRolled" for e in preview.events)
    version = ledger.campaign(cid).version
    assert ledger.campaign(cid).version == version
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=amended, reason="6 LD",
                                        overrides=kept), actor=GM)
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
    turn = ledger.campaign(cid).turn  # the drawn die is one of the turn's server rolls, recomputed from its seed
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, turn=turn, actor=GM)
    assert ledger.verify_dice(cid, turn).ok, ledger.verify_dice(cid, turn).mismatches


def test_movement_attrition_resolved_again_in_the_rest_of_the_world_draws_the_star_die_and_back(ledger):
    """M10 (eu-military-rules.tex, Attrition, Land): in Europe one die on the stack-size column; in the rest of
    the world the percentage is read by 10-LD blocks, and a ★ cell asks for an extra d (12 LD at 10%: 10 → "9",
    2 → "2★"). A physical 6 was rolled for the attrition: every re-resolution reuses it by its purpose."""
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    europe = {"ld": 12, "causes": 1, "area": "europe"}
    at = ledger.record_ruling(cid, procedure="M10", inputs=europe, manual_dice=[[6]], actor=GM).events[0]["position"]
    assert _dice_purposes(ledger.event_at(cid, at).ruling) == [("movement attrition", (6,))]

    # A second cause of attrition: the recorded 6 is reused, the total is 6 + 2.
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs={**europe, "causes": 2},
                                        reason="two causes"), actor=GM)
    assert [(d["purpose"], d["values"]) for d in done.data["rework"]["matched"]] == [("movement attrition", [6])]
    assert done.data["rework"]["drawn"] == [] and done.data["ruling"]["total"] == 8
    assert not [e for e in done.events if e["type"] == "DiceRolled"]

    # In the rest of the world after all: the 6 reads 10%, the 2-LD block is a ★ cell; its die is new.
    rotw = {**europe, "area": "rotw"}
    preview = ledger.preview(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=rotw, reason="ROTW"), actor=GM)
    assert "★" in preview.data["rework"]["needs_die"] and not [e for e in preview.events if e["type"] == "DiceRolled"]
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=rotw, reason="ROTW"), actor=GM)
    report = done.data["rework"]
    assert [d["values"] for d in report["matched"]] == [[6]]
    [drawn] = report["drawn"]
    [rolled] = [ledger.event_at(cid, e["position"]) for e in done.events if e["type"] == "DiceRolled"]
    assert rolled.index == drawn["index"] and list(rolled.values) == drawn["values"] and not rolled.manual
    assert "★" in rolled.purpose and f"re-resolving position {at}" in rolled.purpose
    assert [b["cell"] for b in done.data["ruling"]["outcome"]["blocks"]] == ["9", "2★"]

    # Back in Europe: the ★ die is no longer needed, and said so.
    back = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=europe, reason="Europe"), actor=GM)
    assert [d["values"] for d in back.data["rework"]["unused"]] == [drawn["values"]]
    assert [d["values"] for d in back.data["rework"]["matched"]] == [[6]]
    checked: list[int] = []
    assert ledger.recompute(cid, checked=checked) == []
    assert {e["position"] for e in back.events if e["type"] == "CorrectionRecorded"} <= set(checked)


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
    # The map says FRA-1 had 8 LD before the battle: resolved again with 6, the game master says why.
    refused = run(settings, "ruling", "rework", "sample", str(battle), "--inputs", '{"defender": {"ld": 6}}',
                  "--reason", "6 LD", "--dry-run")
    assert refused.exit_code == 2 and "overrides.defender.ld" in refused.output, refused.output
    kept = ("--override", "defender.ld=two LD had deserted")
    dry = run(settings, "ruling", "rework", "sample", str(battle), "--inputs", '{"defender": {"ld": 6}}',
              "--reason", "6 LD", "--dry-run", *kept)
    assert dry.exit_code == 0 and "recorded die reused" in dry.output and "nothing recorded" in dry.output, dry.output
    done = run(settings, "ruling", "rework", "sample", str(battle), "--inputs", '{"defender": {"ld": 6}}',
               "--reason", "6 LD", *kept)
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


def _stored_rows(db) -> int:
    with db.reading() as cur:
        cur.execute(db.sql("SELECT COUNT(*) AS n FROM {events}"))
        return int(cur.fetchone()["n"])


def _budget_lines(ledger, cid, upto):
    from ledger.economy.sheets import budget
    from projections import read

    b = budget(read.records(ledger, cid, 0, upto))
    return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
            for code, c in (sheet.cells or {}).items()}


def _turn_two(ledger, cid, settled):
    """Turn 2 of the sample: FRA-1 marches back from Normandie to Caux, ENG is paid a ransom; and, when
    ``settled``, an old quarrel: the turn-1 landing corrected to end in Caux, a correction reaching back behind
    the opening of turn 2 (whose checkpoint holds the landing as first recorded)."""
    ledger.submit(cid, cmd.MoveStack, stack="FRA-1", origin="Normandie", destination="Caux", actor=GM)
    ledger.record_treasury_entry(cid, country="ENG", line="A9", amount=7, reason="ransom", actor=GM)
    if settled:
        [landing] = [e.originator_version for e in ledger.history(cid)
                     if isinstance(e, ev.StackMoved) and e.stack == "ENG-1"]
        ledger.record_correction(cid, corrects=landing, reason="they landed in Caux", actor=GM,
                                 replacement={"destination": "Caux", "path": ["Kent", "Manche", "Caux"]})


@pytest.mark.parametrize("which, settled, replacement, starts", [
    ("the march of turn 2", False, {"destination": "Picardie"}, "turn 2"),  # after turn 2's opening: from there
    ("the ransom of turn 2", False, {"amount": 9}, "turn 2"),
    ("the march of turn 2", True, {"destination": "Picardie"}, "turn 1"),  # the landing corrected since: before it
    ("the battle of turn 1", False, None, "turn 1"),
    ("the landing's correction", True, {"destination": "Normandie", "path": ["Kent", "Manche", "Normandie"]},
     "turn 1"),
    ("the pillage of turn 1", True, {"province": "Caux"}, "turn 1"),
])
def test_a_what_if_starts_at_the_checkpoint_before_the_event_and_equals_recording_it(ledger, which, settled,
                                                                                     replacement, starts):
    from projections import whatif, words
    from projections.head import Reader

    cid = sample(ledger)
    _turn_two(ledger, cid, settled)
    history = ledger.history(cid)
    at = {"the march of turn 2": lambda e: isinstance(e, ev.StackMoved) and e.stack == "FRA-1" and e.context["turn"] == 2,
          "the ransom of turn 2": lambda e: isinstance(e, ev.TreasuryEntryRecorded) and e.reason == "ransom",
          "the battle of turn 1": lambda e: isinstance(e, ev.RulingRecorded) and e.procedure == "M19",
          "the landing's correction": lambda e: isinstance(e, ev.CorrectionRecorded),
          "the pillage of turn 1": lambda e: isinstance(e, ev.MarkerPlaced)}
    [target] = [e.originator_version for e in history if at[which](e)]
    opened = {f"turn {e.turn}": e.originator_version for e in history if isinstance(e, ev.TurnOpened)}
    p = Projector(ledger)
    p.catch_up()
    head = ledger.campaign(cid).version
    command = cmd.build(cmd.RecordCorrection, corrects=target, reason="what if", replacement=replacement)
    rows = _stored_rows(p.db)

    _, drafted = ledger.drafted(cid, command, actor=GM)
    answer = whatif.what_if(Reader(ledger, p.db), cid, drafted)
    assert _stored_rows(p.db) == rows and ledger.campaign(cid).version == head  # nothing recorded
    assert answer["from_checkpoint"] == opened[starts]

    ledger.handle(cid, command, actor=GM)
    after = ledger.campaign(cid).version
    before_docs, after_docs = replay.state_from_scratch(ledger, cid, head), replay.state_from_scratch(ledger, cid, after)
    assert answer["changes"] == words.changes(before_docs, after_docs)
    c0, c1 = _budget_lines(ledger, cid, head), _budget_lines(ledger, cid, after)
    assert answer["budget"] == [
        words.budget_line({"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": c1.get(k)})
        for k in sorted(set(c0) | set(c1), key=lambda k: (k[0], k[1], words.ers_key(k[2]))) if c0.get(k) != c1.get(k)]
    assert answer["changes"] or answer["budget"]  # each of these what-ifs changes something
    vp = after_docs["victory"].get("vp") or {}
    assert {c: v["then"] for c, v in answer["victory"].items()} == {c: words.plain(vp.get(c, 0)) for c in answer["victory"]}


NOT_ELIGIBLE = {"interceptor_man": 4, "target_man": 3, "last_campaign": "none"}
ELIGIBLE = {**NOT_ELIGIBLE, "last_campaign": "active"}


def _closed_interception(ledger):
    """An interception ruled in turn 2 without a die (not eligible), then turn 2 closed: its seed is public."""
    cid = sample(ledger)
    at = ledger.record_ruling(cid, procedure="M14", inputs=NOT_ELIGIBLE, actor=GM).events[0]["position"]
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, turn=2, actor=GM)
    return cid, at


def test_a_ruling_of_a_closed_turn_needing_a_new_die_between_turns_asks_for_the_next_turn_or_a_physical_die(ledger):
    cid, at = _closed_interception(ledger)
    err = appended_nothing(ledger, cid, lambda: ledger.handle(
        cid, cmd.build(cmd.ReworkRuling, position=at, inputs=ELIGIBLE, reason="it was active"), actor=GM))
    assert isinstance(err, StateConflict) and err.field == "manual_dice"
    assert "open the next turn" in err.message and "rolled at the table" in err.message
    too_many = appended_nothing(ledger, cid, lambda: ledger.handle(cid, cmd.build(
        cmd.ReworkRuling, position=at, inputs=ELIGIBLE, reason="x", manual_dice=[[3], [4]]), actor=GM))
    assert too_many.field == "manual_dice" and "1 physical dice were not needed" in too_many.message


def test_a_physical_die_settles_a_closed_turn_rework_and_is_recorded_as_such(ledger):
    cid, at = _closed_interception(ledger)
    command = cmd.build(cmd.ReworkRuling, position=at, inputs=ELIGIBLE, reason="it was active", manual_dice=[[3]])
    head = ledger.campaign(cid).version
    preview = ledger.preview(cid, command, actor=GM)  # a physical die is known: the outcome shows at once
    assert "needs_die" not in preview.data["rework"] and ledger.campaign(cid).version == head
    done = ledger.handle(cid, command, actor=GM)
    assert done.data == {**preview.data, "entries": done.data["entries"]}
    [rolled] = [ledger.event_at(cid, e["position"]) for e in done.events if e["type"] == "DiceRolled"]
    assert rolled.manual and rolled.index is None and list(rolled.values) == [3]
    assert f"re-resolving position {at}, drawn after turn 2 closed" in rolled.purpose
    assert done.data["rework"]["after_turn_closed"] == 2
    assert _dice_purposes(done.data["ruling"]) == [(done.data["rework"]["drawn"][0]["purpose"], (3,))]
    assert ledger.verify_dice(cid, 2).ok and ledger.recompute(cid) == []


def test_a_closed_turn_rework_draws_its_new_die_from_the_open_turn_and_stays_verifiable(ledger):
    cid, at = _closed_interception(ledger)
    ledger.open_turn(cid, actor=GM)
    done = ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=at, inputs=ELIGIBLE, reason="it was active"),
                         actor=GM)
    [rolled] = [ledger.event_at(cid, e["position"]) for e in done.events if e["type"] == "DiceRolled"]
    assert rolled.turn == 3 and not rolled.manual and rolled.index == 0  # turn 3's first server roll
    assert "drawn after turn 2 closed" in rolled.purpose and done.data["rework"]["after_turn_closed"] == 2
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, turn=3, actor=GM)
    report = ledger.verify_dice(cid, 3)
    assert report.ok and report.checked == 1, report.mismatches
    assert ledger.recompute(cid) == []


def test_the_command_line_settles_a_closed_turn_rework_with_a_die_rolled_at_the_table(settings, ledger):
    from tests.integration.test_cli import run

    cid, at = _closed_interception(ledger)
    ledger.close()
    args = ("ruling", "rework", "sample", str(at), "--inputs", '{"last_campaign": "active"}', "--reason", "active")
    refused = run(settings, *args)
    assert refused.exit_code != 0 and "rolled at the table" in refused.output, refused.output
    done = run(settings, *args, "--manual", "3")
    assert done.exit_code == 0, done.output
    assert "rolled at the table, after turn 2 closed: 1d10 3" in done.output, done.output
