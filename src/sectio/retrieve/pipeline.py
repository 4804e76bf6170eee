"""The routed-retrieval pipeline: resolve -> route -> rerank -> hydrate -> pack -> decide.

One :class:`Pipeline` per open collection holds what is worth keeping between
questions (the profile's compiled section phrases, the policy numbers, per
tenant the catalog of document names) and runs every question through the
same named stages, in this order:

==========  =================================================================
``route``   the routes in registration order; the first whose ``run`` returns
            an outcome answers. Before a route that reads the resolution runs,
            the question is **resolved** once: the document it names (or the
            caller's ``doc_id``) and the section its phrases name (or the
            caller's ``section_key``).
``rerank``  ranked outcomes only: the configured reranker reorders (fail-open).
``hydrate`` ranked outcomes only: a chunk with a ``parent_id`` brings its parent.
``pack``    ranked outcomes keep the top ``top_k`` (the route's ``keep`` when it
            sets one: the fallback search keeps ``evidence_limit``); ranked and
            overview outcomes are packed to the token budget (whole chunks, never cut).
``answerability``  does the evidence cover what the question is about? If not,
            the turn abstains with a stable reason and the candidates are
            withheld (:mod:`sectio.retrieve.answerability`).
``decide``  :func:`sectio.retrieve.decision.decide` on the evidence (unless
            the answerability stage abstained).
==========  =================================================================

``stages`` is a plain list: a later feature inserts its stage by name (e.g.
before ``decide``). The routes of a collection come from the profile's
engine (``sectio.registry``); see :mod:`sectio.retrieve.routes` for the
section-router's routes and their order. Every read is tenant-scoped through
a :class:`~sectio.retrieve.scope.ReadScope`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial

from sectio import telemetry
from sectio.contract.diagnostics import Hydration, Ranking, RerankStatus
from sectio.contract.request import AskRequest
from sectio.contract.result import RetrievalResult
from sectio.embed.port import Embedder
from sectio.index.collection import Collection
from sectio.index.filters import Eq, tenant_where
from sectio.rerank import rerank_fail_open
from sectio.retrieve import answerability as ans
from sectio.retrieve.answerability.rules import with_rules_before
from sectio.retrieve.calibration import FusionCalibration, dense_floor, tenant_calibration
from sectio.retrieve.decision import decide
from sectio.retrieve.domain import DomainPack
from sectio.retrieve.facets import Assessment, FacetContext, assess
from sectio.retrieve.fusion import FusionParams
from sectio.retrieve.hydrate import hydrate_parents
from sectio.retrieve.language import model_mismatch
from sectio.retrieve.packing import pack
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.resolve import Resolver
from sectio.retrieve.routes import section_routes
from sectio.retrieve.routes.base import Route, Turn
from sectio.retrieve.scope import ReadScope, RerankerProvider, no_reranker
from sectio.retrieve.words import common_words

#: A pipeline stage: reads and fills the turn.
Stage = Callable[[ReadScope, Turn], None]


class Pipeline:
    """Routed retrieval over one open collection.

    ``routes`` are tried in order (default: :func:`sectio.retrieve.routes.section_routes`).
    ``guard`` is the second tenant check of every read (the owning
    :class:`sectio.Sectio` passes its own, so drops are counted on /metrics);
    a router built alone gets a guard of its own. ``rules`` are the answerability
    chain (default: every rule of :mod:`sectio.retrieve.answerability.rules`, the
    docs planner's chain); ``domains`` the domain packs the profile turns on
    (:mod:`sectio.retrieve.domain`): they annotate the resolution and run their
    rules before ``compound_name``. ``sectio.registry`` picks both for an engine.

    Example:
        >>> router = Pipeline(sectio.collection("labels"), sectio.embedder)  # doctest: +SKIP
        >>> router.ask("who should not take metformin", tenant="default").route  # doctest: +SKIP
        'section'
    """

    def __init__(
        self,
        collection: Collection,
        embedder: Embedder,
        *,
        routes: Sequence[Route] | None = None,
        reranker: RerankerProvider | None = None,
        policy: EvidencePolicy | None = None,
        guard: TenantGuard | None = None,
        fusion: FusionParams | None = None,
        calibration: FusionCalibration | None = None,
        rules: Sequence[ans.Rule] | None = None,
        domains: Sequence[DomainPack] = (),
    ) -> None:
        self.collection = collection
        self.embedder = embedder
        self.guard = guard if guard is not None else TenantGuard()
        self.policy = policy or EvidencePolicy.from_profile(collection.profile)
        self.fusion = fusion or FusionParams()
        #: Per-tenant calibrated fusion (None: ``fusion`` as given, for every tenant).
        self.calibration = calibration
        self.routes: tuple[Route, ...] = tuple(routes) if routes is not None else section_routes()
        common = common_words(embedder.count_tokens)
        profile = collection.profile
        self.resolver = Resolver(profile, guard=self.guard, common=common, domains=domains)
        words = ans.Vocabulary(
            collection.lexical,
            self.resolver.routing_words,
            common=common,
            generic=collection.lexical.terms(" ".join(profile.anchors.generic)),
        )
        chain = ans.chain(rules)
        for domain in domains:  # a domain's rules run before compound_name
            chain = with_rules_before(chain, "compound_name", domain.rules())
        self.judge = ans.Judge(profile.answerability, words, chain)
        self._reranker = reranker or no_reranker
        self._floors: dict[str, float] = {}
        self._catalog_floors: dict[str, float] = {}
        self.stages: list[tuple[str, Stage]] = [
            ("route", self.route),
            ("rerank", self.rerank),
            ("hydrate", self.hydrate),
            ("pack", self.pack),
            ("answerability", self.answerability),
            ("decide", self.decide),
        ]

    def scope(self, tenant: str) -> ReadScope:
        """The read scope of ``tenant`` in this collection (its calibrated fusion, if any)."""
        scope = ReadScope(
            self.collection,
            tenant,
            self.guard,
            self.policy,
            self.embedder,
            self.fusion,
            self._reranker,
        )
        if self.calibration is None:
            return scope
        return replace(scope, fusion=self.calibration.params(scope))

    # --- entry points -------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        tenant: str,
        doc_id: str | None = None,
        section_key: str | None = None,
        turn_type: str | None = None,
        top_k: int | None = None,
        context_doc_id: str | None = None,
    ) -> RetrievalResult:
        """Run ``question`` through the stages (see the module doc).

        ``context_doc_id``: the conversation's previous document, the subject
        of a question that names none (:class:`~sectio.contract.request.AskRequest`).

        Raises:
            ConfigError: an empty question, an unknown ``turn_type``, or one the
                collection's engine cannot honour.
        """
        request = AskRequest.of(
            question,
            doc_id=doc_id,
            section_key=section_key,
            turn_type=turn_type,
            top_k=top_k,
            context_doc_id=context_doc_id,
        )
        return self.answer(request, tenant=tenant)

    def lookup(self, phrase: str, *, tenant: str) -> RetrievalResult:
        """Reverse lookup (phrase -> documents): the ``lookup`` turn.

        Raises:
            ConfigError: an empty phrase.
        """
        request = AskRequest.of(phrase, turn_type="lookup", empty="the lookup phrase is empty")
        return self.answer(request, tenant=tenant)

    def answer(self, request: AskRequest, *, tenant: str) -> RetrievalResult:
        """The result of ``request`` for ``tenant`` (every stage in order)."""
        started = time.perf_counter()
        scope = self.scope(tenant)
        turn = Turn(request)
        for name, stage in self.stages:
            with telemetry.stage_span(name, turn):  # OpenTelemetry: no-op when tracing is off
                stage(scope, turn)
        outcome = turn.outcome
        assert outcome is not None and turn.decision is not None  # the route and decide stages
        turn.timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        return RetrievalResult(
            query=request.question,
            collection=self.collection.name,
            tenant=tenant,
            decision=turn.decision,
            reason=turn.reason or "",
            route=outcome.route,
            resolved_doc_id=outcome.doc_id,
            resolved_section_key=outcome.section_key,
            evidence=outcome.evidence,
            omitted_evidence_ids=outcome.omitted,
            details=turn.details,
            timings_ms={**turn.timings, **outcome.timings},
        )

    def assess(
        self,
        candidates: Sequence[str],
        context: Mapping[str, str | Sequence[str] | bool] | FacetContext,
        *,
        tenant: str,
    ) -> Assessment:
        """Facet evidence for documents already chosen; see :mod:`sectio.retrieve.facets`."""
        ctx = context if isinstance(context, FacetContext) else FacetContext(context)
        return assess(self.scope(tenant), candidates, ctx)

    # --- stages -----------------------------------------------------------------------
    def route(self, scope: ReadScope, turn: Turn) -> None:
        """The first route with an outcome answers; the question is resolved on first need.

        Raises:
            RuntimeError: no route answered (the route list must end with one that always does).
        """
        for route in self.routes:
            if route.needs_resolution and turn.resolution is None:
                t0 = time.perf_counter()
                with telemetry.span("sectio.resolve"):
                    turn.resolution = self.resolver.resolve(scope, turn)
                turn.timings["resolve"] = round((time.perf_counter() - t0) * 1000, 3)
                turn.details.doc_resolution = turn.resolution.doc_facts
                turn.details.section_resolution = turn.resolution.section_facts
            outcome = route.run(scope, turn)
            if outcome is not None:
                turn.outcome = outcome
                turn.details.merge(outcome.details)
                return
        raise RuntimeError(f"no route answered; routes: {[r.name for r in self.routes]}")

    def rerank(self, scope: ReadScope, turn: Turn) -> None:
        """Ranked outcomes: reorder by the reranker (fail-open; its scores replace cosines)."""
        outcome = turn.outcome
        if outcome is None or outcome.finish != "rank":
            return
        reranker, error = scope.reranker()
        if not outcome.evidence:
            status = RerankStatus(status="skipped")
        else:
            result = rerank_fail_open(
                reranker,
                turn.question,
                outcome.evidence,
                [e.text for e in outcome.evidence],
                timeout_s=scope.policy.rerank_timeout_s,
            )
            outcome.evidence = list(result.items)
            if result.scores is not None:
                for item, score in zip(outcome.evidence, result.scores, strict=True):
                    item.score = float(score)
            status = result.status.model_copy()
        if error:
            status = RerankStatus(status="unavailable", error=error)
        status.failed = status.did_fail
        if turn.details.ranking is None:
            turn.details.ranking = Ranking()
        turn.details.ranking.order = "rerank" if status.status == "ok" else "hybrid"
        turn.details.rerank = status

    def hydrate(self, scope: ReadScope, turn: Turn) -> None:
        """Ranked outcomes: children carrying a ``parent_id`` are replaced by their parents."""
        outcome = turn.outcome
        if outcome is None or outcome.finish != "rank":
            return
        hydrated = hydrate_parents(scope, outcome.evidence)
        if hydrated.parents or hydrated.missing:
            turn.details.hydration = Hydration(parents=hydrated.parents, missing=hydrated.missing)
        outcome.evidence = hydrated.evidence

    def pack(self, scope: ReadScope, turn: Turn) -> None:
        """Ranked outcomes keep the top ``top_k``; ranked and overview outcomes fit the budget."""
        outcome = turn.outcome
        if outcome is None or outcome.finish == "none":
            return
        evidence = outcome.evidence
        keep = None
        if outcome.finish == "rank":
            keep = outcome.keep or turn.request.keep(scope.policy.rerank_top_k)
            evidence = evidence[:keep]
        packed = pack(evidence, scope.policy.max_context_tokens, scope.count_tokens)
        outcome.evidence, outcome.omitted = packed.kept, [*outcome.omitted, *packed.omitted_ids]
        turn.details.packing = packed.report(top_k=keep)

    def answerability(self, scope: ReadScope, turn: Turn) -> None:
        """Abstain when the evidence does not cover what the question is about.

        See :mod:`sectio.retrieve.answerability` for the signals and their order.
        """
        outcome = turn.outcome
        assert outcome is not None
        view = self.resolver.view(scope)
        floor = None
        if outcome.route not in ans.EXACT_ROUTES and outcome.evidence:
            floor = self.dense_floor(scope)
        catalog = partial(self.catalog_match, scope, turn.question)  # read by the planner's rules
        verdict = self.judge.judge(
            turn, view.stats, dense_floor=floor, subjects=view.subjects, catalog=catalog
        )
        if verdict.reason == ans.WEAK_EVIDENCE and floor is not None:
            verdict.thresholds.model_mismatch = self.model_mismatch(scope)
        ans.apply(outcome, verdict, turn)

    def catalog_match(self, scope: ReadScope, question: str) -> ans.CatalogMatch | None:
        """``question`` against the tenant's page catalog (None: the profile has no
        ``catalog_percentile``, or the tenant has no catalog entries).

        The floor is calibrated once per tenant and process, as :meth:`dense_floor` is.
        """
        pct = self.collection.profile.answerability.catalog_percentile
        if pct is None:
            return None
        where = tenant_where(scope.tenant, Eq("layer", ans.CATALOG_LAYER))
        hits = scope.index.search_dense(scope.query_vector(question), 1, where, with_payload=False)
        if not hits:
            return None
        if scope.tenant not in self._catalog_floors:
            self._catalog_floors[scope.tenant] = dense_floor(scope, pct, where)
        return ans.CatalogMatch(float(hits[0].score or 0.0), self._catalog_floors[scope.tenant])

    def model_mismatch(self, scope: ReadScope) -> str | None:
        """The line saying the embedding model does not read the tenant's language
        (:func:`~sectio.retrieve.language.model_mismatch`), from the calibration the floor
        was read from; None under a profile's fixed floor, which reads none (measuring
        one there would put a calibration on the path of a question)."""
        if self.collection.profile.answerability.dense_floor is not None:
            return None
        languages = tenant_calibration(scope).languages
        return model_mismatch(self.collection.manifest.model_id, languages)

    def dense_floor(self, scope: ReadScope) -> float:
        """The tenant's calibrated dense floor (the profile's fixed one when it sets one)."""
        fixed = self.collection.profile.answerability.dense_floor
        if fixed is not None:
            return fixed
        if scope.tenant not in self._floors:
            pct = self.collection.profile.answerability.calibration_percentile
            self._floors[scope.tenant] = dense_floor(scope, pct)
        return self._floors[scope.tenant]

    def decide(self, scope: ReadScope, turn: Turn) -> None:
        """Number the evidence and decide (:func:`~sectio.retrieve.decision.decide`).

        A turn the answerability stage abstained keeps that decision and reason.
        """
        assert turn.outcome is not None
        for i, item in enumerate(turn.outcome.evidence):
            item.rank = i + 1
        if turn.decision is None:
            turn.decision, turn.reason = decide(turn.outcome.evidence)


#: The former name of :class:`Pipeline` (it read as the docs planner's intent router).
Router = Pipeline
