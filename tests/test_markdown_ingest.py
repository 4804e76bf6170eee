"""Markdown ingestion: real Argo CD files and small hand-made ones; the D0-D5 layers."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from sectio.contract.record import ChunkRecord
from sectio.errors import ContractError
from sectio.ingest.markdown import read_markdown, resolve_link
from sectio.ingest.md_parse import mkdocs_anchor, parse_markdown, slugify
from sectio.ingest.readers import read_source
from tests.helpers import DATA

ARGO = DATA / "docs_argocd"
REAL_FILES = [
    "docs/faq.md",
    "docs/getting_started.md",
    "docs/core_concepts.md",
    "docs/user-guide/sync-waves.md",
    "docs/user-guide/resource_hooks.md",
    "docs/user-guide/diffing.md",
    "docs/user-guide/commands/argocd_app_sync.md",
    "docs/user-guide/commands/argocd_app.md",
    "docs/operator-manual/applicationset/Web-UI.md",
    "docs/operator-manual/health.md",
    "docs/operator-manual/argocd-cmd-params-cm-yaml.md",
    "docs/operator-manual/argocd-cmd-params-cm.yaml",
    "docs/operator-manual/security.md",
    "docs/proposals/manifest-hydrator.md",
]

needs_argo = pytest.mark.skipif(not ARGO.is_dir(), reason="Argo CD docs not available")


def words(text: str) -> int:
    return len(text.split())


def by_layer(records: list[ChunkRecord], layer: str) -> list[ChunkRecord]:
    return [r for r in records if getattr(r, "layer", None) == layer]


@pytest.fixture(scope="module")
def argo_subset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("argo")
    for rel in REAL_FILES:
        src = ARGO / rel
        if src.exists():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, root / rel)
    return root


@pytest.fixture(scope="module")
def argo_records(argo_subset: Path) -> list[ChunkRecord]:
    return read_markdown(argo_subset, max_tokens=128, count=words)


# --- real files ------------------------------------------------------------------------


@needs_argo
def test_doc_ids_are_posix_paths_relative_to_the_folder(argo_records: list[ChunkRecord]) -> None:
    docs = {r.doc_id for r in argo_records}
    assert "docs/faq.md" in docs
    assert "docs/operator-manual/applicationset/Web-UI.md" in docs
    assert all(r.path == r.doc_id for r in argo_records)
    assert not any(d.endswith(".yaml") for d in docs)  # only .md files are documents


@needs_argo
def test_titles_from_first_heading_and_front_matter(argo_records: list[ChunkRecord]) -> None:
    titles = {r.doc_id: r.doc_title for r in by_layer(argo_records, "D1")}
    assert titles["docs/faq.md"] == "FAQ"
    assert titles["docs/user-guide/sync-waves.md"] == "Sync Phases and Waves"
    assert titles["docs/proposals/manifest-hydrator.md"] == "Manifest Hydrator"  # front matter
    d1 = next(
        r for r in by_layer(argo_records, "D1") if r.doc_id == "docs/proposals/manifest-hydrator.md"
    )
    assert d1.model_dump()["front_matter"]["creation-date"] == "2024-03-26"  # dates become strings


@needs_argo
def test_domain_and_subdomain_from_folders(argo_records: list[ChunkRecord]) -> None:
    meta = {r.doc_id: r.metadata for r in by_layer(argo_records, "D0")}
    assert meta["docs/operator-manual/applicationset/Web-UI.md"] == {
        "domain": "operator-manual",
        "subdomain": "applicationset",
    }
    assert meta["docs/user-guide/sync-waves.md"] == {"domain": "user-guide"}
    assert meta["docs/faq.md"] == {}


@needs_argo
def test_nested_headings_become_section_paths(argo_records: list[ChunkRecord]) -> None:
    sections = {
        (r.section_key, r.section_title)
        for r in by_layer(argo_records, "D0")
        if r.doc_id == "docs/user-guide/sync-waves.md"
    }
    keys = {k for k, _ in sections}
    assert "sync-phases-and-waves/predelete-and-postdelete-hooks/predelete-hooks" in keys
    assert (
        "sync-phases-and-waves/examples/initialize-or-migrate-a-database",
        "Initialize or migrate a database",
    ) in sections


@needs_argo
def test_code_fences_are_whole_block_chunks(argo_records: list[ChunkRecord]) -> None:
    d0 = by_layer(argo_records, "D0")
    fences = [r for r in d0 if r.model_dump().get("block_type") == "code"]
    assert fences and all(r.chunk_kind == "block" for r in fences)
    for r in fences:
        lines = r.text.strip().split("\n")
        if lines[0].startswith("```"):
            assert lines[-1].startswith("```"), r.chunk_id
    for r in d0:
        if r.chunk_kind == "prose":
            assert r.text.count("```") == 0, r.chunk_id
    # the big options listing of the command page stays one chunk although it is over the limit
    options = [
        r for r in fences if r.doc_id.endswith("argocd_app_sync.md") and "--dry-run" in r.text
    ]
    assert len(options) == 1 and words(options[0].text) > 128


@needs_argo
def test_tables_are_block_chunks(argo_records: list[ChunkRecord]) -> None:
    d0 = [r for r in by_layer(argo_records, "D0") if r.doc_id.endswith("Web-UI.md")]
    tables = [r for r in d0 if r.model_dump().get("block_type") == "table"]
    assert len(tables) >= 1
    assert all(r.chunk_kind == "block" for r in tables)
    assert "GET /api/v1/applicationsets" in tables[0].text
    assert not any("|---" in r.text for r in d0 if r.chunk_kind == "prose")


@needs_argo
def test_prose_chunks_respect_the_token_limit(argo_records: list[ChunkRecord]) -> None:
    for r in by_layer(argo_records, "D0"):
        if r.chunk_kind == "prose":
            budget = 128 - words(f"{r.doc_title}\n{r.section_title}") - 2
            assert words(r.text) <= max(budget, 32), r.chunk_id


@needs_argo
def test_part_index_orders_each_section(argo_records: list[ChunkRecord]) -> None:
    parts: dict[tuple[str, str], list[int]] = {}
    for r in by_layer(argo_records, "D0"):
        parts.setdefault((r.doc_id, r.section_key), []).append(r.part_index)
    for key, idx in parts.items():
        assert idx == list(range(len(idx))), key


@needs_argo
def test_relative_links_resolve_to_doc_ids(argo_records: list[ChunkRecord]) -> None:
    faq_links = {
        link
        for r in by_layer(argo_records, "D0")
        if r.doc_id == "docs/faq.md"
        for link in r.model_dump()["links"]
    }
    assert "docs/user-guide/diffing.md" in faq_links
    assert "docs/operator-manual/health.md" in faq_links
    relations = {
        r.model_dump()["target_path"]
        for r in by_layer(argo_records, "D5")
        if r.doc_id == "docs/faq.md"
    }
    assert {"docs/user-guide/diffing.md", "docs/getting_started.md"} <= relations


@needs_argo
def test_source_refs_point_at_the_heading_anchor(argo_records: list[ChunkRecord]) -> None:
    chunk = next(
        r
        for r in by_layer(argo_records, "D0")
        if r.doc_id == "docs/faq.md" and "admin password" in (r.section_title or "")
    )
    ref = chunk.source_refs[0].model_dump()
    assert ref["source"] == "docs/faq.md"
    assert ref["url"] == "docs/faq.md#i-forgot-the-admin-password-how-do-i-reset-it"
    assert ref["line"] >= 1
    # every record of every layer has provenance
    assert all(r.source_refs for r in argo_records)


@needs_argo
def test_explicit_html_anchor_wins(argo_records: list[ChunkRecord]) -> None:
    anchors = {
        r.source_refs[0].model_dump().get("anchor")
        for r in by_layer(argo_records, "D0")
        if r.doc_id == "docs/faq.md"
    }
    assert "sealed-secret-stuck-progressing" in anchors


@needs_argo
def test_mkdocs_include_of_a_yaml_file_is_expanded(argo_records: list[ChunkRecord]) -> None:
    page = [
        r for r in by_layer(argo_records, "D0") if r.doc_id.endswith("argocd-cmd-params-cm-yaml.md")
    ]
    assert any("kind: ConfigMap" in r.text for r in page)
    facts = {
        r.model_dump()["fact"]
        for r in by_layer(argo_records, "D2")
        if r.doc_id.endswith("argocd-cmd-params-cm-yaml.md")
    }
    assert "server.insecure" in facts


@needs_argo
def test_layers_are_unique_blocks_with_provenance(argo_records: list[ChunkRecord]) -> None:
    ids = [r.chunk_id for r in argo_records]
    assert len(ids) == len(set(ids))
    counts = Counter(getattr(r, "layer", None) for r in argo_records)
    assert set(counts) == {"D0", "D1", "D2", "D3", "D4", "D5"}
    assert counts["D1"] == len({r.doc_id for r in argo_records})
    for r in argo_records:
        if r.model_dump()["layer"] != "D0":
            assert r.chunk_kind == "block"
            assert r.section_key.startswith("_d")
    assert "d1:docs/faq.md" in ids


@needs_argo
def test_d1_catalog_entry(argo_records: list[ChunkRecord]) -> None:
    d1 = next(
        r for r in by_layer(argo_records, "D1") if r.doc_id == "docs/user-guide/sync-waves.md"
    )
    data = d1.model_dump()
    assert d1.text.startswith("Sync Phases and Waves\nPath: docs/user-guide/sync-waves.md")
    assert "How sync waves work?" in [o["title"] for o in data["outline"]]
    assert data["first_paragraph"]
    assert "sync-waves.md" in data["aliases"] and "sync waves" in data["aliases"]
    assert "docs/user-guide/resource_hooks.md" in data["links_to"]


@needs_argo
def test_d2_facts(argo_records: list[ChunkRecord]) -> None:
    facts = {
        (r.model_dump()["fact_type"], r.model_dump()["fact"]): r
        for r in by_layer(argo_records, "D2")
    }
    assert ("api_endpoint", "/api/v1/session") in facts  # security.md prose
    assert ("api_endpoint", "GET /api/v1/applicationsets/{name}") in facts  # Web-UI table
    cli = facts[("cli_command", "argocd app sync")]
    assert cli.model_dump()["reference_doc_id"] == "docs/user-guide/commands/argocd_app_sync.md"
    source = cli.model_dump()["source_chunk_id"]
    assert source in {r.chunk_id for r in by_layer(argo_records, "D0")}


@needs_argo
def test_d3_entities(argo_records: list[ChunkRecord]) -> None:
    ents = {
        (r.doc_id, r.model_dump()["entity"]): r.model_dump() for r in by_layer(argo_records, "D3")
    }
    glossary = ents[("docs/core_concepts.md", "Application")]
    assert glossary["entity_kind"] == "glossary"
    assert "Kubernetes resources" in glossary["definition"]
    assert ents[("docs/user-guide/sync-waves.md", "PreDelete Hooks")]["entity_kind"] == "heading"
    code = [
        e for (doc, _), e in ents.items() if doc == "docs/faq.md" and e["entity"] == "OutOfSync"
    ]
    assert code and "out of sync" in code[0]["entity_aliases"]
    # questions and generic labels are not entities
    assert not any(e["entity"].endswith("?") for e in ents.values())


@needs_argo
def test_d4_procedures_keep_step_order(argo_records: list[ChunkRecord]) -> None:
    procs = [r.model_dump() for r in by_layer(argo_records, "D4")]
    assert procs
    faq = [p for p in procs if p["doc_id"] == "docs/faq.md"]
    assert faq[0]["steps"][0].startswith("Reinstate/fix your repo")
    assert faq[0]["step_count"] == len(faq[0]["steps"]) >= 2


@needs_argo
def test_d5_relations_include_command_mentions(argo_records: list[ChunkRecord]) -> None:
    rel = {
        (r.doc_id, r.model_dump()["target_path"]): r.model_dump()
        for r in by_layer(argo_records, "D5")
    }
    parent = rel[
        ("docs/user-guide/commands/argocd_app_sync.md", "docs/user-guide/commands/argocd_app.md")
    ]
    assert "links_to" in parent["relations"]


@needs_argo
def test_real_token_counter_through_read_source(argo_subset: Path) -> None:
    result = read_source(argo_subset, "markdown", max_tokens=64, count=words)
    assert result.format == "markdown" and result.records


@needs_argo
@pytest.mark.slow
def test_whole_argocd_corpus_parses() -> None:
    records = read_markdown(ARGO)
    counts = Counter(r.model_dump()["layer"] for r in records)
    assert counts["D1"] == 455
    assert len({r.chunk_id for r in records}) == len(records)


# --- hand-made files -----------------------------------------------------------------------


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_hand_made_corpus(tmp_path: Path) -> None:
    write(
        tmp_path,
        "docs/guide/setup.md",
        "---\ntitle: Setting Up\ndomain: Platform\ntags: [intro]\n---\n"
        "Intro before any heading.\n\n"
        "## Install\n\nRun it.\n\n"
        "1. Download\n2. Unpack\n   ```sh\n   tar xf a.tgz\n   ```\n3. Run\n\n"
        "## Install\n\nSecond section with the same title, see [api](../api/orders.md#get) "
        "and [faq](../faq/) and [ext](https://example.com/x.md).\n\n"
        "Setext heading\n--------------\n\n| key | value |\n|---|---|\n| `a.b` | 1 |\n",
    )
    write(tmp_path, "docs/api/orders.md", "# Orders API\n\n`GET /api/v1/orders` lists orders.\n")
    write(
        tmp_path,
        "docs/faq/index.md",
        '# FAQ\n\n!!! note "Heads up"\n    indented note text\n\nAfter.\n',
    )
    write(tmp_path, "docs/empty.md", "")
    write(tmp_path, "node_modules/x.md", "# ignored\n")
    records = read_markdown(tmp_path, max_tokens=64, count=words)
    docs = {r.doc_id for r in records}
    assert docs == {
        "docs/guide/setup.md",
        "docs/api/orders.md",
        "docs/faq/index.md",
        "docs/empty.md",
    }

    setup = [r for r in by_layer(records, "D0") if r.doc_id == "docs/guide/setup.md"]
    assert {r.doc_title for r in setup} == {"Setting Up"}
    assert setup[0].metadata == {"domain": "platform"}  # front matter wins over the folder
    assert setup[0].tags == ["intro"]
    keys = [r.section_key for r in setup]
    assert keys[0] == "intro"
    assert "install" in keys and "install-2" in keys
    assert "setext-heading" in keys  # a setext H2: a sibling of the second Install
    # the fence nested in a list item is cut out as a block, the list stays prose around it
    fence = [r for r in setup if r.model_dump()["block_type"] == "code"]
    assert len(fence) == 1 and fence[0].text.startswith("```sh") and fence[0].chunk_kind == "block"
    table = [r for r in setup if r.model_dump()["block_type"] == "table"]
    assert len(table) == 1 and "`a.b`" in table[0].text
    links = {link for r in setup for link in r.model_dump()["links"]}
    assert links == {"docs/api/orders.md", "docs/faq/index.md"}

    faq = [r for r in by_layer(records, "D0") if r.doc_id == "docs/faq/index.md"]
    assert any("indented note text" in r.text and r.chunk_kind == "prose" for r in faq)

    empty = [r for r in records if r.doc_id == "docs/empty.md"]
    assert [r.model_dump()["layer"] for r in empty] == ["D1"]
    assert empty[0].doc_title == "empty"

    steps = [r.model_dump() for r in by_layer(records, "D4") if r.doc_id == "docs/guide/setup.md"]
    assert steps[0]["steps"] == ["Download", "Unpack", "Run"]
    facts = {r.model_dump()["fact"] for r in by_layer(records, "D2")}
    assert {"GET /api/v1/orders", "a.b", "tar xf"} <= facts


def test_single_file_and_errors(tmp_path: Path) -> None:
    write(tmp_path, "one.md", "# One\n\ntext\n")
    records = read_markdown(tmp_path / "one.md")
    assert {r.doc_id for r in records} == {"one.md"}
    with pytest.raises(ContractError, match="no .md files"):
        (tmp_path / "none").mkdir()
        read_markdown(tmp_path / "none")
    with pytest.raises(ContractError, match="no such file"):
        read_markdown(tmp_path / "missing")


def test_malformed_front_matter_is_ignored(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: [unclosed\n---\n# Real Title\n\nBody.\n")
    records = read_markdown(tmp_path)
    assert {r.doc_title for r in records} == {"Real Title"}


@pytest.mark.parametrize(
    ("source", "href", "expected"),
    [
        ("docs/faq.md", "user-guide/diffing.md", "docs/user-guide/diffing.md"),
        ("docs/user-guide/a.md", "../faq.md#x", "docs/faq.md"),
        ("docs/user-guide/a.md", "./diffing.md", "docs/user-guide/diffing.md"),
        ("docs/user-guide/a.md", "diffing", "docs/user-guide/diffing.md"),
        ("docs/user-guide/a.md", "../operator-manual/", "docs/operator-manual/index.md"),
        ("docs/user-guide/a.md", "/faq.md", "docs/faq.md"),
        ("docs/user-guide/a.md", "https://x.io/faq.md", None),
        ("docs/user-guide/a.md", "#local", None),
        ("docs/user-guide/a.md", "../../../outside.md", None),
    ],
)
def test_resolve_link(source: str, href: str, expected: str | None) -> None:
    ids = {"docs/faq.md", "docs/user-guide/diffing.md", "docs/operator-manual/index.md"}
    assert resolve_link(source, href, ids)[0] == expected


def test_slugs_and_anchors() -> None:
    assert slugify("Why is `X` stuck?") == "why-is-x-stuck"
    assert slugify("???") == "section"
    assert mkdocs_anchor("I've deleted/corrupted my repo") == "ive-deletedcorrupted-my-repo"
    doc = parse_markdown("# A\n## B\n## B\n", "x.md")
    assert [s.anchor for s in doc.sections] == ["a", "b", "b_1"]
    assert [s.key for s in doc.sections] == ["a", "a/b", "a/b-2"]


def test_mkdocs_content_tabs_are_their_label_and_content_not_indented_code() -> None:
    text = (
        '# Install\n\n=== "Linux"\n\n    Run the installer:\n\n    ```bash\n    sh get.sh\n'
        '    ```\n\n=== "Windows"\n\n    Use the MSI package.\n\nAfter that, check it.\n'
    )
    blocks = [(b.kind, b.text) for b in parse_markdown(text, "a.md").sections[0].blocks]
    assert blocks == [
        ("prose", "**Linux**"),
        ("prose", "Run the installer:"),
        ("code", "```bash\nsh get.sh\n```"),
        ("prose", "**Windows**"),
        ("prose", "Use the MSI package."),
        ("prose", "After that, check it."),
    ]


def test_container_directives_are_their_label_and_content() -> None:
    """Docusaurus / Starlight / VitePress ``:::`` blocks: the kind and title in bold, the
    content as prose, no ``:::`` left; inside fenced code they stay as written."""
    text = (
        "# Install\n\n:::tip Before you begin\n\nYou need a cluster.\n\n:::\n\n"
        ":::note[Did you know?]\nIt runs offline.\n:::\n\n::: warning\nNot as root.\n:::\n\n"
        "```md\n:::danger\nshown as written\n:::\n```\n"
    )
    doc = parse_markdown(text, "a.md")
    blocks = [(b.kind, b.text) for b in doc.sections[0].blocks]
    assert blocks == [
        ("prose", "**Tip: Before you begin**"),
        ("prose", "You need a cluster."),
        ("prose", "**Note: Did you know?**"),
        ("prose", "It runs offline."),
        ("prose", "**Warning**"),
        ("prose", "Not as root."),
        ("code", "```md\n:::danger\nshown as written\n:::\n```"),
    ]
    assert doc.first_paragraph == "You need a cluster."  # a label alone is no summary


def test_pymdownx_blocks_are_their_label_and_content() -> None:
    """FastAPI's pages write notes as ``/// note | Technical Details`` ... ``///`` (884
    chunks of its docs held the markers as text); inside fenced code they stay."""
    text = (
        "# Responses\n\n/// note | Technical Details\n\nYou could use Starlette's.\n\n///\n\n"
        "/// tip\nReturn it directly.\n///\n\n```rust\n/// a doc comment\nfn f() {}\n```\n"
    )
    doc = parse_markdown(text, "a.md")
    blocks = [(b.kind, b.text) for b in doc.sections[0].blocks]
    assert blocks == [
        ("prose", "**Note: Technical Details**"),
        ("prose", "You could use Starlette's."),
        ("prose", "**Tip**"),
        ("prose", "Return it directly."),
        ("code", "```rust\n/// a doc comment\nfn f() {}\n```"),
    ]


def test_details_blocks_are_their_summary_and_content() -> None:
    text = (
        "# FAQ\n\n<details>\n<summary>Why a <b>cache</b>?</summary>\n\n"
        "It is slow.\n\n</details>\n\n"
        "<details open><summary>Second</summary>\n\nMore.\n</details>\n"
    )
    blocks = [(b.kind, b.text) for b in parse_markdown(text, "a.md").sections[0].blocks]
    assert blocks == [
        ("prose", "**Why a cache?**"),
        ("prose", "It is slow."),
        ("prose", "**Second**"),
        ("prose", "More."),
    ]
