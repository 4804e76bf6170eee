"""User-facing search filters: a small closed set of keys, translated into a :class:`Where`.

Keys and meaning (a key given several values matches any of them):

==================== =====================================================
``doc_id``           the chunk's document
``section_key``      the chunk's section
``chunk_kind``       ``prose`` or ``block``
``tags``             the chunk carries any of the tags
``metadata.domain``  ``metadata.domain`` equals the value, in any case
``metadata.subdomain`` ``metadata.subdomain`` equals the value, in any case
``path``             ``path`` starts with the prefix (one prefix)
``layer``            a docs corpus's layer (``D0`` doc chunks .. ``D5``)
==================== =====================================================

Domains are stored lower-cased (:mod:`sectio.contract.record`), so their
values are matched lower-cased, and as given for a collection loaded before
that normalisation. Any other key (``tenant`` included: the tenant is a parameter of every read,
never a filter) is refused with :class:`sectio.errors.UnknownFilter`.

Example:
    >>> w = build_where({"doc_id": "aspirin", "tags": ["a", "b"]})
    >>> [type(c).__name__ for c in w.must]
    ['Eq', 'AnyOf']
    >>> parse_filter_args(["tags=a", "tags=b", "path=docs/"])
    {'tags': ['a', 'b'], 'path': ['docs/']}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from sectio.contract.layers import Layer
from sectio.errors import UnknownFilter
from sectio.index.filters import AnyOf, Condition, Eq, Prefix, Where

if TYPE_CHECKING:
    from sectio.contract.profile import CorpusProfile

#: Keys matched by equality (any of several values).
EQUALITY_KEYS = (
    "doc_id",
    "section_key",
    "chunk_kind",
    "tags",
    "metadata.domain",
    "metadata.subdomain",
    "layer",
)
PREFIX_KEYS = ("path",)
#: Keys whose stored values are lower-cased at ingest.
FOLDED_KEYS = ("metadata.domain", "metadata.subdomain")
FILTER_KEYS = EQUALITY_KEYS + PREFIX_KEYS

FilterValue = str | Sequence[str]
Filters = Mapping[str, FilterValue]


def _values(key: str, value: FilterValue) -> tuple[str, ...]:
    raw = (value,) if isinstance(value, str) else tuple(value)
    values = tuple(dict.fromkeys(str(v) for v in raw))
    if not values or any(v == "" for v in values):
        raise UnknownFilter(f"filter {key!r} needs a non-empty value")
    return values


def build_where(filters: Filters | None) -> Where:
    """Translate user filters into engine-neutral conditions (the tenant is added by the reader).

    Raises:
        UnknownFilter: a key outside :data:`FILTER_KEYS`, an empty value, or more
            than one ``path`` prefix.
    """
    if not filters:
        return Where()
    unknown = sorted(k for k in filters if k not in FILTER_KEYS)
    if unknown:
        raise UnknownFilter(
            f"unknown filter key {unknown[0]!r}; use one of: {', '.join(FILTER_KEYS)}"
        )
    conditions: list[Condition] = []
    for key in FILTER_KEYS:  # a stable order, whatever the caller's
        if key not in filters:
            continue
        values = _values(key, filters[key])
        if key in FOLDED_KEYS:
            values = tuple(dict.fromkeys(f for v in values for f in (v.strip().lower(), v)))
        if key in PREFIX_KEYS:
            if len(values) > 1:
                raise UnknownFilter(f"filter {key!r} takes one prefix, got {len(values)}")
            conditions.append(Prefix(key, values[0]))
        elif len(values) == 1:
            conditions.append(Eq(key, values[0]))
        else:
            conditions.append(AnyOf(key, values))
    return Where(must=tuple(conditions))


def parse_filter_args(items: Iterable[str]) -> dict[str, list[str]]:
    """``key=value`` strings (CLI ``--filter``) into a filters mapping; repeats accumulate.

    Raises:
        UnknownFilter: an item without ``=`` or an unknown key.
    """
    out: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UnknownFilter(f"filter {item!r} is not key=value")
        if key not in FILTER_KEYS:
            raise UnknownFilter(f"unknown filter key {key!r}; use one of: {', '.join(FILTER_KEYS)}")
        out.setdefault(key, []).append(value)
    return out


__all__ = ["FILTER_KEYS", "Filters", "build_where", "parse_filter_args"]


def search_layers(
    profile: CorpusProfile, filters: Filters | None
) -> tuple[Filters | None, list[str] | str | None]:
    """The filters a plain search runs with, and the layers it reads (None: not layered).

    A docs collection's D1-D5 entries are derived index rows (catalog, facts,
    entities, workflows, relations) for the planner; a plain search reads D0,
    the documents' own chunks, unless ``filters`` names a ``layer`` or ``"all"``.
    """
    if profile.engine != "docs_planner":
        return filters, None
    given = dict(filters or {})
    layer = given.get("layer")
    wanted = [layer] if isinstance(layer, str) else list(layer or [])
    if "all" in wanted:
        given.pop("layer")
        return given, "all"
    if not wanted:
        given["layer"] = wanted = [Layer.D0_DOC_CHUNKS.value]
    return given, [str(v) for v in wanted]
