"""Tenants sharing one collection (real Qdrant Edge): each tenant's corpus is its own.

A second tenant's load is added, not refused as another corpus; ``--replace`` for
one tenant replaces its points only; settings stay the collection's; isolation holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import ContractError, CorpusMismatch
from sectio.index.port import IndexSpec
from sectio.retrieve.reads import scroll_all
from tests.helpers import chunk, write_jsonl

DOCS = {
    "aspirin": "Aspirin relieves mild pain and fever; it can cause stomach bleeding.",
    "metformin": "Metformin lowers blood glucose; lactic acidosis is a rare risk.",
    "warfarin": "Warfarin prevents clots; bleeding is the main risk of warfarin.",
}


def beir(folder: Path, docs: dict[str, str]) -> Path:
    """A BEIR corpus folder holding ``docs`` (id -> text)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"_id": k, "title": k.title(), "text": v}) for k, v in docs.items()]
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def s(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as sectio:
        yield sectio


def points(s: Sectio, tenant: str) -> dict[str, Any]:
    """Every point of ``tenant`` in ``shared``: chunk id -> (text, dense to 5 places, sparse).

    (Qdrant stores cosine vectors normalized; a copy read back and written again may
    differ in the last float bits.)
    """
    index = s.collection("shared").index
    out = {}
    for p in scroll_all(index, tenant, page=256):
        (got,) = index.retrieve([p.id], with_vectors=True)
        dense = tuple(np.round(np.asarray(got.dense, dtype=np.float64), 5).ravel())
        out[p.payload["chunk_id"]] = (p.payload["text"], dense, got.sparse)
    return out


def seen(s: Sectio, tenant: str, query: str = "bleeding risk") -> set[str]:
    """Tenants of every hit a search and an ask as ``tenant`` return."""
    hits = s.search(query, collection="shared", tenant=tenant, top_k=50).hits
    answer = s.ask(query, collection="shared", tenant=tenant)
    return {h.tenant for h in hits} | {e.tenant for e in answer.evidence}


def test_tenants_load_one_source_into_one_collection(s: Sectio, tmp_path: Path) -> None:
    src = beir(tmp_path / "src", DOCS)
    first = s.ingest(src, tenant="acme", collection="shared")
    second = s.ingest(src, tenant="globex", collection="shared")
    assert (first.action, second.action) == ("created", "added")
    assert (second.upserted, second.collection_count) == (3, 6)
    manifest = s.collection("shared").manifest
    assert set(manifest.tenants) == {"acme", "globex"} and manifest.chunk_count == 6
    # the same texts, so the same corpus sha256 but for the chunk id prefix: two entries
    assert manifest.tenants["acme"]["chunk_count"] == manifest.tenants["globex"]["chunk_count"] == 3
    assert manifest.tenants["acme"]["source"] == str(src)
    assert seen(s, "acme") == {"acme"} and seen(s, "globex") == {"globex"}
    # loading either again changes nothing
    again = s.ingest(src, tenant="acme", collection="shared")
    assert (again.action, again.upserted, again.collection_count) == ("converged", 0, 6)


@pytest.fixture(params=["edge", "server"])
def either(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sectio]:
    """Qdrant Edge, and the server adapter (qdrant-client local mode) on the same calls."""
    location = str(tmp_path / "q") if request.param == "server" else None
    settings = Settings(home=tmp_path / "home", embedder="fake", qdrant_location=location)
    with Sectio(settings) as sectio:
        yield sectio


def test_replace_of_one_tenant_keeps_the_others(either: Sectio, tmp_path: Path) -> None:
    s = either
    src = beir(tmp_path / "src", DOCS)
    s.ingest(src, tenant="acme", collection="shared")
    s.ingest(src, tenant="globex", collection="shared")
    acme_before = points(s, "acme")
    sha_before = s.collection("shared").manifest.tenants["acme"]
    changed = beir(tmp_path / "v2", {"ibuprofen": "Ibuprofen eases pain; bleeding can occur."})
    with pytest.raises(CorpusMismatch, match="another corpus for tenant 'globex'.*--replace"):
        s.ingest(changed, tenant="globex", collection="shared")
    assert s.collection("shared").index.count() == 6  # refused: nothing written
    report = s.ingest(changed, tenant="globex", collection="shared", replace=True)
    assert (report.action, report.upserted, report.collection_count) == ("replaced", 1, 4)
    # acme: the same points, texts and vectors (copied, not re-embedded); globex: only v2
    assert points(s, "acme") == acme_before
    assert set(points(s, "globex")) == {"globex:ibuprofen"}
    manifest = s.collection("shared").manifest
    assert manifest.tenants["acme"] == sha_before and manifest.chunk_count == 4
    assert manifest.tenants["globex"]["chunk_count"] == 1
    assert seen(s, "acme") == {"acme"} and seen(s, "globex") == {"globex"}
    hits = s.search("ibuprofen", collection="shared", tenant="acme", mode="lexical").hits
    assert hits == []  # acme never sees globex's new corpus


def test_a_tenant_cannot_change_the_shared_settings(s: Sectio, tmp_path: Path) -> None:
    src = beir(tmp_path / "src", DOCS)
    s.ingest(src, tenant="acme", collection="shared")
    for replace in (False, True):
        with pytest.raises(CorpusMismatch, match="shared with tenant.*acme.*other settings") as err:
            s.ingest(
                src, tenant="globex", collection="shared", profile="generic_ru", replace=replace
            )
        assert "bm25" in err.value.fields
    assert set(s.collection("shared").manifest.tenants) == {"acme"}
    assert s.collection("shared").index.count() == 3


def test_chunk_ids_stay_unique_across_tenants(s: Sectio, tmp_path: Path) -> None:
    rows = [{**chunk("aspirin", "body", 0, DOCS["aspirin"]), "tenant": "acme"}]
    s.ingest(write_jsonl(tmp_path / "a.jsonl", rows), collection="shared")
    theirs = [{**chunk("aspirin", "body", 0, "another text"), "tenant": "globex"}]
    with pytest.raises(ContractError, match="already points of another tenant.*'acme'"):
        s.ingest(write_jsonl(tmp_path / "g.jsonl", theirs), collection="shared")
    assert seen(s, "acme", "aspirin") == {"acme"} and seen(s, "globex", "aspirin") == set()
    assert points(s, "acme")["aspirin#body#0"][0] == DOCS["aspirin"]


def test_one_load_of_many_tenants_then_each_alone(s: Sectio, tmp_path: Path) -> None:
    rows = [
        {**chunk(f"{t}-{d}", "body", 0, text), "tenant": t}
        for t in ("acme", "globex")
        for d, text in DOCS.items()
    ]
    s.ingest(write_jsonl(tmp_path / "both.jsonl", rows), collection="shared")
    assert set(s.collection("shared").manifest.tenants) == {"acme", "globex"}
    acme_only = [r for r in rows if r["tenant"] == "acme"]
    again = s.ingest(write_jsonl(tmp_path / "acme.jsonl", acme_only), collection="shared")
    assert (again.action, again.upserted) == ("converged", 0)  # acme's corpus is the same
    fewer = s.ingest(
        write_jsonl(tmp_path / "a2.jsonl", acme_only[:1]), collection="shared", replace=True
    )
    assert (fewer.action, fewer.collection_count) == ("replaced", 4)
    assert len(points(s, "acme")) == 1 and len(points(s, "globex")) == 3


def test_an_old_manifest_without_tenants_keeps_the_other_tenants(s: Sectio, tmp_path: Path) -> None:
    """A collection written before per-tenant manifests: its tenants are read from the
    points; replacing one keeps the rest."""
    rows = [
        {**chunk(f"{t}-{d}", "body", 0, text), "tenant": t}
        for t in ("acme", "globex")
        for d, text in DOCS.items()
    ]
    s.ingest(write_jsonl(tmp_path / "both.jsonl", rows), collection="shared")
    old = s.collection("shared").manifest.model_copy(update={"tenants": {}})
    s.release("shared")
    target = s.backend.load_target("shared", IndexSpec.from_manifest(old), staged=False)
    target.write_manifest(old)
    target.commit()
    assert s.collection("shared").manifest.tenants == {}
    globex_before = points(s, "globex")
    acme_new = [{**chunk("acme-new", "body", 0, "a new acme text"), "tenant": "acme"}]
    path = write_jsonl(tmp_path / "acme.jsonl", acme_new)
    with pytest.raises(CorpusMismatch, match="for tenant 'acme'"):  # identity unknown: changed
        s.ingest(path, collection="shared")
    report = s.ingest(path, collection="shared", replace=True)
    assert (report.action, report.collection_count) == ("replaced", 4)
    assert points(s, "globex") == globex_before and set(points(s, "acme")) == {"acme-new#body#0"}
    assert set(s.collection("shared").manifest.tenants) == {"acme", "globex"}


def test_cli_tenants_share_a_collection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's commands: --tenant acme, then --tenant globex, then globex --replace."""
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    src = str(beir(tmp_path / "src", DOCS))
    v2 = str(beir(tmp_path / "v2", {"ibuprofen": "Ibuprofen eases pain."}))

    def ingest(*argv: str) -> dict[str, Any]:
        capsys.readouterr()
        assert main(["ingest", *argv, "-c", "shared", "--json"]) == 0
        return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]

    assert ingest(src, "--tenant", "acme")["action"] == "created"
    assert ingest(src, "--tenant", "globex")["action"] == "added"
    assert main(["ingest", v2, "--tenant", "globex", "-c", "shared"]) == 1
    assert "use --replace" in capsys.readouterr().err
    assert ingest(v2, "--tenant", "globex", "--replace")["collection_count"] == 4
    capsys.readouterr()
    assert main(["search", "pain", "-c", "shared", "--tenant", "acme", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and {h["tenant"] for h in hits} == {"acme"}
    assert {h["doc_id"] for h in hits} <= set(DOCS)
