"""`ledger backup` then `ledger restore` into an empty store: the same chains, head hashes and views."""

from __future__ import annotations

import uuid

import psycopg
from fastapi.testclient import TestClient
from psycopg.conninfo import make_conninfo
from typer.testing import CliRunner
import pytest

from api.main import create_app
from ledger.application import Ledger
from ledger.cli import app
from ledger.domain.campaign import campaign_id
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from projections.runner import Projector
from tests.conftest import PG_DSN
from tests.integration.test_cli import cli_env

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

ADMIN = "admin-secret-for-backup-tests"
runner = CliRunner()


def reads(settings, ledger) -> dict[str, object]:
    c = TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}), ledger))
    auth = {"Authorization": f"Bearer {ADMIN}"}
    return {path: c.get(path, headers=auth).json() for path in
            ("/campaigns/sample/map", "/campaigns/sample/victory", "/campaigns/sample/events",
             "/campaigns/sample/verify")}


def test_backup_restored_into_an_empty_store_has_the_same_chain_and_views(settings, ledger, tmp_path):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    Projector(ledger).catch_up()
    cid = campaign_id("sample")
    source = ledger.verify(cid)
    before = reads(settings, ledger)
    file = tmp_path / "ledger.backup"
    done = runner.invoke(app, ["backup", str(file)], env=cli_env(settings))
    assert done.exit_code == 0, done.output

    database = None
    # The restored service signs with the same key as the source (LEDGER_SIGNING_KEY_FILE), as in production.
    key = settings.signing_key_file or settings.data_dir / "signing-key.pem"
    if settings.backend == "sqlite":
        target = settings.model_copy(update={"data_dir": tmp_path / "restored", "signing_key_file": key})
    else:  # pg_dump keeps the schema's name: the empty store is a new database
        database = f"restore_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        target = settings.model_copy(update={"postgres_dsn": make_conninfo(PG_DSN, dbname=database),
                                             "signing_key_file": key})
        with psycopg.connect(target.postgres_dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{settings.postgres_schema}"')
    try:
        Ledger(target).close()  # the service started once on the new store: its tables exist, empty
        done = runner.invoke(app, ["restore", str(file)], env=cli_env(target))
        assert done.exit_code == 0, done.output
        assert f"sample: intact {source.count} events, head {source.head_hash}" in done.output
        restored = Ledger(target)
        try:
            report = restored.verify(cid)
            assert (report.intact, report.count, report.head_hash) == (True, source.count, source.head_hash)
            assert Projector(restored).lag() == 0  # the views came along, at the same position
            assert reads(target, restored) == before
        finally:
            restored.close()
        again = runner.invoke(app, ["restore", str(file)], env=cli_env(target))
        assert again.exit_code != 0 and "already holds events" in again.output
    finally:
        if database:
            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
