"""An engine-neutral filter model; each adapter translates it.

A :class:`Where` is a conjunction of conditions (``must``) and exclusions
(``must_not``). Conditions name payload keys with dots for nesting
(``metadata.domain``).

Example:
    >>> w = Where.of(Eq("tenant", "acme"), AnyOf("tags", ("a", "b")))
    >>> w.and_(Eq("doc_id", "x")).must[-1]
    Eq(key='doc_id', value='x')
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Eq:
    """``key`` equals ``value`` (for arrays: contains it)."""

    key: str
    value: str | int


@dataclass(frozen=True)
class AnyOf:
    """``key`` equals any of ``values``."""

    key: str
    values: tuple[str, ...] | tuple[int, ...]


@dataclass(frozen=True)
class Prefix:
    """Keyword ``key`` starts with ``prefix``."""

    key: str
    prefix: str


@dataclass(frozen=True)
class Phrase:
    """Full-text field ``key`` contains ``phrase`` as a contiguous phrase."""

    key: str
    phrase: str


@dataclass(frozen=True)
class TextAny:
    """Full-text field ``key`` contains any of the words of ``text``."""

    key: str
    text: str


@dataclass(frozen=True)
class Range:
    """Numeric ``key`` within the given bounds (inclusive)."""

    key: str
    gte: float | None = None
    lte: float | None = None


@dataclass(frozen=True)
class HasIds:
    """The point id is one of ``ids``."""

    ids: tuple[str, ...]


Condition = Eq | AnyOf | Prefix | Phrase | TextAny | Range | HasIds


@dataclass(frozen=True)
class Where:
    """All of ``must`` and none of ``must_not``."""

    must: tuple[Condition, ...] = ()
    must_not: tuple[Condition, ...] = field(default=())

    @classmethod
    def of(cls, *conditions: Condition) -> Where:
        return cls(must=tuple(conditions))

    def and_(self, *conditions: Condition) -> Where:
        """A new filter with ``conditions`` added to ``must``."""
        return Where(must=self.must + tuple(conditions), must_not=self.must_not)

    def and_not(self, *conditions: Condition) -> Where:
        """A new filter with ``conditions`` added to ``must_not``."""
        return Where(must=self.must, must_not=self.must_not + tuple(conditions))


def tenant_where(tenant: str, *conditions: Condition) -> Where:
    """A filter scoped to one tenant; every read path starts from one of these."""
    return Where.of(Eq("tenant", tenant), *conditions)
