"""A definition question gets the chunk that defines its term first (real Qdrant Edge, the
bundled model: closeness decides the order this step changes): the article of the term's
obligations uses the word more, the definitions article defines it."""

from __future__ import annotations

from pathlib import Path

from sectio import Sectio, Settings
from tests.helpers import chunk, write_jsonl

ACT = "Milling Regulation (EU) 2099/3"


def _act() -> list[dict[str, object]]:
    texts = {
        ("article_3", "Article 3 - Definitions"): [
            "For the purposes of this Regulation: (1) 'miller' means a natural or legal "
            "person grinding grain; (2) 'stone' means a grinding stone.",
        ],
        ("article_9", "Article 9 - Obligations of millers"): [
            "Millers shall keep records. A miller shall inform the authority. Millers who "
            "grind rye shall label it. The miller is responsible for the stone.",
        ],
        ("article_10", "Article 10 - Obligations of bakers"): [
            "Bakers shall buy flour from a registered miller.",
        ],
    }
    return [
        chunk(
            "act",
            key,
            i,
            text,
            doc_title=ACT,
            section_title=title,
            source_refs=[{"source": "act.jsonl"}],
        )
        for (key, title), parts in texts.items()
        for i, text in enumerate(parts)
    ]


def test_a_definition_question_gets_the_defining_chunk_first(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="minilm", traces=False)) as sx:
        sx.ingest(write_jsonl(tmp_path / "act.jsonl", _act()), collection="act")
        asked = (
            "what is a miller?",
            "What does 'miller' mean?",
            "definition of miller",
            "Who is a miller?",
            "who are millers?",  # the plural of the defined term
        )
        for question in asked:
            result = sx.ask(question, collection="act")
            assert result.evidence, question
            assert result.evidence[0].section_key == "article_3", question
            report = result.details.answerability
            assert report is not None and report.signals.rule == "defined_term", question
        # another question about millers keeps the engine's order
        other = sx.ask("what must millers keep?", collection="act")
        assert other.evidence and other.evidence[0].section_key != "article_3"
        report = other.details.answerability
        assert report is not None and report.signals.rule != "defined_term"


def test_a_docs_glossary_list_defines_its_terms(tmp_path: Path) -> None:
    """A docs tree's glossary as a list of bold terms ("* **Live state** The ..."), the
    terms used on other pages: the glossary's row comes first and the question passes."""
    tree = tmp_path / "docs"
    tree.mkdir()
    (tree / "concepts.md").write_text(
        "# Core Concepts\n\nThe concepts of the tool.\n\n"
        "* **Target state** The desired state of an application, as its files in Git say.\n"
        "* **Live state** The live state of that application: what is deployed.\n"
        "* **Drift** When the live state differs from the target state.\n"
    )
    (tree / "sync.md").write_text(
        "# Syncing\n\nA sync moves the live state toward the target state. The live state "
        "is read from the cluster after every sync; a live state that keeps changing is "
        "shown as drifting.\n"
    )
    (tree / "install.md").write_text("# Install\n\nRun the installer on the cluster.\n")
    with Sectio(Settings(home=tmp_path / "home", embedder="minilm", traces=False)) as sx:
        sx.ingest(tree, collection="docs")
        result = sx.ask("what is the live state?", collection="docs")
        assert result.evidence and result.evidence[0].doc_id == "concepts.md"
        report = result.details.answerability
        assert report is not None and report.signals.rule == "defined_term"
