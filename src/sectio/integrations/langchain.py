"""A LangChain retriever (``pip install 'sectio[langchain]'``, ``langchain-core``).

Example:
    >>> from sectio.integrations import open_source
    >>> from sectio.integrations.langchain import SectioRetriever
    >>> retriever = SectioRetriever(source=open_source(home=".sectio"))  # doctest: +SKIP
    >>> retriever.invoke("who should not take aspirin")[0].metadata["decision"]  # doctest: +SKIP
    'ANSWERABLE'
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from sectio.integrations.base import Answer, Query, Source, arun_query, run_query


class SectioRetriever(BaseRetriever):
    """``Document`` per chunk of ``sectio ask`` (``mode="ask"``) or ``search``, sync and async.

    Documents come in sectio's order; ``id`` is the ``chunk_id``, ``metadata``
    :func:`sectio.integrations.base.chunk_metadata` (doc/section/part,
    ``source_refs``, ``decision``, ``reason``, ``route``). An ``ABSTAIN``
    returns no documents: :attr:`last_answer` holds the decision and reason of
    the latest call (one retriever per concurrent caller).

    Fields: ``source`` (:func:`sectio.integrations.open_source`) and ``query``
    (:class:`~sectio.integrations.base.Query`); the query's fields may be
    given directly (``SectioRetriever(source=s, mode="search", top_k=5)``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Any = Field(description="A sectio.integrations.Source.")
    query: Query = Field(default_factory=Query)
    _last: Answer | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _query_fields(cls, data: Any) -> Any:
        """Fold ``mode``, ``top_k``, ... given as fields into ``query``."""
        if isinstance(data, dict):
            names = set(Query.__dataclass_fields__)
            given = {k: data[k] for k in list(data) if k in names}
            if given:
                data = {k: v for k, v in data.items() if k not in names}
                data["query"] = Query(**given)
        return data

    @property
    def last_answer(self) -> Answer | None:
        """The latest call's answer: chunks, ``decision`` and ``reason``."""
        return self._last

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        source: Source = self.source
        self._last = run_query(source, query, self.query)
        return _documents(self._last)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        source: Source = self.source
        self._last = await arun_query(source, query, self.query)
        return _documents(self._last)


def _documents(answer: Answer) -> list[Document]:
    return [Document(page_content=e.text, metadata=m, id=e.chunk_id) for e, m in answer.chunks]
