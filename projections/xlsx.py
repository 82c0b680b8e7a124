"""A workbook writer for the exports: worksheets of rows, a few fixed styles, cell comments, frozen panes and
column widths, written as the XML parts openpyxl 3.1 writes for the same workbook (inline strings, the same
styles, comments and their VML shapes), without its object per cell.

Why: openpyxl builds a cell object, a style array and an XML element for every cell and serialises them one by
one; one country's ERS workbook on a 300,000-event campaign (~140,000 cells, ~10,000 comments) took 1.8 s of
CPU, the entries workbook 0.9 s. Here a row is one joined string. The parts are byte for byte openpyxl's but
``docProps/core.xml``'s times (tests/integration/test_export_xlsx_fast.py), so every program that opened the
old files opens these, and openpyxl reads back the same cells, styles and comments.

Two deliberate differences: openpyxl stores a text that starts with ``=`` as a formula (a reason a player typed,
``=HYPERLINK(...)``, would run in the reader's spreadsheet); it is written here as the text it is. And openpyxl
refuses a text holding a character XML cannot (a control character of an event recorded before the ledger refused
them: the campaign's workbook would fail for good); each is written here as ``\x1b``-style text
(``ledger.text.for_xml``), in cells and comments alike.
"""

from __future__ import annotations

import functools
import re
import struct
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE  # noqa: F401  (what for_xml shows as text)
from openpyxl.styles.colors import COLOR_INDEX
from openpyxl.utils import get_column_letter
from openpyxl.writer.theme import theme_xml
from zlib_ng import zlib_ng

from ledger.text import for_xml

#: The styles the exports use: name -> (font XML, fill XML or None). A style's font, fill and cell format get
#: their numbers in the order the workbook first writes them, as openpyxl numbers them.
STYLES = {
    "title": ('<font><b val="1" /><sz val="13" /></font>', None),
    "bold": ('<font><b val="1" /></font>', None),
    "band": ('<font><b val="1" /></font>', '<fill><patternFill patternType="solid"><fgColor rgb="00E8E8E2" />'
                                             '</patternFill></fill>'),
    "italic": ('<font><i val="1" /><color rgb="00555555" /></font>', None),
}

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT = "application/vnd.openxmlformats-officedocument."
_FONT0 = '<font><name val="Calibri" /><family val="2" /><color theme="1" /><sz val="11" /><scheme val="minor" /></font>'
_FILLS0 = '<fill><patternFill /></fill><fill><patternFill patternType="gray125" /></fill>'
_XF = '<xf numFmtId="0" fontId="{}" fillId="{}" borderId="0" pivotButton="0" quotePrefix="0" xfId="0" />'
_STYLES_TAIL = ('<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0" hidden="0" /></cellStyles>'
                '<tableStyles count="0" defaultTableStyle="TableStyleMedium9" defaultPivotStyle="PivotStyleLight16" />'
                '<colors><indexedColors>' + "".join(f'<rgbColor rgb="{c}" />' for c in COLOR_INDEX[:64])
                + '</indexedColors></colors></styleSheet>')
_PANES = {  # freeze_panes -> the sheet view's pane and selections
    None: '<selection activeCell="A1" sqref="A1" />',
    "A2": '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen" />'
          '<selection pane="bottomLeft" activeCell="A1" sqref="A1" />',
    "C3": '<pane xSplit="2" ySplit="2" topLeftCell="C3" activePane="bottomRight" state="frozen" />'
          '<selection pane="topRight" /><selection pane="bottomLeft" />'
          '<selection pane="bottomRight" activeCell="A1" sqref="A1" />',
}


@functools.lru_cache(maxsize=1 << 15)  # the same shapes again in the next download of the same sheets
def _shape(w: int, h: int, i: int, r: int, c: int) -> str:
    """A comment's VML shape, as openpyxl writes it, in one f-string (an ERS workbook has ~10,000 comments)."""
    return (f'<ns1:shape type="#_x0000_t202" style="position:absolute; margin-left:59.25pt;margin-top:1.5pt;'
            f'width:{w}px;height:{h}px;z-index:1;visibility:hidden" fillcolor="#ffffe1" ns0:insetmode="auto" '
            f'id="_x0000_s{i:04d}">{_SHAPE_MIDDLE}<ns2:Row>{r}</ns2:Row><ns2:Column>{c}</ns2:Column>'
            '</ns2:ClientData></ns1:shape>')


_SHAPE_MIDDLE = ('<ns1:fill color2="#ffffe1" /><ns1:shadow color="black" obscured="t" />'
                 '<ns1:path ns0:connecttype="none" /><ns1:textbox style="mso-direction-alt:auto"><div '
                 'style="text-align:left" /></ns1:textbox><ns2:ClientData ObjectType="Note"><ns2:MoveWithCells />'
                 '<ns2:SizeWithCells /><ns2:AutoFill>False</ns2:AutoFill>')
_ESCAPES = re.compile(r"[&<>]")
#: A character to escape or show as text (openpyxl's ``ILLEGAL_CHARACTERS_RE``, ``for_xml``): a text without any is
#: written as it is.
_PLAIN = re.compile(r"[&<>\000-\010\013-\014\016-\037]")
_ESCAPED = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_ATTR = re.compile(r"[&<>\"\n\r\t]")
_ATTR_ESCAPED = {**_ESCAPED, '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}


def escape(text: str) -> str:
    """Character data as ElementTree writes it."""
    return _ESCAPES.sub(lambda m: _ESCAPED[m.group()], text) if _ESCAPES.search(text) else text


def _attr(text: str) -> str:
    return _ATTR.sub(lambda m: _ATTR_ESCAPED[m.group()], text)


def _t(text: str) -> str:
    """A ``<t>`` element: its spaces kept when the text starts or ends with one (openpyxl's ``whitespace``); a
    character XML cannot hold shown as text (``for_xml``)."""
    text = for_xml(text)
    stripped = text.strip()
    space = ' xml:space="preserve"' if stripped and stripped != text else ""
    return f"<t{space}>{escape(text)}</t>"


@functools.lru_cache(maxsize=1 << 15)  # a derived line's comment is the same text in every turn's cell
def _comment(ref: str, text: str) -> str:
    return f'<comment ref="{ref}" authorId="0" shapeId="0"><text>{_t(text)}</text></comment>'


_LETTERS: list[str] = []
_LETTERS_LOCK = threading.Lock()  # the routes run in a thread pool: two appends of one letter would shift the rest


def _letters(n: int) -> list[str]:
    """The column letters A, B, ... of the first ``n`` columns (at least)."""
    if len(_LETTERS) < n:
        with _LETTERS_LOCK:
            while len(_LETTERS) < n:
                _LETTERS.append(get_column_letter(len(_LETTERS) + 1))
    return _LETTERS


# Why the caches below: a download written again (another audience's, another URL's, the next one after an append:
# a country's entries keep their rows, most ERS lines their cells) takes each row's XML from here. The entries sheet
# of one country's workbook on the 300,000-event campaign is ~8,300 rows (~6 MB of XML), its ERS sheet 95 rows of
# ~300 cells and ~11,500 comments: a third of the workbook's CPU to write. ``lru_cache`` is C: a hit costs the
# key's hash. Bounded by count: a table row is under a kilobyte, an ERS row ~15 kB.
@functools.lru_cache(maxsize=1 << 16)
def _tail(value: str) -> str:
    """What follows ``<c r="..." s="..."`` for a text value, as openpyxl writes it."""
    text = value[:32767]
    if _PLAIN.search(text) is None and text and text.strip() is text and text not in ERROR_CODES:
        return f' t="inlineStr"><is><t>{text}</t></is></c>'  # most texts: nothing of the checks below
    text = for_xml(text)  # openpyxl refuses such a text: the stored event would fail its workbook for good
    if text == "":
        return ' t="inlineStr" />'
    if text in ERROR_CODES:
        return f' t="e"><v>{text}</v></c>'
    return f' t="inlineStr"><is>{_t(text)}</is></c>'  # "=..." too: a text, never a formula (the module's note)


@functools.lru_cache(maxsize=1 << 16)
def _plain_row(r: str, values: tuple[Any, ...], kinds: tuple[type, ...]) -> str:
    """A row without styles or comments (``kinds``: its values' types, in the key: 1 and True are one key)."""
    out = [f'<row r="{r}">']
    for letter, v, t in zip(_letters(len(values)), values, kinds):
        if t is str:
            out.append(f'<c r="{letter}{r}"{_tail(v)}')
        elif v is None:
            continue
        elif t is int or t is float:
            out.append(f'<c r="{letter}{r}" t="n"><v>{"%.16g" % v}</v></c>')
        elif t is bool:
            out.append(f'<c r="{letter}{r}" t="b"><v>{int(v)}</v></c>')
        else:
            raise ValueError(f"Cannot convert {v!r} to Excel")
    out.append("</row>")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _styled_row(r: str, values: tuple[Any, ...], kinds: tuple[type, ...], ss: tuple[str, ...],
                comments: tuple[tuple[int, str, int, int], ...]) -> tuple[str, tuple[Any, ...]]:
    """A row with styles (``ss``: each cell's `` s="N"`` in its workbook) or comments: its XML and its comments
    as the worksheet keeps them (ref, row and column from 0, text, width, height)."""
    letters = _letters(len(values))
    said = {i: (text, w, h) for i, text, w, h in comments}
    out, notes = [f'<row r="{r}">'], []
    for i, (v, t) in enumerate(zip(values, kinds)):
        s = ss[i]
        if i in said:
            text, w, h = said[i]
            notes.append((letters[i] + r, int(r) - 1, i, text, w, h))
        if v is None:
            if s or i in said:
                out.append(f'<c r="{letters[i]}{r}"{s} t="n" />')
            continue
        if t is str:
            out.append(f'<c r="{letters[i]}{r}"{s}{_tail(v)}')
        elif t is bool:
            out.append(f'<c r="{letters[i]}{r}"{s} t="b"><v>{int(v)}</v></c>')
        elif t is int or t is float:
            out.append(f'<c r="{letters[i]}{r}"{s} t="n"><v>{"%.16g" % v}</v></c>')
        else:
            raise ValueError(f"Cannot convert {v!r} to Excel")
    out.append("</row>")
    return "".join(out), tuple(notes)


class Workbook:
    def __init__(self) -> None:
        self.sheets: list[Worksheet] = []
        self.fonts: list[str] = [_FONT0]
        self.fills: list[str] = []  # after the two every workbook has
        self.xfs: dict[str, str] = {}  # style name -> its cell format's number, as text
        self._attrs: dict[str | None, str] = {None: ""}  # a style's name -> `` s="N"``

    def sheet(self, title: str, freeze: str | None = None) -> Worksheet:
        ws = Worksheet(self, title, freeze)
        self.sheets.append(ws)
        return ws

    def style(self, name: str | None) -> str:
        """`` s="N"`` of a style (numbered when first written), or "" for none."""
        found = self._attrs.get(name)
        if found is None:
            font, fill = STYLES[name]  # type: ignore[index]
            if font not in self.fonts:
                self.fonts.append(font)
            if fill is not None and fill not in self.fills:
                self.fills.append(fill)
            self.xfs[name] = str(len(self.xfs) + 1)  # type: ignore[index]
            found = self._attrs[name] = f' s="{self.xfs[name]}"'  # type: ignore[index]
        return found

    def letters(self, n: int) -> list[str]:
        return _letters(n)

    def text(self, value: str) -> str:
        """What follows ``<c r="..." s="..."`` for a text value, as openpyxl writes it."""
        return _tail(value)

    def _styles_xml(self) -> str:
        fonts = "".join(self.fonts)
        fills = _FILLS0 + "".join(self.fills)
        xfs = [_XF.format(0, 0)]
        for name in self.xfs:  # in their numbers' order
            font, fill = STYLES[name]
            xfs.append(_XF.format(self.fonts.index(font), 2 + self.fills.index(fill) if fill else 0))
        return (f'<styleSheet xmlns="{_MAIN}"><numFmts count="0" /><fonts count="{len(self.fonts)}">{fonts}</fonts>'
                f'<fills count="{2 + len(self.fills)}">{fills}</fills><borders count="1"><border><left /><right />'
                '<top /><bottom /><diagonal /></border></borders><cellStyleXfs count="1"><xf numFmtId="0" '
                f'fontId="0" fillId="0" borderId="0" /></cellStyleXfs><cellXfs count="{len(xfs)}">{"".join(xfs)}'
                f"</cellXfs>{_STYLES_TAIL}")

    def save(self, level: int = 2) -> bytes:
        """The .xlsx file (``zip_parts``, deflated at ``level``)."""
        now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        parts: list[tuple[str, str]] = [
            ("docProps/app.xml", '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
             'extended-properties"><Application>Microsoft Excel Compatible / Openpyxl 3.1.5</Application>'
             "<AppVersion>3.1</AppVersion></Properties>"),
            ("docProps/core.xml", '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
             'metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.'
             'org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>openpyxl'
             f'</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">{now}</dcterms:created><dcterms:modified '
             f'xsi:type="dcterms:W3CDTF">{now}</dcterms:modified></cp:coreProperties>'),
            ("xl/theme/theme1.xml", theme_xml),
        ]
        overrides = [("/xl/styles.xml", "spreadsheetml.styles+xml"), ("/xl/theme/theme1.xml", "theme+xml"),
                     ("/docProps/core.xml", "package.core-properties+xml"),
                     ("/docProps/app.xml", "extended-properties+xml")]
        commented = 0
        for n, ws in enumerate(self.sheets, 1):
            parts.append((f"xl/worksheets/sheet{n}.xml", ws.xml()))
            overrides.append((f"/xl/worksheets/sheet{n}.xml", "spreadsheetml.worksheet+xml"))
            if ws.comments:
                commented += 1
                parts.append((f"xl/comments/comment{commented}.xml", ws.comments_xml()))
                parts.append((f"xl/drawings/commentsDrawing{commented}.vml", ws.vml()))
                parts.append((f"xl/worksheets/_rels/sheet{n}.xml.rels",
                              f'<Relationships xmlns="{_PKG_REL}"><Relationship Type="{_REL}/comments" '
                              f'Target="/xl/comments/comment{commented}.xml" Id="comments" /><Relationship '
                              f'Type="{_REL}/vmlDrawing" Target="/xl/drawings/commentsDrawing{commented}.vml" '
                              'Id="anysvml" /></Relationships>'))
                overrides.append((f"/xl/comments/comment{commented}.xml", "spreadsheetml.comments+xml"))
        overrides.append(("/xl/workbook.xml", "spreadsheetml.sheet.main+xml"))
        sheets = "".join(f'<sheet name="{_attr(ws.title)}" sheetId="{n}" state="visible" r:id="rId{n}" />'
                         for n, ws in enumerate(self.sheets, 1))
        k = len(self.sheets)
        parts += [
            ("xl/styles.xml", self._styles_xml()),
            ("_rels/.rels", f'<Relationships xmlns="{_PKG_REL}"><Relationship Type="{_REL}/officeDocument" '
             f'Target="xl/workbook.xml" Id="rId1" /><Relationship Type="{_PKG_REL}/metadata/core-properties" '
             f'Target="docProps/core.xml" Id="rId2" /><Relationship Type="{_REL}/extended-properties" '
             'Target="docProps/app.xml" Id="rId3" /></Relationships>'),
            ("xl/workbook.xml", f'<workbook xmlns:r="{_REL}" xmlns="{_MAIN}"><workbookPr /><workbookProtection />'
             '<bookViews><workbookView visibility="visible" minimized="0" showHorizontalScroll="1" '
             'showVerticalScroll="1" showSheetTabs="1" tabRatio="600" firstSheet="0" activeTab="0" '
             f'autoFilterDateGrouping="1" /></bookViews><sheets>{sheets}</sheets><definedNames />'
             '<calcPr calcId="124519" fullCalcOnLoad="1" /></workbook>'),
            ("xl/_rels/workbook.xml.rels", f'<Relationships xmlns="{_PKG_REL}">' + "".join(
                f'<Relationship Type="{_REL}/worksheet" Target="/xl/worksheets/sheet{n}.xml" Id="rId{n}" />'
                for n in range(1, k + 1)) + f'<Relationship Type="{_REL}/styles" Target="styles.xml" '
             f'Id="rId{k + 1}" /><Relationship Type="{_REL}/theme" Target="theme/theme1.xml" Id="rId{k + 2}" />'
             "</Relationships>"),
            ("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />'
             '<Default Extension="xml" ContentType="application/xml" />'
             + ('<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing" />'
                if commented else "")
             + "".join(f'<Override PartName="{name}" ContentType="'
                       f'{"application/vnd.openxmlformats-" + kind if kind.startswith("package") else _CT + kind}" />'
                       for name, kind in overrides) + "</Types>"),
        ]
        return zip_parts(parts, level)


def zip_parts(parts: Iterable[tuple[str, str]], level: int = 2) -> bytes:
    """A ZIP archive of these parts (name, text as UTF-8), each deflated by zlib-ng, as ``zipfile`` lays one
    out (local headers, then the central directory; no ZIP64: a workbook is megabytes, not gigabytes).

    Why not ``zipfile``: it deflates with the system's zlib, a quarter of an ERS workbook's CPU (~15 MB of XML);
    zlib-ng's level 2 is twice as fast as zlib's level 1 and its output smaller (1.31 MB -> 1.21 MB for one
    country's ERS on the 300,000-event campaign). Any DEFLATE stream is a valid member: every reader opens it.
    """
    # The time every member is stamped with, as ``zipfile.writestr`` stamps it: now, in DOS form.
    t = datetime.now().timetuple()
    when = ((t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2),
            ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday)
    body, central = bytearray(), bytearray()
    count = 0
    for name, text in parts:
        raw, encoded = text.encode("utf-8"), name.encode("utf-8")
        deflate = zlib_ng.compressobj(level, zlib_ng.DEFLATED, -15)
        packed = deflate.compress(raw) + deflate.flush()
        crc = zlib_ng.crc32(raw)
        fields = struct.pack("<HHHHHIIIH", 20, 0, 8, when[0], when[1], crc, len(packed), len(raw), len(encoded))
        # Made on Unix by ZIP 2.0, read-write for its owner: ``writestr``'s.
        central += struct.pack("<IH", 0x02014B50, 0x0314) + fields \
            + struct.pack("<HHHHII", 0, 0, 0, 0, 0o600 << 16, len(body)) + encoded
        body += struct.pack("<I", 0x04034B50) + fields + struct.pack("<H", 0) + encoded + packed
        count += 1
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central), len(body), 0)
    return bytes(body + central + end)


class Worksheet:
    def __init__(self, book: Workbook, title: str, freeze: str | None):
        self.book, self.title, self.freeze = book, title, freeze
        self.rows: list[str] = []
        self.row = 0  # the last row written (an empty ``append`` moves on too)
        self.first_row = 0  # the first row holding cells
        self.width = 0  # the most cells in a row
        self.widths: dict[int, float] = {}  # column (1-based) -> its width
        self.comments: list[tuple[str, int, int, str, int, int]] = []  # ref, row, col (0-based), text, w, h

    def append(self, values: Sequence[Any], styles: Sequence[str | None] | str | None = None,
               comments: Iterable[tuple[int, str, int, int]] = ()) -> None:
        """A row of cells, one per value (None: an empty cell), as ``ws.append``; ``styles``: one per cell, or
        one for all; ``comments``: (column index, text, width, height)."""
        self.row += 1
        if not values:
            return
        r = str(self.row)
        if styles is None and not comments:  # a table's row: the tight loop (an entries sheet has ~100,000 cells)
            self._plain(r, values)
            return
        book = self.book
        ss = (book.style(styles),) * len(values) if styles is None or isinstance(styles, str) \
            else tuple(map(book.style, styles))  # each style numbered when first named, as before
        values = tuple(values)
        try:
            self._put(_styled_row(r, values, tuple(map(type, values)), ss, tuple(comments)), len(values))
        except TypeError:  # a value that is no key (a list): no cell either
            raise ValueError(f"Cannot convert {values!r} to Excel") from None

    def _plain(self, r: str, values: Sequence[Any]) -> None:
        """``append`` of a row without styles or comments."""
        values = tuple(values)
        try:
            self._put((_plain_row(r, values, tuple(map(type, values))), ()), len(values))
        except TypeError:  # a value that is no key (a list): no cell either
            raise ValueError(f"Cannot convert {values!r} to Excel") from None

    def _put(self, row: tuple[str, tuple[Any, ...]], width: int) -> None:
        """A row's XML and comments written: the sheet's extent follows it."""
        self.rows.append(row[0])
        if row[1]:
            self.comments.extend(row[1])
        if not self.first_row:
            self.first_row = self.row
        if width > self.width:
            self.width = width

    def column_width(self, column: int, width: float) -> None:
        self.widths[column] = width

    def xml(self) -> str:
        letters = self.book.letters(max(self.width, 1))
        dimension = f"A{self.first_row or 1}:{letters[max(self.width, 1) - 1]}{max(self.row, 1)}" \
            if self.rows else "A1:A1"
        cols = "<cols>" + "".join(f'<col width="{"%.16g" % w}" customWidth="1" min="{c}" max="{c}" />'
                                  for c, w in sorted(self.widths.items())) + "</cols>" if self.widths else ""
        legacy = f'<legacyDrawing xmlns:r="{_REL}" r:id="anysvml" />' if self.comments else ""
        return (f'<worksheet xmlns="{_MAIN}"><sheetPr><outlinePr summaryBelow="1" summaryRight="1" /><pageSetUpPr />'
                f'</sheetPr><dimension ref="{dimension}" /><sheetViews><sheetView workbookViewId="0">'
                f'{_PANES[self.freeze]}</sheetView></sheetViews><sheetFormatPr baseColWidth="8" '
                f'defaultRowHeight="15" />{cols}<sheetData>{"".join(self.rows)}</sheetData><pageMargins left="0.75" right="0.75" top="1" '
                f'bottom="1" header="0.5" footer="0.5" />{legacy}</worksheet>')

    def comments_xml(self) -> str:
        return (f'<comments xmlns="{_MAIN}"><authors><author>ledger</author></authors><commentList>'
                + "".join([_comment(ref, text) for ref, _, _, text, _, _ in self.comments])
                + "</commentList></comments>")

    def vml(self) -> str:
        return ('<xml xmlns:ns0="urn:schemas-microsoft-com:office:office" xmlns:ns1="urn:schemas-microsoft-com:vml" '
                'xmlns:ns2="urn:schemas-microsoft-com:office:excel"><ns0:shapelayout ns1:ext="edit"><ns0:idmap '
                'ns1:ext="edit" data="1" /></ns0:shapelayout><ns1:shapetype id="_x0000_t202" coordsize="21600,21600" '
                'ns0:spt="202" path="m,l,21600r21600,l21600,xe"><ns1:stroke joinstyle="miter" /><ns1:path '
                'gradientshapeok="t" ns0:connecttype="rect" /></ns1:shapetype>'
                + "".join([_shape(w, h, i, r, c) for i, (_, r, c, _, w, h) in enumerate(self.comments, 1026)])
                + "</xml>")
