"""FastAPI dependencies: the app's :class:`ApiState` and the caller's tenant.

Route functions declare ``api: Api`` and ``tenant: Tenant``; tests may swap
either with ``app.dependency_overrides``. Both are ``async`` so that FastAPI
runs them on the event loop, not on its thread pool.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from sectio.api.errors import ApiError
from sectio.api.state import ApiState


async def get_state(request: Request) -> ApiState:
    """The state :func:`sectio.api.app.create_app` stored on the app."""
    state: ApiState = request.app.state.api
    return state


Api = Annotated[ApiState, Depends(get_state)]


async def tenant_of(request: Request, api: Api) -> str:
    """The tenant of the request's ``Authorization: Bearer <key>`` (``default`` without keys).

    Raises:
        ApiError: 401, no key or an unknown one.
    """
    if not api.keys.enabled:
        return "default"
    tenant = api.keys.tenant_for_header(request.headers.get("authorization"))
    if tenant is None:
        raise ApiError(401, "unauthorized", "missing or invalid API key")
    return tenant


Tenant = Annotated[str, Depends(tenant_of)]
