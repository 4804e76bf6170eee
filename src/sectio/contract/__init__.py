"""The corpus contract: chunk records and corpus profiles.

Names are imported on first use (:mod:`sectio._lazy`): the CLI reads
:mod:`sectio.contract.names` at start-up without loading pydantic.
"""

from typing import TYPE_CHECKING

from sectio._lazy import exports

if TYPE_CHECKING:
    from sectio.contract.profile import CorpusProfile, LexicalSettings, SectionSpec, load_profile
    from sectio.contract.record import ChunkRecord, SourceRef, corpus_sha256, parse_record

__getattr__, __dir__ = exports(
    __name__,
    {
        "ChunkRecord": "sectio.contract.record",
        "CorpusProfile": "sectio.contract.profile",
        "LexicalSettings": "sectio.contract.profile",
        "SectionSpec": "sectio.contract.profile",
        "SourceRef": "sectio.contract.record",
        "corpus_sha256": "sectio.contract.record",
        "load_profile": "sectio.contract.profile",
        "parse_record": "sectio.contract.record",
    },
)

__all__ = [
    "ChunkRecord",
    "CorpusProfile",
    "LexicalSettings",
    "SectionSpec",
    "SourceRef",
    "corpus_sha256",
    "load_profile",
    "parse_record",
]
