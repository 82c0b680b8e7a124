"""The ledger command line on both stores: verify, dice verify, resolve, procedures."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ledger.cli import app
from tests.conftest import events_table, raw_execute

runner = CliRunner()


def cli_env(settings) -> dict[str, str]:
    env = {"LEDGER_STORE": settings.backend, "LEDGER_DATA_DIR": str(settings.data_dir)}
    if settings.backend == "postgres":
        env |= {"LEDGER_POSTGRES_DSN": settings.postgres_dsn, "LEDGER_POSTGRES_SCHEMA": settings.postgres_schema}
    if settings.signing_key_file is not None:
        env["LEDGER_SIGNING_KEY_FILE"] = str(settings.signing_key_file)
    return env


def run(settings, *args: str):
    return runner.invoke(app, list(args), env=cli_env(settings))


def test_verify_prints_the_head_hash_then_names_the_first_broken_position(settings):
    assert run(settings, "campaign", "create", "calais", "--name", "Calais", "--country", "ENG",
               "--country", "FRA").exit_code == 0
    assert run(settings, "turn", "open", "calais").exit_code == 0
    assert run(settings, "treasury", "calais", "FRA", "A9", "35", "--reason", "looting").exit_code == 0
    ok = run(settings, "verify", "calais")
    assert ok.exit_code == 0 and "intact: 3 events" in ok.output
    table = events_table(settings)
    if settings.backend == "sqlite":
        raw_execute(settings, f"DROP TRIGGER {table}_no_update")
        raw_execute(settings, f"UPDATE {table} SET state = CAST(REPLACE(CAST(state AS TEXT), 'looting', "
                              "'lootinG') AS BLOB) WHERE originator_version = 3")
    else:
        raw_execute(settings, f"DROP TRIGGER {table}_immutable ON {table}")
        raw_execute(settings, f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
                              "'looting', 'lootinG'), 'UTF8') WHERE originator_version = 3")
    broken = run(settings, "verify", "calais")
    assert broken.exit_code == 1 and "position 3" in broken.output


def test_dice_verify_checks_a_closed_turn(settings):
    run(settings, "campaign", "create", "dover", "--name", "Dover", "--country", "ENG")
    run(settings, "turn", "open", "dover")
    run(settings, "roll", "dover", "--purpose", "storm", "--sides", "6", "--count", "2")
    run(settings, "roll", "dover", "--purpose", "table", "--sides", "6", "--manual", "5")
    still_open = run(settings, "dice", "verify", "dover", "1")
    assert still_open.exit_code == 2
    for phase in ("events", "diplomacy", "incomes", "military", "redeployment", "exchequer", "peace", "interphase"):
        run(settings, "phase", "close", "dover", phase)  # the turn closes after its eight phases
    run(settings, "turn", "close", "dover", "1")
    result = run(settings, "dice", "verify", "dover", "1")
    assert result.exit_code == 0 and "1 server rolls verified, 1 physical" in result.output


def test_a_repeated_idempotency_key_appends_nothing(settings):
    run(settings, "campaign", "create", "kent", "--name", "Kent", "--country", "ENG")
    run(settings, "turn", "open", "kent")
    first = run(settings, "roll", "kent", "--purpose", "x", "--idempotency-key", "k")
    second = run(settings, "roll", "kent", "--purpose", "x", "--idempotency-key", "k")
    assert json.loads(first.output) == json.loads(second.output)
    listing = run(settings, "events", "kent", "--json")
    assert [e["position"] for e in json.loads(listing.output)] == [1, 2, 3]


def test_bad_input_exits_2_and_names_the_field(settings):
    run(settings, "campaign", "create", "wessex", "--name", "W", "--country", "ENG")
    run(settings, "turn", "open", "wessex")
    result = run(settings, "treasury", "wessex", "ENG", "Q1", "5", "--reason", "x")
    assert result.exit_code == 2 and "[line]" in result.output


def test_a_write_at_a_terminal_reads_as_words_and_a_piped_one_as_json(settings):
    """A game master reads what they recorded; a script reads JSON (stdout piped, or LEDGER_OUTPUT=json)."""
    words = {**cli_env(settings), "LEDGER_OUTPUT": "words", "COLUMNS": "200"}
    assert runner.invoke(app, ["campaign", "create", "calais", "--name", "Calais", "--country", "ENG",
                               "--country", "FRA"], env=words).exit_code == 0
    opened = runner.invoke(app, ["turn", "open", "calais"], env=words)
    assert opened.exit_code == 0 and opened.output.startswith("Recorded at position 2: ")
    said = runner.invoke(app, ["treasury", "calais", "FRA", "A9", "35", "--reason", "raid on Navarra"], env=words)
    assert said.exit_code == 0, said.output
    [line] = [x for x in said.output.splitlines() if x.startswith("Recorded")]
    assert line.startswith("Recorded at position 3: ") and "raid on Navarra" in line and "35" in line
    assert "Signed checkpoint at 3 events" in said.output
    assert not any(mark in said.output for mark in ("{", '"events"', "None", "True", "False"))
    piped = run(settings, "treasury", "calais", "FRA", "A9", "5", "--reason", "more")
    assert [e["position"] for e in json.loads(piped.stdout)["events"]] == [4]


def test_a_correction_and_a_rework_are_typed_field_by_field_without_json(settings, ledger):
    from tests.integration.test_dispute import positions_of, sample

    cid = sample(ledger)
    [battle] = positions_of(ledger, cid, "RulingRecorded", "M19")
    ledger.close()
    dry = run(settings, "ruling", "rework", "sample", str(battle), "--input", "defender.ld=6", "--reason", "6 LD",
              "--override", "defender.ld=two LD had deserted", "--dry-run")
    assert dry.exit_code == 0 and "recorded die reused" in dry.output, dry.output
    refused = run(settings, "ruling", "rework", "sample", str(battle), "--input", "defender.ld=6", "--reason", "6 LD",
                  "--dry-run")
    assert refused.exit_code == 2 and "the map says" in refused.output, refused.output
    assert '--override defender.ld="why you keep it"' in refused.output
    nothing = run(settings, "ruling", "rework", "sample", str(battle), "--reason", "6 LD")
    assert nothing.exit_code == 2 and "[inputs]" in nothing.output, nothing.output
    entry = run(settings, "treasury", "sample", "FRA", "A9", "35", "--reason", "raid on Navarra")
    assert entry.exit_code == 0, entry.output
    [at] = [e["position"] for e in json.loads(entry.stdout)["events"]]
    fixed = run(settings, "correct", "sample", str(at), "--reason", "it was 30", "--set", "amount=30")
    assert fixed.exit_code == 0, fixed.output
    [correction] = json.loads(fixed.stdout)["events"]
    events = json.loads(run(settings, "events", "sample", "--json", "--after", str(correction["position"] - 1)).stdout)
    assert events[0]["payload"]["replacement"] == {"amount": 30}
    wrong = run(settings, "correct", "sample", str(at), "--reason", "x", "--set", "amount")
    assert wrong.exit_code == 2 and "[--set]" in wrong.output


def test_whatif_on_the_command_line_says_what_a_correction_would_change_and_records_nothing(settings, ledger):
    """``ledger whatif``: the HTTP what-if's answer in words (a game master on the server's store), the same
    question as ``ledger correct`` would record: an entry's amount restated, or the event struck."""
    from tests.integration.test_dispute import sample

    cid = sample(ledger)
    head = ledger.campaign(cid).version
    ledger.close()
    words = {**cli_env(settings), "LEDGER_OUTPUT": "words", "COLUMNS": "200"}
    entry = run(settings, "treasury", "sample", "FRA", "A9", "35", "--reason", "raid on Navarra")
    [at] = [e["position"] for e in json.loads(entry.stdout)["events"]]
    said = runner.invoke(app, ["whatif", "sample", str(at), "--set", "amount=30"], env=words)
    assert said.exit_code == 0, said.output
    assert said.output.startswith(f"Had position {at} been corrected, at position {at}:"), said.output
    assert "A9" in said.output and "35 → 30" in said.output.replace("ducats", ""), said.output
    assert said.output.rstrip().endswith("nothing recorded (a what-if)")
    struck = json.loads(run(settings, "whatif", "sample", str(at)).stdout)  # piped: the route's JSON
    assert struck["at"] == at and any("A9" in line for line in struck["budget"])
    assert json.loads(run(settings, "events", "sample", "--json", "--after", str(at)).stdout) == []
    assert at == head + 1
