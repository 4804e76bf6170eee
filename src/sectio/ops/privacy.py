"""What the store keeps of what a user typed (``SECTIO_TRACE_QUERY_TEXT``).

* ``plain``: the text as typed (default);
* ``hashed``: ``sha256:<hex>`` of the UTF-8 text, enough to group repeats and
  to answer "was this question asked?", not to read it back (a short,
  guessable question can still be confirmed by hashing a guess);
* ``none``: nothing (NULL).

It applies to ``retrieval_trace.query_text`` and to the *user* lines of
``conversation_turn``. Assistant lines are summaries built by sectio from the
decision and the cited document ids (the same facts as the trace's
``citations``) and are stored as they are.

Example:
    >>> keep_text("aspirin dose", "hashed")[:15]
    'sha256:ea21cb8d'
    >>> keep_text("aspirin dose", "none") is None
    True
"""

from __future__ import annotations

import hashlib
from typing import Literal

QueryTextPolicy = Literal["plain", "hashed", "none"]
POLICIES: tuple[QueryTextPolicy, ...] = ("plain", "hashed", "none")


def keep_text(text: str | None, policy: QueryTextPolicy) -> str | None:
    """``text`` as the policy allows it to be stored."""
    if text is None or policy == "none":
        return None
    if policy == "hashed":
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text
