"""Replay the section choice where no phrase decides, under other rules and example sets.

``Sectio.ask`` runs once per question of a set (``routed_sets.py``'s sets and
splits). For every question the section-intent step read (a named document,
no phrase), the replay keeps the question's vector as the intent step embeds
it (its document name read as "it"), as asked, the sections of its document
and each section's best chunk cosine in it (the free-form ranking's
similarity). Every variant then re-chooses those questions without
re-ingesting; the other questions keep what ``ask`` gave. The ``current``
variant equals ``routed_sets.py``'s number for the same profile.

Variants (``--profile`` files swap the example questions; the rules are the
profile's ``[intent]`` numbers unless the variant changes them):

* ``current``: a section at ``min_score``, else the free-form ranking
  (best chunk cosine + ``rank_weight`` x intent score);
* ``min_score=X`` / ``rank_weight=X`` / ``k=X``: one number changed;
* ``always_section``: the best intent section whole, however weak;
* ``combined=A``: always a section, the best intent score + A x best chunk cosine;
* ``shortlist=N``: weak readings: the best chunk cosine among the N best intent sections;
* ``as_asked``: the intent step reads the question as asked (no "it").

Usage::

    .venv/bin/python benchmarks/intent_replay.py --set consumer_meds_large --split dev \\
        --home H [--profile FILE ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from routed_sets import LARGE_SETS, corpus_file, load_set_meta  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402
from sectio.contract.profile import IntentSettings, load_profile  # noqa: E402
from sectio.retrieve.intent import IntentClassifier  # noqa: E402
from sectio.retrieve.resolve_section import substitute_names  # noqa: E402
from sectio.retrieve.routes.free_form import rank_in_document  # noqa: E402
from sectio.retrieve.text import tokens  # noqa: E402

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Read:
    """One question the intent step read: what a variant needs to choose again."""

    doc: str
    gold: frozenset[str]
    masked: Vector
    asked: Vector
    sections: frozenset[str]
    best_cosine: dict[str, float]


def collect(
    sx: Sectio, queries: dict[str, str], qrels: dict[str, set[str]]
) -> tuple[int, list[Read]]:
    """Hits of the questions the intent step did not read, and the ones it read."""
    router = sx.router("bench")
    scope = router.scope("default")
    catalog = router.resolver.catalog(scope)
    fixed, reads = 0, []
    for qid, text in queries.items():
        r = sx.ask(text, collection="bench", tenant="default", record=False)
        doc = (r.details.get("doc_resolution") or {}).get("doc_id")
        if "intent" not in r.details or not doc or r.route not in ("section", "free_form"):
            top = r.evidence[0] if r.evidence else None
            fixed += bool(top) and f"{top.doc_id}#{top.section_key}" in qrels[qid]  # type: ignore[union-attr]
            continue
        named = catalog.resolve(text)
        masked = " ".join(substitute_names(tokens(text), list(named.spans) if named else []))
        best: dict[str, float] = {}
        for e in rank_in_document(scope, doc, text, None)[0]:
            best[e.section_key] = max(best.get(e.section_key, -1.0), e.score)
        reads.append(
            Read(
                doc,
                frozenset(qrels[qid]),
                scope.query_vector(masked),
                scope.query_vector(text),
                frozenset(catalog.sections_of(doc)),
                best,
            )
        )
    return fixed, reads


Chooser = Callable[[Read, IntentClassifier, IntentSettings], str]


def current(read: Read, c: IntentClassifier, s: IntentSettings, *, vector: str = "masked") -> str:
    """The shipped rule (``routes.intent`` then ``routes.free_form``)."""
    reading = c.read(getattr(read, vector), s, read.sections)
    if reading.chosen:
        return reading.chosen[0]
    scores = dict(reading.ranked)
    return max(
        read.best_cosine, key=lambda k: read.best_cosine[k] + s.rank_weight * scores.get(k, 0)
    )


def combined(a: float) -> Chooser:
    def choose(read: Read, c: IntentClassifier, s: IntentSettings) -> str:
        ranked = c.rank(read.masked, read.sections)
        return max(ranked, key=lambda kv: kv[1] + a * read.best_cosine.get(kv[0], 0.0))[0]

    return choose


def shortlist(n: int) -> Chooser:
    def choose(read: Read, c: IntentClassifier, s: IntentSettings) -> str:
        ranked = c.rank(read.masked, read.sections)
        if ranked and ranked[0][1] >= s.min_score:
            return ranked[0][0]
        short = [k for k, _ in ranked[:n] if k in read.best_cosine] or list(read.best_cosine)
        return max(short, key=lambda k: read.best_cosine[k])

    return choose


def variants(base: IntentSettings) -> dict[str, tuple[IntentSettings, Chooser]]:
    """Name -> (intent settings, rule)."""
    out: dict[str, tuple[IntentSettings, Chooser]] = {"current": (base, current)}
    for ms in (0.45, 0.55):
        out[f"min_score={ms}"] = (replace_settings(base, min_score=ms), current)
    out["always_section"] = (replace_settings(base, min_score=-1.0), current)
    out["rank_weight=1.0"] = (replace_settings(base, rank_weight=1.0), current)
    for k in (1, 3):
        out[f"k={k}"] = (replace_settings(base, k=k), current)
    out["combined=1.0"] = (base, combined(1.0))
    out["shortlist=3"] = (base, shortlist(3))
    out["as_asked"] = (base, lambda r, c, s: current(r, c, s, vector="asked"))
    return out


def replace_settings(s: IntentSettings, **changes: float) -> IntentSettings:
    return s.model_copy(update=changes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="consumer_meds")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--profile", nargs="*", default=["en_drug_label"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        path, docs = corpus_file("large" if args.set in LARGE_SETS else "demo", home)
        queries, qrels, _ = load_set_meta(args.set, args.split)
        keep = {q for q, rel in qrels.items() if {r.split("#")[0] for r in rel} <= docs}
        queries = {q: t for q, t in queries.items() if q in keep}
        with Sectio(Settings(home=home / "sectio", embedder="minilm", traces=False)) as sx:
            sx.ingest(path, profile="en_drug_label", collection="bench", replace=True)
            fixed, reads = collect(sx, queries, qrels)
            embed = sx.router("bench").scope("default").query_vectors
            n = len(queries)
            print(f"\n## {args.set} / {args.split}: {n} questions, {len(reads)} read by intent\n")
            print("| examples | variant | section hit@1 | of the intent-read |")
            print("|---|---|---|---|")
            for name in args.profile:
                profile = load_profile(name)
                for label, (settings, choose) in variants(profile.intent).items():
                    c = IntentClassifier.from_profile(
                        profile.model_copy(update={"intent": settings}), embed
                    )
                    assert c is not None
                    hits = sum(f"{r.doc}#{choose(r, c, settings)}" in r.gold for r in reads)
                    print(
                        f"| {Path(name).stem} | {label} | {(fixed + hits) / n:.3f} "
                        f"| {hits}/{len(reads)} |"
                    )


if __name__ == "__main__":
    main()
