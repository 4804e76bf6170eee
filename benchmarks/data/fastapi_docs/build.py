#!/usr/bin/env python3
"""Rebuild the fastapi_docs set: the FastAPI documentation (MkDocs Markdown, English) and
its questions.

Inputs
  * every ``.md`` page of ``docs/en/docs/`` of github.com/fastapi/fastapi at the pinned
    commit below (155 pages), read from a git mirror (``git --git-dir=<mirror> show
    <commit>:docs/en/docs/<file>``); MIT (``LICENSE`` at that commit). MkDocs Material
    Markdown: ``/// tip`` / ``/// note`` admonitions, ``{* ../../docs_src/x.py hl[3] *}``
    code includes, a 2,000-line ``release-notes.md``, a ``how-to/`` folder;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<path>.md#<section_key>``, the section keys sectio's reader gives (``--keys``
    prints them).

Outputs
  .sectio-bench/corpora/fastapi_docs/tree/docs/**.md (not committed: the pages stay in the
                    mirror)   the pages unchanged, ``docs/en/docs/`` written as ``docs/``; a
                    benchmark ingests ``tree`` as Markdown (``doc_id`` =
                    ``docs/tutorial/body.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Run it with the project's interpreter::

    .venv/bin/python benchmarks/data/fastapi_docs/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/fastapi+fastapi/repo``). ``ensure_tree()`` writes the tree
when it is missing and checks the committed gold against it (``benchmarks/new_corpora.py``
calls it).
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
    HERE,
    "fastapi/fastapi",
    "c3f316b7e814667e8ee81e03a7330d00ee61e45c",
    ".md",
    source="docs/en/docs/",
)
write_tree, ensure_tree = TREE.write_tree, TREE.ensure_tree

if __name__ == "__main__":
    TREE.main()
