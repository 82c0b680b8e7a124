"""The game master's forms of the web page: a campaign's creation, its turns and phases, treasury entries and
their corrections, tokens and settings, each read back into the command model the HTTP routes and the CLI
build (``ledger/domain/commands.py``) and recorded through ``Ledger.handle``, as theirs are.

A form's fields carry the page's names (``ers_visibility``, ``amount``); an error names an API field
(``settings.ers_visibility``, ``replacement.amount``, ``countries[2]``), which ``form_field`` maps to the form
field shown beside it, and its message is said again in the page's words (``said``): no API field name, no
regular expression, no pydantic heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, get_args

from api.web.map_forms import visibility_of
from ledger import scenario as scenarios
from ledger.access import may_write
from ledger.application import Actor
from ledger.domain import commands as cmd
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import InvalidInput, LedgerError, plain
from ledger.economy.milestones import PHASES, TITLES


@dataclass(frozen=True)
class Form:
    title: str
    action: str  # its name in ledger/access.py's WRITES: the page offers the form by it
    fields: tuple[str, ...]  # the form fields an error may be shown beside (else above the form)


#: The forms of the game master's desk (``/ui/campaigns/{c}/gm``), of the tokens page and of a new campaign.
FORMS: dict[str, Form] = {
    "open-turn": Form("Open the next turn", "open_turn", ()),
    "close-phase": Form("Close the phase", "close_phase", ("phase",)),
    "close-turn": Form("Close the turn", "close_turn", ("turn",)),
    "treasury": Form("Record a treasury entry", "record_treasury",
                     ("country", "line", "amount", "reason", "turn", "phase", "visibility", "visibility.countries")),
    "entry-correction": Form("Correct a treasury entry", "record_correction",
                             ("corrects", "amount", "line", "turn", "country", "reason", "strike")),
    "settings": Form("Settings", "change_settings",
                     ("players_may_roll", "players_may_move", "ers_visibility", "reason")),
    "issue-token": Form("Issue a token", "issue_token", ("role", "country", "holder")),
    "revoke-token": Form("Revoke a token", "revoke_token", ("reason",)),
    "create": Form("Create a campaign", "create_campaign",
                   ("slug", "name", "ruleset", "scenario", "board", "countries", "players", "ers_visibility")),
    # The setup of a country (/ui/campaigns/{c}/countries): the facts the income lines read.
    "country-facts": Form("The country's facts", "set_country_facts",
                          ("land_technology", "naval_technology", "domestic_trade_index", "vassals",
                           "manufactures", "mines", "depleted_mines", "reason")),
    "trade-fleet": Form("A trade fleet", "change_trade_fleet", ("zone", "level", "reason")),
    "trade-centre": Form("A trade centre", "change_trade_centre", ("centre", "holder", "province", "income", "reason")),
    "establishment": Form("A colony or a trading post", "change_establishment",
                          ("kind", "place", "level", "exploits", "gold", "reason")),
    "mission": Form("A mission", "change_mission", ("place", "present", "reason")),
    # The stacks and leaders on the map (/ui/campaigns/{c}/stacks).
    "disband": Form("Disband a stack", "disband_stack", ("stack", "reason")),
    "leader-values": Form("A leader's values", "set_leader_values",
                          ("leader", "fire", "shock", "manoeuvre", "siege", "reason")),
}
DESK = ("open-turn", "close-phase", "close-turn", "treasury", "entry-correction", "settings")
TOKENS = ("issue-token", "revoke-token")
COUNTRY_SETUP = ("country-facts", "trade-fleet", "trade-centre", "establishment", "mission")
STACKS = ("disband", "leader-values")
RULESETS = ("eu", "pfc", "his")
BOARDS = ("eu",)  # the rulesets that ship a board (ledger/rules/<ruleset>/board/)
ERS_VISIBILITY = {"country": "its country and the game masters", "public": "everyone"}
ROLES = {"player": "a player (one country)", "gm": "a game master", "observer": "an observer (reads what is public)"}
#: What a value of a given form field must look like, said instead of the pattern a model checks it with.
SHAPES = {
    "line": "an ERS line is a sheet letter A, B or C and a line number, as A9 or B12",
    "country": "a country is its code of 2 to 4 capital letters, as FRA",
    "countries": "each country is its code of 2 to 4 capital letters, as FRA, separated by commas",
    "visibility.countries": "each country is its code of 2 to 4 capital letters, as FRA, separated by commas",
    "players": "each player is a country's code of capital letters and a name, as ENG: alice",
    "slug": "lower-case letters, digits and dashes only, beginning with a letter or a digit, as europa-1492",
    "scenario": "choose one of the scenarios offered",
    "board": "choose one of the boards offered",
    "vassals": "each vassal is a country's code of 2 to 4 capital letters, as NAV, separated by commas",
    "holder": "a country is its code of 2 to 4 capital letters, as ENG; leave it empty for nobody",
}
#: API names a message may quote, in the page's words.
NAMES = {"ers_visibility": "who sees the budgets", "players_may_roll": "players may roll",
         "players_may_move": "players may move", "rules_options": "rules options", "forced_reason": "why",
         "token_id": "token", "game_masters": "game masters", "corrects": "the entry corrected",
         "replacement": "the corrected values"}
_INDEX = re.compile(r"\[\d+\]|\.\d+(?=\.|$)")  # countries[2] (ours) or countries.2 (pydantic)
_NAME = re.compile(r"\b(" + "|".join(map(re.escape, NAMES)) + r")\b")
_BOUND = re.compile(r"Input should be (less|greater) than or equal to (-?\d+)")
_LENGTH = re.compile(r"String should have at (least|most) (\d+) characters?")


def offered(actor: Actor, state: CampaignState | None, names: tuple[str, ...]) -> list[str]:
    """The forms of ``names`` this reader may submit: ledger/access.py's WRITES for their role, as the API's
    ``Permit`` checks them."""
    settings = state.settings if state is not None else {}
    return [n for n in names if may_write(actor, FORMS[n].action, settings)]


def form_field(name: str, api_field: str | None) -> str:
    """The form field an error's API field names: ``settings.ers_visibility`` → ``ers_visibility``,
    ``replacement.amount`` → ``amount``, ``countries[2]`` → ``countries``, ``players.ENG`` → ``players``."""
    field = _INDEX.sub("", api_field or "")
    for prefix in ("settings.", "replacement.", "players."):
        if field.startswith(prefix):
            field = prefix[:-1] if prefix == "players." else field[len(prefix):]
    if field.startswith("rules_options."):
        return "option." + field[len("rules_options."):]  # the select of that option
    if name == "revoke-token" and field == "token_id":
        return "reason"  # the one field of the row: a revoked or unknown token is said beside it
    if name in COUNTRY_SETUP or name in STACKS:
        # manufactures[0].province → manufactures, mines.Elmina → mines, values.fire → fire, exploits.sl → exploits
        field = field.removeprefix("values.").removeprefix("context.")
        return re.split(r"[.\[]", field, maxsplit=1)[0]
    return field


def said(exc: LedgerError, field: str) -> str:
    """The error's message in the page's words, shown beside ``field``: without the API field it starts with,
    a pattern said as the shape the value must have, a bound or a length in plain words, API names named as
    the page names them."""
    message = plain(exc.message)
    api = exc.field or ""
    for name in (api, _INDEX.sub("", api), field.removeprefix("option.")):
        if name and message.startswith(name + ": "):
            message = plain(message[len(name) + 2:])
            break
    if "should match pattern" in message:
        return SHAPES.get(field, "this is not in the form expected")
    if (m := _BOUND.search(message)) is not None:
        message = _BOUND.sub(f"at {'most' if m.group(1) == 'less' else 'least'} {int(m.group(2)):,}", message)
    if (m := _LENGTH.search(message)) is not None:
        message = ("say it: this cannot be left empty" if (m.group(1), m.group(2)) == ("least", "1")
                   else _LENGTH.sub(f"at {m.group(1)} {m.group(2)} characters", message))
    message = message.replace("Input should be a valid integer", "type a whole number")
    return named(re.sub(r"^Input should be ('[^']*'(?:, '[^']*')*(?:,? or '[^']*')?)$", r"choose \1", message))


def named(text: str) -> str:
    """``text`` with the API names it quotes named as the page names them (``ers_visibility``: who sees the
    budgets)."""
    return _NAME.sub(lambda m: NAMES[m.group(1)], text)


# ------------------------------------------------------------------ reading a form


def _text(form: dict[str, str], name: str) -> str | None:
    value = (form.get(name) or "").strip()
    return value or None


def _int(form: dict[str, str], name: str, what: str = "a whole number") -> int | None:
    raw = _text(form, name)
    if raw is None:
        return None
    try:
        return int(raw.replace("−", "-").replace(" ", "").lstrip("+"))
    except ValueError:
        raise InvalidInput(f"{raw!r} is not {what}: type digits, as 35 or -12", field=name) from None


def _codes(form: dict[str, str], name: str) -> list[str]:
    """Country codes separated by commas or spaces; typed in lower case, they are read in capitals."""
    return [c.strip().upper() for c in re.split(r"[,\s]+", form.get(name) or "") if c.strip()]


def players_of(form: dict[str, str]) -> dict[str, str]:
    """"ENG: alice, FRA: bruno" (commas or lines) as {country: who plays it}."""
    out: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in re.split(r"[,\n]", form.get("players") or ""))):
        country, sep, who = item.partition(":")
        if not sep or not country.strip() or not who.strip():
            raise InvalidInput(f"{item!r}: write each player as the country, a colon and who plays it, as "
                               "ENG: alice", field="players")
        out[country.strip().upper()] = who.strip()
    return out


def _yes_no(form: dict[str, str], name: str) -> bool | None:
    value = form.get(name) or ""
    return {"yes": True, "no": False}.get(value)


def command_of(name: str, form: dict[str, str], state: CampaignState | None) -> cmd.Command:
    """The command a game master's form posted (``InvalidInput`` naming the form field when it does not read
    as one; the command model then validates it as it validates a request body)."""
    if name == "open-turn":
        return cmd.build(cmd.OpenTurn)
    if name == "close-turn":
        return cmd.build(cmd.CloseTurn, turn=_int(form, "turn"))
    if name == "close-phase":
        return cmd.build(cmd.ClosePhase, phase=form.get("phase") or "")
    if name == "treasury":
        fields: dict[str, Any] = {"country": (form.get("country") or "").strip().upper(),
                                  "line": (form.get("line") or "").strip().upper().replace(" %", "_pct"),
                                  "amount": _int(form, "amount", "a whole number of ducats"),
                                  "reason": form.get("reason") or "", "turn": _int(form, "turn")}
        if fields["amount"] is None:
            raise InvalidInput("type the amount in ducats, as 35 or -12", field="amount")
        if phase := _text(form, "phase"):
            fields["context"] = {"phase": phase}
        if form.get("visibility"):  # else the campaign's rule: "who sees the budgets"
            fields["visibility"] = visibility_of({**form, "visibility.countries": ",".join(
                _codes(form, "visibility.countries"))})
        return cmd.build(cmd.RecordTreasuryEntry, **{k: v for k, v in fields.items() if v is not None})
    if name == "entry-correction":
        corrects = _int(form, "corrects", "the position of an entry")
        if corrects is None:
            raise InvalidInput("choose the entry corrected (its position)", field="corrects")
        replacement = {k: v for k, v in {"amount": _int(form, "amount", "a whole number of ducats"),
                                         "line": (_text(form, "line") or "").upper().replace(" %", "_pct") or None,
                                         "turn": _int(form, "turn"),
                                         "country": (_text(form, "country") or "").upper() or None}.items()
                       if v is not None}
        if form.get("strike") == "on":
            if replacement:
                raise InvalidInput("strike the entry or correct its values, not both", field="strike")
            replacement = None
        elif not replacement:
            raise InvalidInput("change at least one value, or tick “strike it”", field="amount")
        return cmd.build(cmd.RecordCorrection, corrects=corrects, reason=form.get("reason") or "",
                         replacement=replacement)
    if name == "settings":
        settings = {k: v for k, v in {"players_may_roll": _yes_no(form, "players_may_roll"),
                                      "players_may_move": _yes_no(form, "players_may_move"),
                                      "ers_visibility": _text(form, "ers_visibility")}.items() if v is not None}
        chosen = rules_options_of(form, state)
        if chosen:
            settings["rules_options"] = chosen
        if state is not None:  # what stays as it is is not a change
            settings = {k: v for k, v in settings.items() if state.settings.get(k, False if k != "ers_visibility"
                                                                               else "country") != v}
        if not settings:
            raise InvalidInput("change at least one setting", field="players_may_roll")
        return cmd.build(cmd.ChangeSettings, settings=settings, reason=form.get("reason") or "")
    if name == "issue-token":
        role = form.get("role") or ""
        return cmd.build(cmd.IssueToken, role=role, holder=_text(form, "holder"),
                         country=(_text(form, "country") or "").upper() or None if role == "player" else None)
    if name == "revoke-token":
        return cmd.build(cmd.RevokeToken, token_id=form.get("token_id") or "", reason=form.get("reason") or "")
    if name == "create":
        fields = {"slug": (form.get("slug") or "").strip(), "name": form.get("name") or "",
                  "ruleset": form.get("ruleset") or "eu", "scenario": _text(form, "scenario"),
                  "board": _text(form, "board"), "countries": _codes(form, "countries"),
                  "players": players_of(form), "settings": {"ers_visibility": form.get("ers_visibility") or "country"}}
        return cmd.build(cmd.CreateCampaign, **{k: v for k, v in fields.items() if v is not None})
    if name in COUNTRY_SETUP or name in STACKS:
        return _SETUP[name](form, state)
    raise InvalidInput(f"no form {name!r}", field="form")


# ------------------------------------------------------------------ a country's facts, its trade, the forces
# Each form reads into the command its API route takes (``POST .../map/countries``, ``.../trade/...``,
# ``.../map/stacks/disband``, ``.../map/leaders/values``); names are checked by the use case, as for the API.

_MANUFACTURE = re.compile(r"^\s*(\w+)\s+in\s+(.+?)\s*,\s*level\s+(\d+)\s*,\s*income\s+(\d+)\s*$", re.I)
_PAIR = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s*$")


def country_facts_of(state: CampaignState | None, country: str) -> dict[str, Any]:
    """The facts the write side holds for ``country`` (what the income lines read), without their lineage."""
    known = ((state.military or {}).get("countries") or {}).get(country) if state is not None else None
    return {k: v for k, v in (known or {}).items() if k != "at"}


def manufacture_words(m: dict[str, Any]) -> str:
    return f"{m['resource']} in {m['province']}, level {m.get('level', 1)}, income {m['income']}"


def facts_shown(facts: dict[str, Any]) -> dict[str, str]:
    """A country's facts as the setup form shows them, each field as it is typed."""
    return {"land_technology": facts.get("land_technology") or "",
            "naval_technology": facts.get("naval_technology") or "",
            "domestic_trade_index": str(facts.get("domestic_trade_index") or ""),
            "vassals": ", ".join(facts.get("vassals") or ()),
            "manufactures": "\n".join(manufacture_words(m) for m in facts.get("manufactures") or ()),
            "mines": ", ".join(f"{p}: {n}" for p, n in (facts.get("mines") or {}).items()),
            "depleted_mines": ", ".join(facts.get("depleted_mines") or ())}


def _manufactures(form: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for line in filter(None, (x.strip() for x in (form.get("manufactures") or "").splitlines())):
        m = _MANUFACTURE.match(line)
        if m is None:
            raise InvalidInput(f"{line!r}: write each manufacture on its own line as its resource, where it "
                               "stands, its level and its income, as “Wine in Caux, level 1, income 4”",
                               field="manufactures")
        out.append({"resource": m.group(1).capitalize(), "province": m.group(2), "level": int(m.group(3)),
                    "income": int(m.group(4))})
    return out


def _pairs(form: dict[str, str], name: str, example: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in filter(None, (x.strip() for x in re.split(r"[,\n]", form.get(name) or ""))):
        m = _PAIR.match(item)
        if m is None:
            raise InvalidInput(f"{item!r}: write each as a name, a colon and a whole number, as {example}",
                               field=name)
        out[m.group(1)] = int(m.group(2))
    return out


def _names(form: dict[str, str], name: str) -> list[str]:
    return [x.strip() for x in re.split(r"[,\n]", form.get(name) or "") if x.strip()]


def _country_facts(form: dict[str, str], state: CampaignState | None) -> cmd.Command:
    """The facts that differ from those held (a fact left as it is shown is not set again)."""
    country = (form.get("country") or "").strip().upper()
    held = country_facts_of(state, country)
    typed: dict[str, Any] = {"land_technology": _text(form, "land_technology"),
                             "naval_technology": _text(form, "naval_technology"),
                             "domestic_trade_index": _int(form, "domestic_trade_index"),
                             "vassals": _codes(form, "vassals"), "manufactures": _manufactures(form),
                             "mines": _pairs(form, "mines", "Elmina: 2"),
                             "depleted_mines": _names(form, "depleted_mines")}
    # A scalar left empty keeps its value; a list or a table emptied is set empty (no vassal left...).
    changed = {k: v for k, v in typed.items()
               if (v is not None and v != held.get(k) if not isinstance(v, (list, dict))
                   else v != (held.get(k) or type(v)()))}
    if not changed:
        raise InvalidInput("change at least one fact: each is shown as the ledger holds it", field="land_technology")
    return cmd.build(cmd.SetCountryFacts, country=country, reason=form.get("reason") or "", **changed)


def _trade_fleet(form: dict[str, str], _state: CampaignState | None) -> cmd.Command:
    return cmd.build(cmd.ChangeTradeFleet, country=(form.get("country") or "").strip().upper(),
                     zone=(form.get("zone") or "").strip(), level=_required_int(form, "level", "the level, 0 to 6"),
                     reason=form.get("reason") or "")


def _trade_centre(form: dict[str, str], _state: CampaignState | None) -> cmd.Command:
    fields = {"centre": form.get("centre") or "", "holder": (_text(form, "holder") or "").upper() or None,
              "province": _text(form, "province"), "income": _int(form, "income"), "reason": form.get("reason") or ""}
    return cmd.build(cmd.ChangeTradeCentre, **{k: v for k, v in fields.items() if v is not None or k == "holder"})


def _establishment(form: dict[str, str], _state: CampaignState | None) -> cmd.Command:
    return cmd.build(cmd.ChangeEstablishment, country=(form.get("country") or "").strip().upper(),
                     kind=form.get("kind") or "", place=(form.get("place") or "").strip(),
                     level=_required_int(form, "level", "the level, 0 to 6"),
                     exploits={k.lower(): v for k, v in _pairs(form, "exploits", "sl: 3").items()},
                     gold=form.get("gold") == "yes", reason=form.get("reason") or "")


def _mission(form: dict[str, str], _state: CampaignState | None) -> cmd.Command:
    present = _yes_no(form, "present")
    if present is None:
        raise InvalidInput("choose whether the mission is founded or gone", field="present")
    return cmd.build(cmd.ChangeMission, country=(form.get("country") or "").strip().upper(),
                     place=(form.get("place") or "").strip(), present=present, reason=form.get("reason") or "")


def _disband(form: dict[str, str], _state: CampaignState | None) -> cmd.Command:
    return cmd.build(cmd.DisbandStack, stack=(form.get("stack") or "").strip(), reason=form.get("reason") or "")


def leader_of(state: CampaignState | None, name: str) -> tuple[str, dict[str, Any]] | None:
    """(its stack, the leader as the map holds him) of the leader named ``name``, if he is on the map."""
    forces = ((state.military or {}).get("forces") or {}) if state is not None else {}
    return next(((sid, x) for sid, f in sorted(forces.items()) for x in f["leaders"] if x["name"] == name), None)


def _leader_values(form: dict[str, str], state: CampaignState | None) -> cmd.Command:
    """The values that differ from those the map holds for the leader (the form shows them)."""
    name = (form.get("leader") or "").strip()
    found = leader_of(state, name)
    held = found[1] if found is not None else {}
    values = {k: v for k in ("fire", "shock", "manoeuvre", "siege")
              if (v := _int(form, k)) is not None and v != held.get(k)}
    if found is not None and not values:
        raise InvalidInput(f"change at least one of {name}'s values: each is shown as the map holds it",
                           field="fire")
    return cmd.build(cmd.SetLeaderValues, leader=name, values=values or {"fire": None},
                     reason=form.get("reason") or "")


def _required_int(form: dict[str, str], name: str, what: str) -> int:
    value = _int(form, name)
    if value is None:
        raise InvalidInput(f"type {what}", field=name)
    return value


_SETUP = {"country-facts": _country_facts, "trade-fleet": _trade_fleet, "trade-centre": _trade_centre,
          "establishment": _establishment, "mission": _mission, "disband": _disband,
          "leader-values": _leader_values}


# ------------------------------------------------------------------ what the pages show


def rules_options(state: CampaignState) -> list[dict[str, Any]]:
    """The options of the campaign's ruleset where the seeds disagree (``Procedure.options``), each with the
    values it takes and the game master's choice so far (none: the procedure's own default)."""
    from ledger.rules.core import get_ruleset, procedure_order

    chosen = state.settings.get("rules_options") or {}
    out = []
    for proc in sorted(get_ruleset(state.ruleset).procedures.values(), key=lambda p: procedure_order(p.code)):
        for option in proc.options:
            info = proc.inputs.model_fields[option]
            key = f"{proc.code}.{option}"
            yes_no = info.annotation is bool
            value = chosen.get(key)
            out.append({"key": key, "label": f"{proc.code} {proc.title}: {option.replace('_', ' ')}",
                        "choices": ["yes", "no"] if yes_no else [str(v) for v in get_args(info.annotation)],
                        "value": ("yes" if value else "no") if yes_no and value is not None else (value or ""),
                        "bool": yes_no, "help": named(info.description or "")})
    return out + income_readings(state, chosen)


def income_readings(state: CampaignState, chosen: dict[str, Any]) -> list[dict[str, Any]]:
    """The readings of the income lines a select can offer (one of a few values, or yes/no), as the procedures'
    options are offered; the others (a number, a list) are set through the API or ``ledger campaign settings``."""
    if state.ruleset != "eu":
        return []
    from ledger.economy.board_income import reading_choices, reading_words, readings
    from ledger.rules.eu.ers import ers_definition

    names = {d.code: d.name for d in ers_definition().lines}
    choices = reading_choices(state.ruleset)
    out = []
    for key, default in readings(state.ruleset).items():
        if not (key in choices or isinstance(default, bool)):
            continue
        line, _, what = key.partition(".")
        value = chosen.get(key)
        yes_no = isinstance(default, bool)
        out.append({"key": key, "label": f"{line} {names.get(line, '')}: {what.replace('_', ' ')}",
                    "choices": ["yes", "no"] if yes_no else list(choices[key]),
                    "value": ("yes" if value else "no") if yes_no and value is not None else (value or ""),
                    "bool": yes_no, "help": f"the ruleset reads {reading_words(default)} (DECISIONS.md, {line})"})
    return out


def rules_options_of(form: dict[str, str], state: CampaignState | None) -> dict[str, Any]:
    """The options the settings form changes (``option.M21.artillery_source``): those chosen and not already
    so; yes or no for an option that is a yes or a no."""
    if state is None:
        return {}
    changed: dict[str, Any] = {}
    for option in rules_options(state):
        typed = (form.get(f"option.{option['key']}") or "").strip()
        if typed and typed != option["value"]:
            changed[option["key"]] = {"yes": True, "no": False}.get(typed, typed) if option["bool"] else typed
    return changed


def phases(state: CampaignState) -> list[dict[str, Any]]:
    """Where the open turn stands in the sequence of play: each phase, closed or not, and the next to close."""
    closed = set(state.phases_closed) if state.turn_open else set()
    upcoming = next((p for p in PHASES if p not in closed), None) if state.turn_open else None
    return [{"code": p, "title": TITLES[p], "closed": p in closed, "next": p == upcoming} for p in PHASES]


def next_phase(state: CampaignState) -> str | None:
    return next((p["code"] for p in phases(state) if p["next"]), None)


def ers_lines(ruleset: str) -> list[tuple[str, str]]:
    """The ERS lines a treasury entry may name, with their names (the eu sheet; another ruleset's lines are
    typed by code)."""
    if ruleset != "eu":
        return []
    from ledger.rules.eu.ers import ers_definition

    return [(d.code, d.name) for d in ers_definition().lines]


def scenario_names() -> list[str]:
    return scenarios.shipped_names()
