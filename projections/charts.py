"""Charts of the economic history: PNG or SVG, drawn by matplotlib's Agg backend.

``chart_series(history, kind, country, turns)`` prepares the numbers (pure: the
same rows as the export) and ``render(chart, fmt)`` draws them. Kinds:

- ``treasury``: A1 (royal treasury at the start of the turn) and A33 (at its
  end) per country, over the turns;
- ``income``: gross income (A14) per country;
- ``inflation``: the inflation box at the end of each turn;
- ``victory``: each country's running victory-point total;
- ``ers``: one country's entered money lines (ducats, and campaign ticks counted
  in ducats; those not zero in every turn), stacked per turn as entered on the
  sheet, where a cost is a positive amount too (needs ``country``).

Output is deterministic for a given matplotlib: fixed SVG ids
(``svg.hashsalt``), no creation date, text kept as text. Each series is one
SVG group with id ``series-<n>`` (a stacked bar: ``series-<n>-turn-<t>``) and
its label in the legend.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from typing import Any

from ledger.domain.errors import InvalidInput
from projections import export
from projections.history import History
from projections.records import num

KINDS = ("treasury", "income", "inflation", "victory", "ers")
FORMATS = ("svg", "png")
MEDIA_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


@dataclass(frozen=True)
class Series:
    label: str
    turns: tuple[int, ...]
    values: tuple[float | int | None, ...]


@dataclass(frozen=True)
class Chart:
    kind: str
    title: str
    ylabel: str
    series: tuple[Series, ...]
    stacked: bool = False  # bars stacked per turn (ers), else lines


def check_kind(kind: str, country: str | None = None) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"chart {kind!r}: one of {', '.join(KINDS)}", field="kind")
    if kind == "ers" and country is None:
        raise InvalidInput("the ers chart is one country's sheet: name the country", field="country")
    return kind


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidInput(f"chart format {fmt!r}: one of {', '.join(FORMATS)}", field="format")
    return fmt


def _lines(history: History, codes: tuple[str, ...], country: str | None, turns: tuple[int, int] | None
           ) -> dict[tuple[str, str], dict[int, int]]:
    """(country, line) -> turn -> amount, for the given lines."""
    out: dict[tuple[str, str], dict[int, int]] = {}
    wanted = set(codes)
    for r in export.ers_rows(history, country, turns):
        if r["line"] in wanted:
            out.setdefault((r["country"], r["line"]), {})[r["turn"]] = r["amount"]
    return out


def _series(label: str, by_turn: dict[int, Any]) -> Series:
    ts = tuple(sorted(by_turn))
    return Series(label, ts, tuple(by_turn[t] for t in ts))


def chart_series(history: History, kind: str, country: str | None = None,
                 turns: tuple[int, int] | None = None) -> Chart:
    """The numbers a chart plots, from the same rows as the export."""
    check_kind(kind, country)
    export.check_country(history, country)
    name = history.campaign
    if kind in ("treasury", "income"):
        codes = ("A1", "A33") if kind == "treasury" else ("A14",)
        found = _lines(history, codes, country, turns)
        series = tuple(_series(f"{c} {code}", found[(c, code)])
                       for c in ((country,) if country else history.countries) for code in codes
                       if (c, code) in found)
        title = f"{name}: royal treasury (A1 at start, A33 at end of turn)" if kind == "treasury" \
            else f"{name}: gross income (A14)"
        return Chart(kind, title, "ducats", series)
    if kind == "inflation":
        rows = [r for r in export.inflation_rows(history, turns) if r["turn"] > 0]
        return Chart(kind, f"{name}: inflation box at end of turn", "box",
                     (_series("inflation", {r["turn"]: r["end"] for r in rows}),))
    if kind == "victory":
        by_country: dict[str, dict[int, float | int]] = {}
        for r in export.victory_rows(history, country, turns):
            if r["turn"] > 0:
                total = num(r["total"])
                by_country.setdefault(r["country"], {})[r["turn"]] = (
                    int(total) if total.denominator == 1 else float(total))
        return Chart(kind, f"{name}: victory points (running total)", "victory points",
                     tuple(_series(c, v) for c, v in by_country.items()))
    assert country is not None  # check_kind
    # Entered money lines: the sheet's own movements (derived lines are their sums); ticks are in ducats.
    per_line: dict[str, dict[int, int]] = {}
    names: dict[str, str] = {}
    for r in export.ers_rows(history, country, turns):
        if r["kind"] == "entered" and r["unit"] in ("ducats", "ticks") and not r["defaulted"]:
            per_line.setdefault(r["line"], {})[r["turn"]] = r["amount"]
            names[r["line"]] = r["name"]
    all_turns = sorted({r["turn"] for r in export.ers_rows(history, country, turns)})
    series = tuple(Series(f"{code} {names[code]}", tuple(all_turns), tuple(v.get(t, 0) for t in all_turns))
                   for code, v in per_line.items() if any(v.values()))
    return Chart(kind, f"{name}: {country}'s entered ERS lines per turn", "ducats", series, stacked=True)


_LOCK = threading.Lock()  # rcParams are process-wide: one figure at a time
_RC = {"svg.hashsalt": "wargame-ledger", "svg.fonttype": "none", "path.simplify": False}


def render(chart: Chart, fmt: str) -> bytes:
    """The chart as SVG or PNG bytes."""
    check_format(fmt)
    import matplotlib

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with _LOCK, matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8, 4.5), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if chart.stacked:
            up: dict[int, float] = {}
            down: dict[int, float] = {}
            for i, s in enumerate(chart.series):
                values = [float(v or 0) for v in s.values]
                bottoms = [(up if v >= 0 else down).get(t, 0.0) for t, v in zip(s.turns, values)]
                bars = ax.bar(s.turns, values, bottom=bottoms, label=s.label, width=0.6)
                for t, patch in zip(s.turns, bars.patches):
                    patch.set_gid(f"series-{i}-turn-{t}")
                for t, v in zip(s.turns, values):
                    side = up if v >= 0 else down
                    side[t] = side.get(t, 0.0) + v
            ax.axhline(0, color="black", linewidth=0.8)
        else:
            for i, s in enumerate(chart.series):
                (line,) = ax.plot(s.turns, [float("nan") if v is None else v for v in s.values], marker="o",
                                  label=s.label)
                line.set_gid(f"series-{i}")
        ax.set_title(chart.title)
        ax.set_xlabel("turn")
        ax.set_ylabel(chart.ylabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
        if chart.series:
            ax.legend(loc="best", fontsize="small")
        else:
            ax.text(0.5, 0.5, "nothing to plot", transform=ax.transAxes, ha="center", va="center")
        fig.tight_layout()
        out = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(out, format=fmt, metadata=metadata)
    return out.getvalue()
