"""A small synthetic corpus for the index contract (and congruence) tests, with a Python oracle.

Dense vectors are seeded random floats (no ties in dense scores); sparse vectors
are real BM25 (sectio's encoder), so the engines' IDF modifier is exercised.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sectio.contract.profile import LexicalSettings
from sectio.index.filters import AnyOf, Condition, Eq, HasIds, Phrase, Prefix, Range, TextAny, Where
from sectio.index.ids import point_id_for
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest
from sectio.index.port import IndexSpec, PointData, StoredPoint

DIM = 16

_WORDS = (
    "aspirin relieves pain and reduces fever in adults",
    "metformin treats type two diabetes with diet",
    "lactic acidosis is a rare but serious risk",
    "take the tablet with water after meals",
    "do not exceed the maximum daily dose",
    "stomach bleeding may occur with long use",
    "children under twelve should not take it",
    "store below thirty degrees away from light",
)


@dataclass(frozen=True)
class Corpus:
    """Points, their manifest, and the query material the tests use."""

    points: list[PointData]
    manifest: Manifest
    spec: IndexSpec
    lexical: LexicalEncoder

    @property
    def payloads(self) -> dict[str, dict[str, Any]]:
        return {p.id: p.payload for p in self.points}

    def dense_of(self, chunk_id: str) -> list[float]:
        """The dense vector of ``chunk_id``'s point (single-vector corpora)."""
        pid = point_id_for(chunk_id)
        return [float(x) for x in np.asarray(next(p.dense for p in self.points if p.id == pid))]

    def query(self, text: str) -> dict[str, Any]:
        return dict(self.lexical.encode_query(text))


def make_records(
    n_docs: int = 4, sections: Sequence[str] = ("indications", "warnings", "dosage")
) -> list[dict[str, Any]]:
    """Chunk records: docs x sections x 2-3 parts, two tenants, every optional field varied."""
    rows: list[dict[str, Any]] = []
    i = 0
    for d in range(n_docs):
        doc = f"doc{d}"
        tenant = "t1" if d % 2 == 0 else "t2"
        for s, section in enumerate(sections):
            for part in range(2 + (d + s) % 2):
                # a different length per chunk (8 filler tokens per step, more than any
                # two sentences differ by): no two BM25 scores tie, so rankings
                # (and the RRF values built on them) are comparable across engines
                filler = " ".join(f"f{j}" for j in range(8 * i))
                text = f"{_WORDS[(i * 3) % len(_WORDS)]}; {doc} {section} part {part} {filler}"
                rows.append(
                    {
                        "chunk_id": f"{doc}#{section}#{part}",
                        "doc_id": doc,
                        "section_key": section,
                        "part_index": part,
                        "text": text,
                        "tenant": tenant,
                        "path": f"docs/{'guide' if d < 2 else 'ref'}/{doc}/{section}.md",
                        "tags": ["even" if i % 2 == 0 else "odd", f"doc{d}"],
                        "metadata": {"domain": "pharma" if d < 3 else "devices", "rank": i},
                        "chunk_kind": "block" if i % 7 == 3 else "prose",
                        "requires_visual_check": i % 5 == 0,
                        "source_refs": [{"source": "synthetic", "page": i}],
                        "extra_field": {"kept": True, "n": i},
                    }
                )
                i += 1
    return rows


def make_corpus(
    rows: list[dict[str, Any]] | None = None, name: str = "contract", seed: int = 7
) -> Corpus:
    """Points (uuid5 ids, whole-record payloads, dense + BM25) and a manifest for ``rows``."""
    rows = rows if rows is not None else make_records()
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(len(rows), DIM)).astype(np.float32)
    lexical = LexicalEncoder(LexicalSettings())
    sparse = lexical.fit_documents([r["text"] for r in rows])
    points = [
        PointData(id=point_id_for(r["chunk_id"]), dense=dense[i], sparse=sparse[i], payload=r)
        for i, r in enumerate(rows)
    ]
    manifest = Manifest(
        collection=name,
        corpus_sha256=f"sha-{seed}-{len(rows)}",
        chunk_count=len(rows),
        model_id="contract-random",
        dimensions=DIM,
        input_kind="passage",
        max_length=64,
        bm25=lexical.manifest_entry(),
        profile_name="generic",
        profile_sha256="p",
    )
    spec = IndexSpec(dimensions=DIM, sparse_names=lexical.names)
    return Corpus(points=points, manifest=manifest, spec=spec, lexical=lexical)


def subset(corpus: Corpus, tenant: str) -> Corpus:
    """The points of one tenant, with the same vectors (same BM25 avg_len) and manifest."""
    points = [p for p in corpus.points if p.payload.get("tenant") == tenant]
    manifest = corpus.manifest.model_copy(
        update={"chunk_count": len(points), "corpus_sha256": corpus.manifest.corpus_sha256 + tenant}
    )
    return Corpus(points=points, manifest=manifest, spec=corpus.spec, lexical=corpus.lexical)


# --- the oracle ------------------------------------------------------------------
def _values(payload: dict[str, Any], key: str) -> list[Any]:
    cur: Any = payload
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return []
        cur = cur[part]
    return cur if isinstance(cur, list) else [cur]


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[^\W_]+", text)]


def _holds(cond: Condition, pid: str, payload: dict[str, Any]) -> bool:
    if isinstance(cond, HasIds):
        return pid in cond.ids
    if cond.key.startswith("_sectio."):
        flag = cond.key.split(".", 1)[1]
        vals: list[Any] = [1 if payload.get(flag) else 0]
    else:
        vals = _values(payload, cond.key)
    if isinstance(cond, Eq):
        return any(v == cond.value and not isinstance(v, bool) for v in vals)
    if isinstance(cond, AnyOf):
        return any(v in cond.values and not isinstance(v, bool) for v in vals)
    if isinstance(cond, Prefix):
        return any(isinstance(v, str) and v.startswith(cond.prefix) for v in vals)
    if isinstance(cond, Range):
        return any(
            isinstance(v, int | float)
            and (cond.gte is None or v >= cond.gte)
            and (cond.lte is None or v <= cond.lte)
            for v in vals
        )
    if isinstance(cond, Phrase):
        ph = _words(cond.phrase)
        return any(
            isinstance(v, str)
            and any(_words(v)[i : i + len(ph)] == ph for i in range(len(_words(v))))
            for v in vals
        )
    if isinstance(cond, TextAny):
        q = set(_words(cond.text))
        return any(isinstance(v, str) and q & set(_words(v)) for v in vals)
    raise AssertionError(cond)


def oracle(corpus: Corpus, where: Where | None) -> set[str]:
    """Ids of the points matching ``where``, computed in Python."""
    out = set()
    for pid, payload in corpus.payloads.items():
        if where is None or (
            all(_holds(c, pid, payload) for c in where.must)
            and not any(_holds(c, pid, payload) for c in where.must_not)
        ):
            out.add(pid)
    return out


def assert_same_ranking(
    a: list[StoredPoint], b: list[StoredPoint], limit: int | None = None, tol: float = 1e-4
) -> None:
    """Same ids in the same order, up to permutations inside groups of equal score.

    When ``limit`` cut the lists (``len == limit``) the last group may be cut
    differently on each side: only its scores must agree.
    """
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b, strict=True):
        assert x.score is not None and y.score is not None
        assert abs(x.score - y.score) <= tol * max(1.0, abs(x.score)), (x.id, x.score, y.score)
    groups: list[list[int]] = []
    for i, x in enumerate(a):
        if groups and abs((a[groups[-1][0]].score or 0.0) - (x.score or 0.0)) <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    cut = limit is not None and len(a) >= limit
    for group in groups[:-1] if cut else groups:
        assert {a[i].id for i in group} == {b[i].id for i in group}, group
