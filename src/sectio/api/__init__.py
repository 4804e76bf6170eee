"""The HTTP service: ``create_app(settings)`` builds the FastAPI app that ``sectio serve`` runs.

Modules: :mod:`~sectio.api.app` (assembly only), :mod:`~sectio.api.state`
(what the requests share, the serving model, start-up and background tasks),
:mod:`~sectio.api.deps` (the state and the caller's tenant as dependencies),
:mod:`~sectio.api.routes` (one router per area), :mod:`~sectio.api.errors`
(every failure as JSON), :mod:`~sectio.api.readiness`,
:mod:`~sectio.api.metrics`, :mod:`~sectio.api.batching`,
:mod:`~sectio.api.auth`, :mod:`~sectio.api.middleware`,
:mod:`~sectio.api.models` (request bodies).
"""

from sectio.api.app import create_app

__all__ = ["create_app"]
