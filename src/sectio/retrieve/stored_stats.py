"""A tenant's term statistics, measured at ingest and stored with the collection.

What the answerability rules know of a collection's words (:class:`TermStats`:
document frequencies, every word, the section headings, the pairs written side
by side or one word apart) is read from all of a tenant's points. Computed at the first query,
that read cost every new process (a CLI ``ask``, a restarted server) seconds on
a large docs tree. It is measured where a write of a tenant ends instead (with
the answerability calibration: :func:`sectio.retrieve.calibration.refresh_tenants`)
and stored beside the manifest, one file per tenant under ``term_stats/`` in
the collection's version folder: NumPy arrays (``.npz``, read with
``allow_pickle=False``), words and headings as UTF-8 lines.

A stored file serves only the corpus it was measured on, as the code of the
day measured it: its digest names the tenant's corpus sha256, the collection's
BM25 settings, :data:`STATS_FORMAT` and a hash of the source of the modules
that compute the statistics (:func:`code_fingerprint`: an upgrade that changes
how words are read measures again); a stale,
missing or unreadable file is ignored: the statistics are computed where a
query first needs them and stored then (a collection written before, a
restored snapshot, a tenant changed by per-document writes), or computed by
every process where nothing can be stored (a backend without a folder, a
read-only or full disk).

Example:
    >>> stats = TermStats(2, {3: 2}, frozenset({"sync"}), frozenset({("sync", "waves")}))
    >>> back = from_arrays(to_arrays(stats, "d"), "d")
    >>> back.chunks, dict(back.df), sorted(back.words), sorted(back.headings)
    (2, {3: 2}, ['sync'], [('sync', 'waves')])
    >>> from_arrays(to_arrays(stats, "d"), "another corpus") is None
    True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import os
import threading
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from sectio.index.collection import Collection
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.stats import TermPairs, TermStats

#: The stored arrays' layout; raise it when :func:`to_arrays` changes (a change of what
#: :meth:`TermStats.from_payloads` counts is caught by :func:`code_fingerprint`).
STATS_FORMAT = 4
#: The folder, in a collection's version folder, of the stored statistics.
STATS_FOLDER = "term_stats"
#: Points read per page when measuring.
STATS_PAGE = 512
#: The modules whose code decides what :meth:`TermStats.from_payloads` computes.
STATS_CODE = (
    "sectio.retrieve.stats",
    "sectio.retrieve.text",
    "sectio.retrieve.words",
    "sectio.index.lexical",
)
#: What reading a stored file may raise (a truncated or foreign file is no statistics).
_UNREADABLE = (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile)
log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=8)
def code_fingerprint(modules: tuple[str, ...]) -> str:
    """A hash of the source of ``modules`` (their module name where no source is shipped):
    what was measured by other code is measured again, with no format number to forget."""
    h = hashlib.sha256()
    for name in modules:
        origin = importlib.util.find_spec(name)
        path = Path(origin.origin) if origin is not None and origin.origin else None
        h.update(path.read_bytes() if path is not None and path.suffix == ".py" else name.encode())
    return h.hexdigest()[:16]


def stats_digest(collection: Collection, tenant: str) -> str:
    """What stored statistics of ``tenant`` are valid for: its corpus sha256 (the
    collection's without per-tenant corpora), the BM25 settings, the format and the code
    that computes them (:func:`code_fingerprint`)."""
    manifest = collection.manifest
    entry = manifest.tenants.get(tenant) or {}
    corpus = str(entry.get("corpus_sha256") or manifest.corpus_sha256)
    bm25 = hashlib.sha256(json.dumps(manifest.bm25, sort_keys=True).encode()).hexdigest()
    return f"{corpus}:{bm25[:16]}:{STATS_FORMAT}:{code_fingerprint(STATS_CODE)}"


def tenant_file(collection: Collection, tenant: str, folder: str, suffix: str) -> Path | None:
    """Where something measured of ``tenant`` is stored: ``folder`` in the collection's
    version folder, a file named by a hash of the tenant (None: the backend keeps no
    folder, as a Qdrant server's does not)."""
    version = getattr(collection.index, "count_record", None)
    if not isinstance(version, Path):
        return None
    name = hashlib.sha256(tenant.encode()).hexdigest()[:24]
    return Path(version) / folder / f"{name}{suffix}"


def stats_file(collection: Collection, tenant: str) -> Path | None:
    """Where ``tenant``'s statistics are stored (None: the backend keeps no folder)."""
    return tenant_file(collection, tenant, STATS_FOLDER, ".npz")


def _lines(values: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(values).encode(), dtype=np.uint8)


def _read_lines(array: np.ndarray, count: int) -> list[str]:
    return array.tobytes().decode().split("\n") if count else []


def to_arrays(stats: TermStats, digest: str) -> dict[str, np.ndarray]:
    """``stats`` as the arrays of its stored file (``meta``: the digest and counts)."""
    words = sorted(stats.words)
    headings = sorted(" ".join(h) for h in stats.headings)
    meta = {"digest": digest, "chunks": stats.chunks, "words": len(words)}
    identifiers = [json.dumps([n, sorted(pages)]) for n, pages in sorted(stats.identifiers.items())]
    meta["headings"] = len(headings)
    meta["identifiers"] = len(identifiers)
    return {
        "meta": _lines([json.dumps(meta)]),
        "df_terms": np.fromiter(stats.df.keys(), dtype=np.int64, count=len(stats.df)),
        "df_counts": np.fromiter(stats.df.values(), dtype=np.int64, count=len(stats.df)),
        "words": _lines(words),
        "headings": _lines(headings),
        "identifiers": _lines(identifiers),
        "pairs": stats.pairs.keys,
        "pairs_apart": stats.pairs.apart,
    }


def from_arrays(arrays: dict[str, np.ndarray], digest: str) -> TermStats | None:
    """The statistics the arrays hold (None: measured for another ``digest``)."""
    meta = json.loads(arrays["meta"].tobytes().decode())
    if meta.get("digest") != digest:
        return None
    df = dict(zip(arrays["df_terms"].tolist(), arrays["df_counts"].tolist(), strict=True))
    words = frozenset(_read_lines(arrays["words"], int(meta["words"])))
    lines = _read_lines(arrays["headings"], int(meta["headings"]))
    headings = frozenset(tuple(h.split(" ")) if h else () for h in lines)
    pairs = TermPairs(
        np.asarray(arrays["pairs"], dtype=np.int64),
        np.asarray(arrays["pairs_apart"], dtype=np.int64),
    )
    documented = {  # one JSON line each: a name and its pages (a page's id may hold anything)
        str(name): frozenset(map(str, pages))
        for name, pages in map(
            json.loads, _read_lines(arrays["identifiers"], int(meta["identifiers"]))
        )
    }
    return TermStats(int(meta["chunks"]), df, words, headings, pairs, documented)


def measure(scope: ReadScope) -> TermStats:
    """``scope``'s tenant's statistics: one tenant-filtered, guard-checked read of its points."""
    points = scroll_all(
        scope.index, scope.tenant, guard=scope.guard, page=STATS_PAGE, route="catalog"
    )
    return TermStats.from_payloads([p.payload for p in points], scope.collection.lexical)


def _stored_digest(path: Path | None) -> str | None:
    """The digest a stored file was measured for, its other arrays left unread (None: no
    file, or one that cannot be read)."""
    try:
        if path is None or not path.is_file():
            return None
        with np.load(path, allow_pickle=False) as data:
            return str(json.loads(data["meta"].tobytes().decode()).get("digest"))
    except _UNREADABLE as exc:
        log.debug("term statistics %s unreadable: %s", path, exc)
        return None


def stored_state(collection: Collection, tenant: str) -> str:
    """What ``sectio info`` says of ``tenant``'s statistics: ``stored`` when a current file is
    there, else when they are counted (only the file's digest is read)."""
    current = _stored_digest(stats_file(collection, tenant)) == stats_digest(collection, tenant)
    return "stored" if current else "not stored: counted at its first query"


def load(scope: ReadScope) -> TermStats | None:
    """The stored statistics of ``scope``'s tenant when they are current, else None."""
    path = stats_file(scope.collection, scope.tenant)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        return from_arrays(arrays, stats_digest(scope.collection, scope.tenant))
    except _UNREADABLE as exc:
        log.debug("term statistics %s unreadable: %s", path, exc)
        return None


def store(scope: ReadScope, stats: TermStats) -> bool:
    """Store ``stats`` as ``scope``'s tenant's (a temporary file, then an atomic rename);
    whether they were. An unwritable store (read-only, full) keeps nothing."""
    path = stats_file(scope.collection, scope.tenant)
    if path is None:
        return False
    arrays: dict[str, Any] = to_arrays(stats, stats_digest(scope.collection, scope.tenant))
    tmp = path.with_name(f"{path.stem}.{os.getpid()}-{threading.get_ident()}.tmp.npz")
    try:
        path.parent.mkdir(exist_ok=True)
        np.savez(tmp, allow_pickle=False, **arrays)
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("term statistics not stored at %s: %s", path, exc)
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return False
    return True


def refresh(scope: ReadScope) -> bool:
    """Measure and store ``scope``'s tenant's statistics unless the stored ones are current
    (the hook every write of a tenant ends with); whether a current file is there now."""
    digest = stats_digest(scope.collection, scope.tenant)
    current = _stored_digest(stats_file(scope.collection, scope.tenant)) == digest
    return current or store(scope, measure(scope))


__all__ = [
    "STATS_FORMAT",
    "code_fingerprint",
    "from_arrays",
    "load",
    "measure",
    "refresh",
    "stats_digest",
    "stats_file",
    "store",
    "stored_state",
    "tenant_file",
    "to_arrays",
]
