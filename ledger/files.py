"""The ledger's own files on its host, readable by their owner only.

The SQLite store holds every event, hidden ones too, and the signing key signs
checkpoints and derives the key of the sealed dice seeds: another local account
reading either reads or forges what players may not. So the database, its WAL
and shared-memory files (and the lock beside them) and the key files are
created 0600, and tightened to it when they exist with a looser mode (an older
release, a copy, a umask of 022); a directory the ledger creates for them is
0700 (one that exists is the operator's, and left as it is).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("ledger.files")

FILE_MODE = 0o600
DIR_MODE = 0o700
#: What SQLite writes beside a database (its WAL, shared memory, rollback journal) and the ledger's open lock
#: (``ledger.application._opening``).
SQLITE_SIDES = ("-wal", "-shm", "-journal", ".open-lock")


def private_dir(path: Path) -> None:
    """``path`` and its missing parents made, each one the ledger creates 0700; an existing one is left alone."""
    missing: list[Path] = []
    p = Path(path)
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)  # the umask can only narrow it
        except FileExistsError:  # another process made it meanwhile (``ledger serve --workers N``)
            pass


def private_file(path: Path, *, create: bool = False) -> None:
    """``path`` readable and writable by its owner only: created 0600 (``create``, never truncated), or tightened
    when it exists with any right for its group or others. A file another account owns cannot be changed: that is
    logged, not raised (the service still starts; the operator is told)."""
    path = Path(path)
    if create:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), FILE_MODE))
        except FileExistsError:
            pass
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    if mode & 0o077:
        try:
            os.chmod(path, mode & 0o700)
        except OSError as e:
            log.warning("%s is readable by other accounts (mode %o) and could not be restricted to its owner: %s",
                        path, mode, e)


def private_sqlite(path: Path) -> None:
    """The SQLite database at ``path`` before it is opened: its folder made (0700 where the ledger makes it), the
    file created 0600 when missing (an empty file is an empty database; SQLite then creates its WAL and shared
    memory with the database's own mode), and the database and the files beside it tightened to 0600."""
    path = Path(path)
    private_dir(path.parent)
    private_file(path, create=True)
    for side in SQLITE_SIDES:
        private_file(path.with_name(path.name + side))
