"""Which routes and answerability rules answer a collection: chosen here, and only here,
from the profile's ``engine`` (and the domain packs its profile turns on).

============================  ===============================================
``engine = "router"``         the section router: lookup, section, overview,
                              free-form, several documents' section, fallback
                              (:func:`sectio.retrieve.routes.section_routes`)
``engine = "docs_planner"``   lookup, then the docs planner
                              (:class:`sectio.plan.DocsPlanRoute`)
============================  ===============================================

A new engine is one entry here; a new route of the section router is one module
and one line in :func:`~sectio.retrieve.routes.section_routes`; a new
answerability rule is one module and one line in its engine's chain
(:data:`RULES`, :mod:`sectio.retrieve.answerability.rules`); a new domain is a
pack (:mod:`sectio.domains`) and one line in :func:`domains_for`.

The profile of an ingest that names none is chosen here too
(:func:`default_profile`): the collection's own when it exists, else ``docs``
for documents and ``generic`` for records, with the BM25 of the language the
records are written in where a shipped profile reads it (:data:`LANGUAGE_PROFILES`).

Example:
    >>> from sectio.contract.profile import load_profile
    >>> [r.name for r in routes_for(load_profile("docs"))]
    ['lookup', 'docs_plan']
    >>> [p.name for p in domains_for(load_profile("en_drug_label"))]
    ['drug_labels']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sectio.contract.profile import CorpusProfile
from sectio.domains.drug_labels import DrugLabels
from sectio.plan import DocsPlanRoute
from sectio.retrieve.answerability import Rule, docs_rules, section_rules
from sectio.retrieve.domain import DomainPack
from sectio.retrieve.routes import Route, section_routes
from sectio.retrieve.routes.lookup import LookupRoute


def docs_routes() -> tuple[Route, ...]:
    """The docs planner's routes: ``turn_type="lookup"`` first, then the planner."""
    return (LookupRoute(), DocsPlanRoute())


#: Route factories per profile engine (fresh instances: routes may keep per-collection caches).
ENGINES: dict[str, Callable[[], tuple[Route, ...]]] = {
    "router": section_routes,
    "docs_planner": docs_routes,
}


def routes_for(profile: CorpusProfile) -> tuple[Route, ...]:
    """The routes that answer a collection with ``profile``, in the order they are tried."""
    return ENGINES[profile.engine]()


#: Answerability chains per profile engine (fresh instances, in the order they run).
RULES: dict[str, Callable[[], tuple[Rule, ...]]] = {
    "router": section_rules,
    "docs_planner": docs_rules,
}


def rules_for(profile: CorpusProfile) -> tuple[Rule, ...]:
    """The answerability chain of a collection with ``profile`` (its domain packs' rules
    are added by the pipeline, before ``compound_name``)."""
    return RULES[profile.engine]()


def domains_for(profile: CorpusProfile) -> tuple[DomainPack, ...]:
    """The domain packs ``profile`` turns on (``[names] brand_table``: the drug labels')."""
    return (DrugLabels(),) if profile.names.brand_table else ()


#: The shipped profile whose BM25 reads a language (Russian stemming; Vietnamese without a
#: stemmer, accent-folded), by the language code :mod:`sectio.retrieve.language` detects.
LANGUAGE_PROFILES: dict[str, tuple[str, str]] = {
    "ru": ("generic_ru", "Russian"),
    "vi": ("generic_vi", "Vietnamese"),
}
#: Texts of a source read to tell its language (spread over the source).
LANGUAGE_SAMPLE = 256


def default_profile(
    fmt: str, texts: Sequence[str], bound: CorpusProfile | None = None
) -> tuple[CorpusProfile, str]:
    """The profile of an ingest given none, and one line saying why when it is not the
    static default ('' otherwise).

    ``bound``: the profile the collection was built with (it exists): kept, so that a
    re-ingest without ``--profile`` loads as before. Otherwise ``docs`` for documents
    (``fmt`` ``markdown``) and ``generic`` for records; where the texts are written in a
    language of :data:`LANGUAGE_PROFILES` (:func:`~sectio.retrieve.language.collection_languages`
    over a sample), records get that profile and documents the ``docs`` profile with
    its ``[lexical]`` table: English stemming of Russian text cost RuMedDaNet 0.11
    nDCG@10 (0.628 -> 0.738 with ``generic_ru``), ALQAC 0.017 (0.873 -> 0.890).

    Example:
        >>> prof, why = default_profile("beir", ["Người nghiện ma túy phải cai nghiện"] * 3)
        >>> prof.name, why
        ('generic_vi', 'BM25 for Vietnamese text: profile generic_vi (--profile sets another)')
        >>> default_profile("markdown", ["How do I sync an app?"])[0].name
        'docs'
    """
    from sectio.contract.profile import load_profile
    from sectio.retrieve.language import collection_languages

    if bound is not None:
        return bound, ""
    base = load_profile("docs" if fmt == "markdown" else "generic")
    sample = list(texts[:: max(1, len(texts) // LANGUAGE_SAMPLE)])[:LANGUAGE_SAMPLE]
    shipped = LANGUAGE_PROFILES.get(collection_languages(sample)[0])
    if shipped is None:
        return base, ""
    name, language = shipped
    if base.name == "generic":
        why = f"BM25 for {language} text: profile {name} (--profile sets another)"
        return load_profile(name), why
    lexical = load_profile(name).lexical
    why = f"BM25 for {language} text: profile docs with {name}'s [lexical] (--profile sets another)"
    return base.model_copy(update={"lexical": lexical}), why
