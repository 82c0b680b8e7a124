"""Every page in French: no visible English the catalogue does not hold (issue 38, item 4).

Each page of the sample campaign is rendered in the pseudo-language ``qps`` (ledger/i18n.py): every string the
French catalogue translates comes out wrapped in ⟦ ⟧, any other exactly as written. What is left of a page's
visible text (text nodes, and the ``title``, ``alt``, ``placeholder``, ``aria-label`` and button ``value`` a
reader meets) once the wrapped parts are taken out must be data: numbers, names from the board (countries,
provinces, seas: they stay as the board names them), the campaign's own names, tokens' holders, codes (ERS lines,
procedures, units, hashes). An English word there is a string that escaped the catalogue, and fails the test with
the page and the words.

``NOT_YET``: the parts of a page whose words come from elsewhere than the pages and are not translated yet, each
with why. The test leaves out exactly these elements (by id or class), nothing else.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
import yaml
from fastapi.testclient import TestClient

from api.main import create_app
from ledger import i18n, tokens
from api.web.gm_forms import RULESETS
from ledger import scenario as scenarios
from ledger.board import load_board
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text

CID = campaign_id("sample")

#: Elements (id or class) whose text is not translated yet, and why (see the README's "French" section).
NOT_YET = {
    "timeline": "the events' one-line summaries are stored in English in the timeline view (projections/views.py)",
    "summary": "the same stored summary, at the head of the event's card",
    "ruling": "the ruling's title, modifiers and outcome come from the rules' tables (ledger/rules/eu/*.toml)",
    "fields": "an event's field names (payload keys as labels)",
    "budget-diff": "the ERS lines' names come from the ERS definition (ledger/rules/eu/ers.toml)",
    "reason": "a correction's reason is what the game master typed",
    "purpose": "a die's purpose is recorded in the event by the rules' resolver",
    "ev": "an entry's reason on the sheet: typed by the game master, or written by a ruling's effect",
    "rule-text": "the income page's rules readings (ledger/rules/eu/tables/board_income.toml, DECISIONS.md)",
    "unresolved": "why a line is typed by hand: the economy's own words (ledger/economy/board_income.py)",
    "lineage": "the places and notes a line is worked out from (projections/income.py)",
    "rules-options": "the rules options' labels and choices come from the rules' tables (ledger/rules/eu/)",
    "entries": "a treasury entry said in words (projections/words.py), offered to the correction form",
    "procedure": "a procedure's title comes from the rules' index (ledger/rules/eu/__init__.py)",
}
_SKIP = frozenset({"script", "style"})
_VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "area", "base", "col", "source", "wbr"})
_ATTRS = ("title", "alt", "placeholder", "aria-label")


class _Visible(HTMLParser):
    """The visible text of a page, outside the ``NOT_YET`` elements, as (text, where) pairs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, left out)
        self.texts: list[str] = []

    def _out(self) -> bool:
        return any(left for _, left in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        names = {a.get("id") or "", *(a.get("class") or "").split()}
        left = tag in _SKIP or bool(names & NOT_YET.keys())
        if not self._out() and not left:
            self.texts += [a[k] for k in _ATTRS if a.get(k)]
            if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
                self.texts.append(a["value"])
        if tag not in _VOID:
            self.stack.append((tag, left))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.stack.append((tag, False))
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.stack.pop()
        if tag not in _VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):  # HTML forgives an unclosed <p> or <li>: close up to its tag
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not self._out() and data.strip():
            self.texts.append(data)


_WRAPPED = re.compile(re.escape(i18n.OPEN) + f"[^{i18n.OPEN}{i18n.CLOSE}]*" + re.escape(i18n.CLOSE))
#: Hashes and ids (hex runs), stacks (ENG-F1), file formats, an error's type (EventNotFound): codes, not words.
_CODES = re.compile(r"\b\w+\.\w+\b|\b[0-9a-f]*\d[0-9a-f]*\b|\b[\w-]+-\w*\d\w*\b|\b(csv|json|parquet|xlsx)\b|\b[A-Z][a-z]+[A-Z]\w*")
_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*")


def _data_words(extra: set[str]) -> set[str]:
    """Words that are data: the board's names, and the sample's (its name, leaders, players: ``extra``)."""
    board = load_board("eu")
    scenario = yaml.safe_load(load_text("sample"))
    names: set[str] = {*extra, scenario["name"], *RULESETS, *scenarios.shipped_names(), *(c["player"] for c in scenario["countries"]),
                       *(leader["name"] for s in scenario["stacks"] for leader in s.get("leaders", ()))}
    for table in (board.provinces, board.rotw, board.seas, board.regions, board.trade_zones):
        names.update(table)
    for code, country in board.countries.items():
        names.add(code)
        names.update(str(v) for v in vars(country).values() if isinstance(v, str))
    return {w.lower() for n in names for w in _WORD.findall(n)}


def leftover(html: str, data: set[str]) -> list[str]:
    """The visible texts of ``html`` with English outside the catalogue's wrapped strings and the data, each as
    "word in «text»" (the text cut to 100 characters), so a failure says where to look."""
    parser = _Visible()
    parser.feed(html)
    found = []
    for text in parser.texts:
        bare = text
        while _WRAPPED.search(bare):  # innermost first: a translated formula holds translated parts
            bare = _WRAPPED.sub(" ", bare)
        bare = _CODES.sub(" ", bare)
        for w in _WORD.findall(bare):
            if w.isupper() or w.lower() in data or len(w) < 2 and w.islower():
                continue  # codes (LD, ENG, A+), board and campaign names, a lone letter (d6)
            if re.fullmatch(r"[0-9a-f]{8,}", w) or re.fullmatch(r"[A-Za-z]\d+\w*", w):
                continue
            found.append(f"{w} in «{' '.join(text.split())[:100]}»")
            break
    return found


@pytest.fixture
def sample(ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    return ledger


def _pages(c: TestClient) -> list[str]:
    base = "/ui/campaigns/sample"
    turn1 = c.get(f"{base}/turns/1?lang=en").text
    steps = int(re.search(r'data-steps="(\d+)"', turn1).group(1))
    return ["/ui", "/ui/login", base, f"{base}/charts", f"{base}/map", f"{base}/income",
            f"{base}/ers/ENG/1", f"{base}/ers/FRA/1", f"{base}/places/Picardie", f"{base}/places/Manche",
            *(f"{base}/turns/1?step={i}" for i in range(1, steps + 1)),
            f"{base}/turns/9", "/ui/campaigns/nowhere", f"{base}/gm", f"{base}/tokens", f"{base}/rulings/new",
            f"{base}/rulings/new?procedure=M14", "/ui/new-campaign"]


def test_every_page_shows_no_english_outside_the_french_catalogue(settings, sample):
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    _, eng = tokens.issue_token(sample, CID, role="player", country="ENG", holder="alice", actor=GM)
    data = _data_words({"sample", "gina", "alice", "admin", "Sample campaign", "gm", "eu", *i18n.LANGUAGES.values()})
    problems: dict[str, list[str]] = {}
    admin = "admin-token-of-the-french-pages"
    for token in (admin, gm, eng):
        app = create_app(settings.model_copy(update={"admin_token": admin}), sample)
        with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as c:
            for url in _pages(c):
                r = c.get(url + ("&" if "?" in url else "?") + "lang=" + i18n.PSEUDO)
                assert r.headers["content-language"] == i18n.PSEUDO
                words = leftover(r.text, data)
                if words:
                    problems[f"{url} ({r.status_code})"] = sorted(set(words))
    assert not problems, "English outside the catalogue:\n" + "\n".join(
        f"{u}:\n  " + "\n  ".join(w) for u, w in problems.items())
