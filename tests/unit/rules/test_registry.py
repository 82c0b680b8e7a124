"""The ruleset registry is complete however the package was first imported."""

import subprocess
import sys


def test_importing_one_procedure_module_first_still_gives_the_full_ruleset():
    code = ("import ledger.rules.eu.blockade\n"
            "from ledger.rules.core import get_ruleset\n"
            "print(len(get_ruleset('eu').procedures))")
    count = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    from ledger.rules.core import get_ruleset

    assert count == len(get_ruleset("eu").procedures) >= 22
