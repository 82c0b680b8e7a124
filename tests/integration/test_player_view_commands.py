"""A player's commands are judged against the map as they see it (issue 33, ledger/domain/sight.py).

A reader learns nothing hidden from them through an answer: a player's answer to a command naming a stack,
leader, siege or move hidden from them is, status and words, the answer in a twin history where the hidden
thing has another name, place or size, or does not exist. The game master keeps today's refusals; what only
the game master's map contradicts is recorded as the player's view accepts it and held on the game master's
map (listed in ``CampaignState.held``), never applied over what it holds. On both stores (the ``ledger``
fixture).

The sample scenario: ENG-1 (Talbot, 6 LD) in Kent, the fleet ENG-F1 (Howard) in Manche, FRA-1 (La Trémoille,
8 LD) in Picardie; the player is England's.
"""

from __future__ import annotations

import itertools
from typing import Any
from uuid import UUID

import orjson
import hypothesis
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from ledger.application import Actor, Ledger
from ledger.config import Settings
from ledger.domain import commands as cmd
from ledger.domain import sight
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import LedgerError
from ledger.domain.forces import names, unit_count
from ledger.sample import GM, reach_phase
from ledger.scenario import import_scenario, load_text
from projections import map as map_model
from projections.read import records, visible

ENGLAND = Actor("alice", "player", "ENG")
GM_ONLY = {"scope": "gm"}
slugs = itertools.count()

Hidden = tuple[type[cmd.Command], dict[str, Any]]
SECRET: Hidden = (cmd.RaiseStack, {"stack": "FRA-SECRET", "country": "FRA", "location": "Ile-de-France",
                                   "units": {"LD": 3}, "leaders": [{"name": "Bayard"}]})
# The twin's hidden stack: another name, place, size and leader.
OTHER: Hidden = (cmd.RaiseStack, {"stack": "FRA-HIDDEN", "country": "FRA", "location": "Caux", "units": {"LD": 5},
                                  "leaders": [{"name": "Gié"}]})


def campaign(ledger: Ledger, *hidden: Hidden, public: tuple[Hidden, ...] = ()) -> UUID:
    """The sample scenario, players allowed to move and roll, turn 1 open, then the game master's ``public``
    events and the ``hidden`` ones (seen by the game master only)."""
    slug = f"view-{next(slugs)}"
    import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    cid = campaign_id(slug)
    ledger.handle(cid, cmd.ChangeSettings(settings={"players_may_move": True, "players_may_roll": True},
                                          reason="players command their own stacks"), actor=GM)
    ledger.open_turn(cid, actor=GM)
    reach_phase(ledger, cid, "military")  # the players' moves, sieges and rulings are the military phase's
    for kind, fields in public:
        ledger.submit(cid, kind, actor=GM, **fields)
    for kind, fields in hidden:
        ledger.submit(cid, kind, actor=GM, vis=GM_ONLY, **fields)
    return cid


def answer(ledger: Ledger, cid: UUID, command: cmd.Command, actor: Actor = ENGLAND) -> tuple[Any, ...]:
    """What the caller is told: a refusal's status, words, field and rule (nothing appended), or the data of
    what was recorded, as the HTTP answer carries them (positions and hashes aside: they count every event)."""
    before = ledger.campaign(cid).version
    try:
        done = ledger.handle(cid, command, actor=actor)
    except LedgerError as e:
        assert ledger.campaign(cid).version == before
        return e.status, e.message, e.field, e.rule
    return 201, orjson.dumps(done.data, option=orjson.OPT_SORT_KEYS)


def twins(ledger: Ledger, command: cmd.Command, hidden: list[Hidden], other: list[Hidden],
          public: tuple[Hidden, ...] = ()) -> tuple[UUID, tuple[Any, ...]]:
    """The player's answer in the history with ``hidden``, asserted equal to the answers in its twins (the
    hidden events replaced by ``other``; none at all); the campaign with ``hidden`` and that answer."""
    cid = campaign(ledger, *hidden, public=public)
    said = answer(ledger, cid, command)
    assert answer(ledger, campaign(ledger, *other, public=public), command) == said
    assert answer(ledger, campaign(ledger, public=public), command) == said
    return cid, said


def held(ledger: Ledger, cid: UUID) -> list[str]:
    return [h["why"] for h in sorted(ledger.campaign(cid).held.values(), key=lambda h: h["position"])]


def test_a_hidden_stack_is_answered_as_one_that_does_not_exist(ledger):
    for command in (cmd.MoveStack(stack="FRA-SECRET", origin="Ile-de-France", destination="Caux"),
                    cmd.SplitStack(stack="FRA-SECRET", new_stack="FRA-9", units={"LD": 1}),
                    cmd.MergeStacks(stack="ENG-1", merged="FRA-SECRET"),
                    cmd.ChangeStack(stack="FRA-SECRET", units={"LD": 1}, reason="levy"),
                    cmd.StartSiege(province="Ile-de-France", besiegers=["FRA-SECRET"])):
        cid, said = twins(ledger, command, [SECRET], [OTHER])
        assert said[0] == 422 and said[1].startswith("unknown stack 'FRA-SECRET'")
    # The game master is told what their map holds, as before.
    gm = answer(ledger, cid, cmd.MoveStack(stack="FRA-SECRET", origin="Caux", destination="Picardie"), GM)
    assert gm[:3] == (409, "FRA-SECRET is in Ile-de-France, not in Caux (a game master may force the move with "
                           "a forced_reason)", "origin")


def test_a_hidden_stack_of_another_country_is_not_named_with_its_country(ledger):
    """Before: "FRA-SECRET is a stack of FRA, not of ENG" (403)."""
    command = cmd.MoveStack(stack="FRA-SECRET", origin="Ile-de-France", destination="Caux")
    cid, said = twins(ledger, command, [SECRET], [OTHER])
    assert said == (422, "unknown stack 'FRA-SECRET'", "stack", None)
    # A stack the player sees is still refused as another country's.
    assert answer(ledger, cid, cmd.MoveStack(stack="FRA-1", origin="Picardie", destination="Caux"))[:2] == (
        403, "FRA-1 is a stack of FRA, not of ENG: a player commands their own country's stacks")


def test_a_did_you_mean_names_only_the_stacks_the_player_may_see(ledger):
    command = cmd.MoveStack(stack="FRA-SECRT", origin="Ile-de-France", destination="Caux")
    cid, said = twins(ledger, command, [SECRET], [(cmd.RaiseStack, {**OTHER[1], "stack": "FRA-SECRT2"})])
    assert said[0] == 422 and "FRA-SECRET" not in said[1]
    assert answer(ledger, cid, command, GM)[1] == "unknown stack 'FRA-SECRT'; did you mean 'FRA-SECRET'?"


def test_a_new_stack_named_as_a_hidden_one_is_recorded_and_held_for_the_game_master(ledger):
    """Before: "FRA-SECRET is already a stack on the map" (409)."""
    command = cmd.SplitStack(stack="ENG-1", new_stack="FRA-SECRET", units={"LD": 2}, reason="detachment")
    cid, said = twins(ledger, command, [SECRET], [OTHER])
    assert said == (201, b'{"location":"Kent"}')
    assert held(ledger, cid) == ["FRA-SECRET already names a stack on the map"]
    state = ledger.campaign(cid)  # the game master's map takes none of it: their stack stays as it was
    assert state.military["forces"]["FRA-SECRET"]["country"] == "FRA"
    assert state.military["forces"]["FRA-SECRET"]["units"] == {"LD": 3}
    assert state.military["forces"]["ENG-1"]["units"] == {"LD": 6}
    assert state.stacks["FRA-SECRET"][0] == "Ile-de-France"
    # The player's own view has their new stack, and commands it.
    assert answer(ledger, cid, cmd.MoveStack(stack="FRA-SECRET", origin="Kent", destination="Wessex"))[0] == 201
    gm = answer(ledger, cid, cmd.SplitStack(stack="ENG-1", new_stack="FRA-SECRET", units={"LD": 2}), GM)
    assert gm[:3] == (409, "FRA-SECRET is already a stack on the map: choose another id", "new_stack")


def test_a_leader_hidden_on_the_map_is_answered_as_one_who_is_not_and_his_arrival_is_held(ledger):
    """Before: "Bayard is already on the map" (409)."""
    command = cmd.ChangeStack(stack="ENG-1", arriving=[{"name": "Bayard", "manoeuvre": 2}], reason="a new general")
    cid, said = twins(ledger, command, [SECRET], [OTHER])
    assert said == (201, b'{"turn":1}')
    assert held(ledger, cid) == ["Bayard is already on the map"]
    forces = ledger.campaign(cid).military["forces"]
    assert [x["name"] for x in forces["ENG-1"]["leaders"]] == ["Talbot"]
    assert [x["name"] for x in forces["FRA-SECRET"]["leaders"]] == ["Bayard"]
    gm = answer(ledger, cid, cmd.ChangeStack(stack="ENG-1", arriving=[{"name": "Bayard"}], reason="r"), GM)
    assert gm[:3] == (409, "Bayard is already on the map", "arriving[0].name")


def test_a_hidden_siege_is_answered_as_none_and_the_players_siege_is_held(ledger):
    """Before: "Ile-de-France is already besieged by FRA-SECRET" (409)."""
    english = (cmd.RaiseStack, {"stack": "ENG-2", "country": "ENG", "location": "Ile-de-France", "units": {"LD": 2}})
    siege = (cmd.StartSiege, {"province": "Ile-de-France", "besiegers": ["FRA-SECRET"]})
    elsewhere = (cmd.StartSiege, {"province": "Caux", "besiegers": ["FRA-HIDDEN"]})
    command = cmd.StartSiege(province="Ile-de-France", besiegers=["ENG-2"], reason="investment of Paris")
    cid, said = twins(ledger, command, [SECRET, siege], [OTHER, elsewhere], public=(english,))
    assert said == (201, b"{}")
    assert held(ledger, cid) == ["Ile-de-France is already besieged by FRA-SECRET"]
    assert ledger.campaign(cid).military["sieges"] == {"Ile-de-France": ["FRA-SECRET"]}
    gm = answer(ledger, cid, cmd.StartSiege(province="Ile-de-France", besiegers=["ENG-2"]), GM)
    assert gm[:3] == (409, "Ile-de-France is already besieged by FRA-SECRET", "province")


def test_a_ruling_naming_a_hidden_stack_is_answered_as_for_a_stack_that_does_not_exist(ledger):
    """Before: "defender.ld: typed 1, but the map says stack FRA-SECRET has 3 LD" (422)."""
    battle = _battle("FRA-SECRET")
    cid, said = twins(ledger, battle, [SECRET], [OTHER])
    assert said == (422, "unknown stack 'FRA-SECRET'", "context.stacks.defender", None)
    gm = answer(ledger, cid, battle, GM)
    assert gm[:2] == (422, "defender.ld: typed 1, but the map says stack FRA-SECRET has 3 LD (keep it with "
                           "overrides.defender.ld and a reason; also defender.leader_man)")


def test_a_ruling_is_checked_against_the_size_the_player_sees_not_a_hidden_one(ledger):
    def levy(n: int) -> Hidden:
        return cmd.ChangeStack, {"stack": "FRA-1", "units": {"LD": n}, "reason": "hidden levy"}

    battle = _battle("FRA-1")
    cid, said = twins(ledger, battle, [levy(3)], [levy(5)])
    assert said[:3] == (422, "defender.ld: typed 1, but the map says stack FRA-1 has 8 LD (keep it with "
                             "overrides.defender.ld and a reason; also defender.leader_man)", "inputs.defender.ld")
    assert "11 LD" in answer(ledger, cid, battle, GM)[1]


def _battle(defender: str) -> cmd.RecordRuling:
    """A battle the English player records (server dice), naming ``defender``'s stack, its LD typed as 1."""
    side = {"technology": "MED", "army_class": "iv", "class_size": 2}
    return cmd.build(cmd.RecordRuling, procedure="M19", context={"where": "Kent", "stacks": {
        "attacker": "ENG-1", "defender": defender}}, inputs={
        "attacker": {**side, "technology": "MUS", "ld": 6, "leader_man": 3, "country": "ENG"},
        "defender": {**side, "ld": 1, "leader_man": 1, "country": "FRA"},
        "terrain": "plain", "period": 2, "attacker_phasing_not_intercepted": False})


def test_a_hidden_move_of_the_players_own_stack_is_not_told_and_their_move_is_held(ledger):
    """Before: "ENG-F1 is in Nord, not in Manche" (409), after the game master moved it unseen."""
    def sail(to: str) -> Hidden:
        return cmd.MoveStack, {"stack": "ENG-F1", "origin": "Manche", "destination": to, "reason": "unseen"}

    command = cmd.MoveStack(stack="ENG-F1", origin="Manche", destination="Celtique", reason="to sea")
    cid, said = twins(ledger, command, [sail("Nord")], [sail("Cornwall")])
    assert said == (201, b'{"forced":null,"path":["Manche","Celtique"]}')
    assert held(ledger, cid) == ["ENG-F1 is in Nord, not in Manche"]
    state = ledger.campaign(cid)
    assert state.stacks["ENG-F1"][0] == "Nord"
    # Named from where it truly is, the player is told where they last saw it, in every twin.
    from_nord = cmd.MoveStack(stack="ENG-F1", origin="Nord", destination="Kent", reason="r")
    assert answer(ledger, campaign(ledger, sail("Nord")), from_nord) == \
        answer(ledger, campaign(ledger), from_nord) == \
        (409, "ENG-F1 is in Manche, not in Nord (a game master may force the move with a forced_reason)", "origin",
         None)


def test_a_correction_of_a_held_command_takes_it_off_the_game_masters_list(ledger):
    command = cmd.MoveStack(stack="ENG-F1", origin="Manche", destination="Celtique", reason="to sea")
    cid = campaign(ledger, (cmd.MoveStack, {"stack": "ENG-F1", "origin": "Manche", "destination": "Nord",
                                            "reason": "unseen"}))
    ledger.handle(cid, command, actor=ENGLAND)
    [position] = [h["position"] for h in ledger.campaign(cid).held.values()]
    # The game master resolves it on their map (the fleet sails from where it is), then strikes it from the list
    # with a correction the player does not see.
    ledger.submit(cid, cmd.MoveStack, stack="ENG-F1", origin="Nord", destination="Celtique", reason="as ordered",
                  vis=GM_ONLY, actor=GM)
    ledger.submit(cid, cmd.RecordCorrection, corrects=position, reason="sailed from Nord", vis=GM_ONLY, actor=GM)
    state = ledger.campaign(cid)
    assert state.held == {} and state.stacks["ENG-F1"][0] == "Celtique"
    assert state.views["country:ENG"]["stacks"]["ENG-F1"][0] == "Celtique"


def test_the_maps_of_each_audience_and_what_is_held_survive_a_snapshot_and_a_cold_load(settings, ledger):
    cid = campaign(ledger, SECRET)
    ledger.handle(cid, cmd.SplitStack(stack="ENG-1", new_stack="FRA-SECRET", units={"LD": 2}), actor=ENGLAND)
    for i in range(settings.snapshot_interval):  # a snapshot is written on the way
        ledger.submit(cid, cmd.PlaceMarker, province="Kent", marker="Pillage-", reason=f"foraging {i}", actor=GM)
    state = ledger.campaign(cid)
    assert set(state.views) == {"public", "country:ENG", "country:FRA"} and state.held
    cold = Ledger(settings)
    try:
        assert cold.check_snapshot(cid)[1] is None  # the snapshot is used
        again = cold.campaign(cid)
        assert (again.views, again.held, again.stacks, again.military) == \
            (state.views, state.held, state.stacks, state.military)
    finally:
        cold.close()


# ----------------------------------------------------------------- properties, on SQLite (hypothesis)

STACK_IDS = ("ENG-1", "ENG-2", "ENG-3", "ENG-F1", "FRA-1", "FRA-2", "FRA-3")
PLACES = ("Kent", "Wessex", "Manche", "Picardie", "Caux", "Ile-de-France", "Normandie", "Nord")
SAMPLE = load_text("sample")
VISIBILITIES = ({"scope": "public"}, GM_ONLY, {"scope": "countries", "countries": ["FRA"]},
                {"scope": "countries", "countries": ["ENG"]})
KINDS = ("raise", "raise", "move", "split", "merge", "change", "siege")
# (who: "gm" or a player's country, kind, a stack, another stack, a place, a number, a visibility, which of the
# stacks the caller sees to name instead of the stacks drawn: 0 for none)
order = st.tuples(st.sampled_from(("gm", "gm", "ENG", "FRA")), st.sampled_from(KINDS), st.sampled_from(STACK_IDS),
                  st.sampled_from(STACK_IDS), st.sampled_from(PLACES), st.integers(-4, 4),
                  st.sampled_from(VISIBILITIES), st.integers(0, 5))
hidden_order = order.map(lambda o: ("gm", *o[1:6], GM_ONLY, o[7]))
english_order = order.map(lambda o: ("ENG", *o[1:]))


def neighbours(place: str) -> list[str]:
    from ledger.scenario import normalise, parse

    pairs = normalise(parse(SAMPLE)[0])["adjacency"]
    return sorted({b for pair in pairs for a, b in (pair, pair[::-1]) if a == place})


def command_of(state: Any, who: str, kind: str, a: str, b: str, place: str, n: int, vis: dict[str, Any], k: int
               ) -> tuple[Actor, cmd.Command]:
    """An order as the game master (moves forced) or a player (a move from where they see the stack, to a
    neighbour; never a new stack, which a player may not raise) records it; some are refused, which appends
    nothing."""
    actor = GM if who == "gm" else Actor(who.lower(), "player", who)
    stacks, military = sight.seen(state, actor)
    if who != "gm":  # a player commands their own country's stacks (mostly: others are refused)
        a, b = who + a[3:], who + b[3:]
        kind = "split" if kind == "raise" else kind
    named = sorted(sid for sid, f in military["forces"].items() if who == "gm" or f["country"] == who)
    if k and named and kind != "raise":
        a, b = named[k % len(named)], (named[(k + 1) % len(named)] if kind == "merge" else b)
    at = stacks.get(a, [place])[0]  # where the caller sees the stack
    fields: dict[str, Any] = {"visibility": vis}
    if kind == "raise":
        return actor, cmd.build(cmd.RaiseStack, stack=a, country=a[:3], location=place, units={"LD": abs(n) + 1},
                                **fields)
    if kind == "move":
        if who == "gm":
            return actor, cmd.build(cmd.MoveStack, stack=a, origin=at, destination=place, forced_reason="r", **fields)
        return actor, cmd.build(cmd.MoveStack, stack=a, origin=at, destination=(neighbours(at) or [place])[n % 2],
                                **fields)
    if kind == "split":
        return actor, cmd.build(cmd.SplitStack, stack=a, new_stack=b, units={"LD": abs(n) % 3 + 1}, **fields)
    if kind == "merge":
        return actor, cmd.build(cmd.MergeStacks, stack=a, merged=b, **fields)
    if kind == "change":
        return actor, cmd.build(cmd.ChangeStack, stack=a, units={"LD": n or 1}, reason="r", **fields)
    return actor, cmd.build(cmd.StartSiege, province=at if n % 2 else place, besiegers=[a], **fields)


def play(ledger: Ledger, cid: UUID, orders: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The answer to each order in turn (a command that does not validate is answered as over HTTP)."""
    said = []
    for o in orders:
        try:
            actor, command = command_of(ledger.campaign(cid), *o)
        except LedgerError as e:
            said.append((e.status, e.message, e.field, e.rule))
            continue
        said.append(answer(ledger, cid, command, actor))
    return said


def stacks_as_seen(stacks: dict[str, Any], forces: dict[str, Any]) -> dict[str, Any]:
    return {sid: (forces[sid]["country"], at[0], {u: unit_count(n) for u, n in forces[sid]["units"].items()
                                                   if unit_count(n)}, names(forces[sid]))
            for sid, at in stacks.items()}


def stacks_read(doc: dict[str, Any]) -> dict[str, Any]:
    return {sid: (s["country"], s["location"], {u: unit_count(n) for u, n in s["units"].items() if unit_count(n)},
                  s["leaders"]) for sid, s in doc["stacks"].items()}


@hypothesis.settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(orders=st.lists(order, max_size=20))
def test_each_audiences_map_on_the_write_side_is_the_map_it_reads(tmp_path, orders):
    """Whatever the game master records and for whom, and whatever the players command on what they see, the
    map each audience's commands are judged against (its copy, or the game master's) has the stacks, places,
    units and leaders of the map it reads (the read side's fold of the events it may see)."""
    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    try:
        cid = campaign(ledger)
        said = play(ledger, cid, orders)
        state = ledger.campaign(cid)
        hypothesis.event(f"{len(state.views)} audiences with a map of their own")
        hypothesis.event(f"held: {bool(state.held)}")
        hypothesis.event(f"recorded: {sum(a[0] == 201 for a in said)}")
        for actor in (GM, ENGLAND, Actor("bruno", "player", "FRA"), Actor("olga", "observer")):
            stacks, military = sight.seen(state, actor)
            assert set(stacks) == set(military["forces"])
            doc = map_model.empty()
            for r in visible(actor, records(ledger, cid), state.revealed):
                map_model.apply(doc, r)
            assert stacks_as_seen(stacks, military["forces"]) == stacks_read(doc), (actor.role, actor.country)
    finally:
        ledger.close()


@hypothesis.settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hidden=st.lists(hidden_order, min_size=1, max_size=8), mine=st.lists(english_order, min_size=1, max_size=6))
def test_a_players_answers_are_those_of_the_history_without_what_is_hidden_from_them(tmp_path, hidden, mine):
    """Two histories that differ only in the game master's unseen stack commands give the English player the
    same answers, refusals and records alike, command after command."""
    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    try:
        with_hidden = campaign(ledger)
        play(ledger, with_hidden, hidden)
        assert play(ledger, with_hidden, mine) == play(ledger, campaign(ledger), mine)
    finally:
        ledger.close()
