"""A LlamaIndex retriever (``pip install 'sectio[llamaindex]'``, ``llama-index-core``).

Example:
    >>> from sectio.integrations import open_source
    >>> from sectio.integrations.llamaindex import SectioRetriever
    >>> retriever = SectioRetriever(open_source(home=".sectio"))  # doctest: +SKIP
    >>> nodes = retriever.retrieve("who should not take aspirin")  # doctest: +SKIP
    >>> [n.node.metadata["section_key"] for n in nodes]  # doctest: +SKIP
    ['contraindications']
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from sectio.contract.result import Evidence
from sectio.integrations.base import LLM_HIDDEN_KEYS, Answer, Query, Source, arun_query, run_query


class SectioRetriever(BaseRetriever):
    """``NodeWithScore`` per chunk of ``sectio ask`` (``mode="ask"``) or ``search``.

    Nodes come in the order sectio returns them; a node's id is the
    ``chunk_id``, its metadata :func:`sectio.integrations.base.chunk_metadata`
    (doc/section/part, ``source_refs``, ``decision``, ``reason``, ``route``).
    An ``ABSTAIN`` returns no nodes: :attr:`last_answer` holds the decision and
    reason of the latest call (one retriever per concurrent caller).

    Args:
        source: where answers come from (:func:`sectio.integrations.open_source`).
        **options: the :class:`~sectio.integrations.base.Query` fields (``mode``,
            ``top_k``, ``doc_id``, ``section_key``, ``search_mode``, ``filters``).
    """

    def __init__(
        self, source: Source, callback_manager: CallbackManager | None = None, **options: Any
    ) -> None:
        super().__init__(callback_manager=callback_manager)
        self.source = source
        self.query = Query(**options)
        self.last_answer: Answer | None = None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.last_answer = run_query(self.source, query_bundle.query_str, self.query)
        return _nodes(self.last_answer)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.last_answer = await arun_query(self.source, query_bundle.query_str, self.query)
        return _nodes(self.last_answer)


def _nodes(answer: Answer) -> list[NodeWithScore]:
    return [_node(item, meta) for item, meta in answer.chunks]


def _node(item: Evidence, meta: dict[str, Any]) -> NodeWithScore:
    node = TextNode(
        id_=item.chunk_id,
        text=item.text,
        metadata=meta,
        excluded_llm_metadata_keys=[k for k in LLM_HIDDEN_KEYS if k in meta],
        excluded_embed_metadata_keys=list(meta),
    )
    return NodeWithScore(node=node, score=item.score)
