#!/usr/bin/env python3
"""Rebuild the jest_docs set: 37 pages of the Jest documentation (Docusaurus Markdown) and
their questions.

Inputs
  * the 37 ``.md`` pages of ``docs/`` named in :data:`PAGES`, of github.com/jestjs/jest at
    the pinned commit below, read from a git mirror (``git --git-dir=<mirror> show
    <commit>:docs/<file>``); MIT (``LICENSE`` at that commit). Every page of the current
    (unversioned) docs but the partial ``_TypeScriptExamplesNote.md`` (an MDX include, no
    page of its own: Docusaurus does not route files starting with ``_``). Docusaurus
    Markdown: a front matter ``title``, no H1, ``:::tip`` / ``:::note`` / ``:::caution``
    / ``:::info`` admonitions, MDX imports and components (``<TOCInline>``,
    ``<TypeScriptExamplesNote />``), ``npm2yarn`` code fences;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<file>.md#<section_key>``, the section keys sectio's reader gives (``--keys``
    prints them).

Outputs
  .sectio-bench/corpora/jest_docs/tree/docs/*.md (not committed: the pages stay in the
                    mirror)   the 37 files unchanged; a benchmark ingests ``tree`` as
                    Markdown (``doc_id`` = ``docs/MockFunctions.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

The gold check reads the tree as ``sectio ingest --format markdown`` does
(``sectio.ingest.readers.read_source``, no embedder), so run it with the
project's interpreter::

    .venv/bin/python benchmarks/data/jest_docs/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/jestjs+jest/repo``). ``ensure_tree()`` writes the tree
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
from _sets import build_docs_set, ensure_docs_tree, git, tree_section_keys  # noqa: E402

REPO = "jestjs/jest"
COMMIT = "52db46e50404c993d3f10dd1481e861cc04ae22e"
#: The pages taken (``docs/<name>.md``), by theme.
PAGES = (
    # introduction
    "GettingStarted",
    "UsingMatchers",
    "TestingAsyncCode",
    "SetupAndTeardown",
    "MockFunctions",
    "JestPlatform",
    "JestCommunity",
    "MoreResources",
    # guides
    "SnapshotTesting",
    "TimerMocks",
    "ManualMocks",
    "Es6ClassMocks",
    "BypassingModuleMocks",
    "ECMAScriptModules",
    "CodeTransformation",
    "TestEnvironment",
    "EnvironmentVariables",
    "WatchPlugins",
    "Architecture",
    "Troubleshooting",
    "MigrationGuide",
    "UpgradingToJest29",
    "UpgradingToJest30",
    # framework guides
    "TestingFrameworks",
    "Webpack",
    "Puppeteer",
    "MongoDB",
    "DynamoDB",
    "TutorialReactNative",
    "TutorialAsync",
    "TutorialjQuery",
    # API reference
    "GlobalAPI",
    "ExpectAPI",
    "MockFunctionAPI",
    "JestObjectAPI",
    "Configuration",
    "CLI",
)


def write_tree(mirror: Path, dest: Path) -> Path:
    """The :data:`PAGES` of ``docs/`` at :data:`COMMIT`, unchanged, under ``dest/docs/``."""
    for page in PAGES:
        name = f"docs/{page}.md"
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(git(mirror, "show", f"{COMMIT}:{name}"))
    return dest


def ensure_tree(mirror: Path | None = None) -> Path:
    """The built tree, its gold checked (:func:`_sets.ensure_docs_tree`)."""
    return ensure_docs_tree(HERE, REPO, write_tree, tree_section_keys, mirror)


def main() -> None:
    build_docs_set(HERE, REPO, write_tree)


if __name__ == "__main__":
    main()
