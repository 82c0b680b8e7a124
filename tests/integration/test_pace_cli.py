"""The pace and the turn report on the command line (issue 38): ``ledger deadlines set|show|tick|clear``,
``ledger ready``, ``ledger mark-read`` and ``ledger report`` (cron's tick records a reminder once)."""

from __future__ import annotations

from freezegun import freeze_time

from tests.integration.test_cli import run


def setup(settings):
    assert run(settings, "campaign", "create", "pace", "--name", "Pace", "--country", "ENG",
               "--country", "FRA").exit_code == 0
    assert run(settings, "campaign", "settings", "pace", "--time-zone", "Europe/Paris", "--reason",
               "the table plays in Paris").exit_code == 0, "time zone"
    assert run(settings, "turn", "open", "pace").exit_code == 0


def test_a_deadline_set_on_the_command_line_is_shown_with_who_is_ready_and_reminded_once_by_cron(settings):
    setup(settings)
    with freeze_time("2026-11-29 12:00:00"):
        r = run(settings, "deadlines", "set", "pace", "events", "2026-12-01 20:00", "--remind", "24h,2h")
        assert r.exit_code == 0, r.output
        assert run(settings, "ready", "pace", "ENG").exit_code == 0
        shown = run(settings, "deadlines", "show", "pace")
    assert "due 2026-12-01 20:00 Europe/Paris" in shown.output, shown.output
    assert "Ready: ENG" in shown.output and "Not ready: FRA" in shown.output
    with freeze_time("2026-11-30 19:00:00"):  # 24 h before 20:00 in Paris (19:00 UTC)
        first = run(settings, "deadlines", "tick")
        again = run(settings, "deadlines", "tick")
    assert first.exit_code == 0 and "ReminderIssued" in first.output, first.output
    assert "No reminder is due." in again.output
    with freeze_time("2026-12-01 20:00:00"):
        late = run(settings, "deadlines", "show", "pace", "--tz", "America/New_York")
    assert "due 2026-12-01 14:00 America/New_York" in late.output and "Late: FRA" in late.output, late.output


def test_a_bad_reminder_time_exits_2_naming_the_option(settings):
    setup(settings)
    r = run(settings, "deadlines", "set", "pace", "events", "2030-12-01 20:00", "--remind", "soon")
    assert r.exit_code == 2 and "remind" in r.output and "24h" in r.output


def test_the_report_on_the_command_line_is_per_audience_and_starts_after_the_mark(settings):
    setup(settings)
    assert run(settings, "treasury", "pace", "FRA", "A9", "35", "--reason", "French loot").exit_code == 0
    assert run(settings, "treasury", "pace", "ENG", "A9", "50", "--reason", "English loot").exit_code == 0
    fra = run(settings, "report", "pace", "--country", "FRA", "--format", "text")
    assert fra.exit_code == 0 and "French loot" in fra.output and "English loot" not in fra.output, fra.output
    assert "Your sheet (FRA): FRA: +35 ducats on A9" in fra.output
    gm = run(settings, "report", "pace")
    assert "French loot" in gm.output and "English loot" in gm.output and gm.output.startswith("## ")
    assert run(settings, "mark-read", "pace", "5").exit_code == 0
    after = run(settings, "report", "pace", "--format", "text")
    assert "positions 6–" in after.output and "French loot" not in after.output, after.output
    bad = run(settings, "report", "pace", "--tz", "Mars/Olympus")
    assert bad.exit_code == 2 and "unknown time zone 'Mars/Olympus'" in bad.output
