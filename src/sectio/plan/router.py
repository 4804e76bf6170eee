"""The intent router: question -> :class:`DocsIntent` (intent, subintent, anchors). No LLM.

Anchors come from two places:

* the text itself: API paths (``GET /api/v1/...``, ``/api/...``) and file names
  (``sync-waves.md``, ``docs/faq.md``, ``argocd-cm.yaml``);
* the collection's catalogs (:class:`~sectio.plan.catalog.DocsCatalog`): doc
  titles and aliases (file name, file stem in words) become
  ``target_doc_hints``; D3 names (headings, glossary terms, identifiers) become
  ``entity_names`` (``matched_aliases`` when an alias matched); folder names
  said as such ("in the operator manual", "the notifications docs") become
  ``process_domain`` / ``process_subdomain``.

Precision rules (a wrong hint costs a seeded slot, a wrong domain filters out
the answer): a title or alias of one word counts only next to a word like
"page" or "docs", or when it is written like code; a phrase naming more than
two documents is no hint; an entity name of one word must look like code
(``OutOfSync``, ``argocd-cm``); an entity defined in more than
:data:`MAX_ENTITY_DOCS` documents is too common to anchor anything.

Intent: ``DOCS_LOOKUP``/``FIND_FILES`` for "where is X documented", "which
page ...", "where is" a page or a file name, a bare file name ("where is" a thing,
"Where is the offboarding form I need to fill out?", asks what a page says);
``GENERAL_QA`` for broad questions without any anchor ("what is Argo CD?", "give me
an overview"); otherwise
``DOCS_SUMMARY`` with a subintent from the question's wording.

Example:
    >>> r = IntentRouter().route("Which file documents GET /api/v1/session?")
    >>> r.intent.value, r.subintent.value, r.anchors.endpoint_paths
    ('DOCS_LOOKUP', 'FIND_FILES', ('/api/v1/session',))
"""

from __future__ import annotations

import re

from sectio.index.lexical import without_comparison
from sectio.plan.catalog import (
    DOC_CUES,
    FOLDER_CUES,
    STOPWORDS,
    DocsCatalog,
    PhraseMatch,
    norm,
    raw_tokens,
    tokens,
)
from sectio.plan.models import Anchors, DocsIntent, Intent, Subintent

#: An entity defined in more documents than this anchors nothing.
MAX_ENTITY_DOCS = 6
#: A title/alias phrase naming more documents than this is no hint.
MAX_HINT_DOCS = 2
#: A phrase inside this many document titles is the corpus's vocabulary, not an anchor.
MAX_TITLE_DF = 5
#: A one-word title that this share of the pages write in their title or first paragraph
#: is the product's name (the intro page titled "tRPC"), not a pointer to one page, when
#: the question asks about more than it ("What is tRPC?" names the page):
#: measured 0.35-0.87 for the product's name on six trees, at most 0.04 for a class or
#: an option a page is named after.
PRODUCT_PAGE_SHARE = 0.2

_ENDPOINT = re.compile(
    r"(?:\b(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+)?(?<![\w./-])"
    r"(/api/[A-Za-z0-9_{}<>$:./\-]*[A-Za-z0-9_}>/])"
)
_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:md|markdown|ya?ml|json|toml|lua|sh|txt|jsonnet))"
    r"(?![\w-])",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"`([^`]+)`")
_CODEISH = re.compile(r"[-_.]|[a-z][A-Z]")

_FIND_FILES = [
    re.compile(p, re.I)
    for p in (
        r"\bwhere\b.*\b(documented|described|explained|covered|mentioned|defined|discussed)\b",
        r"\bwhere (is|are|can i find|do i find|would i find|to find|can i read)\b.*"
        r"\b(docs?|documentation|pages?|files?|guides?|reference|instructions?)\b",
        r"\b(which|what)\s+(files?|pages?|docs?|documents?|guides?|articles?|sections?)\b",
        r"\b(list|find|locate|show me|point me to)\s+(the\s+|all\s+)?"
        r"(files?|pages?|docs?|documents?|documentation|guides?)\b",
        r"\bin which (files?|pages?|docs?|documents?|guides?|sections?)\b",
        r"\b(files?|pages?|docs?|documents?) (that|which) "
        r"(describes?|documents?|explains?|covers?|mentions?|talks?|lists?)\b",
    )
]
_GENERAL = re.compile(
    r"^\s*(what is|what's|what are|tell me about|give me an overview|an overview|overview"
    r"|introduce|introduction to|explain)\b|\b(overview|introduction|in general|high[- ]level"
    r"|big picture|getting started)\b",
    re.I,
)
_SUBINTENTS: list[tuple[Subintent, re.Pattern[str]]] = [
    (
        Subintent.SUMMARIZE,
        re.compile(r"\b(summari[sz]e|summary|tl;?dr|outline|overview of)\b", re.I),
    ),
    (
        Subintent.TROUBLESHOOT,
        re.compile(
            r"\b(why|error|errors|fail|fails|failing|failed|not working|stuck|unable|cannot"
            r"|can't|doesn't|does not|won't|issue|problem|troubleshoot\w*|fix|broken)\b",
            re.I,
        ),
    ),
    (
        Subintent.HOW_TO,
        re.compile(
            r"\b(how (do|to|can|should|would)|steps? to|configure|set up|setup|install|enable"
            r"|disable)\b",
            re.I,
        ),
    ),
    (
        Subintent.REFERENCE,
        re.compile(
            r"\b(endpoint|api|command|flag|option|parameter|config(uration)? key|field)s?\b", re.I
        ),
    ),
    (Subintent.EXPLAIN, re.compile(r"\b(what (is|are|does|do)|explain|describe|meaning)\b", re.I)),
]


def _has_cue(words: list[str], start: int, end: int, cues: frozenset[str] = DOC_CUES) -> bool:
    window = words[max(0, start - 2) : start] + words[end : end + 2]
    return any(w in cues for w in window)


class IntentRouter:
    """Deterministic question router over an optional catalog (no catalog: text anchors only)."""

    def __init__(self, catalog: DocsCatalog | None = None) -> None:
        self.catalog = catalog or DocsCatalog()

    # --- anchors ----------------------------------------------------------------------
    def _files(self, question: str, notes: list[str]) -> tuple[list[str], list[str]]:
        """File names in the question, and the doc hints they resolve to."""
        files: list[str] = []
        hints: list[str] = []
        for m in _FILE.finditer(question):
            name = m.group(1).strip("./") if m.group(1).startswith("./") else m.group(1)
            if name.startswith("/api/"):
                continue
            if name not in files:
                files.append(name)
        cat = self.catalog
        for name in files:
            low = name.lower()
            exact = [d for d in cat.docs if d.lower() == low]
            if exact:
                hints.extend(exact)
                notes.append(f"file {name!r}: exact path")
                continue
            tail = [d for d in cat.docs if d.lower().endswith("/" + low)]
            if 0 < len(tail) <= 3:
                hints.extend(sorted(tail))
                notes.append(f"file {name!r}: path ends with it")
                continue
            if not low.endswith((".md", ".markdown")) or not cat.docs:
                continue  # other files resolve through aliases (a.yaml -> a-yaml.md)
            hints.append(name)
            notes.append(f"file {name!r}: no such document, kept for substring fallback")
        return files, hints

    def _accept_doc_match(
        self, m: PhraseMatch, words: list[str], code_words: set[str], raw: list[str]
    ) -> bool:
        n = m.end - m.start
        if len(m.doc_ids) > MAX_HINT_DOCS:
            return False
        content = [w for w in words[m.start : m.end] if w not in STOPWORDS]
        if not content or self.catalog.title_df(m.phrase) >= MAX_TITLE_DF:
            return False
        if n >= 2:
            return not self._verb_of_command(m, raw)
        others = [w for i, w in enumerate(words) if w not in STOPWORDS and not m.start <= i < m.end]
        if others and self.catalog.page_share(m.phrase) >= PRODUCT_PAGE_SHARE:
            return False  # the product's name beside a subject ("How do I use tRPC with X?")
        return _has_cue(words, m.start, m.end) or words[m.start] in code_words

    def _verb_of_command(self, m: PhraseMatch, raw: list[str]) -> bool:
        """Whether the match is the product's name followed by a word the question writes
        with an ending no matched page's title or alias has: "Git shows files as
        modified ..." is Git showing, not the page ``git show``, whose name is the
        product's name and a verb. A plural the page's own name writes ("Argo CD
        Notifications") and a page named by other words match as before.

        Example:
            >>> from collections import Counter
            >>> from sectio.plan.catalog import CatalogDoc
            >>> docs = [CatalogDoc(f"git-{v}.adoc", f"git-{v}.adoc", f"git-{v}(1)",
            ...     (f"git {v}",)) for v in ("show", "log", "diff")]
            >>> router = IntentRouter(DocsCatalog(docs={d.doc_id: d for d in docs},
            ...     _page_df=Counter({"git": 3})))
            >>> m = PhraseMatch("git show", 0, 2, "alias", "git-show(1)", ("git-show.adoc",))
            >>> router._verb_of_command(m, ["git", "shows"]), router._verb_of_command(m,
            ...     ["git", "show"])
            (True, False)
        """
        if self.catalog.page_share(raw[m.start]) < PRODUCT_PAGE_SHARE:
            return False
        docs = [self.catalog.docs[d] for d in m.doc_ids if d in self.catalog.docs]
        written = {w for d in docs for name in (d.title, *d.aliases) for w in raw_tokens(name)}
        span = raw[m.start + 1 : m.end]
        return any(w not in written and w != norm(w) for w in span)

    def _accept_entity(self, m: PhraseMatch, code_words: set[str]) -> bool:
        if len(m.doc_ids) > MAX_ENTITY_DOCS or self.catalog.title_df(m.phrase) >= MAX_TITLE_DF:
            return False
        n = m.end - m.start
        if n >= 2:
            return True
        name = m.name
        return (bool(_CODEISH.search(name)) and len(name) >= 4) or (
            m.phrase in code_words and len(m.phrase) >= 4
        )

    def _domain(
        self, words: list[str], question: str, notes: list[str]
    ) -> tuple[str | None, str | None]:
        cat = self.catalog
        text = " ".join(words)
        padded = f" {text} "

        def said(value: str, strict: bool) -> bool:
            phrase = norm(value)
            if not phrase or f" {phrase} " not in padded:
                return False
            if all(w in STOPWORDS for w in phrase.split()):  # "how to" opens a question;
                return value.lower() in question.lower()  # "how-to" names the folder
            if value.lower() in question.lower() and ("/" in value or "-" in value) and not strict:
                return True
            n = len(phrase.split())
            if n >= 2 and not strict:
                return True
            idx = text.split(" ")
            p = phrase.split(" ")
            for i in range(len(idx) - len(p) + 1):
                if idx[i : i + len(p)] == p and _has_cue(idx, i, i + len(p), FOLDER_CUES):
                    return True
            return False

        domains = sorted(d for d in cat.domains if said(d, strict=False))
        domain = domains[0] if len(domains) == 1 else None
        subdomain = None
        pool = (
            cat.subdomains.get(domain, set()) if domain else set().union(*cat.subdomains.values())
        )
        subs = sorted(s for s in pool if said(s, strict=True) or f"/{s}/" in question.lower())
        if len(subs) == 1:
            subdomain = subs[0]
            if domain is None:
                owners = [d for d, ss in cat.subdomains.items() if subdomain in ss]
                domain = owners[0] if len(owners) == 1 else None
        if domain:
            notes.append(f"domain {domain!r}" + (f", subdomain {subdomain!r}" if subdomain else ""))
        return domain, subdomain

    # --- intent -----------------------------------------------------------------------
    @staticmethod
    def _intent(question: str, anchors: Anchors, words: list[str]) -> tuple[Intent, Subintent]:
        if any(p.search(question) for p in _FIND_FILES):
            return Intent.DOCS_LOOKUP, Subintent.FIND_FILES
        bare = [w for w in words if w not in STOPWORDS]
        if anchors.file_names and len(bare) <= len(tokens(" ".join(anchors.file_names))) + 1:
            return Intent.DOCS_LOOKUP, Subintent.FIND_FILES
        anchored = bool(
            anchors.entity_names
            or anchors.file_names
            or anchors.endpoint_paths
            or anchors.target_doc_hints
            or anchors.process_domain
        )
        if not anchored and _GENERAL.search(question):
            return Intent.GENERAL_QA, Subintent.OVERVIEW
        for sub, pattern in _SUBINTENTS:
            if pattern.search(question):
                return Intent.DOCS_SUMMARY, sub
        if anchors.endpoint_paths:
            return Intent.DOCS_SUMMARY, Subintent.REFERENCE
        return Intent.DOCS_SUMMARY, Subintent.LOOKUP

    # --- the route ----------------------------------------------------------------------
    def route(self, question: str) -> DocsIntent:
        """Read ``question`` into a route (deterministic: same catalog, same route)."""
        notes: list[str] = []
        asked = without_comparison(question)  # "vs" is no target term
        words, raw = tokens(asked), raw_tokens(asked)  # the same words, folded and as written
        code_words = {norm(s) for s in _CODE_SPAN.findall(question)}
        code_words |= {norm(w) for w in question.split() if _CODEISH.search(w.strip("`?.,!:;()"))}
        endpoints: list[str] = []
        for em in _ENDPOINT.finditer(question):
            path = em.group(1).rstrip("/.") or em.group(1)
            if path not in endpoints:
                endpoints.append(path)
        files, hints = self._files(question, notes)
        entities: list[str] = []
        aliases: list[str] = []
        for m in self.catalog.match_phrases(words):
            if m.source in ("title", "alias"):
                if self._accept_doc_match(m, words, code_words, raw):
                    for d in m.doc_ids:
                        if d not in hints:
                            hints.append(d)
                    if m.source == "alias" and m.phrase not in aliases:
                        aliases.append(m.phrase)
                    notes.append(f"{m.source} {m.phrase!r} -> {', '.join(m.doc_ids)}")
            elif self._accept_entity(m, code_words):
                if m.name not in entities:
                    entities.append(m.name)
                if m.source == "entity_alias" and m.phrase not in aliases:
                    aliases.append(m.phrase)
                notes.append(f"{m.source} {m.phrase!r} -> {m.name!r} ({len(m.doc_ids)} docs)")
        domain, subdomain = self._domain(words, question, notes)
        anchors = Anchors(
            entity_names=tuple(entities),
            file_names=tuple(files),
            endpoint_paths=tuple(endpoints),
            target_doc_hints=tuple(hints),
            matched_aliases=tuple(aliases),
            process_domain=domain,
            process_subdomain=subdomain,
        )
        intent, subintent = self._intent(question, anchors, words)
        terms = tuple(dict.fromkeys(w for w in words if w not in STOPWORDS and len(w) > 1))
        return DocsIntent(
            question=question,
            intent=intent,
            subintent=subintent,
            anchors=anchors,
            target_terms=terms,
            notes=tuple(notes),
        )


__all__ = ["MAX_ENTITY_DOCS", "MAX_HINT_DOCS", "IntentRouter"]
