"""The MCP server: sectio's retrieval as tools for agents (the official ``mcp`` SDK).

Tools (inputs are JSON-schema'd from the signatures; results are structured
content, the library's result models with evidence, provenance and decision):

* ``ask``: routed retrieval with a decision (``ANSWERABLE``, ``ABSTAIN``,
  ``VERIFY_SOURCE``): abstain means do not answer;
* ``search``: hybrid, dense or lexical ranking;
* ``lookup``: phrase -> the documents that mention it;
* ``feedback``: rate an answer by its ``trace_id``;
* ``list_collections``: what can be asked, with the caller's chunk counts.

The tenant is never an argument the model can set: over stdio it is the
configured one (``sectio mcp --tenant``); over HTTP it is the API key's
(``Authorization: Bearer``, ``SECTIO_API_KEYS``), read on every call.
Engine calls run one at a time on a worker thread.

Inputs get the HTTP API's bounds: a question, query or phrase over
``SECTIO_MAX_QUERY_CHARS``, blank (zero-width characters included) or holding a
NUL is refused before the engine sees it, and an argument a tool does not take
(``tenant``, a typo) is an error, not silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, ConfigDict, Field

from sectio._version import __version__
from sectio.contract.bounds import check_query
from sectio.contract.result import RetrievalResult, SearchResult
from sectio.engine import DEFAULT_COLLECTION, Sectio
from sectio.errors import SectioError, public_message

T = TypeVar("T")

INSTRUCTIONS = (
    "sectio answers questions about structured documents (sections, in order) with "
    "evidence and a decision. Call `ask` first. If its decision is ABSTAIN, do not answer "
    "from it; VERIFY_SOURCE means tell the user to check the cited source. Quote evidence "
    "with its doc_id, section_key and source_refs."
)

#: How a call's tenant is found: from the call's context (its HTTP headers), else the default.
TenantOf = Callable[[Context], str]


class FeedbackResult(BaseModel):
    """What ``feedback`` stored."""

    trace_id: str
    rating: str
    comment: str | None = None


class CollectionInfo(BaseModel):
    """One collection as the caller sees it."""

    name: str
    ready: bool
    reason: str | None = None
    chunks: int = Field(default=0, description="The caller's chunks in it.")
    profile_name: str | None = None
    model_id: str | None = None


class Collections(BaseModel):
    """Every collection of the store."""

    collections: list[CollectionInfo]


class SectioTools:
    """The tools over one :class:`sectio.Sectio`; :func:`build_server` registers them."""

    def __init__(self, sectio: Sectio, tenant_of: TenantOf) -> None:
        self.sectio, self.tenant_of = sectio, tenant_of
        self._limiter: anyio.CapacityLimiter | None = None

    def _bounded(self, what: str, text: str) -> str:
        """``text`` if :func:`sectio.contract.bounds.check_query` passes it, else a ToolError."""
        problem = check_query(text, self.sectio.settings.max_query_chars)
        if problem is not None:
            raise ToolError(f"invalid {what}: {problem}")
        return text

    async def _engine(self, fn: Callable[[], T]) -> T:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(1)
        try:
            return await anyio.to_thread.run_sync(fn, limiter=self._limiter)
        except SectioError as exc:  # one line for the model, named by its class
            shown = " ".join(public_message(exc).split())
            raise ToolError(f"{type(exc).__name__}: {shown}") from exc

    async def ask(
        self,
        question: str,
        ctx: Context,
        collection: str = DEFAULT_COLLECTION,
        doc_id: str | None = None,
        section_key: str | None = None,
        top_k: int | None = None,
    ) -> RetrievalResult:
        """Answer a question with evidence and a decision. ABSTAIN: do not answer.

        doc_id / section_key force the document and section; top_k caps free-form evidence.
        """
        tenant = self.tenant_of(ctx)
        question = self._bounded("question", question)
        return await self._engine(
            lambda: self.sectio.ask(
                question,
                collection=collection,
                tenant=tenant,
                doc_id=doc_id,
                section_key=section_key,
                top_k=top_k,
            )
        )

    async def search(
        self,
        query: str,
        ctx: Context,
        collection: str = DEFAULT_COLLECTION,
        top_k: int = 10,
        mode: Literal["hybrid", "dense", "lexical"] = "hybrid",
        filters: dict[str, str | list[str]] | None = None,
    ) -> SearchResult:
        """Rank chunks for a query (hybrid, dense or lexical); no decision is made.

        filters keys: doc_id, section_key, chunk_kind, tags, metadata.domain,
        metadata.subdomain, path (prefix).
        """
        tenant = self.tenant_of(ctx)
        query = self._bounded("query", query)
        return await self._engine(
            lambda: self.sectio.search(
                query, collection=collection, tenant=tenant, top_k=top_k, mode=mode, filters=filters
            )
        )

    async def lookup(
        self, phrase: str, ctx: Context, collection: str = DEFAULT_COLLECTION
    ) -> RetrievalResult:
        """Which documents mention a phrase (e.g. a condition -> the drugs indicated for it)."""
        tenant = self.tenant_of(ctx)
        phrase = self._bounded("phrase", phrase)
        return await self._engine(
            lambda: self.sectio.lookup(phrase, collection=collection, tenant=tenant)
        )

    async def feedback(
        self,
        trace_id: str,
        rating: Literal["helpful", "not_helpful"],
        ctx: Context,
        comment: str | None = None,
    ) -> FeedbackResult:
        """Rate an answer by the trace_id its result carried (a second rating replaces it)."""
        tenant = self.tenant_of(ctx)
        stored = await self._engine(
            lambda: self.sectio.ops.feedback(trace_id, rating, tenant=tenant, comment=comment)
        )
        data = stored.as_dict()
        return FeedbackResult(trace_id=trace_id, rating=data["rating"], comment=data.get("comment"))

    async def list_collections(self, ctx: Context) -> Collections:
        """The collections that can be asked, with the caller's chunk count in each."""
        tenant = self.tenant_of(ctx)
        return await self._engine(lambda: Collections(collections=self._collections(tenant)))

    def _collections(self, tenant: str) -> list[CollectionInfo]:
        out = []
        for name in self.sectio.collection_names():
            try:
                detail = self.sectio.collection_detail(name, tenant=tenant)
            except SectioError as exc:
                out.append(CollectionInfo(name=name, ready=False, reason=str(exc)))
                continue
            manifest: dict[str, Any] = detail.get("manifest") or {}
            out.append(
                CollectionInfo(
                    name=name,
                    ready=True,
                    chunks=int(detail["tenant_count"]),
                    profile_name=manifest.get("profile_name"),
                    model_id=manifest.get("model_id"),
                )
            )
        return out


def build_server(sectio: Sectio, tenant_of: TenantOf) -> MCPServer:
    """An :class:`MCPServer` with sectio's tools (see the module doc)."""
    tools = SectioTools(sectio, tenant_of)
    fns = (tools.ask, tools.search, tools.lookup, tools.feedback, tools.list_collections)
    strict = [strict_tool(Tool.from_function(fn, structured_output=True)) for fn in fns]
    server: MCPServer = MCPServer(
        "sectio",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=strict,
    )
    return server


def strict_tool(tool: Tool) -> Tool:
    """``tool`` refusing arguments it does not take (the SDK drops them silently): its
    argument model forbids extra fields, and its input schema says so."""
    base = tool.fn_metadata.arg_model
    config = ConfigDict(**{**base.model_config, "extra": "forbid"})
    strict = type(base.__name__, (base,), {"model_config": config, "__module__": base.__module__})
    tool.fn_metadata.arg_model = strict
    tool.parameters = {**tool.parameters, "additionalProperties": False}
    return tool
