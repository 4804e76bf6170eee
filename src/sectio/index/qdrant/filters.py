"""Translating the neutral :class:`~sectio.index.filters.Where` into a Qdrant filter.

The dispatch over condition types is written once, here; each adapter supplies a
:class:`ConditionBuilder` with its client library's constructors (``qdrant_edge`` and
``qdrant_client.models`` name the same things differently).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sectio.errors import IndexError_
from sectio.index.filters import AnyOf, Condition, Eq, HasIds, Phrase, Prefix, Range, TextAny, Where


class ConditionBuilder(Protocol):
    """The native constructors of one Qdrant client library."""

    def match_value(self, key: str, value: str | int) -> Any:
        """``key`` equals ``value`` (arrays: contain it)."""
        ...

    def match_any(self, key: str, values: list[Any]) -> Any:
        """``key`` equals any of ``values``."""
        ...

    def match_prefix(self, key: str, prefix: str) -> Any:
        """Keyword ``key`` starts with ``prefix``."""
        ...

    def match_phrase(self, key: str, phrase: str) -> Any:
        """Text ``key`` holds ``phrase`` as a contiguous phrase."""
        ...

    def match_text_any(self, key: str, text: str) -> Any:
        """Text ``key`` holds any word of ``text``."""
        ...

    def range(self, key: str, gte: float | None, lte: float | None) -> Any:
        """Numeric ``key`` within the bounds (inclusive)."""
        ...

    def has_ids(self, ids: Sequence[Any]) -> Any:
        """The point id is one of ``ids``."""
        ...

    def filter(self, must: list[Any] | None, must_not: list[Any] | None) -> Any:
        """A filter of all of ``must`` and none of ``must_not``."""
        ...


def to_condition(cond: Condition, build: ConditionBuilder) -> Any:
    """One neutral condition as a native one.

    Raises:
        IndexError_: a condition type this translation does not know.
    """
    if isinstance(cond, Eq):
        return build.match_value(cond.key, cond.value)
    if isinstance(cond, AnyOf):
        return build.match_any(cond.key, list(cond.values))  # all str or all int
    if isinstance(cond, Prefix):
        return build.match_prefix(cond.key, cond.prefix)
    if isinstance(cond, Phrase):
        return build.match_phrase(cond.key, cond.phrase)
    if isinstance(cond, TextAny):
        return build.match_text_any(cond.key, cond.text)
    if isinstance(cond, Range):
        return build.range(cond.key, cond.gte, cond.lte)
    if isinstance(cond, HasIds):
        return build.has_ids(list(cond.ids))
    raise IndexError_(f"unsupported filter condition {cond!r}")


def to_filter(where: Where | None, build: ConditionBuilder, *extra_must: Any) -> Any | None:
    """The native filter for ``where`` (None for no filter).

    ``extra_must`` are native conditions added to ``must`` (an adapter's own, such as
    a has-id condition on engine ids it already holds).
    """
    if (where is None or (not where.must and not where.must_not)) and not extra_must:
        return None
    base = where or Where()
    must = [to_condition(c, build) for c in base.must] + list(extra_must)
    return build.filter(must or None, [to_condition(c, build) for c in base.must_not] or None)


def names_tenant(where: Where | None) -> str | None:
    """The tenant an ``Eq("tenant", t)`` in ``where.must`` scopes to (None: no tenant)."""
    if where is None:
        return None
    for cond in where.must:
        if isinstance(cond, Eq) and cond.key == "tenant" and isinstance(cond.value, str):
            return cond.value
    return None
