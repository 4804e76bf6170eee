"""The derived index layers of a docs corpus (D1-D5), built deterministically at ingest.

Every entry is a chunk record (``chunk_kind: block``, so none enters a prose
answer) with ``layer`` set, a unique ``chunk_id``, ``doc_id``/``path`` of the
document it describes and ``source_refs`` back into the file:

* **D1 document catalog** (``d1:<doc>``): one entry per document: title, path,
  first paragraph and the outline of headings; fields ``outline``,
  ``first_paragraph``, ``links_to``, ``linked_from``, ``aliases`` (file name,
  file stem in words, front-matter aliases).
* **D2 fact index** (``d2:<doc>:<type>:<fact>``): API endpoints (``GET /api/v1/...``
  and ``/api/...`` paths), CLI commands (shell lines and code spans, cut to the
  longest command path a reference page of the corpus defines, else program +
  subcommand), configuration keys (``data:`` keys of YAML ConfigMaps/Secrets,
  dotted keys and ``ENV_VARS`` in code spans and first table columns). One
  entry per fact per document, with ``source_chunk_id`` (the D0 chunk it came from).
* **D3 entity catalog** (``d3:<doc>:<name>``): names defined by headings
  (short, not questions, not a generic heading shared by many documents),
  glossary terms (``**Term** definition`` list items) and code identifiers
  (CamelCase, dotted, dashed or snake names in code spans that a document uses
  in a heading, a first table column or at least twice), each with
  ``entity_aliases`` (spacing and CamelCase variants, lower case).
* **D4 workflow index** (``d4:<doc>#<section>#<n>``): ordered procedures:
  numbered lists of two or more steps, and runs of ``Step N`` headings; fields
  ``steps`` and ``step_count``.
* **D5 relation graph** (``d5:<src>-><dst>``): one entry per ordered pair of
  documents: explicit links, Markdown includes, and mentions (a CLI command
  whose reference page is ``dst``, ``dst``'s file name, or its distinctive
  multi-word title); fields ``target_doc_id``, ``relations``, ``link_texts``.

Dense vectors (:mod:`sectio.ingest.embedding`): a D1 entry embeds its title and
first paragraph (``dense_text``; its path and outline are BM25's); D2,
D3 and D4 entries restate (or name what is defined in) the chunk they came from
and take its vector (``dense_from``); a D5 entry takes its source document's D1
vector. BM25 reads every entry's full text, so an entry is still found by the
words only it holds (a fact, a name and its aliases, a relation).
"""

from __future__ import annotations

from sectio.contract.record import ChunkRecord
from sectio.ingest.chunking import TokenCounter
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_layers.common import name_variants
from sectio.ingest.md_layers.d1 import d1_dense_text, d1_entries, doc_aliases
from sectio.ingest.md_layers.d2 import command_path, d2_entries, known_commands
from sectio.ingest.md_layers.d3 import d3_entries, generic_headings
from sectio.ingest.md_layers.d4 import d4_entries
from sectio.ingest.md_layers.d5 import d5_entries


def build_layers(
    builds: list[DocBuild], *, tenant: str, max_tokens: int, count: TokenCounter
) -> list[ChunkRecord]:
    """D1..D5 entries for the documents, in layer order then document order."""
    known = known_commands(builds)
    return [
        *d1_entries(builds, tenant, count, max_tokens),
        *d2_entries(builds, tenant, known),
        *d3_entries(builds, tenant),
        *d4_entries(builds, tenant),
        *d5_entries(builds, tenant, known),
    ]


__all__ = [
    "build_layers",
    "command_path",
    "d1_dense_text",
    "d1_entries",
    "d2_entries",
    "d3_entries",
    "d4_entries",
    "d5_entries",
    "doc_aliases",
    "generic_headings",
    "known_commands",
    "name_variants",
]
