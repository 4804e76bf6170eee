#!/usr/bin/env python3
"""Rebuild the quic_rfc corpus (chunk JSONL) from the four QUIC RFCs, and the question files.

Inputs
  * RFC 8999, 9000, 9001 and 9002 in the IETF's plain-text form, read from a
    git mirror of github.com/MDGSF/HTTPPractice (``rfc/rfc<N>.txt``) at the
    pinned commit below (``git --git-dir=<mirror> show <commit>:<path>``).
    The texts are the RFC Editor's; the IETF Trust allows whole copies
    (see README.md).
  * ``labels.tsv`` (ours): one question per row (see README.md).

Outputs
  .sectio-bench/corpora/quic_rfc/corpus.jsonl.gz (not committed: the RFC text
                    stays in the mirror)   one record per chunk: chunk_id, doc_id (``rfc9000``),
                    doc_title, section_key (``s4.2``, ``sA.1``, ``abstract``),
                    section_title (the RFC's own heading, ``4.2. Increasing
                    Flow Control Limits``), part_index, text
  questions.jsonl   (next to this file) every question, with its split
  qrels/{dev,holdout,all}.tsv   (next to this file) ``query-id  corpus-id
                    score``, corpus-id ``doc_id#section_key``, answerable only

Sections kept: the abstract and every numbered section and appendix; the
boilerplate (status, copyright, contents), references, acknowledgments,
contributors, index and authors' addresses are dropped. Paragraphs are
packed in order into chunks of at most ~1,200 characters (a longer
paragraph is a chunk of its own). Standard library only.

Usage::

    python benchmarks/data/quic_rfc/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/MDGSF+HTTPPractice/repo``). ``ensure_corpus()``
builds the corpus when it is missing and checks the committed gold against it
(``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _sets import (  # noqa: E402
    ensure_records,
    mirror_of,
    write_questions,
    write_records,
)

REPO = "MDGSF/HTTPPractice"
COMMIT = "b1e6952f09a4f91ec307af4bf6c014ac7c61eff0"
RFCS = {
    "rfc8999": "Version-Independent Properties of QUIC",
    "rfc9000": "QUIC: A UDP-Based Multiplexed and Secure Transport",
    "rfc9001": "Using TLS to Secure QUIC",
    "rfc9002": "QUIC Loss Detection and Congestion Control",
}
HEADING = re.compile(r"^((?:\d+\.)+|Appendix [A-Z]\.|[A-Z](?:\.\d+)+\.)\s+(\S.*)$")
DROP = re.compile(
    r"^(References|Normative References|Informative References|Acknowledgments|"
    r"Contributors|Index|Authors' Addresses|Author's Address)$"
)
MAX_CHARS = 1200


def git_show(mirror: Path, path: str) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(mirror), "show", f"{COMMIT}:{path}"],
        check=True,
        capture_output=True,
    ).stdout
    return out.decode("utf-8").lstrip("\ufeff")


def sections(text: str) -> list[tuple[str, str, list[str]]]:
    """(section_key, section_title, paragraphs) in document order."""
    lines = text.splitlines()
    out: list[tuple[str, str, list[str]]] = []
    key = title = None
    body: list[str] = []
    in_toc = False

    def close() -> None:
        if key is not None:
            out.append((key, title or key, paragraphs(body)))

    for line in lines:
        if line and not line[0].isspace():
            m = HEADING.match(line)
            if line.strip() in ("Status of This Memo", "Copyright Notice", "Table of Contents"):
                close()
                key, body, in_toc = None, [], True
                continue
            if line.strip() == "Abstract":
                close()
                key, title, body, in_toc = "abstract", "Abstract", [], False
                continue
            if m:
                number = m.group(1).removeprefix("Appendix ").rstrip(".")
                name = m.group(2).strip()
                close()
                body, in_toc = [], False
                if DROP.match(name):
                    key = None
                    continue
                key = "s" + number
                title = f"{m.group(1)} {name}"
                continue
            if DROP.match(line.strip()):
                close()
                key, body = None, []
                continue
        if key is not None and not in_toc:
            body.append(line)
    close()
    return out


def paragraphs(body: list[str]) -> list[str]:
    """Blank-line separated blocks, the RFC's 3-space indent removed, lines kept."""
    out, cur = [], []
    for line in [*body, ""]:
        if line.strip():
            cur.append(line[3:] if line.startswith("   ") else line)
        elif cur:
            out.append("\n".join(cur).rstrip())
            cur = []
    return out


def pack(paras: list[str]) -> list[str]:
    chunks, cur = [], ""
    for p in paras:
        if cur and len(cur) + len(p) + 2 > MAX_CHARS:
            chunks.append(cur)
            cur = p
        else:
            cur = f"{cur}\n\n{p}" if cur else p
    if cur:
        chunks.append(cur)
    return chunks


def build_corpus(mirror: Path) -> list[dict[str, object]]:
    records = []
    for doc_id, name in RFCS.items():
        number = doc_id.removeprefix("rfc")
        doc_title = f"RFC {number}: {name}"
        path = f"rfc/{doc_id}.txt"
        for key, title, paras in sections(git_show(mirror, path)):
            for i, text in enumerate(pack(paras)):
                records.append(
                    {
                        "chunk_id": f"{doc_id}#{key}#{i}",
                        "doc_id": doc_id,
                        "doc_title": doc_title,
                        "section_key": key,
                        "section_title": title,
                        "part_index": i,
                        "text": text,
                        "metadata": {"domain": "ietf_rfc"},
                        "source_refs": [
                            {
                                "source": f"https://github.com/{REPO}/blob/{COMMIT}/{path}",
                                "url": f"https://www.rfc-editor.org/rfc/{doc_id}#section-"
                                + key.removeprefix("s"),
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
    ap.add_argument("--mirror", type=Path, default=None, help="git dir of MDGSF/HTTPPractice")
    args = ap.parse_args()
    out, keys = write_corpus(mirror_of(REPO, args.mirror))
    n = write_questions(HERE, keys)
    print(f"{out}: {len(keys)} sections; {n} questions")


if __name__ == "__main__":
    main()
