"""The command line in French (``--lang fr`` or ``LEDGER_LANG=fr``): its own words and the ledger's errors
(a refused name with its did-you-mean) from the catalogue; English when nothing asks otherwise."""

from __future__ import annotations

from typer.testing import CliRunner

from ledger.cli import app
from ledger.sample import FIXED_DICE, GM, play_sample_turn
from ledger.scenario import import_scenario, load_text
from tests.integration.test_cli import cli_env

runner = CliRunner()


def test_the_command_line_says_its_errors_in_the_language_asked(settings, ledger):
    import_scenario(ledger, load_text("sample"), slug="sample", actor=GM)
    play_sample_turn(ledger, FIXED_DICE)
    english = runner.invoke(app, ["state", "nowhere"], env=cli_env(settings))
    assert english.exit_code == 2 and "error [campaign]:" in english.output
    french = runner.invoke(app, ["--lang", "fr", "state", "nowhere"], env=cli_env(settings))
    assert french.exit_code == 2 and "erreur [campaign] :" in french.output
    env = {**cli_env(settings), "LEDGER_LANG": "fr"}
    sheet = runner.invoke(app, ["ers", "sample", "FRAA", "1"], env=env)  # the ledger's own refusal, in French
    assert sheet.exit_code == 2 and "erreur [country] : le pays 'FRAA' n'est pas dans cette campagne (ENG, FRA)" \
        in sheet.output
    again = runner.invoke(app, ["ers", "sample", "FRAA", "1"], env=cli_env(settings))  # the next one: English
    assert "error [country]: country 'FRAA' is not in this campaign (ENG, FRA)" in again.output
