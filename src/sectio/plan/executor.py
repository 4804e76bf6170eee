"""The plan executor: a :class:`RetrievalPlan` becomes ranked rows, each tagged with its step.

Steps, in order:

0. **section seed**: a section the question names by its heading
   (:mod:`sectio.plan.sections`): every page chunk of it (prose and code), in
   ``part_index`` order, under the plan's hard filters;
1. **exact seed**: every ``target_doc_hints`` entry that is a document path of
   the collection (for the tenant) seeds its own rows: its D1 catalog entry
   when D1 is in the plan, then its best rows in the plan's other layers
   (dense + BM25 fused inside the engine, restricted to that path);
2. **substring seed**: a hint that named no document is matched as a substring
   of the paths (file name first, then shorter paths; at most
   :data:`MAX_SUBSTRING_PATHS`), seeded the same way;
3. **hybrid**: dense + BM25 weighted reciprocal rank fusion
   (:func:`~sectio.retrieve.search.fused_top`, the scope's one fusion setting,
   equal values settled by cosine, then point id) over the
   plan's layers under the hard filters, then re-ordered by the soft
   preferences (boosts in units of the fusion value of a point first in every
   list, so they change order, never membership); the plan's first ``limit``
   rows are then ordered as the question fuses them, with its lexical trust, as
   ``search`` does (:func:`question_order`), and among them those of a section
   whose own title the question writes go first (:func:`titled_first`);
4. **merge**: seeds first, then hybrid rows, each chunk once, at most
   :data:`MAX_ROWS_PER_DOC` hybrid rows per document, cut to the plan's limit;
   places the cap left free go to the rows it passed over. Which hybrid rows
   are kept (the cap included) is read in the tuned fusion's order; they stand
   in step 3's order (the question's own, titled rows first): a page's own
   section is not put behind a weaker row of another page, and neither the
   question's order nor a title changes which rows answerability reads (the
   best candidates cut are named in ``omitted``).

A row's ``score`` is the cosine of the question with the row's dense vector
(its best window's), as in ``search``: fusion values order rows, cosines say
how close they are (the answerability stage reads them).

Hard filters (tenant, layers, ``path_prefixes``, ``metadata.domain``,
``metadata.subdomain``, ``exclude_path_prefixes``) go into every engine query
and are checked again in Python on every row, seeds included;
``exclude_like_patterns`` (substring patterns on the path) are applied in Python.

Soft preferences: ``prefer_path_prefixes`` (earlier prefixes weigh more),
``prefer_like_patterns`` (``%term%`` matched against the path and the title,
separators read as spaces), ``prefer_non_tests`` (a bonus for paths that
are not tests, see :func:`is_test_path`: test rows are demoted, never dropped).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sectio.contract.layers import Layer
from sectio.index.filters import AnyOf, Condition, Eq, Prefix, Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import StoredPoint, best_cosine
from sectio.plan.catalog import DocsCatalog, first_line
from sectio.plan.models import RetrievalPlan
from sectio.retrieve.fusion import fuse
from sectio.retrieve.reads import retrieve_points, scroll_all
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.search import Ranks, fused_top

log = logging.getLogger(__name__)

MAX_SUBSTRING_PATHS = 3
#: Rows one hinted document may seed (the D1 entry included).
MAX_ROWS_PER_HINT = 3
#: Rows one document may take in the hybrid step (evidence from several documents).
MAX_ROWS_PER_DOC = 2
#: Candidates cut by the limit (or the per-document cap) named in ``omitted_evidence_ids``.
MAX_OMITTED = 10
#: Boost weights, as shares of the fusion value of a point first in every list.
W_PREFIX = 0.06
W_LIKE = 0.12
#: ``prefer_non_tests``: a test row gives up one place at the top of every list (the
#: gap is ``1/(rrf_k + 1)`` of the unit), and a little more, so an identical non-test
#: copy always ranks first; a clearly more relevant test row still ranks first.
W_NON_TEST_PLACES = 1.01
#: ``prefer_non_changelogs``: a changelog row gives up this many places at the top of
#: every list (:func:`is_changelog`).
W_NON_CHANGELOG_PLACES = 3.01

EXACT = "exact_seed"
SECTION = "section_seed"
SUBSTRING = "substring_seed"
HYBRID = "hybrid"


@dataclass(frozen=True)
class PlannedRow:
    """One retrieved row: the stored point, its cosine with the question, the step that found it."""

    payload: dict[str, Any]
    score: float
    step: str
    hint: str | None = None

    @property
    def chunk_id(self) -> str:
        return str(self.payload.get("chunk_id"))


@dataclass
class Execution:
    """What running a plan produced."""

    rows: list[PlannedRow]
    steps: list[dict[str, Any]] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    dropped_by_checks: int = 0


def _like_terms(patterns: Sequence[str]) -> list[str]:
    out = []
    for p in patterns:
        term = " ".join(str(p).strip("%").lower().replace("%", " ").split())
        if term:
            out.append(term)
    return out


def _spaced(text: str) -> str:
    """Lower case with path separators read as spaces (``sync-waves.md`` -> ``sync waves md``)."""
    out = text.lower()
    for ch in "/-_.`":
        out = out.replace(ch, " ")
    return " ".join(out.split())


#: A changelog page's file name or title, in words (:func:`is_changelog`).
CHANGELOG_NAMES = frozenset(
    {
        "changelog",
        "change log",
        "changes",
        "release notes",
        "releasenotes",
        "release history",
        "history",
        "news",
        "whats new",
        "whatsnew",
        "what s new",
    }
)


def in_changelog(payload: Mapping[str, Any]) -> bool:
    """Whether a row is a changelog's: its page is one (:func:`is_changelog`), or a heading
    above it, or its own, is one of :data:`CHANGELOG_NAMES` or writes "changelog" (the
    "Full reverse-chronological changelog" of a migration guide, whose entries name
    features in passing as a changelog page's do).

    Example:
        >>> in_changelog({"path": "docs/migrate.mdx", "section_key": "full-changelog/x"})
        True
        >>> in_changelog({"path": "docs/migrate.mdx", "section_key": "breaking-changes"})
        False
    """
    path, title = str(payload.get("path") or ""), str(payload.get("doc_title") or "")
    if is_changelog(path, title):
        return True
    for part in str(payload.get("section_key") or "").split("/"):
        words = _spaced(part)
        if words in CHANGELOG_NAMES or "changelog" in words.split():
            return True
    return False


def is_changelog(path: str, title: str = "") -> bool:
    """Whether a page is a changelog: its file name before its first dot
    ("CHANGELOG.md", "release-notes.md", "HISTORY.rst", "changelog.Debian.gz") or its
    title ("Release Notes") is one of :data:`CHANGELOG_NAMES`. Its lines name every
    feature in passing ("Add docs for mounting a Flask app"), so it comes close to any
    question about one, and is about none.

    Example:
        >>> [is_changelog(p) for p in ("docs/release-notes.md", "CHANGELOG.md", "docs/news/x.md")]
        [True, True, False]
        >>> is_changelog("docs/whatsnew.md", "What's New"), is_changelog("bash/NEWS.Debian.gz")
        (True, True)
    """
    stem = _spaced(path.rsplit("/", 1)[-1].split(".", 1)[0])
    return stem in CHANGELOG_NAMES or _spaced(title.replace("'", " ")) in CHANGELOG_NAMES


#: Path words that make a path a test (``tests/``, ``test_x.py``, ``x_test.go``, ``x.spec.ts``).
TEST_WORDS = frozenset({"test", "tests", "testing", "testdata", "spec", "specs", "e2e"})


def is_test_path(path: str) -> bool:
    """Whether a path is a test's: a word of it (split on ``/ - _ .``) is a test word.

    Whole words only: ``docs/latest.md`` and ``attestation.md`` are not tests.

    Example:
        >>> [is_test_path(p) for p in ("tests/a.py", "src/a_test.go", "docs/latest.md")]
        [True, True, False]
    """
    return any(word in TEST_WORDS for word in _spaced(path).split())


def cover_prefixes(prefixes: Sequence[str]) -> list[str]:
    """The smallest set of prefixes matching the same paths (``docs/`` covers ``docs/api/``)."""
    out: list[str] = []
    for p in sorted(set(prefixes), key=len):
        if not any(p.startswith(q) for q in out):
            out.append(p)
    return out


class PlanExecutor:
    """Runs plans against one open collection for one tenant (the scope's).

    Every engine read carries the tenant condition and passes the scope's
    :class:`~sectio.retrieve.reads.TenantGuard` (drops counted), and every row
    is checked against the plan's hard filters again in Python.
    """

    def __init__(
        self, scope: ReadScope, catalog: DocsCatalog, *, max_per_doc: int = MAX_ROWS_PER_DOC
    ) -> None:
        self.scope = scope
        self.collection = scope.collection
        self.embedder = scope.embedder
        self.catalog = catalog
        self.tenant = scope.tenant
        self.max_per_doc = max_per_doc

    # --- filters ----------------------------------------------------------------------
    def _base_where(self, plan: RetrievalPlan, layers: Sequence[Layer] | None = None) -> Where:
        f = plan.filters
        conds: list[Condition] = [
            AnyOf("layer", tuple(layer.value for layer in (layers or plan.layers)))
        ]
        if f.get("metadata.domain"):
            conds.append(Eq("metadata.domain", str(f["metadata.domain"]).lower()))
        if f.get("metadata.subdomain"):
            conds.append(Eq("metadata.subdomain", str(f["metadata.subdomain"]).lower()))
        where = tenant_where(self.tenant, *conds)
        for p in f.get("exclude_path_prefixes") or ():
            where = where.and_not(Prefix("path", str(p)))
        return where

    def _prefix_groups(self, plan: RetrievalPlan) -> list[str | None]:
        prefixes = [str(p) for p in plan.filters.get("path_prefixes") or ()]
        return list(cover_prefixes(prefixes)) if prefixes else [None]

    def passes(self, payload: dict[str, Any], plan: RetrievalPlan) -> bool:
        """Every hard filter, checked in Python on a returned row."""
        return self.engine_filters_hold(payload, plan) and not self.excluded_by_pattern(
            payload, plan
        )

    @staticmethod
    def excluded_by_pattern(payload: dict[str, Any], plan: RetrievalPlan) -> bool:
        """Whether ``exclude_like_patterns`` (applied in Python only) remove the row."""
        low = str(payload.get("path") or "").lower()
        patterns = plan.filters.get("exclude_like_patterns") or ()
        return any(t in low for t in _like_terms(patterns))

    def engine_filters_hold(self, payload: dict[str, Any], plan: RetrievalPlan) -> bool:
        """The filters the engine query carried (tenant, layers, prefixes, domain)."""
        f = plan.filters
        if payload.get("tenant", "default") != self.tenant:
            return False
        if payload.get("layer") not in {layer.value for layer in plan.layers}:
            return False
        path = str(payload.get("path") or "")
        prefixes = f.get("path_prefixes") or ()
        if prefixes and not any(path.startswith(str(p)) for p in prefixes):
            return False
        meta = payload.get("metadata") or {}
        for key in ("domain", "subdomain"):
            want = f.get(f"metadata.{key}")
            if want and str(meta.get(key) or "").lower() != str(want).lower():
                return False
        return not any(path.startswith(str(p)) for p in f.get("exclude_path_prefixes") or ())

    # --- scoring ----------------------------------------------------------------------
    def boost(self, payload: dict[str, Any], plan: RetrievalPlan, unit: float = 1.0) -> float:
        """The soft-preference bonus of a row (added to its fused score), in ``unit``s."""
        f = plan.filters
        path = str(payload.get("path") or "")
        bonus = 0.0
        prefer = [str(p) for p in f.get("prefer_path_prefixes") or ()]
        for i, p in enumerate(prefer):
            if path.startswith(p):
                bonus += W_PREFIX * (len(prefer) - i) / len(prefer)
                break
        terms = _like_terms(f.get("prefer_like_patterns") or ())
        if terms:
            hay = f"{_spaced(path)} | {_spaced(str(payload.get('doc_title') or ''))}"
            hits = sum(1 for t in terms if _spaced(t) and _spaced(t) in hay)
            bonus += W_LIKE * min(hits, 2)
        if f.get("prefer_non_tests") and not is_test_path(path):
            bonus += W_NON_TEST_PLACES / (self.scope.fusion.rrf_k + 1)
        if f.get("prefer_non_changelogs") and not in_changelog(payload):
            bonus += W_NON_CHANGELOG_PLACES / (self.scope.fusion.rrf_k + 1)
        return bonus * unit

    # --- engine calls -----------------------------------------------------------------
    def _fused(
        self,
        question_vec: Any,
        sparse: Any,
        where: Where,
        limit: int,
        pool: int,
    ) -> tuple[list[StoredPoint], dict[str, Ranks]]:
        """Hybrid's fused top ``limit`` (tenant re-checked) and the ranked lists it fused."""
        points, lists = fused_top(
            self.collection.index,
            question_vec,
            sparse,
            pool,
            limit,
            where,
            self.scope.fusion,
            with_vectors=True,
        )
        return self.scope.guard.keep(points, self.tenant, "docs_plan"), lists

    def _seed_path(
        self, path: str, plan: RetrievalPlan, vec: Any, sparse: Any, per_hint: int
    ) -> list[tuple[StoredPoint, float]]:
        rows: list[tuple[StoredPoint, float]] = []
        if Layer.D1_DOCUMENT_CATALOG in plan.layers:
            d1 = [point_id_for(f"d1:{path}")]
            for p in retrieve_points(
                self.collection.index, d1, self.tenant, guard=self.scope.guard, with_vectors=True
            ):
                if p.payload.get("path") == path:
                    rows.append((p, best_cosine(vec, p.dense)))
        rest = [layer for layer in plan.layers if layer != Layer.D1_DOCUMENT_CATALOG]
        room = per_hint - len(rows)
        if rest and room > 0:
            where = self._base_where(plan, rest).and_(Eq("path", path))
            for p in self._fused(vec, sparse, where, room, pool=max(room * 8, 32))[0]:
                rows.append((p, best_cosine(vec, p.dense)))
        return rows

    def path_allowed(self, path: str, plan: RetrievalPlan) -> bool:
        """Whether a document path can satisfy the hard filters (checked before seeding); the
        document is looked up by its path, which chunk records may keep apart from its id."""
        doc = self.catalog.by_path.get(path)
        probe: dict[str, Any] = {
            "tenant": self.tenant,
            "layer": plan.layers[0].value,
            "path": path,
            "metadata": {
                "domain": doc.domain if doc else None,
                "subdomain": doc.subdomain if doc else None,
            },
        }
        return self.passes(probe, plan)

    def section_rows(
        self, plan: RetrievalPlan, vec: Any, doc_id: str, section_key: str
    ) -> list[PlannedRow]:
        """Every page chunk of one section (prose and code), in ``part_index`` order (the
        plan's hard filters hold on each), scored by its cosine with the question. A
        heading with no text of its own (a release of the release notes, holding only
        ``Features`` and ``Fixes``) is read with the sections below it, in the page's
        order (their source lines)."""
        points = self._section_points(doc_id, Eq("section_key", section_key))
        below = f"{section_key}/"
        if not any(p.payload.get("section_key") == section_key for p in points):
            points = self._section_points(doc_id, Prefix("section_key", below))
        points.sort(key=lambda p: (first_line(p.payload), int(p.payload.get("part_index") or 0)))
        hint = f"{doc_id}#{section_key}"
        return [
            PlannedRow(p.payload, best_cosine(vec, p.dense), SECTION, hint)
            for p in points
            if (key := str(p.payload.get("section_key") or "")) == section_key
            or key.startswith(below)
            if self.passes(p.payload, plan)
        ]

    def _section_points(self, doc_id: str, *conditions: Condition) -> list[StoredPoint]:
        """The page chunks (layer D0) of ``doc_id`` that meet ``conditions``, with vectors."""
        where = tenant_where(
            self.tenant, Eq("doc_id", doc_id), *conditions, Eq("layer", Layer.D0_DOC_CHUNKS.value)
        )
        return scroll_all(
            self.collection.index,
            self.tenant,
            where,
            guard=self.scope.guard,
            route="docs_plan",
            with_vectors=True,
        )

    # --- the plan -----------------------------------------------------------------------
    def execute(
        self,
        plan: RetrievalPlan,
        question: str,
        section: tuple[str, str] | None = None,
        also: tuple[str, str] | None = None,
        titled: frozenset[tuple[str, str]] = frozenset(),
    ) -> Execution:
        """Run ``plan`` for ``question``; rows in merge order.

        Steps, in order: the whole ``section`` (a document and a section key the
        question names, every chunk in order), then the whole ``also`` (a second
        section it names beside the first), exact-path seeds for the plan's doc
        hints, substring seeds for the hints no path matches, then hybrid search over
        the plan's layers; seeds come first in the merge, hybrid rows fill up to the
        limit (``plan.limit`` rows beside the section's). Among the first ``plan.limit``
        hybrid rows, those of a ``titled`` section (one whose own title the question
        writes: :func:`titled_first`) go first.
        """
        vec = self.embedder.embed_query(question)
        sparse = self.collection.lexical.encode_query(question)
        steps: list[dict[str, Any]] = []
        whole: list[PlannedRow] = []
        for named in (section, also) if section is not None else ():
            if named is None:
                continue
            rows = self.section_rows(plan, vec, *named)
            whole += rows
            hint = f"{named[0]}#{named[1]}"
            steps.append({"step": SECTION, "hint": hint, "rows": [r.chunk_id for r in rows]})
        seeded, dropped = self._seeds(plan, vec, sparse, steps)
        tuned, hybrid, hybrid_dropped = self._hybrid_candidates(plan, question, vec, sparse)
        hybrid, first = titled_first(hybrid, titled, plan.limit)
        dropped += hybrid_dropped
        steps.append({"step": HYBRID, "candidates": len(hybrid)})
        if first:
            steps[-1]["titled_first"] = first
        merged = plan.model_copy(update={"limit": plan.limit + len(whole)}) if whole else plan
        rows, omitted = self._merge(merged, vec, whole + seeded, tuned, hybrid)
        steps[-1]["rows"] = [r.chunk_id for r in rows if r.step == HYBRID]
        if dropped:
            log.warning("plan executor: %d row(s) failed the Python-side filter check", dropped)
        return Execution(
            rows=rows, steps=steps, omitted=omitted[:MAX_OMITTED], dropped_by_checks=dropped
        )

    def _seeds(
        self,
        plan: RetrievalPlan,
        vec: Any,
        sparse: Any,
        steps: list[dict[str, Any]],
    ) -> tuple[list[PlannedRow], int]:
        """Exact-path then substring seeds for the plan's doc hints (steps appended to
        ``steps``); the rows and how many failed the Python-side check."""
        hints = [str(h) for h in plan.filters.get("target_doc_hints") or ()]
        per_hint = max(1, min(MAX_ROWS_PER_HINT, plan.limit // max(len(hints), 1)))
        seeded: list[PlannedRow] = []
        dropped = 0
        known = self.catalog.by_path
        missing: list[str] = []
        for hint in hints:
            if hint in known and not self.path_allowed(hint, plan):
                steps.append({"step": EXACT, "hint": hint, "rows": [], "filtered": True})
            elif hint in known:
                got = self._seed_path(hint, plan, vec, sparse, per_hint)
                kept = [(p, s) for p, s in got if self.passes(p.payload, plan)]
                dropped += len(got) - len(kept)
                seeded.extend(PlannedRow(p.payload, s, EXACT, hint) for p, s in kept)
                steps.append(
                    {"step": EXACT, "hint": hint, "rows": [p.payload["chunk_id"] for p, _ in kept]}
                )
            else:
                missing.append(hint)
        for hint in missing:
            needle = hint.lower()
            name = needle.rsplit("/", 1)[-1]
            paths = [p for p in known if needle in p.lower() and self.path_allowed(p, plan)]
            paths.sort(key=lambda p: (p.lower().rsplit("/", 1)[-1] != name, len(p), p))
            paths = paths[:MAX_SUBSTRING_PATHS]
            got_ids: list[str] = []
            for path in paths:
                got = self._seed_path(path, plan, vec, sparse, max(1, per_hint - 1))
                kept = [(p, s) for p, s in got if self.passes(p.payload, plan)]
                dropped += len(got) - len(kept)
                seeded.extend(PlannedRow(p.payload, s, SUBSTRING, hint) for p, s in kept)
                got_ids.extend(p.payload["chunk_id"] for p, _ in kept)
            steps.append({"step": SUBSTRING, "hint": hint, "paths": paths, "rows": got_ids})
        return seeded, dropped

    def _hybrid_candidates(
        self, plan: RetrievalPlan, question: str, vec: Any, sparse: Any
    ) -> tuple[list[tuple[float, int, StoredPoint]], list[tuple[float, int, StoredPoint]], int]:
        """Hybrid over the plan's layers under the hard filters, boosted, best first (the
        tuned fusion: which rows the plan keeps); the same with the first ``plan.limit`` in
        the question's own order (:func:`question_order`: where they stand); and how many
        failed the Python-side check."""
        want = plan.limit * 4
        pool = max(plan.limit * 8, 64)
        candidates: dict[str, StoredPoint] = {}
        asked: dict[str, float] = {}
        trust = self.scope.fusion.for_query(question)
        for prefix in self._prefix_groups(plan):
            where = self._base_where(plan)
            if prefix is not None:
                where = where.and_(Prefix("path", prefix))
            points, lists = self._fused(vec, sparse, where, want, pool)
            for pid, value in fuse(
                list(lists.values()), trust.query_weights(lists)[0], trust.rrf_k
            ):
                asked[pid] = max(asked.get(pid, 0.0), value)
            for p in points:
                old = candidates.get(p.id)
                if old is None or (p.score or 0.0) > (old.score or 0.0):
                    candidates[p.id] = p
        unit = self.scope.fusion.top_value(sparse_names=tuple(sparse))
        hybrid: list[tuple[float, int, StoredPoint]] = []
        dropped = 0
        ordered = sorted(candidates.values(), key=lambda p: -(p.score or 0.0))
        for i, p in enumerate(ordered):
            if not self.engine_filters_hold(p.payload, plan):
                dropped += 1
                continue
            if self.excluded_by_pattern(p.payload, plan):
                continue
            hybrid.append(((p.score or 0.0) + self.boost(p.payload, plan, unit), i, p))
        hybrid.sort(key=lambda t: (-t[0], t[1]))
        boosts = {t[2].id: t[0] - (t[2].score or 0.0) for t in hybrid[: plan.limit]}
        return hybrid, question_order(hybrid, asked, boosts, plan.limit), dropped

    def _merge(
        self,
        plan: RetrievalPlan,
        vec: Any,
        seeded: list[PlannedRow],
        hybrid: list[tuple[float, int, StoredPoint]],
        ordered: list[tuple[float, int, StoredPoint]],
    ) -> tuple[list[PlannedRow], list[str]]:
        """Seeds first, then hybrid rows (at most ``max_per_doc`` a document), up to
        ``plan.limit``; where the cap left places free, the best rows it passed over fill
        them (a question about two headings of one page gets both, rather than fewer
        rows). Which hybrid rows are kept is read in ``hybrid``'s order (the tuned fusion,
        cap included); they stand in ``ordered``'s (the same rows, the first ``limit`` in
        the question's own order, titled rows first): the cap chooses which rows are kept,
        not where they stand ("toBe(0.3) fails, how should I compare decimals?": the
        matcher's own section, passed over by the cap, came after two weaker rows of
        another page). A D3 entry and the chunk it points at are one piece of evidence:
        a second entry of a chunk already kept is passed over (two options of one list
        took both places of their page, and the list itself was capped out), and the
        chunk stands right after its entry (:func:`after_sources`). So are a page's D1
        entry and a man page's NAME line its first paragraph holds (:func:`said_already`):
        the line is passed over where the entry is kept, and gives the entry its place where
        it came first (a man page's NAME line and its entry took both places of gitignore,
        and DESCRIPTION was capped out). The rows (scored by their cosine with ``vec``)
        and the chunk ids left out."""
        rows: list[PlannedRow] = []
        seen: set[str] = set()
        per_doc: dict[str, int] = {}
        omitted: list[str] = []
        for row in seeded:
            if row.chunk_id in seen or len(rows) >= plan.limit:
                if row.chunk_id not in seen:
                    omitted.append(row.chunk_id)
                continue
            seen.add(row.chunk_id)
            rows.append(row)
            doc = str(row.payload.get("doc_id"))
            per_doc[doc] = per_doc.get(doc, 0) + 1
        capped: list[StoredPoint] = []
        late: list[str] = []  # hybrid rows past the limit (after every capped one)
        stood = {stands_for(r.payload) for r in rows}  # each kept row's chunk
        leads = ((str(r.payload.get("doc_id")), page_lead(r.payload)) for r in rows)
        said = {doc: lead for doc, lead in leads if lead}  # the pages whose D1 entry is kept
        for _, _, p in hybrid:
            cid = str(p.payload.get("chunk_id"))
            if cid in seen:
                continue
            if entry_of(p.payload) in stood:
                continue  # an entry of a chunk already kept: the same vector again
            if said_already(p.payload, said):
                continue  # a line its page's kept entry holds: the entry says it already
            doc = str(p.payload.get("doc_id"))
            if len(rows) >= plan.limit:
                late.append(cid)
                continue
            lead = page_lead(p.payload)
            if lead:  # a page's entry: the lines of its page it holds give it their places
                rows, gone = without_lines_of(rows, doc, lead)
                per_doc[doc] = per_doc.get(doc, 0) - gone
            if per_doc.get(doc, 0) >= self.max_per_doc:
                capped.append(p)
                continue
            seen.add(cid)
            stood.add(stands_for(p.payload))
            if lead:
                said[doc] = lead
            per_doc[doc] = per_doc.get(doc, 0) + 1
            rows.append(PlannedRow(p.payload, best_cosine(vec, p.dense), HYBRID))
        free = max(0, plan.limit - len(rows))
        rows += [PlannedRow(p.payload, best_cosine(vec, p.dense), HYBRID) for p in capped[:free]]
        order = {str(p.payload.get("chunk_id")): i for i, (_, _, p) in enumerate(ordered)}
        first = len(rows) - sum(1 for r in rows if r.step == HYBRID)
        rows[first:] = after_sources(sorted(rows[first:], key=lambda r: order[r.chunk_id]))
        omitted += [str(p.payload.get("chunk_id")) for p in capped[free:]] + late
        return rows, omitted


__all__ = [
    "EXACT",
    "HYBRID",
    "SECTION",
    "SUBSTRING",
    "Execution",
    "PlanExecutor",
    "PlannedRow",
    "cover_prefixes",
    "question_order",
    "titled_first",
]


def entry_of(payload: dict[str, Any]) -> str | None:
    """The chunk a D3 entry stands for (the one that defines its name, whose vector it
    shares); None for any other row."""
    if payload.get("layer") != Layer.D3_ENTITY_CATALOG.value:
        return None
    source = payload.get("source_chunk_id")
    return None if source is None else str(source)


def stands_for(payload: dict[str, Any]) -> str:
    """The chunk a row stands for: a D3 entry's source chunk, else the row's own."""
    return entry_of(payload) or str(payload.get("chunk_id"))


def page_lead(payload: dict[str, Any]) -> str:
    """The first paragraph a page's D1 entry holds, words joined by one space ("" for any
    other row)."""
    if payload.get("layer") != Layer.D1_DOCUMENT_CATALOG.value:
        return ""
    return " ".join(str(payload.get("first_paragraph") or "").split())


def said_already(payload: dict[str, Any], said: dict[str, str]) -> bool:
    """Whether a page chunk is a man page's NAME line (``name - what it does``, one line,
    no sentence ending inside it: "gitignore - Specifies intentionally untracked files to
    ignore") that its page's first paragraph holds word for word, as the page's kept D1
    entry has it (``said``: by document id). The line is the entry's own words: the entry
    (title, that line, the outline) is the same evidence and more. A page's intro, even of
    one sentence ("Never use ECB mode to encrypt fields of a database: ..."), is a section
    a question asks for, and stays.

    Example:
        >>> line = {"layer": "D0", "doc_id": "g", "text": "gitignore - Ignore files"}
        >>> said_already(line, {"g": "gitignore - Ignore files"}), said_already(line, {})
        (True, False)
        >>> intro = {**line, "text": "Never use ECB mode: it leaks."}
        >>> said_already(intro, {"g": "Never use ECB mode: it leaks."})
        False
    """
    if payload.get("layer") != Layer.D0_DOC_CHUNKS.value:
        return False
    lead = said.get(str(payload.get("doc_id")))
    if not lead:
        return False  # no kept entry of its page: nothing to read (most rows)
    text = " ".join(str(payload.get("text") or "").split())
    return bool(_WHATIS.match(text)) and not _SENTENCE_END.search(text) and text in lead


def without_lines_of(rows: list[PlannedRow], doc: str, lead: str) -> tuple[list[PlannedRow], int]:
    """``rows`` without the hybrid rows of page ``doc`` whose line its entry's first
    paragraph ``lead`` holds (:func:`said_already`), and how many left."""
    kept = [r for r in rows if r.step != HYBRID or not said_already(r.payload, {doc: lead})]
    return kept, len(rows) - len(kept)


_SENTENCE_END = re.compile(r"[.!?]\s")
#: A man page's NAME line: a name (or names, comma-separated), a dash, what it does.
_WHATIS = re.compile(r"[\w][\w.+:-]*(?:, [\w][\w.+:-]*)* [-\u2013\u2014] \S")


def after_sources(rows: list[PlannedRow]) -> list[PlannedRow]:
    """``rows`` with each chunk a derived row stands for (a D3 entry's ``source_chunk_id``:
    the chunk that defines the term, whose vector the entry shares) moved to just after the
    first row that points at it; the rest keep their order.

    An entry says where a name is defined ("--cleanup= Term in git-revert(1) › OPTIONS");
    the chunk is what it says there. Without the move, the chunk of a long options list,
    weaker for BM25 than its entry's name, stood after other pages' rows ("How do I undo
    a merge commit that I have already pushed?").

    Example:
        >>> row = lambda cid, src=None: PlannedRow({"chunk_id": cid, "source_chunk_id": src,
        ...     "layer": "D3" if src else "D0"}, 0.5, HYBRID)
        >>> [r.chunk_id for r in after_sources([row("d3:a", "c1"), row("c2"), row("c1")])]
        ['d3:a', 'c1', 'c2']
        >>> [r.chunk_id for r in after_sources([row("c1"), row("d3:a", "c1")])]
        ['c1', 'd3:a']
    """
    by_id = {r.chunk_id: r for r in rows}
    out: list[PlannedRow] = []
    placed: set[str] = set()
    for r in rows:
        if r.chunk_id in placed:
            continue
        out.append(r)
        placed.add(r.chunk_id)
        source = entry_of(r.payload)
        if source is not None and source in by_id and source not in placed:
            out.append(by_id[source])
            placed.add(source)
    return out


def titled_first(
    hybrid: list[tuple[float, int, StoredPoint]],
    titled: frozenset[tuple[str, str]],
    limit: int,
) -> tuple[list[tuple[float, int, StoredPoint]], list[str]]:
    """``hybrid`` with the rows of a ``titled`` section (``(doc_id, section_key)``), or of
    a section below it, among its first ``limit`` put first, in their order, and their
    section keys.

    A question that writes a section's title ("How do I use jest-codemods to migrate my
    Mocha tests?") without the title being all it asks (so the section is not read
    whole) still has that section first when retrieval agrees it is close: the order
    of the rows the plan keeps changes, never which rows they are.

    Example:
        >>> from sectio.index.port import StoredPoint
        >>> row = lambda i, key: (1 - i / 10, i, StoredPoint(str(i), {"doc_id": "d",
        ...     "section_key": key}))
        >>> rows, keys = titled_first([row(0, "a"), row(1, "b/x"), row(2, "b")], {("d", "b")}, 3)
        >>> [r[2].payload["section_key"] for r in rows], keys
        (['b/x', 'b', 'a'], ['b/x', 'b'])
        >>> titled_first([row(0, "a"), row(1, "c"), row(2, "b")], {("d", "b")}, 2)[1]
        []
    """
    head = hybrid[:limit]
    first = [t for t in head if _under(t[2].payload, titled)]
    if not first:
        return hybrid, []
    keys = list(dict.fromkeys(str(t[2].payload.get("section_key")) for t in first))
    return first + [t for t in head if t not in first] + hybrid[limit:], keys


def _under(payload: dict[str, Any], sections: frozenset[tuple[str, str]]) -> bool:
    """Whether the row is of one of ``sections`` or of a section below one."""
    doc_id, key = payload.get("doc_id"), str(payload.get("section_key") or "")
    return any(doc_id == d and (key == k or key.startswith(f"{k}/")) for d, k in sections)


def question_order(
    hybrid: list[tuple[float, int, StoredPoint]],
    asked: dict[str, float],
    boosts: dict[str, float],
    limit: int,
) -> list[tuple[float, int, StoredPoint]]:
    """``hybrid`` with its first ``limit`` rows ordered by ``asked`` (each point's fusion
    value with the question's lexical trust, as ``search`` fuses a question:
    :meth:`~sectio.retrieve.fusion.FusionParams.lexical_trust`) plus its ``boosts``;
    the rest as they were.

    Which rows the plan keeps is chosen with the tuned weights (what the answerability
    rules read stays the same); their order follows the question: BM25 keeps its whole
    weight only when its first pick is as close to the question as the dense list's.

    Example:
        >>> from sectio.index.port import StoredPoint
        >>> rows = [(1 - i / 10, i, StoredPoint(k, {})) for i, k in enumerate("abc")]
        >>> [t[2].id for t in question_order(rows, {"a": 0.1, "b": 0.3}, {}, 2)]
        ['b', 'a', 'c']
    """
    head = sorted(
        hybrid[:limit],
        key=lambda t: (-(asked.get(t[2].id, 0.0) + boosts.get(t[2].id, 0.0)), t[1]),
    )
    return head + hybrid[limit:]
