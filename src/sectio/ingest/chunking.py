"""Split long text into chunks under a token limit, on sentence then word boundaries.

Never cuts inside a word; joins sentences greedily; a single sentence over the
limit is split on words.

Two ways to measure: a :data:`TokenCounter` (text -> tokens) called about once
per sentence and word, or, faster and exact for tokenizers that never make a
token across whitespace (WordPiece), the character offsets where the text's
tokens start (:data:`TokenStarts`, computed for many texts in one batch); a
span's size is then the number of tokens starting inside it.

Example:
    >>> split_text("One two. Three four. Five.", max_tokens=4, count=lambda t: len(t.split()))
    ['One two. Three four.', 'Five.']
    >>> split_text("One two. Three four. Five.", max_tokens=4, starts=[0, 4, 9, 15, 21])
    ['One two. Three four.', 'Five.']
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n{2,}")
_WORD = re.compile(r"\S+")

TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate (word pieces ~ 1.3 per word)."""
    return int(len(text.split()) * 1.3) + 1


def _pack(parts: list[str], max_tokens: int, count: TokenCounter) -> list[str]:
    """Join ``parts`` greedily (with spaces) into runs of at most ``max_tokens``, in order.

    Each part is counted once and a run's size is the sum of its parts' counts:
    exact for word-level pre-tokenizers (WordPiece, BM25 words), where joining
    with a space never merges tokens, and linear instead of re-counting every
    growing run. A run the sum got wrong (a tokenizer that merges across the
    space) is re-packed by counting each trial join, so no run is ever over.
    """
    out: list[str] = []
    for run, _ in _runs([(p, count(p)) for p in parts], max_tokens):
        joined = " ".join(run)
        if len(run) == 1 or count(joined) <= max_tokens:
            out.append(joined)
        else:  # the sum was wrong: this tokenizer merges across the space
            out.extend(_pack_exact(run, max_tokens, count))
    return out


def _pack_exact(parts: list[str], max_tokens: int, count: TokenCounter) -> list[str]:
    """:func:`_pack` counting every trial join (quadratic; only for non-additive tokenizers)."""
    out: list[str] = []
    current = ""
    for part in parts:
        trial = f"{current} {part}".strip()
        if current and count(trial) > max_tokens:
            out.append(current)
            current = part
        else:
            current = trial
    if current:
        out.append(current)
    return out


def split_text(
    text: str,
    max_tokens: int,
    count: TokenCounter = approx_tokens,
    starts: Sequence[int] | None = None,
) -> list[str]:
    """Chunks of ``text``, in order, each at most ``max_tokens`` (unless one word is longer).

    Sentences are joined greedily; a sentence over the limit is cut on words
    first. With ``starts`` (the token start offsets of ``text`` itself, see
    :data:`TokenStarts`) no tokenizer runs here; otherwise ``count`` runs about
    once per sentence and word. Both give the same chunks for a WordPiece
    tokenizer.
    """
    if starts is not None:
        return _split_spans(text, max_tokens, starts)
    text = text.strip()
    if count(text) <= max_tokens:
        return [text]
    pieces: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(text)):
        if not sentence:
            continue
        if count(sentence) > max_tokens:
            pieces.extend(_pack(sentence.split(), max_tokens, count))
        else:
            pieces.append(sentence)
    return _pack(pieces, max_tokens, count)


def _split_spans(text: str, max_tokens: int, starts: Sequence[int]) -> list[str]:
    """:func:`split_text` measuring spans by the tokens that start inside them."""

    def size(a: int, b: int) -> int:
        return bisect_left(starts, b) - bisect_left(starts, a)

    def stripped(a: int, b: int) -> tuple[int, int]:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        return a, b

    lo, hi = stripped(0, len(text))
    if size(lo, hi) <= max_tokens:
        return [text[lo:hi]]
    bounds = [lo]
    for m in _SENTENCE.finditer(text, lo, hi):
        bounds.extend((m.start(), m.end()))
    bounds.append(hi)
    pieces: list[tuple[str, int]] = []
    for a, b in zip(bounds[::2], bounds[1::2], strict=True):
        a, b = stripped(a, b)
        if a == b:
            continue
        n = size(a, b)
        if n <= max_tokens:
            pieces.append((text[a:b], n))
            continue
        words = [(w.group(), size(w.start(), w.end())) for w in _WORD.finditer(text, a, b)]
        pieces.extend((" ".join(run), n) for run, n in _runs(words, max_tokens))
    return [" ".join(run) for run, _ in _runs(pieces, max_tokens)]


def _runs(parts: list[tuple[str, int]], max_tokens: int) -> list[tuple[list[str], int]]:
    """Sized ``parts`` grouped greedily, in order, into runs whose sizes sum to at most
    ``max_tokens`` (a part over the limit alone); each run with its summed size."""
    out: list[tuple[list[str], int]] = []
    current: list[str] = []
    size = 0
    for part, n in parts:
        if current and size + n > max_tokens:
            out.append((current, size))
            current, size = [part], n
        else:
            current.append(part)
            size += n
    if current:
        out.append((current, size))
    return out


def dense_windows(
    titles: Sequence[str], text: str, max_tokens: int, count: TokenCounter
) -> list[str]:
    """The texts a chunk is embedded as when dense windows are on, in order.

    A chunk whose titled text (``titles`` lines, then ``text``) fits in
    ``max_tokens`` is one window, exactly that text. A longer one is split
    like a document (:func:`split_text`, sentences first) into parts that fit
    with the titles, and every window repeats the titles: a window is found
    by the names it lives under, as a chunk is.

    Example:
        >>> dense_windows(["Title"], "One two. Three four.", 3, lambda t: len(t.split()))
        ['Title\\nOne two.', 'Title\\nThree four.']
    """
    whole = "\n".join([*titles, text])
    if count(whole) <= max_tokens:
        return [whole]
    head = "\n".join(titles)
    # titles longer than the window leave the text a floor, not a window of nothing
    budget = max(max_tokens - (count(head) if head else 0), min(16, max_tokens // 2), 1)
    return ["\n".join([*titles, part]) for part in split_text(text, budget, count)]
