"""The service runs as a PostgreSQL role that owns nothing: `ledger migrate` creates the tables as their owner
and grants the service role reading and appending only. As that role, a stored event can be neither updated,
deleted nor truncated, the immutability trigger cannot be silenced with ``session_replication_role``, and the
service works end to end (writes, dice, turn closes, checkpoints, verify, the views, the heartbeat).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg.conninfo import make_conninfo

from api.main import create_app
from ledger.application import Actor, Ledger
from ledger.config import Settings
from ledger.supervision import Heartbeat
from projections.runner import Projector
from tests.conftest import PG_DSN
from tests.integration.test_cli import runner
from ledger.cli import app
from ledger.sample import close_open_phases

pytestmark = [pytest.mark.skipif(not PG_DSN, reason="PostgreSQL only (LEDGER_TEST_POSTGRES_DSN)"),
              pytest.mark.store_contract]  # the store's contract (tests/conftest.py)
GM = Actor("gm", "gm")
ADMIN = "admin-secret-for-tests"


def superuser(statement: str) -> None:
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(statement)


@pytest.fixture
def roles(tmp_path) -> Iterator[Settings]:
    """An owner role and a service role of their own (roles are the cluster's), a schema the owner owns,
    migrated by `ledger migrate` run with the owner's DSN; yields the service's settings."""
    tag = uuid.uuid4().hex[:10]
    owner, service, schema = f"t_owner_{tag}", f"t_service_{tag}", f"t_{tag}"
    superuser(f'CREATE ROLE "{owner}" LOGIN NOSUPERUSER')
    superuser(f'CREATE ROLE "{service}" LOGIN NOSUPERUSER')
    superuser(f'CREATE SCHEMA "{schema}" AUTHORIZATION "{owner}"')
    settings = Settings(env="test", store="postgres", data_dir=tmp_path, postgres_schema=schema, pool_size=4,
                        snapshot_interval=10, postgres_dsn=make_conninfo(PG_DSN, user=service),
                        postgres_owner_dsn=make_conninfo(PG_DSN, user=owner))
    try:
        env = {"LEDGER_STORE": "postgres", "LEDGER_DATA_DIR": str(tmp_path), "LEDGER_POSTGRES_SCHEMA": schema,
               "LEDGER_POSTGRES_DSN": settings.postgres_dsn, "LEDGER_POSTGRES_OWNER_DSN": settings.postgres_owner_dsn}
        done = runner.invoke(app, ["migrate"], env=env)
        assert done.exit_code == 0, done.output
        assert service in done.output
        yield settings
    finally:
        superuser(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        for role in (service, owner):
            superuser(f'DROP OWNED BY "{role}" CASCADE')
            superuser(f'DROP ROLE "{role}"')


def as_service(settings: Settings, statement: str) -> None:
    with psycopg.connect(settings.postgres_dsn, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{settings.postgres_schema}"')
        conn.execute(statement)


def write_a_turn(ledger: Ledger) -> UUID:
    cid = UUID(ledger.create_campaign(slug="roles", name="Roles", ruleset="eu", countries=["ENG", "FRA"],
                                      actor=GM).data["id"])
    ledger.open_turn(cid, actor=GM)
    for i in range(12):  # past the snapshot interval: a snapshot is written too
        ledger.roll(cid, purpose=f"r{i}", actor=GM, idempotency_key=f"k{i}")
    close_open_phases(ledger, cid)  # the turn closes after its eight phases
    ledger.close_turn(cid, actor=GM)
    return cid


@pytest.mark.parametrize("statement, refused", [
    ("UPDATE ledger_events SET topic = topic", "permission denied for table ledger_events"),
    ("DELETE FROM ledger_events", "permission denied for table ledger_events"),
    ("TRUNCATE ledger_events", "permission denied for table ledger_events"),
    ("SET session_replication_role = replica", 'permission denied to set parameter "session_replication_role"'),
    ("DROP TRIGGER ledger_events_immutable ON ledger_events", "must be owner of"),
    ("ALTER TABLE ledger_events DISABLE TRIGGER ALL", "must be owner of"),
    ("UPDATE ledger_checkpoints SET note = ''", "permission denied for table ledger_checkpoints"),
    ("DELETE FROM ledger_checkpoints", "permission denied for table ledger_checkpoints"),
    ("DELETE FROM ledger_idempotency", "permission denied for table ledger_idempotency"),
    ("UPDATE ledger_turn_seeds SET seed = ''", "permission denied for table ledger_turn_seeds"),
    ("DELETE FROM ledger_snapshots", "permission denied for table ledger_snapshots"),
    ("CREATE TABLE intruder (a int)", "permission denied for schema"),
])
def test_the_service_role_cannot_rewrite_the_history_nor_silence_its_trigger(roles, statement, refused):
    ledger = Ledger(roles)
    try:
        write_a_turn(ledger)
    finally:
        ledger.close()
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        as_service(roles, statement)
    assert refused in str(e.value)


def test_a_superuser_silences_the_trigger_with_session_replication_role_which_is_why_the_service_is_not_one(roles):
    ledger = Ledger(roles)
    try:
        cid = write_a_turn(ledger)
        with psycopg.connect(PG_DSN, autocommit=True) as conn:  # the superuser the scripts used to connect as
            conn.execute("SET session_replication_role = replica")
            conn.execute(f'UPDATE "{roles.postgres_schema}".ledger_events '
                         "SET topic = 'ledger.domain.events:TurnClosed' WHERE originator_version = 3")
        report = ledger.verify(cid)  # the trigger let it through; the chain still names it
        assert not report.intact and report.broken_at == 3
    finally:
        ledger.close()


def test_the_service_works_end_to_end_as_its_role(roles):
    ledger = Ledger(roles)
    try:
        with psycopg.connect(roles.postgres_dsn) as conn:
            row = conn.execute("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        assert row[0].startswith("t_service_") and row[1] is False
        cid = write_a_turn(ledger)
        # A retry is answered from the idempotency table, even after the turn closed.
        assert ledger.roll(cid, purpose="r0", actor=GM, idempotency_key="k0").replayed
        ledger.open_turn(cid, actor=GM)
        report = ledger.verify(cid)
        assert report.intact and report.count == 24  # the turn closed after its eight phases
        assert ledger.checkpoint(cid, turn=1)
        projector = Projector(ledger)
        while projector.step():
            pass
        assert projector.lag() == 0
        Heartbeat(ledger).beat()
        assert Heartbeat(ledger).read() is not None
        with TestClient(create_app(roles.model_copy(update={"admin_token": ADMIN}), ledger)) as client:
            auth = {"Authorization": f"Bearer {ADMIN}"}
            written = client.post(f"/campaigns/{cid}/rolls", json={"purpose": "http", "sides": 6}, headers=auth)
            assert written.status_code == 201, written.text
            assert client.get(f"/campaigns/{cid}/verify", headers=auth).json()["intact"] is True
    finally:
        ledger.close()
    restarted = Ledger(roles)  # a cold load as the role reads the sealed snapshot
    try:
        assert restarted._snapshot_state(cid) is not None
        assert restarted.campaign(cid).version == 25  # the 24 above and the roll over HTTP
    finally:
        restarted.close()


def test_without_an_owner_dsn_the_service_migrates_itself_as_before(settings):
    assert not settings.migrated_by_owner and settings.event_env()["CREATE_TABLE"] == "y"
    ledger = Ledger(settings)
    try:
        cid = write_a_turn(ledger)
        assert ledger.verify(cid).intact
    finally:
        ledger.close()


def test_with_an_owner_dsn_the_service_runs_no_ddl(roles):
    assert roles.migrated_by_owner and roles.event_env()["CREATE_TABLE"] == "n"
    assert roles.as_owner().postgres_dsn == roles.postgres_owner_dsn
