#!/usr/bin/env python3
"""Rebuild the requests_docs set: the Requests docs tree (reStructuredText) and its questions.

Inputs
  * the 15 ``.rst`` files under ``docs/`` of github.com/psf/requests at the
    pinned commit below (``api.rst``, ``index.rst``, ``user/*.rst``,
    ``community/*.rst``, ``dev/*.rst``; not ``_themes``, ``_static``,
    ``_templates``, ``conf.py``, the Makefile), read from a git mirror
    (``git --git-dir=<mirror> show <commit>:docs/<file>``); Apache-2.0
    (``LICENSE`` at that commit);
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<file>.rst#<section_key>``, the section keys sectio's document
    reader gives (docutils -> HTML -> Markdown: ``user/quickstart.rst`` title
    "Timeouts" under "Quickstart" -> ``quickstart/timeouts``).

Outputs
  .sectio-bench/corpora/requests_docs/tree/docs/**/*.rst (not committed: the
                    docs stay in the mirror)   the 15 files unchanged; a
                    benchmark ingests ``tree`` as Markdown (``--format
                    markdown``; ``doc_id`` = ``docs/user/quickstart.rst``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

The gold check reads the tree as ``sectio ingest --format markdown`` does
(``sectio.ingest.readers.read_source``, no embedder), so run it with the
project's interpreter::

    .venv/bin/python benchmarks/data/requests_docs/build.py [--mirror GIT_DIR]

(default mirror: ``/work/.mirror/psf+requests/repo``). ``ensure_tree()``
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

#: Folders of ``docs/`` that are the Sphinx theme and assets, not documentation.
SKIP = ("docs/_themes/", "docs/_static/", "docs/_templates/")

TREE = DocsTree(HERE, "psf/requests", "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e", ".rst", skip=SKIP)
write_tree, ensure_tree = TREE.write_tree, TREE.ensure_tree

if __name__ == "__main__":
    TREE.main()
