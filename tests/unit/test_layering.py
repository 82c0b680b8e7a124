"""The web layer reads through the public read API: no private name of ``projections`` in ``api/``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def private_uses(path: Path) -> list[str]:
    """``from projections.x import _y``, and ``m._y`` where ``m`` names a ``projections`` module."""
    tree = ast.parse(path.read_text(), str(path))
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "projections":
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{path.name}:{node.lineno} from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)  # ``from projections import replay``
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "projections":
                    modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = ast.unparse(node.value)
            if base in modules or base.startswith("projections."):
                found.append(f"{path.name}:{node.lineno} {base}.{node.attr}")
    return found


def test_api_imports_no_private_name_of_projections():
    found = [use for path in sorted((ROOT / "api").rglob("*.py")) for use in private_uses(path)]
    assert found == []


def test_the_scan_finds_a_private_use(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("from projections import replay as r\nfrom projections.replay import _records\n"
                      "r._check_position(1)\n")
    assert len(private_uses(sample)) == 2
