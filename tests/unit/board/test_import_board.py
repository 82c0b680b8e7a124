"""The importer: it rebuilds the shipped board from the raw files, and refuses what does not match."""

from __future__ import annotations

import importlib.util
import sys
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RAW = ROOT.parent / "shared" / "board" / "eu"  # ../shared/board/eu beside the checkout: never shipped
SHIPPED = Path(str(resources.files("ledger.rules.eu").joinpath("board")))
SCENARIOS = Path(str(resources.files("ledger.scenarios")))


def _importer():
    spec = importlib.util.spec_from_file_location("import_board", ROOT / "ops" / "import_board.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_board", module)
    spec.loader.exec_module(module)
    return module


ib = _importer()
needs_raw = pytest.mark.skipif(not (RAW / "referential.json").exists(),
                               reason=f"the raw board files are not at {RAW} (they are never shipped)")


@needs_raw
def test_importer_rebuilds_the_shipped_board_byte_for_byte(tmp_path):
    assert ib.main(["--source", str(RAW), "--out", str(tmp_path / "board"), "--scenarios", str(tmp_path)]) == 0
    shipped = sorted(p.name for p in SHIPPED.iterdir() if p.is_file())
    assert sorted(p.name for p in (tmp_path / "board").iterdir()) == shipped
    for name in shipped:
        assert (tmp_path / "board" / name).read_bytes() == (SHIPPED / name).read_bytes(), name
    for name in ("eu-1492.yaml", "sample-real.yaml"):
        assert (tmp_path / name).read_bytes() == (SCENARIOS / name).read_bytes(), name


def test_shipped_scenarios_are_what_the_importer_makes_from_the_shipped_board():
    texts = ib.write_scenarios(SHIPPED, None)
    for name, text in texts.items():
        assert (SCENARIOS / name).read_text(encoding="utf-8") == text, name


def test_every_country_code_in_the_mapping_is_unique():
    codes = [code for code, _ in ib.COUNTRIES.values()]
    assert len(codes) == len(set(codes)) == 119


@needs_raw
def test_a_polygon_without_its_alias_stops_the_import_and_names_both_sides(monkeypatch):
    monkeypatch.delitem(ib.POLYGON_ALIASES, "Neva")  # Neva is Ingria's polygon
    with pytest.raises(ib.BoardImportError) as info:
        ib.build(RAW)
    assert "eIngria: no polygon" in str(info.value) and "polygon 'Neva': no place claims it" in str(info.value)


@needs_raw
def test_a_country_without_a_ledger_code_stops_the_import(monkeypatch):
    monkeypatch.delitem(ib.COUNTRIES, "venise")
    with pytest.raises(ib.BoardImportError, match=r"without a ledger code.*\n  'venise' \(type MINORMAJOR\)"):
        ib.build(RAW)


@needs_raw
def test_an_alias_to_a_polygon_the_map_lacks_is_reported(monkeypatch):
    monkeypatch.setitem(ib.POLYGON_ALIASES, "Atlantis", "sAcores")
    with pytest.raises(ib.BoardImportError, match="alias 'Atlantis': no such polygon"):
        ib.build(RAW)
