"""The web page's map forms: every map command as a plain HTML form, read back into the command model.

A form's fields are the command's, in words a game master knows (a stack picked from a list, places typed
with suggestions, lists separated by commas, one number box per unit type); ``command_of`` turns what was
posted into the command, and the command model validates it as it validates a request body. An error's field
(``units.LD``, ``via[1]``, ``arriving[0].name``) is shown beside the form field of the same name
(``error_field``).
"""

from __future__ import annotations

import re
from typing import Any

from ledger.access import ALL_SEEING, may_write
from ledger.application import Actor, Ledger
from ledger.domain import commands as cmd
from ledger.domain import sight
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import InvalidInput
from ledger.i18n import N_

#: Form id → (title, in the reader's language where shown; the commands it records). The marker form places or
#: removes (its ``remove`` box).
FORMS: dict[str, tuple[str, tuple[type[cmd.Command], ...]]] = {
    "move": (N_("Move a stack"), (cmd.MoveStack,)),
    "raise": (N_("A new stack"), (cmd.RaiseStack,)),
    "split": (N_("Split a stack"), (cmd.SplitStack,)),
    "merge": (N_("Merge two stacks"), (cmd.MergeStacks,)),
    "change": (N_("Units and leaders of a stack"), (cmd.ChangeStack,)),
    "siege": (N_("Start a siege"), (cmd.StartSiege,)),
    "siege-end": (N_("End a siege"), (cmd.EndSiege,)),
    "control": (N_("Change control"), (cmd.ChangeControl,)),
    "owner": (N_("Change owner"), (cmd.ChangeOwner,)),
    "marker": (N_("Place or remove a marker"), (cmd.PlaceMarker, cmd.RemoveMarker)),
    "fortress": (N_("Change a fortress level"), (cmd.ChangeFortress,)),
    "war": (N_("Declare war"), (cmd.DeclareWar,)),
    "peace": (N_("Make peace"), (cmd.MakePeace,)),
}
LIST_FIELDS = frozenset({"via", "leaders", "besiegers", "departing", "attackers", "defenders"})
INT_FIELDS = frozenset({"level"})
_INDEX = re.compile(r"\[\d+\]")


def allowed(actor: Actor, state: CampaignState) -> list[str]:
    """The forms this caller may submit (the same permission as the API route: ``may_write``)."""
    return [form for form, (_, kinds) in FORMS.items()
            if any(may_write(actor, kind.action, state.settings) for kind in kinds)]


def options(ledger: Ledger, state: CampaignState, actor: Actor) -> dict[str, Any]:
    """What the forms offer: stacks (a player's own only) with where they are, places, countries, markers;
    the stacks and sieges of the map as the caller sees it (``sight.seen``: a player's view, never a stack or
    a place hidden from them)."""
    scenario = ledger.scenario(state.id) or {"provinces": [], "sea_zones": []}
    seen_stacks, military = sight.seen(state, actor)
    forces = military.get("forces") or {}
    stacks = [{"id": sid, "at": at, "country": (forces.get(sid) or {}).get("country")}
              for sid, (at, *_) in sorted(seen_stacks.items())]
    if actor.role == "player":
        stacks = [s for s in stacks if s["country"] == actor.country]
    provinces = sorted(p["name"] for p in scenario["provinces"])
    return {"stacks": stacks, "provinces": provinces,
            "places": sorted([*provinces, *(z["name"] for z in scenario["sea_zones"])]),
            "countries": list(state.countries), "markers": list(cmd.MARKERS), "units": list(cmd.UNIT_TYPES),
            "unit_fields": [f"units.{u}" for u in cmd.UNIT_TYPES],
            "outcomes": list(cmd.SIEGE_ENDS), "sieges": sorted(military.get("sieges") or {}),
            "kinds": ["general", "admiral", "explorer", "conquistador", "governor", "monarch"]}


def held(actor: Actor, state: CampaignState) -> list[dict[str, Any]]:
    """The players' commands the game master's map held (``CampaignState.held``), for the all-seeing only: each
    names what only the game master's map holds."""
    if actor.role not in ALL_SEEING:
        return []
    return sorted((state.held or {}).values(), key=lambda h: h["position"])


def error_field(field: str | None) -> str:
    """The form field an error names: ``via[1]`` → ``via``, ``arriving[0].name`` → ``arriving.name``."""
    return _INDEX.sub("", field or "").removeprefix("context.")


def _int(form: dict[str, str], name: str) -> int | None:
    raw = (form.get(name) or "").strip()
    if not raw:
        return None
    try:
        return int(raw.replace("−", "-").lstrip("+"))
    except ValueError:
        raise InvalidInput(f"{name}: {raw!r} is not a whole number", field=name) from None


def _units(form: dict[str, str]) -> dict[str, int]:
    return {u: n for u in cmd.UNIT_TYPES if (n := _int(form, f"units.{u}")) is not None}


def visibility_of(form: dict[str, str]) -> dict[str, Any]:
    """The visibility a form posted: everyone, the game masters, or the countries it names."""
    scope = form.get("visibility", "public")
    if scope == "countries":
        return {"scope": scope, "countries": [c.strip() for c in form.get("visibility.countries", "").split(",")
                                              if c.strip()]}
    return {"scope": scope}


def command_of(name: str, form: dict[str, str], state: CampaignState, actor: Actor) -> cmd.Command:
    """The command a map form posted (``InvalidInput`` naming the field when it does not read as one); a move's
    origin, when the form does not say, is where the caller sees the stack."""
    if name not in FORMS:
        raise InvalidInput(f"no map form {name!r}", field="form")
    kind = FORMS[name][1][0]
    fields: dict[str, Any] = {}
    for key, raw in form.items():
        key_name = key.split(".")[0]
        if key_name not in kind.model_fields or key_name in ("units", "visibility", "arriving", "context"):
            continue
        value = raw.strip()
        if key_name in LIST_FIELDS:
            fields[key_name] = [x.strip() for x in value.split(",") if x.strip()]
        elif key_name in INT_FIELDS:
            fields[key_name] = _int(form, key_name)
        elif value:
            fields[key_name] = value
    if "units" in kind.model_fields:
        fields["units"] = _units(form)
    if "visibility" in kind.model_fields:
        fields["visibility"] = visibility_of(form)
    kept = (form.get("out_of_sequence") or "").strip()
    if kept and "context" in kind.model_fields:  # the game master keeps it out of the sequence of play
        fields["context"] = {"out_of_sequence": kept}
    if name == "move":
        stacks = sight.seen(state, actor)[0]
        if "origin" not in fields and fields.get("stack") in stacks:
            fields["origin"] = stacks[fields["stack"]][0]  # where the stack is: the form need not say
        if form.get("forced") != "on":
            fields.pop("forced_reason", None)
        elif not fields.get("forced_reason"):
            raise InvalidInput("forced_reason: say why the game master forces the move", field="forced_reason")
    if name == "raise":  # "Talbot:3/3/2/1": a leader and the values printed on his counter
        try:
            fields["leaders"] = [cmd.leader_counter(x) for x in fields.get("leaders") or ()]
        except ValueError as e:
            raise InvalidInput(f"leaders: {e}", field="leaders") from None
    if name == "marker" and form.get("remove") == "on":
        kind = cmd.RemoveMarker
    if name == "change" and (form.get("arriving.name") or "").strip():
        leader: dict[str, Any] = {"name": form["arriving.name"].strip(), "kind": form.get("arriving.kind") or "general"}
        for value in ("fire", "shock", "manoeuvre", "siege", "departs"):
            n = _int(form, f"arriving.{value}")
            if n is not None:
                leader[value] = n
        fields["arriving"] = [leader]
    return cmd.build(kind, **fields)
