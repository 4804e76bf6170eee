"""``sectio serve``: the HTTP API and playground (uvicorn)."""

from __future__ import annotations

import ipaddress
import logging
import sys

import click

from sectio.cli.base import Context, cli, pass_state
from sectio.errors import ConfigError
from sectio.extras import require_extra


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _settle_and_register(state: Context, host: str, port: int) -> None:
    """Before serving: finish or undo every interrupted document write or tenant addition
    (as ``sectio gc``), and record where this server listens, so that CLI writes from
    other processes are sent here (:mod:`sectio.client.forward`)."""
    from sectio.engine_docs import register_served
    from sectio.errors import SectioError

    log = logging.getLogger("sectio.serve")
    try:
        for name, outcome in state.sectio.settle_pending().items():
            log.warning("collection %s: interrupted write %s at start-up", name, outcome)
    except SectioError as exc:  # a collection another process writes: readiness names it
        log.warning("pending writes not settled at start-up: %s", exc)
    register_served(state.settings, f"http://{_reachable(host)}:{port}")


def _reachable(host: str) -> str:
    """The address a client on this machine reaches a server bound to ``host`` at."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to bind.")
@click.option(
    "--insecure-no-auth",
    is_flag=True,
    help="Serve tenant 'default' without API keys on a non-loopback address.",
)
@pass_state
def serve(state: Context, host: str, port: int, insecure_no_auth: bool) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the playground at /.

    Needs the ``server`` extra: ``pip install 'sectio[server]'``.
    """
    require_extra("server", "fastapi", "uvicorn", "prometheus_client", "fastapi_offline")
    import uvicorn

    from sectio import telemetry
    from sectio.api.app import create_app
    from sectio.api.auth import KeyRing
    from sectio.api.middleware import JsonFormatter

    settings = state.settings
    if (
        not KeyRing.from_settings(settings).enabled
        and not is_loopback(host)
        and not insecure_no_auth
    ):
        raise ConfigError(
            f"no API keys configured (SECTIO_API_KEYS); refusing to bind to {host}: "
            "use a loopback address or --insecure-no-auth"
        )
    # one server per home: a second refuses here, naming the first's pid
    claim = state.sectio.hold_serving()
    _settle_and_register(state, host, port)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    telemetry.setup_from_env()  # OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set
    try:
        uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)
    finally:
        if claim is not None:
            claim.release()
