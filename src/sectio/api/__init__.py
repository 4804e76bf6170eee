"""The HTTP service: ``create_app(settings)`` builds the FastAPI app that ``sectio serve`` runs."""

from sectio.api.app import create_app

__all__ = ["create_app"]
