"""Own data in the obvious shapes (issue 18 item 2): JSON arrays, JSON Lines, gzip of
either, told by content; what was detected and why is said; a folder mixing
formats is refused naming the files unless ``--format`` says which to read."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import ContractError, RecordError
from sectio.ingest.detect import detect_source
from sectio.ingest.readers import read_source
from tests.helpers import chunk


def rows(n: int = 4, prefix: str = "c") -> list[dict[str, Any]]:
    return [chunk("doc", "body", i, f"{prefix} text number {i}") for i in range(n)]


def jsonl(items: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in items)


@pytest.fixture
def sectio(tmp_path: Path) -> Any:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        yield s


SHAPES = {
    "array.json": lambda p: p.write_text(json.dumps(rows(), indent=2)),
    "lines.jsonl": lambda p: p.write_text(jsonl(rows())),
    "array.json.gz": lambda p: p.write_bytes(gzip.compress(json.dumps(rows()).encode())),
    "lines.jsonl.gz": lambda p: p.write_bytes(gzip.compress(jsonl(rows()).encode())),
    "export.txt": lambda p: p.write_text(jsonl(rows())),  # JSON Lines under any name
    "lines.json": lambda p: p.write_text(jsonl(rows())),  # .json holding JSON Lines
    "bom.json": lambda p: p.write_bytes(b"\xef\xbb\xbf" + json.dumps(rows()).encode()),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_shape_ingests_and_says_what_it_was(
    sectio: Sectio, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    SHAPES[name](path)
    report = sectio.ingest(path, collection="c")
    assert report.format == "chunks" and report.collection_count == 4
    assert report.detected.startswith(f"chunks: {name} holds ")
    assert "first record has chunk_id" in report.detected
    assert ("gzip of" in report.detected) == name.endswith(".gz")
    assert ("JSON array" in report.detected) == ("array" in name or "bom" in name)
    assert sorted(e.part_index for e in sectio.chunks(collection="c", tenant="default")) == [
        0,
        1,
        2,
        3,
    ]


def test_json_array_errors_name_the_element_line(sectio: Sectio, tmp_path: Path) -> None:
    items = rows(3)
    items[2]["part_index"] = -1
    path = tmp_path / "a.json"
    path.write_text(json.dumps(items, indent=2))
    text = path.read_text().splitlines()
    bad_line = next(i for i, line in enumerate(text, 1) if '"part_index": -1' in line)
    with pytest.raises(RecordError) as caught:
        sectio.ingest(path)
    # the element starts a few lines above its part_index line
    assert caught.value.field == "part_index" and 0 < bad_line - caught.value.line < 10
    path.write_text('[{"chunk_id": "a", "doc_id": "d", "section_key": "s",\n "part_index": 0 "x"]')
    with pytest.raises(RecordError, match=r"a.json:2: field <json>: not valid JSON: Expecting ','"):
        sectio.ingest(path)
    path.write_text(json.dumps(rows(1)) + " trailing")
    with pytest.raises(RecordError, match="expected the end of the array"):
        sectio.ingest(path)


def test_beir_in_gzip_and_as_a_folder(sectio: Sectio, tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    folder.mkdir()
    docs = [{"_id": f"d{i}", "title": f"T{i}", "text": f"document {i}"} for i in range(3)]
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(jsonl(docs).encode()))
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "document"}\n')
    report = sectio.ingest(folder, collection="b")
    assert report.format == "beir" and report.collection_count == 3
    assert report.detected == "beir (the folder holds corpus.jsonl.gz): corpus.jsonl.gz"
    single = tmp_path / "corpus.json"
    single.write_text(json.dumps(docs))
    assert sectio.ingest(single, collection="b2").detected.startswith("beir: corpus.json holds")


def _mixed(root: Path) -> Path:
    root.mkdir()
    (root / "part1.json").write_text(json.dumps(rows(2, "a")))
    (root / "sub").mkdir()
    (root / "sub" / "part2.jsonl").write_text(jsonl([chunk("doc2", "s", 0, "b")]))
    (root / "README.md").write_text("# About this export\n\nNot data.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n")
    return root


def test_a_folder_mixing_formats_is_refused_naming_the_files(
    sectio: Sectio, tmp_path: Path
) -> None:
    folder = _mixed(tmp_path / "export")
    with pytest.raises(ContractError) as caught:
        sectio.ingest(folder)
    message = str(caught.value)
    assert "mixes formats: 2 chunk record files (part1.json, sub/part2.jsonl)" in message
    assert "1 Markdown file (README.md)" in message and "--format chunks" in message
    assert sectio.collection_names() == []
    chunks = sectio.ingest(folder, fmt="chunks")
    assert chunks.collection_count == 3
    assert "; ignored 1 Markdown file: README.md" in chunks.detected
    assert chunks.detected.endswith("; ignored 1 file: logo.png (an image)")  # nothing unsaid
    assert not any("About this export" in e.text for e in sectio.chunks(tenant="default"))
    docs = sectio.ingest(folder, fmt="markdown", collection="docs")
    assert docs.format == "markdown" and "ignored 2 JSON files" in docs.detected


def test_folder_of_chunk_files_reads_all_and_checks_ids_across_files(
    sectio: Sectio, tmp_path: Path
) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.jsonl").write_text(jsonl(rows(2)))
    (folder / "b.json.gz").write_bytes(gzip.compress(json.dumps(rows(1, "x")).encode()))
    with pytest.raises(RecordError, match=r"b.json.gz:1: field chunk_id: duplicate of .*a.jsonl:1"):
        sectio.ingest(folder)
    (folder / "b.json.gz").write_bytes(
        gzip.compress(json.dumps([chunk("other", "s", 0, "x")]).encode())
    )
    report = sectio.ingest(folder)
    assert report.collection_count == 3
    assert report.detected.startswith("chunks: 2 record files: a.jsonl, b.json.gz (JSON Lines")
    (folder / "c.json").write_text(json.dumps({"name": "not records"}))
    with pytest.raises(
        ContractError, match=r"c.json: not a chunk record file: it holds JSON Lines"
    ):
        sectio.ingest(folder)


def test_markdown_tree_ignores_non_record_json_and_says_so(sectio: Sectio, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nHello.\n")
    (docs / "package.json").write_text(json.dumps({"name": "site", "version": "1.0"}))
    report = sectio.ingest(docs)
    assert report.format == "markdown"
    assert report.detected == "markdown: 1 Markdown file; ignored 1 JSON file: package.json"


def test_a_sphinx_page_template_is_ignored_and_a_page_showing_one_is_read(
    tmp_path: Path,
) -> None:
    """``_templates/autosummary/class.rst`` opens with a Jinja expression: not a page; a
    page that shows a template in its text is one."""
    docs = tmp_path / "docs"
    (docs / "_templates").mkdir(parents=True)
    (docs / "_templates" / "class.rst").write_text(
        "{{ fullname | escape | underline }}\n\n.. autoclass:: {{ objname }}\n"
    )
    (docs / "theming.rst").write_text(
        "Theming\n=======\n\nA template writes ``{{ fullname }}`` to show the name.\n"
    )
    found = detect_source(docs)
    assert [p.name for p in found.files] == ["theming.rst"]
    assert [(p.name, why) for p, why in found.ignored] == [
        ("class.rst", "a page template (Jinja tags)")
    ]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"hello world\n", r"it holds text \(not JSON\)"),
        (b"\x00\x01\x02binary", "it holds binary data"),
        (b'{"name": "x"}\n', "neither chunk_id nor _id: name"),
        (b'[{"id": 1, "size": 3}]', "a chunk record needs chunk_id, doc_id, section_key"),
        (b'[{"id": 1, "size": 3}]', r"an export's record an id field \(id, uuid"),
        (b"[1, 2]", "no JSON object first"),
        (b"   \n", "empty file"),
    ],
)
def test_a_file_of_unknown_shape_is_refused_saying_what_it_holds(
    tmp_path: Path, content: bytes, needle: str
) -> None:
    path = tmp_path / "data.dat"
    path.write_bytes(content)
    with pytest.raises(ContractError, match=needle):
        detect_source(path)


def test_an_export_of_its_own_shape_is_read_record_by_record_as_documents(
    sectio: Sectio, tmp_path: Path
) -> None:
    """A FAQ exported as JSON (id, question, answer, category) loads as it is: each record
    a document titled by its question, its other fields kept as metadata, its evidence
    naming the file and the record."""
    faq = [
        {"id": "q1", "category": "Billing", "question": "Refunds?", "answer": "Within 30 days."},
        {"id": "q2", "category": "Account", "question": "Reset?", "answer": "Use the link."},
    ]
    export = tmp_path / "faq.json"
    export.write_text(json.dumps(faq), encoding="utf-8")
    found = detect_source(export)
    assert found.format == "markdown"
    assert found.reason == (
        "markdown: faq.json is an export of 2 records (id, question, answer), "
        "each read as a document"
    )
    report = sectio.ingest(export, collection="faq")
    assert report.format == "markdown" and report.upserted > 2
    hits = sectio.search("Within 30 days.", collection="faq", top_k=1).hits
    assert hits[0].doc_id == "q1" and hits[0].doc_title == "Refunds?"
    d0 = [r for r in read_source(export).records if r.layer == "D0"]
    first = next(r for r in d0 if r.doc_id == "q1")
    assert first.metadata["category"] == "Billing"  # the other fields, kept
    assert first.source_refs[0].model_dump(exclude_none=True)["source"] == "faq.json"
    assert first.source_refs[0].model_extra == {"record": "q1", "anchor": "refunds"}


def test_a_help_centre_export_reads_html_bodies_and_keeps_each_articles_link(
    tmp_path: Path,
) -> None:
    """A help centre's API export: one object holding the articles, each body HTML with
    its own headings, each with its web address."""
    articles = [
        {
            "id": 101,
            "title": "Refund policy",
            "html_url": "https://help.example.com/articles/101",
            "body": "<p>Refunds within 30 days.</p><h2>Card refunds</h2><p>Paid to the card.</p>",
        },
        {
            "id": 102,
            "title": "Shipping",
            "html_url": "https://help.example.com/articles/102",
            "body": "<p>Orders ship in <b>2 days</b>.</p>",
        },
    ]
    export = tmp_path / "articles.json"
    export.write_text(json.dumps({"articles": articles, "next_page": None}, indent=2))
    d0 = [r for r in read_source(export).records if r.layer == "D0"]
    card = next(r for r in d0 if r.section_title == "Card refunds")
    assert card.doc_id == "101" and card.text.strip().endswith("Paid to the card.")
    assert "<p>" not in card.text
    ref = card.source_refs[0]
    assert (ref.source, ref.url) == ("articles.json", "https://help.example.com/articles/101")
    assert {r.doc_id for r in d0} == {"101", "102"}


def test_a_faq_of_questions_and_answers_alone_is_an_export_too(
    sectio: Sectio, tmp_path: Path
) -> None:
    """A FAQ as a site keeps it: one object holding questions and answers, no ids. Each
    record is a document titled by its question, named by the file and its place."""
    faq = {
        "questions_answers": [
            {"question": "How do I add a product?", "answer": "Open Products, then Add."},
            {"question": "Can I import customers from CSV?", "answer": "No, not yet."},
        ]
    }
    export = tmp_path / "faq.json"
    export.write_text(json.dumps(faq, indent=4), encoding="utf-8")
    assert detect_source(export).reason == (
        "markdown: faq.json is an export of 2 records (question, answer), each read as a document"
    )
    sectio.ingest(export, collection="faq")
    result = sectio.ask("Can I import customers from a CSV file?", collection="faq")
    assert result.evidence and result.evidence[0].doc_id == "faq/2"
    assert result.evidence[0].doc_title == "Can I import customers from CSV?"


def test_a_langchain_export_reads_its_metadata_as_the_records_own(tmp_path: Path) -> None:
    """Documents saved from LangChain: ``page_content`` and a ``metadata`` object with the
    title, the source file and the page; a body that is no text names its record."""
    docs = [
        {
            "page_content": "Employees get 20 days of paid leave a year.",
            "metadata": {"source": "handbook.pdf", "page": 3, "title": "Leave policy"},
        },
        {
            "page_content": "Work hours are 9 to 6.",
            "metadata": {"source": "handbook.pdf", "page": 4, "title": "Hours"},
        },
    ]
    export = tmp_path / "docs.json"
    export.write_text(json.dumps(docs), encoding="utf-8")
    assert "(title, page_content)" in detect_source(export).reason
    d0 = [r for r in read_source(export).records if r.layer == "D0"]
    leave = next(r for r in d0 if r.doc_id == "docs/1")
    assert leave.doc_title == "Leave policy" and leave.metadata["page"] == 3
    assert leave.source_refs[0].url == "handbook.pdf"
    assert "domain" not in leave.metadata  # "docs/1" is no folder of a tree
    nested = tmp_path / "confluence.json"  # the body is an object: no text field to read
    nested.write_text(json.dumps([{"id": 1, "body": {"storage": {"value": "<p>x</p>"}}}]))
    with pytest.raises(ContractError, match="cannot tell the format"):
        detect_source(nested)


def test_export_records_that_share_an_id_are_parts_of_one_document(tmp_path: Path) -> None:
    """A pre-chunked export (one article in three records, in order): one document, its
    parts in file order, a part titled otherwise opening a section."""
    parts = [
        {"id": "kb-7", "title": "Returns", "text": "Return items within 30 days."},
        {"id": "kb-7", "title": "Returns", "text": "Keep the receipt."},
        {"id": "kb-7", "title": "Refunds", "text": "Refunds reach the card in 5 days."},
        {"id": "kb-8", "title": "Shipping", "text": "Orders ship in 2 days."},
    ]
    export = tmp_path / "kb.jsonl"
    export.write_text(jsonl(parts))
    d0 = [r for r in read_source(export).records if r.layer == "D0"]
    assert {r.doc_id for r in d0} == {"kb-7", "kb-8"}
    returns = [r for r in d0 if r.doc_id == "kb-7"]
    assert [r.section_title for r in returns] == ["Returns", "Refunds"]
    text = returns[0].text
    assert text.index("Return items") < text.index("Keep the receipt.")


def test_an_export_record_without_its_text_is_refused_naming_it(tmp_path: Path) -> None:
    export = tmp_path / "kb.jsonl"
    export.write_text(jsonl([{"id": "a", "body": "Text."}, {"id": "b", "body": ""}]))
    with pytest.raises(RecordError, match=r"kb.jsonl:2: field body: must be non-empty"):
        read_source(export)


def test_cli_prints_the_detection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    path = tmp_path / "a.json"
    path.write_text(json.dumps(rows()))
    assert main(["ingest", str(path)]) == 0
    err = capsys.readouterr().err
    assert "read as chunks: a.json holds a JSON array (first record has chunk_id)" in err
    assert main(["ingest", str(path), "--json", "-c", "j"]) == 0
    assert json.loads(capsys.readouterr().out)["detected"].startswith("chunks: a.json holds")
    folder = _mixed(tmp_path / "mixed")
    assert main(["ingest", str(folder), "-c", "m"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and "mixes formats" in line


def test_a_folder_of_unsupported_files_is_refused_listing_them(tmp_path: Path) -> None:
    """No file of a folder is skipped without being named, also when none is read."""
    root = tmp_path / "exports"
    root.mkdir()
    (root / "a.xyz").write_text("a\n")
    (root / "c.csv").write_text("col1,col2\n")
    with pytest.raises(ContractError) as caught:
        detect_source(root)
    message = str(caught.value)
    assert "no documents" in message and "it holds 2 files: a.xyz (" in message
    assert "c.csv (" in message
    (root / "a.xyz").unlink()
    (root / "c.csv").unlink()
    with pytest.raises(ContractError, match="; it is empty"):
        detect_source(root)


def test_a_cut_jsonl_line_is_located_at_its_end_not_at_column_1(
    sectio: Sectio, tmp_path: Path
) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text(jsonl(rows(1)) + '{"chunk_id": "b", "doc_id": "d",\n')
    with pytest.raises(RecordError, match=r"cut.jsonl:2: .*\(at the end of the line\)"):
        sectio.ingest(path)
    path.write_text(jsonl(rows(1)) + '{"chunk_id": "b" "doc_id": "d"}\n')
    with pytest.raises(RecordError, match=r"cut.jsonl:2: .*Expecting ',' delimiter \(column 18\)"):
        sectio.ingest(path)


def test_chunks_without_source_refs_load_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A load that succeeds but whose answers will all abstain says so at once."""
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    bare = [{k: v for k, v in r.items() if k != "source_refs"} for r in rows(3)]
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl([*bare[:2], rows(3)[2]]))
    assert main(["ingest", str(path), "-c", "bare"]) == 0
    err = capsys.readouterr().err
    assert "warning: 2 of 3 chunks have no source_refs" in err and "missing_provenance" in err
    path.write_text(jsonl(rows(3)))
    assert main(["ingest", str(path), "-c", "full"]) == 0
    assert "source_refs" not in capsys.readouterr().err
