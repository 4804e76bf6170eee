"""Ingest throughput and memory (issue: Foundation). Prints tables; never a test.

Phases run in fresh processes so each peak RSS is its own:

* ``bare-default``: fastembed's MiniLM with its default settings (max_length 512,
  batch 256) on a sample of the SciFact texts: the peer a user would start from;
* ``bare-sectio``: the bare embedder with sectio's settings (max_length 256,
  batch 32, length-sorted batches) on all SciFact chunk texts, no cache, no index;
* ``cold``: ``sectio ingest`` of SciFact into an empty SECTIO_HOME (cache empty);
* ``warm``: the same ingest again, into the same collection (the cache full; the
  identical corpus converges without writing), the re-ingest a user runs;
* ``warm-new``: the same ingest into a new collection with the cache full (every
  point upserted and indexed again);
* ``engine-100k``: 100,000 synthetic chunks (~120 words) with precomputed random
  vectors straight into Qdrant Edge: upsert time, optimize time, RSS, disk.

Usage: ``python benchmarks/ingest.py [--quick]`` (``--quick``: 1,000 SciFact docs, 20k synthetic).

``python benchmarks/ingest.py docs [DOCS] [--home H]``: the Markdown docs ingest
(default the Argo CD tree, profile ``docs_argocd``) phase by phase, next to the
bare embedder on its D0 chunks alone (the floor: what any docs tool embeds), both
in fresh processes of the same run; the ratio is the whole ingest (model load
excluded, as for the bare run) over the bare embedding. ``--home``: where the
collection is built (its embedding cache must be empty for a cold number; the
default is a temporary folder).

``python benchmarks/ingest.py docs-d1 [DOCS] [--repeat N]``: what the D1 catalog
entries embed, their whole index text vs their ``dense_text`` (title + first
paragraph), through the bare embedder in one process, interleaved ``N`` times
(default 3; best of ``N``), with the tokens each embeds: a paired number that a
busy machine cannot skew the way it skews two runs one after the other.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DATA, dir_size_mb, peak_rss_mb, print_table, run_phase

SCIFACT = DATA / "scifact" / "corpus.jsonl"


def _scifact_subset(limit: int, out: Path) -> Path:
    lines = SCIFACT.read_text().splitlines()[:limit] if limit else SCIFACT.read_text().splitlines()
    out.write_text("\n".join(lines) + "\n")
    return out


def _chunk_texts(corpus: Path) -> list[str]:
    from sectio.embed.minilm import MiniLMEmbedder
    from sectio.ingest.readers import read_beir

    emb = MiniLMEmbedder(Path(tempfile.mkdtemp()) / "cache")
    records = read_beir(corpus, max_tokens=256, count=emb.count_tokens, starts=emb.token_starts)
    return [r.index_text() for r in records]


def phase_bare_default(corpus: str, sample: str) -> dict[str, float]:
    from fastembed import TextEmbedding

    from sectio.embed.minilm import prepare_model_dir

    texts = _chunk_texts(Path(corpus))[: int(sample)]
    model_dir = prepare_model_dir(Path(tempfile.mkdtemp()))
    model = TextEmbedding(
        "sentence-transformers/all-MiniLM-L6-v2", specific_model_path=str(model_dir)
    )
    t = time.perf_counter()
    n = sum(1 for _ in model.embed(texts))
    s = time.perf_counter() - t
    return {"texts": n, "seconds": s, "per_s": n / s, "rss_mb": peak_rss_mb()}


def phase_bare_sectio(corpus: str) -> dict[str, float]:
    from sectio.embed.minilm import MiniLMEmbedder

    texts = _chunk_texts(Path(corpus))
    emb = MiniLMEmbedder(Path(tempfile.mkdtemp()) / "cache")
    t = time.perf_counter()
    emb.embed_documents(texts)
    s = time.perf_counter() - t
    return {"texts": len(texts), "seconds": s, "per_s": len(texts) / s, "rss_mb": peak_rss_mb()}


def phase_ingest(corpus: str, home: str, collection: str) -> dict[str, float]:
    from sectio import Sectio, Settings

    with Sectio(Settings(home=Path(home))) as s:
        t = time.perf_counter()
        report = s.ingest(corpus, fmt="beir", collection=collection)
        secs = time.perf_counter() - t
    return {
        "chunks": report.chunks_read,
        "computed": report.embeddings_computed,
        "cached": report.embeddings_cached,
        "seconds": secs,
        "per_s": report.chunks_read / secs,
        "rss_mb": peak_rss_mb(),
    }


def phase_engine(n: str) -> dict[str, float]:
    import numpy as np

    from sectio.contract.profile import LexicalSettings
    from sectio.index.edge.store import EdgeBackend
    from sectio.index.ids import point_id_for
    from sectio.index.lexical import LexicalEncoder
    from sectio.index.port import IndexSpec, PointData
    from sectio.settings import Settings

    count = int(n)
    quantization = Settings().quantization  # the shipped default (SECTIO_QUANTIZATION)
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(20_000)]
    zipf = rng.zipf(1.3, size=count * 120) % len(vocab)
    texts = [" ".join(vocab[j] for j in zipf[i * 120 : (i + 1) * 120]) for i in range(count)]
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    root = Path(tempfile.mkdtemp())
    t0 = time.perf_counter()
    enc = LexicalEncoder(LexicalSettings())
    sparse = enc.fit_documents(texts)
    t1 = time.perf_counter()
    backend = EdgeBackend(root)
    spec = IndexSpec(dimensions=384, quantization=quantization)
    target = backend.load_target("bench", spec, staged=True)
    for start in range(0, count, 256):
        target.index.upsert(
            [
                PointData(
                    id=point_id_for(f"c{i}"),
                    dense=vectors[i],
                    sparse=sparse[i],
                    payload={
                        "chunk_id": f"c{i}",
                        "doc_id": f"d{i // 20}",
                        "section_key": f"s{i % 7}",
                        "part_index": i % 20,
                        "text": texts[i],
                        "tenant": f"t{i % 3}",
                    },
                )
                for i in range(start, min(start + 256, count))
            ]
        )
    t2 = time.perf_counter()
    target.index.optimize()
    t3 = time.perf_counter()
    target.commit()
    disk = dir_size_mb(root)
    shutil.rmtree(root, ignore_errors=True)
    return {
        "chunks": count,
        "bm25_s": t1 - t0,
        "upsert_s": t2 - t1,
        "optimize_s": t3 - t2,
        "total_s": t3 - t0,
        "rss_mb": peak_rss_mb(),
        "disk_mb": disk,
        "quantization": quantization,
    }


def phase_docs_bare(docs: str) -> dict[str, float]:
    from sectio.embed.minilm import MiniLMEmbedder
    from sectio.ingest.readers import read_source

    emb = MiniLMEmbedder(Path(tempfile.mkdtemp()) / "cache")
    records = read_source(
        Path(docs), "markdown", max_tokens=256, count=emb.count_tokens, starts=emb.token_starts
    ).records
    texts = [r.index_text() for r in records if getattr(r, "layer", None) in (None, "D0")]
    t = time.perf_counter()
    emb.embed_documents(texts)
    s = time.perf_counter() - t
    return {"texts": len(texts), "seconds": s, "rss_mb": peak_rss_mb()}


def phase_docs_ingest(docs: str, home: str) -> dict[str, object]:
    from sectio import Sectio, Settings

    with Sectio(Settings(home=Path(home), traces=False)) as s:
        t = time.perf_counter()
        report = s.ingest(
            docs, fmt="markdown", profile="docs_argocd", collection="argocd", replace=True
        )
        secs = time.perf_counter() - t
    return {
        "points": report.chunks_read,
        "computed": report.embeddings_computed,
        "cached": report.embeddings_cached,
        "seconds": secs,
        "phases": report.phases,
        "rss_mb": peak_rss_mb(),
    }


def docs_main(args: list[str]) -> None:
    """``docs [DOCS] [--home H]``: the docs ingest's phases beside the bare embedder on D0."""
    home = args[args.index("--home") + 1] if "--home" in args else tempfile.mkdtemp()
    rest = [a for i, a in enumerate(args) if a != "--home" and (i == 0 or args[i - 1] != "--home")]
    docs = rest[0] if rest else str(DATA / "docs_argocd")
    script = Path(__file__).resolve()
    bare = run_phase(script, "docs-bare", docs)
    ingest = run_phase(script, "docs-ingest", docs, home)
    phases: dict[str, float] = ingest["phases"]
    total = sum(v for k, v in phases.items() if k != "model")
    rows: list[list[object]] = [[k, v, f"{v / bare['seconds']:.2f}x"] for k, v in phases.items()]
    rows.append(["ingest total (model load excluded)", total, f"{total / bare['seconds']:.2f}x"])
    rows.append([f"bare embedder, {bare['texts']:.0f} D0 chunks", bare["seconds"], "1.00x"])
    print_table(
        f"Docs ingest ({docs}: {ingest['points']:,} points, {ingest['computed']:,} embeddings "
        f"computed, {ingest['cached']:,} cached; peak RSS {ingest['rss_mb']:.0f} MiB) "
        f"vs the bare embedder on its D0 chunks (peak RSS {bare['rss_mb']:.0f} MiB)",
        ["phase", "seconds", "vs bare D0"],
        rows,
    )
    print(f"\nratio: {total / bare['seconds']:.2f}x the bare embedder on D0 (target <= 1.3x)")


def docs_d1_main(args: list[str]) -> None:
    """``docs-d1 [DOCS] [--repeat N]``: D1's whole text vs its dense text, paired."""
    from sectio.embed.minilm import MiniLMEmbedder
    from sectio.ingest.readers import read_source

    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    rest = [
        a for i, a in enumerate(args) if a != "--repeat" and (i == 0 or args[i - 1] != "--repeat")
    ]
    docs = Path(rest[0]) if rest else DATA / "docs_argocd"
    emb = MiniLMEmbedder(Path(tempfile.mkdtemp()) / "cache")
    records = read_source(
        docs, "markdown", max_tokens=256, count=emb.count_tokens, starts=emb.token_starts
    ).records
    d1 = [r for r in records if getattr(r, "layer", None) == "D1"]
    texts = {
        "whole entry (title, path, first paragraph, outline)": [r.index_text() for r in d1],
        "dense_text (title, first paragraph)": [str(getattr(r, "dense_text", "")) for r in d1],
    }
    times: dict[str, list[float]] = {name: [] for name in texts}
    for _ in range(repeat):
        for name, batch in texts.items():
            t = time.perf_counter()
            emb.embed_documents(batch)
            times[name].append(time.perf_counter() - t)
    rows = [
        [
            name,
            sum(min(emb.count_tokens(t) + 2, emb.max_length) for t in batch),
            min(times[name]),
            " / ".join(f"{x:.2f}" for x in times[name]),
        ]
        for name, batch in texts.items()
    ]
    print_table(
        f"What the {len(d1)} D1 entries of {docs} embed (bare embedder, best of {repeat})",
        ["embedded text", "tokens (cut at the window)", "seconds", "each run"],
        rows,
    )


PHASES = {
    "docs-bare": phase_docs_bare,
    "docs-ingest": phase_docs_ingest,
    "bare-default": phase_bare_default,
    "bare-sectio": phase_bare_sectio,
    "ingest": phase_ingest,
    "engine": phase_engine,
}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in PHASES:
        print(json.dumps(PHASES[sys.argv[1]](*sys.argv[2:])))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "docs":
        docs_main(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "docs-d1":
        docs_d1_main(sys.argv[2:])
        return
    quick = "--quick" in sys.argv
    script = Path(__file__).resolve()
    work = Path(tempfile.mkdtemp(prefix="sectio-bench-"))
    corpus = _scifact_subset(1000 if quick else 0, work / "corpus.jsonl")
    home = work / "home"
    bare_default = run_phase(script, "bare-default", str(corpus), "300")
    bare = run_phase(script, "bare-sectio", str(corpus))
    cold = run_phase(script, "ingest", str(corpus), str(home), "cold")
    warm = run_phase(script, "ingest", str(corpus), str(home), "cold")
    warm_new = run_phase(script, "ingest", str(corpus), str(home), "warm")
    engine = run_phase(script, "engine", "20000" if quick else "100000")
    runs = [
        ("bare fastembed, defaults (512 tok, batch 256), 300 texts", bare_default),
        ("bare embedder, sectio settings (256 tok, 512-token batches, sorted)", bare),
        ("sectio ingest, cold cache", cold),
        ("sectio ingest again, same collection (warm: converges, writes nothing)", warm),
        ("sectio ingest, new collection, cache full (upsert + optimize again)", warm_new),
    ]
    print_table(
        f"SciFact ingest ({cold['chunks']:.0f} chunks, {'1,000' if quick else '5,183'} abstracts)",
        ["run", "texts", "seconds", "chunks/s", "peak RSS MiB", "vs bare (sectio settings)"],
        [
            [
                label,
                r.get("texts", r.get("chunks")),
                r["seconds"],
                r["per_s"],
                r["rss_mb"],
                f"{r['per_s'] / bare['per_s']:.0%}",
            ]
            for label, r in runs
        ],
    )
    print_table(
        f"Engine only: {engine['chunks']:,.0f} synthetic chunks (120 words, 384-d, 3 tenants), "
        f"Qdrant Edge, quantization {engine['quantization']}",
        ["BM25 encode s", "upsert s", "optimize s", "total s", "peak RSS MiB", "disk MiB"],
        [
            [
                engine["bm25_s"],
                engine["upsert_s"],
                engine["optimize_s"],
                engine["total_s"],
                engine["rss_mb"],
                engine["disk_mb"],
            ]
        ],
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
