"""Documents as a system's doc folder holds them (``/usr/share/doc/<package>``):
gzip-compressed text and Markdown, ``README``/``copyright``/``NEWS.Debian`` with no
document ending, reStructuredText, Latin-1 text; parsed for real to chunk records."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from sectio.errors import ContractError
from sectio.ingest.detect import detect_source
from sectio.ingest.documents import named_kind
from sectio.ingest.documents.text import text_to_markdown
from sectio.ingest.readers import read_source
from sectio.ingest.sources import read_text

RST = """\
=========
Frobnicator
=========

The frobnicator frobs widgets. See :ref:`usage <usage>`.

.. toctree::

   usage

Installation
============

.. code-block:: bash

   pip install frob

Options
-------

* ``--fast``: frob quickly

.. note:: Widgets must be dry.
"""

README = """\
Frob for Debian
===============

Frob is packaged with its plugins split out.

Configuration
-------------
The daemon reads /etc/frob.conf at start.
Restart it after a change.

 -- Jane Doe <jane@example.org>, Mon, 01 Jan 2024 10:00:00 +0000
"""


CHANGELOG = """\
frob (1.2-1) unstable; urgency=low

  * New upstream.
  * Drop the caf\u00e9 mode.

 -- Jane Doe <jane@example.org>  Mon, 01 Jan 2024 10:00:00 +0000

frob (1.1-2) unstable; urgency=medium

  * Fix the daemon's restart (Closes: #1234).

 -- Jane Doe <jane@example.org>  Mon, 01 Dec 2023 10:00:00 +0000
"""


def _gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode()))
    return path


def _package(root: Path) -> Path:
    pkg = root / "frob"
    pkg.mkdir(parents=True)
    (pkg / "README.Debian").write_text(README)
    (pkg / "copyright").write_text("Files: *\nCopyright: 2024 Jane Doe\nLicense: MIT\n")
    _gz(pkg / "changelog.Debian.gz", CHANGELOG)
    _gz(pkg / "README.md.gz", "# Frob\n\n## Plugins\n\nPlugins live in /usr/lib/frob.\n")
    (pkg / "guide.rst").write_text(RST)
    (pkg / "NEWS").write_bytes("Caf\xe9 mode was removed in 1.2.\n".encode("latin-1"))
    (pkg / "changelog.json").write_text('{"version": "1.2"}')
    (pkg / "README").write_bytes(b"\x7fELF\x00\x00binary")
    return root


def test_names_say_text_through_gzip_and_endings_that_are_no_file_type() -> None:
    kinds = {
        n: named_kind(Path(n))
        for n in (
            "README", "README.Debian", "NEWS.Debian.gz", "changelog.gz", "copyright",
            "README.md.gz", "guide.rst.gz", "x.pdf.gz", "changelog.json", "todo.yaml",
            "notes.txt", "install.sh", "data.gz", "FEATURES.gz", "00-RELEASENOTES", "Makefile",
            "README.invoke-rc.d.gz",
        )
    }  # fmt: skip
    assert kinds == {
        "README": "txt", "README.Debian": "txt", "NEWS.Debian.gz": "txt", "changelog.gz": "txt",
        "copyright": "txt", "README.md.gz": "markdown", "guide.rst.gz": "rst",
        "x.pdf.gz": None, "changelog.json": None, "todo.yaml": None, "notes.txt": "txt",
        "install.sh": None, "data.gz": None, "FEATURES.gz": "txt", "00-RELEASENOTES": "txt",
        "Makefile": None, "README.invoke-rc.d.gz": "txt",
    }  # fmt: skip


def test_a_package_doc_folder_reads_every_document_and_lists_the_rest(tmp_path: Path) -> None:
    root = _package(tmp_path / "doc")
    detected = detect_source(root)
    assert detected.format == "markdown"
    assert {p.name for p in detected.files} == {
        "README.Debian", "copyright", "changelog.Debian.gz", "README.md.gz", "guide.rst",
        "NEWS", "README",
    }  # fmt: skip
    assert ("frob/changelog.json", "a JSON file") in [
        (i["path"], i["why"]) for i in detected.listing()["ignored"]
    ]
    result = read_source(root)
    assert dict(result.refused) == {"frob/README": "holds a NUL byte: binary data, not text"}
    d0 = [r for r in result.records if r.layer == "D0"]
    by_doc: dict[str, list[tuple[str, str]]] = {}
    for r in d0:
        by_doc.setdefault(r.doc_id, []).append((r.section_title, r.text))
    # gzip read through, Markdown headings kept
    assert ("Plugins", "Plugins live in /usr/lib/frob.") in by_doc["frob/README.md.gz"]
    # a Debian changelog: one section per entry
    entries = dict(by_doc["frob/changelog.Debian.gz"])
    assert list(entries) == ["frob (1.2-1) unstable", "frob (1.1-2) unstable"]
    assert "restart (Closes: #1234)" in entries["frob (1.1-2) unstable"]
    # underlined titles of plain text are its sections
    titles = [s for s, _ in by_doc["frob/README.Debian"]]
    assert titles[:2] == ["Frob for Debian", "Configuration"]
    conf = dict(by_doc["frob/README.Debian"])["Configuration"]
    assert conf.startswith("The daemon reads /etc/frob.conf at start.")
    # reStructuredText: titles in the file's own levels, code kept, Sphinx roles as text
    rst = dict(by_doc["frob/guide.rst"])
    assert {"Frobnicator", "Installation", "Options"} <= set(rst)
    assert "pip install frob" in rst["Installation"]
    assert "Widgets must be dry." in rst["Options"]
    # Latin-1 text is read, not refused
    assert dict(by_doc["frob/NEWS"]) and "Café mode" in next(iter(by_doc["frob/NEWS"]))[1]
    # a title from a name that says nothing alone carries its folder's name
    titles_of = {r.doc_id: r.doc_title for r in d0}
    assert titles_of["frob/copyright"] == "frob copyright"
    assert titles_of["frob/changelog.Debian.gz"] == "frob changelog.Debian"


def test_a_gzip_file_is_bounded_by_what_it_unzips_to(tmp_path: Path) -> None:
    bomb = _gz(tmp_path / "NEWS.gz", "x" * 5000)
    assert len(bomb.read_bytes()) < 1000
    with pytest.raises(ContractError, match=r"NEWS.gz: unzipped, more than the limit of 4,096"):
        read_text(bomb, tmp_path, 4096)
    assert read_text(bomb, tmp_path, 5000) == "x" * 5000


def test_one_gzip_readme_alone_is_a_document(tmp_path: Path) -> None:
    path = _gz(tmp_path / "README.gz", README)
    assert detect_source(path).reason == "markdown: README.gz is a text file"
    d0 = [r for r in read_source(path).records if r.layer == "D0"]
    assert [r.section_title for r in d0][:2] == ["Frob for Debian", "Configuration"]


def test_underlines_that_are_not_titles_stay_text() -> None:
    text = (
        "a\n---\n\nA title that is far too long to be one written over a short rule\n---\n\n----\n"
    )
    md = text_to_markdown(text).markdown
    assert md.startswith("# a\n")
    assert "# A title" not in md and "\\----" in md


def test_a_pretty_printed_json_dump_beside_documents_is_not_a_chunk_file(tmp_path: Path) -> None:
    root = _package(tmp_path / "doc")
    api = root / "frob" / "api"
    api.mkdir()
    rows = '    {"name": "x"},\n' * 5000
    _gz(api / "all.json.gz", '{\n  "modules": [\n' + rows + "    {}\n  ]\n}\n")
    detected = detect_source(root)
    assert detected.format == "markdown"
    ignored = {i["path"]: i["why"] for i in detected.listing()["ignored"]}
    assert "frob/api/all.json.gz" in ignored
    broken = root / "frob" / "bad.jsonl"
    broken.write_text('{"chunk_id": "1", \n')
    with pytest.raises(ContractError, match="mixes formats: 1 chunk record file"):
        detect_source(root)


def test_a_pdf_without_the_documents_extra_is_listed_and_the_folder_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pip install sectio`` without ``[documents]``: a doc folder's PDF is refused, listed
    with the install line, and the text beside it is read."""
    root = _package(tmp_path / "doc")
    (root / "frob" / "manual.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    for module in ("pdfplumber", "pypdfium2"):  # as if not installed
        monkeypatch.setitem(sys.modules, module, None)
    result = read_source(root)
    refused = dict(result.refused)
    assert "sectio[documents]" in refused["frob/manual.pdf"]
    assert any(r.doc_id == "frob/README.Debian" for r in result.records)


def test_a_rst_section_whose_id_is_a_furniture_word_is_kept() -> None:
    """docutils writes ``<div class="section" id="cookies">``: a titled section, not a
    cookie banner (the Requests quickstart's "Cookies" was lost)."""
    from sectio.ingest.documents.rst import rst_to_markdown

    text = "Guide\n=====\n\nCookies\n-------\n\nSend cookies with ``cookies=``.\n\n"
    text += "Navigation\n----------\n\nUse the arrows.\n"
    md = rst_to_markdown(text).markdown
    assert "## Cookies" in md and "Send cookies with `cookies=`." in md
    assert "## Navigation" in md and "Use the arrows." in md


ORG = """\
#+TITLE: Zed user guide
#+OPTIONS: toc:nil

* Installation :setup:
Install the =zed= package, see [[https://zed.example/dl][the downloads]].
# a comment the reader must not take for a heading

** Build from source
#+BEGIN_SRC sh
./configure
# not a heading: a shell comment
make
#+END_SRC

| Key | Action |
|-----+--------|
| C-c | Copy   |
"""

ADOC = """\
= Zed Guide
:toc: left
:icons: font

== Installation

NOTE: Zed needs glibc 2.31.

.Build steps
[source,sh]
----
./configure
make
----

// a comment
* Download the tarball from https://zed.example/dl[the downloads page]
** Check its signature
See <<usage,the usage chapter>> and xref:faq.adoc[the FAQ].

[[usage]]
== Usage
Run `zed`.
"""


@pytest.mark.parametrize(("name", "text"), [("guide.org.gz", ORG), ("guide.adoc", ADOC)])
def test_org_and_asciidoc_read_as_sections_code_and_links(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    records = [r.model_dump() for r in read_source(tmp_path, "markdown").records]
    d0 = [r for r in records if r.get("layer", "D0") == "D0"]
    titles = {r["doc_title"] for r in d0}
    assert titles == ({"Zed user guide"} if name.startswith("guide.org") else {"Zed Guide"})
    sections = [r["section_title"] for r in d0]
    assert "Installation" in sections and "comment" not in " ".join(sections)
    code = [r for r in d0 if r["block_type"] == "code"]
    assert len(code) == 1 and "./configure" in code[0]["text"]  # a source block is code
    prose = "\n".join(r["text"] for r in d0 if r["block_type"] == "prose")
    assert "(https://zed.example/dl)" in prose  # links read as Markdown links
    assert "#+" not in prose and ":toc:" not in prose  # directives dropped
    first = next(r for r in d0 if r["section_title"] == "Installation")
    assert first["source_refs"][0]["line"] > 1  # line numbers point into the file


def test_a_folder_names_its_org_and_asciidoc_files(tmp_path: Path) -> None:
    (tmp_path / "README.org").write_text(ORG, encoding="utf-8")
    (tmp_path / "guide.adoc").write_text(ADOC, encoding="utf-8")
    assert named_kind(tmp_path / "README.org") == "org"
    assert named_kind(tmp_path / "guide.adoc") == "adoc"
    assert detect_source(tmp_path).reason == "markdown: 1 Org file, 1 AsciiDoc file"


def test_a_docs_site_cname_and_codeowners_are_listed_as_ignored_not_read(tmp_path: Path) -> None:
    """A MkDocs tree holds GitHub Pages' CNAME (one line, the domain): it is no page."""
    (tmp_path / "index.md").write_text("# Zed\n\nA tool.\n", encoding="utf-8")
    (tmp_path / "CNAME").write_text("www.zed.example\n", encoding="utf-8")
    (tmp_path / "CODEOWNERS").write_text("* @zed\n", encoding="utf-8")
    (tmp_path / "NEWS").write_text("Zed 1.0: first release.\n", encoding="utf-8")
    detected = detect_source(tmp_path)
    assert {p.name for p in detected.files} == {"index.md", "NEWS"}
    ignored = dict((p.name, why) for p, why in detected.ignored)
    assert ignored == {
        "CNAME": "a site's or a tool's file, not a document",
        "CODEOWNERS": "a site's or a tool's file, not a document",
    }


def test_an_ignored_compressed_file_is_named_by_what_it_compresses(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Zed\n\nA tool.\n", encoding="utf-8")
    (tmp_path / "manual.texi.gz").write_bytes(gzip.compress(b"@node Top\n"))
    ignored = dict((p.name, why) for p, why in detect_source(tmp_path).ignored)
    assert ignored == {"manual.texi.gz": "not a format sectio reads (.texi.gz)"}


#: A standard as typewritten plain text (the shape of an RFC): numbered titles, a table of
#: contents indented, a numbered list, and a page break (footer, form feed, running header).
STANDARD = """Widget Transfer Protocol

Table of Contents

   1. Introduction ......................................... 2
   2.1. Frames ............................................. 3

1.  Introduction

   This document describes the widget transfer protocol.  To use it:

1. Install the widget daemon.

2. Start it.

2.  Frames

2.1.  Frame Layout

   Every frame starts with a length.  The length counts the bytes of

Doe                          Standards Track                    [Page 2]
\f
RFC 9999                 Widget Transfer Protocol              June 2031


   the payload, never the header.

Appendix A.  Test Vectors

   One frame: 00 01 ff.
"""


def test_a_standards_numbered_titles_are_its_sections_and_its_page_breaks_go() -> None:
    md = text_to_markdown(STANDARD).markdown
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads == [
        "# 1. Introduction", "# 2. Frames", "## 2.1. Frame Layout", "# Appendix A. Test Vectors",
    ]  # fmt: skip
    assert "[Page 2]" not in md and "RFC 9999" not in md and "\f" not in md
    assert "1. Install the widget daemon." in md  # a list item stays text
    assert "the payload, never the header." in md


GNU_NEWS = """\
GNU frob NEWS                                    -*- outline -*-

* Noteworthy changes in release 3.11 (2023-05-13) [stable]

** Bug fixes

  With -P, patterns like [\\d] now work again.

** Changes in behavior

  * -s no longer hides the "binary file matches" message.

* Noteworthy changes in release 3.10 (2023-03-22) [stable]

** Bug fixes

  With -P, \\d matches only ASCII digits.
"""


def test_an_outline_mode_news_file_writes_its_headings_as_stars() -> None:
    # GNU's NEWS: the mode line says outline; "*" and "**" lines are headings, a starred
    # line indented in a paragraph stays an item; a file without the mode line keeps
    # its stars as text
    md = text_to_markdown(GNU_NEWS, "NEWS").markdown
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads == [
        "# Noteworthy changes in release 3.11 (2023-05-13) [stable]", "## Bug fixes",
        "## Changes in behavior",
        "# Noteworthy changes in release 3.10 (2023-03-22) [stable]", "## Bug fixes",
    ]  # fmt: skip
    assert "-*-" not in md and "binary file matches" in md
    plain = text_to_markdown(GNU_NEWS.replace("-*- outline -*-", ""), "NEWS").markdown
    assert not any(line.startswith("#") for line in plain.splitlines())


def test_a_standard_as_text_answers_a_section_named_by_its_number(tmp_path: Path) -> None:
    from sectio import Sectio, Settings

    src = tmp_path / "wtp.txt"
    src.write_text(STANDARD, encoding="utf-8")
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(src, collection="wtp")
        result = sx.ask("what does section 2.1 say?", collection="wtp", record=False)
    assert result.resolved_section_key is not None
    assert result.resolved_section_key.endswith("2-1-frame-layout")
    assert result.evidence[0].section_title == "2.1. Frame Layout"
    assert "the payload, never the header." in " ".join(e.text for e in result.evidence)


def test_a_laws_unit_labels_on_lines_of_their_own_are_headings(tmp_path: Path) -> None:
    # a regulation copied as text: "Article 1" over its title on the next line, "Article 2"
    # with its title a paragraph apart, "CHAPTER I" over an upper-case title; a sentence
    # that starts with a label stays text, and so does a label followed by a sentence
    text = (
        "REGULATION (EU) 2099/1 on brewing\n\nCHAPTER I\n\nGENERAL PROVISIONS\n\n"
        "Article 1\nSubject matter\n\nThis Regulation lays down rules on brewing.\n\n"
        "Article 2\n\nScope\n\nIt applies to breweries.\n\nArticle 1 shall apply.\n\n"
        "Article 3\n\nEach brewery shall keep records.\n\nANNEX I\nList of hops\n\nSaaz.\n"
    )
    path = tmp_path / "regulation.txt"
    path.write_text(text, encoding="utf-8")
    records = [r for r in read_source(path).records if r.layer == "D0"]
    titles = {r.section_title: r for r in records}
    assert {
        "Article 1 - Subject matter",
        "Article 2 - Scope",
        "Article 3",
        "ANNEX I - List of hops",
    } <= set(titles)
    assert titles["Article 2 - Scope"].heading_path[0] == "CHAPTER I - GENERAL PROVISIONS"
    assert "Article 1 shall apply." in titles["Article 2 - Scope"].text
    assert "Each brewery shall keep records." in titles["Article 3"].text
    assert records[0].doc_title == "regulation"


#: A manual page as Git writes its own (Documentation/git-*.adoc): two-line titles, a
#: synopsis of bracketed options, labeled lists, ``linkgit:`` macros, an open block, list
#: continuations and a listing block right after a paragraph that ends with a colon.
MANPAGE = """\
git-zed(1)
==========

NAME
----
git-zed - Frob the working tree

SYNOPSIS
--------
[synopsis]
git zed [-a | --all] [--dry-run]
\t[--] [<pathspec>...]

DESCRIPTION
-----------
Frob every tracked file, as linkgit:git-add[1] stages them.
+
A file is not frobbed when:
+
--
* it is ignored,
* it is a submodule.
--

OPTIONS
-------
`-a`::
`--all`::
\tFrob untracked files too.

`--dry-run`::

\tOnly show what would be frobbed.

EXAMPLES
--------
Frob everything, then look:
------------
$ git zed --all
$ git status
------------
"""


def test_a_git_manual_page_reads_its_two_line_titles_synopsis_and_options(
    tmp_path: Path,
) -> None:
    """Before: ``----`` under NAME opened a listing block, so the whole page after it was
    one code block under the page title (30 Git pages: 1 heading each, 93% of the text
    past what the model reads)."""
    (tmp_path / "git-zed.adoc").write_text(MANPAGE, encoding="utf-8")
    records = [r.model_dump() for r in read_source(tmp_path, "markdown").records]
    d0 = [r for r in records if r.get("layer", "D0") == "D0"]
    assert {r["doc_title"] for r in d0} == {"git-zed(1)"}
    by_section: dict[str, list[dict]] = {}
    for r in d0:
        by_section.setdefault(r["section_title"], []).append(r)
    assert {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES"} <= set(by_section)
    synopsis = " ".join(r["text"] for r in by_section["SYNOPSIS"])
    assert "[--dry-run]" in synopsis and "[<pathspec>...]" in synopsis  # not dropped
    description = " ".join(r["text"] for r in by_section["DESCRIPTION"])
    assert "git-add stages them" in description  # the macro reads as its target
    assert "it is a submodule" in description  # the open block's list stays prose
    assert all(r["block_type"] == "prose" for r in by_section["DESCRIPTION"])
    options = " ".join(r["text"] for r in by_section["OPTIONS"])
    assert "**`--all`**" in options and "Frob untracked files too." in options
    assert "Only show what would be frobbed." in options  # indented after a blank line
    assert all(r["block_type"] == "prose" for r in by_section["OPTIONS"])  # not code
    code = [r for r in by_section["EXAMPLES"] if r["block_type"] == "code"]
    assert len(code) == 1 and "$ git zed --all" in code[0]["text"]
    assert by_section["OPTIONS"][0]["source_refs"][0]["line"] == 27  # the file's own line


def test_an_org_drawer_keeps_its_text_and_drops_properties_and_logbooks(tmp_path: Path) -> None:
    """Org exports every drawer but the logbook (and properties): a manual's ``:PREAMBLE:``
    holds its opening text. Before, every drawer's text was dropped without a word."""
    org = (
        "#+title: Zed manual\n:PREAMBLE:\n#+author: Someone\nZed frobs widgets for you.\n"
        ":END:\n* Usage\n:PROPERTIES:\n:CUSTOM_ID: usage\n:END:\n:LOGBOOK:\n"
        "CLOCK: [2026-01-01 Thu 10:00]\n:END:\nRun zed.\n"
    )
    (tmp_path / "zed.org").write_text(org, encoding="utf-8")
    d0 = [
        r.model_dump()
        for r in read_source(tmp_path, "markdown").records
        if r.model_dump().get("layer", "D0") == "D0"
    ]
    text = "\n".join(r["text"] for r in d0)
    assert "Zed frobs widgets for you." in text and "Run zed." in text
    assert "CUSTOM_ID" not in text and "CLOCK" not in text and ":END:" not in text
    assert "PREAMBLE" not in text and "Someone" not in text


def test_asciidoc_includes_are_followed_inside_the_tree_and_lines_point_to_the_include(
    tmp_path: Path,
) -> None:
    """Git's ``git-diff.adoc`` keeps its options in ``include::diff-options.adoc[]``:
    before, the directive was dropped and OPTIONS held nothing."""
    tree = tmp_path / "docs"
    (tree / "includes").mkdir(parents=True)
    outside = tmp_path / "secret.adoc"
    outside.write_text("the password is hunter2\n", encoding="utf-8")
    (tree / "includes" / "opts.adoc").write_text(
        "`--stat`::\n\tShow a diffstat.\n\ninclude::more.adoc[]\n", encoding="utf-8"
    )
    (tree / "includes" / "more.adoc").write_text(
        "`--color`::\n\tShow colored diff.\ninclude::more.adoc[]\n", encoding="utf-8"
    )  # includes itself: followed once
    (tree / "includes" / "notes.adoc").write_text(
        "= Notes\nA note on rename detection.\n", encoding="utf-8"
    )
    (tree / "includes" / "leak.adoc").symlink_to(outside)
    (tree / "git-zed.adoc").write_text(
        "= git-zed(1)\n\n== OPTIONS\ninclude::includes/opts.adoc[]\n\n"
        "include::includes/notes.adoc[leveloffset=+2]\n\n"
        "include::includes/leak.adoc[]\ninclude::{build_dir}/cmds.adoc[]\n"
        "include::includes/missing.adoc[]\n\n== SEE ALSO\nThe manual.\n",
        encoding="utf-8",
    )
    records = [r.model_dump() for r in read_source(tree, "markdown").records]
    zed = [r for r in records if r["doc_id"] == "git-zed.adoc" and r.get("layer", "D0") == "D0"]
    options = [r for r in zed if r["section_title"] == "OPTIONS"]
    text = " ".join(r["text"] for r in options)
    assert "Show a diffstat." in text and "Show colored diff." in text
    assert options[0]["source_refs"][0]["line"] == 4  # the include's own line
    terms = [r for r in records if r["doc_id"] == "git-zed.adoc" and r.get("layer") == "D3"]
    stat = next(r for r in terms if r.get("entity") == "--stat")  # the glossary's entry too
    assert stat["source_refs"][0]["line"] == 4
    notes = [r for r in zed if r["section_title"] == "Notes"]  # "=" moved two levels down
    assert notes and "rename detection" in notes[0]["text"]
    assert notes[0]["heading_path"][:2] == ["git-zed(1)", "OPTIONS"]
    assert "hunter2" not in " ".join(r["text"] for r in records)  # a link out of the tree
    assert "include::" not in " ".join(r["text"] for r in zed)
    see_also = next(r for r in zed if r["section_title"] == "SEE ALSO")
    assert see_also["source_refs"][0]["line"] == 13  # lines after the includes still right


def test_a_page_whose_includes_pass_the_size_limit_is_refused_and_listed(tmp_path: Path) -> None:
    """Includes multiply: a page that includes one part (each under the limit) ten
    times holds ten times it. Refused with one line naming the limit, listed, the rest
    read: never cut short, never grown without bound."""
    from sectio.contract.bounds import InputLimits

    (tmp_path / "part.adoc").write_text("word " * 100 + "\n", encoding="utf-8")  # 501 bytes
    (tmp_path / "page.adoc").write_text(
        "= Page\n\n" + "include::part.adoc[]\n" * 10, encoding="utf-8"
    )
    result = read_source(tmp_path, "markdown", limits=InputLimits(max_markdown_bytes=4096))
    refused = dict(result.refused)
    assert refused == {
        "page.adoc": "with the files it includes, more than the limit of 4,096 bytes "
        "(SECTIO_MAX_MARKDOWN_BYTES)"
    }
    assert {r.doc_id for r in result.records} == {"part.adoc"}
