"""Shared pieces of the HTTP tests: API keys and a tenant's drug-label rows."""

from __future__ import annotations

from typing import Any

KEYS = "key-acme:acme,key-globex:globex"
ACME = {"Authorization": "Bearer key-acme"}
GLOBEX = {"Authorization": "Bearer key-globex"}


def label_rows(tenant: str) -> list[dict[str, Any]]:
    """Byte-identical drug-label documents for one tenant (only ids and tenant differ)."""
    sections = {
        "indications_and_usage": [
            "Aspirin is indicated for the relief of mild pain and fever.",
            "It is also used to reduce the risk of heart attack.",
        ],
        "contraindications": ["Do not use aspirin in patients with a bleeding disorder."],
        "adverse_reactions": ["Stomach upset and bleeding may occur with aspirin."],
    }
    rows = []
    for key, parts in sections.items():
        for i, text in enumerate(parts):
            rows.append(
                {
                    "chunk_id": f"{tenant}:aspirin#{key}#{i}",
                    "doc_id": "aspirin",
                    "doc_title": "Aspirin",
                    "section_key": key,
                    "part_index": i,
                    "text": text,
                    "tenant": tenant,
                    "source_refs": [{"source": "label", "url": "https://example.org/aspirin"}],
                }
            )
    return rows
