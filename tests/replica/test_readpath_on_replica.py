"""tests/e2e/test_readpath.py again, its reads served by the replica (see tests/replica/conftest.py)."""

import pytest

from tests.e2e.test_readpath import *  # noqa: F401,F403 (the same tests, collected here with store=replica)

pytestmark = pytest.mark.usefixtures("replica_after_writes")
