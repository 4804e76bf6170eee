"""sectio: retrieval for grounded RAG over structured corpora.

When a question names what it wants, answer it exactly, by filter, in full
and in order; similarity is the fallback, not the default.
"""

from sectio._version import __version__
from sectio.contract.profile import CorpusProfile, load_profile
from sectio.contract.record import ChunkRecord
from sectio.contract.result import Evidence, RetrievalResult, SearchResult
from sectio.engine import Sectio
from sectio.errors import SectioError
from sectio.retrieve.decision import decide
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.rerank import Reranker
from sectio.settings import Settings

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
