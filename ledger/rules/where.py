"""Where a procedure lives: its module, its tables, its DECISIONS.md headings and the tests naming it.

For ``ledger procedures RULESET --where`` and for the test that keeps every procedure documented and
tested. Reads source files only (no import of the tests, nothing written).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ledger.rules.core import Procedure, Ruleset

_TABLE_RE = re.compile(r"[\"']([A-Za-z0-9_]+\.(?:toml|json|csv))[\"']")
#: "## M2/M3 — the rounds display …" → codes "M2", "M3"; the codes are what precedes the dash.
_HEADING_RE = re.compile(r"^## (?P<codes>[^—\n]+?) — (?P<title>.+)$", re.M)


@dataclass(frozen=True)
class Where:
    code: str
    title: str
    module: str  # path from the project's root
    resolver: str
    tables: tuple[str, ...]
    decisions: tuple[str, ...]  # DECISIONS.md headings naming this code alone
    shared_decisions: tuple[str, ...]  # headings naming it among other codes
    tests: tuple[str, ...]  # "path::test_name"


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_root()))
    except ValueError:
        return str(path)


def decision_headings(ruleset_id: str) -> list[tuple[tuple[str, ...], str]]:
    """Each heading of a ruleset's DECISIONS.md as (codes it names, full heading text)."""
    path = project_root() / "ledger" / "rules" / ruleset_id / "DECISIONS.md"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    out = []
    for m in _HEADING_RE.finditer(text):
        codes = tuple(c.strip() for c in m["codes"].split("/"))
        out.append((codes, m.group(0)[3:]))
    return out


@cache
def _test_files() -> tuple[tuple[str, dict[str, str], dict[str, str]], ...]:
    """Per test file under tests/ (none when tests are not shipped): its test functions and its module-level
    helpers (functions and assignments such as ``M14 = EU.get("M14")``), each name → source."""
    root = project_root() / "tests"
    found = []
    for path in sorted(root.rglob("test_*.py")) if root.exists() else ():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        tests, helpers = {}, {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                tests[node.name] = ast.get_source_segment(source, node) or ""
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("test_"):
                helpers[node.name] = ast.get_source_segment(source, node) or ""
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        helpers[target.id] = ast.get_source_segment(source, node) or ""
        found.append((_relative(path), tests, helpers))
    return tuple(found)


def tests_naming(code: str, resolver: str = "") -> tuple[str, ...]:
    """Tests whose name or body names the procedure code as a word ("M14", ``test_m14_…``) or call its
    resolver by name."""
    word = rf"(?<![A-Za-z0-9]){re.escape(code)}(?![0-9])"
    in_name, in_body = re.compile(word, re.I), re.compile(word)
    calls = re.compile(rf"\b{re.escape(resolver)}\(") if resolver else None

    def names(src: str) -> bool:
        return bool(in_body.search(src) or (calls and calls.search(src)))

    out = []
    for f, tests, helpers in _test_files():
        # A test naming the procedure through a helper of its file (m4(...), M21.resolve(...)) names it too.
        via = [re.compile(rf"\b{re.escape(h)}\b") for h, src in helpers.items() if names(src)]
        for name, src in tests.items():
            if in_name.search(name.replace("_", " ")) or names(src) or any(v.search(src) for v in via):
                out.append(f"{f}::{name}")
    return tuple(out)


def table_names(resolver: Callable[..., Any]) -> list[str]:
    """The table files a resolver reads: those named in its own body and in every function of the rules it
    calls, directly or through others, and in the constants they refer to (``REMAINDERS_FILES``), in the order
    met. Not the module's whole source: two procedures of one module read different tables (M9 and M10)."""
    package = resolver.__module__.rpartition(".")[0]  # the ruleset's own: not the shared loader's examples
    found: list[str] = []
    seen: set[int] = set()
    todo: list[Any] = [resolver]
    while todo:
        func = inspect.unwrap(todo.pop(0))
        if id(func) in seen or not inspect.isfunction(func) or not func.__module__.startswith(package):
            continue
        seen.add(id(func))
        try:
            source = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError):
            continue
        found += _TABLE_RE.findall(source)
        for node in ast.walk(ast.parse(source)):
            for value in _referred(node, func.__globals__, package):
                if callable(value):
                    todo.append(value)
                elif isinstance(value, (str, Mapping, tuple, list, frozenset)):
                    found += _TABLE_RE.findall(repr(value))
                    # a dispatch table (table key -> its resolver): the functions it holds are called too
                    todo += [v for v in (value.values() if isinstance(value, Mapping) else value) if callable(v)]
    return list(dict.fromkeys(found))


def _referred(node: ast.AST, names: Mapping[str, Any], package: str) -> list[Any]:
    """What a name (``f``) or a module's attribute (``attrition.f``) in a function's body refers to."""
    if isinstance(node, ast.Name):
        return [names[node.id]] if node.id in names else []
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        module = names.get(node.value.id)
        if inspect.ismodule(module) and module.__name__.startswith(package):
            return [getattr(module, node.attr)] if hasattr(module, node.attr) else []
    return []


def where(ruleset: Ruleset, proc: Procedure) -> Where:
    module = sys.modules[proc.resolver.__module__]
    path = Path(module.__file__ or "")
    tables_dir = path.parent / "tables"
    tables = tuple(_relative(tables_dir / t) for t in table_names(proc.resolver) if (tables_dir / t).exists())
    heads = decision_headings(ruleset.id)
    return Where(
        code=proc.code, title=proc.title, module=_relative(path), resolver=proc.resolver.__name__, tables=tables,
        decisions=tuple(h for codes, h in heads if codes == (proc.code,)),
        shared_decisions=tuple(h for codes, h in heads if proc.code in codes and len(codes) > 1),
        tests=tests_naming(proc.code, proc.resolver.__name__),
    )
