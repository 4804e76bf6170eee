#!/usr/bin/env python3
"""Rebuild the changelogs set: five projects' real changelogs as one docs tree, and the
questions that name one of their releases.

Inputs (each read from a git mirror, ``git --git-dir=<mirror> show <commit>:<file>``):

  =========================  ============  ==========================================
  file (as written)          project       how a release is headed
  =========================  ============  ==========================================
  ``requests/HISTORY.md``    psf/requests  ``2.34.2 (2026-05-14)`` over ``-----``
  ``poetry/CHANGELOG.md``    Poetry        ``## [2.4.1] - 2026-05-09``, ``### Fixed``
  ``jest/CHANGELOG.md``      Jest          ``## 30.0.0``, ``### Features``
  ``httpx/CHANGELOG.md``     HTTPX         ``## 0.28.1 (6th December, 2024)``
  ``flask/CHANGES.rst``      Flask         ``Version 3.1.0`` over ``-----`` (RST)
  =========================  ============  ==========================================

Outputs
  .sectio-bench/corpora/changelogs/tree/<project>/<file> (not committed)   the files
                    unchanged; a benchmark ingests ``tree`` as Markdown (``--format
                    markdown`` reads the RST file with docutils)
  questions.jsonl   next to this file: per project, every k-th release (about
                    :data:`PER_PROJECT`), each asked in one of :data:`TEMPLATES` (the
                    forms a release is named in: "What changed in Requests 2.31.0?",
                    "v2.31.0 release notes", "Which bugs were fixed in 2.31.0?"), gold
                    ``doc_id#section_key`` of the release's heading (its own chunks, or the
                    sections under it); and :data:`ABSENT` releases no changelog has
                    (expect no release read). Split ``dev`` / ``holdout`` alternately.

The questions are generated: the wording of a release is what is measured, not the
wording of users' problems (see ``README.md``). Run with the project's interpreter::

    .venv/bin/python benchmarks/data/changelogs/build.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "src"))
from _sets import BUILT, git, mirror_of  # noqa: E402

#: project -> (repo, commit, file in the repo, name in the tree, product name, heading regex
#: of a release in that file: group ``v``, the version).
SOURCES = {
    "requests": (
        "psf/requests",
        "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e",
        "HISTORY.md",
        "HISTORY.md",
        "Requests",
        r"^(?P<v>\d+\.\d+(?:\.\d+)*) \(\d{4}-\d{2}-\d{2}\)$",
    ),
    "poetry": (
        "python-poetry/poetry",
        "f46702336862f30050d5c641d5ed6f7568ded793",
        "CHANGELOG.md",
        "CHANGELOG.md",
        "Poetry",
        r"^## \[(?P<v>\d+\.\d+(?:\.\d+)*)\] - \d{4}-\d{2}-\d{2}$",
    ),
    "jest": (
        "jestjs/jest",
        "52db46e50404c993d3f10dd1481e861cc04ae22e",
        "CHANGELOG.md",
        "CHANGELOG.md",
        "Jest",
        r"^## (?P<v>\d+\.\d+\.\d+)$",
    ),
    "httpx": (
        "encode/httpx",
        "ae1b9f66238f75ced3ced5e4485408435de10768",
        "CHANGELOG.md",
        "CHANGELOG.md",
        "HTTPX",
        r"^## (?P<v>\d+\.\d+\.\d+) \(",
    ),
    "flask": (
        "pallets/flask",
        "2ac89889f4cc330eabd50f295dcef02828522c69",
        "CHANGES.rst",
        "CHANGES.rst",
        "Flask",
        r"^Version (?P<v>\d+\.\d+\.\d+)$",
    ),
}
#: About how many releases are asked per project.
PER_PROJECT = 12
#: The forms a question names a release in ({p}: the project, {v}: the version).
TEMPLATES = (
    "What changed in {p} {v}?",
    "{p} {v} release notes",
    "What's new in {p} v{v}?",
    "Which bugs were fixed in {p} {v}?",
    "changes in version {v} of {p}",
    "Show me the changelog entry for {p} {v}",
)
#: A release asked without its project: in a tree of several projects' changelogs, no
#: release is read (never a guess: "Does X run on Python 3.12?" is no release of X).
BARE = "What's new in v{v}?"
#: Releases no changelog has, per project (expect no release read).
ABSENT = ("97.3.1", "0.0.42", "13.13.13")

TREE = BUILT / "changelogs" / "tree"


def write_tree(tree: Path = TREE) -> Path:
    """The five files, unchanged, under ``tree/<project>/``."""
    for project, (repo, commit, path, name, _p, _rx) in SOURCES.items():
        dest = tree / project / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(git(mirror_of(repo), "show", f"{commit}:{path}"))
    return tree


def releases(project: str, text: str) -> list[str]:
    """The versions the file heads releases with, in file order."""
    rx = re.compile(SOURCES[project][5])
    return [m["v"] for line in text.splitlines() if (m := rx.match(line.strip()))]


def gold_keys(tree: Path) -> dict[tuple[str, str], str]:
    """``(doc_id, version) -> section_key`` of each release heading, as sectio's reader keys
    it (the heading's own key, or the key its sections below start with)."""
    from sectio.ingest.readers import read_source
    from sectio.retrieve.learned.versions import title_version

    out: dict[tuple[str, str], str] = {}
    for r in read_source(tree, "markdown").records:
        d = r.model_dump()
        if d.get("layer", "D0") != "D0":
            continue
        parts = str(d["section_key"]).split("/")
        path = list(d.get("heading_path") or [d.get("section_title") or ""])
        if len(parts) != len(path):
            continue
        for depth, heading in enumerate(path):
            version = title_version(heading)
            if version is not None:
                out.setdefault((d["doc_id"], version), "/".join(parts[: depth + 1]))
    return out


def _row(qid: str, text: str, kind: str, gold: str | None, i: int) -> dict[str, object]:
    split = "dev" if i % 2 == 0 else "holdout"
    return {
        "_id": f"changelogs-{qid}",
        "text": text,
        "metadata": {"kind": kind, "gold": gold, "split": split},
    }


def main() -> None:
    tree = write_tree()
    keys = gold_keys(tree)
    rows = []
    headings = {
        project: releases(project, (tree / project / name).read_text(encoding="utf-8"))
        for project, (_repo, _c, _path, name, _p, _rx) in SOURCES.items()
    }
    for project, (_repo, _c, _path, name, product, _rx) in SOURCES.items():
        doc_id = f"{project}/{name}"
        headed = headings[project]
        elsewhere = {v for other, vs in headings.items() if other != project for v in vs}
        # a release heading with nothing under it (Jest's "## 30.1.0" over "## Features", a
        # heading of the same level) holds no section: no release to read whole
        versions = [v for v in headed if (doc_id, v) in keys]
        print(f"{doc_id}: {len(headed)} releases headed, {len(versions)} holding text")
        step = max(1, len(versions) // PER_PROJECT)
        asked = versions[::step][:PER_PROJECT]
        for i, v in enumerate(asked):
            key = keys[(doc_id, v)]
            text = TEMPLATES[(i + len(rows)) % len(TEMPLATES)].format(p=product, v=v)
            rows.append(_row(f"{project}-{v}", text, "release", f"{doc_id}#{key}", i))
        for j, v in enumerate(ABSENT):
            text = TEMPLATES[j].format(p=product, v=v)
            rows.append(_row(f"{project}-absent-{v}", text, "absent", None, j))
        bare = [v for v in asked if v not in elsewhere][:2]
        for j, v in enumerate(bare):
            rows.append(_row(f"{project}-bare-{v}", BARE.format(v=v), "bare", None, j))
    out = HERE / "questions.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} questions -> {out}")


if __name__ == "__main__":
    main()
