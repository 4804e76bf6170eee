"""Corpus profiles: the sections of a corpus and the policy numbers, as data (TOML).

A profile names a corpus's sections in display order, their titles, which are
intro sections of an overview, the phrases that route a question to a section
(any language; the longest phrase wins), lexical (BM25) settings, pooling,
the reverse-lookup section, facets and policy numbers. Changing a phrasing is
a profile edit, never a code edit.

Example:
    >>> p = load_profile("en_drug_label")
    >>> p.section("contraindications").title
    'Contraindications'
    >>> p.order_of("indications_and_usage") < p.order_of("overdosage")
    True
"""

from __future__ import annotations

import difflib
import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, model_validator

from sectio.errors import ProfileError

SHIPPED_PROFILES = (
    "generic",
    "generic_ru",
    "generic_vi",
    "en_drug_label",
    "vi_drug_monograph",
    "docs",
    "docs_argocd",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SectionSpec(_Strict):
    """One section of the corpus: key, display title, routing phrases, example questions.

    ``examples``: questions that ask for this section, the document's name
    written as "it" ("can i take it with ibuprofen"); when no phrase matches,
    the section-intent step routes to the section whose examples are nearest
    in meaning (:mod:`sectio.retrieve.intent`). ``stand_in``: the section, or
    sections in order of preference, that answer this section's phrases in a
    document that lacks it (``storage_and_handling`` -> ``how_supplied``,
    where most labels keep storage; the first of them the document has), and
    are scored on this section's examples there too; None: the next section
    the question names is tried instead.
    """

    key: str = Field(min_length=1)
    title: str = ""
    phrases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    intro: bool = False
    stand_in: str | tuple[str, ...] | None = None

    @property
    def stand_ins(self) -> tuple[str, ...]:
        """``stand_in`` as a tuple, in order of preference (empty: none)."""
        if self.stand_in is None:
            return ()
        return (self.stand_in,) if isinstance(self.stand_in, str) else self.stand_in


class IntentSettings(_Strict):
    """The section-intent step (``[intent]``): when no phrase names a section.

    A named document's question is compared with the sections' example
    questions; the best section answers when its score (the mean cosine of
    its ``k`` nearest examples) is at least ``min_score`` and leads the next
    section by ``margin``; within ``margin`` of it, both sections answer
    whole (``both_within`` on); below ``min_score``, the free-form route.
    ``rank_weight``: in that free-form ranking (a document, no section), a
    chunk is ordered by its cosine plus ``rank_weight`` times its section's
    intent score (0: chunk similarity alone). ``joiners``: words that join
    two asks; when two phrases of different sections have one between them
    ("indications and contraindications"), both sections answer whole (an
    empty list: the longest phrase alone).
    """

    enabled: bool = True
    k: int = Field(default=2, ge=1)
    min_score: float = 0.5
    margin: float = 0.03
    both_within: bool = True
    rank_weight: float = Field(default=0.5, ge=0)
    joiners: tuple[str, ...] = ("and", "or", "also", "plus", "if", "while", "but")


class LexicalSettings(_Strict):
    """BM25 settings of a collection (bound in its manifest).

    ``language`` picks stemmer and stopwords ("english", "russian", ...; "none"
    for neither, e.g. Vietnamese). ``fold_diacritics`` adds a second, accent-
    folded BM25 vector so "chong chi dinh" matches "chống chỉ định" as well as
    the exact form.
    """

    language: str = "english"
    stemming: bool = True
    stopwords: bool = True
    tokenizer: Literal["word", "multilingual"] = "word"
    fold_diacritics: bool = False
    k: float = Field(default=1.2, ge=0)
    b: float = Field(default=0.75, ge=0, le=1)


class PoolingSettings(_Strict):
    """Bounded cross-section pooling (same document only).

    ``min_matched_terms``: the distinct query terms (BM25 terms: stemmed,
    stopwords out) a chunk must contain, the seed's criterion; a count, so it
    means the same on a corpus of 200 chunks and of 200,000 (a raw BM25 score
    does not). ``min_score`` is read as another name of it (profiles that say so).
    """

    enabled_sections: tuple[str, ...] = ()
    excluded_sections: tuple[str, ...] = ()
    min_matched_terms: int = Field(
        default=5, ge=1, validation_alias=AliasChoices("min_matched_terms", "min_score")
    )
    max_sections: int = Field(default=2, ge=0)


class AnswerabilitySettings(_Strict):
    """When the evidence does not cover what a question is about (``[answerability]``).

    ``subject``: ``document`` for corpora whose documents are the subjects
    (drug labels, monographs): a question that names none of them must not
    name another subject either, one the collection never mentions or one
    it mentions only in ``subject_sections`` (where labels list other drugs)
    and never in its lookup section; ``terms`` for the rest (coverage of the
    question's salient terms decides). ``min_coverage``: the share
    of the question's salient-term weight (IDF over the collection) the
    evidence must hold. ``dense_floor``: a best cosine at or under it is weak
    evidence; None calibrates it on the collection (the
    ``calibration_percentile`` of the best cosines unrelated questions reach).
    ``rerank_floor``: with a reranker, a top score under it is weak evidence.
    The docs planner (no document named) also abstains on a name-like word the
    collection never contains, and needs its best cosine ``planner_margin``
    above the calibrated floor, or ``guest_margin`` above it when the question
    writes with a capital a word the collection mentions in at most
    ``guest_share`` of its chunks (another product, mentioned in passing);
    then an evidence row naming that word must reach it too. Last, its
    closest page must be closer than general-knowledge questions come to
    the page catalog: the ``catalog_percentile`` of their best
    cosines among the catalog entries (None: no such rule).
    Chosen on the Argo CD dev questions (benchmarks/answerability.py).
    """

    subject: Literal["document", "terms"] = "terms"
    subject_sections: tuple[str, ...] = ()
    min_coverage: float = Field(default=0.5, ge=0.0, le=1.0)
    dense_floor: float | None = None
    calibration_percentile: float = Field(default=95.0, ge=0.0, le=100.0)
    rerank_floor: float | None = None
    planner_margin: float = Field(default=0.10, ge=0.0, le=1.0)
    guest_margin: float = Field(default=0.30, ge=0.0, le=1.0)
    guest_share: float = Field(default=0.0075, ge=0.0, le=1.0)
    catalog_percentile: float | None = Field(default=99.0, ge=0.0, le=100.0)


class NameSettings(_Strict):
    """How questions name documents (``[names]``).

    ``brand_table``: read a medicine's brand name ("Paxil") as the document of
    its active ingredients (paroxetine) when no document carries the brand,
    from the bundled FDA brand table (:mod:`sectio.retrieve.brands`). For
    corpora whose documents are medicines named by their ingredients.
    """

    brand_table: bool = False


class LearningSettings(_Strict):
    """Section routing learned from the corpus (``[learning]``).

    With ``enabled`` on, a collection routes by its own sections where the
    profile's phrases say nothing: numbered references ("article 17",
    "§ 4.2"), section titles as phrases, and section keys most documents
    share (:mod:`sectio.retrieve.learned`). Sections the profile lists are
    left to it. ``enabled = false`` turns learning off: the profile alone routes.
    ``common_share``: a question word found in more than this share of the
    chunks says little of what is asked; a title phrase routes when the
    question's other words are mostly such words (or a unit word such as
    "section" stands beside it).
    """

    enabled: bool = True
    common_share: float = Field(default=0.1, ge=0.0, le=1.0)


class AnchorSettings(_Strict):
    """What cannot anchor a facet hit (``[anchors]``).

    ``generic``: words and phrases too general to be a clinical anchor
    ("function", "chức năng"). A caller's term made only of them (and of
    nothing else) anchors nothing: it is not searched and it is reported in
    the finding's ``ignored_terms``; inside a longer term ("kidney function")
    they are part of the phrase that must match.
    """

    generic: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _non_blank(self) -> AnchorSettings:
        if any(not g.strip() for g in self.generic):
            raise ValueError("generic anchor words must be non-empty")
        return self


class FacetSpec(_Strict):
    """A facet of an assessment: its own sections, its own anchor requirement."""

    sections: tuple[str, ...]
    require_anchor: bool = True
    direct: bool = False


#: Which engine answers a collection's questions: the section router or the docs planner.
Engine = Literal["router", "docs_planner"]


class CorpusProfile(_Strict):
    """A corpus profile. Load with :func:`load_profile`.

    ``engine`` names what answers the collection's questions: ``router`` (the
    section router: document and section resolution, exact section reads) or
    ``docs_planner`` (the docs planner: intent, plan, layered seeds). A profile
    that leaves it out gets ``docs_planner`` when it has a ``[docs]`` table
    (profiles stored before the field existed), else ``router``.
    """

    name: str = Field(min_length=1)
    description: str = ""
    engine: Engine = "router"
    sections: tuple[SectionSpec, ...] = ()
    lexical: LexicalSettings = LexicalSettings()
    pooling: PoolingSettings = PoolingSettings()
    answerability: AnswerabilitySettings = AnswerabilitySettings()
    intent: IntentSettings = IntentSettings()
    names: NameSettings = NameSettings()
    learning: LearningSettings = LearningSettings()
    reverse_lookup_section: str | None = None
    facets: dict[str, FacetSpec] = Field(default_factory=dict)
    anchors: AnchorSettings = AnchorSettings()
    policy: dict[str, float] = Field(default_factory=dict)
    docs: dict[str, list[str] | bool] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _default_engine(cls, data: object) -> object:
        if isinstance(data, dict) and "engine" not in data and data.get("docs"):
            return {**data, "engine": "docs_planner"}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> CorpusProfile:
        keys = [s.key for s in self.sections]
        dupes = {k for k in keys if keys.count(k) > 1}
        if dupes:
            raise ValueError(f"duplicate section keys: {sorted(dupes)}")
        known = set(keys)
        refs = list(self.pooling.enabled_sections) + list(self.pooling.excluded_sections)
        if self.reverse_lookup_section:
            refs.append(self.reverse_lookup_section)
        for facet in self.facets.values():
            refs.extend(facet.sections)
        refs.extend(k for s in self.sections for k in s.stand_ins)
        unknown = sorted({r for r in refs if known and r not in known})
        if unknown:
            raise ValueError(f"unknown section keys referenced: {unknown}")
        return self

    @property
    def stand_ins(self) -> dict[str, tuple[str, ...]]:
        """Each section that names stand-ins, with them in order of preference."""
        return {s.key: s.stand_ins for s in self.sections if s.stand_ins}

    def section(self, key: str) -> SectionSpec | None:
        """The section spec of ``key``, or None."""
        for spec in self.sections:
            if spec.key == key:
                return spec
        return None

    def order_of(self, key: str) -> int:
        """Display order of a section; unknown sections sort after known ones."""
        for i, spec in enumerate(self.sections):
            if spec.key == key:
                return i
        return len(self.sections)

    @property
    def intro_sections(self) -> tuple[str, ...]:
        """Sections of an overview, in display order."""
        return tuple(s.key for s in self.sections if s.intro)

    def sha256(self) -> str:
        """Hash of the profile's content (bound in the manifest).

        ``[learning]`` at its defaults is left out, so a collection built
        before the table existed keeps its hash.
        """
        data = self.model_dump(mode="json")
        if self.learning == LearningSettings():
            data.pop("learning")
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()


def _parse(text: str, origin: str) -> CorpusProfile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profile {origin}: not valid TOML: {exc}") from exc
    try:
        return CorpusProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ())) or "<profile>"
        if err.get("type") == "extra_forbidden":
            raise ProfileError(f"profile {origin}: {unknown_key(err.get('loc', ()))}") from exc
        raise ProfileError(f"profile {origin}: {loc}: {err.get('msg')}") from exc


def unknown_key(loc: tuple[int | str, ...]) -> str:
    """``unknown key 'learning.enabeld' (did you mean 'learning.enabled'?)``: the nearest
    valid key of the same table (list positions skipped), or the table's keys when none is near.

    Example:
        >>> unknown_key(("learning", "enabeld"))
        "unknown key 'learning.enabeld' (did you mean 'learning.enabled'?)"
        >>> unknown_key(("sections", 0, "phrase"))
        "unknown key 'sections.0.phrase' (did you mean 'sections.0.phrases'?)"
    """
    model: type[BaseModel] = CorpusProfile
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        inner = _model_of(field.annotation) if field is not None else None
        if inner is None:
            break
        model = inner
    path = ".".join(str(p) for p in loc)
    valid = sorted(model.model_fields)
    near = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.5)
    where = ".".join(str(p) for p in loc[:-1])
    if near:
        return f"unknown key {path!r} (did you mean {'.'.join([where, near[0]]).lstrip('.')!r}?)"
    return f"unknown key {path!r} (valid here: {', '.join(valid)})"


def _model_of(annotation: object) -> type[BaseModel] | None:
    """The profile sub-model inside a field's annotation (``tuple[SectionSpec, ...]``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def load_profile(name_or_path: str | Path | None) -> CorpusProfile:
    """Load a shipped profile by name, or a TOML file by path.

    ``None`` gives the ``generic`` profile (no sections, English BM25).

    Raises:
        ProfileError: unknown name, unreadable file, invalid TOML or fields.
    """
    if name_or_path is None:
        name_or_path = "generic"
    text_name = str(name_or_path)
    if text_name in SHIPPED_PROFILES:
        res = resources.files("sectio.contract").joinpath(f"profiles/{text_name}.toml")
        return _parse(res.read_text(encoding="utf-8"), text_name)
    path = Path(name_or_path)
    if not path.is_file():
        raise ProfileError(
            f"profile {text_name!r}: no such file and not a shipped profile "
            f"({', '.join(SHIPPED_PROFILES)})"
        )
    return _parse(path.read_text(encoding="utf-8"), str(path))


def profile_from_dict(data: dict[str, object]) -> CorpusProfile:
    """Rebuild a profile stored in a manifest.

    Raises:
        ProfileError: the stored profile no longer validates.
    """
    try:
        return CorpusProfile.model_validate(data)
    except ValidationError as exc:
        raise ProfileError(f"stored profile is invalid: {exc.errors()[0].get('msg')}") from exc
