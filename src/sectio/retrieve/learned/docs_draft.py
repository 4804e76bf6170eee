"""A docs planner profile drafted from a documentation tree (``sectio profile draft``).

A docs tree routes by its own headings (learned at ingest, see
:mod:`sectio.plan.sections`): what a profile adds is where the tree keeps each
kind of page, the ``[docs]`` table of the planner's layout
(:class:`~sectio.plan.resolver.DocsLayout`). :func:`draft_docs_profile` guesses it
from the folders' and pages' names: a folder or page whose name holds a marker
of a kind (``api``, ``reference``; ``architecture``, ``design``; ``guide``,
``tutorial``; ``concepts``) gives that kind's path prefixes, the most specific
first, then the tree's common root (a kind's hard filters are written only
where the tree has one: filtered to the pages found alone, a question of that
kind would miss the rest of the tree); the pages a general question should
prefer are its overview pages (``index``, ``README``, ``overview``,
``introduction``, ``getting-started``, ``quickstart``). A kind with no such
folder or page is left out, with a comment: its default (``docs/api/`` ...) is
not applied where it holds no page (:func:`~sectio.plan.planner.fit_to_pages`).
The draft parses as a profile of the same engine and BM25 settings as the
collection's.

Example:
    >>> text = draft_docs_profile(
    ...     [{"doc_id": "docs/reference/api.md"}, {"doc_id": "docs/index.md"}], name="kit"
    ... )
    >>> 'engine = "docs_planner"' in text
    True
    >>> 'api_prefixes = ["docs/reference/", "docs/"]' in text
    True
    >>> 'api_hard_prefixes = ["docs/reference/", "docs/"]' in text
    True
    >>> 'general_prefer_prefixes = ["docs/index.md", "docs/"]' in text
    True
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sectio.contract.profile import LexicalSettings
from sectio.retrieve.learned.toml_text import lexical_lines, toml_value

#: Name markers of each kind of page, the ``[docs]`` key of its soft preference and those
#: of its hard filters (written only with the tree's root after them: a filter to the
#: pages found alone would hide the rest of the tree from such questions).
KINDS: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "api": (("api", "reference"), "api_prefixes", ("find_api_prefixes", "api_hard_prefixes")),
    "architecture": (
        ("architecture", "design", "internals"),
        "architecture_prefixes",
        ("find_architecture_prefixes",),
    ),
    "logic": (
        ("guide", "guides", "tutorial", "tutorials", "howto", "how-to", "usage", "advanced"),
        "logic_prefixes",
        ("find_logic_prefixes",),
    ),
    "domain": (
        ("concepts", "concept", "domains", "domain"),
        "domain_prefixes",
        ("find_domain_prefixes",),
    ),
}
#: Names of the pages a general question should prefer.
OVERVIEW_PAGES = ("index", "readme", "overview", "introduction", "intro", "getting-started",
                  "getting_started", "quickstart")  # fmt: skip


def _words(name: str) -> set[str]:
    stem = name.rsplit(".", 1)[0].lower()
    return {stem, *re.split(r"[-_.\s]+", stem)}


def _root(paths: Sequence[str]) -> str:
    """The folder every page is under ('' when none is): ``docs/``."""
    folders = [posixpath.dirname(p) for p in paths]
    common = posixpath.commonpath(folders) if folders and all(folders) else ""
    return f"{common}/" if common else ""


def _prefixes(paths: Sequence[str], markers: tuple[str, ...]) -> list[str]:
    """The folders and pages whose name holds one of ``markers``, most specific first,
    pages under a chosen folder left out."""
    folders = {
        "/".join(parts[: i + 1]) + "/"
        for parts in (p.split("/")[:-1] for p in paths)
        for i in range(len(parts))
    }
    chosen = [f for f in folders if set(markers) & _words(f.rstrip("/").rsplit("/", 1)[-1])]
    chosen.sort(key=lambda f: (-f.count("/"), f))
    pages = [
        p
        for p in paths
        if set(markers) & _words(posixpath.basename(p)) and not p.startswith(tuple(chosen))
    ]
    return [*chosen, *sorted(pages)]


def draft_docs_profile(
    payloads: Sequence[Mapping[str, Any]],
    *,
    name: str,
    source: str = "",
    lexical: LexicalSettings | None = None,
) -> str:
    """A complete docs planner profile for the tree of ``payloads`` (see the module doc)."""
    paths = sorted({str(p.get("doc_id") or "") for p in payloads} - {""})
    root = _root(paths)
    tops = Counter(p[len(root) :].split("/")[0] + "/" if "/" in p[len(root) :] else "(pages)"
                   for p in paths)  # fmt: skip
    described = f"Drafted from {source or 'a tree'}"
    lines = [
        f"# Drafted by `sectio profile draft` from {source or 'a documentation tree'}: a",
        "# documentation tree, read by the docs planner. Its headings route by themselves",
        "# (learned at ingest: `sectio info` lists them); this profile says where the tree",
        "# keeps each kind of page. Edit it, then `sectio ingest SRC --profile THIS.toml`.",
        "# Every key: docs/reference/profile.md.",
        f"# The tree{' under ' + root if root else ''}: "
        + ", ".join(f"{k} {n} pages" for k, n in sorted(tops.items())),
        f"name = {toml_value(name)}",
        f"description = {toml_value(described)}",
        'engine = "docs_planner"',
        "",
        "[learning]",
        "enabled = true",
        "",
        "[lexical]",
        *lexical_lines(lexical),
        "",
        "[docs]",
        "# Path prefixes of each kind of page, the most specific first (guessed from the",
        "# folders' and pages' names). A key left out keeps its default, which is not",
        "# applied where it holds no page of the tree.",
    ]
    for kind, (markers, soft, hard) in KINDS.items():
        found = _prefixes(paths, markers)
        if not found:
            lines.append(f"# {kind}: no folder or page named {', '.join(markers[:2])} ...")
            continue
        wide = [*found, root] if root else found
        lines.append(f"{soft} = {toml_value(wide)}")
        lines += [f"{key} = {toml_value(wide)}" for key in hard if root]
    if root:
        lines += [f"default_prefixes = {toml_value([root])}", f"file_roots = {toml_value([root])}"]
    overview = [p for p in paths if _words(posixpath.basename(p)) & set(OVERVIEW_PAGES)]
    overview.sort(key=lambda p: (p.count("/"), p))
    prefer = [*overview[:3], *([root] if root else [])]
    if prefer:
        lines.append(f"general_prefer_prefixes = {toml_value(prefer)}")
    return "\n".join(lines) + "\n"
