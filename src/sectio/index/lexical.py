"""BM25 sparse vectors from Qdrant's built-in ``Bm25`` tokenizer, with the corpus's avg_len.

Documents carry the term-frequency part of BM25, queries one weight per unique
token; the IDF part comes from the collection's sparse vector (``Modifier.Idf``),
so scores are real BM25. ``avg_len`` is measured on the corpus, not assumed:
term frequencies are read with ``b=0`` (where the weight is a function of tf
alone), document lengths summed, and the final weights computed with the
configured ``k``, ``b`` and the measured ``avg_len`` (the formula Qdrant's
``Bm25`` uses, checked in the tests).

Example:
    >>> from sectio.contract.profile import LexicalSettings
    >>> enc = LexicalEncoder(LexicalSettings())
    >>> vecs = enc.fit_documents(["cats and dogs", "dogs dogs dogs"])
    >>> enc.avg_len["bm25"]
    2.5
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from qdrant_edge import (
    Bm25,
    Bm25Config,
    DisabledStemmer,
    SparseVector,
    StopwordsSet,
    TokenizerType,
)

from sectio.contract.profile import LexicalSettings
from sectio.errors import IndexError_
from sectio.index.port import BM25, BM25_FOLDED, SparseVec

_PROBE_K = 1.2  # any k > 0 works: with b=0, weight = tf*(k+1)/(tf+k) is invertible
#: "vs", "vs." or "versus" written in lower case between two words: a comparison.
_COMPARISON = re.compile(r"(?<=\w)([\s,:;)]+)(?:vs|versus)\.?(?=\s+\S)")


def without_comparison(question: str) -> str:
    """``question`` without the word that compares two things ("toEqual vs toStrictEqual").

    A question's "vs" is no term of what it asks: as a BM25 term it finds "VS Code"
    (the only place a docs tree writes it), at the highest weight of the query. Only
    lower case, between two words: "Debugging in VS Code" keeps its "VS".

    Example:
        >>> without_comparison("toEqual vs. toStrictEqual: which?")
        'toEqual toStrictEqual: which?'
        >>> without_comparison("Debugging in VS Code"), without_comparison("vs code")
        ('Debugging in VS Code', 'vs code')
    """
    return _COMPARISON.sub(r"\1", question).replace("  ", " ")


def _config(
    settings: LexicalSettings, *, folded: bool, k: float, b: float, avg: float
) -> Bm25Config:
    kwargs: dict[str, Any] = {"k": k, "b": b, "avg_len": avg, "lowercase": True}
    if settings.language != "none":
        kwargs["language"] = settings.language
    if not settings.stemming:
        kwargs["stemmer"] = DisabledStemmer()
    if not settings.stopwords:
        kwargs["stopwords"] = StopwordsSet(custom=set())
    if settings.tokenizer == "multilingual":
        kwargs["tokenizer"] = TokenizerType.Multilingual
    if folded:
        kwargs["ascii_folding"] = True
    return Bm25Config(**kwargs)


class LexicalEncoder:
    """Encodes documents and queries into the BM25 sparse vectors of one collection."""

    def __init__(self, settings: LexicalSettings, avg_len: dict[str, float] | None = None) -> None:
        self.settings = settings
        self.names: tuple[str, ...] = (BM25, BM25_FOLDED) if settings.fold_diacritics else (BM25,)
        self.avg_len: dict[str, float] = dict(avg_len or {})
        self._probe = {
            name: Bm25(_config(settings, folded=name == BM25_FOLDED, k=_PROBE_K, b=0.0, avg=1.0))
            for name in self.names
        }

    @classmethod
    def from_manifest_entry(cls, bm25: dict[str, Any]) -> LexicalEncoder:
        """The encoder a collection was built with, from its manifest's ``bm25`` entry
        (the settings and ``avg_len`` :meth:`manifest_entry` wrote)."""
        fields = set(LexicalSettings.model_fields)
        settings = LexicalSettings(**{k: v for k, v in bm25.items() if k in fields})
        return cls(settings, avg_len=dict(bm25.get("avg_len", {})))

    def manifest_entry(self) -> dict[str, Any]:
        """The BM25 settings bound in the manifest."""
        return {
            **self.settings.model_dump(mode="json"),
            "vectors": list(self.names),
            "avg_len": {k: round(v, 4) for k, v in sorted(self.avg_len.items())},
        }

    def term_freqs(self, name: str, text: str) -> tuple[list[int], list[float]]:
        """The term ids of ``text`` for BM25 vector ``name`` and each one's frequency."""
        return self._term_freqs(name, text)

    def _term_freqs(self, name: str, text: str) -> tuple[list[int], list[float]]:
        vec: SparseVector = self._probe[name].embed_document(text)
        tfs = [round(w * _PROBE_K / (_PROBE_K + 1.0 - w)) for w in vec.values]
        return list(vec.indices), [float(t) for t in tfs]

    def fit_documents(self, texts: Sequence[str]) -> list[dict[str, SparseVec]]:
        """Sparse vectors for every document; sets ``avg_len`` from these documents."""
        return self._documents(texts, fit=True)

    def encode_documents(self, texts: Sequence[str]) -> list[dict[str, SparseVec]]:
        """Sparse vectors for every document with the ``avg_len`` already set (a tenant
        joining a collection is weighted as the collection was fitted).

        Raises:
            IndexError_: ``avg_len`` is not set for every BM25 vector.
        """
        missing = [name for name in self.names if name not in self.avg_len]
        if missing:
            raise IndexError_(f"no BM25 avg_len for {', '.join(missing)}: fit first")
        return self._documents(texts, fit=False)

    def _documents(self, texts: Sequence[str], *, fit: bool) -> list[dict[str, SparseVec]]:
        k, b = self.settings.k, self.settings.b
        out: list[dict[str, SparseVec]] = [{} for _ in texts]
        for name in self.names:
            tfs = [self._term_freqs(name, t) for t in texts]
            lengths = [sum(values) for _, values in tfs]
            if fit:
                avg = (sum(lengths) / len(lengths)) if lengths else 1.0
                self.avg_len[name] = avg if avg > 0 else 1.0
            avg = self.avg_len[name]
            for i, ((indices, values), dl) in enumerate(zip(tfs, lengths, strict=True)):
                norm = k * (1.0 - b + b * dl / avg)
                weights = tuple(tf * (k + 1.0) / (tf + norm) for tf in values)
                out[i][name] = SparseVec(tuple(indices), weights)
        return out

    def terms(self, text: str) -> frozenset[int]:
        """The BM25 term ids of ``text`` (stemmed, stopwords out), for coverage checks.

        The accent-folded variant when the collection has one (so an unaccented
        word and its accented form are one term), else the exact one.
        """
        return frozenset(self._probe[self.names[-1]].embed_query(text).indices)

    def encode_query(self, text: str) -> dict[str, SparseVec]:
        """Query vectors (weight 1 per unique token), one per BM25 variant; empty ones
        dropped. A comparison's "vs" is no term (:func:`without_comparison`)."""
        out: dict[str, SparseVec] = {}
        text = without_comparison(text)
        for name in self.names:
            vec = self._probe[name].embed_query(text)
            if vec.indices:
                out[name] = SparseVec(tuple(vec.indices), tuple(vec.values))
        return out
