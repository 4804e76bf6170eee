"""The choices of an evaluation run: search modes and qrels levels.

Apart from :mod:`sectio.eval.harness` (ir_measures, the engine) so that the
CLI can offer them as ``sectio eval --mode/--level`` choices at start-up.
"""

from __future__ import annotations

from sectio.contract.request import SEARCH_MODES

#: What a qrels corpus-id names: a document, a ``doc_id#section_key`` or a chunk.
LEVELS: tuple[str, ...] = ("doc", "section", "chunk")
#: The search modes, and ``routed`` (what ``sectio ask`` returns).
EVAL_MODES: tuple[str, ...] = (*SEARCH_MODES, "routed")
