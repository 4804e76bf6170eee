"""The qdrant-client a server backend talks through, and its errors made one line.

Example:
    >>> build_client(url=None, api_key=None, location=":memory:").get_collections().collections
    []
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import grpc
import httpx
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ApiException

from sectio.errors import IndexError_


@contextmanager
def engine_errors(what: str) -> Iterator[None]:
    """Translate qdrant-client's transport and API errors into :class:`IndexError_`."""
    try:
        yield
    except (ApiException, httpx.HTTPError, grpc.RpcError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise IndexError_(f"{what}: {type(exc).__name__}: {detail}") from exc


P = ParamSpec("P")
R = TypeVar("R")


def failed(fn_name: str, endpoint: str | None) -> str:
    """The head of an error message: ``Qdrant <call> failed (<endpoint>)``."""
    return f"Qdrant {fn_name.lstrip('_')} failed" + (f" ({endpoint})" if endpoint else "")


def translated(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: the call's qdrant-client errors become :class:`IndexError_` (one line)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        where = getattr(args[0], "endpoint", None) if args else None
        with engine_errors(failed(fn.__name__, where)):
            return fn(*args, **kwargs)

    return wrapper


def build_client(
    *, url: str | None, api_key: str | None, location: str | None, timeout_s: int = 60
) -> QdrantClient:
    """A qdrant-client for a server ``url`` or a local-mode ``location`` (``:memory:``/path).

    Raises:
        IndexError_: neither is given, or the local folder is held by another process.
    """
    if url:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # api key over http: the user's call
            return QdrantClient(
                url=url, api_key=api_key, timeout=timeout_s, check_compatibility=False
            )
    if location == ":memory:":
        return QdrantClient(location=":memory:")
    if location:
        try:
            return QdrantClient(path=location)
        except RuntimeError as exc:  # "Storage folder ... is already accessed by another ..."
            raise IndexError_(f"cannot open qdrant local storage {location}: {exc}") from exc
    raise IndexError_("no Qdrant url or location given")
