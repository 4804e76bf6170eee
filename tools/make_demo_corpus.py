"""Build the demo corpus shipped in sectio from ../shared/data/drug_labels_sample.

Run once (the output is committed):

    python tools/make_demo_corpus.py ../shared/data/drug_labels_sample/drug_labels.json

Each (drug, section) becomes ordered chunks of at most ~90 words, cut on
sentence boundaries; section names become openFDA field names; brand names
are added as aliases; every chunk carries its provenance in ``source_refs``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SECTION_KEYS = {
    "Indications and Usage": "indications_and_usage",
    "Dosage and Administration": "dosage_and_administration",
    "Warnings and Precautions": "warnings_and_cautions",
    "Drug Interactions": "drug_interactions",
    "Adverse Reactions": "adverse_reactions",
    "Contraindications": "contraindications",
}
BRANDS = {
    "albuterol": ["ProAir", "Ventolin", "Proventil", "salbutamol"],
    "amlodipine": ["Norvasc"],
    "amoxicillin": ["Amoxil"],
    "aspirin": ["Bayer", "acetylsalicylic acid"],
    "atorvastatin": ["Lipitor"],
    "azithromycin": ["Zithromax", "Z-Pak"],
    "ciprofloxacin": ["Cipro"],
    "furosemide": ["Lasix"],
    "gabapentin": ["Neurontin"],
    "hydrochlorothiazide": ["Microzide", "HCTZ"],
    "ibuprofen": ["Advil", "Motrin"],
    "levothyroxine": ["Synthroid", "Levoxyl"],
    "lisinopril": ["Zestril", "Prinivil"],
    "losartan": ["Cozaar"],
    "metformin": ["Glucophage"],
    "metoprolol": ["Lopressor", "Toprol-XL"],
    "omeprazole": ["Prilosec"],
    "prednisone": ["Deltasone"],
    "sertraline": ["Zoloft"],
    "warfarin": ["Coumadin", "Jantoven"],
}
SOURCE = {
    "source": "U.S. FDA drug label (openFDA), via drug_labels_sample (nlp-cas-dsmh)",
    "url": "https://open.fda.gov/apis/drug/label/",
}
_SENT = re.compile(r"(?<=[.;:])\s+")


def split(text: str, max_words: int = 90) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    for sentence in _SENT.split(text.strip()):
        words = sentence.split()
        if current and len(current) + len(words) > max_words:
            parts.append(" ".join(current))
            current = []
        current.extend(words)
    if current:
        parts.append(" ".join(current))
    return parts


def main(src: str, out: str) -> None:
    rows = json.loads(Path(src).read_text())
    lines = []
    for row in rows:
        drug, section = row["drug"], row["section"]
        key = SECTION_KEYS[section]
        for i, part in enumerate(split(row["text"])):
            lines.append(
                {
                    "chunk_id": f"{drug}#{key}#{i}",
                    "doc_id": drug,
                    "doc_title": drug.capitalize(),
                    "aliases": BRANDS.get(drug, []),
                    "section_key": key,
                    "section_title": section,
                    "part_index": i,
                    "text": part,
                    "metadata": {"domain": "drug_label"},
                    "source_refs": [dict(SOURCE, section=section)],
                }
            )
    Path(out).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    print(f"{len(lines)} chunks from {len(rows)} sections -> {out}")


if __name__ == "__main__":
    main(
        sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "src/sectio/demo/data/drug_labels.jsonl"
    )
