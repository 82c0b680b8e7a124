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
  sheet, where a cost is a positive amount too (needs ``country``);
- ``sources``: one country's gross income (A14 = B25) by source, stacked per
  turn: the subtotals B25 adds up (``INCOME_SOURCES``; needs ``country``).

Made to be read: each country keeps one colour in every chart (a fixed palette
in the campaign's order of countries; A1 dashed and A33 solid in the treasury
chart), the y axis counts in whole numbers when every value is whole, a chart
whose values never change says so in words instead of drawing a flat line on a
magnified axis, titles carry the campaign's name, and the legend sits beside
the plot, never over it.

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
from ledger.i18n import N_, _
from projections import export
from projections.history import History
from projections.records import num

KINDS = ("treasury", "income", "inflation", "victory", "ers", "sources")
FORMATS = ("svg", "png")
MEDIA_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


#: Colour-blind-safe palette (Okabe and Ito), then matplotlib's tab10 for campaigns of many countries.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
           "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
#: What gross income adds up (ers.toml: A14 = B25 = B23 + B24, B23 = B5 + B8 + B16 + B21 + B22).
INCOME_SOURCES = ("B5", "B8", "B16", "B21", "B22", "B24")


def colours(countries: tuple[str, ...]) -> dict[str, str]:
    """One colour per country, by the campaign's order: the same country has the same colour in every chart."""
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(countries)}


@dataclass(frozen=True)
class Series:
    label: str
    turns: tuple[int, ...]
    values: tuple[float | int | None, ...]
    colour: str | None = None  # None: the next of the palette (lines of one country's sheet)
    dashed: bool = False


@dataclass(frozen=True)
class Chart:
    kind: str
    title: str
    ylabel: str
    series: tuple[Series, ...]
    stacked: bool = False  # bars stacked per turn (ers), else lines
    empty: str = N_("nothing to plot")  # said instead of an empty plot (in the reader's language: render)


def check_kind(kind: str, country: str | None = None) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"chart {kind!r}: one of {', '.join(KINDS)}", field="kind")
    if kind in ("ers", "sources") and country is None:
        raise InvalidInput(f"the {kind} chart is one country's sheet: name the country", field="country")
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


def _series(label: str, by_turn: dict[int, Any], colour: str | None = None, dashed: bool = False) -> Series:
    ts = tuple(sorted(by_turn))
    return Series(label, ts, tuple(by_turn[t] for t in ts), colour, dashed)


def chart_series(history: History, kind: str, country: str | None = None,
                 turns: tuple[int, int] | None = None) -> Chart:
    """The numbers a chart plots, from the same rows as the export."""
    check_kind(kind, country)
    export.check_country(history, country)
    name = history.title
    colour = colours(history.countries)
    if kind in ("treasury", "income"):
        codes = ("A1", "A33") if kind == "treasury" else ("A14",)
        found = _lines(history, codes, country, turns)
        series = tuple(_series(f"{c} {code}", found[(c, code)], colour[c], dashed=code == "A1")
                       for c in ((country,) if country else history.countries) for code in codes
                       if (c, code) in found)
        title = (_("{name}: royal treasury (A1 at start, A33 at end of turn)") if kind == "treasury"
                 else _("{name}: gross income (A14)")).format(name=name)
        return Chart(kind, title, _("ducats"), series)
    if kind == "inflation":
        rows = [r for r in export.inflation_rows(history, turns) if r["turn"] > 0]
        return Chart(kind, _("{name}: inflation box at end of turn").format(name=name), _("box"),
                     (_series(_("inflation"), {r["turn"]: r["end"] for r in rows}, "#444444"),))
    if kind == "victory":
        by_country: dict[str, dict[int, float | int]] = {}
        for r in export.victory_rows(history, country, turns):
            if r["turn"] > 0:
                total = num(r["total"])
                by_country.setdefault(r["country"], {})[r["turn"]] = (
                    int(total) if total.denominator == 1 else float(total))
        return Chart(kind, _("{name}: victory points (running total)").format(name=name), _("victory points"),
                     tuple(_series(c, v, colour[c]) for c, v in by_country.items()))
    assert country is not None  # check_kind
    if kind == "sources":
        found = _lines(history, INCOME_SOURCES, country, turns)
        all_turns = sorted({t for v in found.values() for t in v})
        defn = export.ers_definition()
        series = tuple(Series(f"{code} {_(defn.get(code).name)}", tuple(all_turns),
                              tuple(found.get((country, code), {}).get(t, 0) for t in all_turns))
                       for code in INCOME_SOURCES if any(found.get((country, code), {}).values()))
        return Chart(kind, _("{name}: {country}'s gross income (A14) by source").format(name=name, country=country),
                     _("ducats"), series, stacked=True,
                     empty=_("no income entered for {country} in these turns").format(country=country))
    # Entered money lines: the sheet's own movements (derived lines are their sums); ticks are in ducats.
    per_line: dict[str, dict[int, int]] = {}
    names: dict[str, str] = {}
    for r in export.ers_rows(history, country, turns):
        if r["kind"] == "entered" and r["unit"] in ("ducats", "ticks") and not r["defaulted"]:
            per_line.setdefault(r["line"], {})[r["turn"]] = r["amount"]
            names[r["line"]] = _(r["name"])
    all_turns = sorted({r["turn"] for r in export.ers_rows(history, country, turns)})
    series = tuple(Series(f"{code} {names[code]}", tuple(all_turns), tuple(v.get(t, 0) for t in all_turns))
                   for code, v in per_line.items() if any(v.values()))
    return Chart(kind, _("{name}: {country}'s entered ERS lines per turn").format(name=name, country=country),
                 _("ducats"), series, stacked=True)


_LOCK = threading.Lock()  # rcParams are process-wide: one figure at a time
_RC = {"svg.hashsalt": "wargame-ledger", "svg.fonttype": "none", "path.simplify": False}


def _whole(chart: Chart) -> bool:
    return all(isinstance(v, int) for s in chart.series for v in s.values if v is not None)


def flat_words(chart: Chart) -> str | None:
    """When no value of the chart ever changes, that in words (drawn, the flat line would sit on a
    magnified axis of ±0.04); else None. Stacked charts show their totals: never flat in this sense."""
    values = {v for s in chart.series for v in s.values if v is not None}
    if chart.stacked or len(values) != 1:
        return None
    [value] = values
    turns = sorted({t for s in chart.series for t in s.turns})
    span = (_("turn {turn}").format(turn=turns[0]) if len(turns) == 1
            else _("every turn from {first} to {last}").format(first=turns[0], last=turns[-1]))
    labels = ", ".join(s.label for s in chart.series)
    return _("{labels}: {value} in {span}, unchanged").format(labels=labels, value=value, span=span)


def render(chart: Chart, fmt: str) -> bytes:
    """The chart as SVG or PNG bytes."""
    check_format(fmt)
    import matplotlib

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    words = flat_words(chart)
    with _LOCK, matplotlib.rc_context(_RC):
        # Constrained layout keeps the legend placed beside the axes inside the figure.
        fig = Figure(figsize=(9, 4.5), dpi=100, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if words is not None:
            ax.set_axis_off()
            ax.text(0.5, 0.5, words, transform=ax.transAxes, ha="center", va="center", wrap=True)
        elif chart.stacked:
            up: dict[int, float] = {}
            down: dict[int, float] = {}
            for i, s in enumerate(chart.series):
                values = [float(v or 0) for v in s.values]
                bottoms = [(up if v >= 0 else down).get(t, 0.0) for t, v in zip(s.turns, values)]
                bars = ax.bar(s.turns, values, bottom=bottoms, label=s.label, width=0.6, color=s.colour)
                for t, patch in zip(s.turns, bars.patches):
                    patch.set_gid(f"series-{i}-turn-{t}")
                for t, v in zip(s.turns, values):
                    side = up if v >= 0 else down
                    side[t] = side.get(t, 0.0) + v
            ax.axhline(0, color="black", linewidth=0.8)
        else:
            for i, s in enumerate(chart.series):
                (line,) = ax.plot(s.turns, [float("nan") if v is None else v for v in s.values], marker="o",
                                  label=s.label, color=s.colour, linestyle="--" if s.dashed else "-")
                line.set_gid(f"series-{i}")
        ax.set_title(chart.title)
        if words is None:
            ax.set_xlabel(_("turn"))
            ax.set_ylabel(chart.ylabel)
            turns = sorted({t for s in chart.series for t in s.turns})
            if turns and len(turns) <= 20:  # a tick per turn (a locator puts fractions around a single turn)
                ax.set_xticks(turns)
                ax.set_xlim(turns[0] - 0.5, turns[-1] + 0.5)
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            if _whole(chart):
                ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(True, alpha=0.3)
            if chart.series:
                ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
            else:
                ax.set_axis_off()
                ax.text(0.5, 0.5, _(chart.empty), transform=ax.transAxes, ha="center", va="center")
        out = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(out, format=fmt, metadata=metadata)
    return out.getvalue()
