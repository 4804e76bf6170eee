"""Documents readers on real files: structure per file, then retrieval per corpus type.

    .venv/bin/python benchmarks/documents.py            # structure + retrieval (MiniLM)
    .venv/bin/python benchmarks/documents.py structure  # the per-file table only
    .venv/bin/python benchmarks/documents.py retrieval  # (or speed, pages, hand) that part only

Prints one row per file and a total per reader: pages (PDF), seconds, pages/s and
MB/s, headings found, tables (block chunks of kind table), how many of them are
flagged ``requires_visual_check``, figures flagged, and, for a PDF that has an
outline (bookmarks), the recall and precision of the font rule's headings
against that outline (the outline is the document's own table of contents).
For HTML, headings are scored against readability's cleaned article of the same
page (``html-reference/``).

Retrieval: each corpus type (pdf, html, docx, mdx, myst, ipynb) is ingested twice with the
bundled MiniLM, once through its reader and once as a baseline conversion (PDF:
pdfminer's plain text as ``.txt``; HTML: the raw page read as Markdown text, the
old behaviour; DOCX: mammoth's own Markdown; MDX: the file renamed ``.md``, JSX
left in; MyST: the pages read as CommonMark, each directive a code block; notebooks:
their JSON read as a text file), and the questions of ``questions.jsonl`` are asked:
``search@5`` is a hit when one of the top 5 chunks is from the right document and holds the
answer phrase (in its text or its section title; quote marks, backticks and bold stars left
out on both sides); ``ask`` when the decision is
not ABSTAIN and its evidence holds it (``verify``: how many decided VERIFY_SOURCE).
Files and their sources: benchmarks/data/documents/README.md.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sectio.ingest.detect import detect_source
from sectio.ingest.documents import convert, kind_of
from sectio.ingest.documents import pdf as pdf_reader
from sectio.ingest.md_parse import parse_markdown

DEFAULT = Path(__file__).parent / "data" / "documents"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _same(a: str, b: str) -> bool:
    """One normalised heading is the other, or starts it (a heading cut at a line end)."""
    short, long = sorted((a, b), key=len)
    return bool(short) and long.startswith(short) and len(short) >= 0.6 * len(long)


def _pr(found: list[str], truth: list[str]) -> tuple[float, float]:
    """Recall and precision of ``found`` headings against ``truth`` (normalised)."""
    hit_t = sum(any(_same(t, f) for f in found) for t in truth)
    hit_f = sum(any(_same(t, f) for t in truth) for f in found)
    return hit_t / len(truth), (hit_f / len(found) if found else 0.0)


def _by_hand(path: Path) -> tuple[float, float] | None:
    """The headings found on the pages read by hand (``pdf-outlines.json``) scored."""
    import json

    outlines = json.loads((path.parent.parent / "pdf-outlines.json").read_text())
    if path.name not in outlines:
        return None
    entry = outlines[path.name]
    converted = pdf_reader.read_pdf(path)
    doc = parse_markdown(converted.markdown, path.name)
    found = [
        _norm(s.title)
        for s in doc.sections
        if s.level and converted.pages[s.line] in entry["pages"]
    ]
    return _pr(found, [_norm(t) for t in entry["headings"]])


def _font_rule_vs_outline(path: Path) -> tuple[float, float] | None:
    outline = pdf_reader._outline(path)
    if not outline:
        return _by_hand(path)
    saved = pdf_reader._outline
    pdf_reader._outline = lambda _p: []  # the font rule alone
    try:
        doc = parse_markdown(pdf_reader.read_pdf(path).markdown, path.name)
    finally:
        pdf_reader._outline = saved
    return _pr([_norm(s.title) for s in doc.sections if s.level], [_norm(t) for _, t, _ in outline])


def _row(path: Path, root: Path) -> dict[str, object]:
    kind = kind_of(path)[0] or "markdown"
    t = time.perf_counter()
    converted = convert(path, kind, root, 8 * 2**20)
    doc = parse_markdown(converted.markdown, path.name)
    seconds = time.perf_counter() - t
    blocks = [b for s in doc.sections for b in s.blocks]
    tables = [b for b in blocks if b.kind == "table"]
    flagged = [b for b in tables if converted.is_flagged(b.line, b.end_line)]
    figures = [b for b in flagged if "not read as text" in b.text]
    pr = _font_rule_vs_outline(path) if kind == "pdf" else _html_outline(path, root)
    outline = pdf_reader._outline(path) if kind == "pdf" else []
    found = [_norm(s.title) for s in doc.sections if s.level]
    reader = _pr(found, [_norm(t) for _, t, _ in outline]) if outline else None
    return {
        "file": path.relative_to(root).as_posix(),
        "kind": kind,
        "pages": converted.page_count,
        "mb": path.stat().st_size / 2**20,
        "s": seconds,
        "headings": sum(1 for s in doc.sections if s.level),
        "tables": len(tables) - len(figures),
        "flagged": len(flagged) - len(figures),
        "figures": len(figures),
        "outline_rp": pr,
        "reader_rp": reader,
    }


def _html_outline(path: Path, root: Path) -> tuple[float, float] | None:
    ref = root.parent / "html-reference" / path.name
    if path.suffix != ".html" or not ref.is_file():
        return None
    from sectio.ingest.documents.html import html_to_markdown, parse_html

    doc = parse_markdown(html_to_markdown(path.read_text(errors="replace")).markdown, path.name)
    found = [_norm(s.title) for s in doc.sections if s.level]
    heads = ("h1", "h2", "h3", "h4", "h5", "h6")
    tree = parse_html(ref.read_text(errors="replace"))
    texts = (e.text().replace("[edit]", "") for e in tree.find(lambda e: e.tag in heads))
    truth = [t for t in map(_norm, texts) if t]
    return _pr(found, truth) if truth else None


def main(folders: list[Path]) -> None:
    rows = []
    for folder in folders:
        found = detect_source(folder)
        for path in found.files:
            rows.append(_row(path, folder))
        for path, why in found.refused:
            print(f"refused {path.name}: {why}")
    head = f"{'file':<44} {'kind':<8} {'pages':>5} {'s':>6} {'headings':>8} {'tables':>6} "
    print(head + f"{'flagged':>7} {'figures':>7} {'outline R/P':>11} {'reader R/P':>10}")
    for r in rows:
        rp_s, reader_s = (
            f"{rp[0]:.2f}/{rp[1]:.2f}" if isinstance(rp, tuple) else "-"
            for rp in (r["outline_rp"], r["reader_rp"])
        )
        print(
            f"{str(r['file'])[:44]:<44} {r['kind']:<8} {r['pages']:>5} {r['s']:>6.2f} "
            f"{r['headings']:>8} {r['tables']:>6} {r['flagged']:>7} {r['figures']:>7} {rp_s:>11}"
            f" {reader_s:>10}"
        )
    tables_audit(rows)
    print()
    print(f"{'reader':<8} {'files':>5} {'pages':>6} {'s':>7} {'pages/s':>8} {'MB/s':>6}")
    for kind in sorted({str(r["kind"]) for r in rows}):
        got = [r for r in rows if r["kind"] == kind]
        s = sum(float(r["s"]) for r in got)  # type: ignore[arg-type]
        pages = sum(int(r["pages"]) for r in got)  # type: ignore[call-overload]
        mb = sum(float(r["mb"]) for r in got)  # type: ignore[arg-type]
        rate = f"{pages / s:8.1f}" if pages and s else f"{'-':>8}"
        print(f"{kind:<8} {len(got):>5} {pages:>6} {s:>7.2f} {rate} {mb / s if s else 0:>6.2f}")


def tables_audit(rows: list[dict[str, object]], root: Path = DEFAULT) -> None:
    """Per reader: the tables and figures counted by eye (``tables.json``) beside what
    the reader made of them: read whole (not flagged; each checked by eye), flagged
    ``requires_visual_check``, missed (counted by eye, not found)."""
    import json

    eye = json.loads((root / "tables.json").read_text())
    print(
        f"\n{'reader':<8} {'tables':>6} {'whole':>6} {'flagged':>7} {'missed':>6} {'extra':>5} ",
        end="",
    )
    print(f"{'figures':>7} {'flagged':>7} {'missed':>6}")
    for kind in ("pdf", "html", "docx"):
        got = [r for r in rows if r["kind"] == kind]
        tally = dict.fromkeys(("t", "w", "f", "m", "x", "g", "gf", "gm"), 0)
        for r in got:
            want = eye.get(f"{kind}/{r['file']}", {"tables": 0, "figures": 0})
            found, flagged = int(r["tables"]), int(r["flagged"])  # type: ignore[call-overload]
            figures = int(r["figures"])  # type: ignore[call-overload]
            tally["t"] += want["tables"]
            tally["w"] += found - flagged
            tally["f"] += flagged
            tally["m"] += max(want["tables"] - found, 0)
            tally["x"] += max(found - want["tables"], 0)
            tally["g"] += want["figures"]
            tally["gf"] += figures
            tally["gm"] += max(want["figures"] - figures, 0)
        t = tally
        print(
            f"{kind:<8} {t['t']:>6} {t['w']:>6} {t['f']:>7} {t['m']:>6} {t['x']:>5} "
            f"{t['g']:>7} {t['gf']:>7} {t['gm']:>6}"
        )


def pages_right(folder: Path = DEFAULT / "pdf") -> None:
    """Every prose and table chunk of every PDF: are its first words on its ``page`` and
    its last words on its ``page_end`` (or ``page``)? Page text is PDFium's own (another
    parser than the reader's), compared without spaces or punctuation."""
    import pypdfium2 as pdfium

    from sectio.ingest.markdown import read_markdown

    total = right = unverifiable = 0
    wrong: list[str] = []
    for path in sorted(folder.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(path))
        text = [_norm(doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
        for r in read_markdown(path):
            ref = r.source_refs[0] if r.source_refs else None
            if getattr(r, "layer", None) != "D0" or ref is None or "not read as text" in r.text:
                continue
            words = [w for w in re.split(r"[\s|]+", r.text) if _norm(w)]
            first, last = _norm("".join(words[:3])), _norm("".join(words[-3:]))
            page = int(ref.page or 0)
            end = int(getattr(ref, "page_end", None) or page)
            seen = (
                [i + 1 for i, t in enumerate(text) if first in t],
                [i + 1 for i, t in enumerate(text) if last in t],
            )
            if not seen[0] or not seen[1]:
                unverifiable += 1  # PDFium reads those words otherwise: no verdict
                continue
            total += 1
            if page in seen[0] and end in seen[1]:
                right += 1
            else:
                wrong.append(f"{path.name} {r.chunk_id} p{page}-{end}, words on {seen}")
    print(
        f"\npages right: {right}/{total} chunks of {folder.name}/ (first and last words on "
        f"the pages they cite; {unverifiable} more not comparable: PDFium reads them otherwise)"
    )
    for w in wrong[:10]:
        print("  wrong:", w)


def speed(pages: int = 300) -> None:
    """Read a ``pages``-page PDF (the Federal Register rule, repeated) through the whole
    Markdown path (conversion, sections, chunks, layers; no embedding)."""
    import tempfile

    import pypdfium2 as pdfium

    from sectio.ingest.markdown import read_markdown

    source = DEFAULT / "pdf" / "federal-register-2020-17221.pdf"
    with tempfile.TemporaryDirectory() as tmp:
        big = pdfium.PdfDocument.new()
        src = pdfium.PdfDocument(str(source))
        while len(big) < pages:
            big.import_pages(src, list(range(min(len(src), pages - len(big)))))
        path = Path(tmp) / "big.pdf"
        big.save(str(path))
        t = time.perf_counter()
        records = read_markdown(path)
        took = time.perf_counter() - t
    print(
        f"\n{pages}-page PDF ({path.name}): {took:.1f} s to chunk records "
        f"({pages / took:.1f} pages/s), {len(records)} records"
    )


def _baseline(kind: str, source: Path, out: Path) -> Path:
    """The corpus ``source`` converted the naive way into ``out`` (see the docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(source)
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "pdf":
            from pdfminer.high_level import extract_text

            target.with_suffix(".pdf.txt").write_text(extract_text(str(path)) or " ")
        elif kind == "html":
            target.with_suffix(".html.md").write_text(path.read_text(errors="replace"))
        elif kind == "docx":
            import mammoth

            with path.open("rb") as fh:
                md = mammoth.convert_to_markdown(fh).value
            target.with_suffix(".docx.md").write_text(md or " ")
        elif kind == "mdx":
            target.with_suffix(".md").write_text(path.read_text())
        elif kind == "ipynb":  # the notebook's JSON read as a text file
            target.with_suffix(".ipynb.txt").write_text(path.read_text())
        elif kind == "myst":  # read as CommonMark: a directive is code, a role is text
            target.write_text(_MYST_BRACE.sub("{\u200b", path.read_text()))
    return out


#: The brace that opens a MyST directive's or role's name (a zero-width space after it
#: keeps the page from being read as MyST: the baseline reads it as CommonMark).
_MYST_BRACE = re.compile(r"(?<=^```)\{|(?<=^````)\{|(?<=^:::)\{|\{(?=[A-Za-z][\w:.+-]*\}`)", re.M)


def _doc_of(doc_id: str) -> str:
    """The source file a baseline document came from (``a.pdf.txt`` -> ``a.pdf``)."""
    for tail in (".txt", ".md"):
        if doc_id.endswith(tail) and not doc_id.endswith(".mdx.md"):
            stripped = doc_id.removesuffix(tail)
            if "." in stripped.rsplit("/", 1)[-1]:
                return stripped
    return doc_id.removesuffix(".md") + ".mdx" if doc_id.endswith(".md") else doc_id


def _shown(item: object) -> str:
    """What a reader of the evidence sees: the section title, then the text."""
    return f"{getattr(item, 'section_title', '') or ''}\n{getattr(item, 'text', '')}"


#: The marks that open a line of a Markdown quote (``> ``, ``> > ``).
_QUOTE_MARKS = re.compile(r"^(?:[ \t]*>)+[ \t]?", re.MULTILINE)
#: Inline marks: a code span's backticks, bold's stars (no words of the answer).
_INLINE_MARKS = re.compile(r"`+|\*\*")


def _score(
    sectio: object,
    collection: str,
    questions: list[dict[str, str]],
    doc_of: Callable[[str], str] = _doc_of,
) -> tuple:
    def norm(t: str) -> str:  # a quote's, a note's or a code span's marks are no words of it
        return " ".join(_INLINE_MARKS.sub("", _QUOTE_MARKS.sub("", t)).lower().split())

    search_hits = ask_hits = verify = 0
    for q in questions:
        want = norm(q["answer"])
        hits = sectio.search(q["question"], collection=collection, top_k=5).hits  # type: ignore[attr-defined]
        if any(doc_of(h.doc_id) == q["doc"] and want in norm(_shown(h)) for h in hits):
            search_hits += 1
        result = sectio.ask(q["question"], collection=collection, record=False)  # type: ignore[attr-defined]
        held = any(want in norm(_shown(e)) for e in result.evidence)
        if result.decision != "ABSTAIN" and held:
            ask_hits += 1
            verify += result.decision == "VERIFY_SOURCE"
    return search_hits, ask_hits, verify


def retrieval(
    root: Path = DEFAULT,
    kinds: tuple[str, ...] = ("pdf", "html", "docx", "mdx", "myst", "ipynb"),
) -> None:
    """search@5 and ask per corpus type, reader vs baseline (see the module docstring)."""
    import json
    import tempfile

    from sectio import Sectio, Settings

    questions = [json.loads(line) for line in (root / "questions.jsonl").open()]
    print(
        f"\n{'corpus':<6} {'n':>3} {'path':<9} {'search@5':>8} {'ask':>5} "
        f"{'verify':>6} {'ingest s':>8}"
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        Sectio(Settings(home=Path(tmp) / "home", embedder="minilm", traces=False)) as s,
    ):
        for kind in kinds:
            qs = [q for q in questions if q["corpus"] == kind]
            base = _baseline(kind, root / kind, Path(tmp) / f"base-{kind}")
            for label, folder in (("reader", root / kind), ("baseline", base)):
                name = f"{kind}-{label}"
                t = time.perf_counter()
                s.ingest(folder, collection=name)
                took = time.perf_counter() - t
                hit, asked, ver = _score(s, name, qs, _doc_of if kind != "myst" else str)
                print(
                    f"{kind:<6} {len(qs):>3} {label:<9} {hit / len(qs):>8.2f} "
                    f"{asked / len(qs):>5.2f} {ver:>6} {took:>8.1f}"
                )


def hand(root: Path = DEFAULT) -> None:
    """search@5 and ask on the documents converted by hand (``markdown/<kind>/``, see its
    README), beside the reader on the same source files, on their questions."""
    import json
    import shutil
    import tempfile

    from sectio import Sectio, Settings

    questions = [json.loads(line) for line in (root / "questions.jsonl").open()]
    head = f"\n{'corpus':<6} {'docs':>4} {'n':>3} {'path':<12} {'search@5':>8} {'ask':>5}"
    print(head + f" {'verify':>6}")
    with (
        tempfile.TemporaryDirectory() as tmp,
        Sectio(Settings(home=Path(tmp) / "home", embedder="minilm", traces=False)) as s,
    ):
        for kind in ("pdf", "html", "docx"):
            by_hand = root / "markdown" / kind
            stems = {p.stem: p for p in by_hand.glob("*.md")}
            sample = Path(tmp) / f"sample-{kind}"
            sample.mkdir()
            for stem in stems:
                shutil.copy(root / kind / f"{stem}.{kind}", sample)
            qs = [
                q for q in questions if q["corpus"] == kind and q["doc"][: -len(kind) - 1] in stems
            ]

            def as_source(doc_id: str, kind: str = kind) -> str:
                return doc_id.removesuffix(".md") + f".{kind}" if doc_id.endswith(".md") else doc_id

            for label, folder in (("reader", sample), ("hand md", by_hand)):
                name = f"{kind}-{label.replace(' ', '')}-sample"
                s.ingest(folder, collection=name)
                hit, asked, ver = _score(s, name, qs, as_source)
                print(
                    f"{kind:<6} {len(stems):>4} {len(qs):>3} {label:<12} {hit / len(qs):>8.2f} "
                    f"{asked / len(qs):>5.2f} {ver:>6}"
                )


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["retrieval"] and len(args) > 1:  # retrieval pdf html: those corpora only
        retrieval(kinds=tuple(args[1:]))
        raise SystemExit(0)
    if args in (["retrieval"], ["speed"], ["pages"], ["hand"]):
        {"retrieval": retrieval, "speed": speed, "pages": pages_right, "hand": hand}[args[0]]()
        raise SystemExit(0)
    skip = ("html-reference", "markdown")
    main(sorted(p for p in DEFAULT.iterdir() if p.is_dir() and p.name not in skip))
    print("\noutline R/P: PDF with bookmarks: the font rule alone against them; PDF without:")
    print("headings read by hand (pdf-outlines.json, pages listed); HTML: readability's article")
    print("reader R/P: PDF with bookmarks: what the reader makes of them (outline placed)")
    if args != ["structure"]:
        pages_right()
        speed()
        retrieval()
        hand()
