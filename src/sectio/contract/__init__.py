"""The corpus contract: chunk records and corpus profiles."""

from sectio.contract.profile import CorpusProfile, LexicalSettings, SectionSpec, load_profile
from sectio.contract.record import ChunkRecord, SourceRef, corpus_sha256, parse_record

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
