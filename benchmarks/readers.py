"""Reading chunk records: what the input bounds cost, and how fast a bad record is refused.

Each phase runs in a fresh process (its own peak RSS):

* ``plain-json``: the peer a user would write: ``json.loads`` per line, nothing checked;
* ``pydantic-only``: ``json.loads`` + ``ChunkRecord.model_validate`` (the contract
  without the bounds: what sectio did before them);
* ``sectio-jsonl`` / ``sectio-array`` / ``sectio-jsonl-gz``: ``read_chunks`` on the
  same records as JSON Lines, a JSON array and gzip'd JSON Lines (strict UTF-8,
  line bounds, the value walk of :mod:`sectio.contract.bounds`, the contract);
* ``refuse-20mb``: ``read_source`` of a file whose second record holds a 20 MB
  ``text`` (issue 17: 113 s and 4.4 GB before the bound): time until the error.

Usage: ``python benchmarks/readers.py [--records N]`` (default 100,000 records of
~120 words with metadata and source refs).
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import peak_rss_mb, print_table, run_phase

WORDS = [
    "aspirin",
    "relieves",
    "pain",
    "and",
    "reduces",
    "fever",
    "in",
    "adults",
    "with",
    "a",
    "mild",
    "headache",
]


def _record(i: int) -> dict[str, object]:
    text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(120))
    return {
        "chunk_id": f"doc{i // 8}#s{i % 4}#{i}",
        "doc_id": f"doc{i // 8}",
        "section_key": f"s{i % 4}",
        "part_index": i,
        "text": text,
        "doc_title": f"Document {i // 8}",
        "metadata": {"domain": "drugs", "subdomain": f"class{i % 7}", "rank": i},
        "tags": ["label", "otc"],
        "source_refs": [{"source": "label.pdf", "page": i % 40 + 1}],
    }


def _write(folder: Path, n: int) -> None:
    lines = [json.dumps(_record(i)) for i in range(n)]
    (folder / "c.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "c.json").write_text("[\n" + ",\n".join(lines) + "\n]\n")
    (folder / "c.jsonl.gz").write_bytes(gzip.compress((folder / "c.jsonl").read_bytes(), 6))
    big = {**_record(0), "chunk_id": "big", "text": "w " * 10_000_000}
    (folder / "big.jsonl").write_text(json.dumps(_record(1)) + "\n" + json.dumps(big) + "\n")


def phase(name: str, folder: Path) -> dict[str, object]:
    """One measurement in this process: seconds, records and peak RSS."""
    from sectio.contract.record import ChunkRecord
    from sectio.errors import RecordError
    from sectio.ingest.readers import read_chunks, read_source

    started = time.perf_counter()
    count = 0
    note = ""
    if name == "plain-json":
        with (folder / "c.jsonl").open(encoding="utf-8") as fh:
            count = sum(1 for line in fh if json.loads(line))
    elif name == "pydantic-only":
        with (folder / "c.jsonl").open(encoding="utf-8") as fh:
            count = sum(1 for line in fh if ChunkRecord.model_validate(json.loads(line)))
    elif name.startswith("sectio-"):
        file = {"sectio-jsonl": "c.jsonl", "sectio-array": "c.json"}.get(name, "c.jsonl.gz")
        count = len(read_chunks(folder / file))
    elif name == "refuse-20mb":
        try:
            read_source(folder / "big.jsonl")
        except RecordError as exc:
            note = str(exc).split(": ", 1)[1]
    seconds = time.perf_counter() - started
    return {"phase": name, "records": count, "s": seconds, "rss": peak_rss_mb(), "note": note}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] in PHASES:
        print(json.dumps(phase(sys.argv[1], Path(sys.argv[2]))))
        return
    n = int(sys.argv[sys.argv.index("--records") + 1]) if "--records" in sys.argv else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(folder, n)
        results = [run_phase(Path(__file__), p, str(folder)) for p in PHASES]
    rows = []
    for r in results:
        rate = f"{r['records'] / r['s']:,.0f}" if r["records"] else "-"
        rows.append([r["phase"], r["records"], r["s"], rate, r["rss"], r["note"] or ""])
    print_table(
        f"Reading {n:,} chunk records (2 cores; fresh process per phase)",
        ["phase", "records", "seconds", "records/s", "peak RSS MiB", "note"],
        rows,
    )


PHASES = (
    "plain-json",
    "pydantic-only",
    "sectio-jsonl",
    "sectio-array",
    "sectio-jsonl-gz",
    "refuse-20mb",
)

if __name__ == "__main__":
    main()
