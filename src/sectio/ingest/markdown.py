"""Markdown folders (docs corpora): every ``.md`` file a document, headings its sections.

``read_markdown(DIR)`` reads every ``.md`` under ``DIR`` (hidden folders and
``node_modules`` skipped, files in sorted order) and returns validated chunk
records in six layers, each a point of the collection with a ``layer`` field:

* **D0** doc chunks: ``doc_id`` = ``path`` = the POSIX path relative to ``DIR``
  (``docs/faq.md``); ``doc_title`` from front matter ``title``, else the first
  heading, else the file name; one section per heading (``section_key`` = slug
  of the heading path, ``section_title`` = the heading); paragraphs packed in
  order under the token limit (``count`` is the embedder's tokenizer); fenced
  code and tables are ``chunk_kind: block`` chunks of their own, never split.
  ``metadata.domain`` / ``subdomain`` come from front matter, else from the
  folders under the docs root (``docs/operator-manual/notifications/x.md`` ->
  ``operator-manual`` / ``notifications``; ``docs/domains/billing/x.md`` ->
  ``billing``). ``links`` lists the documents a chunk links to (relative links
  resolved to doc ids). ``source_refs`` point at the file, the heading anchor
  and the lines.
* **D1..D5** are derived from the parsed documents; see :mod:`sectio.ingest.md_layers`.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("# A\\n\\nSee [b](b.md).\\n")
    >>> _ = (root / "b.md").write_text("# B\\n\\nHello.\\n")
    >>> recs = read_markdown(root)
    >>> [(r.chunk_id, r.layer) for r in recs if r.doc_id == "a.md"][:2]
    [('a.md#a#0', 'D0'), ('d1:a.md', 'D1')]
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from sectio.contract.bounds import InputLimits
from sectio.contract.record import ChunkRecord, SourceRef, check_unique_ids, parse_record
from sectio.errors import ContractError, NotAvailable
from sectio.ingest.chunking import TokenCounter, approx_tokens, split_text
from sectio.ingest.detect import is_record_file, tree_files
from sectio.ingest.documents import Converted, convert, kind_of
from sectio.ingest.export import ExportDoc, export_documents
from sectio.ingest.md_doc import ChunkSpan, DocBuild, DocLink
from sectio.ingest.md_layers import build_layers
from sectio.ingest.md_parse import Block, ParsedDoc, Section, parse_markdown
from sectio.ingest.phases import PhaseClock

#: Top folders that are the docs root, not a domain (``docs/x/y.md`` -> domain ``x``).
DOC_ROOTS = ("docs", "doc", "documentation")
#: Folders that hold one folder per domain (``docs/domains/billing/x.md`` -> ``billing``).
DOMAIN_CONTAINERS = ("domains",)
_LIMITS = InputLimits()
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def domain_of(doc_id: str, front: dict[str, Any]) -> dict[str, str]:
    """``metadata.domain`` / ``subdomain``: front matter first, else the folders (lower case)."""
    parts = doc_id.split("/")[:-1]
    if parts and parts[0].lower() in DOC_ROOTS:
        parts = parts[1:]
    if len(parts) > 1 and parts[0].lower() in DOMAIN_CONTAINERS:
        parts = parts[1:]
    meta: dict[str, str] = {}
    domain = front.get("domain") or (parts[0] if parts else None)
    subdomain = front.get("subdomain") or (parts[1] if len(parts) > 1 else None)
    if domain:
        meta["domain"] = str(domain).strip().lower()
    if subdomain:
        meta["subdomain"] = str(subdomain).strip().lower()
    return meta


def resolve_link(source: str, href: str, doc_ids: set[str]) -> tuple[str | None, str]:
    """The doc id ``href`` (written in ``source``) points at, or None; and the fragment.

    Relative links resolve against the source's folder; ``/x`` against the root
    and the docs root; ``dir/`` and extension-less links try ``.md`` and ``index.md``.
    """
    if not href or href.startswith("#") or _SCHEME.match(href):
        return None, ""
    target, _, fragment = href.partition("#")
    target = unquote(target.split("?", 1)[0]).strip()
    if not target:
        return None, fragment
    bases: list[str] = []
    if target.startswith("/"):
        bases = [target.lstrip("/")]
        bases += [f"{root}/{target.lstrip('/')}" for root in DOC_ROOTS]
    else:
        bases = [posixpath.normpath(posixpath.join(posixpath.dirname(source), target))]
    for base in bases:
        if base.startswith("../"):
            continue
        stripped = base.rstrip("/")
        for cand in (
            base,
            f"{stripped}.md",
            f"{stripped}/index.md",
            f"{stripped}/README.md",
            re.sub(r"\.html?$", ".md", base),
        ):
            if cand in doc_ids:
                return cand, fragment
    return None, fragment


def _file_target(source: str, href: str, root: Path) -> str | None:
    """A corpus-relative path when ``href`` names a non-Markdown file that exists under root."""
    if not href or href.startswith("#") or _SCHEME.match(href):
        return None
    target = unquote(href.partition("#")[0].split("?", 1)[0]).strip()
    if not target or target.endswith("/"):
        return None
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    if rel.startswith("../") or rel.lower().endswith(".md"):
        return None
    return rel if (root / rel).is_file() else None


def _markdown_files(root: Path) -> list[Path]:
    return tree_files(root, "*.md")


def _include_reader(root: Path, source: Path) -> Any:
    root_resolved = root.resolve()

    def read(target: str) -> str | None:
        for base in (root, source.parent):
            cand = (base / target).resolve()
            if not cand.is_relative_to(root_resolved) or not cand.is_file():
                continue
            if cand.stat().st_size > 262_144:
                return None
            return cand.read_text(encoding="utf-8", errors="replace")
        return None

    return read


def _pack_section(
    build: DocBuild,
    section: Section,
    budget: int,
    count: TokenCounter,
    tenant: str,
    doc_ids: set[str],
    root: Path,
) -> None:
    """D0 chunks of one section: prose packed under ``budget``, blocks alone.

    Appends to ``build`` each chunk (``part_index`` in section order), its span, and
    the links its blocks make.
    """
    for i, part in enumerate(_section_parts(section, budget, count)):
        chunk_id = f"{build.doc_id}#{section.key}#{i}"
        record = _d0_record(build, section, i, part, tenant, doc_ids)
        build.chunks.append(parse_record(record, build.doc_id, part["line"]))
        build.spans.append(
            ChunkSpan(chunk_id, section.key, part["line"], part["end_line"], part["kind"])
        )
        for block in part["blocks"]:
            for href, text in block.links:
                target, _ = resolve_link(build.doc_id, href, doc_ids)
                if target and target != build.doc_id:
                    build.links.append(DocLink(target, text, section.key, block.line, chunk_id))
                elif target is None:
                    ftarget = _file_target(build.doc_id, href, root)
                    if ftarget:
                        build.links.append(
                            DocLink(ftarget, text, section.key, block.line, chunk_id, "file")
                        )


def _section_parts(section: Section, budget: int, count: TokenCounter) -> list[dict[str, Any]]:
    """A section's blocks as chunk parts, in order: consecutive prose blocks packed
    under ``budget`` tokens (a longer block split on its own), every other block alone,
    and so is a note (a prose block marked ``alone``: an admonition)."""
    parts: list[dict[str, Any]] = []
    pending: list[Block] = []

    def emit(text: str, blocks: list[Block], kind: str, language: str = "") -> None:
        parts.append(
            {
                "text": text,
                "blocks": blocks,
                "kind": kind,
                "language": language,
                "line": blocks[0].line,
                "end_line": blocks[-1].end_line,
            }
        )

    def flush() -> None:
        if not pending:
            return
        group: list[Block] = []
        size = 0
        for block in pending:
            n = count(block.text)
            if n > budget:
                if group:
                    emit("\n\n".join(b.text for b in group), group, "prose")
                    group, size = [], 0
                for piece in split_text(block.text, budget, count):
                    emit(piece, [block], "prose")
                continue
            if group and size + n + 1 > budget:
                emit("\n\n".join(b.text for b in group), group, "prose")
                group, size = [], 0
            group.append(block)
            size += n + 1
        if group:
            emit("\n\n".join(b.text for b in group), group, "prose")
        pending.clear()

    for block in section.blocks:
        if block.kind == "prose" and not block.alone:
            pending.append(block)
        elif block.kind == "prose":  # a note of its own: packed with nothing else
            flush()
            pending.append(block)
            flush()
        else:
            flush()
            emit(block.text, [block], block.kind, block.language)
    flush()
    return parts


def _d0_record(
    build: DocBuild,
    section: Section,
    index: int,
    part: dict[str, Any],
    tenant: str,
    doc_ids: set[str],
) -> dict[str, Any]:
    """The chunk record (as a dict) of one part of ``section``."""
    kind = part["kind"]
    links: list[str] = []
    for b in part["blocks"]:
        for href, _ in b.links:
            target, _ = resolve_link(build.doc_id, href, doc_ids)
            if target and target != build.doc_id and target not in links:
                links.append(target)
    record: dict[str, Any] = {
        "chunk_id": f"{build.doc_id}#{section.key}#{index}",
        "doc_id": build.doc_id,
        "path": build.doc_id,
        "section_key": section.key,
        "part_index": index,
        "text": part["text"],
        "doc_title": build.title,
        "section_title": section.title or build.title,
        "chunk_kind": "prose" if kind == "prose" else "block",
        "tenant": tenant,
        "metadata": dict(build.metadata),
        "tags": list(build.tags),
        "layer": "D0",
        "block_type": kind,
        "heading_path": list(section.heading_path),
        "links": links,
        "source_refs": [build.source_ref(section, part["line"], end_line=part["end_line"])],
    }
    if part["language"]:
        record["language"] = part["language"]
    return record


def build_doc(
    parsed: ParsedDoc,
    *,
    max_tokens: int,
    count: TokenCounter,
    tenant: str,
    doc_ids: set[str],
    root: Path,
    extra: dict[str, Any] | None = None,
) -> DocBuild:
    """The D0 chunks and links of one parsed document; ``extra``: metadata of its own (an
    export record's fields; its id is no path, so no folder gives it a domain)."""
    front = parsed.front_matter
    tags_raw = front.get("tags") or []
    tags = [str(t) for t in tags_raw] if isinstance(tags_raw, list) else [str(tags_raw)]
    build = DocBuild(
        doc=parsed,
        doc_id=parsed.path,
        title=parsed.title,
        metadata=domain_of(parsed.path, front)
        if extra is None
        else {**extra, **domain_of("", front)},
        tags=tags,
    )
    for section in parsed.sections:
        heading = section.title or parsed.title
        budget = max(max_tokens - count(f"{parsed.title}\n{heading}") - 2, 32)
        _pack_section(build, section, budget, count, tenant, doc_ids, root)
        for href, text in section.heading_links:
            target, _ = resolve_link(parsed.path, href, doc_ids)
            if target and target != parsed.path:
                build.links.append(
                    DocLink(target, text, section.key, section.line, build.chunk_at(section.key, 0))
                )
    for inc in parsed.includes:
        target, _ = resolve_link(parsed.path, "/" + inc.lstrip("/"), doc_ids)
        target = target or resolve_link(parsed.path, inc, doc_ids)[0]
        if target and target != parsed.path:
            build.links.append(DocLink(target, inc, "", 0, None, "include"))
    return build


def read_markdown(
    path: str | Path,
    max_tokens: int = 256,
    count: TokenCounter = approx_tokens,
    tenant: str = "default",
    limits: InputLimits = _LIMITS,
    clock: PhaseClock | None = None,
    files: list[Path] | None = None,
    refused: list[tuple[str, str]] | None = None,
) -> list[ChunkRecord]:
    """Every layer (D0-D5) of the documents under ``path`` (a folder or one file).

    ``files`` (default: every ``.md`` under a folder) are Markdown, MDX, PDF, HTML,
    DOCX or text files (:mod:`sectio.ingest.documents`), each converted to Markdown
    and cut the same way; their chunks carry their pages and flags (see
    :func:`stamp_provenance`). Each file is read strictly: a binary file, invalid
    UTF-8, a file over ``limits.max_markdown_bytes`` or a link out of the tree is
    refused, naming the file. In a folder, a PDF, DOCX or HTML file its reader
    refuses (no text layer, broken, its extra not installed; a text or
    reStructuredText file that cannot be decoded) is appended to ``refused`` as ``(path, why)``
    and the others are read; alone (or with ``refused`` None) it raises.
    ``clock`` times the parse (phase ``read``, in files) and the derived layers.

    Raises:
        ContractError: no document under ``path``; a file refused as above.
        RecordError: a derived record breaks the contract (names file, line, field).
    """
    source = Path(path)
    if source.is_file():
        root, files = source.parent, files or [source]
    elif source.is_dir():
        root, files = source, files if files is not None else _markdown_files(source)
    else:
        raise ContractError(f"{source}: no such file or folder")
    if not files:
        raise ContractError(f"{source}: no .md files")
    clock = clock or PhaseClock()
    exports: dict[str, tuple[str, ExportDoc]] = {}  # doc id -> (export file, its record)
    with clock.phase("read", total=len(files)) as tick:
        parsed: list[tuple[ParsedDoc, Converted]] = []
        for n, file in enumerate(files, 1):
            if is_record_file(file):  # a JSON export: each record a document
                parsed += _read_export(file, file.relative_to(root).as_posix(), limits, exports)
            else:
                got = _read_one(source, root, file, limits, refused)
                if got is not None:
                    parsed.append(got)
            tick(n)
        if not parsed:
            raise ContractError(
                f"{source}: every document was refused: "
                + "; ".join(f"{p}: {why}" for p, why in (refused or [])[:3])
            )
        doc_ids = {p.path for p, _ in parsed}
        builds = []
        for p, converted in parsed:
            export = exports.get(p.path)
            build = build_doc(
                p,
                max_tokens=max_tokens,
                count=count,
                tenant=tenant,
                doc_ids=doc_ids,
                root=root,
                extra=export[1].metadata if export else None,
            )
            stamp_provenance(build, converted)
            builds.append(build)
    records: list[ChunkRecord] = []
    for build in builds:
        records.extend(build.chunks)
    with clock.phase("layers"):
        derived = build_layers(builds, tenant=tenant, max_tokens=max_tokens, count=count)
        records.extend(carry_provenance(records, derived))
    if exports:
        records = [
            stamp_export(r, *exports[r.doc_id]) if r.doc_id in exports else r for r in records
        ]
    check_unique_ids([(r, r.doc_id, i + 1) for i, r in enumerate(records)])
    return records


#: Kinds whose refused files a folder lists and reads past (a Markdown file that is
#: not UTF-8 stops the load: it is the tree's own text).
_LISTED = ("pdf", "docx", "html", "txt", "rst", "org", "adoc", "ipynb")


def _read_export(
    file: Path, rel: str, limits: InputLimits, exports: dict[str, tuple[str, ExportDoc]]
) -> list[tuple[ParsedDoc, Converted]]:
    """Each record of the export ``file`` (``rel`` in the tree) parsed as a document, each
    noted in ``exports`` by its id, with the file (:func:`stamp_export` reads them)."""
    out = []
    for doc in export_documents(file, limits):
        exports[doc.doc_id] = (rel, doc)
        kind = "html" if doc.html else "markdown"
        out.append((parse_markdown(doc.markdown, doc.doc_id), Converted("", kind)))
    return out


def _read_one(
    source: Path,
    root: Path,
    file: Path,
    limits: InputLimits,
    refused: list[tuple[str, str]] | None,
) -> tuple[ParsedDoc, Converted] | None:
    """One file parsed (None: refused and listed in ``refused``)."""
    rel = file.relative_to(root).as_posix()
    # One file named on its own may be a link; a tree's files must stay in the tree.
    tree = root if source.is_dir() else file.resolve().parent
    kind = "markdown" if file.suffix == ".md" else (kind_of(file)[0] or "markdown")
    try:
        converted = convert(file, kind, tree, limits.max_markdown_bytes)
    except (ContractError, NotAvailable) as exc:
        if refused is None or kind not in _LISTED or not source.is_dir():
            raise
        refused.append((rel, str(exc).removeprefix(f"{file}: ")))
        return None
    reader = _include_reader(root, file) if kind in ("markdown", "mdx") else None
    return parse_markdown(converted.markdown, rel, reader), converted


def stamp_export(record: ChunkRecord, file: str, doc: ExportDoc) -> ChunkRecord:
    """``record`` (of any layer) of an export's record, with that record's provenance:
    the file (``source``), the record's id (``record``), the heading it sits under, and
    the record's own link as ``url`` when it has one (else the document's id and anchor).
    Line numbers are dropped: they count lines of the document made from the record."""
    refs = []
    for ref in record.source_refs or [SourceRef(source=file)]:
        got = {**ref.model_dump(exclude_none=True), "source": file, "record": doc.doc_id}
        if doc.url:
            got["url"] = doc.url
        got.pop("line", None)
        got.pop("end_line", None)
        refs.append(SourceRef(**got))
    return record.model_copy(update={"source_refs": refs})


def carry_provenance(d0: list[ChunkRecord], derived: list[ChunkRecord]) -> list[ChunkRecord]:
    """``derived`` entries, each restating a D0 chunk (``dense_from``), given that chunk's
    page and flag: a fact cut from a flagged table is flagged too, and cites its page."""
    by_id = {r.chunk_id: r for r in d0}
    out: list[ChunkRecord] = []
    for record in derived:
        source = by_id.get(str(getattr(record, "dense_from", None) or ""))
        page = source.source_refs[0].page if source and source.source_refs else None
        if source is None or (page is None and not source.requires_visual_check):
            out.append(record)
            continue
        update: dict[str, Any] = {"requires_visual_check": source.requires_visual_check}
        if page is not None and record.source_refs:
            first = record.source_refs[0].model_dump(exclude_none=True)
            first.setdefault("page", page)
            update["source_refs"] = [first, *record.source_refs[1:]]
        out.append(ChunkRecord.model_validate({**record.payload(), **update}))
    return out


def _real_anchors(build: DocBuild, converted: Converted) -> dict[str, str] | None:
    """Section key -> the anchor the source really has for it: its heading's own id,
    else the nearest heading above with one ('' before any); None when the
    conversion's anchors are the Markdown path's own."""
    if converted.anchors is None:
        return None
    out: dict[str, str] = {}
    last = ""
    for section in build.doc.sections:
        if section.anchor in converted.anchors:
            last = section.anchor
        out[section.key] = last
    return out


def stamp_provenance(build: DocBuild, converted: Converted) -> None:
    """Give each D0 chunk of ``build`` what its source says: the page (and ``page_end``
    when it spans pages; ``url`` ``file.pdf#page=N``), the heading it sits under, for
    HTML the ``#id`` of the nearest heading (its own or one above) that has one,
    and ``requires_visual_check`` when it holds a block the parser was not sure of.
    Line numbers of a converted document (PDF, HTML, DOCX, text) are dropped: they
    count lines of the conversion, not of the file."""
    keep_lines = converted.kind in ("markdown", "mdx", "org", "adoc")  # line for line
    line_of = build.file_line = converted.source_line if keep_lines else None  # D3's too
    anchors = _real_anchors(build, converted)
    stamped: list[ChunkRecord] = []
    for record, span in zip(build.chunks, build.spans, strict=True):
        refs = [ref.model_dump(exclude_none=True) for ref in record.source_refs]
        ref: dict[str, Any] = refs[0] if refs else {"source": build.doc_id}
        for key in ("line", "end_line"):  # the file's line (an included line: its include's)
            if line_of is None:
                ref.pop(key, None)
            elif isinstance(ref.get(key), int):
                ref[key] = line_of(ref[key])
        if anchors is not None:
            real = anchors.get(record.section_key, "")
            ref.pop("anchor", None)
            ref["url"] = f"{build.doc_id}#{real}" if real else build.doc_id
            if real:
                ref["anchor"] = real
        if record.section_title and record.section_title != build.title:
            ref.setdefault("heading", record.section_title)
        pages = converted.page_range(span.line, span.end_line)
        if pages is not None:
            ref["page"] = pages[0]
            if pages[1] != pages[0]:
                ref["page_end"] = pages[1]
            ref["url"] = f"{build.doc_id}#page={pages[0]}"
        update: dict[str, Any] = {"source_refs": [ref, *refs[1:]]}
        if converted.is_flagged(span.line, span.end_line):
            update["requires_visual_check"] = True
        stamped.append(ChunkRecord.model_validate({**record.payload(), **update}))
    build.chunks = stamped


__all__ = [
    "DocBuild",
    "DocLink",
    "build_doc",
    "carry_provenance",
    "domain_of",
    "read_markdown",
    "resolve_link",
    "stamp_provenance",
]
