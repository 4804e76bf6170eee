"""The endpoints, one router per area; :func:`sectio.api.app.create_app` includes them in order.

* :mod:`~sectio.api.routes.ops`: ``/healthz``, ``/readyz``, ``/metrics``, the playground ``/``
* :mod:`~sectio.api.routes.retrieval`: ``/v1/retrieve``, ``/v1/search``, ``/v1/lookup``
* :mod:`~sectio.api.routes.collections`: ``/v1/collections``, ``/v1/collections/{name}``
* :mod:`~sectio.api.routes.feedback`: ``/v1/feedback``, ``/v1/traces/{trace_id}``
* :mod:`~sectio.api.routes.admin`: ``/v1/admin/documents/...``, ``/v1/admin/tenant/replace``
"""

from fastapi import APIRouter

from sectio.api.routes import admin, collections, feedback, ops, retrieval

#: In the order of the OpenAPI document's paths.
ROUTERS: tuple[APIRouter, ...] = (
    ops.router,
    retrieval.router,
    collections.router,
    feedback.router,
    admin.router,
)

__all__ = ["ROUTERS"]
