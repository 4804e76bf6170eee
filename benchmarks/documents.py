"""Documents readers on real files: per file, pages, seconds, headings, tables, flags.

    .venv/bin/python benchmarks/documents.py [FOLDER ...]   # default: benchmarks/data/documents

Prints one row per file and a total per reader: pages (PDF), seconds, pages/s and
MB/s, headings found, tables (block chunks of kind table), how many of them are
flagged ``requires_visual_check``, figures flagged, and, for a PDF that has an
outline (bookmarks), the recall and precision of the font rule's headings
against that outline (the outline is the document's own table of contents).
Files and their sources: benchmarks/data/documents/README.md.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from sectio.ingest.detect import detect_source
from sectio.ingest.documents import convert, kind_of
from sectio.ingest.documents import pdf as pdf_reader
from sectio.ingest.md_parse import parse_markdown

DEFAULT = Path(__file__).parent / "data" / "documents"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _font_rule_vs_outline(path: Path) -> tuple[float, float] | None:
    outline = pdf_reader._outline(path)
    if not outline:
        return None
    saved = pdf_reader._outline
    pdf_reader._outline = lambda _p: []  # the font rule alone
    try:
        doc = parse_markdown(pdf_reader.read_pdf(path).markdown, path.name)
    finally:
        pdf_reader._outline = saved
    found = {_norm(s.title) for s in doc.sections if s.level}
    truth = {_norm(t) for _, t, _ in outline}
    hit = len(found & truth)
    return hit / len(truth), (hit / len(found) if found else 0.0)


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
    pr = _font_rule_vs_outline(path) if kind == "pdf" else None
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
    }


def main(folders: list[Path]) -> None:
    rows = []
    for folder in folders:
        found = detect_source(folder)
        for path in found.files:
            rows.append(_row(path, folder))
        for path, why in found.refused:
            print(f"refused {path.name}: {why}")
    head = f"{'file':<44} {'kind':<8} {'pages':>5} {'s':>6} {'headings':>8} {'tables':>6} "
    print(head + f"{'flagged':>7} {'figures':>7} {'outline R/P':>11}")
    for r in rows:
        rp = r["outline_rp"]
        rp_s = f"{rp[0]:.2f}/{rp[1]:.2f}" if isinstance(rp, tuple) else "-"
        print(
            f"{str(r['file'])[:44]:<44} {r['kind']:<8} {r['pages']:>5} {r['s']:>6.2f} "
            f"{r['headings']:>8} {r['tables']:>6} {r['flagged']:>7} {r['figures']:>7} {rp_s:>11}"
        )
    print()
    print(f"{'reader':<8} {'files':>5} {'pages':>6} {'s':>7} {'pages/s':>8} {'MB/s':>6}")
    for kind in sorted({str(r["kind"]) for r in rows}):
        got = [r for r in rows if r["kind"] == kind]
        s = sum(float(r["s"]) for r in got)  # type: ignore[arg-type]
        pages = sum(int(r["pages"]) for r in got)  # type: ignore[call-overload]
        mb = sum(float(r["mb"]) for r in got)  # type: ignore[arg-type]
        rate = f"{pages / s:8.1f}" if pages and s else f"{'-':>8}"
        print(f"{kind:<8} {len(got):>5} {pages:>6} {s:>7.2f} {rate} {mb / s if s else 0:>6.2f}")


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    main(args or sorted(p for p in DEFAULT.iterdir() if p.is_dir()))
