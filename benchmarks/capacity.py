"""Capacity: memory and disk per chunk, float32 vs scalar int8 vectors, on Qdrant Edge.

Prints tables (Markdown) and, with ``--json FILE``, writes the raw numbers. Never a test.

Method
------
N synthetic chunks (default 100,000) shaped like real ones: a 384-d unit vector
(MiniLM's size), a ~120-word text drawn from a Zipf vocabulary (BM25 sparse
vector from sectio's encoder), and a payload with the contract's fields. Each
*variant* is built in its own process through sectio's edge adapter
(``EdgeIndex.create``: the payload indexes sectio creates, upsert in batches of
256, ``optimize()``, close), then served in a fresh process: open the shard,
warm up, time queries, and read the resident set size (``VmRSS``) before the
shard is opened, after it is opened, and after the queries. *Serving memory* is
the RSS growth from before-open to after-queries (the interpreter and numpy are
not counted). *Disk* is the bytes of the shard folder.

Per-1M figures are per-chunk costs x 1,000,000: vectors, payloads, the HNSW
graph and the payload indexes all grow linearly with the number of points (the
empty-shard overhead, a few MiB, is subtracted first). This is an
extrapolation, stated as such in docs/deploy.md.

Variants:

* ``float32``: ``SECTIO_QUANTIZATION=none`` (the default);
* ``int8``: ``SECTIO_QUANTIZATION=int8`` as the adapter builds it: scalar int8
  (quantile 0.99) always in RAM and searched, the float32 originals on disk
  (mmap), read to rescore the top candidates;
* ``int8-ram``: int8 with the originals kept in RAM too (what the adapter built
  before this benchmark showed it costs memory instead of saving it);
* ``int8-windows2``: int8 with dense windows (``SECTIO_DENSE_WINDOW_TOKENS=128``):
  a multivector index (MaxSim) where each chunk holds 2 vectors, as a ~120-word
  chunk (~160 MiniLM tokens with its titles) gets with 128-token windows.

Usage::

    .venv/bin/python benchmarks/capacity.py [--n 100000] [--variants float32,int8,int8-ram]
        [--queries 300] [--json out.json]
    .venv/bin/python benchmarks/capacity.py --home /tmp/sectio-quant-home \
        --collections scifact_f32,scifact_int8     # real collections already ingested
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import dir_size_mb, print_table, run_phase

DIM = 384
WORDS = 120
VARIANTS = ("float32", "int8", "int8-ram", "int8-windows2")


def du_mb(path: Path) -> float:
    """Bytes allocated on disk under ``path`` (like ``du``; preallocated WAL space that
    was never written is not counted), in MiB."""
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file()) / 1048576.0


def rss_mb() -> float:
    """The current resident set size of this process, in MiB (Linux ``VmRSS``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _data(n: int, seed: int = 0) -> tuple[list[str], Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(30_000)]
    zipf = rng.zipf(1.3, size=n * WORDS) % len(vocab)
    texts = [" ".join(vocab[j] for j in zipf[i * WORDS : (i + 1) * WORDS]) for i in range(n)]
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return texts, vectors


def _payload(i: int, text: str) -> dict[str, Any]:
    doc = i // 12
    return {
        "chunk_id": f"doc{doc}#s{i % 6}#{i % 12 // 6}",
        "doc_id": f"doc{doc}",
        "doc_title": f"Document {doc}",
        "section_key": f"s{i % 6}",
        "section_title": f"Section {i % 6}",
        "part_index": i % 12 // 6,
        "chunk_kind": "prose",
        "text": text,
        "tenant": f"t{doc % 5}",
        "metadata": {"domain": "bench", "subdomain": f"sub{i % 11}"},
        "tags": [f"tag{i % 13}"],
        "source_refs": [{"source": f"doc{doc}.pdf", "page": i % 40}],
    }


def _spec(variant: str) -> Any:
    from sectio.index.port import IndexSpec

    return IndexSpec(
        dimensions=DIM,
        quantization="none" if variant == "float32" else "int8",
        multivector=variant.endswith("windows2"),
    )


def _windows(variant: str) -> int:
    return 2 if variant.endswith("windows2") else 1


def _create(path: Path, variant: str) -> Any:
    from sectio.index.edge.index import EdgeIndex

    spec = _spec(variant)
    if variant != "int8-ram":
        return EdgeIndex.create(path, spec)
    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeShard,
        EdgeSparseVectorParams,
        EdgeVectorParams,
        Modifier,
        ScalarQuantizationConfig,
        ScalarType,
    )

    config = EdgeConfig(
        vectors={
            "dense": EdgeVectorParams(
                size=DIM,
                distance=Distance.Cosine,
                quantization_config=ScalarQuantizationConfig(
                    type=ScalarType.Int8, quantile=0.99, always_ram=True
                ),
            )
        },
        sparse_vectors={"bm25": EdgeSparseVectorParams(modifier=Modifier.Idf)},
    )
    path.mkdir(parents=True, exist_ok=True)
    index = EdgeIndex(EdgeShard.create(str(path), config), spec, path)
    index._create_payload_indexes()  # the same payload indexes as the adapter's
    return index


# --- phases (each in its own process) ---------------------------------------------
def phase_build(variant: str, n: str, folder: str) -> dict[str, float]:
    import numpy as np

    from sectio.contract.profile import LexicalSettings
    from sectio.index.ids import point_id_for
    from sectio.index.lexical import LexicalEncoder
    from sectio.index.port import PointData

    count = int(n)
    texts, vectors = _data(count)
    if _windows(variant) > 1:  # each chunk's second window: another unit vector
        _, more = _data(count, seed=7)
        vectors = [np.stack([a, b]) for a, b in zip(vectors, more, strict=True)]
    t0 = time.perf_counter()
    sparse = LexicalEncoder(LexicalSettings()).fit_documents(texts)
    t1 = time.perf_counter()
    path = Path(folder)
    empty = _create(path / "empty", variant)
    empty.close()
    index = _create(path / "shard", variant)
    for start in range(0, count, 256):
        index.upsert(
            [
                PointData(
                    id=point_id_for(f"c{i}"),
                    dense=vectors[i],
                    sparse=sparse[i],
                    payload=_payload(i, texts[i]),
                )
                for i in range(start, min(start + 256, count))
            ]
        )
    t2 = time.perf_counter()
    index.optimize()
    t3 = time.perf_counter()
    index.close()
    return {
        "bm25_s": t1 - t0,
        "upsert_s": t2 - t1,
        "optimize_s": t3 - t2,
        "disk_mb": du_mb(path / "shard"),
        "empty_disk_mb": du_mb(path / "empty"),
        "apparent_disk_mb": dir_size_mb(path / "shard"),
    }


def _percentiles(samples: list[float]) -> tuple[float, float]:
    import numpy as np

    arr = np.array(samples) * 1000.0
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 99))


def phase_serve(variant: str, n: str, folder: str, queries: str) -> dict[str, float]:
    import numpy as np

    from sectio.contract.profile import LexicalSettings
    from sectio.index.edge.index import EdgeIndex
    from sectio.index.filters import Eq, Where, tenant_where
    from sectio.index.lexical import LexicalEncoder

    count, q = int(n), int(queries)
    rng = np.random.default_rng(1)
    vocab_q = [f"w{i}" for i in rng.zipf(1.3, size=q * 3) % 30_000]
    encoder = LexicalEncoder(LexicalSettings(), avg_len={"bm25": float(WORDS)})
    sparse_q = [encoder.encode_query(" ".join(vocab_q[i * 3 : i * 3 + 3])) for i in range(q)]
    dense_q = rng.standard_normal((q, DIM)).astype(np.float32)
    dense_q /= np.linalg.norm(dense_q, axis=1, keepdims=True)
    spec = _spec(variant)
    before = rss_mb()
    index = EdgeIndex.load(Path(folder) / "shard", spec)
    opened = rss_mb()
    assert index.count() == count
    runs: dict[str, list[float]] = {
        "dense": [],
        "dense_tenant": [],
        "bm25": [],
        "bm25_tenant": [],
        "bm25_tenant_idf": [],
        "hybrid": [],
    }
    scroll: list[float] = []
    for i in range(q + 50):  # the first 50 warm up
        dv, sv, w = dense_q[i % q], sparse_q[i % q], tenant_where(f"t{i % 5}")
        calls = {
            "dense": lambda dv=dv: index.search_dense(dv, 10),
            "dense_tenant": lambda dv=dv, w=w: index.search_dense(dv, 10, w),
            "bm25": lambda sv=sv: index.search_sparse("bm25", sv["bm25"], 10),
            "bm25_tenant": lambda sv=sv, w=w: index.search_sparse("bm25", sv["bm25"], 10, w),
            "bm25_tenant_idf": lambda sv=sv, w=w: index.search_sparse(
                "bm25", sv["bm25"], 10, w, idf_where=w
            ),
            "hybrid": lambda dv=dv, sv=sv, w=w: index.search_fused(
                dv, sv, 50, 10, w, rrf_k=60, idf_where=w
            ),
        }
        for name, call in calls.items():
            t = time.perf_counter()
            call()
            if i >= 50:
                runs[name].append(time.perf_counter() - t)
        doc = int(rng.integers(0, count // 12))
        where = Where.of(Eq("tenant", f"t{doc % 5}"), Eq("doc_id", f"doc{doc}"))
        where = where.and_(Eq("section_key", "s0"))
        t = time.perf_counter()
        index.scroll(where, limit=64)
        if i >= 50:
            scroll.append(time.perf_counter() - t)
    after = rss_mb()
    index.close()
    out = {"rss_before_mb": before, "rss_open_mb": opened, "rss_after_mb": after}
    for name, samples in {**runs, "section_scroll": scroll}.items():
        p50, p99 = _percentiles(samples)
        out[f"{name}_p50_ms"] = p50
        out[f"{name}_p99_ms"] = p99
    return out


def phase_open_empty(variant: str, folder: str) -> dict[str, float]:
    """RSS growth from opening the empty shard (the fixed cost subtracted per chunk)."""
    from sectio.index.edge.index import EdgeIndex

    spec = _spec(variant)
    before = rss_mb()
    index = EdgeIndex.load(Path(folder) / "empty", spec)
    index.count()
    after = rss_mb()
    index.close()
    return {"empty_rss_mb": after - before}


def phase_serve_home(home: str, collection: str, queries: str) -> dict[str, float]:
    """Serving RSS and disk of a real collection under ``home`` (e.g. SciFact, MiniLM).

    Query vectors are stored vectors of sampled points (a dense search per query).
    """
    import numpy as np

    from sectio.index.edge.store import EdgeBackend

    backend = EdgeBackend(Path(home) / "collections")
    live = backend._live_dir(collection)
    if live is None:
        raise SystemExit(f"no collection {collection!r} under {home}")
    before = rss_mb()
    index = backend.open(collection)
    opened = rss_mb()
    count = index.count()
    ids: list[str] = []
    offset = None
    while len(ids) < 2000:
        page, offset = index.scroll(None, limit=256, offset=offset)
        ids.extend(p.id for p in page)
        if offset is None:
            break
    rng = np.random.default_rng(2)
    picked = [ids[int(i)] for i in rng.integers(0, len(ids), size=int(queries))]
    vectors = [p.dense for p in index.retrieve(picked, with_vectors=True)]
    times = []
    for i, vec in enumerate(vectors * 2):
        t = time.perf_counter()
        index.search_dense(vec, 10)
        if i >= len(vectors):
            times.append(time.perf_counter() - t)
    after = rss_mb()
    index.close()
    p50, p99 = _percentiles(times)
    return {
        "chunks": count,
        "rss_open_mb": opened - before,
        "rss_after_mb": after - before,
        "disk_mb": du_mb(live / "shard"),
        "dense_p50_ms": p50,
        "dense_p99_ms": p99,
    }


PHASES = {
    "build": phase_build,
    "serve": phase_serve,
    "open-empty": phase_open_empty,
    "serve-home": phase_serve_home,
}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in PHASES:
        print(json.dumps(PHASES[sys.argv[1]](*sys.argv[2:])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None, help="Build the shards here, keep them.")
    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        help="Instead: measure existing collections under this SECTIO_HOME (--collections).",
    )
    parser.add_argument("--collections", default="", help="Comma-separated, with --home.")
    args = parser.parse_args()
    script = Path(__file__).resolve()
    if args.home is not None:
        home_rows = []
        for coll in [c for c in args.collections.split(",") if c]:
            r = run_phase(script, "serve-home", str(args.home), coll, str(args.queries))
            home_rows.append(
                [
                    coll,
                    r["chunks"],
                    round(r["rss_after_mb"], 1),
                    round(r["disk_mb"], 1),
                    f"{r['dense_p50_ms']:.2f} / {r['dense_p99_ms']:.2f}",
                ]
            )
        print_table(
            f"Collections under {args.home}",
            ["collection", "chunks", "serving RSS MiB", "disk MiB", "dense p50 / p99 ms"],
            home_rows,
        )
        return
    results: dict[str, dict[str, float]] = {}
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            raise SystemExit(f"unknown variant {variant!r}; choose from {VARIANTS}")
        folder = (args.keep / variant) if args.keep else Path(tempfile.mkdtemp(prefix="cap-"))
        folder.mkdir(parents=True, exist_ok=True)
        try:
            built = run_phase(script, "build", variant, str(args.n), str(folder))
            served = run_phase(
                script, "serve", variant, str(args.n), str(folder), str(args.queries)
            )
            served.update(run_phase(script, "open-empty", variant, str(folder)))
        finally:
            if args.keep is None:
                shutil.rmtree(folder, ignore_errors=True)
        results[variant] = {**built, **served}
        print(f"{variant}: {json.dumps(results[variant])}", file=sys.stderr)
    n = args.n
    per_m = 1_000_000 / n
    rows = []
    for variant, r in results.items():
        serving = r["rss_after_mb"] - r["rss_before_mb"]
        disk = r["disk_mb"]
        per_chunk_rss = max(serving - r["empty_rss_mb"], 0.0)
        per_chunk_disk = max(disk - r["empty_disk_mb"], 0.0)
        rows.append(
            [
                variant,
                round(serving, 1),
                round(disk, 1),
                round(r["empty_rss_mb"], 1),
                round(per_chunk_rss * per_m / 1024.0, 2),
                round(per_chunk_disk * per_m / 1024.0, 2),
                round(r["upsert_s"], 1),
                round(r["optimize_s"], 1),
            ]
        )
    print_table(
        f"Memory and disk, {n:,} synthetic chunks ({DIM}-d, ~{WORDS} words), Qdrant Edge",
        [
            "vectors",
            f"serving RSS MiB ({n // 1000}k)",
            f"disk MiB ({n // 1000}k)",
            "empty-shard RSS MiB",
            "RSS GiB per 1M (extrap.)",
            "disk GiB per 1M (extrap.)",
            "upsert s",
            "optimize s",
        ],
        rows,
    )
    lat = []
    for variant, r in results.items():
        lat.append(
            [variant]
            + [
                f"{r[f'{k}_p50_ms']:.2f} / {r[f'{k}_p99_ms']:.2f}"
                for k in (
                    "dense",
                    "dense_tenant",
                    "bm25",
                    "bm25_tenant",
                    "bm25_tenant_idf",
                    "hybrid",
                    "section_scroll",
                )
                if f"{k}_p50_ms" in r
            ]
        )
    print_table(
        f"Query latency p50 / p99 ms, {n:,} chunks, one thread, after optimize",
        [
            "vectors",
            "dense top-10",
            "dense + tenant",
            "BM25 top-10",
            "BM25 + tenant",
            "BM25 + tenant, tenant IDF",
            "hybrid RRF 50+50 (tenant, tenant IDF)",
            "section scroll",
        ],
        lat,
    )
    if args.json:
        args.json.write_text(json.dumps({"n": n, "results": results}, indent=2))


if __name__ == "__main__":
    main()
