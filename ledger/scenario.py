"""Campaign set-up from a scenario file (YAML or JSON).

A scenario declares the countries (treasury, stability), the inflation box,
provinces and sea zones, their adjacency, the starting stacks with their units
and leaders, and the wars in progress. It is validated here (every error names
the line of the file and the field), then recorded as one ``ScenarioImported``
event right after ``CampaignCreated``: the projections build the starting map
and tracks from that event alone.

JSON is read with the YAML composer too (JSON is YAML), so both formats get
line numbers from the node marks.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from importlib import resources
from functools import cache
from typing import Any, Literal
from uuid import UUID

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.board import BoardError, load_board
from ledger.domain.actors import SYSTEM, Actor
from ledger.domain.campaign import COUNTRY_RE, campaign_id
from ledger.domain.commands import UNIT_TYPES, ImportScenario
from ledger.domain.errors import InvalidInput
from ledger.draft import Appended, Writes


Terrain = Literal["plain", "forest", "hills", "mountain", "swamp", "desert", "steppe", "sea"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CountryIn(_Strict):
    code: str = Field(pattern=COUNTRY_RE.pattern)
    name: str = Field(min_length=1, max_length=80)
    player: str | None = Field(default=None, max_length=80)
    treasury: int = Field(ge=-100_000, le=100_000, description="Starting treasury, ducats")
    stability: int = Field(ge=-3, le=3)
    capitals: list[str] = Field(default_factory=list, max_length=20,
                                description="Its capital provinces (the Hanse has four)")
    national_provinces: list[str] = Field(default_factory=list, max_length=200)


class ProvinceIn(_Strict):
    name: str = Field(min_length=1, max_length=80)
    terrain: Terrain = "plain"
    owner: str | None = None
    controller: str | None = None  # defaults to the owner
    income: int = Field(default=0, ge=0, le=100)
    fortress: int = Field(default=0, ge=0, le=5)
    coastal: bool = False
    area: str | None = Field(default=None, max_length=80)
    markers: list[str] = Field(default_factory=list)


class SeaZoneIn(_Strict):
    name: str = Field(min_length=1, max_length=80)
    area: str | None = Field(default=None, max_length=80)


class LeaderIn(_Strict):
    name: str = Field(min_length=1, max_length=80)
    kind: Literal["general", "admiral", "explorer", "conquistador", "governor", "monarch"] = "general"
    fire: int = Field(default=0, ge=0, le=9)
    shock: int = Field(default=0, ge=0, le=9)
    manoeuvre: int = Field(default=0, ge=0, le=9)
    siege: int = Field(default=0, ge=0, le=5)


class StackIn(_Strict):
    id: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    country: str
    location: str
    units: dict[str, int] = Field(default_factory=dict)
    leaders: list[LeaderIn] = Field(default_factory=list)


class ScenarioIn(_Strict):
    name: str = Field(min_length=1, max_length=200)
    ruleset: str = "eu"
    board: str | None = Field(default=None, max_length=40,
                              description="Board the places are checked against (ledger.board), e.g. 'eu'")
    year: int | None = Field(default=None, ge=1000, le=2000)
    inflation: int = Field(default=0, ge=0, le=20, description="Box of the inflation track")
    countries: list[CountryIn] = Field(min_length=1)
    provinces: list[ProvinceIn] = Field(default_factory=list)
    sea_zones: list[SeaZoneIn] = Field(default_factory=list)
    adjacency: list[tuple[str, str]] = Field(default_factory=list)
    stacks: list[StackIn] = Field(default_factory=list)
    wars: list[tuple[list[str], list[str]]] = Field(default_factory=list, description="[attackers, defenders]")
    start: str | None = Field(default=None, pattern=r"^start_[a-z0-9_]{1,40}$",
                              description="The ruleset's table of the economic facts its placement gives "
                                          "(tables/NAME.toml), recorded at set-up (ledger/usecases/start.py)")


#: libyaml's loader when PyYAML was built with it: ten times faster on the 3,000 lines of eu-1492.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ScenarioError(InvalidInput):
    """A scenario that does not validate: ``line`` (1-based) and ``field`` say where."""

    def __init__(self, message: str, *, field: str, line: int | None):
        where = f"line {line}: " if line else ""
        super().__init__(f"{where}{field}: {message}", field=field)
        self.line = line


# ----------------------------------------------------------------- parsing


def _marks(node: yaml.Node, path: tuple = (), out: dict | None = None) -> dict[tuple, int]:
    """Every path of the document to the 1-based line its node starts on."""
    out = {} if out is None else out
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = k.value
            out[(*path, key)] = k.start_mark.line + 1
            _marks(v, (*path, key), out)
            out[(*path, key)] = k.start_mark.line + 1  # the key's line names the field best
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _marks(v, (*path, i), out)
    return out


def _line(marks: dict[tuple, int], path: tuple) -> int | None:
    path = tuple(path)
    while path not in marks and path:
        path = path[:-1]
    return marks.get(path)


def _field(path: tuple) -> str:
    text = ""
    for p in path:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else str(p))
    return text or "scenario"


def parse(text: str, source: str = "scenario") -> tuple[ScenarioIn, dict[tuple, int]]:
    try:
        node = yaml.compose(text, Loader=_LOADER)
        data = yaml.load(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as e:
        line = e.problem_mark.line + 1 if e.problem_mark else None
        raise ScenarioError(f"not valid YAML/JSON: {e.problem}", field="scenario", line=line) from None
    if node is None or not isinstance(data, dict):
        raise ScenarioError("a scenario is a mapping (name, countries, provinces...)", field="scenario", line=1)
    marks = _marks(node)
    try:
        model = ScenarioIn.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = tuple(p for p in first["loc"])
        raise ScenarioError(first["msg"], field=_field(loc), line=_line(marks, loc)) from None
    _check_references(model, marks)
    return model, marks


def _check_references(s: ScenarioIn, marks: dict[tuple, int]) -> None:
    def fail(message: str, *path: Any) -> None:
        raise ScenarioError(message, field=_field(path), line=_line(marks, path))

    countries = [c.code for c in s.countries]
    for i, c in enumerate(countries):
        if c in countries[:i]:
            fail(f"country {c!r} is declared twice", "countries", i, "code")
    names: dict[str, str] = {}
    for kind, items in (("provinces", s.provinces), ("sea_zones", s.sea_zones)):
        for i, p in enumerate(items):
            if p.name in names:
                fail(f"{p.name!r} is declared twice", kind, i, "name")
            names[p.name] = kind
    for i, p in enumerate(s.provinces):
        for fld in ("owner", "controller"):
            value = getattr(p, fld)
            if value is not None and value not in countries:
                fail(f"unknown country {value!r} (declared: {', '.join(countries)})", "provinces", i, fld)
    for i, c in enumerate(s.countries):
        for key in ("capitals", "national_provinces"):
            for j, name in enumerate(getattr(c, key)):
                if names.get(name) != "provinces":
                    fail(f"unknown province {name!r}", "countries", i, key, j)
    for i, (a, b) in enumerate(s.adjacency):
        for j, name in enumerate((a, b)):
            if name not in names:
                fail(f"unknown province or sea zone {name!r}", "adjacency", i, j)
        if a == b:
            fail(f"{a!r} cannot be adjacent to itself", "adjacency", i)
    if s.board is not None:
        _check_board(s, fail)
    stack_ids: set[str] = set()
    leaders: set[str] = set()
    for i, st in enumerate(s.stacks):
        if st.id in stack_ids:
            fail(f"stack {st.id!r} is declared twice", "stacks", i, "id")
        stack_ids.add(st.id)
        if st.country not in countries:
            fail(f"unknown country {st.country!r}", "stacks", i, "country")
        if st.location not in names:
            fail(f"unknown province or sea zone {st.location!r}", "stacks", i, "location")
        for unit, n in st.units.items():
            if unit not in UNIT_TYPES:
                fail(f"unknown unit type {unit!r} (one of {', '.join(UNIT_TYPES)})", "stacks", i, "units", unit)
            if not 0 <= n <= 200:
                fail(f"{n} {unit}: between 0 and 200", "stacks", i, "units", unit)
        for j, ld in enumerate(st.leaders):
            if ld.name in leaders:
                fail(f"leader {ld.name!r} is declared twice", "stacks", i, "leaders", j, "name")
            leaders.add(ld.name)
    for i, (att, dfn) in enumerate(s.wars):
        for j, side in enumerate((att, dfn)):
            for c in side:
                if c not in countries:
                    fail(f"unknown country {c!r}", "wars", i, j)


def _check_board(s: ScenarioIn, fail: Any) -> None:
    """Every place is the board's, of the same kind, and every adjacency one of its borders."""
    try:
        board = load_board(s.board)
    except BoardError as e:
        fail(e.message, "board")
    for kind, items, table in (("provinces", s.provinces, {**board.provinces, **board.rotw}),
                               ("sea_zones", s.sea_zones, board.seas)):
        for i, p in enumerate(items):
            if p.name not in table:
                close = difflib.get_close_matches(p.name, list(table), n=3)
                hint = f" (close: {', '.join(close)})" if close else ""
                fail(f"{p.name!r} is not a {kind[:-1].replace('_', ' ')} of board {s.board!r}{hint}", kind, i, "name")
    for i, (a, b) in enumerate(s.adjacency):
        if board.border(a, b) is None:
            fail(f"{a!r} and {b!r} share no border on board {s.board!r}", "adjacency", i)


def normalise(s: ScenarioIn) -> dict[str, Any]:
    """The JSON the event carries: controller defaulted to the owner, adjacency sorted."""
    doc = s.model_dump(mode="json")
    for key in ("board", "start"):
        if doc[key] is None:
            del doc[key]  # scenarios without one record exactly what they recorded before the field existed
    for c in doc["countries"]:  # likewise a country without a capital or national provinces
        for key in ("capitals", "national_provinces"):
            if not c[key]:
                del c[key]
    for p in doc["provinces"]:
        p["controller"] = p["controller"] or p["owner"]
    doc["adjacency"] = sorted(sorted(pair) for pair in doc["adjacency"])
    return doc


SHIPPED_RE = r"^[a-z0-9][a-z0-9-]{0,40}$"


def shipped_names() -> list[str]:
    """The scenarios shipped with the package, by name (``eu-1492``, ``sample``...)."""
    return sorted(f.name.removesuffix(".yaml") for f in resources.files("ledger.scenarios").iterdir()
                  if f.name.endswith(".yaml"))


def load_text(name: str) -> str:
    """A scenario shipped with the package (``ledger/scenarios/NAME.yaml``)."""
    if name not in shipped_names():
        raise InvalidInput(f"no scenario {name!r} (shipped: {', '.join(shipped_names())})", field="scenario")
    return resources.files("ledger.scenarios").joinpath(f"{name}.yaml").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Shipped:
    """A shipped scenario, validated: what ``CreateCampaign(scenario=NAME)`` records."""

    name: str
    source: str
    sha256: str
    doc: dict[str, Any]


@cache
def shipped(name: str) -> Shipped:
    """Parse and check a shipped scenario once per process (eu-1492 is 3,000 lines: half a second)."""
    text = load_text(name)
    model, _ = parse(text, f"ledger/scenarios/{name}.yaml")
    return Shipped(model.name, f"ledger/scenarios/{name}.yaml", hashlib.sha256(text.encode()).hexdigest(),
                   normalise(model))


# ----------------------------------------------------------------- use case


def import_scenario(
    ledger: Writes,
    text: str,
    *,
    slug: str,
    name: str | None = None,
    source: str = "scenario",
    actor: Actor = SYSTEM,
    idempotency_key: str | None = None,
) -> tuple[UUID, Appended]:
    """Create a campaign from a scenario: ``CampaignCreated`` then ``ScenarioImported``.

    Validation happens before anything is appended. The two appends are two
    commands (creation has its own idempotency); the second refuses unless the
    campaign holds only its creation event, so a scenario can never land
    mid-game or twice.
    """
    model, _ = parse(text, source)
    doc = normalise(model)
    digest = hashlib.sha256(text.encode()).hexdigest()
    countries = [c["code"] for c in doc["countries"]]
    players = {c["code"]: c["player"] for c in doc["countries"] if c["player"]}
    ledger.create_campaign(
        slug=slug, name=name or model.name, ruleset=model.ruleset, countries=countries, players=players,
        actor=actor,
        idempotency_key=f"{idempotency_key}:create" if idempotency_key else None,
    )
    cid = campaign_id(slug)

    command = ImportScenario(name=model.name, source=source[:500], sha256=digest, scenario=doc)
    result = ledger.handle(cid, command, actor=actor,
                           idempotency_key=f"{idempotency_key}:scenario" if idempotency_key else None)
    return cid, result
