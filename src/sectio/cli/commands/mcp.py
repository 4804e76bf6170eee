"""``sectio mcp``: serve retrieval to agents over MCP (stdio or streamable HTTP)."""

from __future__ import annotations

import click

from sectio.cli.base import Context, cli, pass_state
from sectio.errors import ConfigError, NotAvailable


@cli.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio (a local agent starts it) or streamable HTTP at /mcp.",
)
@click.option("--tenant", default="default", show_default=True, help="Tenant over stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: address to bind.")
@click.option("--port", default=8001, show_default=True, type=int, help="HTTP: port to bind.")
@click.option(
    "--insecure-no-auth",
    is_flag=True,
    help="HTTP: serve --tenant without API keys on a non-loopback address.",
)
@pass_state
def mcp(
    state: Context, transport: str, tenant: str, host: str, port: int, insecure_no_auth: bool
) -> None:
    """Serve ask, search, lookup, feedback and list_collections as MCP tools.

    Over HTTP the tenant is the API key's (SECTIO_API_KEYS, as `sectio serve`).
    """
    try:
        from sectio.mcp import KeyMiddleware, build_server, tenant_resolver
    except ImportError as exc:
        msg = f"the MCP server needs the mcp extra: pip install 'sectio[mcp]' ({exc})"
        raise NotAvailable(msg) from exc
    from sectio import telemetry
    from sectio.api.auth import KeyRing
    from sectio.cli.commands.serve import is_loopback

    keys = KeyRing.from_settings(state.settings)
    if transport == "http" and not keys.enabled and not is_loopback(host) and not insecure_no_auth:
        raise ConfigError(
            f"no API keys configured (SECTIO_API_KEYS); refusing to bind to {host}: "
            "use a loopback address or --insecure-no-auth"
        )
    telemetry.setup_from_env("sectio-mcp")
    server = build_server(state.sectio, tenant_resolver(keys, tenant))
    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    uvicorn.run(KeyMiddleware(app, keys), host=host, port=port, log_level="warning")
