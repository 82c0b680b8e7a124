"""What an endpoint may ask to be told: topics in plain words, and the kinds of endpoint."""

from __future__ import annotations

#: Topic -> what it tells, in the words the forms and the README use. A topic's events are the outbox's table
#: (projections/outbox.py MESSAGES): a new kind of message is a line there, and a topic here if it is new.
TOPICS: dict[str, str] = {
    "turns": "a turn opened or closed, a phase closed (the next one opens)",
    "rulings": "a ruling that touches your country",
    "moves": "a move or another change of the map that touches your country",
    "corrections": "a correction touching your country (how the game master answers a dispute)",
    "sheets": "your country's ERS sheet published",
    "deadlines": "a phase's deadline set, moved or cleared, and a reminder when your country is not ready",
}
#: Kind -> what it is. Discord and Slack get their incoming webhooks' payload; ``json`` a plain JSON POST.
KINDS: dict[str, str] = {
    "discord": "a Discord channel's incoming webhook (URL)",
    "slack": "a Slack incoming webhook (URL)",
    "json": "any URL receiving a signed JSON POST",
    "email": "an e-mail address (where the operator configured SMTP: LEDGER_SMTP_URL)",
}
#: How many live endpoints one audience (a country, the game master, the table) may have.
MAX_PER_AUDIENCE = 10
