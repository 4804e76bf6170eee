"""Every HTTP failure is JSON, ``{"error": {"code", "message"}}``, and never a 500 for bad input.

* a :class:`sectio.errors.SectioError`: the status and code of its row in
  :data:`sectio.errors.HTTP_ERRORS` (the one table);
* an :class:`ApiError`: what only the HTTP layer knows (a missing API key, a
  request over a limit, a served collection that is not ready);
* a body that does not validate: 422 ``invalid_request``, naming the field (or,
  for malformed JSON, the line and column and what the decoder expected);
* an unknown path or method: 404 ``not_found`` / 405 ``method_not_allowed``;
* anything else: 500 ``internal_error``, logged with its traceback.
"""

from __future__ import annotations

import logging
import math

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from sectio.errors import SectioError, StoreNotMigrated, StoreUnavailable, http_error
from sectio.ops.errors import public_message

log = logging.getLogger("sectio.api")

_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}


class ApiError(Exception):
    """An error with an HTTP status and a stable code, raised by the HTTP layer only.

    Example:
        >>> ApiError(401, "unauthorized", "missing or invalid API key").status
        401
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """The error body, its message on one line."""
    return JSONResponse({"error": {"code": code, "message": " ".join(message.split())}}, status)


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message)


async def _sectio_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SectioError)
    status, code = http_error(exc)
    if status >= 500:
        log.warning("%s: %s", type(exc).__name__, exc)
    response = error_response(status, code, public_message(exc))
    if isinstance(exc, StoreUnavailable | StoreNotMigrated):
        state = getattr(request.app.state, "api", None)
        after = state.settings.db_retry_after_s if state is not None else 5.0
        response.headers["Retry-After"] = str(max(1, math.ceil(after)))
    return response


def _json_where(doc: object, pos: object) -> str:
    """``line L, column C`` of character ``pos`` in the body ``doc`` (the decoder's)."""
    if not isinstance(doc, str) or not isinstance(pos, int):
        return f"character {pos}"
    line = doc.count("\n", 0, pos) + 1
    column = pos - (doc.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


async def _validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":
        at = tuple(first.get("loc", ()))
        where = _json_where(exc.body, at[-1] if at else None)
        reason = str((first.get("ctx") or {}).get("error", "not valid JSON"))
        return error_response(422, "invalid_request", f"body: invalid JSON at {where}: {reason}")
    loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    msg = str(first.get("msg", "invalid request"))
    if first.get("type") == "extra_forbidden":
        msg = "unknown field"
    return error_response(422, "invalid_request", f"{loc}: {msg}")


async def _http(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail))


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=exc)
    return error_response(500, "internal_error", "internal error; see the server log")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers above on ``app``."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(SectioError, _sectio_error)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)
