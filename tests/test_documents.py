"""Documents in (issue 35): real PDFs (made with reportlab), DOCX (python-docx), HTML,
MDX and text parsed for real, through the Markdown path to chunk records."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner
from docx import Document
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.pdfgen import canvas
from reportlab.platypus import Image, PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

from sectio import Sectio, Settings
from sectio.cli import cli
from sectio.errors import ContractError
from sectio.ingest.detect import detect_source
from sectio.ingest.documents.html import html_to_markdown
from sectio.ingest.documents.mdx import has_esm, strip_mdx
from sectio.ingest.embedding import long_record_warning, plan_dense, unread_text
from sectio.ingest.markdown import carry_provenance, read_markdown
from sectio.ingest.readers import read_source
from sectio.integrations.base import chunk_metadata

GRID = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])


def _d0(records: list) -> list:
    return [r for r in records if getattr(r, "layer", None) == "D0"]


def _label_pdf(path: Path) -> Path:
    """A two-page drug label: title, numbered headings, a ruled table, a merged-cell table."""
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    story = [
        Paragraph("Amoxicillin Capsules", styles["Title"]),
        Paragraph("1. Indications and Usage", styles["Heading1"]),
        Paragraph("Amoxicillin treats infections of the ear, nose and throat. " * 4, body),
        Paragraph("2. Dosage and Administration", styles["Heading1"]),
        Paragraph("2.1 Adults", styles["Heading2"]),
        Paragraph("Adults take 500 mg every 12 hours with food. " * 3, body),
        Table([["Age", "Dose"], ["Adult", "500 mg"], ["Child", "25 mg/kg"]], style=GRID),
        PageBreak(),
        Paragraph("3. Storage", styles["Heading1"]),
        Paragraph("Store the capsules below 25 degrees, away from light. " * 3, body),
        Table(
            [["Strength", "Pack", ""], ["250 mg", "blister", "bottle"], ["500 mg", "blister", "x"]],
            style=TableStyle([*GRID.getCommands(), ("SPAN", (1, 0), (2, 0))]),
        ),
    ]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path


def _scanned_pdf(path: Path, tmp: Path) -> Path:
    """A page that is only an image: no text layer."""
    from PIL import Image as PILImage

    png = tmp / "scan.png"
    PILImage.new("RGB", (400, 300), "white").save(png)
    SimpleDocTemplate(str(path), pagesize=A4).build([Image(str(png), 400, 300)])
    return path


def test_pdf_headings_pages_and_tables(tmp_path: Path) -> None:
    records = read_markdown(tmp_path, files=[_label_pdf(tmp_path / "label.pdf")])
    d0 = _d0(records)
    titles = {t for r in d0 for t in r.model_dump()["heading_path"]}
    assert d0[0].doc_title == "Amoxicillin Capsules"
    assert titles == {
        "1. Indications and Usage",
        "2. Dosage and Administration",
        "2.1 Adults",
        "3. Storage",
    }
    adults = next(r for r in d0 if r.section_title == "2.1 Adults" and r.chunk_kind == "prose")
    assert adults.model_dump()["heading_path"][-2:] == [
        "2. Dosage and Administration",
        "2.1 Adults",
    ]
    by_page = {r.source_refs[0].page for r in d0 if r.section_title == "3. Storage"}
    assert by_page == {2} and adults.source_refs[0].page == 1
    assert adults.source_refs[0].url == "label.pdf#page=1"
    tables = [r for r in d0 if r.model_dump()["block_type"] == "table"]
    assert len(tables) == 2 and all(t.chunk_kind == "block" for t in tables)
    whole, merged = sorted(tables, key=lambda t: t.source_refs[0].page)
    assert "| Adult | 500 mg |" in whole.text and not whole.requires_visual_check
    assert merged.requires_visual_check and merged.source_refs[0].page == 2
    prose = [r for r in d0 if r.chunk_kind == "prose"]
    assert not any(r.requires_visual_check for r in prose)
    storage = next(r for r in records if r.chunk_id == "d3:label.pdf:3. Storage")
    assert storage.source_refs[0].page == 2
    assert not any("500 mg |" in r.text for r in prose)  # a table is never part of prose


def test_derived_entries_carry_the_page_and_the_flag() -> None:
    from sectio.contract.record import ChunkRecord

    def rec(chunk_id: str, **extra: object) -> ChunkRecord:
        base = {"doc_id": "a.pdf", "section_key": "s", "part_index": 0, "text": chunk_id}
        return ChunkRecord.model_validate({"chunk_id": chunk_id, **base, **extra})

    table = rec("t", requires_visual_check=True, source_refs=[{"source": "a.pdf", "page": 3}])
    fact = rec("f", layer="D2", dense_from="t", source_refs=[{"source": "a.pdf"}])
    other = rec("o", layer="D2", source_refs=[{"source": "a.pdf"}])
    got = {r.chunk_id: r for r in carry_provenance([table], [fact, other])}
    assert got["f"].requires_visual_check and got["f"].source_refs[0].page == 3
    assert not got["o"].requires_visual_check and got["o"].source_refs[0].page is None


def test_pdf_unit_labels_open_the_heading_they_label(tmp_path: Path) -> None:
    # a regulation's layout: "Article N" set as text, its title in bold, each its own box
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    story = [Paragraph("REGULATION (EU) 2099/1 on brewing", styles["Title"])]
    for n, title in enumerate(("Subject matter", "Scope", "Records"), 1):
        story += [Paragraph(f"<i>Article {n}</i>", body), Paragraph(f"<b>{title}</b>", body)]
        story += [
            Paragraph(f"{k}. Rule {k} of article {n} on {title.lower()}.", body) for k in (1, 2)
        ]
    path = tmp_path / "regulation.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    titles = {r.section_title for r in _d0(read_source(path).records)}
    assert {"Article 1 - Subject matter", "Article 2 - Scope", "Article 3 - Records"} <= titles
    assert "Scope" not in titles and "Article 2" not in titles


def test_pdf_a_label_after_a_label_in_one_box_is_no_title(tmp_path: Path) -> None:
    # "CHAPTER II" and "Article 5" set as two lines of one box: the second is the
    # article's own label (titled by the bold line after it), not the chapter's title
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    story = [
        Paragraph("REGULATION (EU) 2099/2 on milling", styles["Title"]),
        Paragraph("CHAPTER II<br/>Article 5", body),
        Paragraph("<b>Prohibited practices</b>", body),
        Paragraph("1. Grinding stones shall not be painted.", body),
    ]
    path = tmp_path / "milling.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    (rule,) = _d0(read_source(path).records)
    # the article stands at its unit's level, under the chapter, not at its bold title's
    assert rule.heading_path[-2:] == ["CHAPTER II", "Article 5 - Prohibited practices"]


def test_pdf_outline_gives_the_headings(tmp_path: Path) -> None:
    path = tmp_path / "spec.pdf"
    c = canvas.Canvas(str(path))
    for page, (title, text) in enumerate(
        [("Scope", "This standard covers valves."), ("Terms", "A valve is a device.")]
    ):
        c.setFont("Helvetica", 10)  # headings set like body text: only the outline knows
        c.drawString(72, 750, title)
        c.drawString(72, 730, text)
        c.bookmarkPage(f"p{page}")
        c.addOutlineEntry(title, f"p{page}", level=0)
        c.showPage()
    c.save()
    d0 = _d0(read_markdown(path))
    assert [(r.section_title, r.source_refs[0].page) for r in d0] == [("Scope", 1), ("Terms", 2)]


def test_scanned_pdf_is_refused_alone_and_listed_in_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    scan = _scanned_pdf(folder / "scan.pdf", tmp_path)
    with pytest.raises(ContractError, match=r"scan.pdf: no text layer on any of its 1 pages"):
        read_source(scan)
    (folder / "notes.txt").write_text("# not a heading\n\n    not code either\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "fake.pdf").write_text("just text")
    result = read_source(folder)
    assert result.detected.startswith("markdown: 1 text file; ignored 1 file: logo.png (an image)")
    assert "refused 2 files" in result.detected
    assert dict(result.refused) == {
        "fake.pdf": "named .pdf but not a PDF file",
        "scan.pdf": "no text layer on any of its 1 pages (a scanned PDF?); "
        "OCR it first (e.g. ocrmypdf) and ingest the result",
    }
    (text,) = _d0(result.records)
    assert text.text == "\\# not a heading\n\nnot code either" and text.chunk_kind == "prose"


HTML = """<!doctype html><html><head><title>Help - Install</title></head><body>
<header><a href="/">Home</a> | <a href="/blog">Blog</a></header>
<nav><ul><li>Sidebar link</li></ul></nav>
<main><h1 id="install">Install the app</h1><p>Download the installer.</p>
<section id="windows"><h2>On Windows</h2><p>Run <code>setup.exe</code> as an administrator.</p>
<table><tr><th>Edition</th><th>Size</th></tr><tr><td colspan="2">unknown</td></tr></table></section>
<h2><a id="mac"></a>On macOS</h2><p>Drag the app to Applications.</p>
<figure><img src="arch.png"><figcaption>How it fits together</figcaption></figure>
<h3>Updates</h3><p>The app updates itself.</p>
</main><footer>Copyright</footer></body></html>"""


def test_html_content_anchors_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "install.html"
    path.write_text(HTML)
    assert detect_source(path).reason == "markdown: install.html is an HTML page"
    d0 = _d0(read_source(path).records)
    text = "\n".join(r.text for r in d0)
    assert "Sidebar link" not in text and "Copyright" not in text and "Blog" not in text
    refs = {r.section_title: r.source_refs[0] for r in d0}
    assert refs["On Windows"].url == "install.html#windows"
    assert refs["On macOS"].url == "install.html#mac"
    assert refs["Updates"].url == "install.html#mac"  # no id of its own: the nearest above
    flagged = [r for r in d0 if r.requires_visual_check]
    assert {r.section_title for r in flagged} == {"On Windows", "On macOS"}
    assert all(r.chunk_kind == "block" for r in flagged)
    assert any("How it fits together" in r.text for r in flagged)


#: A Sphinx page's HTML: inline code as ``<code>`` / ``<tt>``, a term led in bold.
CODE_HTML = """<html><body><div class="body" role="main">
<h1>Errors</h1>
<p>Call <code class="docutils literal"><span class="pre">Response.raise_for_status</span></code>
to raise on a 4xx or 5xx answer.</p>
<h2>Timeouts</h2>
<p><strong>Timeout</strong>: how long to wait. Pass <tt>timeout=</tt> to any call; a
call with no <tt>timeout=</tt> waits forever.</p>
<ul><li>With <a href="api.html#r"><code>Response.raise_for_status</code></a> again.</li></ul>
</div></body></html>"""


def test_html_code_spans_and_bold_terms_are_marked_as_markdown_writes_them(
    tmp_path: Path,
) -> None:
    """An HTML page (a Sphinx site's, a reStructuredText page through docutils) keeps its
    code spans in backticks and its bold in stars, so it gets what a Markdown page does:
    the evidence shows code as code, and the catalog has its identifiers and terms (a code
    span written twice, a term led in bold). Before, both were read as plain words."""
    path = tmp_path / "errors.html"
    path.write_text(CODE_HTML, encoding="utf-8")
    records = read_source(path).records
    text = " ".join(" ".join(r.text for r in _d0(records)).split())
    assert "Call `Response.raise_for_status` to raise" in text
    assert "**Timeout**: how long to wait. Pass `timeout=` to any call" in text
    assert "- With `Response.raise_for_status` again." in text
    entities = {(r.entity, r.entity_kind) for r in records if getattr(r, "layer", None) == "D3"}
    assert ("Response.raise_for_status", "code") in entities
    assert ("Timeout", "glossary") in entities
    odd = html_to_markdown(
        "<p>Use <code>a``b</code>, <code>``x</code> and a <b>*</b> required field.</p>"
        "<div><code><pre>def f():\n    return 1</pre></code></div>"
    ).markdown
    assert "Use ```a``b```, ``` ``x ``` and a * required field." in odd  # fences, no stars
    assert "def f():\n" in odd  # a block inside code keeps its lines
    rst = tmp_path / "guide.rst"
    rst.write_text("Guide\n=====\n\nSend cookies with ``cookies=`` and **bold** words.\n")
    assert "Send cookies with `cookies=` and **bold** words." in "\n".join(
        r.text for r in _d0(read_source(rst).records)
    )


#: Admonitions as HTML writes them: Sphinx's and MkDocs Material's box, GitHub's alert.
ADMONITION_HTML = """<html><body><main>
<h1>Sessions</h1>
<p>A session keeps cookies and pooled connections across calls of one client.</p>
<div class="admonition warning"><p class="admonition-title">Warning</p>
<p>Never turn off <code>verify</code> in production.</p></div>
<p>Close the session when the work is done.</p>
<div class="markdown-alert markdown-alert-tip"><p class="markdown-alert-title">Tip</p>
<p>Use it as a context manager.</p></div>
</main></body></html>"""


def test_an_html_or_rst_admonition_is_a_note_of_its_own(tmp_path: Path) -> None:
    """A note or a warning box of a Sphinx, MkDocs or GitHub page (and a ``.. warning::``
    of a ``.rst`` page, which docutils writes as one) is read as the Markdown reader reads a
    note: a quote led by its label in bold, a chunk of its own, never packed with the
    prose around it. Before, its title was a paragraph ("Warning") and its text packed
    with its neighbours."""
    path = tmp_path / "sessions.html"
    path.write_text(ADMONITION_HTML, encoding="utf-8")
    texts = [r.text for r in _d0(read_source(path).records)]
    assert "> **Warning**\n>\n> Never turn off `verify` in production." in texts
    assert "> **Tip**\n>\n> Use it as a context manager." in texts
    assert not any("Warning" in t and "cookies" in t for t in texts)
    rst = tmp_path / "sessions.rst"
    rst.write_text(
        "Sessions\n========\n\nA session keeps cookies.\n\n.. note::\n\n   Close it.\n\n"
        "   .. code-block:: python\n\n      s.close()\n\nMore prose.\n"
    )
    boxed = tmp_path / "boxed.html"
    boxed.write_text(
        '<main><h1>Limits</h1><div class="admonition note"><p class="admonition-title">Note'
        '</p><table><tr><th colspan="2">Both</th></tr><tr><td>1</td><td>2</td></tr></table>'
        "</div></main>",
        encoding="utf-8",
    )
    flagged = [r for r in _d0(read_source(boxed).records) if r.requires_visual_check]
    assert flagged and "| Both |" in flagged[0].text  # a box's merged table keeps its flag
    notes = [r.text for r in _d0(read_source(rst).records) if r.text.startswith("> **Note**")]
    assert len(notes) == 1 and "Close it." in notes[0] and "cookies" not in notes[0]
    assert "```python\ns.close()\n```" in [r.text for r in _d0(read_source(rst).records)]


#: A regulation as the Official Journal's HTML writes it: its units are styled paragraphs
#: (a label, then a title in its own element), not ``h1``-``h6``.
OJ_HTML = """<html><head><title>L_202401689EN.000101.fmx.xml</title></head><body>
<p class="oj-doc-ti">REGULATION (EU) 2099/1 on brewing</p>
<div id="cpt_I"><p class="oj-ti-section-1">CHAPTER&#160;I</p>
<div class="eli-title"><p class="oj-ti-section-2"><span>GENERAL PROVISIONS</span></p></div>
<div id="art_1"><p class="oj-ti-art">Article&#160;1</p>
<div class="eli-title"><p class="oj-sti-art">Subject matter</p></div>
<p class="oj-normal">1.   This Regulation lays down rules on brewing.</p></div>
<div id="art_2"><p class="oj-ti-art">Article 2</p>
<div class="eli-title"><p class="oj-sti-art">Scope</p></div>
<p class="oj-normal">It applies to breweries in the Union.</p>
<p class="oj-normal">Article 1 shall apply.</p></div></div>
<p class="oj-doc-ti">ANNEX I</p><p class="oj-doc-ti">List of hops</p>
<p class="oj-normal">Saaz and Hallertau.</p>
</body></html>"""


def test_a_legal_texts_unit_labels_are_headings(tmp_path: Path) -> None:
    path = tmp_path / "regulation.html"
    path.write_text(OJ_HTML, encoding="utf-8")
    d0 = _d0(read_source(path).records)
    by_title = {r.section_title: r for r in d0}
    assert set(by_title) >= {
        "Article 1 - Subject matter",
        "Article 2 - Scope",
        "ANNEX I - List of hops",
    }
    scope = by_title["Article 2 - Scope"]
    assert scope.heading_path[:2] == ["CHAPTER I - GENERAL PROVISIONS", "Article 2 - Scope"]
    assert "Article 1 shall apply." in scope.text  # a sentence that starts with a label
    assert by_title["ANNEX I - List of hops"].heading_path == ["ANNEX I - List of hops"]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(path, collection="reg")
        asked = sx.ask("what does article 2 say", collection="reg", record=False)
    assert asked.resolved_section_key is not None and "article-2" in asked.resolved_section_key


def test_docx_headings_tables_and_provenance(tmp_path: Path) -> None:
    doc = Document()
    doc.add_heading("Employee Handbook", 0)
    doc.add_heading("Leave", 1)
    doc.add_paragraph("Staff get 25 days of paid leave a year.")
    doc.add_heading("Sick leave", 2)
    doc.add_paragraph("Report sickness before 9am.")
    table = doc.add_table(rows=3, cols=2)
    for i, row in enumerate([("Years", "Days"), ("0-5", "25"), ("5+", "30")]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    merged = doc.add_table(rows=2, cols=2)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Both"
    path = tmp_path / "handbook.docx"
    doc.save(str(path))
    d0 = _d0(read_source(path).records)
    assert d0[0].doc_title == "Employee Handbook"
    sick = [r for r in d0 if r.section_title == "Sick leave"]
    assert sick[0].model_dump()["heading_path"] == ["Leave", "Sick leave"]
    assert sick[0].source_refs[0].model_dump()["heading"] == "Sick leave"
    tables = [r for r in sick if r.chunk_kind == "block"]
    assert "| 5+ | 30 |" in tables[0].text and not tables[0].requires_visual_check
    assert tables[1].requires_visual_check  # merged cells


def test_copies_in_other_languages_are_read_and_named(sectio: Sectio, tmp_path: Path) -> None:
    """A site's translations are all read (the user chose the folder), and the report names
    the folders of copies: one language, or each as its own tenant, answers better."""
    site = tmp_path / "site"
    for lang in ("", "de/", "ja/"):
        for page in ("install", "upgrade", "faq"):
            (site / f"{lang}{page}.md").parent.mkdir(parents=True, exist_ok=True)
            (site / f"{lang}{page}.md").write_text(f"# {page}\n\nText of {lang or 'en'} {page}.\n")
    report = sectio.ingest(site)
    assert report.collection_count > 0
    assert [w for w in report.warnings if "copies" in w] == [
        "2 folders hold copies of the same pages in other languages or versions (de, ja): "
        "each copy is a document of its own, so a heading they share names no page and "
        "evidence may come from any copy; ingest one language or version, or each as its "
        "own tenant (--tenant)"
    ]
    alone = tmp_path / "alone"
    (alone / "ml").mkdir(parents=True)
    for rel in ("index.md", "ml/index.md", "ml/train.md", "ml/serve.md"):
        (alone / rel).write_text("# Page\n\nText.\n")
    assert not [w for w in sectio.ingest(alone, collection="alone").warnings if "copies" in w]


def test_mdx_tree_strips_jsx_keeps_text(tmp_path: Path) -> None:
    docs = tmp_path / "site"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "install.mdx").write_text(
        "---\ntitle: Install\n---\nimport {Note} from './note.jsx'\n"
        "export const meta = {\n  authors: ['a'],\n}\n\n# Install\n\n"
        '<Note type="tip">\n  Use the LTS release.\n</Note>\n\n{/* hidden */}\n\n'
        "```jsx\n<Button />\n```\n"
    )
    (docs / "index.md").write_text("# Home\n\nWelcome.\n")
    (docs / "note.jsx").write_text("export const Note = () => null\n")
    result = read_source(docs)
    assert result.detected == (
        "markdown: 1 Markdown file, 1 MDX file; ignored 1 file: note.jsx (code or a site asset)"
    )
    d0 = [r for r in _d0(result.records) if r.doc_id == "guide/install.mdx"]
    assert d0[0].doc_title == "Install"
    text = "\n".join(r.text for r in d0)
    assert "Use the LTS release." in text and "<Note" not in text and "authors" not in text
    assert "<Button />" in text  # code is code
    assert strip_mdx("a\n<X/>\nb").count("\n") == 2  # line numbers kept


def test_markdown_that_imports_as_mdx_is_read_as_mdx(tmp_path: Path) -> None:
    """Docusaurus reads every .md page as MDX: its imports and components are no prose."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.md").write_text(
        "---\ntitle: API\n---\n\nimport TOCInline from '@theme/TOCInline';\n\n"
        "<TOCInline toc={toc.slice(1)} />\n\n## Methods\n\nCall `run()`.\n\n"
        "```js\nimport x from 'y';\n```\n"
    )
    (docs / "plain.md").write_text("# Plain\n\nWrite <Kbd>Ctrl</Kbd> here.\n")
    text = "\n".join(r.text for r in _d0(read_source(docs).records))
    assert "TOCInline" not in text and "Call `run()`." in text
    assert "import x from 'y';" in text  # code is code
    assert "<Kbd>Ctrl</Kbd>" in text  # a page that imports nothing is Markdown, as written
    assert has_esm("import Tabs from '@theme/Tabs';\n") and not has_esm("```\nimport a\n```")


def test_mdx_tags_over_several_lines_and_in_code_spans() -> None:
    """A component whose attributes take several lines (braces, template strings, blank
    lines inside them) is one tag; a tag written inside inline code is text."""
    text = (
        "## `<Aside>` Props\n\nUse the `<Aside>` component.\n\n<LinkCard\n"
        '\ttitle="Customizing"\n\tdescription="Make the site your own."\n'
        "\tstyle={{ fontStyle: 'italic' }}\n/>\n\n<Code\n\tcode={`## Hi\n\nthere`}\n/>\n"
        "<Icons labels={{ copied: 'Copied!' }} /> after\n<Note>Be careful.</Note>\n"
    )
    out = strip_mdx(text)
    assert out.count("\n") == text.count("\n")  # line numbers kept
    lines = [line for line in out.split("\n") if line.strip()]
    assert lines == [
        "## `<Aside>` Props",
        "Use the `<Aside>` component.",
        "**Customizing** Make the site your own.",
        "after",
        "Be careful.",
    ]


def test_mdx_labelled_tags_keep_their_label() -> None:
    """A tab's or an accordion's label says what its content is for: kept in bold."""
    text = (
        '<Tabs>\n<TabItem value="mac" label="macOS">\n\nUse Homebrew.\n\n</TabItem>\n'
        "<Accordion title={'Pricing'}>Free.</Accordion>\n<Card title=\"\">x</Card>\n</Tabs>\n"
    )
    assert strip_mdx(text).split("\n") == [
        "",
        "**macOS**",
        "",
        "Use Homebrew.",
        "",
        "",
        "Free.",
        "x",
        "",
        "",
    ]


def test_verify_source_with_the_page_end_to_end(sectio: Sectio, tmp_path: Path) -> None:
    folder = tmp_path / "labels"
    folder.mkdir()
    _label_pdf(folder / "label.pdf")
    report = sectio.ingest(folder)
    assert report.format == "markdown" and report.detected == "markdown: 1 PDF"
    result = sectio.ask("label.pdf storage strength pack blister bottle")
    assert (result.decision, result.reason) == ("VERIFY_SOURCE", "visual_verification_required")
    flagged = [e for e in result.evidence if e.requires_visual_check]
    assert [e.source_refs[0].page for e in flagged] == [2]  # the page to look at
    found = sectio.search("blister bottle strength", top_k=5)
    table = next(h for h in found.hits if h.requires_visual_check)
    assert table.source_refs[0].page == 2 and table.chunk_kind == "block"
    assert chunk_metadata(table, found)["page"] == "2"  # what the framework integrations show


def test_cli_json_lists_ignored_and_refused(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nText.\n")
    (folder / "b.png").write_bytes(b"\x89PNG")
    _scanned_pdf(folder / "scan.pdf", tmp_path)
    home = tmp_path / "home"
    env = {"SECTIO_HOME": str(home), "SECTIO_EMBEDDER": "fake"}
    out = CliRunner().invoke(cli, ["ingest", str(folder), "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["ignored"] == [{"path": "b.png", "why": "an image"}]
    assert [r["path"] for r in data["refused"]] == ["scan.pdf"]


def test_long_records_warn_what_the_model_does_not_read(
    sectio: Sectio, caplog: pytest.LogCaptureFixture
) -> None:
    from sectio.contract.record import ChunkRecord

    embedder = sectio.embedder
    reads = embedder.max_length - 2
    long_text = " ".join(f"word{i}" for i in range(reads * 2))
    records = [
        ChunkRecord(chunk_id="a", doc_id="d", section_key="s", part_index=0, text=long_text),
        ChunkRecord(chunk_id="b", doc_id="d", section_key="s", part_index=1, text="short"),
    ]
    plan = plan_dense(records, [r.index_text() for r in records])
    n, cut, total = unread_text(plan, embedder)
    assert n == 1 and cut == total - reads and cut > 0
    with caplog.at_level(logging.WARNING, logger="sectio.ingest"):
        from sectio.ingest.embedding import embed_records
        from sectio.ingest.phases import PhaseClock

        embed_records(records, [r.index_text() for r in records], embedder, PhaseClock())
    assert long_record_warning(n, cut, total, embedder.max_length) in caplog.text


def _cost_table_pdf(path: Path) -> Path:
    """A Federal Register cost table: rules above and below the header and under the
    table, thin rules between the columns, none at the sides or between rows."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    c.drawString(72, 760, "The FAA estimates the costs of compliance as follows.")
    cols, x0, x1 = [72, 200, 330, 450], 60, 560
    rows = [
        ("Action", "Labor cost", "Parts cost", "Cost"),
        ("Wiring change", "79 hours", "$3,790", "$10,505"),
        ("Sensor test", "40 hours", "$0", "$3,400"),
    ]
    top = 720
    c.line(x0, top, x1, top)
    c.line(x0, top - 20, x1, top - 20)
    for i, row in enumerate(rows):
        y = top - 14 - 20 * i
        for x, text in zip(cols, row, strict=True):
            c.drawString(x, y, text)
        for x in cols[1:]:  # the column rules of this row, one segment each
            c.line(x - 6, top - 20 * i, x - 6, top - 20 * (i + 1))
    c.line(x0, top - 60, x1, top - 60)
    c.drawString(72, 620, "Costs are estimates only.")
    c.showPage()
    c.save()
    return path


def test_pdf_table_ruled_by_columns_only_is_read_whole_and_flagged(tmp_path: Path) -> None:
    records = _d0(read_markdown(tmp_path, files=[_cost_table_pdf(tmp_path / "costs.pdf")]))
    (table,) = [r for r in records if r.model_dump()["block_type"] == "table"]
    assert "| Action | Labor cost | Parts cost | Cost |" in table.text  # the outer columns too
    assert "| Wiring change | 79 hours | $3,790 | $10,505 |" in table.text
    assert "| Sensor test | 40 hours | $0 | $3,400 |" in table.text
    assert table.requires_visual_check and table.source_refs[0].page == 1
    prose = " ".join(r.text for r in records if r.chunk_kind == "prose")
    assert "Wiring change" not in prose and "Costs are estimates only." in prose


def test_pdf_table_with_an_unruled_column_is_flagged(tmp_path: Path) -> None:
    path = tmp_path / "grid.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    xs, ys = [60, 160, 400], [700, 680, 660, 640]
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    for i, (name, left, right) in enumerate(
        [("Dose", "Adult", "Child"), ("Low", "5 mg", "2 mg"), ("High", "10 mg", "4 mg")]
    ):
        y = ys[i] - 14
        c.drawString(66, y, name)
        c.drawString(166, y, left)
        c.drawString(300, y, right)  # a second column inside one ruled cell
    c.showPage()
    c.save()
    (table,) = [r for r in _d0(read_markdown(path)) if r.model_dump()["block_type"] == "table"]
    assert "| Low | 5 mg 2 mg |" in table.text and table.requires_visual_check


def test_pdf_headings_two_line_titles_and_sub_numbers(tmp_path: Path) -> None:
    """A bold title over two lines is one heading; ``5.1 Governance`` set as text
    under the bold ``5. DISCUSSION`` is a heading one level down."""
    path = tmp_path / "agenda.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    y = 780

    def put(text: str, font: str = "Helvetica", gap: int = 14) -> None:
        nonlocal y
        c.setFont(font, 10)
        c.drawString(72, y, text)
        y -= gap

    put("Airworthiness Directives; The Boeing", "Helvetica-Bold")
    put("Company Airplanes", "Helvetica-Bold", 28)
    for n, title in ((4, "REPORT"), (5, "DISCUSSION")):
        put(f"{n}. {title}", "Helvetica-Bold", 28)
        put(f"{n}.1 Board Governance" if n == 5 else "The report was read.", gap=28)
        for _ in range(3):
            put("The board discussed the items of the agenda in the order given.")
        y -= 14
    c.showPage()
    c.save()
    d0 = _d0(read_markdown(path))
    paths = {tuple(r.model_dump()["heading_path"]) for r in d0}
    assert {r.doc_title for r in d0} == {"Airworthiness Directives; The Boeing Company Airplanes"}
    assert any(p[-2:] == ("5. DISCUSSION", "5.1 Board Governance") for p in paths)
    assert not any("The report was read." in p for p in paths)


def test_pdf_outline_entry_not_on_its_page_is_kept_in_order(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    c = canvas.Canvas(str(path))
    c.setFont("Helvetica", 10)
    for page, (title, heading) in enumerate(
        [("Line Width", "Line Width"), ("Create Curves", "Drawing Curves")]
    ):
        c.drawString(72, 750, heading)  # page 2's bookmark is not its text
        c.drawString(72, 730, f"Text about {heading.lower()}.")
        c.bookmarkPage(f"p{page}")
        c.addOutlineEntry(title, f"p{page}", level=0)
        c.showPage()
    c.save()
    d0 = _d0(read_markdown(path))
    got = [(r.section_title, r.source_refs[0].page) for r in d0 if r.chunk_kind == "prose"]
    assert got == [("Line Width", 1), ("Create Curves", 2)]
    assert "Text about drawing curves." in next(
        r.text for r in d0 if r.section_title == "Create Curves"
    )


def test_pdf_vector_drawing_is_a_flagged_figure(tmp_path: Path) -> None:
    path = tmp_path / "shapes.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    c.drawString(72, 780, "The shapes the tool draws:")
    for i in range(6):
        c.circle(100 + 70 * i, 600, 25)
    c.showPage()
    c.save()
    d0 = _d0(read_markdown(path))
    (figure,) = [r for r in d0 if r.chunk_kind == "block"]
    assert "a drawing (vector graphics)" in figure.text and figure.requires_visual_check
    assert figure.source_refs[0].page == 1


def test_html_table_of_status_icons_is_flagged_and_checkboxes_read(tmp_path: Path) -> None:
    page = tmp_path / "status.html"
    page.write_text(
        "<html><body><h1>Status</h1><table><tr><th>Task</th><th>Done</th></tr>"
        '<tr><td>Load map</td><td><img src="tick.png"></td></tr></table>'
        "<h2>Checks</h2><table><tr><th>Check</th><th>Yes</th><th>No</th></tr>"
        '<tr><td>Literature only?</td><td><input type="checkbox"></td>'
        '<td><input type="checkbox" checked="checked"></td></tr></table></body></html>'
    )
    d0 = _d0(read_markdown(page))
    icons, checks = (r for r in d0 if r.chunk_kind == "block")
    assert "| Load map |  |" in icons.text and icons.requires_visual_check
    assert "| Literature only? | [ ] | [x] |" in checks.text and not checks.requires_visual_check


def test_docx_form_checkboxes_keep_their_state() -> None:
    """A real Word form (benchmarks/data/documents/docx/test07.docx): its legacy
    check-box fields come through mammoth as inputs and keep whether they are ticked."""
    path = Path(__file__).parent.parent / "benchmarks/data/documents/docx/test07.docx"
    text = "\n".join(r.text for r in _d0(read_markdown(path)))
    assert "| Is the research solely literature-based? | [ ] | [x] |" in text


def test_pdf_transcript_line_numbers_dropped_lines_joined_title_from_metadata(
    tmp_path: Path,
) -> None:
    """A double-spaced transcript page: its margin line numbers are not text, a sentence
    broken over lines is one paragraph, and the metadata's title names the document
    (a "Microsoft Word - x.doc" title does not)."""
    path = tmp_path / "transcript.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle("Knowles v. Mirzayance oral argument")
    lines = [
        "The above-entitled matter came on for oral",
        "argument before the Supreme Court of the United States",
        "at 1:01 p.m.",
        "APPEARANCES:",
        "STEVEN E. MERCER, ESQ., on behalf of the Petitioner.",
    ]
    for i in range(12):
        y = 760 - 28 * i  # double spaced: each line its own text box
        c.setFont("Helvetica", 10)
        c.drawString(40, y, str(i + 1))
        if i < len(lines):
            c.drawString(100, y, lines[i])
    c.showPage()
    c.save()
    d0 = _d0(read_markdown(path))
    text = "\n".join(r.text for r in d0)
    assert (
        "The above-entitled matter came on for oral argument before the Supreme Court "
        "of the United States at 1:01 p.m." in text
    )
    assert not any(line.strip().isdigit() for line in text.splitlines())
    assert {r.doc_title for r in d0} == {"Knowles v. Mirzayance oral argument"}
    word = tmp_path / "word.pdf"
    c = canvas.Canvas(str(word), pagesize=A4)
    c.setTitle("Microsoft Word - AGENDA 040616.doc")
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "Board Agenda")
    c.setFont("Helvetica", 10)
    c.drawString(72, 730, "The board meets at noon.")
    c.showPage()
    c.save()
    assert {r.doc_title for r in _d0(read_markdown(word))} == {"Board Agenda"}


def test_pdf_table_words_set_with_narrow_gaps_are_read_apart(tmp_path: Path) -> None:
    """A PDF that sets the spaces of its table as 2-point gaps (the Senate's expense
    report): its cells are read with their words apart, not run together."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    path = tmp_path / "expenses.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    xs, ys = [60, 200, 540], [700, 680, 660, 640]
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    rows = [
        ("PAYEE", "DESCRIPTION"),
        ("CITIBANK", "AIRFARE FOR SENATOR HAWLEY WASHINGTON TO SAINT LOUIS"),
        ("AMTRAK", "TRAINFARE FOR STAFFER JOHNSON KANSAS CITY TO WASHINGTON"),
    ]
    c.setFont("Helvetica", 8)
    for i, row in enumerate(rows):
        for x, text in zip(xs, row, strict=False):
            at = x + 4
            for word in text.split():
                c.drawString(at, ys[i] - 14, word)
                at += stringWidth(word, "Helvetica", 8) + 2  # a 2-point gap, no space
    c.showPage()
    c.save()
    (table,) = [r for r in _d0(read_markdown(path)) if r.model_dump()["block_type"] == "table"]
    assert "AIRFARE FOR SENATOR HAWLEY WASHINGTON TO SAINT LOUIS" in table.text
