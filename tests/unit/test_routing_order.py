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


def test_a_request_reaches_its_route_through_the_app():
    """The app's own dispatch (the order of api/main.py) sends a page, a JSON read and a write where they belong."""
    app = create_app(Settings(env="test", admin_token="unused"))
    tops = [r for r in app.router.routes if hasattr(r, "effective_route_contexts")]
    for method, path, template in [("GET", "/ui/campaigns/c/turns/2", "/ui/campaigns/{campaign}/turns/{turn}"),
                                   ("GET", "/campaigns/c/state", "/campaigns/{campaign}/state"),
                                   ("GET", "/campaigns/c/ers/FRA/2", "/campaigns/{campaign}/ers/{country}/{turn}"),
                                   ("POST", "/campaigns/c/rulings", "/campaigns/{campaign}/rulings"),
                                   ("GET", "/health", "/health")]:
        first = next(r for r in tops if r.matches(_request(method, path))[0] == Match.FULL)
        _, _, route, _ = first._match(_request(method, path))
        assert route.path == template
