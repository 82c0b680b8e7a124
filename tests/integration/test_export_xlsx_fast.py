"""The workbooks the exports write (projections/xlsx.py) are the ones openpyxl wrote before (the reference,
tests/integration/export_reference.py): every part of the file byte for byte but the creation time, and read back
with openpyxl, the same sheets, cells, values, fonts, fills, comments, column widths and frozen panes; on a
generated campaign with a correction and an entry hidden from the player, for a game master and a player, every
country or one, every turn or a range, on both stores."""

from __future__ import annotations

import io
import itertools
import zipfile

from hypothesis import given, settings, strategies as st
from openpyxl import load_workbook

from ledger.application import Actor
from ledger.domain.commands import RecordCorrection, RecordTreasuryEntry
from ops.generate_campaign import generate
from projections import export
from projections.history import gather
from tests.integration import export_reference as reference

GM, FRANCE = Actor("gm", "gm"), Actor("fra", "player", "FRA")


def parts(body: bytes) -> dict[str, bytes]:
    """The file's parts, but its creation and modification times (``docProps/core.xml``)."""
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        assert z.testzip() is None
        return {name: z.read(name) for name in z.namelist() if name != "docProps/core.xml"}


def cells(body: bytes) -> list[tuple]:
    """Every cell as a spreadsheet program reads it: sheet, place, value, type, font, fill and comment; and each
    sheet's frozen panes and column widths."""
    book = load_workbook(io.BytesIO(body))
    out = []
    for ws in book.worksheets:
        out.append((ws.title, ws.freeze_panes, ws.dimensions,
                    {k: d.width for k, d in ws.column_dimensions.items() if d.customWidth}))
        for row in ws.iter_rows():
            for c in row:
                out.append((ws.title, c.coordinate, c.value, c.data_type, c.font.b, c.font.i, c.font.sz,
                            c.font.color.rgb if c.font.color is not None else None, c.fill.fill_type,
                            c.fill.fgColor.rgb, c.comment.text if c.comment else None,
                            c.comment.author if c.comment else None))
    return out


def same_workbook(new: bytes, old: bytes) -> None:
    assert parts(new) == parts(old)
    assert cells(new) == cells(old)


def test_the_ers_workbook_is_the_one_openpyxl_wrote(ledger):
    generate(ledger, "book", 400, seed=3, turn_size=60)
    [state] = ledger.campaigns()
    [entry] = [e for e in ledger.history(state.id) if type(e).__name__ == "TreasuryEntryRecorded"][:1]
    ledger.submit(state.id, RecordCorrection, corrects=entry.originator_version, replacement={"amount": 7},
                  reason="miscounted", actor=GM)
    ledger.submit(state.id, RecordTreasuryEntry, country="ENG", line="A9", amount=12, reason=" secret & <loot> ",
                  visibility={"scope": "gm"}, actor=GM)
    for actor in (GM, FRANCE):
        history = gather(ledger, state.id, actor)
        assert history.turns >= 3
        for country, turns in itertools.product((None, "FRA"), (None, (2, 3))):
            new = export.to_xlsx(history, country, turns)
            same_workbook(new, reference.to_xlsx(history, country, turns))
        book = load_workbook(io.BytesIO(export.to_xlsx(history, "FRA")))
        assert book.sheetnames == ["FRA", "entries"]
        assert book["FRA"]["A1"].font.b and book["FRA"].freeze_panes == "C3"
        assert sum(c.comment is not None for row in book["FRA"].iter_rows() for c in row) > 10


def test_every_table_workbook_is_the_one_openpyxl_wrote(ledger):
    generate(ledger, "tables", 300, seed=5, turn_size=60)
    [state] = ledger.campaigns()
    for actor in (GM, FRANCE):
        history = gather(ledger, state.id, actor)
        for table in ("entries", "inflation", "stability", "victory"):
            new = export.encode(table, "xlsx", export.rows(history, table, "FRA"))
            same_workbook(new, reference.table_xlsx(table, export.rows(history, table, "FRA")))


texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12) \
    .filter(lambda t: not export.xlsx.ILLEGAL_CHARACTERS_RE.search(t) and not (len(t) > 1 and t.startswith("=")))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(texts, st.one_of(st.none(), st.integers(-10**18, 10**18)), texts,
                          st.sampled_from(["#N/A", "#REF!", "", " x", "y\n", "a&b<c>"])), min_size=1, max_size=6))
def test_any_text_or_number_in_a_table_is_written_as_openpyxl_writes_it(found):
    """Spaces kept at either end, markup escaped, error codes, empty texts, big integers: the same parts."""
    rows = [{"campaign": c, "position": i, "kind": "entry", "corrects": n, "reason": r, "actor": a, "turn": 1}
            for i, (c, n, r, a) in enumerate(found)]
    assert parts(export.table_xlsx("entries", rows)) == parts(reference.table_xlsx("entries", rows))


def test_a_text_that_starts_with_an_equals_sign_stays_a_text_and_never_becomes_a_formula():
    """openpyxl stored "=..." as a formula: a reason a player typed would have run in the reader's spreadsheet."""
    rows = [{"campaign": "c", "position": 1, "reason": '=HYPERLINK("http://example.invalid", "click")'}]
    ws = load_workbook(io.BytesIO(export.table_xlsx("entries", rows)))["entries"]
    assert ws["J2"].value == '=HYPERLINK("http://example.invalid", "click")' and ws["J2"].data_type == "s"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.from_regex(r"[a-z_/\[\]]{1,20}\.xml", fullmatch=True), st.text(max_size=3000)),
                max_size=6, unique_by=lambda p: p[0]))
def test_a_workbooks_zip_holds_each_part_as_written_and_checks_out(found):
    """``xlsx.zip_parts`` (zlib-ng's deflate, not ``zipfile``'s): the standard library's reader finds every
    part, in order, with its text and a matching CRC."""
    from projections.xlsx import zip_parts

    body = zip_parts(found)
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        assert z.testzip() is None
        assert [(i.filename, z.read(i).decode("utf-8")) for i in z.infolist()] == found
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
