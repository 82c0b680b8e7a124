"""The routers are included most requested first (api/main.py): that is only a speed-up if no two routes answer
the same request, so that whichever order they are matched in, every request reaches the same route."""

from __future__ import annotations

import re

from starlette.routing import Match

from api.main import create_app
from ledger.config import Settings


def _routes(app):
    found = []
    for top in app.router.routes:
        if hasattr(top, "effective_route_contexts"):  # an included router: its routes, prefixed
            found += [(c.path, c.original_route.methods, c) for c in top.effective_route_contexts()]
    return found


def _request(method: str, path: str) -> dict:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": [], "query_string": b""}


def test_no_two_routes_answer_the_same_request():
    routes = _routes(create_app(Settings(env="test", admin_token="unused")))
    assert len(routes) > 50  # every router's routes were found, not an empty walk
    for path, methods, _ in routes:
        # A value in each parameter that no literal segment spells, and each literal segment as a value: a route
        # ".../ers/publish" and a route ".../ers/{country}" of the same method would both answer the second.
        for value in ("v1", *re.findall(r"/([a-z.]+)(?=/|$)", path)):
            concrete = re.sub(r"\{[^}]+\}", value, path)
            for method in methods:
                answering = [p for p, m, c in routes if method in m and c.matches(_request(method, concrete))[0] == Match.FULL]
                assert len(answering) <= 1, f"{method} {concrete} is answered by {answering}"
                if value == "v1":
                    assert answering == [path], f"{method} {concrete} reaches {answering}, not {path}"


def test_every_route_is_reached_through_the_app():
    """The app's own dispatch (the routers most requested first, each turning away paths outside its prefix, the
    web pages most opened first: api/main.py, api/routes/web.py) sends a request for each route to that route."""
    app = create_app(Settings(env="test", admin_token="unused"))
    tops = [r for r in app.router.routes if hasattr(r, "effective_route_contexts")]
    checked = 0
    for path, methods, _ in _routes(app):
        concrete = re.sub(r"\{[^}]+\}", "v1", path)
        for method in methods:
            first = next(r for r in tops if r.matches(_request(method, concrete))[0] == Match.FULL)
            _, _, route, _ = first._match(_request(method, concrete))
            assert route.path == path, f"{method} {concrete} reaches {route.path}"
            checked += 1
    assert checked > 50
    # A path outside every prefix is no router's, and the quick answer is the full one's.
    assert all(r.matches(_request("GET", "/nowhere/at/all"))[0] == Match.NONE for r in tops)


def _nodes(dependant) -> int:
    return sum(1 + _nodes(d) for d in dependant.dependencies)


def test_a_read_route_names_each_dependency_once():
    """FastAPI walks a route's whole tree of dependencies on every request, a node each time one is named, even
    when its value is kept: the read routes' tree stays small (api/deps.py; it was 15-16 nodes)."""
    routes = {(p, tuple(sorted(m))): c for p, m, c in _routes(create_app(Settings(env="test", admin_token="x")))}
    for path in ("/campaigns/{campaign}/state", "/campaigns/{campaign}/ers/{country}/{turn}",
                 "/campaigns/{campaign}/turns/{turn}/timeline", "/campaigns/{campaign}/events"):
        dependant = routes[(path, ("GET",))].original_route.dependant
        assert _nodes(dependant) <= 9, path  # 8, and the ledger for a route that reads the store itself
        # each of the caller, the campaign and the reads is resolved, the bearer scheme documented
        names = {d.call.__name__ for d in _walk(dependant) if hasattr(d.call, "__name__")}
        assert {"get_caller", "resolve_campaign", "get_actor", "campaign_state", "get_reads"} <= names, path


def _walk(dependant):
    for d in dependant.dependencies:
        yield d
        yield from _walk(d)
