"""Text normalization and word-boundary phrase matching shared by the routes.

Matching is on *tokens*, never on substrings: a phrase matches when its tokens
appear contiguously in the text's tokens, so word boundaries hold by
construction ("indications" never matches inside "contraindications", "liều"
never inside "quá liều" unless the caller wants it to).

Normalization: Unicode NFC, casefold, apostrophes removed ("can't" -> "cant"),
every other non-word character (punctuation, hyphens, underscores) a
separator. :func:`fold` additionally strips diacritics ("chống" -> "chong",
"đ" -> "d") for diacritic-insensitive second passes.

Example:
    >>> tokens("Can't take Toprol-XL?")
    ('cant', 'take', 'toprol', 'xl')
    >>> find_phrase(tokens("chống chỉ định"), tokens("chỉ định"))
    [1]
    >>> fold("Chống chỉ định, đau đầu")
    'chong chi dinh dau dau'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_APOSTROPHES = re.compile(r"['’ʼ`´]")
_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)
_FOLD_EXTRA = str.maketrans({"đ": "d", "Đ": "d", "ø": "o", "ł": "l", "ß": "ss"})

Tokens = tuple[str, ...]


def normalize(text: str) -> str:
    """NFC, casefolded, apostrophes dropped, punctuation as single spaces, trimmed."""
    text = unicodedata.normalize("NFC", text).casefold()
    text = _APOSTROPHES.sub("", text)
    return _SEPARATORS.sub(" ", text).strip()


def fold(text: str) -> str:
    """:func:`normalize`, then diacritics stripped (a second-pass, accent-insensitive form)."""
    decomposed = unicodedata.normalize("NFD", normalize(text).translate(_FOLD_EXTRA))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped)


def tokens(text: str) -> Tokens:
    """The normalized tokens of ``text``."""
    norm = normalize(text)
    return tuple(norm.split()) if norm else ()


def folded_tokens(text: str) -> Tokens:
    """The folded (diacritic-free) tokens of ``text``."""
    norm = fold(text)
    return tuple(norm.split()) if norm else ()


def find_phrase(haystack: Sequence[str], phrase: Sequence[str]) -> list[int]:
    """Start positions where ``phrase`` occurs as a contiguous token run in ``haystack``."""
    n = len(phrase)
    if n == 0 or n > len(haystack):
        return []
    first = phrase[0]
    out = []
    for i in range(len(haystack) - n + 1):
        if haystack[i] == first and tuple(haystack[i : i + n]) == tuple(phrase):
            out.append(i)
    return out


def has_diacritics(text: str) -> bool:
    """Whether folding changes ``text`` (it carries accents or letters like "đ")."""
    return fold(text) != normalize(text)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a transposition costs 1), capped at ``limit + 1``.

    Returns ``limit + 1`` as soon as the distance is known to exceed ``limit``.
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        row_min = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            value = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, prev2[j - 2] + 1)
            cur[j] = value
            row_min = min(row_min, value)
        if row_min > limit:
            return limit + 1
        prev2, prev = prev, cur
    return min(prev[-1], limit + 1)
