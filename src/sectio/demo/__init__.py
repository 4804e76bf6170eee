"""The shipped demo: a small real corpus (US drug labels) and a few questions."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEMO_COLLECTION = "demo"
DEMO_PROFILE = "en_drug_label"
DEMO_QUERIES = (
    "what is metformin used for",
    "can I take warfarin with aspirin",
    "side effects of sertraline",
    "who should not take lisinopril",
)


def demo_corpus_path() -> Path:
    """Path of the shipped demo chunk JSONL."""
    return Path(str(resources.files("sectio.demo").joinpath("data/drug_labels.jsonl")))
