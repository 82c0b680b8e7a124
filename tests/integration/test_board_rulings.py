"""Rulings checked against the board and the map state, on both stores: for each family the board can check
(M9/M10 movement and attrition, M12 attrition at sea, M14 interception, M19 battle, M21 siege) a typed input
that disagrees is refused naming the input, the typed value and the board's; kept with a reason it is
recorded as overridden; left out it is filled from the board. ``recompute`` audits old rulings.

The sample campaign (board eu): after its first turn ENG-1 (Talbot: fire 2, shock 3, manoeuvre 3, siege 1)
stands in Picardie (plain, fortress 2, a port), FRA-1 (La Trémoille: manoeuvre 4) in Normandie (dense
forest), across the Seine (a river border) from Caux.
"""

from __future__ import annotations

import pytest

from ledger.domain.errors import InvalidInput
from ledger.sample import GM
from ledger import board_facts
from tests.integration.test_projections import sample


@pytest.fixture
def cid(ledger):
    cid = sample(ledger)
    if not ledger.campaign(cid).turn_open:
        ledger.open_turn(cid, actor=GM)
    return cid


def ld_of(ledger, cid, stack):
    return ledger.campaign(cid).military["forces"][stack]["units"]["LD"]


def refused(ledger, cid, **kw):
    before = ledger.campaign(cid).version
    with pytest.raises(InvalidInput) as info:
        ledger.record_ruling(cid, actor=GM, **kw)
    assert ledger.campaign(cid).version == before  # nothing appended
    return info.value


def recorded(ledger, cid, **kw):
    return ledger.record_ruling(cid, actor=GM, **kw).data["ruling"]


# ------------------------------------------------------------------------------------------- M19 battle

SIDE = {"army_class": "iv", "class_size": 2}
BATTLE = {"attacker": {"technology": "MUS", "country": "ENG", **SIDE},
          "defender": {"technology": "MED", "country": "FRA", **SIDE}, "terrain": "plain", "period": 2}
IN_PICARDIE = {"where": "Picardie", "stacks": {"attacker": "ENG-1", "defender": "FRA-1"}}


def test_a_battle_side_whose_ld_the_map_contradicts_is_refused_naming_both_values(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    battle = {**BATTLE, "attacker": {**BATTLE["attacker"], "ld": eng + 3}}
    e = refused(ledger, cid, procedure="M19", inputs=battle, context=IN_PICARDIE)
    assert e.field == "inputs.attacker.ld"
    assert f"attacker.ld: typed {eng + 3}, but the map says stack ENG-1 has {eng} LD" in e.message
    assert "overrides.attacker.ld" in e.message


def test_a_battle_side_kept_against_the_map_is_recorded_as_overridden_with_its_reason(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    battle = {**BATTLE, "attacker": {**BATTLE["attacker"], "ld": eng + 3}}
    ruling = recorded(ledger, cid, procedure="M19", inputs=battle, context=IN_PICARDIE,
                      overrides={"attacker.ld": "three LD of Burgundian allies joined"})
    assert ruling["overridden"] == [{"field": "attacker.ld", "typed": eng + 3, "board": eng,
                                     "reason": "three LD of Burgundian allies joined"}]
    assert ruling["inputs"]["attacker"]["ld"] == eng + 3


def test_a_battle_without_sizes_and_leaders_takes_them_from_the_map(ledger, cid):
    eng, fra = ld_of(ledger, cid, "ENG-1"), ld_of(ledger, cid, "FRA-1")
    ruling = recorded(ledger, cid, procedure="M19", inputs=BATTLE, context=IN_PICARDIE)
    assert {"ld": eng, "leader_man": 3, "leader_fire": 2, "leader_shock": 3}.items() <= ruling["inputs"]["attacker"].items()
    assert ruling["inputs"]["defender"]["ld"] == fra and ruling["inputs"]["defender"]["leader_man"] == 4
    assert ruling["from_board"]["attacker.ld"] == eng and ruling["from_board"]["defender.leader_man"] == 4
    assert "overridden" not in ruling


def test_a_leaders_value_the_map_contradicts_is_refused(ledger, cid):
    battle = {**BATTLE, "defender": {**BATTLE["defender"], "leader_man": 2}}
    e = refused(ledger, cid, procedure="M19", inputs=battle, context=IN_PICARDIE)
    assert e.field == "inputs.defender.leader_man" and "La Trémoille (FRA-1) has manoeuvre 4" in e.message


def test_a_battle_across_a_river_the_attacker_did_not_cross_is_refused(ledger, cid):
    # FRA-1 stands in Normandie; attacking into Caux it crosses the Seine (a river border on the board).
    at_caux = {"where": "Caux", "stacks": {"attacker": "FRA-1", "defender": "ENG-1"}}
    battle = {**BATTLE, "terrain": "plain", "crossing": "none"}
    e = refused(ledger, cid, procedure="M19", inputs=battle, context=at_caux)
    assert e.field == "inputs.crossing" and "'none'" in e.message and "river border" in e.message
    ruling = recorded(ledger, cid, procedure="M19", inputs={**BATTLE, "terrain": "plain"}, context=at_caux)
    assert ruling["inputs"]["crossing"] == "river_or_pass" and ruling["from_board"]["crossing"] == "river_or_pass"


# ------------------------------------------------------------------------------------- M14 interception

INTERCEPTION = {"last_campaign": "active"}


def test_an_interception_in_the_interceptors_own_province_must_say_so(ledger, cid):
    here = {"where": "Normandie", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}}
    e = refused(ledger, cid, procedure="M14", inputs={**INTERCEPTION, "same_province": False}, context=here)
    assert e.field == "inputs.same_province" and "stack FRA-1 is in Normandie" in e.message
    ruling = recorded(ledger, cid, procedure="M14", inputs=INTERCEPTION, context=here)
    assert ruling["inputs"]["same_province"] is True and ruling["inputs"]["across_river_or_pass"] is False
    assert ruling["inputs"]["interceptor_man"] == 4 and ruling["inputs"]["target_man"] == 3
    assert ruling["from_board"]["side_ld"] == ld_of(ledger, cid, "FRA-1")


def test_an_interception_across_the_seine_is_across_a_river_unless_the_game_master_says_why_not(ledger, cid):
    caux = {"where": "Caux", "stacks": {"interceptor": "FRA-1", "target": "ENG-1"}}
    typed = {**INTERCEPTION, "interceptor_man": 4, "target_man": 3, "across_river_or_pass": False}
    e = refused(ledger, cid, procedure="M14", inputs=typed, context=caux)
    assert e.field == "inputs.across_river_or_pass" and "river border" in e.message
    assert "typed no, but the board says stack FRA-1 is in Normandie, across a river border" in e.message
    ruling = recorded(ledger, cid, procedure="M14", inputs=typed, context=caux,
                      overrides={"across_river_or_pass": "the bridge at Rouen is held by France"})
    assert ruling["overridden"] == [{"field": "across_river_or_pass", "typed": False, "board": True,
                                     "reason": "the bridge at Rouen is held by France"}]


# ------------------------------------------------------------------------------------------- M21 siege


def test_a_siege_of_picardie_takes_its_fortress_port_terrain_and_besieger_from_the_board_and_the_map(ledger, cid):
    ctx = {"where": "Picardie", "stacks": {"besieger": "ENG-1"}}
    ruling = recorded(ledger, cid, procedure="M21", inputs={"action": "undermine"}, context=ctx)
    assert {"fortress_level": 2, "map_level": 2, "port": True, "clear_terrain": True, "besieger_leader_siege": 1,
            "besieger_ld": ld_of(ledger, cid, "ENG-1")}.items() <= ruling["from_board"].items()


def test_a_siege_typed_against_a_stronger_fortress_than_the_map_shows_is_refused(ledger, cid):
    ctx = {"where": "Picardie", "stacks": {"besieger": "ENG-1"}}
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "fortress_level": 3}, context=ctx)
    assert e.field == "inputs.fortress_level" and "Picardie's fortress is 2" in e.message
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "port": False}, context=ctx)
    assert e.field == "inputs.port" and "Picardie has port" in e.message


def test_a_fortress_level_changed_by_a_ruling_is_the_one_the_next_siege_is_checked_against(ledger, cid):
    ctx = {"where": "Picardie", "stacks": {"besieger": "ENG-1"}}
    # Fortified to 5 since the scenario (the game master says so); captured, it loses two levels: 3.
    capture = recorded(ledger, cid, procedure="M21", inputs={"action": "capture", "fortress_level": 5}, context=ctx,
                       overrides={"fortress_level": "fortified twice since the scenario"})
    assert capture["outcome"]["new_level"] == 3
    assert ledger.campaign(cid).military["fortresses"] == {"Picardie": 3}
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "fortress_level": 2}, context=ctx)
    assert e.field == "inputs.fortress_level" and "Picardie's fortress is 3 since it was changed" in e.message


# ----------------------------------------------------------------------------- M9 / M10 movement, M12 sea


def test_a_movement_attrition_takes_the_stack_province_and_area_from_the_map(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    ruling = recorded(ledger, cid, procedure="M10", inputs={"stack": "ENG-1", "causes": 1},
                      context={"where": "Picardie"})
    assert ruling["from_board"] == {"province": "Picardie", "area": "europe", "ld": eng, "commander_man": 3}
    eng = ld_of(ledger, cid, "ENG-1")  # what the attrition took is gone from the map's stack
    e = refused(ledger, cid, procedure="M10", inputs={"stack": "ENG-1", "causes": 1, "ld": eng + 1},
                context={"where": "Picardie"})
    assert e.field == "inputs.ld" and f"stack ENG-1 has {eng} LD" in e.message


def test_a_land_move_typed_with_more_ld_than_the_moving_stack_is_refused_or_kept(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    move = {"ld": eng + 2, "legs": [{"mp": 2}]}
    ctx = {"where": "Picardie", "stacks": {"moving stack": "ENG-1"}}
    e = refused(ledger, cid, procedure="M9", inputs=move, context=ctx)
    assert e.field == "inputs.ld"
    ruling = recorded(ledger, cid, procedure="M9", inputs=move, context=ctx,
                      overrides={"ld": "two LD recruited in Calais join before the move"})
    assert ruling["overridden"][0]["board"] == eng


def test_a_sea_zone_typed_with_another_difficulty_than_the_board_prints_is_refused(ledger, cid):
    sea = {"nd": 4, "zones_entered": 2, "zones": [{"name": "Manche", "difficulty": 5}, {"name": "Celtique", "difficulty": 3}]}
    e = refused(ledger, cid, procedure="M12", inputs=sea, context={"stacks": {"moving stack": "ENG-F1"}})
    assert e.field == "inputs.zones[1].difficulty" and "sea zone Celtique has difficulty 6" in e.message
    ruling = recorded(ledger, cid, procedure="M12", inputs={"nd": 4, "zones_entered": 1, "zones": [{"name": "Celtique"}]},
                      context={"stacks": {"moving stack": "ENG-F1"}})
    # The moving stack named by its role is the input its losses are placed with (issue 39).
    assert ruling["from_board"] == {"zones[0].difficulty": 6, "commander_man": 2, "stack": "ENG-F1"}


def test_an_override_where_nothing_disagrees_is_refused(ledger, cid):
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}},
                overrides={"fortress_level": "no reason needed"})
    assert e.field == "overrides.fortress_level"


# ------------------------------------------------------------------------------------ recompute's audit


def test_recompute_reports_each_old_ruling_whose_inputs_disagree_with_the_map_before_it(ledger, cid, monkeypatch):
    eng = ld_of(ledger, cid, "ENG-1")
    # An old ruling, recorded before the board was checked (no checks), and one kept by the game master.
    with monkeypatch.context() as m:
        m.setattr(board_facts, "CHECKS", {})
        old = ledger.record_ruling(cid, procedure="M21", inputs={"action": "undermine", "fortress_level": 4,
                                                                       "besieger_ld": eng},
                                   context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}}, actor=GM)
    kept = ledger.record_ruling(cid, procedure="M10", inputs={"stack": "ENG-1", "causes": 1, "ld": eng + 1},
                                context={"where": "Picardie"}, overrides={"ld": "a straggler rejoined"}, actor=GM)
    board: list[dict] = []
    assert ledger.recompute(cid, board=board) == []
    found = {(b["position"], b["procedure"], b["field"], b["typed"], b["board"], b["overridden"]) for b in board}
    assert (old.events[0]["position"], "M21", "fortress_level", 4, 2, None) in found
    assert (kept.events[0]["position"], "M10", "ld", eng + 1, eng, "a straggler rejoined") in found
    # The old siege was resolved with the defaults of what it left out (no port, leader values 0): the audit
    # reports those too. The sample's own rulings agree with the map at their positions.
    assert {b["field"] for b in board if b["position"] == old.events[0]["position"]} == {
        "fortress_level", "map_level", "port", "besieger_leader_fire", "besieger_leader_shock",
        "besieger_leader_siege"}
    assert {b["position"] for b in board} == {old.events[0]["position"], kept.events[0]["position"]}
    one: list[dict] = []
    ledger.recompute(cid, old.events[0]["position"], board=one)
    assert [(b["field"], b["typed"], b["board"]) for b in one][:2] == [("fortress_level", 4, 2), ("map_level", 0, 2)]


# ------------------------------------------------------------------------------- what a person reads


def test_the_turn_page_ruling_show_and_recompute_say_in_words_what_was_kept_against_the_board(settings, ledger, cid):
    from api.web.turn_view import turn_view
    from tests.e2e.test_web import client
    from tests.integration.test_cli import run

    eng = ld_of(ledger, cid, "ENG-1")
    battle = {**BATTLE, "attacker": {**BATTLE["attacker"], "ld": eng + 3}}
    done = ledger.record_ruling(cid, procedure="M19", inputs=battle, context=IN_PICARDIE, actor=GM,
                                overrides={"attacker.ld": "three LD of Burgundian allies joined"})
    position, turn = done.events[0]["position"], ledger.campaign(cid).turn
    kept = (f"attacker ld: typed {eng + 3}, the board says {eng}; "
            "kept by the game master: three LD of Burgundian allies joined")
    view = turn_view(ledger, cid, turn, GM, position=position)
    assert kept in view.ruling["board"]
    assert "defender ld: " in " ".join(view.ruling["board"])  # filled from the map, said so
    dev = settings.model_copy(update={"env": "development", "admin_token": None})
    with client(dev, ledger, client=("127.0.0.1", 50000), base_url="http://127.0.0.1:8000") as c:
        page = c.get(f"/ui/campaigns/sample/turns/{turn}?position={position}")
        shown = c.get(f"/campaigns/sample/rulings/{position}").json()
    assert page.status_code == 200 and 'id="board-notes"' in page.text and kept in page.text
    assert kept in shown["board"]
    ledger.close()
    shown = run(settings, "ruling", "show", "sample", str(position))
    assert shown.exit_code == 0 and f"against the board: {kept}" in " ".join(shown.output.split()), shown.output
    audited = run(settings, "recompute", "sample")
    flat = " ".join(audited.output.split())
    assert audited.exit_code == 0, audited.output
    assert (f"position {position} M19: attacker ld: typed {eng + 3}, the board says {eng} "
            f"(stack ENG-1 has {eng} LD); kept by the game master") in flat
    assert "against the board and the map: 1 input(s) disagree in 1 ruling(s), 1 kept by the game master" in flat


# ------------------------------------------------------------------------- a campaign on a board alone

DENSE = {**BATTLE, "attacker": {**BATTLE["attacker"], "ld": 6}, "defender": {**BATTLE["defender"], "ld": 5}}


def test_a_campaign_created_on_the_board_without_a_scenario_has_its_rulings_checked_over_http(settings, ledger):
    from ledger.domain.campaign import campaign_id
    from tests.e2e.test_commands_http import client

    with client(settings, ledger) as http:
        def error(body):
            r = http.post("/campaigns", json={"slug": "bare", "name": "Bare", **body})
            assert r.status_code == 422, r.text
            return r.json()["error"]["field"], r.json()["error"]["message"]

        assert error({"board": "eu", "countries": ["FRA", "XYZ"]})[0] == "countries[1]"
        assert error({"board": "his", "countries": ["FRA"]})[0] == "board"
        assert error({"board": "eu", "scenario": "eu-1492"})[0] == "board"
        assert error({"countries": ["FRA"], "settings": {"board": "eu"}})[0] == "settings.board"
        r = http.post("/campaigns", json={"slug": "bare", "name": "Bare", "board": "eu", "countries": ["FRA", "ENG"]})
        assert r.status_code == 201, r.text
        assert r.json()["data"]["board"] == "eu"
        assert http.post("/campaigns/bare/turns").status_code == 201
        for phase in ("events", "diplomacy", "incomes"):  # battles and sieges are the military phase's
            assert http.post(f"/campaigns/bare/phases/{phase}/close").status_code == 201
        r = http.post("/campaigns/bare/rulings", json={"procedure": "M19", "inputs": DENSE,
                                                       "context": {"where": "Normandie"}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "inputs.terrain", r.text
        assert "'plain'" in r.json()["error"]["message"] and "Normandie is dense_forest" in r.json()["error"]["message"]
        r = http.post("/campaigns/bare/rulings", json={"procedure": "M21", "inputs": {
            "action": "undermine", "besieger_ld": 4}, "context": {"where": "Picardie"}})
        assert r.status_code == 201, r.text
        assert r.json()["data"]["ruling"]["from_board"] == {"fortress_level": 2, "map_level": 2, "port": True,
                                                            "clear_terrain": True}
    assert ledger.campaign(campaign_id("bare")).settings["board"] == "eu"


def test_the_command_line_creates_a_campaign_on_the_board(settings):
    from tests.integration.test_cli import run

    made = run(settings, "campaign", "create", "bare", "--name", "Bare", "--board", "eu", "--country", "FRA")
    assert made.exit_code == 0 and '"board": "eu"' in made.output, made.output
    wrong = run(settings, "campaign", "create", "bare2", "--name", "Bare", "--board", "eu", "--country", "QQQ")
    assert wrong.exit_code != 0 and "countries[0]" in wrong.output + str(wrong.stderr_bytes or b""), wrong.output


# --------------------------------------------------------------------------- the map facts kept small


def test_the_map_facts_survive_a_cold_load_from_a_snapshot_and_an_older_snapshot_has_none(settings, ledger, cid):
    from ledger.application import Ledger
    from ledger.domain.campaign import CampaignState

    ctx = {"where": "Picardie"}
    while ledger.campaign(cid).version <= settings.snapshot_interval:  # past the snapshot interval
        ledger.record_ruling(cid, procedure="M10", inputs={"stack": "ENG-1", "causes": 1}, context=ctx, actor=GM)
    warm = ledger.campaign(cid)
    assert warm.military["forces"]["ENG-1"]["units"]["LD"] < 6  # attrition took its toll on the map's stack
    cold = Ledger(settings)
    try:
        assert cold.campaign(cid).military == warm.military
    finally:
        cold.close()
    # A snapshot written before the field existed has no forces: the state is folded from the events again.
    older = CampaignState.from_dict({k: v for k, v in warm.to_dict().items() if k != "military"})
    assert older.military is None
    # Nor does one of the shape before the two models were one (leaders by name only): it is replayed too.
    by_name = {"forces": {"ENG-1": {"country": "ENG", "units": {"LD": 6}, "leaders": ["Talbot"]}}, "wars": [],
               "sieges": {}, "fortresses": {}}
    assert CampaignState.from_dict({**warm.to_dict(), "military": by_name}).military is None



def test_a_ruling_placed_off_the_board_or_naming_a_stack_not_on_the_map_is_refused_naming_it(ledger, cid):
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                context={"where": "Picardy", "stacks": {"besieger": "ENG-1"}})
    assert e.field == "context.where" and "'Picardy'" in e.message and "Picardie" in e.message
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                context={"where": "Picardie", "stacks": {"besieger": "ENG-9"}})
    assert e.field == "context.stacks.besieger" and "'ENG-9'" in e.message and "ENG-1" in e.message


# ------------------------------------------------------------------ one model with the map commands


def test_after_a_split_a_siege_is_checked_against_each_stacks_share_and_the_leader_that_went(ledger, cid):
    from ledger.domain import commands as cmd

    eng = ld_of(ledger, cid, "ENG-1")
    ledger.handle(cid, cmd.SplitStack(stack="ENG-1", new_stack="ENG-7", units={"LD": 1}, leaders=["Talbot"]),
                  actor=GM)
    assert (ld_of(ledger, cid, "ENG-1"), ld_of(ledger, cid, "ENG-7")) == (eng - 1, 1)
    # The figure before the split is now stale: refused, naming what the map says since.
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "besieger_ld": eng},
                context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert e.field == "inputs.besieger_ld" and f"stack ENG-1 has {eng - 1} LD" in e.message
    # Talbot left with ENG-7: ENG-1 has no leader, ENG-7 brings his siege value 1.
    alone = recorded(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                     context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert alone["inputs"]["besieger_ld"] == eng - 1 and alone["from_board"]["besieger_leader_siege"] == 0
    led = recorded(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                   context={"where": "Picardie", "stacks": {"besieger": "ENG-7"}})
    assert led["inputs"]["besieger_ld"] == 1 and led["from_board"]["besieger_leader_siege"] == 1


def test_a_leader_arriving_by_a_units_change_brings_the_values_printed_on_his_counter(ledger, cid):
    from ledger.domain import commands as cmd

    ledger.handle(cid, cmd.ChangeStack(stack="ENG-1", units={"LD": 2}, departing=["Talbot"], arriving=[
        cmd.ArrivingLeader(name="Bedford", fire=1, shock=2, manoeuvre=4, siege=3)], reason="reinforcements"),
        actor=GM)
    siege = recorded(ledger, cid, procedure="M21", inputs={"action": "undermine"},
                     context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert siege["from_board"]["besieger_leader_siege"] == 3
    assert siege["inputs"]["besieger_ld"] == ld_of(ledger, cid, "ENG-1")


def test_a_fortress_level_the_game_master_changed_on_the_map_is_the_one_a_siege_is_checked_against(ledger, cid):
    from ledger.domain import commands as cmd

    ledger.handle(cid, cmd.ChangeFortress(province="Picardie", level=4, reason="fortified"), actor=GM)
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "fortress_level": 2},
                context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert e.field == "inputs.fortress_level" and "Picardie's fortress is 4 since it was changed" in e.message
    # And a ruling's change of level is the one the next map command knows as the level before it.
    recorded(ledger, cid, procedure="M21", inputs={"action": "capture"},
             context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert ledger.campaign(cid).military["fortresses"] == {"Picardie": 2}


# ------------------------------------------------------------------ a ruling resolved again (ReworkRuling)


def rework(ledger, cid, position, inputs, **kw):
    from ledger.domain import commands as cmd

    return ledger.handle(cid, cmd.build(cmd.ReworkRuling, position=position, inputs=inputs, reason="disputed", **kw),
                         actor=GM).data["ruling"]


def test_a_battle_resolved_again_is_checked_against_the_map_before_it_not_as_it_stands_now(ledger, cid):
    from ledger.domain import commands as cmd

    eng = ld_of(ledger, cid, "ENG-1")
    battle = ledger.record_ruling(cid, procedure="M19", inputs=BATTLE, context=IN_PICARDIE, actor=GM)
    at = battle.events[0]["position"]
    inputs = battle.data["ruling"]["inputs"]
    # Since the battle, its losses (if any) and two LD of deserters: the map now says less than at the battle.
    ledger.handle(cid, cmd.ChangeStack(stack="ENG-1", units={"LD": -2}, reason="deserters"), actor=GM)
    assert inputs["attacker"]["ld"] == eng and ld_of(ledger, cid, "ENG-1") < eng
    again = rework(ledger, cid, at, {**inputs, "attacker_phasing_not_intercepted": True})
    assert again["inputs"]["attacker"]["ld"] == eng and "overridden" not in again
    with pytest.raises(InvalidInput) as info:
        rework(ledger, cid, at, {**inputs, "attacker": {**inputs["attacker"], "ld": eng + 2}})
    assert info.value.field == "inputs.attacker.ld" and f"stack ENG-1 has {eng} LD" in info.value.message
    kept = rework(ledger, cid, at, {**inputs, "attacker": {**inputs["attacker"], "ld": eng + 2}},
                  overrides={"attacker.ld": "two LD of allies joined"})
    assert kept["overridden"] == [{"field": "attacker.ld", "typed": eng + 2, "board": eng,
                                   "reason": "two LD of allies joined"}]


def test_an_input_kept_against_the_map_stays_kept_when_the_ruling_is_resolved_again_typed_the_same(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    battle = {**BATTLE, "attacker": {**BATTLE["attacker"], "ld": eng + 3}}
    first = ledger.record_ruling(cid, procedure="M19", inputs=battle, context=IN_PICARDIE, actor=GM,
                                 overrides={"attacker.ld": "three LD of Burgundian allies joined"})
    at = first.events[0]["position"]
    inputs = first.data["ruling"]["inputs"]
    again = rework(ledger, cid, at, {**inputs, "attacker_phasing_not_intercepted": True})
    assert again["overridden"] == [{"field": "attacker.ld", "typed": eng + 3, "board": eng,
                                    "reason": "three LD of Burgundian allies joined"}]
    # Typed otherwise, the old reason no longer covers it.
    with pytest.raises(InvalidInput) as info:
        rework(ledger, cid, at, {**inputs, "attacker": {**inputs["attacker"], "ld": eng + 4}})
    assert info.value.field == "inputs.attacker.ld"


def test_the_map_before_a_disputed_ruling_is_folded_from_the_snapshot_before_it_not_from_the_start(
        settings, ledger, cid, monkeypatch):
    from ledger.domain.campaign import project_campaign

    interval = settings.snapshot_interval
    while ledger.campaign(cid).version <= 2 * interval + 2:
        ledger.record_ruling(cid, procedure="M10", inputs={"stack": "ENG-1", "causes": 1},
                             context={"where": "Picardie"}, actor=GM)
    read = []
    get = ledger.events.get
    monkeypatch.setattr(ledger.events, "get", lambda *a, **kw: read.append(kw) or get(*a, **kw))
    for position in (interval - 1, interval, interval + 1, 2 * interval + 2):
        whole = project_campaign(None, get(cid, lte=position))
        assert ledger.state_at(cid, position).to_dict() == whole.to_dict()
    # Past the first snapshot, the fold starts at the latest snapshot at or before the position.
    assert [kw.get("gt") for kw in read] == [None, interval, interval, 2 * interval]


# ------------------------------------------------------------------ corrections followed by the write side


def correct(ledger, cid, position, replacement):
    from ledger.domain import commands as cmd

    ledger.handle(cid, cmd.RecordCorrection(corrects=position, reason="disputed", replacement=replacement), actor=GM)


def test_a_battles_losses_restated_then_struck_are_what_the_next_ruling_is_checked_against(ledger, cid):
    eng = ld_of(ledger, cid, "ENG-1")
    battle = ledger.record_ruling(cid, procedure="M19", inputs=BATTLE, context=IN_PICARDIE, actor=GM)
    at = battle.events[0]["position"]
    # The game master restates the battle's effects: ENG-1 lost 2 LD, whatever the ruling said.
    correct(ledger, cid, at, {"ruling": {"effects": [{"kind": "ld_lost", "target": "attacker", "amount": 2}]}})
    assert ld_of(ledger, cid, "ENG-1") == eng - 2
    e = refused(ledger, cid, procedure="M21", inputs={"action": "undermine", "besieger_ld": eng},
                context={"where": "Picardie", "stacks": {"besieger": "ENG-1"}})
    assert f"stack ENG-1 has {eng - 2} LD" in e.message
    correct(ledger, cid, at, None)  # the battle struck: no losses at all
    assert ld_of(ledger, cid, "ENG-1") == eng


def test_a_correction_of_a_change_made_before_the_stacks_latest_is_not_followed(ledger, cid):
    from ledger.domain import commands as cmd

    eng = ld_of(ledger, cid, "ENG-1")
    first = ledger.handle(cid, cmd.ChangeStack(stack="ENG-1", units={"LD": -2}, reason="deserters"), actor=GM)
    ledger.handle(cid, cmd.ChangeStack(stack="ENG-1", units={"LD": -1}, reason="disease"), actor=GM)
    correct(ledger, cid, first.events[-1]["position"], None)
    # The map view shows eng - 1; the write side keeps eng - 3 until the game master restates it.
    assert ld_of(ledger, cid, "ENG-1") == eng - 3


def test_a_fortress_level_war_and_siege_corrected_are_put_back_as_the_correction_says(settings, ledger, cid):
    from ledger.application import Ledger
    from ledger.domain import commands as cmd

    level = ledger.handle(cid, cmd.ChangeFortress(province="Picardie", level=4, reason="fortified"), actor=GM)
    correct(ledger, cid, level.events[-1]["position"], {"level": 3})
    assert ledger.campaign(cid).military["fortresses"] == {"Picardie": 3}
    correct(ledger, cid, level.events[-1]["position"], None)
    assert ledger.campaign(cid).military["fortresses"] == {}
    wars = ledger.campaign(cid).military["wars"]
    assert wars, "the sample's war"
    peace = ledger.handle(cid, cmd.MakePeace(attackers=wars[0][0], defenders=wars[0][1], reason="treaty",
        context=cmd.Context(out_of_sequence="peace in the military phase: the war check is under test, not the phase")), actor=GM)
    assert ledger.campaign(cid).military["wars"] == wars[1:]
    correct(ledger, cid, peace.events[-1]["position"], None)  # no treaty after all
    assert ledger.campaign(cid).military["wars"] == wars
    cold = Ledger(settings)
    try:  # the corrections folded again from the events: the same state
        assert cold.campaign(cid).military == ledger.campaign(cid).military
    finally:
        cold.close()
