"""The ledger's files on its host are readable by their owner only (issue 33, ledger/files.py): the SQLite
database, its WAL and shared memory, the signing key, a backup; 0600 when created whatever the umask, tightened
when they exist with a looser mode; a folder the ledger creates for them 0700, one that exists left alone."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.application import Ledger
from ledger.checkpoints import generate_key
from ledger.cli import app
from ledger.config import Settings
from ledger.domain.actors import Actor
from ledger.files import private_dir
from tests.integration.test_cli import cli_env

GM = Actor("gm", "gm")
STORE_FILES = ("ledger.sqlite3", "ledger.sqlite3-wal", "ledger.sqlite3-shm", "ledger.sqlite3.open-lock",
               "signing-key.pem")


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """A shell's usual umask (022): what made the files 0644 before."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def written(settings: Settings, slug: str = "files") -> Ledger:
    """The ledger open on the settings' store, a campaign written (the WAL and shared memory exist while open)."""
    ledger = Ledger(settings)
    ledger.create_campaign(slug=slug, name="F", ruleset="eu", countries=["ENG"], actor=GM)
    return ledger


def test_a_new_sqlite_store_its_wal_its_shared_memory_and_the_generated_key_are_readable_by_their_owner_only(
        tmp_path):
    data = tmp_path / "data" / "ledger"
    ledger = written(Settings(env="test", data_dir=data, store="sqlite"))
    try:
        assert {name: oct(mode(data / name)) for name in STORE_FILES} == dict.fromkeys(STORE_FILES, oct(0o600))
    finally:
        ledger.close()
    assert (mode(data), mode(data.parent)) == (0o700, 0o700)  # the folders the ledger made


def test_store_and_key_files_left_readable_by_others_are_tightened_when_the_ledger_opens_them(tmp_path):
    settings = Settings(env="test", data_dir=tmp_path, store="sqlite")
    ledger = written(settings)
    for name in STORE_FILES:  # an older release's modes, the WAL and shared memory still there
        os.chmod(tmp_path / name, 0o644)
    again = written(settings.model_copy(), "again")
    try:
        assert {name: oct(mode(tmp_path / name)) for name in STORE_FILES} == dict.fromkeys(STORE_FILES, oct(0o600))
    finally:
        again.close()
        ledger.close()


def test_a_configured_signing_key_readable_by_others_is_tightened_at_start_and_its_folder_left_alone(tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o755)
    os.chmod(keys, 0o755)
    key = keys / "ledger.pem"
    generate_key(key)
    os.chmod(key, 0o644)  # copied in by hand, say
    ledger = Ledger(Settings(env="test", data_dir=tmp_path / "b", store="sqlite", signing_key_file=key))
    try:
        assert (oct(mode(key)), oct(mode(keys))) == (oct(0o600), oct(0o755))
    finally:
        ledger.close()


def test_a_folder_that_exists_is_left_as_it_is_and_the_missing_ones_are_made_0700(tmp_path):
    os.chmod(tmp_path, 0o755)
    private_dir(tmp_path / "a" / "b")
    assert (oct(mode(tmp_path)), oct(mode(tmp_path / "a")), oct(mode(tmp_path / "a" / "b"))) == (
        oct(0o755), oct(0o700), oct(0o700))


def test_a_backup_of_the_sqlite_store_and_a_store_restored_from_it_are_readable_by_their_owner_only(tmp_path):
    source = Settings(env="test", data_dir=tmp_path / "source", store="sqlite")
    written(source).close()
    file = tmp_path / "ledger.backup"
    done = CliRunner().invoke(app, ["backup", str(file)], env=cli_env(source))
    assert done.exit_code == 0, done.output
    assert oct(mode(file)) == oct(0o600)
    target = Settings(env="test", data_dir=tmp_path / "target", store="sqlite",
                      signing_key_file=tmp_path / "source" / "signing-key.pem")
    done = CliRunner().invoke(app, ["restore", str(file)], env=cli_env(target))
    assert done.exit_code == 0, done.output
    assert oct(mode(target.sqlite_path)) == oct(0o600)
