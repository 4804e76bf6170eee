"""Retrievers for LlamaIndex, Haystack and LangChain (optional extras), over one :class:`Source`.

* :mod:`sectio.integrations.llamaindex` (``pip install 'sectio[llamaindex]'``)
* :mod:`sectio.integrations.haystack` (``pip install 'sectio[haystack]'``)
* :mod:`sectio.integrations.langchain` (``pip install 'sectio[langchain]'``)

Each returns the chunks ``sectio ask`` (or ``search``) returns for the same
question, in the same order, with doc/section/part, provenance and the
decision in their metadata; an abstained answer returns none, and the
retriever's ``last_answer`` says why. Embedded (``open_source(home=...)``) or
remote (``open_source(url=..., api_key=...)``, through :mod:`sectio.client`).
"""

from sectio.integrations.base import (
    Answer,
    LocalSource,
    Query,
    RemoteSource,
    Source,
    chunk_metadata,
    open_source,
)

__all__ = [
    "Answer",
    "LocalSource",
    "Query",
    "RemoteSource",
    "Source",
    "chunk_metadata",
    "open_source",
]
