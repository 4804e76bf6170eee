"""A docs tree's learned vocabulary, stored with the collection where a write ends.

What the planner learns of a tenant's page chunks (:func:`sectio.plan.sections.docs_vocabulary`:
each heading's phrases, number and context, the product's words) is read from
all of them; computed at the first query, that cost every new process a second
or more on a docs tree of a few hundred pages. It is stored instead, as JSON,
one file per tenant under ``docs_vocabulary/`` in the collection's version
folder (:func:`sectio.retrieve.stored_stats.tenant_file`), with the BM25 terms
too common in the page chunks to say what a question asks (``common_terms``:
in more than the profile's ``[learning] common_share`` of them).

A file serves only what it was measured on: its digest names the tenant's
corpus and BM25 settings (:func:`~sectio.retrieve.stored_stats.stats_digest`),
the sections the profile lists itself, its ``common_share``, :data:`VOCAB_FORMAT`
and the source of the modules that learn it (:data:`VOCAB_CODE`); anything else is
ignored and the vocabulary learned again (and stored, where the store can be
written).

Example:
    >>> from sectio.retrieve.learned.numbers import Number
    >>> s = LearnedSection("a.md", "x/y", "4.2 Limits", Number(None, "4.2"), ("limits",),
    ...                    frozenset({"x"}), ("X", "4.2 Limits"))
    >>> data = to_json((s,), frozenset({"argo"}), frozenset({7}), "d")
    >>> from_json(data, "d") == ((s,), frozenset({"argo"}), frozenset({7}))
    True
    >>> from_json(data, "another corpus") is None
    True
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sectio._files import write_json_atomic
from sectio.retrieve.learned.numbers import Number
from sectio.retrieve.learned.vocabulary import LearnedSection
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.stored_stats import code_fingerprint, stats_digest, tenant_file

#: The stored layout; raise it when :func:`to_json` changes (a change of what is learned is
#: caught by :func:`~sectio.retrieve.stored_stats.code_fingerprint`).
VOCAB_FORMAT = 1
#: The folder, in a collection's version folder, of the stored vocabularies.
VOCAB_FOLDER = "docs_vocabulary"
#: The modules whose code decides what is learned (:func:`code_fingerprint`).
VOCAB_CODE = (
    "sectio.plan.sections",
    "sectio.plan.catalog",
    "sectio.retrieve.learned.vocabulary",
    "sectio.retrieve.learned.numbers",
    "sectio.retrieve.answerability.weigh",
    "sectio.retrieve.words",
)
log = logging.getLogger(__name__)

#: What a stored vocabulary holds: its sections, the product's words, the common terms.
Stored = tuple[tuple[LearnedSection, ...], frozenset[str], frozenset[int]]


def vocabulary_digest(scope: ReadScope) -> str:
    """What a stored vocabulary of ``scope``'s tenant is valid for (see the module doc)."""
    profile = scope.profile
    learning = {
        "skip": sorted(s.key for s in profile.sections),
        "common_share": profile.learning.common_share,
    }
    learned = hashlib.sha256(json.dumps(learning, sort_keys=True).encode()).hexdigest()
    code = code_fingerprint(VOCAB_CODE)
    return f"{stats_digest(scope.collection, scope.tenant)}:{learned[:16]}:{VOCAB_FORMAT}:{code}"


def vocabulary_file(scope: ReadScope) -> Path | None:
    """Where ``scope``'s tenant's vocabulary is stored (None: the backend keeps no folder)."""
    return tenant_file(scope.collection, scope.tenant, VOCAB_FOLDER, ".json")


def to_json(
    sections: Sequence[LearnedSection],
    products: frozenset[str],
    common_terms: frozenset[int],
    digest: str,
) -> dict[str, Any]:
    """The stored form: every section as a list of its fields, in order."""
    rows = [
        [
            s.doc_id,
            s.key,
            s.title,
            None if s.number is None else [s.number.family, s.number.value],
            list(s.phrases),
            sorted(s.context),
            list(s.path),
        ]
        for s in sections
    ]
    return {
        "format": VOCAB_FORMAT,
        "digest": digest,
        "products": sorted(products),
        "common_terms": sorted(common_terms),
        "sections": rows,
    }


def from_json(data: dict[str, Any], digest: str) -> Stored | None:
    """What ``data`` holds (None: measured for another ``digest`` or another format)."""
    if data.get("format") != VOCAB_FORMAT or data.get("digest") != digest:
        return None
    sections = tuple(
        LearnedSection(
            str(doc_id),
            str(key),
            str(title),
            None if number is None else Number(number[0], str(number[1])),
            tuple(str(p) for p in phrases),
            frozenset(str(w) for w in context),
            tuple(str(h) for h in path),
        )
        for doc_id, key, title, number, phrases, context, path in data["sections"]
    )
    products = frozenset(str(w) for w in data["products"])
    return sections, products, frozenset(int(t) for t in data["common_terms"])


def load(scope: ReadScope) -> Stored | None:
    """The stored vocabulary of ``scope``'s tenant when it is current, else None."""
    path = vocabulary_file(scope)
    if path is None or not path.is_file():
        return None
    try:
        return from_json(json.loads(path.read_text("utf-8")), vocabulary_digest(scope))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.debug("docs vocabulary %s unreadable: %s", path, exc)
        return None


def store(
    scope: ReadScope,
    sections: Sequence[LearnedSection],
    products: frozenset[str],
    common_terms: frozenset[int],
) -> bool:
    """Store the vocabulary as ``scope``'s tenant's (atomically); whether it was. An
    unwritable store (read-only, full) keeps nothing."""
    path = vocabulary_file(scope)
    if path is None:
        return False
    try:
        path.parent.mkdir(exist_ok=True)
        write_json_atomic(path, to_json(sections, products, common_terms, vocabulary_digest(scope)))
    except OSError as exc:
        log.debug("docs vocabulary not stored at %s: %s", path, exc)
        return False
    return True


__all__ = [
    "VOCAB_FOLDER",
    "VOCAB_FORMAT",
    "from_json",
    "load",
    "store",
    "to_json",
    "vocabulary_digest",
    "vocabulary_file",
]
