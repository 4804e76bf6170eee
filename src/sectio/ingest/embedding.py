"""The dense vectors of a load: what is embedded, what is reused, in which order.

A record gets its vector in one of three ways, decided before anything is embedded:

* **its own text** (:meth:`ChunkRecord.index_text`): document chunks, and any record
  without a hint below;
* **a short text of its own**: a record with ``dense_text`` embeds that text instead
  (a docs entity entry embeds its name and where it is defined, not its definition);
* **another record's vector**: a record with ``dense_from`` takes the vector of the
  record with that ``chunk_id`` in the same load (a fact or a procedure entry is a
  restatement of the chunk it came from; a relation entry reuses its document's
  catalog entry). Chains are followed to a record that embeds something.

Texts are embedded shortest first, in slices of ``batch_size`` (each slice pads to
about one length); document chunks (no ``layer``, or ``D0``) first, then the derived
entries that embed a text. Identical texts are embedded once: the embedding cache
(:class:`~sectio.embed.cache.CachedEmbedder`) answers repeats within a call, across
calls and across loads.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sectio.contract.record import ChunkRecord
from sectio.embed.cache import CachedEmbedder
from sectio.errors import ContractError, VectorSizeError
from sectio.ingest.chunking import dense_windows
from sectio.ingest.phases import PhaseClock

log = logging.getLogger("sectio.ingest")

#: A record's dense vector: one row, or one row per window (dense windows on).
DenseVector = np.ndarray


@dataclass(frozen=True)
class DensePlan:
    """Which record embeds which text, and which reuses whose vector."""

    #: Per record, the text it embeds ("" for a record that reuses a vector).
    texts: list[str]
    #: Records embedding a text, document chunks first then derived entries; each
    #: group shortest text first.
    d0: list[int]
    derived: list[int]
    #: Record index -> the index of the record whose vector it takes (that one embeds).
    reuse: dict[int, int]


def _is_d0(record: ChunkRecord) -> bool:
    return getattr(record, "layer", None) in (None, "D0")


def _source(records: Sequence[ChunkRecord], at: dict[str, int], i: int) -> int | None:
    """The index whose vector record ``i`` takes (None: it embeds its own).

    Raises:
        ContractError: ``dense_from`` names no record of the load, or a chain loops.
    """
    seen = {i}
    j = i
    while (ref := getattr(records[j], "dense_from", None)) is not None:
        k = at.get(str(ref))
        if k is None:
            raise ContractError(
                f"chunk {records[j].chunk_id!r}: dense_from {ref!r} names no chunk of this load"
            )
        if k in seen:
            raise ContractError(f"chunk {records[i].chunk_id!r}: dense_from loops back")
        seen.add(k)
        j = k
    return None if j == i else j


def plan_dense(records: Sequence[ChunkRecord], texts: Sequence[str]) -> DensePlan:
    """Decide each record's vector (see the module docstring); ``texts`` are the index texts.

    Raises:
        ContractError: a ``dense_from`` names no chunk of the load, or loops.
    """
    at = {r.chunk_id: i for i, r in enumerate(records)}
    own: list[str] = []
    reuse: dict[int, int] = {}
    for i, record in enumerate(records):
        j = _source(records, at, i)
        if j is not None:
            reuse[i] = j
            own.append("")
            continue
        short = getattr(record, "dense_text", None)
        own.append(str(short) if isinstance(short, str) and short.strip() else texts[i])
    embedded = [i for i in range(len(records)) if i not in reuse]
    embedded.sort(key=lambda i: len(own[i]))
    d0 = [i for i in embedded if _is_d0(records[i])]
    derived = [i for i in embedded if not _is_d0(records[i])]
    return DensePlan(texts=own, d0=d0, derived=derived, reuse=reuse)


def _windows(
    record: ChunkRecord, text: str, own: bool, tokens: int, embedder: CachedEmbedder
) -> list[str]:
    """A record's dense windows: its titles and text, or its short ``text`` alone."""
    if own:
        return dense_windows(record.index_titles(), record.text, tokens, embedder.count_tokens)
    return dense_windows([], text, tokens, embedder.count_tokens)


def embed_slice(
    records: Sequence[ChunkRecord],
    picked: Sequence[int],
    plan: DensePlan,
    index_texts: Sequence[str],
    embedder: CachedEmbedder,
    dense_window_tokens: int,
) -> list[DenseVector]:
    """The vectors of ``picked`` (one matrix per record with windows), each checked for
    length and finiteness.

    Raises:
        VectorSizeError: a vector of the wrong length, or with NaN or infinite values.
    """
    if not dense_window_tokens:
        vectors = embedder.embed_documents([plan.texts[i] for i in picked])
        _check(vectors, embedder.dimensions)
        return list(vectors)
    texts = plan.texts
    windows = [
        _windows(records[i], texts[i], texts[i] == index_texts[i], dense_window_tokens, embedder)
        for i in picked
    ]
    vectors = embedder.embed_documents([w for group in windows for w in group])
    _check(vectors, embedder.dimensions)
    out: list[DenseVector] = []
    start = 0
    for group in windows:
        out.append(vectors[start : start + len(group)])
        start += len(group)
    return out


def _check(vectors: np.ndarray, dimensions: int) -> None:
    """Raises VectorSizeError for vectors of the wrong length, NaN or infinite values."""
    if vectors.ndim != 2 or vectors.shape[1] != dimensions:
        raise VectorSizeError(
            f"embedder produced vectors of length {vectors.shape[-1]}, "
            f"the collection expects {dimensions}"
        )
    if not np.isfinite(vectors).all():
        raise VectorSizeError("embedder produced a vector with NaN or infinite values")


def embed_records(
    records: Sequence[ChunkRecord],
    index_texts: Sequence[str],
    embedder: CachedEmbedder,
    clock: PhaseClock,
    *,
    batch_size: int = 256,
    dense_window_tokens: int = 0,
) -> list[DenseVector]:
    """Every record's dense vector, in record order (phases ``embed_d0``, ``embed_derived``).

    Raises:
        ContractError: a ``dense_from`` names no chunk of the load, or loops.
        VectorSizeError: the embedder produced a vector of the wrong length, or not finite.
    """
    plan = plan_dense(records, index_texts)
    if not dense_window_tokens:
        unread = unread_text(plan, embedder)
        if unread[0]:
            log.warning(long_record_warning(*unread, reads=embedder.max_length))
    empty = np.zeros((0, embedder.dimensions), dtype=np.float32)
    out: list[DenseVector] = [empty] * len(records)
    for phase, group in (("embed_d0", plan.d0), ("embed_derived", plan.derived)):
        if not group:
            continue
        with clock.phase(phase, total=len(group)) as tick:
            for start in range(0, len(group), batch_size):
                picked = group[start : start + batch_size]
                got = embed_slice(records, picked, plan, index_texts, embedder, dense_window_tokens)
                for i, vec in zip(picked, got, strict=True):
                    out[i] = vec
                tick(start + len(picked))
    for i, j in plan.reuse.items():
        out[i] = out[j]
    return out


def unread_text(plan: DensePlan, embedder: CachedEmbedder) -> tuple[int, int, int]:
    """Without dense windows: how many embedded texts are longer than the model reads,
    how many of their tokens it does not read, and how many tokens they hold.

    A text of fewer characters than the model reads tokens is never counted (a
    token is at least a character), so a corpus of short chunks costs nothing.
    """
    reads = max(embedder.max_length - 2, 1)  # less [CLS] and [SEP]
    long_records = cut = total = 0
    for i in [*plan.d0, *plan.derived]:
        text = plan.texts[i]
        if len(text) <= reads:
            continue
        n = embedder.count_tokens(text)
        if n > reads:
            long_records += 1
            cut += n - reads
            total += n
    return long_records, cut, total


def long_record_warning(records: int, cut: int, total: int, reads: int) -> str:
    """The one line a load prints when records are cut at the model's length.

    Example:
        >>> long_record_warning(12, 3000, 6000, 256)[:72]
        '12 records are longer than the 256 tokens the dense model reads: 3,000 t'
    """
    share = 100 * cut / total if total else 0.0
    return (
        f"{records:,} record{'s are' if records != 1 else ' is'} longer than the {reads} tokens "
        f"the dense model reads: {cut:,} tokens ({share:.0f}% of their text) are not "
        "embedded (BM25 still reads all); set SECTIO_DENSE_WINDOW_TOKENS "
        f"(e.g. {max(reads - 2, 16)}) to embed every window, or split the records"
    )


__all__ = [
    "DensePlan",
    "DenseVector",
    "embed_records",
    "embed_slice",
    "long_record_warning",
    "plan_dense",
    "unread_text",
]
