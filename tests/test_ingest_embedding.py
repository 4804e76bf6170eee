"""Dense vectors at ingest: derived docs entries reuse vectors, a D1 entry embeds its title
and first paragraph, repeats are embedded once, and a docs plan answers as it did when
every entry embedded its own whole text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.contract.profile import load_profile
from sectio.contract.record import ChunkRecord
from sectio.embed.cache import CachedEmbedder
from sectio.embed.fake import FakeEmbedder
from sectio.errors import ContractError
from sectio.index.ids import point_id_for
from sectio.ingest.embedding import embed_records, plan_dense
from sectio.ingest.loader import load_records
from sectio.ingest.markdown import read_markdown
from sectio.ingest.phases import PhaseClock
from sectio.ingest.readers import read_source
from tests.test_plan_executor import FILES, make_corpus

#: Each question and the page that answers it (None: no one page is the answer).
QUESTIONS = {
    "Which page documents GET /api/v1/orders?": "docs/api/orders.md",
    "How is an order placed in the checkout flow?": "docs/logic/checkout-flow.md",
    "What is an Invoice?": "docs/domains/billing/invoice.md",
    "Where is docs/domains/billing/refunds.md?": "docs/domains/billing/refunds.md",
    "How do I test the orders endpoint?": "docs/guide/testing-orders.md",
    "How do refunds reverse an invoice?": "docs/domains/billing/refunds.md",
    "Which document links to the orders API?": None,
}


def _by_id(records: list[ChunkRecord]) -> dict[str, ChunkRecord]:
    return {r.chunk_id: r for r in records}


def _embedder(tmp_path: Path) -> tuple[CachedEmbedder, FakeEmbedder]:
    inner = FakeEmbedder()
    return CachedEmbedder(inner, tmp_path / "cache" / "e.sqlite"), inner


def test_derived_entries_reuse_their_source_vectors(tmp_path: Path) -> None:
    records = read_markdown(make_corpus(tmp_path / "c"))
    texts = [r.index_text() for r in records]
    cached, _ = _embedder(tmp_path)
    vectors = embed_records(records, texts, cached, PhaseClock())
    at = {r.chunk_id: i for i, r in enumerate(records)}
    layers = {getattr(r, "layer", None) for r in records}
    assert {"D1", "D2", "D3", "D4", "D5"} <= layers
    for i, r in enumerate(records):
        layer = getattr(r, "layer", None)
        if layer in ("D2", "D3", "D4"):  # restates (or names) the chunk it came from
            source = r.source_chunk_id  # type: ignore[attr-defined]
            assert np.array_equal(vectors[i], vectors[at[source]]), r.chunk_id
        elif layer == "D5":  # the relation's source document's catalog entry
            assert np.array_equal(vectors[i], vectors[at[f"d1:{r.doc_id}"]]), r.chunk_id
        elif layer == "D1":  # its title and first paragraph, not its path and outline
            short = f"{r.doc_title}\n{r.first_paragraph}"  # type: ignore[attr-defined]
            assert r.dense_text == short, r.chunk_id  # type: ignore[attr-defined]
            assert f"Path: {r.doc_id}" in r.text  # BM25 still reads the path and outline
            heads = [o["title"] for o in r.outline if o["title"] != r.doc_title]  # type: ignore[attr-defined]
            assert all(h in r.text for h in heads), r.chunk_id
            assert np.allclose(vectors[i], FakeEmbedder().embed_documents([short])[0])
        else:  # D0 embeds its own index text
            assert np.allclose(vectors[i], FakeEmbedder().embed_documents([texts[i]])[0])


def test_only_d0_and_d1_are_embedded(tmp_path: Path) -> None:
    records = read_markdown(make_corpus(tmp_path / "c"))
    plan = plan_dense(records, [r.index_text() for r in records])
    kinds = {getattr(records[i], "layer", None) for i in plan.derived}
    assert kinds == {"D1"}
    assert {getattr(records[i], "layer", None) for i in plan.d0} == {"D0"}
    assert {getattr(records[i], "layer", None) for i in plan.reuse} == {"D2", "D3", "D4", "D5"}
    assert len(plan.d0) + len(plan.derived) + len(plan.reuse) == len(records)
    # shortest first within each group: batches of about one length
    sizes = [len(plan.texts[i]) for i in plan.d0]
    assert sizes == sorted(sizes)


def test_identical_texts_are_embedded_once(tmp_path: Path) -> None:
    rows = [
        ChunkRecord(chunk_id=f"c{i}", doc_id="d", section_key="s", part_index=i, text=text)
        for i, text in enumerate(["same words", "other words", "same words", "same words"])
    ]
    cached, inner = _embedder(tmp_path)
    texts = [r.index_text() for r in rows]
    vectors = embed_records(rows, texts, cached, PhaseClock(), batch_size=1)
    assert inner.texts_embedded == 2  # across slices of one text each
    assert np.array_equal(vectors[0], vectors[2]) and np.array_equal(vectors[0], vectors[3])
    embed_records(rows, texts, cached, PhaseClock())  # a second load: all from the cache
    assert inner.texts_embedded == 2


def test_dense_text_is_embedded_instead_of_the_index_text(tmp_path: Path) -> None:
    rows = [
        ChunkRecord.model_validate(
            {
                "chunk_id": "e",
                "doc_id": "d",
                "section_key": "s",
                "part_index": 0,
                "text": "a long definition of many other words",
                "dense_text": "ApplicationSet",
                "layer": "D3",
            }
        )
    ]
    cached, inner = _embedder(tmp_path)
    vectors = embed_records(rows, [rows[0].index_text()], cached, PhaseClock())
    assert np.allclose(vectors[0], FakeEmbedder().embed_documents(["ApplicationSet"])[0])
    assert inner.texts_embedded == 1


def test_dense_from_naming_no_chunk_is_refused(tmp_path: Path) -> None:
    rows = [
        ChunkRecord(chunk_id="a", doc_id="d", section_key="s", part_index=0, text="x"),
        ChunkRecord.model_validate(
            {
                "chunk_id": "b",
                "doc_id": "d",
                "section_key": "s",
                "part_index": 1,
                "text": "y",
                "dense_from": "missing",
            }
        ),
    ]
    with pytest.raises(ContractError, match="'b': dense_from 'missing' names no chunk"):
        plan_dense(rows, [r.index_text() for r in rows])


def test_reuse_survives_a_tenant_prefix(tmp_path: Path) -> None:
    result = read_source(make_corpus(tmp_path / "c"), "markdown", tenant="acme")
    plan = plan_dense(result.records, [r.index_text() for r in result.records])
    assert plan.reuse and all(
        result.records[j].chunk_id.startswith("acme:") for j in plan.reuse.values()
    )


def _stripped(records: list[ChunkRecord]) -> list[ChunkRecord]:
    """The records as if every entry embedded its own index text (no hints)."""
    out = []
    for r in records:
        data = r.payload()
        data.pop("dense_from", None)
        data.pop("dense_text", None)
        out.append(ChunkRecord.model_validate(data))
    return out


def test_a_docs_plan_answers_as_when_everything_was_embedded(tmp_path: Path) -> None:
    records = read_markdown(make_corpus(tmp_path / "c"))
    assert len({p for p in FILES}) == len({r.doc_id for r in records})
    docs: dict[str, list[list[str]]] = {}
    for name, rows in (("reused", records), ("all", _stripped(records))):
        with Sectio(Settings(home=tmp_path / name, embedder="fake", traces=False)) as sx:
            load_records(sx.backend, "docs", rows, sx.embedder, load_profile("docs"))
            docs[name] = [
                [e.doc_id for e in sx.ask(q, collection="docs", record=False).evidence][:3]
                for q in QUESTIONS
            ]
    first = [d[:1] for d in docs["reused"]]
    assert first == [d[:1] for d in docs["all"]]
    assert all(first)
    for (q, want), got in zip(QUESTIONS.items(), first, strict=True):
        assert want is None or got == [want], q


def test_stored_vectors_follow_the_plan(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as sx:
        report = sx.ingest(make_corpus(tmp_path / "c"), fmt="markdown", collection="docs")
        records = read_markdown(tmp_path / "c")
        d2 = next(r for r in records if getattr(r, "layer", None) == "D2")
        source = d2.source_chunk_id  # type: ignore[attr-defined]
        index = sx.backend.open("docs")
        try:
            got = index.retrieve([point_id_for(d2.chunk_id), point_id_for(source)], True)
        finally:
            index.close()
    assert len(got) == 2 and np.array_equal(got[0].dense, got[1].dense)
    derived = sum(1 for r in records if getattr(r, "layer", None) == "D1")
    d0 = sum(1 for r in records if getattr(r, "layer", None) == "D0")
    assert report.embeddings_computed + report.embeddings_cached == d0 + derived
    assert list(report.phases)[:3] == ["model", "read", "layers"]
    assert {"embed_d0", "embed_derived", "upsert", "optimize"} <= set(report.phases)
