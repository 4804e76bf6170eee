"""Build the drug_labels_large chunk corpus from openFDA drug-label records.

Usage:
    python build.py /path/to/fda-labels-monitored [--out corpus.jsonl.gz]

The path is a checkout (or `git archive`) of
https://github.com/PharmGKB/fda-labels-monitored: one openFDA drug/label API
reply per file (``{"meta": ..., "results": [label]}``), named after the FDA
application number (NDA020972.json, ...).

Output: gzip JSON lines in the chunk-record format of the shipped demo corpus
(src/sectio/demo/data/drug_labels.jsonl): one record per chunk with chunk_id
"doc#section#part", doc_id, doc_title, aliases, section_key (the openFDA field
name), section_title, part_index, text, metadata, source_refs.

The code only selects, cleans and cuts the openFDA text; see README.md.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import pathlib
import re

MAX_CHARS = 1200
SOURCE = "U.S. FDA drug label (openFDA), via PharmGKB/fda-labels-monitored"

# openFDA field -> section title, in label order.  Fields not listed are
# dropped (see README.md for the list and the reasons).
SECTIONS = {
    "boxed_warning": "Boxed Warning",
    "indications_and_usage": "Indications and Usage",
    "dosage_and_administration": "Dosage and Administration",
    "dosage_forms_and_strengths": "Dosage Forms and Strengths",
    "contraindications": "Contraindications",
    "warnings_and_cautions": "Warnings and Precautions",
    "warnings": "Warnings",
    "precautions": "Precautions",
    "adverse_reactions": "Adverse Reactions",
    "drug_interactions": "Drug Interactions",
    "pregnancy": "Pregnancy",
    "pediatric_use": "Pediatric Use",
    "geriatric_use": "Geriatric Use",
    "overdosage": "Overdosage",
    "description": "Description",
    "mechanism_of_action": "Mechanism of Action",
    "how_supplied": "How Supplied",
}
# The six sections of the demo corpus: a label must have at least four.
CORE = (
    "indications_and_usage",
    "dosage_and_administration",
    "contraindications",
    "warnings_and_cautions",
    "drug_interactions",
    "adverse_reactions",
)

# Leading headings that repeat the section name ("1 INDICATIONS AND USAGE",
# "5 WARNINGS AND PRECAUTIONS", "8.1 Pregnancy", ...).  The boxed warning keeps
# its own title ("WARNING: LACTIC ACIDOSIS"), which is content.
HEADINGS = {
    "indications_and_usage": r"indications\s*(?:and|&)\s*usage|indications",
    "dosage_and_administration": r"dosage\s*(?:and|&)\s*administration",
    "dosage_forms_and_strengths": r"dosage\s*forms\s*(?:and|&)\s*strengths",
    "contraindications": r"contraindications",
    "warnings_and_cautions": r"warnings\s*(?:and|&)\s*precautions",
    "warnings": r"warnings",
    "precautions": r"precautions(?:\s*general)?",
    "adverse_reactions": r"adverse\s*reactions",
    "drug_interactions": r"drug\s*interactions",
    "pregnancy": r"pregnancy(?:\s*category\s*[a-dx]\b)?",
    "pediatric_use": r"pediatric\s*use",
    "geriatric_use": r"geriatric\s*use",
    "overdosage": r"overdosage",
    "description": r"description",
    "mechanism_of_action": r"mechanism\s*of\s*action",
    "how_supplied": r"(?:how\s*)?supplied(?:\s*/\s*storage\s*(?:and|&)\s*handling)?",
}
HEADING_RE = {
    k: re.compile(rf"^\s*(?:\d+(?:\.\d+)*\.?\s*)?(?:{v})\s*[:.]?\s*", re.I)
    for k, v in HEADINGS.items()
}

# Salt and form words dropped from the end of a generic name for the doc_id
# ("atorvastatin calcium" -> atorvastatin), as in the demo corpus.
SALT_WORDS = {
    "hydrochloride",
    "hcl",
    "dihydrochloride",
    "sodium",
    "disodium",
    "potassium",
    "calcium",
    "magnesium",
    "sulfate",
    "bisulfate",
    "mesylate",
    "dimesylate",
    "maleate",
    "tartrate",
    "bitartrate",
    "succinate",
    "fumarate",
    "citrate",
    "acetate",
    "besylate",
    "bromide",
    "hydrobromide",
    "phosphate",
    "olamine",
    "meglumine",
    "dihydrate",
    "monohydrate",
    "anhydrous",
    "gluconate",
    "malate",
    "tosylate",
    "hyclate",
    "lactate",
    "nitrate",
    "trihydrate",
}

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[•\"“])")


def norm_space(text: str) -> str:
    return " ".join(text.split())


def strip_salt(name: str) -> str:
    words = name.split()
    # "sodium sulfate" stays whole: only drop a salt word when what is left is
    # not itself a salt word.
    while len(words) > 1 and words[-1].lower() in SALT_WORDS:
        if words[-2].lower() in SALT_WORDS:
            break
        words.pop()
    return " ".join(words)


def components(generic: str) -> list[str]:
    """'sulfamethoxazole and trimethoprim' -> ['sulfamethoxazole', 'trimethoprim']."""
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", generic.lower())
    return [strip_salt(p.strip()) for p in parts if p.strip()]


def drug_name(label: dict) -> str:
    """The label's generic name, lower case, salts dropped."""
    ofda = label.get("openfda", {})
    generic = (ofda.get("generic_name") or [""])[0]
    brands = {b.lower() for b in ofda.get("brand_name", [])}
    substances = ofda.get("substance_name") or []
    # A few records carry the brand in generic_name (ISENTRESS, PURIXAN):
    # fall back to the active substances there.
    if generic.lower() in brands and substances:
        subst = [strip_salt(s.lower()) for s in substances]
        if not any(s in generic.lower() for s in subst):
            return " and ".join(sorted(set(subst)))
    return " and ".join(components(generic))


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def title_of(name: str) -> str:
    return name[:1].upper() + name[1:]


def brand_case(brand: str) -> str:
    """'INCRUSE ELLIPTA' -> 'Incruse Ellipta'; short all-caps words (XR, ODT) stay."""
    if not brand.isupper():
        return brand
    return " ".join(w if len(w) <= 3 else w.capitalize() for w in brand.split(" "))


def aliases_of(label: dict, name: str) -> list[str]:
    """Brand names from openfda.brand_name, less those that only restate the
    generic name ("Articaine HCl and Epinephrine", "Dexlansoprazole delayed
    release")."""
    out: list[str] = []
    seen: set[str] = set()
    first_word = name.split()[0].lower()
    for brand in label.get("openfda", {}).get("brand_name", []):
        brand = norm_space(re.sub(r"\([^)]*\)", " ", brand))  # "Zemdri (plazomicin)"
        if not brand or first_word in brand.lower().split() or brand.lower() in seen:
            continue
        seen.add(brand.lower())
        out.append(brand_case(brand))
    return out


def section_text(label: dict, key: str) -> str:
    text = norm_space(" ".join(label.get(key) or []))
    if key in HEADING_RE:
        rest = HEADING_RE[key].sub("", text, count=1)
        if len(rest) >= 20:
            text = rest
    return text


def split_long(sentence: str, limit: int) -> list[str]:
    """A 'sentence' over the limit (a flattened table, a long list) is cut at
    spaces into near-equal pieces, so that no piece is a tiny tail."""
    n = -(-len(sentence) // limit)
    while True:
        target = -(-len(sentence) // n)
        pieces, cur = [], ""
        for word in sentence.split(" "):
            while len(word) > limit:  # no space to cut at: cut the word itself
                if cur:
                    pieces.append(cur)
                    cur = ""
                pieces.append(word[:limit])
                word = word[limit:]
            if cur and len(cur) + 1 + len(word) > target:
                pieces.append(cur)
                cur = word
            else:
                cur = f"{cur} {word}" if cur else word
        if cur:
            pieces.append(cur)
        if all(len(p) <= limit for p in pieces):
            return pieces
        n += 1


def chunk(text: str, limit: int = MAX_CHARS) -> list[str]:
    """Greedy packing of whole sentences into parts of at most `limit` chars;
    a short last part takes sentences back from the one before it."""
    sentences: list[str] = []
    for s in SENTENCE_END.split(text):
        sentences.extend(split_long(s, limit) if len(s) > limit else [s])
    parts: list[list[str]] = []
    cur: list[str] = []
    for s in sentences:
        if cur and len(" ".join([*cur, s])) > limit:
            parts.append(cur)
            cur = [s]
        else:
            cur.append(s)
    if cur:
        parts.append(cur)
    if len(parts) > 1:
        prev, last = parts[-2], parts[-1]
        while len(prev) > 1:
            grown = len(" ".join([prev[-1], *last]))
            if grown > limit or grown > len(" ".join(prev[:-1])):
                break
            last.insert(0, prev.pop())
    return [" ".join(p) for p in parts]


def load_labels(root: pathlib.Path):
    for path in sorted(root.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for label in data.get("results") or []:
            yield path.name, label


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("labels_dir", type=pathlib.Path)
    ap.add_argument(
        "--out",
        type=pathlib.Path,
        default=pathlib.Path(__file__).resolve().parent / "corpus.jsonl.gz",
    )
    args = ap.parse_args()

    # 1. One label per drug: among labels with the same salt-free generic name
    #    keep the one with the most of the six core sections, then the newest.
    by_drug: dict[str, list] = collections.defaultdict(list)
    skipped = collections.Counter()
    n_labels = 0
    for fname, label in load_labels(args.labels_dir):
        n_labels += 1
        name = drug_name(label)
        if not name:
            skipped["no generic name"] += 1
            continue
        core = sum(1 for k in CORE if section_text(label, k))
        if core < 4:
            skipped["fewer than four of the six core sections"] += 1
            continue
        by_drug[slug(name)].append((core, label.get("effective_time", ""), fname, name, label))

    records = []
    sections_per_key = collections.Counter()
    chunks_per_key = collections.Counter()
    duplicates = 0
    for doc_id in sorted(by_drug):
        cands = sorted(by_drug[doc_id], key=lambda c: (-c[0], -int(c[1] or 0), c[2]))
        duplicates += len(cands) - 1
        _, effective, fname, name, label = cands[0]
        set_id = label.get("set_id", "")
        url = (
            f"https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid={set_id}"
            if set_id
            else "https://open.fda.gov/apis/drug/label/"
        )
        ofda = label.get("openfda", {})
        app_no = fname.removesuffix(".json")
        aliases = aliases_of(label, name)
        for key, title in SECTIONS.items():
            text = section_text(label, key)
            if len(text) < 20:
                continue
            parts = chunk(text)
            sections_per_key[key] += 1
            chunks_per_key[key] += len(parts)
            for i, part in enumerate(parts):
                records.append(
                    {
                        "chunk_id": f"{doc_id}#{key}#{i}",
                        "doc_id": doc_id,
                        "doc_title": title_of(name),
                        "aliases": aliases,
                        "section_key": key,
                        "section_title": title,
                        "part_index": i,
                        "text": part,
                        "metadata": {
                            "domain": "drug_label",
                            "set_id": set_id,
                            "effective_time": effective,
                            "application_number": (ofda.get("application_number") or [app_no])[0],
                            "generic_name": (ofda.get("generic_name") or [""])[0],
                            "manufacturer": (ofda.get("manufacturer_name") or [""])[0],
                            "route": ofda.get("route", []),
                            "source_file": fname,
                        },
                        "source_refs": [
                            {
                                "source": SOURCE,
                                "url": url,
                                "section": title,
                            }
                        ],
                    }
                )

    with gzip.GzipFile(args.out, "wb", mtime=0) as raw:
        for rec in records:
            raw.write((json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8"))

    docs = {r["doc_id"] for r in records}
    print(f"labels read: {n_labels}")
    for why, n in skipped.most_common():
        print(f"  skipped ({why}): {n}")
    print(f"  dropped as a second label of the same drug: {duplicates}")
    n_sections = sum(sections_per_key.values())
    print(f"documents: {len(docs)}  sections: {n_sections}  chunks: {len(records)}")
    for key in SECTIONS:
        print(f"  {key}: {sections_per_key[key]} sections, {chunks_per_key[key]} chunks")


if __name__ == "__main__":
    main()
