"""Collection names and version stamps, the same rules in both stores.

A load of a new corpus builds a new *version* beside the live one and switches
to it only when complete; a version is named by :func:`version_stamp` (sortable
by creation time, unique by its random tail).

Example:
    >>> check_name("drugs")
    'drugs'
    >>> len(version_stamp().split("-")[1])
    8
"""

from __future__ import annotations

import time
import uuid

from sectio.errors import IndexError_


def version_stamp() -> str:
    """``YYYYmmddTHHMMSS-<8 hex>``: the creation time and a random tail."""
    return time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]


def check_name(name: str, *, forbid: tuple[str, ...] = ("/",), hint: str = "") -> str:
    """``name`` if it can name a collection: not empty, no ``forbid`` substring, no
    surrounding blanks, not starting with a dot.

    Raises:
        IndexError_: it cannot (the message ends with ``hint``).
    """
    bad = (
        not name
        or any(part in name for part in forbid)
        or name != name.strip()
        or name.startswith(".")
    )
    if bad:
        raise IndexError_(f"invalid collection name {name!r}{hint}")
    return name
