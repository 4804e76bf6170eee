#!/usr/bin/env python3
"""Rebuild the handbook_18f set: the TTS Handbook (18F's staff handbook, Eleventy Markdown,
English) and its questions.

Inputs
  * every ``.md`` page of ``pages/`` of github.com/18F/handbook at the pinned commit below
    (246 pages), read from a git mirror (``git --git-dir=<mirror> show
    <commit>:pages/<file>``); US Government work, CC0 1.0 (``LICENSE.md`` at that commit).
    Eleventy pages: front matter with ``title``, ``keywords`` and ``redirect_from``,
    Liquid tags (``{% alert %}``, ``{% page "..." %}`` links), the policies and how-tos of
    an organisation's staff (leave, travel, equipment, hiring, tools);
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<path>#<section_key>``, the section keys sectio's reader gives (``--keys``
    prints them).

Outputs
  .sectio-bench/corpora/handbook_18f/tree/docs/** (not committed: the pages stay in the
                    mirror)   the pages unchanged, ``pages/`` written as ``docs/``; a
                    benchmark ingests ``tree`` as Markdown (``doc_id`` =
                    ``docs/travel-and-leave/leave.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Run it with the project's interpreter::

    .venv/bin/python benchmarks/data/handbook_18f/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/18F+handbook/repo``). ``ensure_tree()`` writes the tree
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

#: The pages of ``pages/`` at the pinned commit, written as ``docs/``
#: (``pages/travel-and-leave/leave.md`` -> ``docs/travel-and-leave/leave.md``).
TREE = DocsTree(
    HERE, "18F/handbook", "1e4955634d0369f17e5bbc0ebbf8f62e2a3dfe4b", ".md", source="pages/"
)
write_tree, ensure_tree = TREE.write_tree, TREE.ensure_tree

if __name__ == "__main__":
    TREE.main()
