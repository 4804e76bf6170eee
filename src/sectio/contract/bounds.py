"""Input bounds: what the values of a record may hold, checked before the contract.

A record is stored as a Qdrant payload, hashed as canonical JSON, tokenized and
embedded. A value that passes the contract's types but breaks one of those later
steps is refused here, naming its field, so that it never reaches the index:

* integers outside 64 bits (Qdrant's payload integers; ``part_index: 1e30``
  written as an integer would break every later search of the collection);
* NaN and infinite numbers (not JSON; ``NaN`` and ``Infinity`` are accepted by
  Python's decoder);
* strings holding a NUL or a lone surrogate (``"\\ud800"``: not Unicode, so not
  UTF-8 either), or longer than ``max_text_chars``;
* objects and lists nested deeper than ``max_nesting`` (the record is level 1).

The limits are settings (``SECTIO_MAX_TEXT_CHARS``, ``SECTIO_MAX_RECORD_BYTES``,
``SECTIO_MAX_NESTING``, ``SECTIO_MAX_JSON_BYTES``, ``SECTIO_MAX_MARKDOWN_BYTES``).

Example:
    >>> check_value({"text": "a\\x00b"}, InputLimits())
    ('text', 'contains a NUL character')
    >>> check_value({"metadata": {"n": 2**70}}, InputLimits())
    ('metadata.n', 'integer out of range (must fit in 64 bits)')
    >>> check_value({"text": "fine", "part_index": 3}, InputLimits()) is None
    True
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sectio.settings import Settings

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True)
class InputLimits:
    """The bounds every source is read under (defaults = the settings' defaults).

    Example:
        >>> InputLimits(max_nesting=4).max_nesting
        4
    """

    max_text_chars: int = 1_000_000
    max_record_bytes: int = 32 * 2**20
    max_nesting: int = 32
    max_json_bytes: int = 2**30
    max_markdown_bytes: int = 8 * 2**20

    @classmethod
    def from_settings(cls, settings: Settings) -> InputLimits:
        """The limits configured in ``settings``."""
        return cls(
            max_text_chars=settings.max_text_chars,
            max_record_bytes=settings.max_record_bytes,
            max_nesting=settings.max_nesting,
            max_json_bytes=settings.max_json_bytes,
            max_markdown_bytes=settings.max_markdown_bytes,
        )


def check_string(value: str, limits: InputLimits) -> str | None:
    """Why ``value`` cannot be stored (NUL, lone surrogate, too long), or None."""
    if len(value) > limits.max_text_chars:
        return (
            f"{len(value):,} characters, over the limit of {limits.max_text_chars:,} "
            "(SECTIO_MAX_TEXT_CHARS)"
        )
    bad = _BAD_CHAR.search(value)
    if bad is None:
        return None
    if bad.group() == "\x00":
        return "contains a NUL character"
    return f"contains a lone surrogate (\\u{ord(bad.group()):04x}): not valid Unicode"


#: Characters that show nothing: Unicode format characters (zero-width space and
#: joiners, word joiner, byte-order mark, bidi marks) and controls.
_INVISIBLE = frozenset({"Cf", "Cc"})


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: only whitespace, format characters (zero-width
    space, joiners, BOM) and controls. Stops at the first visible character.

    Example:
        >>> is_blank("\u200b\u200d \ufeff"), is_blank("\u200bx")
        (True, False)
    """
    return all(ch.isspace() or unicodedata.category(ch) in _INVISIBLE for ch in text)


def check_query(text: str, max_chars: int) -> str | None:
    """Why ``text`` cannot be asked (every front door: HTTP, MCP, the CLI), or None.

    Over ``max_chars`` (``SECTIO_MAX_QUERY_CHARS``), blank (:func:`is_blank`), or
    holding a NUL or a lone surrogate (no store keeps it in a trace).

    Example:
        >>> check_query("x" * 30, 20)
        'query over 20 characters (SECTIO_MAX_QUERY_CHARS)'
        >>> check_query("\u200b", 20), check_query("aspirin", 20)
        ('query is blank', None)
    """
    if len(text) > max_chars:
        return f"query over {max_chars} characters (SECTIO_MAX_QUERY_CHARS)"
    if is_blank(text):
        return "query is blank"
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        return (
            "query contains a NUL character"
            if bad.group() == "\x00"
            else ("query contains a lone surrogate: not valid Unicode")
        )
    return None


def _check_scalar(value: object, limits: InputLimits) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            return "integer out of range (must fit in 64 bits)"
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"not a finite number ({value})"
    if isinstance(value, str):
        return check_string(value, limits)
    return None


def check_value(data: object, limits: InputLimits) -> tuple[str, str] | None:
    """The first value of ``data`` (a decoded JSON value) out of bounds, as
    ``(field path, reason)``, or None if every value is within bounds.

    Values are visited depth first, in document order; the path joins object
    keys and list indexes with dots (``metadata.tags.3``). A key is checked as
    a string too.
    """
    stack: list[tuple[str, object, int]] = [("", data, 1)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limits.max_nesting:
                shown = path if len(path) <= 60 else path[:57] + "..."
                return shown or "<record>", (
                    f"nested deeper than {limits.max_nesting} levels (SECTIO_MAX_NESTING)"
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children: list[tuple[str, object, int]] = []
            for key, child in items:
                name = f"{path}.{key}" if path else str(key)
                if isinstance(key, str):
                    reason = check_string(key, limits)
                    if reason is not None:
                        return name, f"key {reason}"
                children.append((name, child, depth + 1))
            stack.extend(reversed(children))
            continue
        reason = _check_scalar(value, limits)
        if reason is not None:
            return path or "<record>", reason
    return None


#: A ``\u0000`` or surrogate escape: the only way a JSON text spells a NUL or a lone
#: surrogate (a raw NUL byte is refused before decoding).
_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


class BoundedDecoder:
    """A JSON decoder that notes numbers out of bounds while it decodes, so that
    :meth:`check` walks a value only when it could be out of bounds.

    The common record is not walked: the number hooks, a substring test for
    escapes (backslash-u) and two counts cost a fraction of the walk (benchmarks/readers.py).

    Example:
        >>> d = BoundedDecoder(InputLimits())
        >>> value, _ = d.raw_decode('{"n": 1e400}', 0)
        >>> d.check('{"n": 1e400}', value)
        ('n', 'not a finite number (inf)')
    """

    def __init__(self, limits: InputLimits) -> None:
        self.limits = limits
        self._flagged = False
        self._decoder = json.JSONDecoder(
            parse_int=self._int, parse_float=self._float, parse_constant=self._constant
        )

    def _int(self, text: str) -> int:
        value = int(text)
        if not INT64_MIN <= value <= INT64_MAX:
            self._flagged = True
        return value

    def _float(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self._flagged = True
        return value

    def _constant(self, text: str) -> float:
        self._flagged = True
        return float(text)

    def raw_decode(self, text: str, index: int) -> tuple[Any, int]:
        """The JSON value starting at ``index`` of ``text`` and where it ends.

        Raises:
            json.JSONDecodeError: not valid JSON there.
            RecursionError: nested too deep for the decoder.
        """
        self._flagged = False
        return self._decoder.raw_decode(text, index)

    def check(self, raw: str, value: object) -> tuple[str, str] | None:
        """:func:`check_value` of ``value`` (the last value decoded, from ``raw``), or
        None at once when nothing in ``raw`` can be out of bounds."""
        limits = self.limits
        if (
            not self._flagged
            and raw.count("{") + raw.count("[") < limits.max_nesting
            and len(raw) <= limits.max_text_chars
            and ("\\u" not in raw or _ESCAPE.search(raw) is None)
        ):
            return None
        return check_value(value, limits)


__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "BoundedDecoder",
    "InputLimits",
    "check_query",
    "check_string",
    "check_value",
    "is_blank",
]
