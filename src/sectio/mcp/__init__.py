"""``sectio mcp``: an MCP server over sectio (``pip install 'sectio[mcp]'``).

See :mod:`sectio.mcp.server` for the tools and :mod:`sectio.mcp.transport`
for the tenant rules of each transport.
"""

from sectio.mcp.server import build_server
from sectio.mcp.transport import KeyMiddleware, tenant_resolver

__all__ = ["KeyMiddleware", "build_server", "tenant_resolver"]
