#!/usr/bin/env python3
"""Rebuild the trpc_docs set: the tRPC documentation (Docusaurus Markdown and MDX, English)
and its questions.

Inputs
  * every ``.md`` and ``.mdx`` page of ``www/docs/`` of github.com/trpc/trpc at the pinned
    commit below (61 ``.md``, 29 ``.mdx``), read from a git mirror (``git --git-dir=<mirror>
    show <commit>:www/docs/<file>``); MIT (``LICENSE`` at that commit). Docusaurus pages:
    front matter with ``title`` and ``sidebar_label``, MDX ``import`` lines and JSX
    components, ``twoslash`` code blocks, an intro page titled with the product's name;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<path>#<section_key>``, the section keys sectio's reader gives (``--keys``
    prints them).

Outputs
  .sectio-bench/corpora/trpc_docs/tree/docs/** (not committed: the pages stay in the
                    mirror)   the pages unchanged, ``www/docs/`` written as ``docs/``; a
                    benchmark ingests ``tree`` as Markdown (``doc_id`` =
                    ``docs/server/routers.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Run it with the project's interpreter::

    .venv/bin/python benchmarks/data/trpc_docs/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/trpc+trpc/repo``). ``ensure_tree()`` writes the tree
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
    "trpc/trpc",
    "340811ba5320637fbaf48fccf3dbfdd258bd34db",
    (".md", ".mdx"),
    source="www/docs/",
)
write_tree, ensure_tree = TREE.write_tree, TREE.ensure_tree

if __name__ == "__main__":
    TREE.main()
