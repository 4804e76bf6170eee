"""The language a collection is written in, read from its own text, and its calibration bank.

A small deterministic detector, no model and no dependency: each text is first
read by its script (Cyrillic, Greek, Arabic, Devanagari, Thai, Han), then a
Latin text by the share of its words that are frequent function words of each
language, Vietnamese also by its letters (``ơ ư đ ă`` and the stacked tone
marks U+1EA0-U+1EF9, which no other language here writes). A text too short or
without a signal reads as English (the bank every collection had before).

The banks (``data/calibration_banks.tsv.gz``) hold the same 256 XQuAD questions
(SQuAD questions translated by professional translators, CC BY-SA 4.0; see
``data/calibration_banks.README.md``) in each language of :data:`BANK_LANGUAGES`;
English keeps its Natural Questions bank (``data/calibration_questions.txt``).
A language without a bank here (French, for one) is calibrated with the English
bank, and says so.

Example:
    >>> detect_language("Người nghiện ma túy từ đủ 18 tuổi trở lên bị áp dụng biện pháp")
    'vi'
    >>> detect_language("Что ограничивает эффективность цикла Ренкина?")
    'ru'
    >>> detect_language("How do I keep a PVC from being deleted when I uninstall it?")
    'en'
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

BANKS_FILE = "data/calibration_banks.tsv.gz"
#: Languages with a bank of their own in :data:`BANKS_FILE` (English: the NQ bank).
BANK_LANGUAGES = ("vi", "ru", "de", "es", "tr", "ro", "el", "ar", "hi", "th", "zh")
#: A language holding at least this share of a collection's sampled texts gets its bank.
MIXED_SHARE = 0.2
#: Models that read English only (exact model ids, as their manifests bind them).
ENGLISH_ONLY_MODELS = frozenset({"all-MiniLM-L6-v2-onnx-int8"})

_SCRIPTS = (
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("zh", re.compile(r"[\u4e00-\u9fff]")),
)
_LATIN = re.compile(r"[a-zA-Z\u00c0-\u024f\u1e00-\u1eff]")
_VIETNAMESE = re.compile(r"[ơưđăƠƯĐĂ\u1ea0-\u1ef9]")
_WORD = re.compile(r"[^\W\d_]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Frequent function words of each Latin-script language (lower case).
STOPWORDS: dict[str, frozenset[str]] = {
    "en": _words(
        "the of and to in is that for it with as on are be by this or from at which "
        "an not can what how when does do if will you your"
    ),
    "vi": _words(
        "của và các là được trong có không người này cho với những theo khi để một "
        "đã về do tại thì từ hoặc đến bị nào gì sao"
    ),
    "de": _words(
        "der die das und ist nicht ein eine zu von mit den im für auf sich des dem "
        "auch wird wie wer was oder"
    ),
    "es": _words(
        "el la de que y en los las del se por un una con para es al lo como más qué quién cuál su"
    ),
    "fr": _words(
        "le la les de des et est du un une que qui dans pour pas sur au aux par ce il elle avec"
    ),
    "tr": _words(
        "ve bir bu için ile da de ne olan gibi çok daha kadar hangi nedir mi mı olarak sonra"
    ),
    "ro": _words("și în de la cu pe care este un o din pentru nu sau ce cine fost mai au lui sunt"),
}


def text_language(text: str) -> str | None:
    """One text's language (None: too few letters to tell). See the module doc."""
    letters = len(_LATIN.findall(text))
    for lang, pattern in _SCRIPTS:
        count = len(pattern.findall(text))
        if count and count >= letters:
            return lang
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 3:
        return None
    if sum(bool(_VIETNAMESE.search(w)) for w in words) >= 0.15 * len(words):
        return "vi"
    hits = {lang: sum(w in stop for w in words) for lang, stop in STOPWORDS.items()}
    best = max(hits, key=lambda lang: (hits[lang], lang == "en"))
    return best if hits[best] else "en"


def detect_language(text: str) -> str:
    """``text``'s language (``en`` when nothing tells)."""
    return text_language(text) or "en"


def collection_languages(texts: Iterable[str]) -> tuple[str, ...]:
    """The languages of a collection's sampled texts that hold at least :data:`MIXED_SHARE`
    of them, most frequent first (ties by name); ``("en",)`` when none tells.

    Example:
        >>> collection_languages(["Điều 5. Người nghiện ma túy phải cai nghiện"] * 3
        ...                      + ["The licence is granted to the user"])
        ('vi', 'en')
    """
    counts = Counter(lang for lang in map(text_language, texts) if lang is not None)
    total = sum(counts.values())
    if not total:
        return ("en",)
    kept = [lang for lang, n in counts.items() if n >= MIXED_SHARE * total]
    return tuple(sorted(kept, key=lambda lang: (-counts[lang], lang)))


@lru_cache(maxsize=1)
def _banks() -> dict[str, tuple[str, ...]]:
    raw = resources.files("sectio.retrieve").joinpath(BANKS_FILE).read_bytes()
    out: dict[str, list[str]] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        lang, _qid, question = line.split("\t", 2)
        out.setdefault(lang, []).append(question)
    return {lang: tuple(qs) for lang, qs in out.items()}


def language_bank(lang: str) -> tuple[str, ...] | None:
    """The shipped bank of ``lang`` (None: none here; English's is the NQ bank).

    Example:
        >>> len(language_bank("vi") or ()), language_bank("fr")
        (256, None)
    """
    return _banks().get(lang)


def bank_languages(languages: Iterable[str]) -> tuple[str, ...]:
    """The banks that calibrate a collection of ``languages``: each one's own, English for
    one without a bank; in order, without repeats.

    Example:
        >>> bank_languages(["vi", "fr", "en"])
        ('vi', 'en')
    """
    out: list[str] = []
    for lang in languages:
        bank = lang if lang in BANK_LANGUAGES else "en"
        if bank not in out:
            out.append(bank)
    return tuple(out) or ("en",)


def model_mismatch(model_id: str, languages: Iterable[str]) -> str | None:
    """One line when an English-only model embeds a collection in another language
    (None when the model reads it, or the collection is English)."""
    other = [lang for lang in languages if lang != "en"]
    if model_id not in ENGLISH_ONLY_MODELS or not other:
        return None
    return (
        f"the collection reads as {', '.join(other)} but the embedding model {model_id} "
        "reads English only: similarity and abstention will be poor; "
        "re-ingest with SECTIO_EMBEDDER=e5 (multilingual-e5-small)"
    )
