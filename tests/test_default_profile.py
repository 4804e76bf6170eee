"""The profile of an ingest that names none (:func:`sectio.registry.default_profile`): the
BM25 of the corpus's language for a new collection, the bound one for an existing one.

Over real Qdrant Edge with the fake embedder; the language is read from the records.
"""

from __future__ import annotations

import json
from pathlib import Path

from sectio import Sectio, Settings

RU = [
    "Ибупрофен снижает температуру и уменьшает боль при воспалении суставов.",
    "Метформин назначают взрослым пациентам с сахарным диабетом второго типа.",
    "Амоксициллин применяют при бактериальных инфекциях дыхательных путей у детей.",
]
EN = [
    "Ibuprofen lowers a fever and eases the pain of swollen joints.",
    "Metformin is given to adults with type 2 diabetes.",
    "Amoxicillin treats bacterial infections of the airways in children.",
]


def _beir(path: Path, texts: list[str]) -> Path:
    path.mkdir(parents=True)
    lines = [json.dumps({"_id": f"d{i}", "title": "", "text": t}) for i, t in enumerate(texts)]
    (path / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_russian_corpus_gets_russian_bm25_and_says_so(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        report = sx.ingest(_beir(tmp_path / "ru", RU), fmt="beir", collection="ru")
        assert report.detected.endswith(
            "BM25 for Russian text: profile generic_ru (--profile sets another)"
        )
        assert sx.collection("ru").profile.name == "generic_ru"
        # Russian stemming: "воспаление" finds the record that writes "воспалении"
        hits = sx.search("воспаление", collection="ru", mode="lexical", top_k=1).hits
        assert hits and hits[0].doc_id == "d0"
        again = sx.ingest(tmp_path / "ru", fmt="beir", collection="ru")
        assert again.action == "converged"  # the bound profile is kept on re-ingest
        english = sx.ingest(_beir(tmp_path / "en", EN), fmt="beir", collection="en")
        assert "BM25 for" not in english.detected
        assert sx.collection("en").profile.name == "generic"


def test_a_collection_keeps_the_profile_it_was_built_with(tmp_path: Path) -> None:
    """Re-ingested without --profile, a collection built with another profile loads as
    before: the static default would have been another profile, refused without --replace."""
    src = _beir(tmp_path / "en", EN)
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(src, fmt="beir", collection="c", profile="generic_ru")
        again = sx.ingest(src, fmt="beir", collection="c")
        assert again.action == "converged"
        assert sx.collection("c").profile.name == "generic_ru"


def test_a_russian_docs_tree_keeps_the_docs_planner_with_russian_bm25(tmp_path: Path) -> None:
    tree = tmp_path / "docs"
    tree.mkdir()
    for i, text in enumerate(RU):
        (tree / f"page{i}.md").write_text(f"# Страница {i}\n\n{text}\n", encoding="utf-8")
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        report = sx.ingest(tree, collection="docs")
        profile = sx.collection("docs").profile
    assert profile.name == "docs" and profile.engine == "docs_planner"
    assert profile.lexical.language == "russian"
    assert report.detected.endswith(
        "profile docs with generic_ru's [lexical] (--profile sets another)"
    )


def test_a_draft_of_a_russian_source_keeps_russian_bm25(tmp_path: Path) -> None:
    from sectio.contract.profile import load_profile

    src = _beir(tmp_path / "ru", RU)
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        text = sx.draft_profile(src, fmt="beir")
    out = tmp_path / "drafted.toml"
    out.write_text(text, encoding="utf-8")
    assert load_profile(out).lexical == load_profile("generic_ru").lexical
