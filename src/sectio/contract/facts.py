"""The base of every typed stage fact: only what a stage set is serialised, read as a mapping.

A :class:`Facts` model serialises the fields a stage *set* (a field left unset
is absent from the JSON, a field set to None is ``null``), so a result's
``details`` keeps the keys it always had. Callers that read ``details`` as a
dictionary keep working: ``details["rerank"]["status"]``, ``"intent" in
details`` and ``details == {...}`` read the serialised form; typed code reads
attributes (``details.rerank.status``).

Example:
    >>> class Pair(Facts):
    ...     a: int | None = None
    ...     b: int | None = None
    >>> p = Pair(a=None)
    >>> p.model_dump(), "a" in p, "b" in p, p == {"a": None}
    ({'a': None}, True, False, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class Facts(BaseModel):
    """Typed facts whose serialised form holds only the fields that were set."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # no return annotation: the JSON schema (OpenAPI) stays the model's own
    @model_serializer(mode="wrap")
    def _set_only(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if k in self.model_fields_set}

    # --- read-only mapping view of the serialised form (callers read ``details`` as a dict)
    def __getitem__(self, key: str) -> Any:
        """The serialised value of ``key``.

        Raises:
            KeyError: ``key`` was not set.
        """
        if key not in self.model_fields_set:
            raise KeyError(key)
        return self.model_dump(mode="python", include={key})[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The serialised value of ``key``, or ``default`` when it was not set."""
        return self[key] if key in self.model_fields_set else default

    def __contains__(self, key: object) -> bool:
        return key in self.model_fields_set

    def keys(self) -> list[str]:
        """The keys set, in field order."""
        return [k for k in type(self).model_fields if k in self.model_fields_set]

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, serialised value)`` of every key set."""
        data = self.model_dump(mode="python")
        return iter(data.items())

    def __len__(self) -> int:
        return len(self.model_fields_set)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return bool(self.model_dump(mode="python") == dict(other))
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable
