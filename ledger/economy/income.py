"""The income phase worked out and confirmed (issue 36, items 3 and 5): the board's proposal as the game master
confirms it, a typed value held to it, a confirmation gone stale, in words.

Pure functions of a ``Proposal`` (ledger/economy/board_income.py) and of what a confirmation recorded
(``IncomeConfirmed``, ``CampaignState.incomes``); the use case (ledger/usecases/income.py), the read route and
the audit use them alike. Nothing here reads the history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ledger.domain.errors import InvalidInput
from ledger.economy import board_income
from ledger.economy.board_income import Proposal, ProposedLine, Source

RULE = "eu:ERS"
#: The phase whose closing ends a confirmation's watch: after it, a change of the map is next turn's income.
PHASE = "incomes"


def worked_out(state: Any) -> bool:
    """Whether the campaign has a map to work its income out from (a scenario's provinces): a campaign
    without one types every line by hand, and nothing is checked against a board it does not have."""
    return bool(((state.military or {}).get("provinces")) and state.ruleset == "eu")


def proposals(state: Any, countries: Iterable[str], options: Mapping[str, Any] | None = None
              ) -> dict[str, Proposal]:
    """Each country's proposal at the state's position, the board's facts read once."""
    facts = board_income.EconomyFacts.of(state, options)
    return {c: board_income.work_out(state, c, options=options, facts=facts) for c in countries}


def options_of(state: Any) -> dict[str, Any]:
    """The campaign's readings of the income lines: the keys of its settings' ``rules_options`` that name one
    (``"B31.payer": "owner"``), beside the procedures' options (``"M21.artillery_source"``)."""
    known = board_income.readings(state.ruleset or "eu")
    return {k: v for k, v in (state.settings.get("rules_options") or {}).items() if k in known}


def check_readings(ruleset: str, chosen: Mapping[str, Any]) -> dict[str, Any]:
    """A campaign's choice of income readings (``rules_options``), each a reading of the ruleset's data (a 422
    naming the option otherwise): one of its ``[choices]``, else a value of the kind of the ruleset's own
    (yes/no; a whole number, 0 or more; names; names with whole numbers)."""
    defaults, choices = board_income.readings(ruleset), board_income.reading_choices(ruleset)
    out: dict[str, Any] = {}
    for key, value in chosen.items():
        field = f"settings.rules_options.{key}"
        default = defaults[key]
        if key in choices:
            if value not in choices[key]:
                raise InvalidInput(f"{key}: one of {', '.join(map(str, choices[key]))}, not {value!r}", field=field)
        elif not _same_kind(value, default):
            raise InvalidInput(f"{key}: {_kind(default)}, as the ruleset's {board_income.reading_words(default)}",
                               field=field)
        out[key] = value
    return out


def _same_kind(value: Any, default: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if isinstance(default, dict):
        return isinstance(value, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                               for v in value.values())
    return False


def _kind(default: Any) -> str:
    if isinstance(default, bool):
        return "yes or no (true or false)"
    if isinstance(default, int):
        return "a whole number, 0 or more"
    if isinstance(default, list):
        return "a list of names"
    if isinstance(default, dict):
        return "names, each with a whole number"
    return "a word"


def source_words(s: Source) -> str:
    """One source as a person reads it: "Beira 3", "POR-1 -12 (3 LD x 4 ducats)", "Revolt in Beira"."""
    text = s.name if s.amount == 0 and s.kind != "table" else f"{s.name} {s.amount}"
    return f"{text} ({s.note})" if s.note else text


def lineage_words(line: ProposedLine | Mapping[str, Any]) -> str:
    """A line with its lineage, in words: "B1 29: Tras-os-Montes 5, Beira 3, ..."."""
    code, amount, lineage = _parts(line)
    if not lineage:
        return f"{code} {amount}: nothing on the map adds to it"
    notes = {s.note for s in lineage}
    if len(lineage) > 1 and len(notes) == 1 and "" not in notes:  # "owned by POR" said once, not seven times
        return f"{code} {amount}: " + ", ".join(source_words(Source(s.kind, s.name, s.amount, s.position))
                                                 for s in lineage) + f" (each {notes.pop()})"
    return f"{code} {amount}: " + ", ".join(source_words(s) for s in lineage)


def _parts(line: ProposedLine | Mapping[str, Any]) -> tuple[str, int, list[Source]]:
    if isinstance(line, ProposedLine):
        return line.code, line.amount, list(line.lineage)
    return line["line"], line["computed"], [Source(**s) for s in line.get("lineage") or ()]


def line_doc(line: ProposedLine) -> dict[str, Any]:
    """A proposed line as events and answers carry it (JSON)."""
    return {"line": line.code, "computed": line.amount, "rule": line.rule,
            "lineage": [{"kind": s.kind, "name": s.name, "amount": s.amount, "position": s.position,
                         "note": s.note} for s in line.lineage]}


def proposal_doc(p: Proposal) -> dict[str, Any]:
    return {"country": p.country, "position": p.position, "lines": [line_doc(x) for x in p.lines],
            "unresolved": [{"line": code, "why": why} for code, why in p.unresolved]}


def changes(confirmed: Mapping[str, Any], now: Proposal) -> list[dict[str, Any]]:
    """The lines whose worked-out value moved since a confirmation (``CampaignState.incomes[country]``):
    {"line", "confirmed" (worked out then), "now"}; a line no longer worked out has ``now`` None."""
    current = {x.code: x.amount for x in now.lines}
    out = []
    for code, was in confirmed["lines"].items():
        value = current.get(code)
        if value != was["computed"]:
            out.append({"line": code, "confirmed": was["computed"], "now": value})
    for code, value in current.items():
        if code not in confirmed["lines"]:
            out.append({"line": code, "confirmed": None, "now": value})
    return out


def stale_words(country: str, confirmed: Mapping[str, Any], moved: list[dict[str, Any]]) -> str:
    """Why a confirmation is stale, in words (empty when it is not)."""
    if not moved:
        return ""
    said = "; ".join(
        f"{m['line']} is now {m['now']} (worked out {m['confirmed']} then)" if m["confirmed"] is not None and
        m["now"] is not None else (f"{m['line']} is no longer worked out" if m["now"] is None
                                   else f"{m['line']} is now worked out: {m['now']}") for m in moved)
    return (f"Stale: the map changed after {country}'s income was confirmed at #{confirmed['position']} "
            f"(from the state at #{confirmed['at']}): {said}. Confirm it again before the incomes phase closes.")


def audit(state: Any, country: str, recorded: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The lines of a confirmation (``IncomeConfirmed.lines``) that disagree with the lines worked out again
    from ``state`` (the state at the position it cites): {"line", "recorded" (the value confirmed), "computed"
    (worked out then), "again" (worked out now from that state), "kept" (the game master's reason, or None)}.
    A kept line differs from the board by design; a line whose worked-out value moved says the rules or the
    board data changed since (or the record did)."""
    if state is None:
        return []
    p = proposals(state, [country], options_of(state))[country]
    again = {x.code: x.amount for x in p.lines}
    out = []
    for x in recorded:
        value = again.get(x["line"])
        if x["amount"] != value or x["computed"] != value:
            out.append({"line": x["line"], "recorded": x["amount"], "computed": x["computed"], "again": value,
                        "kept": x.get("kept")})
    return out


def audit_words(d: Mapping[str, Any]) -> str:
    """One disagreement of ``audit`` in words."""
    head = f"position {d['position']}: {d['country']}'s {d['line']} of turn {d['turn']} confirmed {d['recorded']}"
    if d["again"] is None:
        return f"{head}, but the state at #{d['at']} no longer works this line out"
    if d["kept"] and d["computed"] == d["again"]:
        return f"{head}, the state at #{d['at']} works out {d['again']}: kept by the game master ({d['kept']})"
    return f"{head} (worked out {d['computed']} then), the state at #{d['at']} now works out {d['again']}"
