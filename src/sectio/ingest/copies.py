"""Copies of the same pages in other languages or versions, told at ingest.

A documentation site's folder often holds its pages several times: one folder
per language (``content/en``, ``content/ja``, Starlight's ``docs/de``,
Docusaurus' ``i18n/fr/...``) or per released version
(``versioned_docs/version-29.7``, ``v2.1``). Read as one corpus, each copy is a
document of its own: a heading the copies share names no page (learned
routing makes no guess between them) and evidence may come from any copy, in
any language. Nothing is left out (the user chose the folder); the ingest
report warns, naming the folders, so that one language or version can be
ingested instead, or each as its own tenant.

A folder counts when its name is a language code (:data:`LANGUAGES`, with a
region: ``pt-br``, ``zh-hans``) or a version (``version-29.7``, ``v2``,
``1.4``, ``1.x``), it holds at least :data:`MIN_PAGES` documents, and at least
half of them have the same path, that folder left out, as a document elsewhere
in the source.

Example:
    >>> ids = [f"{d}/{p}.md" for d in ("docs", "docs/de", "docs/fr") for p in "abc"]
    >>> copy_folders(ids)
    ['docs/de', 'docs/fr']
    >>> copy_folders(["docs/ml/index.md", "docs/index.md", "docs/ml/a.md"])
    []
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

#: Language codes documentation sites name their translations' folders with.
LANGUAGES = frozenset(
    "ar bg bn ca cs da de el en es et fa fi fr he hi hr hu id it ja ko lt lv ms nb nl no "  # noqa: SIM905
    "pl pt ro ru sk sl sr sv ta th tr uk ur vi zh".split()
)
_LANGUAGE = re.compile(r"^([a-z]{2})(?:[-_][a-z]{2,4})?$", re.IGNORECASE)
_VERSION = re.compile(r"^(?:version-)?v?\d+(?:\.(?:\d+|x))*$", re.IGNORECASE)
#: The fewest documents a folder of copies holds.
MIN_PAGES = 3


def _copy_folder_name(name: str) -> bool:
    """Whether a folder's name is a language code or a version."""
    found = _LANGUAGE.match(name)
    return bool(found and found.group(1).lower() in LANGUAGES) or bool(_VERSION.match(name))


def copy_folders(doc_ids: Iterable[str]) -> list[str]:
    """The folders of ``doc_ids`` (paths) that hold copies of pages found elsewhere (see the
    module doc), in order."""
    ids = sorted(set(doc_ids))
    held = set(ids)
    members: dict[str, list[str]] = defaultdict(list)  # folder -> the ids without it
    for doc_id in ids:
        parts = doc_id.split("/")
        for k, part in enumerate(parts[:-1]):
            if _copy_folder_name(part):
                members["/".join(parts[: k + 1])].append("/".join(parts[:k] + parts[k + 1 :]))
    found = []
    for folder, rests in sorted(members.items()):
        others = {r for f, rs in members.items() if f != folder for r in rs} | held
        if len(rests) >= MIN_PAGES and sum(r in others for r in rests) * 2 >= len(rests):
            found.append(folder)
    return found


def copies_warnings(doc_ids: Sequence[str]) -> tuple[str, ...]:
    """The ingest report's line when the source holds copies of its pages, else nothing."""
    folders = copy_folders(doc_ids)
    if len(folders) < 1:
        return ()
    shown = ", ".join(folders[:6]) + (f" and {len(folders) - 6} more" if len(folders) > 6 else "")
    return (
        f"{len(folders)} folders hold copies of the same pages in other languages or versions "
        f"({shown}): each copy is a document of its own, so a heading they share names no "
        "page and evidence may come from any copy; ingest one language or version, or each "
        "as its own tenant (--tenant)",
    )


__all__ = ["LANGUAGES", "MIN_PAGES", "copies_warnings", "copy_folders"]
