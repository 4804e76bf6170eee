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

The gold check reads the tree as ``sectio ingest --format markdown`` does
(``_sets.tree_section_keys``, no embedder), so run it with the project's interpreter::

    .venv/bin/python benchmarks/data/poetry_docs/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/python-poetry+poetry/repo``). ``ensure_tree()``
writes the tree when it is missing and checks the committed gold against it
(``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "src"))
from _sets import DocsTree  # noqa: E402

TREE = DocsTree(
    HERE, "python-poetry/poetry", "f46702336862f30050d5c641d5ed6f7568ded793", ".md", recursive=False
)
write_tree, ensure_tree = TREE.write_tree, TREE.ensure_tree

if __name__ == "__main__":
    TREE.main()
