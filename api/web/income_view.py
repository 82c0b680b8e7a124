"""The income page (``/ui/campaigns/{id}/income``): the lines the board works out, each with its lineage in
words and its places linked, as ``GET /campaigns/{id}/income`` answers for this caller; and the game master's
confirm form, read back into a ``ConfirmIncome``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote
from uuid import UUID

from markupsafe import Markup

from api.web.html import esc
from ledger.access import ALL_SEEING
from ledger.application import Actor, Ledger
from ledger.domain.commands import ConfirmIncome, build
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.economy.entries import expense_words
from ledger.i18n import _
from projections.income import proposal_answer

#: Lineage kinds that name a place of the board: linked to its place page.
PLACES = frozenset({"province", "fortress", "marker", "trade_zone", "trade_centre", "colony", "trading_post",
                    "region"})


@dataclass
class IncomeView:
    position: int
    proposals: list[dict[str, Any]] = field(default_factory=list)
    expenses: str = ""
    error: str | None = None


def income_view(ledger: Ledger, reader: Any, cid: UUID, actor: Actor, state: Any, country: str | None) -> IncomeView:
    if country is not None:
        countries = [country]
    elif actor.role in ALL_SEEING:
        countries = list(state.countries)
    else:
        countries = [actor.country] if actor.country else list(state.countries[:1])  # an observer: refused
    view = IncomeView(position=state.version, expenses=expense_words(state.ruleset))
    try:
        view.proposals = [proposal_answer(ledger, cid, actor, state, k, None, reader.records_at) for k in countries]
    except StateConflict as e:  # no map: said on the page, not as an error page
        view.error = e.message
    return view


def lineage(line: dict[str, Any], slug: str) -> Markup:
    """A line's sources in words, each place linked: "Tras-os-Montes 5, Beira 3, ..."."""
    if not line["lineage"]:
        return Markup(esc(_("nothing on the map adds to it")))
    parts = []
    notes = {s.get("note") for s in line["lineage"]}
    common = notes.pop() if len(notes) == 1 and len(line["lineage"]) > 1 else ""  # said once: "each owned by FRA"
    for s in line["lineage"]:
        name = esc(s["name"])
        if s["kind"] in PLACES:
            name = (f'<a href="/ui/campaigns/{esc(slug)}/places/{esc(quote(s["name"], safe=""))}" '
                    f'class="place">{name}</a>')
        text = name if s["amount"] == 0 and s["kind"] != "table" else f"{name} {esc(s['amount'])}"
        if s.get("note") and not common:
            text += f' <span class="dim">({esc(s["note"])})</span>'
        if s.get("position") is not None:
            text += f' <span class="dim">#{esc(s["position"])}</span>'
        parts.append(text)
    each = ' <span class="dim">' + esc(_("(each {note})").format(note=common)) + "</span>" if common else ""
    return Markup(", ".join(parts) + each)


def income_command(form: dict[str, str]) -> ConfirmIncome:
    """The form's fields as the command: ``countries`` (a country, or "all"), ``position``, and per line a ticked
    ``keep.C.L`` with its ``amount.C.L`` and ``reason.C.L`` (only the countries confirmed)."""
    raw = form.get("position", "")
    if not raw.isdigit():
        raise InvalidInput("position: the proposal's position is missing: reload the page", field="position")
    who = form.get("countries", "all")
    kept: dict[str, dict[str, dict[str, Any]]] = {}
    for name, value in form.items():
        if not name.startswith("keep.") or not value:
            continue
        _, country, line = name.split(".", 2)
        if who != "all" and country != who:
            continue
        amount = form.get(f"amount.{country}.{line}", "").strip()
        try:
            number = int(amount)
        except ValueError:
            raise InvalidInput(f"kept.{country}.{line}: the value kept must be a whole number of ducats, not "
                               f"{amount!r}", field=f"kept.{country}.{line}.amount") from None
        kept.setdefault(country, {})[line] = {"amount": number, "reason": form.get(f"reason.{country}.{line}", "")}
    fields: dict[str, Any] = {"position": int(raw)}
    if who != "all":
        fields["countries"] = [who]
    if kept:
        fields["kept"] = kept
    return build(ConfirmIncome, **fields)
