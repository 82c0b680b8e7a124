"""Downloads of the economic history: tables (CSV, JSON, Parquet) and charts (SVG, PNG).

``GET /campaigns/{id}/export/{table}.{fmt}`` and ``GET /campaigns/{id}/charts/{kind}.{fmt}``,
filtered by ``country`` and ``turns=A..B``. Visibility is the ERS route's
(api/routes/economy.py): every reader gets the sheets and tracks computed from
the events they may see (``ledger.access.can_see``), so a hidden entry stays
out of a player's or an observer's numbers, positions and hashes.

The answer depends only on the caller's view of the history up to the head:
its ETag is derived from the head position, the caller's role and country and
the request, so a client that already holds it gets 304 without a re-read. The
history itself is the read path's (``Reader.history``): seeded from the views
(budget sheets, victory, awards: ``projections.history.seeded``) where they
give it exactly, else read once; then kept per audience and extended with the
events appended since. ``ers.csv``, ``ers-wide.csv`` and ``entries.csv`` are
written line by line (``export.ers_csv``, ``wide_csv``, ``entries_csv``: the
plain writer's bytes), the workbooks by ``projections/xlsx.py``. The bytes
are kept in the app's response cache (api/readpath.py) by request, audience and
head: the same download at the same head is served without a write.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from api.deps import ActorDep, CampaignId, CampaignStateDep
from api.readpath import REVALIDATE, ReadsDep, etag, not_modified, request_key
from ledger.application import Actor
from projections import charts, export
from projections.read import audience

router = APIRouter(prefix="/campaigns/{campaign}", tags=["export"])

CountryQuery = Annotated[str | None, Query(description="Only this country (ERS, stability, victory)")]
TurnsQuery = Annotated[str | None, Query(description="Turn range: A..B, A.., ..B or A", examples=["1..3"])]


def _filters(request: Request, actor: Actor, state: Any, country: str | None, turns: str | None
             ) -> tuple[tuple[int, int] | None, str, Response | None]:
    """The checked filters, the response's ETag, and a 304 when the caller already has this answer."""
    if country is not None:
        state.require_country(country)
    span = export.parse_turns(turns, state.turn) if turns else None
    tag = etag(request, audience(actor), state.version)
    return span, tag, not_modified(request, tag)


_HEADERS = REVALIDATE


@router.get("/export/{table}.{fmt}", summary="The ERS (long or wide), the treasury entries, inflation, stability "
            "or victory history as CSV, JSON, Parquet or xlsx (ers.xlsx: a workbook laid out like the paper sheets)", response_class=Response,
            responses={200: {"content": {t.split(";")[0]: {} for t in export.MEDIA_TYPES.values()}}})
def export_table(table: str, fmt: str, request: Request, cid: CampaignId, actor: ActorDep,
                 state: CampaignStateDep, reads: ReadsDep, country: CountryQuery = None, turns: TurnsQuery = None,
                 include_defaulted: Annotated[bool, Query(description="ERS: also the lines nothing was entered on "
                                                          "(their default, mostly 0)")] = False) -> Response:
    export.check_table(table)
    export.check_format(fmt)
    span, etag, cached = _filters(request, actor, state, country, turns)
    if cached is not None:
        return cached
    # The same download by the same audience at the same head: the bytes served before (a workbook is a few
    # hundred ms to write; several players fetch theirs between two appends).
    key, who = request_key(request), audience(actor)
    body = reads.cache.get(key, who, state.version)
    if body is None:
        history = reads.reader.history(cid, actor, state)
        if fmt == "xlsx" and table in ("ers", "ers-wide"):  # the workbook: sheets A, B, C per country, the entries
            body = export.to_xlsx(history, country, span)
        elif fmt == "csv" and table == "ers":  # the charts page's link: the same bytes, written line by line
            body = export.ers_csv(history, country, span, include_defaulted)
        elif fmt == "json" and table == "ers":  # the same bytes, from each sheet's rows written once
            body = export.ers_json(history, country, span, include_defaulted)
        elif fmt == "parquet" and table == "ers":  # the same cells, from each sheet's columns built once
            body = export.ers_parquet(history, country, span, include_defaulted)
        elif fmt == "csv" and table == "entries":  # the same bytes, the texts quoted once per distinct value
            body = export.entries_csv(history, country, span)
        elif fmt == "csv" and table == "ers-wide":  # the same bytes, each sheet's line written once
            body = export.wide_csv(history, country, span)
        else:
            body = export.encode(table, fmt, export.rows(history, table, country, span, include_defaulted))
        reads.cache.put(key, who, state.version, body)
    name = export.filename(state.slug, table, fmt, country, span)
    return Response(body, media_type=export.MEDIA_TYPES[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "ETag": etag, **_HEADERS})


@router.get("/charts/{kind}.{fmt}", summary="A chart of the economic history: treasury, income, inflation, "
            "victory, or one country's ERS (country=)", response_class=Response,
            responses={200: {"content": {m: {} for m in charts.MEDIA_TYPES.values()}}})
def chart(kind: str, fmt: str, request: Request, cid: CampaignId, actor: ActorDep,
          state: CampaignStateDep, reads: ReadsDep, country: CountryQuery = None, turns: TurnsQuery = None
          ) -> Response:
    charts.check_kind(kind, country)
    charts.check_format(fmt)
    span, etag, cached = _filters(request, actor, state, country, turns)
    if cached is not None:
        return cached
    key, who = request_key(request), audience(actor)
    body = reads.cache.get(key, who, state.version)
    if body is None:
        body = charts.render(charts.chart_series(reads.reader.history(cid, actor, state), kind, country, span), fmt)
        reads.cache.put(key, who, state.version, body)
    name = "-".join([state.slug, kind] + ([country] if country else [])) + "." + fmt
    return Response(body, media_type=charts.MEDIA_TYPES[fmt],
                    headers={"Content-Disposition": f'inline; filename="{name}"', "ETag": etag, **_HEADERS})
