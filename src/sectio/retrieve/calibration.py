"""A dense floor calibrated on the collection: how close do unrelated questions get?

Cosines are not comparable across models or corpora (MiniLM's unrelated pairs
score ~0.1-0.3; multilingual-e5's 0.72-0.81), so one constant floor cannot
serve every collection. The floor is measured instead: a fixed bank of 256
general-knowledge questions (Natural Questions, shipped in
``sectio/retrieve/data/calibration_questions.txt``; CC BY-SA 3.0) is embedded
and each one's best cosine among the tenant's prose chunks is read; the floor
is the ``percentile`` (profile ``[answerability] calibration_percentile``) of
those cosines. Evidence whose best cosine is at or under it is no closer to
the question than unrelated questions get to this corpus.

The cosines are measured once per tenant and collection version, at ingest
(:func:`refresh`, called where a write of a tenant ends), and stored beside
the collection's manifest (``calibration.json`` in its version folder on
Qdrant Edge), keyed by tenant and by a digest of the tenant's corpus (its
``corpus_sha256``) and the model: a stale or missing entry (a collection
written before, a restored snapshot, a server collection) is measured again
when a query first needs it and kept in memory. The same stored cosines
serve every profile: a profile chooses its percentiles, never the model.

The bank speaks the collection's language: at measure time the tenant's own
prose (up to :data:`LANGUAGE_SAMPLE` chunks) is read by a small deterministic
detector (:mod:`sectio.retrieve.language`), and each language holding at least
a fifth of it is measured with its own bank (256 XQuAD questions in Vietnamese,
Russian, German, Spanish and seven more; the English NQ bank for English and
for a language without one), the cosines of every bank pooled. An English bank
against a Vietnamese corpus measured what unrelated *English* reaches there
(0.25 with MiniLM), not what unrelated Vietnamese does (0.5-0.8). The detected
languages are stored with the cosines and shown by ``sectio info``.

Example:
    >>> len(bank()) == 256 and all(q.strip() for q in bank())
    True
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from sectio import telemetry
from sectio._files import write_json_atomic
from sectio.contract.layers import Layer
from sectio.embed.cache import CachedEmbedder
from sectio.index.collection import Collection, open_collection
from sectio.index.filters import Eq, Where, tenant_where
from sectio.index.port import IndexBackend, StoredPoint
from sectio.retrieve import stored_stats
from sectio.retrieve.fusion import FusionParams
from sectio.retrieve.language import (
    bank_languages,
    collection_languages,
    language_bank,
    model_mismatch,
)
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.scan import prose_where
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.search import lexical_query, lexical_top

BANK_FILE = "data/calibration_questions.txt"


@lru_cache(maxsize=1)
def bank() -> tuple[str, ...]:
    """The shipped calibration questions (comment lines dropped)."""
    text = resources.files("sectio.retrieve").joinpath(BANK_FILE).read_text("utf-8")
    return tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def bank_questions(banks: Sequence[str]) -> tuple[str, ...]:
    """The questions of the banks named (``en``: the NQ bank; see :func:`bank_languages`).

    Example:
        >>> len(bank_questions(("vi", "en")))
        512
    """
    out: list[str] = []
    for lang in banks:
        out.extend(language_bank(lang) or bank())
    return tuple(out)


def best_cosines(
    scope: ReadScope, questions: tuple[str, ...] | None = None, where: Where | None = None
) -> list[float]:
    """Each question's best cosine among the scope's prose chunks, or the points ``where``
    selects (0.0 when there is none)."""
    where = where or prose_where(scope.tenant)
    out: list[float] = []
    for vector in scope.query_vectors(questions or bank()):
        hits = scope.index.search_dense(vector, 1, where, with_payload=False)
        out.append(float(hits[0].score or 0.0) if hits else 0.0)
    return out


def dense_floor(scope: ReadScope, percentile: float, where: Where | None = None) -> float:
    """The ``percentile`` of the bank's best cosines in this collection (see the module doc).

    ``where``: the points to read (default: the tenant's prose chunks); a docs
    collection's document catalog (layer D1, :func:`catalog_where`) has a floor
    of its own. Both read the tenant's stored calibration (:func:`tenant_calibration`);
    any other ``where`` is measured on the spot.
    """
    if where is None or where == prose_where(scope.tenant):
        cosines: Sequence[float] = tenant_calibration(scope).prose
    elif where == catalog_where(scope.tenant):
        cosines = tenant_calibration(scope).catalog
    else:
        cosines = best_cosines(scope, bank_questions(tenant_calibration(scope).banks), where)
    return float(np.percentile(cosines, percentile)) if cosines else 0.0


def catalog_where(tenant: str) -> Where:
    """The tenant's document catalog entries (layer D1: one per page of a docs collection)."""
    return tenant_where(tenant, Eq("layer", Layer.D1_DOCUMENT_CATALOG.value))


#: The stored calibration's file, beside the manifest in a collection's version folder.
CALIBRATION_FILE = "calibration.json"
#: Its format number (another one is measured again).
CALIBRATION_FORMAT = 2
#: Prose chunks of a tenant read to tell its language.
LANGUAGE_SAMPLE = 200
#: The tenant of a collection written before per-tenant corpora (its manifest lists none).
DEFAULT_TENANT = "default"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TenantCalibration:
    """What unrelated questions reach in one tenant of a collection: each bank question's
    best cosine among its prose chunks (``prose``) and among its catalog entries
    (``catalog``; empty without a catalog), for the corpus ``digest`` names; the
    ``languages`` its prose reads as and the ``banks`` measured (one per language with a
    bank, English for the rest; cosines pooled in that order).

    Example:
        >>> cal = TenantCalibration("d", (0.1, 0.3), ())
        >>> cal.floor(50), cal.floor(50, catalog=True), cal.as_dict()["source"], cal.banks
        (0.2, None, 'measured', ('en',))
    """

    digest: str
    prose: tuple[float, ...]
    catalog: tuple[float, ...]
    source: str = "measured"
    languages: tuple[str, ...] = ("en",)
    banks: tuple[str, ...] = ("en",)

    def floor(self, percentile: float, *, catalog: bool = False) -> float | None:
        """The ``percentile`` of the prose (or catalog) cosines; None when there are none."""
        values = self.catalog if catalog else self.prose
        return round(float(np.percentile(values, percentile)), 4) if values else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "digest": self.digest,
            "prose": [round(c, 5) for c in self.prose],
            "catalog": [round(c, 5) for c in self.catalog],
            "source": self.source,
            "languages": list(self.languages),
            "banks": list(self.banks),
        }


def tenant_digest(collection: Collection, tenant: str) -> str:
    """What a stored calibration of ``tenant`` is valid for: its corpus sha256 (the
    collection's for a collection without per-tenant corpora), the model and the bank."""
    manifest = collection.manifest
    entry = manifest.tenants.get(tenant) or {}
    corpus = str(entry.get("corpus_sha256") or manifest.corpus_sha256)
    return f"{corpus}:{manifest.model_id}:{len(bank())}"


def tenant_languages(scope: ReadScope) -> tuple[str, ...]:
    """The languages of ``scope``'s tenant's prose (:func:`collection_languages` over up to
    :data:`LANGUAGE_SAMPLE` chunks, engine order: a spread of documents)."""
    points, _ = scope.index.scroll(prose_where(scope.tenant), limit=LANGUAGE_SAMPLE)
    points = scope.guard.keep(points, scope.tenant, "calibration")
    return collection_languages(str(p.payload.get("text", "")) for p in points)


def measure(scope: ReadScope) -> TenantCalibration:
    """Measure ``scope``'s tenant: its languages (:func:`tenant_languages`), then their banks
    against its prose chunks and its catalog (256 embeddings per bank, cached, and up to
    512 dense searches per bank)."""
    languages = tenant_languages(scope)
    banks = bank_languages(languages)
    questions = bank_questions(banks)
    prose = best_cosines(scope, questions)
    where = catalog_where(scope.tenant)
    has_catalog = bool(scope.index.count(where))
    catalog = best_cosines(scope, questions, where) if has_catalog else []
    digest = tenant_digest(scope.collection, scope.tenant)
    return TenantCalibration(digest, tuple(prose), tuple(catalog), "measured", languages, banks)


def stored_file(collection: Collection) -> Path | None:
    """Where ``collection``'s calibration is stored (None: its backend keeps no folder)."""
    folder = getattr(collection.index, "count_record", None)
    return Path(folder) / CALIBRATION_FILE if isinstance(folder, Path) else None


def read_stored(path: Path | None) -> dict[str, TenantCalibration]:
    """The stored calibrations by tenant ({} for none, another format or an unreadable file)."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") != CALIBRATION_FORMAT:
            return {}
        return {t: _stored_entry(v) for t, v in data.get("tenants", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.debug("calibration %s unreadable: %s", path, exc)
        return {}


def _stored_entry(v: dict[str, Any]) -> TenantCalibration:
    return TenantCalibration(
        str(v["digest"]),
        tuple(v["prose"]),
        tuple(v["catalog"]),
        "stored",
        tuple(v["languages"]),
        tuple(v["banks"]),
    )


def refresh(scope: ReadScope) -> TenantCalibration:
    """Measure ``scope``'s tenant again and store it with the collection (the hook every
    write of a tenant ends with: ingest, upsert, delete, sync). An unwritable store
    (read-only, a server collection) keeps nothing: queries measure on first need."""
    cal = measure(scope)
    path = stored_file(scope.collection)
    if path is not None:
        tenants = {t: c.as_dict() for t, c in read_stored(path).items()}
        tenants[scope.tenant] = cal.as_dict()
        try:
            write_json_atomic(path, {"format": CALIBRATION_FORMAT, "tenants": tenants})
        except OSError as exc:
            log.debug("calibration not stored at %s: %s", path, exc)
    return cal


def refresh_tenants(scopes: Iterable[ReadScope]) -> list[TenantCalibration]:
    """:func:`refresh` each scope's tenant whose stored calibration is missing or stale, and
    store its term statistics where they are (:func:`sectio.retrieve.stored_stats.refresh`);
    every scope's current calibration, in order."""
    out: list[TenantCalibration] = []
    for scope in scopes:
        stored = read_stored(stored_file(scope.collection)).get(scope.tenant)
        if stored is None or stored.digest != tenant_digest(scope.collection, scope.tenant):
            stored = refresh(scope)
        stored_stats.refresh(scope)
        out.append(stored)
    return out


def tenant_calibration(scope: ReadScope) -> TenantCalibration:
    """``scope``'s tenant's calibration: the stored one when its digest is current, else
    measured now (kept on the open collection object, so once per process and version)."""
    memo: dict[str, TenantCalibration] = scope.collection.__dict__.setdefault(
        "_answerability_calibration", {}
    )
    digest = tenant_digest(scope.collection, scope.tenant)
    hit = memo.get(scope.tenant)
    if hit is None or hit.digest != digest:
        hit = read_stored(stored_file(scope.collection)).get(scope.tenant)
        if hit is None or hit.digest != digest:
            hit = measure(scope)
        memo[scope.tenant] = hit
    return hit


#: The span of a calibration (its engine queries are its children, not a call's).
CALIBRATION_SPAN = "sectio.calibrate_fusion"
#: Pseudo-queries a collection's list reliability is measured with.
PSEUDO_QUERIES = 64
#: Words of a pseudo-query: a window from the middle of one of the tenant's chunks.
PSEUDO_WORDS = 16
#: Each list's depth when looking for a pseudo-query's source chunk.
PSEUDO_DEPTH = 20


@dataclass(frozen=True)
class ListReliability:
    """How well each list finds a chunk from a few of its own words (MRR@20).

    A window of :data:`PSEUDO_WORDS` words from the middle of a chunk is a
    question whose answer is known: that chunk (or any chunk holding the same
    words). BM25 finds it almost always (the words are there); the dense list
    finds it when the model reads the collection's language, so the ratio of
    the two is a property of the model and the corpus, measured without a
    single labelled question. MiniLM (English-only) on Russian medical text:
    dense 0.38 vs BM25 1.0. Sixteen words, not eight: eight words of a
    templated corpus (MedQuAD) fit many of its chunks, and the dense list,
    which reads meaning, lost them where the model reads English well.

    Example:
        >>> ListReliability(0.2, 1.0, 48).ratio
        0.2
    """

    dense_mrr: float
    lexical_mrr: float
    queries: int

    def as_details(self, dense_scale: float) -> dict[str, float | int]:
        """What a result's ``details.fusion_calibration`` shows."""
        return {
            "dense_mrr": self.dense_mrr,
            "lexical_mrr": self.lexical_mrr,
            "pseudo_queries": self.queries,
            "dense_scale": dense_scale,
        }

    @property
    def ratio(self) -> float:
        """Dense MRR over BM25 MRR (1.0 when there was nothing to measure)."""
        if not self.queries or self.lexical_mrr <= 0:
            return 1.0
        return round(self.dense_mrr / self.lexical_mrr, 4)


def pseudo_queries(texts: Sequence[str], n: int = PSEUDO_QUERIES) -> list[tuple[int, str]]:
    """(index, window) pairs: every ``len(texts) // n``-th text long enough, middle words.

    Example:
        >>> pseudo_queries(["a b c d e f g h i j k l m n o p q r s t"], n=1)
        [(0, 'c d e f g h i j k l m n o p q r')]
    """
    step = max(1, len(texts) // max(n, 1))
    out: list[tuple[int, str]] = []
    for i in range(0, len(texts), step):
        words = texts[i].split()
        if len(words) < PSEUDO_WORDS + 2:
            continue
        start = (len(words) - PSEUDO_WORDS) // 2
        out.append((i, " ".join(words[start : start + PSEUDO_WORDS])))
        if len(out) == n:
            break
    return out


def list_reliability(scope: ReadScope, n: int = PSEUDO_QUERIES) -> ListReliability:
    """Measure :class:`ListReliability` on the scope's own prose chunks (tenant-scoped).

    Reads up to ``4 * n`` prose points (engine order: point ids are hashes, so
    a spread of documents), asks dense and BM25 for each one's middle window
    and scores where its source chunk comes. Costs ``n`` embeddings (one
    batched call) and ``2n`` searches, once per tenant and collection version.
    """
    where = prose_where(scope.tenant)
    points, _ = scope.index.scroll(where, limit=4 * n)
    points = scope.guard.keep(points, scope.tenant, "calibration")
    texts = [str(p.payload.get("text", "")) for p in points]
    picked = pseudo_queries(texts, n)
    if not picked:
        return ListReliability(0.0, 0.0, 0)
    vectors = scope.query_vectors([q for _, q in picked])
    dense = lexical = 0.0
    for (_, text), vector in zip(picked, vectors, strict=True):
        found = scope.index.search_dense(vector, PSEUDO_DEPTH, where)
        dense += _reciprocal_rank(text, found)
        lexical += _reciprocal_rank(text, _lexical_points(scope, text, where))
    return ListReliability(
        round(dense / len(picked), 4), round(lexical / len(picked), 4), len(picked)
    )


def _lexical_points(scope: ReadScope, text: str, where: Where) -> list[StoredPoint]:
    """BM25's top points for ``text``, ranked as ``search`` ranks them (:func:`lexical_top`)."""
    sparse = lexical_query(scope.collection, text)
    return lexical_top(scope.index, sparse, PSEUDO_DEPTH, where, scope.fusion)


def _reciprocal_rank(window: str, ranked: Sequence[StoredPoint]) -> float:
    """1 / the rank of the first point whose text holds ``window`` (0.0: none does).

    Any chunk holding the window answers it: a corpus that repeats a passage
    (MedQuAD's templated answers) must not count its copies as misses.

    Example:
        >>> hits = [StoredPoint("a", {"text": "x y"}), StoredPoint("b", {"text": "p  q  r s"})]
        >>> _reciprocal_rank("q r", hits), _reciprocal_rank("z", hits)
        (0.5, 0.0)
    """
    for i, point in enumerate(ranked):
        if window in " ".join(str(point.payload.get("text", "")).split()):
            return 1.0 / (i + 1)
    return 0.0


class FusionCalibration:
    """Calibrated :class:`FusionParams` per open collection and tenant, measured once.

    The first fused read of a tenant in a collection measures
    :func:`list_reliability` (64 pseudo-queries: ~0.4 s with MiniLM on 2 cores)
    and keeps the result while that collection object stays open; a rewrite
    reopens the collection, and the next read measures again. With
    ``calibrate`` off the base params are returned as they are.
    """

    def __init__(self, base: FusionParams) -> None:
        self.base = base
        self._cache: dict[tuple[str, str], tuple[Collection, FusionParams, ListReliability]] = {}

    def params(self, scope: ReadScope) -> FusionParams:
        """The fusion params of ``scope``'s collection and tenant."""
        return self.measure(scope)[0]

    def measure(self, scope: ReadScope) -> tuple[FusionParams, ListReliability | None]:
        """The params and the reliability they came from (None: calibration off)."""
        if not self.base.calibrate:
            return self.base, None
        key = (scope.collection.name, scope.tenant)
        hit = self._cache.get(key)
        if hit is None or hit[0] is not scope.collection:
            attrs = {"sectio.collection": scope.collection.name, "sectio.tenant": scope.tenant}
            with telemetry.span(CALIBRATION_SPAN, attrs):  # its engine queries nest here
                reliability = list_reliability(replace(scope, fusion=self.base))
            hit = (scope.collection, self.base.calibrated(reliability.ratio), reliability)
            self._cache[key] = hit
        return hit[1], hit[2]


class CalibrationHost(Protocol):
    """What :func:`refresh_collection` reads of an engine (:class:`sectio.Sectio` is one)."""

    @property
    def backend(self) -> IndexBackend: ...

    @property
    def embedder(self) -> CachedEmbedder: ...

    tenant_guard: TenantGuard


def refresh_collection(host: CalibrationHost, name: str) -> tuple[str, ...]:
    """Store the calibration of every tenant of collection ``name`` whose stored one is
    missing or stale (:func:`refresh_tenants`): the one call a write of a collection ends
    with (``Sectio.ingest``; upsert, delete and sync once their writes add up, see
    ``sectio.engine_docs``). Opens the collection for the measure and closes it again (the
    writer released it before writing); a backend that keeps no folder for it (a Qdrant
    server) stores nothing, so only its languages are read.

    Returns the warnings of the write, at most one line (:func:`model_mismatch`: an
    English-only model over a collection in another language)."""
    coll = open_collection(host.backend, name, host.embedder)
    try:
        tenants = list(coll.manifest.tenants) or [DEFAULT_TENANT]
        guard, embedder = host.tenant_guard, host.embedder
        scopes = [ReadScope(coll, t, guard, EvidencePolicy(), embedder) for t in tenants]
        if stored_file(coll) is None:  # a backend without a folder: measured at first query
            languages = [lang for s in scopes for lang in tenant_languages(s)]
        else:
            languages = [lang for cal in refresh_tenants(scopes) for lang in cal.languages]
        line = model_mismatch(coll.manifest.model_id, dict.fromkeys(languages))
        return (line,) if line else ()
    finally:
        coll.close()


def thresholds_summary(collection: Collection) -> dict[str, Any]:
    """The answerability thresholds of every tenant of ``collection`` as ``sectio info``
    shows them, from the stored calibration (nothing is measured: a tenant without a
    current one says so, and its first query measures it).

    ``{"settings": {..., "joint_surprise"}, "tenants": {tenant: {"source", "languages", "banks",
    "model_mismatch", "dense_floor", "margin_scale", "margin_floor", "strong_floor",
    "catalog_floor", "term_statistics"}}}`` (the margins scaled to the model's units:
    :mod:`~sectio.retrieve.answerability.margins`);
    ``joint_surprise`` is the odds one passage holding the question's words must beat
    (:func:`~sectio.retrieve.answerability.weigh.joint_passage`; None where the BM25 keeps
    stopwords, which never reads it);
    floors None where there is nothing to read, ``model_mismatch`` None unless an
    English-only model embeds a tenant in another language; ``term_statistics`` whether the
    tenant's term statistics are stored (:func:`~sectio.retrieve.stored_stats.stored_state`).
    """
    cfg = collection.profile.answerability
    stored = read_stored(stored_file(collection))
    tenants: dict[str, Any] = {}
    for tenant in list(collection.manifest.tenants) or [DEFAULT_TENANT]:
        cal = stored.get(tenant)
        words = stored_stats.stored_state(collection, tenant)
        if cal is None or cal.digest != tenant_digest(collection, tenant):
            tenants[tenant] = {
                "source": "not stored: measured at its first query",
                "term_statistics": words,
            }
            continue
        floor = (
            cfg.dense_floor
            if cfg.dense_floor is not None
            else cal.floor(cfg.calibration_percentile)
        )
        pct = cfg.catalog_percentile
        tenants[tenant] = {
            "source": "fixed by the profile" if cfg.dense_floor is not None else "stored",
            "languages": list(cal.languages),
            "banks": list(cal.banks),
            "model_mismatch": model_mismatch(collection.manifest.model_id, cal.languages),
            "dense_floor": floor,
            **_margin_floors(floor, cfg.planner_margin),
            "catalog_floor": None if pct is None else cal.floor(pct, catalog=True),
            "term_statistics": words,
        }
    from sectio.retrieve.answerability.weigh import STRONG_MARGIN, joint_threshold

    joint = joint_threshold(collection.lexical)
    settings = {
        "min_coverage": cfg.min_coverage,
        "calibration_percentile": cfg.calibration_percentile,
        "planner_margin": cfg.planner_margin,
        "guest_margin": cfg.guest_margin,
        "strong_margin": STRONG_MARGIN,
        "joint_surprise": None if joint is None else round(joint, 3),
        "catalog_percentile": cfg.catalog_percentile,
        "subject": cfg.subject,
    }
    return {"settings": settings, "tenants": tenants}


def _margin_floors(floor: float | None, planner_margin: float) -> dict[str, float | None]:
    """The margin scale over ``floor`` and the floors with the planner's and the strong
    margin on (all None without a floor)."""
    from sectio.retrieve.answerability.margins import margin_scale
    from sectio.retrieve.answerability.weigh import STRONG_MARGIN

    if floor is None:
        return {"margin_scale": None, "margin_floor": None, "strong_floor": None}
    scale = margin_scale(floor)
    return {
        "margin_scale": round(scale, 4),
        "margin_floor": round(floor + planner_margin * scale, 4),
        "strong_floor": round(floor + STRONG_MARGIN * scale, 4),
    }
