"""What the framework retrievers share: where the answers come from, and what a chunk carries.

A :class:`Source` answers ``ask`` and ``search``, embedded (:class:`LocalSource`,
a :class:`sectio.Sectio` over a local ``SECTIO_HOME``) or remote
(:class:`RemoteSource`, :mod:`sectio.client` against ``sectio serve`` with a
key). :func:`open_source` picks one from its arguments, in one place.

A :class:`Query` says what a retriever asks: ``mode="ask"`` (routed, with a
decision; an abstained answer gives no chunks) or ``mode="search"`` (hybrid,
dense or lexical ranking; no decision). :func:`run_query` runs it and returns
an :class:`Answer`: the chunks, each with :func:`chunk_metadata`, and the
decision and reason.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio.to_thread

from sectio.contract.result import Evidence, RetrievalResult, SearchResult
from sectio.engine import DEFAULT_COLLECTION, Sectio
from sectio.errors import ConfigError
from sectio.settings import load_settings

Mode = Literal["ask", "search"]


@dataclass(frozen=True)
class Query:
    """What a retriever asks, besides the question.

    ``mode`` ``ask`` (routed, the default) or ``search``; ``doc_id`` /
    ``section_key`` force the document and section of an ``ask``;
    ``top_k`` caps free-form evidence (``ask``) or the hits (``search``, default 10);
    ``search_mode`` and ``filters`` as :meth:`sectio.Sectio.search`.
    """

    mode: Mode = "ask"
    top_k: int | None = None
    doc_id: str | None = None
    section_key: str | None = None
    search_mode: Literal["hybrid", "dense", "lexical"] = "hybrid"
    filters: dict[str, str | list[str]] | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("ask", "search"):
            raise ConfigError(f"mode must be 'ask' or 'search', not {self.mode!r}")


class Source(Protocol):
    """Where answers come from; the collection (and, embedded, the tenant) are bound.

    A context manager: leaving it closes what the source opened (the embedded
    store it opened from ``home``, the remote clients).
    """

    collection: str

    def close(self) -> None:
        """Release what the source opened."""
        ...

    def __enter__(self) -> Source: ...

    def __exit__(self, *exc: object) -> None: ...

    def ask(self, question: str, query: Query) -> RetrievalResult:
        """The routed answer (:meth:`sectio.Sectio.ask`)."""
        ...

    def search(self, text: str, query: Query) -> SearchResult:
        """The ranked hits (:meth:`sectio.Sectio.search`)."""
        ...

    async def aask(self, question: str, query: Query) -> RetrievalResult:
        """:meth:`ask`, awaitable."""
        ...

    async def asearch(self, text: str, query: Query) -> SearchResult:
        """:meth:`search`, awaitable."""
        ...


class _Closing:
    """``with source: ...`` closes it."""

    def close(self) -> None:
        """Release what the source opened."""

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalSource(_Closing):
    """Answers from a :class:`sectio.Sectio` in this process (one call at a time).

    The async methods run the call on a worker thread; a lock keeps calls into
    the engine one at a time (Qdrant Edge holds the GIL and is not thread-safe).
    ``owned``: :meth:`close` closes the Sectio (it was opened for this source).
    """

    def __init__(
        self, sectio: Sectio, *, collection: str, tenant: str, owned: bool = False
    ) -> None:
        self.sectio, self.collection, self.tenant = sectio, collection, tenant
        self._lock = threading.Lock()
        self._owned = owned

    def close(self) -> None:
        if self._owned:
            with self._lock:
                self.sectio.close()

    def ask(self, question: str, query: Query) -> RetrievalResult:
        with self._lock:
            return self.sectio.ask(
                question,
                collection=self.collection,
                tenant=self.tenant,
                doc_id=query.doc_id,
                section_key=query.section_key,
                top_k=query.top_k,
            )

    def search(self, text: str, query: Query) -> SearchResult:
        with self._lock:
            return self.sectio.search(
                text,
                collection=self.collection,
                tenant=self.tenant,
                top_k=query.top_k or 10,
                mode=query.search_mode,
                filters=query.filters,
            )

    async def aask(self, question: str, query: Query) -> RetrievalResult:
        return await anyio.to_thread.run_sync(functools.partial(self.ask, question, query))

    async def asearch(self, text: str, query: Query) -> SearchResult:
        return await anyio.to_thread.run_sync(functools.partial(self.search, text, query))


class RemoteSource(_Closing):
    """Answers from ``sectio serve`` through :mod:`sectio.client` (the tenant is the key's)."""

    def __init__(
        self, url: str, *, api_key: str | None, collection: str, timeout_s: float = 30.0
    ) -> None:
        from sectio.client import AsyncSectioClient, SectioClient

        self.url, self.collection = url, collection
        self.client = SectioClient(url, api_key=api_key, timeout_s=timeout_s)
        self._api_key, self._timeout_s = api_key, timeout_s
        self._async_client: AsyncSectioClient | None = None
        self._async_loop: object = None

    def ask(self, question: str, query: Query) -> RetrievalResult:
        return self.client.ask(question, **_ask_options(self.collection, query))

    def search(self, text: str, query: Query) -> SearchResult:
        return self.client.search(text, **_search_options(self.collection, query))

    async def aask(self, question: str, query: Query) -> RetrievalResult:
        return await self._aclient().ask(question, **_ask_options(self.collection, query))

    async def asearch(self, text: str, query: Query) -> SearchResult:
        return await self._aclient().search(text, **_search_options(self.collection, query))

    def close(self) -> None:
        self.client.close()  # an async client's pool closes with its event loop

    def _aclient(self) -> Any:
        """The async client of the running event loop (an httpx pool is bound to the loop
        it was made in: another loop gets a fresh client)."""
        import asyncio

        from sectio.client import AsyncSectioClient

        loop = asyncio.get_running_loop()
        if self._async_client is None or self._async_loop is not loop:
            self._async_client = AsyncSectioClient(
                self.url, api_key=self._api_key, timeout_s=self._timeout_s
            )
            self._async_loop = loop
        return self._async_client


def _ask_options(collection: str, query: Query) -> dict[str, Any]:
    return {
        "collection": collection,
        "doc_id": query.doc_id,
        "section_key": query.section_key,
        "top_k": query.top_k,
    }


def _search_options(collection: str, query: Query) -> dict[str, Any]:
    return {
        "collection": collection,
        "top_k": query.top_k or 10,
        "mode": query.search_mode,
        "filters": query.filters,
    }


def open_source(
    *,
    sectio: Sectio | None = None,
    home: str | Path | None = None,
    url: str | None = None,
    api_key: str | None = None,
    collection: str = DEFAULT_COLLECTION,
    tenant: str = "default",
) -> Source:
    """The source its arguments name: exactly one of ``sectio`` (yours, embedded),
    ``home`` (embedded: a :class:`sectio.Sectio` over that ``SECTIO_HOME``, other
    settings from ``SECTIO_*``) or ``url`` (remote, with ``api_key``; the tenant
    is the key's, so ``tenant`` is refused there).

    Raises:
        ConfigError: none or several of them, or a tenant named in remote mode.
    """
    given = [name for name, v in (("sectio", sectio), ("home", home), ("url", url)) if v]
    if len(given) != 1:
        raise ConfigError(f"give exactly one of sectio, home or url (got {given or 'none'})")
    if url:
        if tenant != "default":
            raise ConfigError("remote mode: the tenant is the API key's, not an argument")
        return RemoteSource(url, api_key=api_key, collection=collection)
    if sectio is None:
        opened = Sectio(load_settings().model_copy(update={"home": Path(str(home))}))
        return LocalSource(opened, collection=collection, tenant=tenant, owned=True)
    return LocalSource(sectio, collection=collection, tenant=tenant)


@dataclass
class Answer:
    """What a retriever got: the chunks to return, and the decision behind them.

    ``decision`` and ``reason`` are None for ``search`` (nothing was decided);
    an ``ABSTAIN`` has no chunks. ``result`` is the library's result.
    """

    chunks: list[tuple[Evidence, dict[str, Any]]] = field(default_factory=list)
    decision: str | None = None
    reason: str | None = None
    result: RetrievalResult | SearchResult | None = None


def answer_of(result: RetrievalResult | SearchResult) -> Answer:
    """The :class:`Answer` of a result (no chunks when it abstained)."""
    if isinstance(result, SearchResult):
        return Answer([(e, chunk_metadata(e, result)) for e in result.hits], result=result)
    kept = [] if result.decision == "ABSTAIN" else result.evidence
    return Answer(
        [(e, chunk_metadata(e, result)) for e in kept], result.decision, result.reason, result
    )


def run_query(source: Source, question: str, query: Query) -> Answer:
    """Ask ``source`` per ``query`` (see the module doc)."""
    if query.mode == "search":
        return answer_of(source.search(question, query))
    return answer_of(source.ask(question, query))


async def arun_query(source: Source, question: str, query: Query) -> Answer:
    """:func:`run_query`, awaitable."""
    if query.mode == "search":
        return answer_of(await source.asearch(question, query))
    return answer_of(await source.aask(question, query))


#: Evidence fields every framework document carries in its metadata.
EVIDENCE_FIELDS = (
    "chunk_id",
    "doc_id",
    "doc_title",
    "section_key",
    "section_title",
    "part_index",
    "chunk_kind",
    "path",
    "source_refs",
    "rank",
    "pooled",
    "requires_visual_check",
)


def page_label(refs: list[dict[str, Any]]) -> str | None:
    """The page to look at, from the first reference that has one: ``"4"`` or ``"4-5"``
    (a chunk spanning pages); None when no reference names a page.

    Example:
        >>> page_label([{"source": "a.pdf", "page": 4, "page_end": 5}])
        '4-5'
    """
    for ref in refs:
        if ref.get("page") is not None:
            end = ref.get("page_end")
            return f"{ref['page']}-{end}" if end not in (None, ref["page"]) else str(ref["page"])
    return None


def chunk_metadata(item: Evidence, result: RetrievalResult | SearchResult) -> dict[str, Any]:
    """A chunk's metadata for a framework document: where it is (doc, section, part),
    its provenance (``source_refs``), its score, and the answer's ``decision``,
    ``reason``, ``route`` (``mode`` for a search), ``collection`` and ``trace_id``."""
    meta: dict[str, Any] = {k: getattr(item, k) for k in EVIDENCE_FIELDS}
    meta["source_refs"] = [ref.model_dump() for ref in item.source_refs]  # plain JSON data
    meta["page"] = page_label(meta["source_refs"])
    meta["score"] = item.score
    meta["collection"] = result.collection
    meta["trace_id"] = result.trace_id
    if isinstance(result, RetrievalResult):
        meta.update(decision=result.decision, reason=result.reason, route=result.route)
    else:
        meta.update(decision=None, reason=None, route=f"search:{result.mode}")
    return meta


#: Metadata keys a framework keeps out of the text it gives the LLM (bookkeeping, not content).
LLM_HIDDEN_KEYS = (
    "chunk_id",
    "part_index",
    "chunk_kind",
    "rank",
    "pooled",
    "score",
    "collection",
    "trace_id",
    "decision",
    "reason",
    "route",
    "requires_visual_check",
)
