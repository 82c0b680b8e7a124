"""Campaigns and turns: create, set up from a scenario, change settings, open and close turns."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ledger import dice as dicelib
from ledger.board import BoardError, load_board
from ledger.domain import commands as cmd
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.economy import board_income, income
from ledger import scenario as scenarios
from ledger.rules.core import RulesError, check_rules_options, get_ruleset
from ledger.usecases import start
from ledger.usecases.registry import handles

if TYPE_CHECKING:
    from ledger.draft import Draft

#: Settings a game master may change after creation, and the type of their values. The budget reads its
#: own settings (period_start_turns, ers_variants) from CampaignCreated: changing them would rewrite past
#: sheets, so they stay fixed.
CHANGEABLE: dict[str, type] = {"players_may_roll": bool, "players_may_move": bool, "rules_options": dict}
#: Who sees a treasury entry recorded without a visibility: its country (and the GMs), or everyone.
ERS_VISIBILITIES = ("country", "public")


def _rules_options(rs: Any, options: Any) -> dict[str, Any]:
    """The game master's choices of ruleset options, checked against the ruleset (422 naming the option): a
    procedure's options (``M21.artillery_source``) and the readings of the income lines (``B31.payer``,
    ledger/economy/income.py)."""
    readings = board_income.readings(rs.id) if rs.id == "eu" else {}
    chosen = {k: v for k, v in options.items() if k in readings} if isinstance(options, dict) else {}
    rest = {k: v for k, v in options.items() if k not in chosen} if isinstance(options, dict) else options
    try:
        return {**check_rules_options(rs, rest), **income.check_readings(rs.id, chosen)}
    except RulesError as e:
        raise InvalidInput(str(e), field=e.field) from None


@handles(cmd.CreateCampaign, creating=True)
def create_campaign(d: Draft, c: cmd.CreateCampaign) -> dict[str, Any]:
    if d.state.version:
        raise StateConflict(f"campaign {c.slug!r} already exists", field="slug")
    try:
        rs = get_ruleset(c.ruleset)
    except RulesError as e:
        raise InvalidInput(str(e), field="ruleset") from None
    # Treasury entries recorded without a visibility are the owning country's (and the GMs') unless the
    # campaign is created with ers_visibility "public": written into the event, so it never depends on a default.
    settings = {"ers_visibility": "country", **c.settings}
    if settings["ers_visibility"] not in ERS_VISIBILITIES:
        raise InvalidInput(f"ers_visibility {settings['ers_visibility']!r}: one of {', '.join(ERS_VISIBILITIES)}",
                           field="settings.ers_visibility")
    if "rules_options" in settings:
        settings["rules_options"] = _rules_options(rs, settings["rules_options"])
    d.context["turn"] = None
    countries, players = list(c.countries), dict(c.players)
    shipped = scenarios.shipped(c.scenario) if c.scenario is not None else None
    if c.board is not None or "board" in settings:
        settings = {**settings, **_board(c, rs.id, shipped is not None)}
    if shipped is not None:
        if shipped.doc["ruleset"] != rs.id:
            raise InvalidInput(f"scenario {c.scenario!r} is for ruleset {shipped.doc['ruleset']!r}, not {rs.id!r}",
                               field="scenario")
        countries = [x["code"] for x in shipped.doc["countries"]]
        for country in players:
            if country not in countries:
                raise InvalidInput(f"player for country {country!r}, not one of scenario {c.scenario!r}",
                                   field="players")
        players = {**{x["code"]: x["player"] for x in shipped.doc["countries"] if x.get("player")}, **players}
    d.add(ev.CampaignCreated, name=c.name, slug=c.slug, ruleset=rs.id, ruleset_version=rs.version,
          countries=countries, players=players, game_masters=list(c.game_masters or [d.actor.id]),
          settings=settings)
    if shipped is None:
        return {"id": str(d.state.id), "slug": c.slug, **({"board": c.board} if c.board else {})}
    # Set up in the same append: a campaign created from a scenario never exists without its map.
    d.add(ev.ScenarioImported, name=shipped.name, source=shipped.source, sha256=shipped.sha256,
          scenario=copy.deepcopy(shipped.doc))
    if c.start:  # the economic facts its placement gives
        start.record(d, rs.id, shipped.doc.get("start"))
    return {"id": str(d.state.id), "slug": c.slug, "scenario": shipped.name, "board": shipped.doc.get("board"),
            "provinces": len(shipped.doc["provinces"]), "sea_zones": len(shipped.doc["sea_zones"])}


def _board(c: cmd.CreateCampaign, ruleset: str, scenario: bool) -> dict[str, str]:
    """A campaign on a board without a scenario: the board is its ruleset's, each country one of its own.
    Recorded in the campaign's settings, where the ruling checks read it (ledger/usecases/board_rulings.py)."""
    if "board" in c.settings:
        raise InvalidInput("the board is a field of its own, not a setting", field="settings.board")
    if scenario:
        raise InvalidInput("the scenario names its board: give either a scenario or a board", field="board")
    if c.board != ruleset:
        raise InvalidInput(f"board {c.board!r} is not ruleset {ruleset!r}'s board", field="board")
    try:
        board = load_board(c.board)
    except BoardError as e:
        raise InvalidInput(e.message, field="board") from None
    for i, country in enumerate(c.countries):
        if country not in board.countries:
            raise InvalidInput(f"country {country!r} is not on board {c.board!r}", field=f"countries[{i}]")
    return {"board": c.board}


@handles(cmd.ImportScenario)
def import_scenario(d: Draft, c: cmd.ImportScenario) -> dict[str, Any]:
    if d.state.version != 1:
        raise StateConflict("a scenario is imported right after the campaign's creation", field="scenario")
    d.context["turn"] = None
    d.add(ev.ScenarioImported, name=c.name, source=c.source, sha256=c.sha256, scenario=dict(c.scenario))
    start.record(d, d.state.ruleset or "eu", c.scenario.get("start"))
    s = c.scenario
    return {"scenario": c.name, "provinces": len(s.get("provinces", ())), "sea_zones": len(s.get("sea_zones", ())),
            "stacks": len(s.get("stacks", ()))}


@handles(cmd.ChangeSettings)
def change_settings(d: Draft, c: cmd.ChangeSettings) -> dict[str, Any]:
    changed = c.changed()
    if "rules_options" in changed:  # the options named change; the others keep the value chosen before
        chosen = _rules_options(get_ruleset(d.state.ruleset), changed["rules_options"])
        changed["rules_options"] = {**d.state.settings.get("rules_options", {}), **chosen}
    previous = {name: d.state.settings.get(name) for name in changed}
    if all(previous[name] == value for name, value in changed.items()):
        said = ", ".join(f"{name} is already {value}" for name, value in changed.items())
        raise StateConflict(f"nothing to change: {said}", field="settings")
    d.add(ev.CampaignSettingsChanged, changed=changed, previous=previous, reason=c.reason)
    return {"settings": {**d.state.settings, **changed}}


@handles(cmd.OpenTurn)
def open_turn(d: Draft, c: cmd.OpenTurn) -> dict[str, Any]:
    if d.state.turn_open:
        raise StateConflict(f"turn {d.state.turn} is still open: close it first", field="turn")
    turn = d.state.turn + 1
    seed = dicelib.new_seed()
    d.context["turn"] = turn
    # The public seed; every other audience's is drawn at its first roll (Draft.dice_for).
    d.seal_seed(turn, dicelib.PUBLIC, seed)
    committed = dicelib.commitment(seed)
    d.add(ev.TurnOpened, turn=turn, commitment=committed, dice_scheme=dicelib.PER_AUDIENCE)
    return {"turn": turn, "commitment": committed}


@handles(cmd.CloseTurn)
def close_turn(d: Draft, c: cmd.CloseTurn) -> dict[str, Any]:
    turn = d.state.require_open_turn()
    if turn != c.turn:
        raise StateConflict(f"turn {c.turn} is not the open turn (turn {turn} is)", field="turn")
    s = d.state
    if s.dice_scheme == dicelib.SINGLE_SEED:  # a turn opened before audiences: its one seed, as then
        seed = d.ledger.turn_seed(s.id, turn)
        # Every field given: a default the event class fills in would be stored without being hashed.
        d.add(ev.TurnClosed, turn=turn, seed=seed.hex(), rolls=s.next_roll, dice_scheme=dicelib.SINGLE_SEED)
        return {"turn": turn, "seed": seed.hex(), "rolls": s.next_roll}
    # Each hidden audience's seed is revealed to that audience only: a player never receives another's seed.
    for audience, committed in sorted(s.seeds.items()):
        if audience != dicelib.PUBLIC:
            hidden = d.ledger.turn_seed(s.id, turn, audience, committed)
            d.add(ev.DiceSeedRevealed, dicelib.audience_visibility(audience), turn=turn, audience=audience,
                  seed=hidden.hex(), rolls=s.rolls.get(audience, 0))
    seed = d.ledger.turn_seed(s.id, turn, dicelib.PUBLIC, s.seeds[dicelib.PUBLIC])
    rolls = s.rolls.get(dicelib.PUBLIC, 0)
    d.add(ev.TurnClosed, turn=turn, seed=seed.hex(), rolls=rolls, dice_scheme=dicelib.PER_AUDIENCE)
    return {"turn": turn, "seed": seed.hex(), "rolls": rolls}
