"""sectio: retrieval for grounded RAG over structured corpora.

When a question names what it wants, answer it exactly, by filter, in full
and in order; similarity is the fallback, not the default.

The public names are imported on first use (:mod:`sectio._lazy`): ``import
sectio`` alone, or ``sectio --version``, loads neither numpy nor the engine.
"""

from typing import TYPE_CHECKING

from sectio._lazy import exports
from sectio._version import __version__

if TYPE_CHECKING:
    from sectio.contract.profile import CorpusProfile, load_profile
    from sectio.contract.record import ChunkRecord
    from sectio.contract.result import Evidence, RetrievalResult, SearchResult
    from sectio.engine import Sectio
    from sectio.errors import SectioError
    from sectio.rerank import Reranker
    from sectio.retrieve.decision import decide
    from sectio.retrieve.policy import EvidencePolicy
    from sectio.settings import Settings

__getattr__, __dir__ = exports(
    __name__,
    {
        "ChunkRecord": "sectio.contract.record",
        "CorpusProfile": "sectio.contract.profile",
        "Evidence": "sectio.contract.result",
        "EvidencePolicy": "sectio.retrieve.policy",
        "Reranker": "sectio.rerank",
        "RetrievalResult": "sectio.contract.result",
        "SearchResult": "sectio.contract.result",
        "Sectio": "sectio.engine",
        "SectioError": "sectio.errors",
        "Settings": "sectio.settings",
        "decide": "sectio.retrieve.decision",
        "load_profile": "sectio.contract.profile",
    },
)

__all__ = [
    "ChunkRecord",
    "CorpusProfile",
    "Evidence",
    "EvidencePolicy",
    "Reranker",
    "RetrievalResult",
    "SearchResult",
    "Sectio",
    "SectioError",
    "Settings",
    "__version__",
    "decide",
    "load_profile",
]
