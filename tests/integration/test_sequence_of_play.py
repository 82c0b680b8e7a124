"""The sequence of play, checked like the board (issue 37, item 4; TABLES.md "Sequence of play of one turn"),
on both stores: a command out of its phases, one recorded in a closed phase, a turn closed with phases open
and a move into a province of a country the mover is not at war with are refused in words naming the rule,
nothing appended; the game master keeps them with a reason (recorded in the event, shown in words, listed by
``ledger recompute``'s audit); a player never does.

The sample scenario: ENG-1 (Talbot) in Kent, FRA-1 in Picardie; Picardie, Caux and Normandie are French."""

from __future__ import annotations

import itertools

import pytest

from ledger import sequence
from ledger.application import Actor
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import Forbidden, InvalidInput, OutOfSequence
from ledger.sample import GM, close_open_phases, reach_phase
from ledger.scenario import import_scenario, load_text
from projections.read import records
from projections.timeline import summary

slugs = itertools.count()
PLAYER = Actor("alice", "player", "ENG")


def campaign(ledger, wars: bool = True):
    """A new campaign of the sample scenario (without its war when ``wars`` is false), its first turn open."""
    text = load_text("sample")
    if not wars:
        text = text.replace("wars:\n  - [[ENG], [FRA]]", "wars: []")
        assert "[[ENG], [FRA]]" not in text
    slug = f"seq{next(slugs)}"
    import_scenario(ledger, text, slug=slug, actor=GM)
    cid = campaign_id(slug)
    ledger.open_turn(cid, actor=GM)
    return cid


def refused(ledger, cid, command, actor=GM, error=OutOfSequence):
    before = ledger.campaign(cid).version
    with pytest.raises(error) as info:
        ledger.handle(cid, command, actor=actor)
    assert ledger.campaign(cid).version == before  # nothing appended
    return info.value


def line(ledger, cid, position):
    [r] = [r for r in records(ledger, cid) if r.position == position]
    return summary({}, r)


def test_a_move_before_the_events_diplomacy_and_incomes_phases_close_is_refused_naming_the_rule(ledger):
    cid = campaign(ledger)
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"))
    assert e.field == "context.out_of_sequence" and e.rule == "eu:sequence"
    assert ("sequence of play (TABLES.md): a move belongs to the military and redeployment phases, and turn 1 is "
            "in its events phase: close events, diplomacy and incomes first") in e.message
    reach_phase(ledger, cid, "military")
    ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=GM)


def test_a_battle_before_the_military_phase_kept_by_the_game_master_is_recorded_shown_and_audited(ledger):
    cid = campaign(ledger)
    ledger.close_phase(cid, "events", actor=GM)
    e = refused(ledger, cid, cmd.RecordRuling(procedure="M2", inputs={"poor_weather": False}))
    assert "a ruling of M2 belongs to the military phase, and turn 1 is in its diplomacy phase" in e.message
    done = ledger.handle(cid, cmd.RecordRuling(procedure="M2", inputs={"poor_weather": False}, context=cmd.Context(
        out_of_sequence="the starting round was rolled at the table before the diplomacy")), actor=GM)
    position = done.events[0]["position"]
    kept = ledger.event_at(cid, position).context["out_of_sequence"]
    assert kept["reason"] == "the starting round was rolled at the table before the diplomacy"
    assert kept["refused"] and "close diplomacy and incomes first" in kept["refused"][0]
    assert "kept out of sequence by the game master: the starting round was rolled" in line(ledger, cid, position)
    [audited] = sequence.audit(ledger, cid)
    assert audited["position"] == position and audited["kept"] == kept["reason"]


def test_recording_in_a_closed_phase_is_refused(ledger):
    cid = campaign(ledger)
    reach_phase(ledger, cid, "military")
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex",
                                          context=cmd.Context(phase="events")))
    assert "the events phase of turn 1 is closed: nothing more is recorded in it" in e.message
    e = refused(ledger, cid, cmd.RecordTreasuryEntry(country="ENG", line="A9", amount=3, reason="loot",
                                                    context=cmd.Context(phase="peace")))
    assert "the peace phase of turn 1 has not begun: turn 1 is in its military phase" in e.message


def test_a_move_after_the_interphase_closed_is_refused(ledger):
    cid = campaign(ledger)
    close_open_phases(ledger, cid)
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"))
    assert "a move belongs to the military and redeployment phases, over in turn 1 (every phase of turn 1 is " \
           "closed)" in e.message


def test_a_declaration_of_war_belongs_to_the_diplomacy_and_a_peace_to_the_peace_phase(ledger):
    cid = campaign(ledger, wars=False)
    reach_phase(ledger, cid, "military")
    e = refused(ledger, cid, cmd.DeclareWar(attackers=["ENG"], defenders=["FRA"]))
    assert "a declaration of war belongs to the events and diplomacy phases, over in turn 1" in e.message
    cid = campaign(ledger)
    reach_phase(ledger, cid, "diplomacy")
    e = refused(ledger, cid, cmd.MakePeace(attackers=["ENG"], defenders=["FRA"]))
    assert "a peace belongs to the events and peace phases, over in turn 1 (turn 1 is in its diplomacy" in e.message


def test_closing_a_turn_whose_phases_are_open_is_refused_unless_kept_with_a_reason(ledger):
    cid = campaign(ledger)
    reach_phase(ledger, cid, "exchequer")
    e = refused(ledger, cid, cmd.CloseTurn(turn=1))
    assert e.field == "out_of_sequence"
    assert "turn 1 closes after its eight phases, and exchequer, peace and interphase are still open" in e.message
    done = ledger.handle(cid, cmd.CloseTurn(turn=1, out_of_sequence="the peace was played at the table"),
                         actor=GM)
    closed = [e for e in done.events if e["type"] == "TurnClosed"][0]["position"]
    assert ledger.event_at(cid, closed).context["out_of_sequence"]["reason"] == "the peace was played at the table"
    assert [a["type"] for a in sequence.audit(ledger, cid)] == ["TurnClosed"]


def test_entering_a_province_of_a_country_not_at_war_is_refused_naming_the_rule(ledger):
    cid = campaign(ledger, wars=False)
    reach_phase(ledger, cid, "military")
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", via=["Manche"], destination="Picardie"),
                error=InvalidInput)
    assert e.field == "destination"
    assert ("step 2: Picardie is held by FRA, and no war between ENG and FRA is declared on the map (wars in "
            "progress: none)") in e.message and "rule M9" in e.message
    done = ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Kent", via=["Manche"], destination="Picardie",
                                            forced_reason="Burgundy let the English through"), actor=GM)
    forced = ledger.event_at(cid, done.events[0]["position"]).forced
    assert forced["reason"] == "Burgundy let the English through" and "no war between ENG and FRA" in forced["refused"][0]
    [audited] = sequence.audit(ledger, cid)
    assert audited["kept"] == "Burgundy let the English through"


def test_a_declared_war_opens_the_enemys_provinces(ledger):
    cid = campaign(ledger, wars=False)
    reach_phase(ledger, cid, "diplomacy")
    ledger.handle(cid, cmd.DeclareWar(attackers=["ENG"], defenders=["FRA"]), actor=GM)
    reach_phase(ledger, cid, "military")
    ledger.handle(cid, cmd.MoveStack(stack="ENG-1", origin="Kent", via=["Manche"], destination="Picardie"), actor=GM)
    assert ledger.campaign(cid).stacks["ENG-1"][0] == "Picardie"
    assert sequence.audit(ledger, cid) == []


def test_a_player_never_keeps_a_command_out_of_sequence(ledger):
    cid = campaign(ledger)
    ledger.handle(cid, cmd.ChangeSettings(settings=cmd.SettingsChange(players_may_move=True), reason="r"), actor=GM)
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex",
                                          context=cmd.Context(out_of_sequence="I forgot")), actor=PLAYER,
                error=Forbidden)
    assert e.field == "context.out_of_sequence"
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex"), actor=PLAYER)
    assert "a game master may keep it" not in e.message


def test_a_reason_where_nothing_is_refused_is_refused(ledger):
    cid = campaign(ledger)
    reach_phase(ledger, cid, "military")
    e = refused(ledger, cid, cmd.MoveStack(stack="ENG-1", origin="Kent", destination="Wessex",
                                          context=cmd.Context(out_of_sequence="just in case")), error=InvalidInput)
    assert e.field == "context.out_of_sequence" and "refuses nothing here" in e.message


def test_over_http_a_turn_with_open_phases_is_refused_then_closed_with_the_game_masters_reason(settings, ledger):
    from tests.e2e.test_commands_http import client

    cid = campaign(ledger)
    slug = ledger.campaign(cid).slug
    with client(settings, ledger) as http:
        r = http.post(f"/campaigns/{slug}/turns/1/close")
        assert r.status_code == 409 and r.json()["error"]["field"] == "out_of_sequence", r.text
        assert "turn 1 closes after its eight phases" in r.json()["error"]["message"]
        r = http.post(f"/campaigns/{slug}/turns/1/close", json={"out_of_sequence": "played at the table"})
        assert r.status_code == 200, r.text
    assert not ledger.campaign(cid).turn_open


def test_recompute_says_what_the_sequence_of_play_refused_and_who_kept_it(settings, ledger):
    from tests.integration.test_cli import run

    cid = campaign(ledger)
    ledger.handle(cid, cmd.CloseTurn(turn=1, out_of_sequence="the peace was played at the table"), actor=GM)
    slug = ledger.campaign(cid).slug
    ledger.close()
    said = run(settings, "recompute", slug)
    flat = " ".join(said.output.split())
    assert said.exit_code == 0, said.output
    assert "TurnClosed: turn 1 closes after its eight phases" in flat
    assert "kept by the game master: the peace was played at the table" in flat
    assert "against the sequence of play: 1 event(s) out of sequence, 1 kept by the game master with a reason, 0 not" \
        in flat
