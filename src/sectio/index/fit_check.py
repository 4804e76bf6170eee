"""Is a manifest's BM25 ``avg_len`` the one its collection's points were weighted with?

A document's BM25 weights are ``tf * (k + 1) / (tf + k * (1 - b + b * dl / avg_len))``
(:mod:`sectio.index.lexical`), stored in its sparse vectors; queries are weighted
by the collection's IDF alone, so a wrong ``avg_len`` in the manifest (a tampered
snapshot with recomputed sums, a hand-edited file) changes nothing at once, but
every later load into the collection (a joining tenant, a replaced one) would
weigh its documents against the wrong length. So a snapshot's manifest is checked
on restore, and a collection's on open: a sample of points (:data:`SAMPLE`, engine
order) is read with its vectors, each point's text tokenized again (its term
frequencies and length ``dl``), and the ``avg_len`` its stored weights imply
solved for, term by term:

    norm = tf * (k + 1) / w - tf;   avg_len = b * dl / (norm / k - 1 + b)

The median over the sample must be within :data:`TOLERANCE` of the manifest's.
With ``b = 0`` the weights do not depend on ``avg_len``: nothing to check.

Example:
    >>> from sectio.contract.profile import LexicalSettings
    >>> from sectio.index.lexical import LexicalEncoder
    >>> enc = LexicalEncoder(LexicalSettings())
    >>> text = "dogs chase cats and dogs"
    >>> [vecs] = enc.fit_documents([text, "cats"])[:1]
    >>> implied = implied_avg_len(enc, "bm25", text, vecs["bm25"])
    >>> round(implied, 3) == round(enc.avg_len["bm25"], 3)
    True
"""

from __future__ import annotations

from statistics import median

from sectio.contract.record import ChunkRecord
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest
from sectio.index.port import SparseVec, VectorIndex
from sectio.index.qdrant.layout import user_payload

#: Points read for the check.
SAMPLE = 16
#: Relative difference allowed between the manifest's ``avg_len`` and the points' (the
#: manifest keeps 4 decimals, the engine float32 weights: measured error < 1e-4).
TOLERANCE = 0.02


def implied_avg_len(
    encoder: LexicalEncoder, name: str, text: str, stored: SparseVec
) -> float | None:
    """The ``avg_len`` that ``stored`` (a document's BM25 vector ``name``) was weighted
    with, from ``text`` tokenized again; None when it cannot tell (``b = 0``, no term)."""
    k, b = encoder.settings.k, encoder.settings.b
    if b <= 0 or k <= 0:
        return None
    indices, tfs = encoder.term_freqs(name, text)
    freq = dict(zip(indices, tfs, strict=True))
    dl = sum(tfs)
    found = []
    for index, weight in zip(stored.indices, stored.values, strict=True):
        tf = freq.get(index)
        if not tf or weight <= 0:
            continue
        denom = (tf * (k + 1.0) / weight - tf) / k - 1.0 + b
        if denom > 0:
            found.append(b * dl / denom)
    return median(found) if found else None


def avg_len_mismatch(index: VectorIndex, manifest: Manifest) -> str | None:
    """Why ``manifest``'s ``bm25.avg_len`` does not fit ``index``'s points, in a phrase
    naming the field (``bm25.avg_len.bm25 is 40 but the points were weighted with
    about 5.1``), or None when it fits (or the sample cannot tell)."""
    said = manifest.bm25.get("avg_len") or {}
    if not isinstance(said, dict) or not said:
        return None
    encoder = LexicalEncoder.from_manifest_entry(manifest.bm25)
    points, _ = index.scroll(None, limit=SAMPLE, with_vectors=True)
    for name in encoder.names:
        expected = said.get(name)
        if not isinstance(expected, int | float) or expected <= 0:
            continue
        found = []
        for point in points:
            stored = (point.sparse or {}).get(name)
            if stored is None:
                continue
            text = ChunkRecord.model_construct(**user_payload(point.payload)).index_text()
            implied = implied_avg_len(encoder, name, text, stored)
            if implied is not None:
                found.append(implied)
        if found and abs(median(found) - expected) > TOLERANCE * max(expected, median(found)):
            return (
                f"bm25.avg_len.{name} is {expected:g} but the points were weighted with "
                f"about {median(found):.4g}"
            )
    return None


__all__ = ["SAMPLE", "TOLERANCE", "avg_len_mismatch", "implied_avg_len"]
