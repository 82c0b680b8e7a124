"""A rebuild killed with SIGKILL resumes where it stopped and counts nothing twice (both stores)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ledger.application import Ledger
from ops.generate_campaign import generate
from projections import replay
from projections.runner import Fed, Feed, Projector, _reads_of
from projections.views import VIEW_CLASSES

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def env_for(settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    if settings.backend == "sqlite":
        env.update(LEDGER_STORE="sqlite", LEDGER_DATA_DIR=str(settings.data_dir))
    else:
        env.update(LEDGER_STORE="postgres", LEDGER_POSTGRES_DSN=settings.postgres_dsn,
                   LEDGER_POSTGRES_SCHEMA=settings.postgres_schema)
    return env


def test_rebuild_killed_mid_way_resumes_without_double_counting(ledger, settings):
    head = generate(ledger, "killed", 600, seed=11, turn_size=100)
    cid = ledger.campaign(ledger.campaigns()[0].id).id
    p = Projector(ledger)
    p.catch_up()
    expected = (replay.current(p.db, cid, "map"), replay.current(p.db, cid, "victory"), replay.awards(p.db, cid),
                replay.timeline(p.db, cid), replay.places(p.db, cid))
    assert expected[2], "the generated campaign has victory point awards to double-count"
    assert expected[4], "the generated campaign has events touching places (the proj_places index)"

    cmd = [sys.executable, "-m", "ledger", "rebuild", "--page", "20", "--throttle", "0.05"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env_for(settings), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        positions = p.db.read_positions(p.names)
        if all(flag for _, flag in positions.values()) and 100 < min(pos for pos, _ in positions.values()) < head:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    positions = p.db.read_positions(p.names)
    assert all(flag for _, flag in positions.values()), positions  # killed while rebuilding
    stopped_at = min(pos for pos, _ in positions.values())
    assert 0 < stopped_at < head

    resumed = Projector(ledger).rebuild()
    assert resumed["resumed_from"] and resumed["events"] == head - stopped_at
    got = (replay.current(p.db, cid, "map"), replay.current(p.db, cid, "victory"), replay.awards(p.db, cid),
           replay.timeline(p.db, cid), replay.places(p.db, cid))
    assert got == expected
    assert not any(flag for _, flag in p.db.read_positions(p.names).values())


def test_a_rebuild_split_over_processes_equals_one_in_a_single_process(ledger, settings):
    """`ledger rebuild --jobs 2`: each process catches up its own views (PostgreSQL; SQLite stays single)."""
    generate(ledger, "split", 400, seed=5, turn_size=100)
    [state] = ledger.campaigns()
    p = Projector(ledger, page=150)
    p.rebuild(restart=True)
    single = {n: replay.current(p.db, state.id, n) for n in ("map", "victory")}
    timeline, awards = replay.timeline(p.db, state.id), replay.awards(p.db, state.id)

    def budget_rows():
        with p.db.reading() as cur:
            cur.execute(f"SELECT country, turn, line, amount, events FROM {p.db.t('proj_budget')} "
                        "ORDER BY country, turn, line")
            return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall()]

    sheets = budget_rows()
    assert sheets  # the generated campaign has treasury entries
    result = p.rebuild(restart=True, jobs=2)
    assert budget_rows() == sheets
    assert result["events"] == p.db.head()
    assert {n: replay.current(p.db, state.id, n) for n in ("map", "victory")} == single
    assert replay.timeline(p.db, state.id) == timeline and replay.awards(p.db, state.id) == awards
    assert p.positions() == {n: p.db.head() for n in p.names}


def test_a_rebuild_over_processes_writes_the_same_rows_whichever_process_holds_which_views(ledger):
    """The split of the views over the processes is a matter of speed only (``rebuild(groups=...)``, which the
    benchmark compares): the budget's two views in the process that reads the log, or in the one it feeds, give
    every row and document of a single-process rebuild; a split that leaves a view out is refused."""
    generate(ledger, "groups", 400, seed=11, turn_size=80)
    p = Projector(ledger, page=90)
    p.rebuild(restart=True)
    expected = view_tables(p.db)
    assert expected["proj_budget_public"] and expected["proj_turn_groups"]
    for groups in ([["budget", "budget_public"], ["map", "timeline", "victory", "turn_groups", "outbox"]],
                   [["map", "timeline", "victory", "turn_groups", "outbox"], ["budget", "budget_public"]]):
        p.rebuild(restart=True, jobs=2, groups=groups)
        assert view_tables(p.db) == expected, groups
    with pytest.raises(ValueError, match="each of the views"):
        p.rebuild(restart=True, jobs=2, groups=[["map"], ["timeline"]])
    assert view_tables(p.db) == expected  # refused before anything was reset


def view_tables(db) -> dict[str, list[tuple]]:
    """Every row of every view table (documents and checkpoints as their stored bytes), in key order."""
    tables = {"proj_docs": "view, campaign", "proj_checkpoints": "view, campaign, position",
              "proj_timeline": "campaign, position", "proj_places": "campaign, place, position",
              "proj_awards": "campaign, position, effect", "proj_budget": "campaign, country, turn, seq",
              "proj_budget_sheets": "campaign, country, turn", "proj_budget_public": "campaign, country, turn",
              "proj_turn_groups": "campaign, turn, visibility", "proj_hidden_places": "campaign, position, place"}
    out = {}
    with db.reading() as cur:
        for table, key in tables.items():
            cur.execute(f"SELECT * FROM {db.t(table)} ORDER BY {key}")
            out[table] = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in
                                (r.values() if isinstance(r, dict) else r)) for r in cur.fetchall()]
    return out


def test_a_write_failing_mid_rebuild_leaves_views_a_resumed_rebuild_completes_exactly(ledger, settings):
    """A page's transaction fails in the middle of a rebuild (on PostgreSQL in the writer thread, while the next
    page is being applied): nothing of that page is kept, the rebuild stops, and running it again resumes from the
    last committed page to the very rows the views hold when projected page by page (documents, checkpoints,
    rows)."""
    head = generate(ledger, "failing", 500, seed=7, turn_size=100)
    clean = Projector(ledger, page=40)
    clean.catch_up()  # page by page in one thread (``step``), as the service's runner projects
    expected = view_tables(clean.db)
    assert expected["proj_checkpoints"] and expected["proj_awards"] and expected["proj_budget"]

    p = Projector(ledger, page=40)
    advance, calls = p.db.advance, []

    def failing_advance(cur, view, old, new):
        calls.append(view)
        if len(calls) == len(p.names) * 3 + 2:  # the fourth page's transaction, after some views' rows were sent
            raise RuntimeError("the connection broke")
        advance(cur, view, old, new)

    p.db.advance = failing_advance
    try:
        p.rebuild(restart=True)
    except RuntimeError as e:
        assert "the connection broke" in str(e)
    else:
        raise AssertionError("the failing write did not stop the rebuild")
    positions = p.db.read_positions(p.names)
    assert all(flag for _, flag in positions.values()), positions  # stopped while rebuilding
    assert {pos for pos, _ in positions.values()} == {3 * 40}, positions  # three pages committed, the fourth not
    assert len(view_tables(p.db)["proj_timeline"]) == 3 * 40

    p.db.advance = advance
    resumed = p.rebuild()
    assert resumed["resumed_from"] == {n: 3 * 40 for n in p.names}
    assert resumed["events"] == head - 3 * 40
    assert view_tables(p.db) == expected
    assert not any(flag for _, flag in p.db.read_positions(p.names).values())


def test_views_handed_only_the_events_they_read_write_what_every_event_handed_writes(ledger, monkeypatch):
    """A rebuild hands each view only the event types it reads (``View.skips``: the victory view skips two
    thirds of them, the budget three quarters) and says where the skipped ones reached (``View.passed``). Its
    documents, checkpoints and rows are those of a catch-up page by page that hands every view every event, also
    where a checkpoint falls due at an event the view skipped (every 7 events here). PostgreSQL rebuilds in the
    pipeline that skips; SQLite's rebuild is the page-by-page catch-up, compared here with itself."""
    from projections.views import MapView, VictoryView

    for view in (MapView, VictoryView):
        monkeypatch.setattr(view, "checkpoint_every", 7)
    generate(ledger, "skips", 400, seed=13, turn_size=60)
    clean = Projector(ledger, page=40)
    clean.catch_up()  # ``step``: every event to every view
    expected = view_tables(clean.db)
    cid = str(ledger.campaigns()[0].id)
    with clean.db.reading() as cur:
        cur.execute(clean.db.sql("SELECT position, type FROM {proj_timeline} WHERE campaign = ?"), (cid,))
        types = {int(r["position"]): r["type"] for r in cur.fetchall()}
    victory = clean.views[[v.name for v in clean.views].index("victory")]
    skipped = [row for row in expected["proj_checkpoints"] if row[0] == "victory" and victory.skips(types[row[3]])]
    assert skipped, "no checkpoint of the victory view at an event it skips"

    Projector(ledger, page=40).rebuild(restart=True)  # the same pages (the timeline's document: its last page's)
    assert view_tables(clean.db) == expected


def test_the_budget_views_pages_end_before_a_turn_opens(ledger, settings, monkeypatch):
    """A pipelined rebuild ends the budget views' pages before the page's last turn opens (``View.whole_turns``,
    ``runner.turn_cut``): no sheet is computed at one page's end and again in the next, and the tables are those
    of a catch-up page by page (where every page ends as read)."""
    from projections import budget_view

    if settings.backend != "postgres":
        pytest.skip("SQLite rebuilds page by page (no pipeline)")
    generate(ledger, "turns", 500, seed=5, turn_size=60)
    clean = Projector(ledger, page=150)
    clean.catch_up()
    expected = view_tables(clean.db)
    computed: list[tuple[str, int]] = []
    rows = budget_view.sheet_rows
    monkeypatch.setattr(budget_view, "sheet_rows", lambda s: computed.append((s.country, s.turn)) or rows(s))
    Projector(ledger, page=150).rebuild(restart=True)
    assert computed and len(computed) == len(set(computed)), sorted(computed)
    assert view_tables(clean.db) == expected


def test_views_read_only_the_ruling_fields_they_declare(ledger):
    """A rebuild decodes of each ruling only the fields its views declare (``View.ruling_reads``, the rest of a
    ruling, its steps first, skipped): each view's rows, documents and checkpoints, the view rebuilt alone (its
    own fields only), and all four together are the same as when every ruling is decoded whole, on both stores.
    A model that read a field it does not declare would differ here."""
    generate(ledger, "narrow", 600, seed=3, turn_size=100)
    Projector(ledger)  # every view's tables, compared below whichever views are rebuilt
    for views in ([[name] for name in VIEW_CLASSES] + [None]):
        p = Projector(ledger, views, page=70)
        # The budgets read no ruling at all.
        assert set(p.narrow) == {"RulingRecorded"} or views in (["budget"], ["budget_public"])
        p.rebuild(restart=True)
        narrow = view_tables(p.db)
        p.narrow = {}  # every ruling decoded whole, as before the views declared their fields
        p.rebuild(restart=True)
        assert view_tables(p.db) == narrow, views
    assert narrow["proj_awards"] and narrow["proj_checkpoints"] and narrow["proj_places"]


def test_a_process_fed_by_another_reads_on_from_the_store_when_its_feeder_fails(ledger, settings):
    """`rebuild --jobs 2`: one process reads the log and hands each page to the other (``Feed``, ``Fed``). The
    feeder's write fails on its fourth page: the fed process reads the pages it was not handed from the store and
    completes its views exactly; the feeder's rebuild run again resumes and completes its own, every row equal to
    the views projected page by page. The pipelined catch-up and its feed are PostgreSQL's."""
    if settings.backend != "postgres":
        pytest.skip("SQLite rebuilds in one process, reading in the batch (no pipeline, no feed)")
    head = generate(ledger, "fed", 500, seed=7, turn_size=100)
    clean = Projector(ledger, page=40)
    clean.catch_up()
    expected = view_tables(clean.db)

    receive, send = multiprocessing.Pipe(duplex=False)
    feeder = Projector(ledger, ["timeline", "map"], page=40)
    other = Ledger(settings)  # the fed process's own (its pool: the feeder's holds three connections at once)
    fed = Projector(other, ["budget", "victory"], page=40)
    feeder.feeds = [Feed(send, _reads_of(fed.names))]  # the bytes of the events budget and victory never read: out
    fed.source = Fed(receive, fed.db.read_events_apart)
    from_store = []
    read = fed.db.read_events_apart
    fed.db.read_events_apart = lambda after, limit: from_store.append(after) or read(after, limit)
    fed.source.read = fed.db.read_events_apart
    advance, calls = feeder.db.advance, []

    def failing_advance(cur, view, old, new):
        calls.append(view)
        if len(calls) == 3 * 2 + 1:  # the fourth page's transaction
            raise RuntimeError("the connection broke")
        advance(cur, view, old, new)

    feeder.db.advance = failing_advance
    results: dict[str, object] = {}

    def run_fed() -> None:
        try:
            results["fed"] = fed.rebuild(restart=True)
        except Exception as e:  # failed: the assertions below say how
            results["fed"] = e
        finally:
            fed.source.close()  # as _catch_up_group does: the feeder never waits on a process that has ended

    thread = threading.Thread(target=run_fed)
    thread.start()
    try:
        with pytest.raises(RuntimeError, match="the connection broke"):  # the feeder stops at its fourth page
            feeder.rebuild(restart=True)
    finally:
        for feed in feeder.feeds:
            feed.close()  # as _catch_up_in_processes does once its own group is done or failed
    thread.join(60)
    other.close()
    assert not isinstance(results["fed"], Exception), results["fed"]
    assert results["fed"]["events"] == head
    pages = -(-head // 40)
    assert from_store and len(from_store) < pages, from_store  # handed some pages, read the rest itself
    assert {pos for pos, _ in feeder.db.read_positions(feeder.names).values()} == {3 * 40}

    feeder.db.advance = advance
    assert feeder.rebuild()["resumed_from"] == {n: 3 * 40 for n in feeder.names}
    assert view_tables(clean.db) == expected


def test_a_fed_process_takes_only_the_page_it_asks_for():
    """A page handed over from another position (a resumed rebuild whose groups stopped apart) is not taken: the
    page is read from the store, and from then on every page (the pipe closed, so the feeder never waits on it)."""
    receive, send = multiprocessing.Pipe(duplex=False)
    feed = Feed(send, frozenset({"TreasuryEntryRecorded"}))
    row = (41, "c", 41, "ledger.domain.events:RulingRecorded", b'{"ruling": {}}')
    feed.send(0, 40, [(1, "c", 1, "ledger.domain.events:TreasuryEntryRecorded", b"{}")])
    feed.send(40, 40, [row])
    store = []
    fed = Fed(receive, lambda after, limit: store.append(after) or [("store", after)])
    # The ruling's bytes are left out (the fed views do not read it), its place in the log kept.
    assert fed(0, 40) == [(1, "c", 1, "ledger.domain.events:TreasuryEntryRecorded", b"{}")]
    assert fed(35, 40) == [("store", 35)] and fed.conn is None  # the feeder is past 35: read alone from here
    assert fed(40, 40) == [("store", 40)] and store == [35, 40]
    feed.send(80, 40, [row])  # the fed end is closed: the feeder stops sending instead of blocking
    deadline = time.monotonic() + 10
    while feed.conn is not None and time.monotonic() < deadline:  # sent by the feed's own thread
        time.sleep(0.01)
    assert feed.conn is None
    for _ in range(5):
        feed.send(120, 40, [row])  # never waits, though only FEED_AHEAD pages may queue
    feed.close()
