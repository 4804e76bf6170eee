"""A Haystack retriever component (``pip install 'sectio[haystack]'``, ``haystack-ai``).

Example:
    >>> from haystack import Pipeline
    >>> from sectio.integrations.haystack import SectioRetriever
    >>> pipe = Pipeline()
    >>> pipe.add_component("retriever", SectioRetriever(home=".sectio"))  # doctest: +SKIP
    >>> pipe.run({"retriever": {"query": "who should not take aspirin"}})  # doctest: +SKIP
    {'retriever': {'documents': [...], 'decision': 'ANSWERABLE', 'reason': '...'}}
"""

from __future__ import annotations

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.utils import Secret, deserialize_secrets_inplace

from sectio.engine import DEFAULT_COLLECTION, Sectio
from sectio.errors import ConfigError
from sectio.integrations.base import Answer, Query, Source, arun_query, open_source, run_query

#: The default remote key: the ``SECTIO_API_KEY`` variable, resolved when the source opens.
DEFAULT_API_KEY = Secret.from_env_var("SECTIO_API_KEY", strict=False)


@component
class SectioRetriever:
    """Outputs ``documents`` (one per chunk of ``sectio ask`` or ``search``, in sectio's
    order), ``decision`` and ``reason`` (None for ``mode="search"``).

    An ``ABSTAIN`` outputs no documents and says so in ``decision``. A document's
    ``id`` is the ``chunk_id``; ``meta`` is
    :func:`sectio.integrations.base.chunk_metadata`. Embedded with ``home``
    (a ``SECTIO_HOME``) or ``sectio`` (an instance; not serialisable), remote with
    ``url`` and ``api_key`` (a Haystack ``Secret``, by default the
    ``SECTIO_API_KEY`` variable). The other arguments are the
    :class:`~sectio.integrations.base.Query` fields. Serialisable with
    ``to_dict``/``from_dict`` (``Pipeline.dumps``/``loads``); the source opens in
    ``warm_up`` or on the first run.

    Raises:
        ConfigError: none or several of ``home``, ``url``, ``sectio``; ``to_dict`` of
            a retriever built on an instance.
    """

    def __init__(
        self,
        *,
        home: str | None = None,
        url: str | None = None,
        api_key: Secret | None = DEFAULT_API_KEY,
        collection: str = DEFAULT_COLLECTION,
        tenant: str = "default",
        sectio: Sectio | None = None,
        **query: Any,
    ) -> None:
        if sum(x is not None for x in (home, url, sectio)) != 1:
            raise ConfigError("give exactly one of home, url or sectio")
        self.home, self.url, self.api_key = home, url, api_key
        self.collection, self.tenant = collection, tenant
        self.query = Query(**query)
        self._sectio = sectio
        self._source: Source | None = None

    def warm_up(self) -> None:
        """Open the source (Haystack calls this before a pipeline's first run)."""
        if self._source is None:
            key = self.api_key.resolve_value() if self.api_key is not None else None
            self._source = open_source(
                sectio=self._sectio,
                home=self.home,
                url=self.url,
                api_key=key if self.url else None,
                collection=self.collection,
                tenant=self.tenant,
            )

    def close(self) -> None:
        """Close the source this component opened (a ``home``'s store, the remote client)."""
        if self._source is not None:
            self._source.close()
            self._source = None

    @component.output_types(documents=list[Document], decision=str | None, reason=str | None)
    def run(self, query: str, top_k: int | None = None) -> dict[str, Any]:
        """Retrieve for ``query`` (``top_k`` overrides the configured one for this run)."""
        self.warm_up()
        assert self._source is not None
        return _outputs(run_query(self._source, query, self._query(top_k)))

    @component.output_types(documents=list[Document], decision=str | None, reason=str | None)
    async def run_async(self, query: str, top_k: int | None = None) -> dict[str, Any]:
        """:meth:`run`, awaitable (``AsyncPipeline``)."""
        self.warm_up()
        assert self._source is not None
        return _outputs(await arun_query(self._source, query, self._query(top_k)))

    def _query(self, top_k: int | None) -> Query:
        return self.query if top_k is None else dataclasses.replace(self.query, top_k=top_k)

    def to_dict(self) -> dict[str, Any]:
        """The component as data (the API key as its ``Secret``, never its value)."""
        if self._sectio is not None:
            raise ConfigError("a retriever on a Sectio instance is not serialisable: give home=")
        return default_to_dict(
            self,
            home=self.home,
            url=self.url,
            api_key=self.api_key.to_dict() if self.api_key is not None else None,
            collection=self.collection,
            tenant=self.tenant,
            **dataclasses.asdict(self.query),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SectioRetriever:
        """The component :meth:`to_dict` described."""
        deserialize_secrets_inplace(data["init_parameters"], keys=["api_key"])
        return default_from_dict(cls, data)


def _outputs(answer: Answer) -> dict[str, Any]:
    documents = [
        Document(id=item.chunk_id, content=item.text, meta=meta, score=item.score)
        for item, meta in answer.chunks
    ]
    return {"documents": documents, "decision": answer.decision, "reason": answer.reason}
