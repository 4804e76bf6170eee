"""A deterministic reranker for tests (library code, not a mock)."""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Sequence

_APOSTROPHES = re.compile(r"['\u2019\u02bc`\u00b4]")
_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


def _words(text: str) -> set[str]:
    """The words of ``text`` as :func:`sectio.retrieve.text.tokens` reads them (NFC,
    casefold, apostrophes dropped, punctuation a separator); ``rerank`` sits below
    ``retrieve``, so it reads them itself."""
    norm = _APOSTROPHES.sub("", unicodedata.normalize("NFC", text).casefold())
    return set(_SEPARATORS.sub(" ", norm).split())


class FakeReranker:
    """Deterministic reranker for tests: score = distinct query words found in the document.

    Args:
        fail: raise :class:`RuntimeError` on every call.
        delay_s: sleep this long before answering (to exercise timeouts).
    """

    name = "fake"

    def __init__(self, *, fail: bool = False, delay_s: float = 0.0) -> None:
        self.fail = fail
        self.delay_s = delay_s
        self.calls = 0

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("fake reranker told to fail")
        wanted = _words(query)
        return [float(len(wanted & _words(doc))) for doc in documents]
