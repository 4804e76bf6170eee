#!/usr/bin/env python3
"""Rebuild the eu_ai_act set: Regulation (EU) 2024/1689 (the AI Act) as articles, recitals, annexes.

Inputs
  * ``ai-act-source/OJ%3AL_202401689%3AEN%3ATXT.html`` of github.com/Atypis/cartho at
    the pinned commit below: a saved copy of the Official Journal's HTML of the
    Regulation as EUR-Lex serves it (``eur-lex.europa.eu/eli/reg/2024/1689/oj``,
    CONVEX converter 9.16.1, generated 2024-10-17), read from a git mirror
    (``git --git-dir=<mirror> show <commit>:<path>``). The repository's own
    Markdown conversion (``EU_AI_Act.md``) is not used: it drops Article 5(1)(c)
    and the whole of Annex VI;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``).

Outputs
  .sectio-bench/corpora/eu_ai_act/corpus.jsonl.gz (not committed: the text stays in
                    the mirror)   one record per chunk: doc_id ``eu-ai-act``, doc_title
                    "Regulation (EU) 2024/1689 (Artificial Intelligence Act)",
                    aliases ["AI Act"], section_key ``article_5`` / ``recital_26`` /
                    ``annex_iii``, section_title "Article 5 - Prohibited AI
                    practices" / "Recital 26" / "Annex III - High-risk AI systems
                    referred to in Article 6(2)", part_index, text (paragraphs
                    packed to ~1,500 characters), source_refs (the file at the
                    commit and the EUR-Lex anchor), metadata (kind, chapter)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Reading the HTML: a section is the ``div`` with id ``rct_N``, ``art_N`` or ``anx_X``;
every ``p`` inside it is a paragraph, except the footnotes (``p.oj-note``), the
signatures (``div.oj-final``) and the headings (``p.oj-ti-art`` "Article 5",
``p.oj-sti-art`` its title, ``p.oj-doc-ti`` "ANNEX III" and its title), which go
into ``section_title``. A list label in its own table cell ("(a)", "1.", "(27)") is
joined to the paragraph after it; footnote markers are dropped; a superscript is
written ``10^25``. The citations before the recitals and the signatures are not
kept. Standard library only.

Usage::

    python benchmarks/data/eu_ai_act/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/Atypis+cartho/repo``). ``ensure_corpus()`` builds
the corpus when it is missing and checks the committed gold against it
(``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _sets import (  # noqa: E402
    ensure_records,
    git,
    mirror_of,
    write_questions,
    write_records,
)

REPO = "Atypis/cartho"
COMMIT = "28699da2189b4f332c078b3d656bebdca3412d46"
PATH = "ai-act-source/OJ%3AL_202401689%3AEN%3ATXT.html"
EURLEX = "https://eur-lex.europa.eu/eli/reg/2024/1689/oj/eng"
DOC_ID = "eu-ai-act"
DOC_TITLE = "Regulation (EU) 2024/1689 (Artificial Intelligence Act)"
ALIASES = ["AI Act"]
SECTION = re.compile(r"^(rct|art|anx)_([0-9]+|[IVX]+)$")
CHAPTER = re.compile(r"^cpt_([IVX]+)$")
LABEL = re.compile(r"^(\(\d+\)|\([a-z]{1,4}\)|\d+\.|[a-z]\.|[—–•-])$")
HEADINGS = {"oj-ti-art", "oj-sti-art", "oj-doc-ti"}
KINDS = {"rct": "recital", "art": "article", "anx": "annex"}
MAX_CHARS = 1500


@dataclass
class _Section:
    """One article, recital or annex as read: its chapter, headings and paragraphs."""

    chapter: str | None
    headings: list[str] = field(default_factory=list)
    paras: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    """The paragraphs of the Regulation's HTML, per section, in order.

    ``sections`` maps a section id (``art_5``) to its :class:`_Section`.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.divs: list[tuple[str, str]] = []  # (id, class) of the open divs
        self.sections: dict[str, _Section] = {}
        self.buf: list[str] | None = None
        self.cls = ""
        self.skip = 0  # inside a footnote marker, a footnote or the signatures
        self.sup = False
        self.label = ""
        self.anchors: list[bool] = []  # per open ``a``: is it a footnote marker

    def _where(self, pattern: re.Pattern[str]) -> str | None:
        return next((i for i, _ in reversed(self.divs) if pattern.match(i)), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "div":
            self.divs.append((a.get("id", ""), a.get("class", "")))
            if "oj-final" in a.get("class", ""):
                self.skip += 1
        elif tag == "a":
            self.anchors.append(a.get("href", "").startswith("#ntr"))
            self.skip += self.anchors[-1]
        elif tag == "p":
            self.buf, self.cls = [], a.get("class", "")
            if self.cls == "oj-note":
                self.skip += 1
        elif tag == "span" and a.get("class") == "oj-super":
            self.sup = True
        elif tag == "br" and self.buf is not None:
            self.buf.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.divs:
            _, cls = self.divs.pop()
            if "oj-final" in cls:
                self.skip -= 1
        elif tag == "a" and self.anchors:
            self.skip -= self.anchors.pop()
        elif tag == "p" and self.buf is not None:
            if self.cls == "oj-note":
                self.skip -= 1
            else:
                self._paragraph(" ".join("".join(self.buf).split()), self.cls)
            self.buf = None

    def handle_data(self, data: str) -> None:
        if self.buf is not None and not self.skip:
            self.buf.append(f"^{data.strip()}" if self.sup else data)
        self.sup = False

    def _paragraph(self, text: str, cls: str) -> None:
        sid = self._where(SECTION)
        if not text or sid is None or self.skip:
            return
        sec = self.sections.setdefault(sid, _Section(self._where(CHAPTER)))
        if cls in HEADINGS:
            sec.headings.append(text)
        elif LABEL.match(text):
            self.label = f"{self.label} {text}".strip()
        else:
            sec.paras.append(f"{self.label} {text}".strip())
            self.label = ""


def join_up_to(pieces: Iterable[str], sep: str) -> list[str]:
    """``pieces`` joined in order with ``sep`` into runs of at most ~:data:`MAX_CHARS`."""
    out, acc = [], ""
    for piece in pieces:
        if acc and len(acc) + len(sep) + len(piece) > MAX_CHARS:
            out.append(acc)
            acc = piece
        else:
            acc = f"{acc}{sep}{piece}" if acc else piece
    return [*out, acc] if acc else out


def split_long(para: str) -> list[str]:
    """``para`` in pieces of at most ~:data:`MAX_CHARS`, cut after a sentence or a clause."""
    if len(para) <= MAX_CHARS:
        return [para]
    return join_up_to(re.split(r"(?<=[.;:])\s+(?=[A-Z(‘])", para), " ")


def pack(paras: list[str]) -> list[str]:
    """Paragraphs packed in order into chunks of at most ~:data:`MAX_CHARS` characters."""
    return join_up_to((piece for para in paras for piece in split_long(para)), "\n\n")


def key_and_title(sid: str, headings: list[str]) -> tuple[str, str]:
    """``(article_5, "Article 5 - Prohibited AI practices")`` for ``art_5``, and the like."""
    kind, number = sid.split("_", 1)
    if kind == "rct":
        return f"recital_{number}", f"Recital {number}"
    if kind == "art":
        return f"article_{number}", f"Article {number} - {headings[1]}"
    return f"annex_{number.lower()}", f"Annex {number} - {headings[1]}"


def build_corpus(mirror: Path) -> list[dict[str, object]]:
    reader = _Reader()
    reader.feed(git(mirror, "show", f"{COMMIT}:{PATH}").decode("utf-8"))
    records: list[dict[str, object]] = []
    for sid, sec in reader.sections.items():
        key, title = key_and_title(sid, sec.headings)
        kind = KINDS[sid.split("_")[0]]
        meta = {"domain": "law", "kind": kind}
        if sec.chapter:
            meta["chapter"] = sec.chapter.removeprefix("cpt_")
        for i, text in enumerate(pack(sec.paras)):
            records.append(
                {
                    "chunk_id": f"{DOC_ID}#{key}#{i}",
                    "doc_id": DOC_ID,
                    "doc_title": DOC_TITLE,
                    "aliases": ALIASES,
                    "section_key": key,
                    "section_title": title,
                    "part_index": i,
                    "text": text,
                    "metadata": meta,
                    "source_refs": [
                        {
                            "source": f"https://github.com/{REPO}/blob/{COMMIT}/{PATH}",
                            "url": f"{EURLEX}#{sid}",
                        }
                    ],
                }
            )
    return records


def write_corpus(mirror: Path) -> tuple[Path, set[str]]:
    """Build the corpus from ``mirror`` into :data:`BUILT`; its path and section ids."""
    return write_records(HERE, build_corpus(mirror))


def ensure_corpus(mirror: Path | None = None) -> Path:
    """The built corpus (built from the mirror when missing), its gold checked.

    Raises:
        SystemExit: no mirror, or a gold pair not in the corpus.
    """
    return ensure_records(HERE, lambda: write_corpus(mirror_of(REPO, mirror)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=None, help=f"git dir of {REPO}")
    ap.add_argument("--keys", action="store_true", help="only build and print section keys")
    args = ap.parse_args()
    out, keys = write_corpus(mirror_of(REPO, args.mirror))
    if args.keys:
        print("\n".join(sorted(keys)))
        return
    n = write_questions(HERE, keys)
    print(f"{out}: {len(keys)} sections; {n} questions")


if __name__ == "__main__":
    main()
