#!/usr/bin/env python3
"""Rebuild the poetry_docs set: the Poetry documentation tree (Markdown) and its questions.

Inputs
  * the 16 Markdown files under ``docs/`` of github.com/python-poetry/poetry at
    the pinned commit below, read from a git mirror (``git --git-dir=<mirror>
    show <commit>:docs/<file>``); MIT licence (``LICENSE`` at that commit);
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<file>.md#<section_key>``, the section keys sectio's Markdown
    reader gives (``cli.md`` heading "lock" under "Commands" ->
    ``commands/lock``).

Outputs
  .sectio-bench/corpora/poetry_docs/tree/docs/*.md (not committed: the docs
                    stay in the mirror)   the 16 files unchanged; a benchmark
                    ingests ``tree`` as Markdown (``doc_id`` = ``docs/cli.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

The gold check reads the tree with ``sectio.ingest.markdown.read_markdown``
(no embedder), so run it with the project's interpreter::

    .venv/bin/python benchmarks/data/poetry_docs/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/python-poetry+poetry/repo``). ``ensure_tree()``
writes the tree when it is missing and checks the committed gold against it
(``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "src"))
from _sets import BUILT, ensure_docs_tree, mirror_of, write_docs, write_questions  # noqa: E402

REPO = "python-poetry/poetry"
COMMIT = "f46702336862f30050d5c641d5ed6f7568ded793"


def write_tree(mirror: Path, dest: Path) -> Path:
    """The 16 files of ``docs/`` at :data:`COMMIT`, unchanged, under ``dest/docs/``."""
    return write_docs(mirror, COMMIT, dest, ".md")


def section_keys(tree: Path) -> set[str]:
    from sectio.ingest.markdown import read_markdown

    return {
        f"{r.doc_id}#{r.section_key}"
        for r in read_markdown(tree)
        if r.model_dump().get("layer", "D0") == "D0"
    }


def ensure_tree(mirror: Path | None = None) -> Path:
    """The built tree, its gold checked (:func:`_sets.ensure_docs_tree`)."""
    return ensure_docs_tree(HERE, REPO, write_tree, section_keys, mirror)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=None, help="git dir of python-poetry/poetry")
    args = ap.parse_args()
    tree = write_tree(mirror_of(REPO, args.mirror), BUILT / "poetry_docs" / "tree")
    keys = section_keys(tree)
    n = write_questions(HERE, keys)
    print(f"{tree}: {len(keys)} sections; {n} questions")


if __name__ == "__main__":
    main()
