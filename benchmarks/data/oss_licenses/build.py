#!/usr/bin/env python3
"""Rebuild the oss_licenses set: seven open-source licences as numbered-clause legal texts.

Inputs
  * ``_licenses/<id>.txt`` of github.com/github/choosealicense.com at the
    pinned commit below (YAML front matter, then the licence text), read from a
    git mirror (``git --git-dir=<mirror> show <commit>:<path>``): Apache-2.0,
    GPL-3.0, LGPL-3.0, AGPL-3.0, MPL-2.0, EUPL-1.2, EPL-2.0;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``).

Outputs
  .sectio-bench/corpora/oss_licenses/corpus.jsonl.gz (not committed: the texts
                    stay in the mirror)   one record per chunk: doc_id (``gpl-3.0``), doc_title (the
                    front matter's ``title``: "GNU General Public License
                    v3.0"), aliases (its ``nickname``, where it has one:
                    "GNU GPLv3"), section_key ``s6`` / ``s3.3`` / ``preamble``
                    / ``appendix``, section_title the licence's own heading
                    ("6. Conveying Non-Source Forms.", "3.3. Distribution of a
                    Larger Work"), part_index, text (paragraphs packed to
                    ~1,200 characters), source_refs
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Headings, per licence family (the texts differ): GPL, LGPL and AGPL ``  N.
Title.`` (indent 2); Apache ``   N. Title.`` (indent 3, the title up to its
first full stop, the clause text after it stays in the section); MPL ``N.
Title`` and ``N.M. Title`` at column 0 or inside the ``*`` box of sections 6
and 7 (a numbered line longer than 55 characters is a clause, not a heading);
EUPL and EPL ``N. Title`` at column 0. The text before the first heading is
``preamble``; Apache's "APPENDIX" and the GNU licences' "How to Apply These
Terms to Your New Programs" are ``appendix``. Standard library only.

Usage::

    python benchmarks/data/oss_licenses/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/github+choosealicense.com/repo``).
``ensure_corpus()`` builds the corpus when it is missing and checks the
committed gold against it (``benchmarks/new_corpora.py`` calls it).
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

REPO = "github/choosealicense.com"
COMMIT = "aed28f9933c9e8435c0f1d07aa563c0a830859bc"
GNU = re.compile(r"^  (\d+)\. (\S.*?)\.?$")
APACHE = re.compile(r"^   (\d+)\. ([^.]+)\.(?:\s|$)")
COL0 = re.compile(r"^(\d+(?:\.\d+)?)\. (\S.*)$")
RULES = {
    "apache-2.0": APACHE,
    "gpl-3.0": GNU,
    "lgpl-3.0": GNU,
    "agpl-3.0": GNU,
    "mpl-2.0": COL0,
    "eupl-1.2": COL0,
    "epl-2.0": COL0,
}
APPENDIX = re.compile(r"^\s*(APPENDIX: .*|How to Apply These Terms to Your New Programs)\s*$")
MAX_CHARS = 1200


def git_show(mirror: Path, path: str) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(mirror), "show", f"{COMMIT}:{path}"],
        check=True,
        capture_output=True,
    ).stdout
    return out.decode("utf-8")


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """The front matter's ``key: value`` lines (top level only) and the licence text."""
    _, head, body = text.split("---\n", 2)
    meta = {}
    for line in head.splitlines():
        m = re.match(r"^([a-z-]+): (.+)$", line)
        if m:
            meta[m.group(1)] = m.group(2).strip()
    return meta, body


def heading(lic: str, line: str) -> tuple[str, str] | None:
    """(number, title) when ``line`` is a numbered heading of licence ``lic``."""
    probe = line
    if lic == "mpl-2.0" and line.startswith("*"):
        probe = line.strip("* ").rstrip()
    m = RULES[lic].match(probe)
    if not m:
        return None
    number, title = m.group(1), m.group(2).strip()
    if lic == "mpl-2.0" and len(title) > 55:
        return None
    return number, title


def sections(lic: str, body: str) -> list[tuple[str, str, list[str]]]:
    """(section_key, section_title, lines) in order."""
    out: list[tuple[str, str, list[str]]] = [("preamble", "Preamble", [])]
    for line in body.splitlines():
        h = heading(lic, line)
        if h:
            number, title = h
            out.append((f"s{number}", f"{number}. {title}", []))
            if lic == "apache-2.0":  # the clause text follows the title on the line
                rest = line.split(f"{title}.", 1)[1].strip()
                out[-1][2].append(rest)
            continue
        if APPENDIX.match(line):
            out.append(("appendix", line.strip().rstrip("."), []))
            continue
        out[-1][2].append(line)
    return [(k, t, lines) for k, t, lines in out if any(x.strip() for x in lines)]


def pack(lines: list[str]) -> list[str]:
    paras, cur = [], []
    for line in [*lines, ""]:
        if line.strip().strip("*").strip():
            cur.append(line.strip().strip("*").strip() if line.startswith("*") else line.strip())
        elif cur:
            paras.append(" ".join(cur))
            cur = []
    chunks, acc = [], ""
    for p in paras:
        if acc and len(acc) + len(p) + 2 > MAX_CHARS:
            chunks.append(acc)
            acc = p
        else:
            acc = f"{acc}\n\n{p}" if acc else p
    return [*chunks, acc] if acc else chunks


def build_corpus(mirror: Path) -> list[dict[str, object]]:
    records = []
    for lic in RULES:
        path = f"_licenses/{lic}.txt"
        meta, body = front_matter(git_show(mirror, path))
        for key, title, lines in sections(lic, body):
            for i, text in enumerate(pack(lines)):
                rec: dict[str, object] = {
                    "chunk_id": f"{lic}#{key}#{i}",
                    "doc_id": lic,
                    "doc_title": meta["title"],
                    "section_key": key,
                    "section_title": title,
                    "part_index": i,
                    "text": text,
                    "metadata": {"domain": "licence", "spdx_id": meta.get("spdx-id", "")},
                    "source_refs": [{"source": f"https://github.com/{REPO}/blob/{COMMIT}/{path}"}],
                }
                if meta.get("nickname"):
                    rec["aliases"] = [meta["nickname"]]
                records.append(rec)
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
    ap.add_argument("--mirror", type=Path, default=None, help="git dir of choosealicense.com")
    args = ap.parse_args()
    out, keys = write_corpus(mirror_of(REPO, args.mirror))
    n = write_questions(HERE, keys)
    print(f"{out}: {len(keys)} sections; {n} questions")


if __name__ == "__main__":
    main()
