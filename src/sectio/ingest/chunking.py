"""Split long text into chunks under a token limit, on sentence then word boundaries.

Never cuts inside a word; joins sentences greedily; a single sentence over the
limit is split on words.

Example:
    >>> split_text("One two. Three four. Five.", max_tokens=4, count=lambda t: len(t.split()))
    ['One two. Three four.', 'Five.']
"""

from __future__ import annotations

import re
from collections.abc import Callable

_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n{2,}")

TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate (word pieces ~ 1.3 per word)."""
    return int(len(text.split()) * 1.3) + 1


def _split_words(sentence: str, max_tokens: int, count: TokenCounter) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for word in sentence.split():
        trial = " ".join([*current, word])
        if current and count(trial) > max_tokens:
            out.append(" ".join(current))
            current = [word]
        else:
            current.append(word)
    if current:
        out.append(" ".join(current))
    return out


def split_text(text: str, max_tokens: int, count: TokenCounter = approx_tokens) -> list[str]:
    """Chunks of ``text``, in order, each at most ``max_tokens`` (unless one word is longer)."""
    text = text.strip()
    if count(text) <= max_tokens:
        return [text]
    pieces: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(text)):
        if not sentence:
            continue
        if count(sentence) > max_tokens:
            pieces.extend(_split_words(sentence, max_tokens, count))
        else:
            pieces.append(sentence)
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        trial = f"{current} {piece}".strip()
        if current and count(trial) > max_tokens:
            chunks.append(current)
            current = piece
        else:
            current = trial
    if current:
        chunks.append(current)
    return chunks
