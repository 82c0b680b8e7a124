"""`ledger verify --views`: the stored views and the latest snapshot checked against the chain (issue 34, item 2).

The views are caches the service's role may write, and a snapshot is a cache the service ignores when its seal
does not hold: a row rewritten in either is served or silently ignored while the chain verifies. Here each is
rewritten as an intruder would, and `verify` names it.
"""

from __future__ import annotations

import orjson
import pytest

from ledger.application import Ledger
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, SLUG, play_sample_turn
from ledger.scenario import import_scenario, load_text
from projections.runner import Projector
from tests.conftest import raw_execute
from tests.integration.test_cli import run

#: The views' tables and the snapshots as each store keeps them: both stores.
pytestmark = pytest.mark.store_contract


@pytest.fixture
def played(settings):
    ledger = Ledger(settings)
    try:
        # Turn 1 played with the sample's fixed dice: moves, a battle won, markers, victory points awarded.
        import_scenario(ledger, load_text("sample"), slug=SLUG, actor=GM)
        play_sample_turn(ledger, FIXED_DICE)
        cid = campaign_id(SLUG)
        if not ledger.campaign(cid).turn_open:
            ledger.open_turn(cid)  # a checkpoint of the map and the victory at the TurnOpened
        for i in range(60 - ledger.campaign(cid).version):  # past the test store's snapshot interval (50)
            ledger.roll(cid, purpose=f"roll {i}", actor=GM)
        Projector(ledger).catch_up()
        assert list(ledger.snapshots.get(cid, desc=True, limit=1))
    finally:
        ledger.close()
    return cid


def rewrite_doc(settings, table: str, where: str, params: tuple, change) -> None:
    """Read one stored document, change it, write it back (as the service's role could)."""
    import sqlite3

    import psycopg

    from tests.conftest import PG_DSN

    if settings.backend == "sqlite":
        conn = sqlite3.connect(settings.sqlite_path)
        try:
            [doc] = conn.execute(f"SELECT doc FROM {table} WHERE {where}", params).fetchone()
            new = orjson.dumps(change(orjson.loads(bytes(doc))))
            conn.execute(f"UPDATE {table} SET doc = ? WHERE {where}", (new, *params))
            conn.commit()
        finally:
            conn.close()
    else:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{settings.postgres_schema}"')
            [doc] = conn.execute(f"SELECT doc FROM {table} WHERE {where.replace('?', '%s')}", params).fetchone()
            new = orjson.dumps(change(orjson.loads(bytes(doc))))
            conn.execute(f"UPDATE {table} SET doc = %s WHERE {where.replace('?', '%s')}", (new, *params))


def a_stack_no_event_put_there(doc: dict) -> dict:
    doc["stacks"]["ENG-60"] = {"country": "ENG", "location": "Cornwall", "units": {"LD": 60}, "leaders": []}
    return doc


def test_views_folded_from_the_chain_verify(settings, played):
    ok = run(settings, "verify", SLUG, "--views")
    assert ok.exit_code == 0, ok.output
    assert "views hold:" in ok.output and "VIEW DIFFERS" not in ok.output and "SNAPSHOT" not in ok.output


def test_a_stack_written_into_the_current_map_is_named(settings, played):
    rewrite_doc(settings, "proj_docs", "view = ? AND campaign = ?", ("map", str(played)), a_stack_no_event_put_there)
    assert run(settings, "verify", SLUG).exit_code == 0  # the chain alone says nothing of it
    broken = run(settings, "verify", SLUG, "--views")
    assert broken.exit_code == 1
    assert "the current map" in broken.output and "ENG-60: appears in Cornwall with 60 LD" in broken.output, broken.output


def test_a_rewritten_checkpoint_of_the_map_is_named(settings, played):
    rewrite_doc(settings, "proj_checkpoints", "view = ? AND campaign = ? AND position = "
                "(SELECT MAX(position) FROM proj_checkpoints WHERE view = ? AND campaign = ?)",
                ("map", str(played), "map", str(played)), a_stack_no_event_put_there)
    broken = run(settings, "verify", SLUG, "--views")
    assert broken.exit_code == 1 and "the map checkpoint at position" in broken.output, broken.output


def test_a_rewritten_timeline_row_is_named(settings, played):
    raw_execute(settings, "UPDATE proj_timeline SET summary = ? WHERE campaign = ? AND position = 3",
                ("nothing happened here", str(played)))
    broken = run(settings, "verify", SLUG, "--views")
    assert broken.exit_code == 1 and "timeline row at position 3" in broken.output, broken.output


def test_a_snapshot_the_service_ignores_is_reported(settings, played):
    table = "stored_snapshots" if settings.backend == "sqlite" else "ledger_snapshots"
    if settings.backend == "sqlite":
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), " +
                              "'\"closed_at\":{', '\"closed_at\":{\"9\":1,') AS BLOB)")
    else:
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "'\"closed_at\":{', '\"closed_at\":{\"9\":1,'), 'UTF8')")
    broken = run(settings, "verify", SLUG)
    assert broken.exit_code == 1 and "SNAPSHOT IGNORED" in broken.output, broken.output
    assert "intact:" in broken.output  # the chain itself holds


def test_a_rewritten_award_of_victory_points_is_named(settings, played):
    assert count_rows(settings, "proj_awards") >= 1  # the battle's award, to rewrite
    raw_execute(settings, "UPDATE proj_awards SET points = ? WHERE campaign = ?", ("50", str(played)))
    broken = run(settings, "verify", SLUG, "--views")
    assert broken.exit_code == 1 and "the award at position" in broken.output, broken.output
    assert "50 points" in broken.output


def count_rows(settings, table: str) -> int:
    import sqlite3

    import psycopg

    from tests.conftest import PG_DSN

    if settings.backend == "sqlite":
        conn = sqlite3.connect(settings.sqlite_path)
        try:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        finally:
            conn.close()
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{settings.postgres_schema}"')
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
