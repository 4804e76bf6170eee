"""Collection names: the one rule every front door (CLI, HTTP, Python) applies.

A name is 1 to 64 characters: ASCII letters, digits, ``_``, ``-`` and ``.``,
starting with a letter or a digit, without ``__`` (the Qdrant server adapter
names versions ``NAME__v...``). It becomes a folder under
``$SECTIO_HOME/collections`` and a Qdrant collection name, so it must be
portable between both and between machines: the rule is fixed, not a setting.

Example:
    >>> check_collection_name("drug-labels_2024.v1")
    'drug-labels_2024.v1'
    >>> name_problem("a/b")[:30]
    "invalid collection name 'a/b':"
"""

from __future__ import annotations

import re

from sectio.errors import ContractError

#: The collection a call that names none reads and writes.
DEFAULT_COLLECTION = "default"
MAX_COLLECTION_NAME = 64
COLLECTION_NAME_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9_.\-]{{0,{MAX_COLLECTION_NAME - 1}}}$"
_NAME = re.compile(COLLECTION_NAME_PATTERN)
RULE = "use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit, no '__'"


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid collection name (one line), or None if it is."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or "__" in name:
        shown = repr(name[:40] + "..." if isinstance(name, str) and len(name) > 40 else name)
        return f"invalid collection name {shown}: {RULE}"
    return None


def check_collection_name(name: str) -> str:
    """``name`` if it is a valid collection name.

    Raises:
        ContractError: one line naming the (shortened, escaped) name and the rule.
    """
    problem = name_problem(name)
    if problem is not None:
        raise ContractError(problem)
    return name


__all__ = [
    "COLLECTION_NAME_PATTERN",
    "DEFAULT_COLLECTION",
    "MAX_COLLECTION_NAME",
    "check_collection_name",
    "name_problem",
]
