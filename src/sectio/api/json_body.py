"""Every request body is JSON: a form content type (``curl -d``'s default) is read as JSON.

``curl -d '{"query": ...}'`` sends ``Content-Type:
application/x-www-form-urlencoded``; FastAPI would then hand the raw bytes to
validation and answer 422 ("Input should be a valid dictionary"). No endpoint
takes a form, so this middleware relabels such a body (and one without a content
type) as ``application/json`` before routing. A body that is not valid JSON is
still refused as malformed, with the same error as any other.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

_FORM = b"application/x-www-form-urlencoded"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class JsonBodyDefault:
    """ASGI middleware: a form-encoded or unlabelled request body is read as JSON.

    Example:
        >>> from starlette.applications import Starlette
        >>> app = JsonBodyDefault(Starlette())
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in _BODY_METHODS:
            headers = [(k, v) for k, v in scope["headers"] if k != b"content-type"]
            ctype = dict(scope["headers"]).get(b"content-type", b"")
            if not ctype or ctype.split(b";")[0].strip().lower() == _FORM:
                scope = {**scope, "headers": [*headers, (b"content-type", b"application/json")]}
        await self.app(scope, receive, send)
