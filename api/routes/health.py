"""Liveness and readiness (no token needed: load balancers probe them), and metrics for the operator.

``/metrics`` needs the admin token (``LEDGER_ADMIN_TOKEN``; in development without one, a request without a
token from loopback): its counters of appended events by type and of requests by route move with every write,
hidden ones too, so anyone reading them could tell when an event of which type was recorded out of their sight."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from api import schemas
from api.deps import LedgerDep, OperatorDep
from api.errors import ERRORS, _doc
from api.replica import on_primary
from api.observability import metrics_body

router = APIRouter(tags=["operations"])
METRICS_EXAMPLE = ('ledger_http_request_duration_seconds_bucket{le="0.005",method="GET",'
                   'route="/campaigns/{campaign}/map",status="200"} 1812.0\n'
                   'ledger_events_appended_total{type="RulingRecorded"} 431.0\n')


@router.get("/health", response_model=schemas.Health, summary="Liveness: the process answers")
def health():
    return schemas.Health(status="ok")


# The primary's readiness (the store the writes need), and its views' lag: a standby has neither to report.
@router.get("/ready", response_model=schemas.Ready, summary="Readiness: the store answers; projection lag",
            dependencies=[Depends(on_primary)])
def ready(request: Request, ledger: LedgerDep):
    head = ledger.recorder.max_notification_id() or 0  # raises if the store does not answer
    # The projection runner (projections/runner.py), when this process runs one, at app.state.projection_runner:
    # its status() gives each view's position; without one there is nothing to lag behind (0).
    runner = getattr(request.app.state, "projection_runner", None)
    per: dict[str, Any] = {}
    total = 0
    failed: dict[str, int] = {}
    error = None
    if runner is not None:
        status = runner.status()
        per = {name: max(0, status["head"] - position) for name, position in status["positions"].items()}
        total = int(status["lag"])
        failed = {view: doc["count"] for view, doc in runner.projector.failed().items()}
        error = status["last_error"]
    follower = None
    if runner is None and ledger.settings.projection_runner == "external":
        per, total, follower, failed = _external(request, ledger)
    # Degraded, still 200: a dead follower, a catch-up that fails, or events a view could not apply (the log and
    # `ledger project` name them; not here, where anyone may ask).
    # A write the store refused since this process's last append (a full disk, a read-only store) too.
    store_failing = request.app.state.store_health.failing
    stuck = request.app.state.lag_watch.seen(total, ledger.settings.lag_alert_seconds)  # behind for minutes
    healthy = ((follower is None or follower["alive"]) and error is None and not failed and store_failing is None
               and stuck is None)
    return schemas.Ready(status="ready" if healthy else "degraded", store=ledger.settings.backend, head=head,
                         projections_lag=total, projections=per, follower=follower, projection_errors=failed,
                         projections_failing=error is not None,
                         store_failing=store_failing, projections_stuck_seconds=stuck)


def _external(request: Request, ledger: Any) -> tuple[dict[str, int], int, dict[str, Any], dict[str, int]]:
    """Lag read from the views' tracking rows, liveness from the follower's heartbeat (ledger/supervision.py).

    A dead follower leaves the API serving (reads add the tail the views miss): ``status`` says ``degraded``
    with a 200, so a load balancer keeps the workers while the master restarts the follower.
    """
    from ledger.supervision import Heartbeat
    from projections.runner import Projector

    state = request.app.state
    if getattr(state, "lag_probe", None) is None:
        state.lag_probe = (Projector(ledger), Heartbeat(ledger))
    projector, heartbeat = state.lag_probe
    positions, head = projector.positions(), projector.db.head()
    per = {name: max(0, head - position) for name, position in positions.items()}
    beat = heartbeat.read()
    alive = beat is not None and beat["age_seconds"] <= ledger.settings.follower_stale_seconds
    failed = {view: doc["count"] for view, doc in projector.failed().items()}
    return per, max(per.values(), default=0), {"alive": alive, **(beat or {})}, failed


@router.get("/metrics", summary="Prometheus metrics (the admin token)", response_class=Response,
            responses={200: {"content": {"text/plain": {"example": METRICS_EXAMPLE}},
                             "description": "Prometheus text format"},
                       401: ERRORS[401], 403: _doc("Not the admin token (a campaign's token, whatever its role)")})
def metrics(_: OperatorDep):
    body, content_type = metrics_body()
    return Response(body, media_type=content_type)
