#!/usr/bin/env python3
"""Rebuild the git_docs set: Git's own manual pages (AsciiDoc, man-page style) and their
questions.

Inputs
  * 65 pages of ``Documentation/`` of github.com/git/git at the pinned commit below
    (:data:`PAGES`: the top-level pages ``git-<command>.adoc`` of 60 commands, and
    ``gitignore``, ``gitattributes``, ``githooks``, ``gitrevisions``, ``gitglossary``),
    read from a git mirror (``git --git-dir=<mirror> show <commit>:Documentation/<file>``);
    GPL-2.0 (``COPYING`` at that commit). Man pages in AsciiDoc: a two-line title
    (``git-commit(1)`` over ``====``), two-line sections (``NAME``, ``SYNOPSIS``,
    ``DESCRIPTION``, ``OPTIONS``, ``EXAMPLES``, ``SEE ALSO``... over ``----``), labeled
    lists of options (``--amend::``), ``linkgit:`` macros, ``include::`` lines (the
    included files, ``config/*.adoc``, ``diff-options.adoc``..., are not copied: sectio's
    reader drops the line);
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``docs/<page>.adoc#<section_key>``, the section keys sectio's reader gives (``--keys``
    prints them).

Outputs
  .sectio-bench/corpora/git_docs/tree/docs/*.adoc (not committed: the pages stay in the
                    mirror)   the pages unchanged, ``Documentation/`` written as ``docs/``;
                    a benchmark ingests ``tree`` as Markdown (``doc_id`` =
                    ``docs/git-commit.adoc``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Run it with the project's interpreter::

    .venv/bin/python benchmarks/data/git_docs/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/git+git/repo``). ``ensure_tree()`` writes the tree when
it is missing and checks the committed gold against it (``benchmarks/new_corpora.py``
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

REPO = "git/git"
COMMIT = "1a3e64c6c4a623626ff0687008732a8e007e2a1c"
#: Where the pages are in the repository.
SOURCE = "Documentation/"
#: The commands whose page ``git-<command>.adoc`` is copied: the main porcelain and a few
#: plumbing commands users meet.
COMMANDS = (
    "add", "am", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file",
    "checkout", "cherry", "cherry-pick", "clean", "clone", "commit", "config",
    "credential", "describe", "diff", "difftool", "fetch", "filter-branch",
    "format-patch", "fsck", "gc", "grep", "hash-object", "init", "log", "ls-files",
    "maintenance", "merge", "mergetool", "mv", "notes", "pull", "push", "range-diff",
    "rebase", "reflog", "remote", "request-pull", "reset", "restore", "rev-list",
    "rev-parse", "revert", "rm", "send-email", "shortlog", "show", "show-ref",
    "sparse-checkout", "stash", "status", "submodule", "switch", "tag", "update-index",
    "worktree",
)  # fmt: skip
#: Every page copied: the commands' pages, then five concept pages.
PAGES = (
    *(f"git-{c}.adoc" for c in COMMANDS),
    "gitignore.adoc", "gitattributes.adoc", "githooks.adoc", "gitrevisions.adoc",
    "gitglossary.adoc",
)  # fmt: skip


def write_tree(mirror: Path, dest: Path) -> Path:
    """The pages :data:`PAGES` of :data:`SOURCE` at :data:`COMMIT`, unchanged, under
    ``dest/docs/`` (``Documentation/git-commit.adoc`` -> ``docs/git-commit.adoc``)."""
    (dest / "docs").mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        (dest / "docs" / name).write_bytes(git(mirror, "show", f"{COMMIT}:{SOURCE}{name}"))
    return dest


def ensure_tree(mirror: Path | None = None) -> Path:
    """The built tree, its gold checked (:func:`_sets.ensure_docs_tree`)."""
    return ensure_docs_tree(HERE, REPO, write_tree, tree_section_keys, mirror)


def main() -> None:
    build_docs_set(HERE, REPO, write_tree)


if __name__ == "__main__":
    main()
