"""The shape of the code: the write side imports neither the read side nor the web layer, no import circles,
every write route takes a command model."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ledger", "projections", "api")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports, at any depth in the file (lazy imports count too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from package import submodule`` imports the submodule (its package's __init__ ran before
            # anything imports it); ``from module import name`` imports the module.
            targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                       for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def write_side(name: str) -> bool:
    return name.split(".")[0] == "ledger" and not name.startswith("ledger.cli")


def test_no_module_of_the_write_side_imports_projections_or_api():
    known = modules()
    offenders = {name: sorted(t for t in imports_of(name, path, set(known)) if not write_side(t)
                              and t.split(".")[0] != "ledger")
                 for name, path in known.items() if write_side(name)}
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize("package", ["ledger.application", "ledger.usecases", "ledger.domain.commands",
                                     "ledger.economy.sheets", "ledger.board", "ledger.scenario", "ledger.tokens"])
def test_importing_the_write_side_alone_loads_nothing_of_projections_or_api(package):
    code = (f"import sys, {package}; bad = sorted(m for m in sys.modules if m.split('.')[0] in ('projections', 'api'));"
            " print(','.join(bad)); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{package} loads {done.stdout.strip()} {done.stderr[-500:]}"


def test_no_two_modules_import_each_other_in_a_circle():
    """Type annotations' imports (``if TYPE_CHECKING``) and lazy ones count: a circle hidden behind them is
    still one in the design (the use cases were written against the whole application until ``ledger/draft.py``).
    A package importing its submodules to register them counts too: whoever imports the package imports them."""
    known = modules()
    graph = {name: imports_of(name, path, set(known)) for name, path in known.items()}
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_every_write_route_takes_a_command_model_as_its_body_or_builds_one():
    from fastapi.routing import APIRoute

    import importlib

    from ledger.domain.commands import Command

    routers = [getattr(importlib.import_module(f"api.routes.{path.stem}"), "router", None)
               for path in sorted((ROOT / "api" / "routes").glob("*.py"))]
    routes = [r for router in routers if router is not None for r in router.routes]
    surfaces = {}
    for route in routes:
        if not isinstance(route, APIRoute) or "POST" not in route.methods or route.path.startswith("/ui"):
            continue
        body = route.body_field.field_info.annotation if route.body_field is not None else None
        source = Path(sys.modules[route.endpoint.__module__].__file__).read_text(encoding="utf-8")
        fn = next(n for n in ast.walk(ast.parse(source))
                  if isinstance(n, ast.FunctionDef) and n.name == route.endpoint.__name__)
        text = ast.unparse(fn)
        builds = "cmd.build(" in text or "cmd.OpenTurn(" in text or "cmd.CloseTurn(" in text
        takes = isinstance(body, type) and issubclass(body, Command)
        assert takes or builds, f"POST {route.path} neither takes nor builds a command"
        # A what-if drafts its command through the same use case (``Ledger.drafted``) and records nothing.
        assert "ledger.handle(" in text or "tokens.issue_token(" in text or "ledger.drafted(" in text, \
            f"POST {route.path} bypasses handle"
        surfaces[route.path] = body.__name__ if takes else "built"
    assert len(surfaces) >= 17, surfaces  # every write of the API, map commands included


def test_route_modules_define_no_schemas_they_all_live_in_api_schemas():
    offenders = []
    for path in sorted((ROOT / "api" / "routes").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b).endswith(("BaseModel", "EventPublic", "Appended"))
                                                      for b in node.bases):
                offenders.append(f"{path.name}:{node.name}")
    assert offenders == []
