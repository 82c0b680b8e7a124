"""The game board as data: provinces, sea zones, borders and countries of a ruleset.

``load_board("eu")`` reads the files ``ops/import_board.py`` wrote into
``ledger/rules/eu/board/`` (package data) once per process. Places are named as
printed (the tables' ids without their one-letter prefix); countries by their
ledger code. Looking up a name the board does not have raises ``BoardError``,
which names the field and the closest names.

Write-side code: imports nothing from the read side (projections), the web
layer (api) or the application.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Iterable, Literal, Mapping

from ledger.i18n import gettext
from ledger.domain.errors import InvalidInput

_RULESET_RE = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
BorderType = Literal["plain", "river", "pass", "strait", "bering_strait"]


class BoardError(InvalidInput, ValueError):
    """A name the board does not have; ``field`` says which lookup, the message lists close names."""


@dataclass(frozen=True)
class Province:
    """A European province as printed: owner is a ledger country code (None: unowned)."""

    name: str
    terrain: str  # plain, dense_forest, sparse_forest, mountain, desert, swamp
    income: int
    fortress: int
    owner: str | None
    capital: bool
    port: bool
    arsenal: bool
    praesidiable: bool
    salt: int | None
    gold: int | None
    symbol: str | None  # the printed {1} / {½}
    other_names: tuple[str, ...]


@dataclass(frozen=True)
class Region:
    name: str
    income: int | None
    difficulty: int | None
    tolerance: int | None
    natives_number: int | None
    natives_type: str | None
    cold_area: int | None
    resources: Mapping[str, int]


@dataclass(frozen=True)
class RotwProvince:
    """A rest-of-the-world province; its figures are its region's."""

    name: str
    region: str
    terrain: str
    fortress: int | None
    gold: int | None
    other_names: tuple[str, ...]


@dataclass(frozen=True)
class SeaZone:
    name: str
    difficulty: int
    penalty: int


@dataclass(frozen=True)
class TradeZone:
    """A trade zone as printed: a sea trade zone (STZ) or a country's trade zone (CTZ), in a sea zone, with
    the presence value (small print) and the monopoly value (large print). Named by the board's id (ZMLion)."""

    name: str
    type: Literal["STZ", "CTZ"]
    sea: str
    country: str | None  # whose CTZ it is (None: an STZ, or the Baltic's CTZ, nobody's)
    presence: int
    monopoly: int


@dataclass(frozen=True)
class Country:
    code: str
    name: str  # the tables' French short name (angleterre)
    label: str
    type: str  # major, minormajor, minor, hab, rotw, revolt, virtual
    culture: str | None
    religion: str | None
    army_class: str | None
    hre: bool
    elector: bool
    national_provinces: tuple[str, ...]
    capitals: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    ruleset: str
    provinces: Mapping[str, Province]
    rotw: Mapping[str, RotwProvince]
    regions: Mapping[str, Region]
    seas: Mapping[str, SeaZone]
    countries: Mapping[str, Country]
    borders: Mapping[frozenset[str], BorderType]
    trade_zones: Mapping[str, TradeZone]
    _neighbours: Mapping[str, tuple[str, ...]] = field(repr=False)

    @property
    def places(self) -> frozenset[str]:
        """Every place name: European and rest-of-the-world provinces, sea zones."""
        return frozenset(self.provinces) | frozenset(self.rotw) | frozenset(self.seas)

    def province(self, name: str) -> Province:
        return _lookup(self.provinces, name, "province")

    def rotw_province(self, name: str) -> RotwProvince:
        return _lookup(self.rotw, name, "rotw_province")

    def region(self, name: str) -> Region:
        return _lookup(self.regions, name, "region")

    def sea(self, name: str) -> SeaZone:
        return _lookup(self.seas, name, "sea")

    def country(self, code: str) -> Country:
        return _lookup(self.countries, code, "country")

    def neighbours(self, name: str) -> tuple[str, ...]:
        """The places sharing a border with ``name``, sorted."""
        return _lookup(self._neighbours, name, "place")

    def border(self, a: str, b: str) -> BorderType | None:
        """The border's type, or None when the two places are not adjacent."""
        for n, fld in ((a, "a"), (b, "b")):
            _lookup(self._neighbours, n, fld)
        return self.borders.get(frozenset((a, b)))


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


#: How close a name must be to be proposed (difflib's ratio), and how far behind the closest one it may be.
CUTOFF, MARGIN = 0.6, 0.1


def close_names(name: str, known: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None,
                n: int = 4) -> list[str]:
    """The known names closest to a misspelt ``name``, closest first (case and repeated spaces ignored). With
    ``aliases`` (a name -> its other spellings), a spelling close to ``name`` proposes the name it stands for,
    shown "name (spelling)" when they differ: "Frnace" -> "FRA (France)"."""
    spellings: dict[str, tuple[str, str]] = {}
    for k in known:
        spellings.setdefault(_fold(k), (k, k))
    for k, others in (aliases or {}).items():
        for other in others:
            spellings.setdefault(_fold(other), (k, other))
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(_fold(name))
    scored: list[tuple[float, str]] = []
    for key in spellings:
        matcher.set_seq1(key)
        if matcher.real_quick_ratio() >= CUTOFF and matcher.quick_ratio() >= CUTOFF and matcher.ratio() >= CUTOFF:
            scored.append((matcher.ratio(), key))
    scored.sort(key=lambda s: (-s[0], s[1]))
    best = scored[0][0] if scored else 0.0
    out: list[str] = []
    seen: set[str] = set()
    for score, close in scored:
        if score < best - MARGIN:  # far behind the closest: not what was meant
            break
        k, spelling = spellings[close]
        if k not in seen:
            seen.add(k)
            out.append(k if _fold(k) == _fold(spelling) else f"{k} ({spelling})")
    return out[:n]


def did_you_mean(name: str, known: Iterable[str], *, aliases: Mapping[str, Iterable[str]] | None = None,
                 quote: bool = True, lead: str = "; ") -> str:
    """"; did you mean 'Picardie'?" for a misspelt name (the closest known ones, closest first), else "".
    The project's one "did you mean": places, stacks and the closed vocabularies of the rules
    (``ledger/rules/names.py``, unquoted after a colon: "unknown minor 'Venisse': did you mean venise?")."""
    close = close_names(name, known, aliases)
    if not close:
        return ""
    return lead + gettext("did you mean {names}?").format(names=", ".join(repr(c) if quote else c for c in close))


def _lookup(table: Mapping[str, Any], name: str, fld: str) -> Any:
    try:
        return table[name]
    except KeyError:
        raise BoardError(f"no {fld.replace('_', ' ')} {name!r} on the board{did_you_mean(name, table)}",
                         field=fld) from None


def _read(ruleset: str, file: str) -> Any:
    path = resources.files(f"ledger.rules.{ruleset}").joinpath("board", file)
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def load_board(ruleset: str = "eu") -> Board:
    """The board shipped with a ruleset (read once per process)."""
    if not _RULESET_RE.match(ruleset):  # a package name, never a path or a dotted module
        raise BoardError(f"ruleset {ruleset!r} ships no board", field="ruleset")
    try:
        provinces = _read(ruleset, "provinces.json")
    except (ModuleNotFoundError, FileNotFoundError):
        raise BoardError(f"ruleset {ruleset!r} ships no board", field="ruleset") from None
    rotw = _read(ruleset, "rotw.json")
    seas = _read(ruleset, "seas.json")
    frozen = MappingProxyType
    borders = {frozenset((a, b)): t for a, b, t in _read(ruleset, "borders.json")}
    places = [*provinces, *rotw["provinces"], *seas]
    neighbours: dict[str, list[str]] = {p: [] for p in places}
    for pair in borders:
        a, b = sorted(pair)
        neighbours[a].append(b)
        neighbours[b].append(a)
    return Board(
        ruleset=ruleset,
        provinces=frozen({n: Province(name=n, **{**p, "other_names": tuple(p["other_names"])})
                          for n, p in provinces.items()}),
        rotw=frozen({n: RotwProvince(name=n, **{**p, "other_names": tuple(p["other_names"])})
                     for n, p in rotw["provinces"].items()}),
        regions=frozen({n: Region(name=n, **{**r, "resources": frozen(r["resources"])})
                        for n, r in rotw["regions"].items()}),
        seas=frozen({n: SeaZone(name=n, **s) for n, s in seas.items()}),
        countries=frozen({c: Country(code=c, **{**v, "national_provinces": tuple(v["national_provinces"]),
                                                 "capitals": tuple(v["capitals"])})
                          for c, v in _read(ruleset, "countries.json").items()}),
        borders=frozen(borders),
        trade_zones=frozen({n: TradeZone(name=n, **z) for n, z in _read(ruleset, "trade_zones.json").items()}),
        _neighbours=frozen({p: tuple(sorted(ns)) for p, ns in neighbours.items()}),
    )


@cache
def load_geometry(ruleset: str = "eu") -> Mapping[str, Any]:
    """Polygons (MultiPolygon coordinates, y northwards) of the European provinces and sea zones.

    Separate from ``load_board``: half a megabyte nobody resolving rules needs.
    """
    return MappingProxyType(_read(ruleset, "geometry.json"))
