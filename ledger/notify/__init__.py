"""Telling people what happened (issue 38): what an endpoint may ask to be told, how a message is signed, and how
it is sent (webhooks for Discord, Slack or any URL; e-mail where the operator configured SMTP).

The write side records who asked (``EndpointRegistered`` and its changes, ledger/usecases/notify.py); the read
side turns events into an outbox of messages, one per event and endpoint (projections/outbox.py), and a worker
delivers them (projections/delivery.py) with what this package sends.
"""
