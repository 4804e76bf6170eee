"""How long a write holds the engine of a served collection (what requests queue behind).

A shared collection holds tenant ``globex`` (N chunks) and ``acme`` (100 chunks).
Timed, each as the HTTP admin endpoints run it on the engine thread with its
vectors already cached (computed off the engine thread beforehand): a one-tenant
replace of acme (the other tenant's points copied into a staged version, the
index built, the switch), a tenant addition of 100 chunks (written into the live
version under the journal), and a one-document upsert (its apply). The phases
of the replace are printed too. The fake embedder: what the engine costs.

    nice -n 10 .venv/bin/python benchmarks/tenant_hold.py --others 10000
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sectio import Sectio, Settings

ROOT = Path(__file__).resolve().parents[1] / ".sectio-bench" / "tenant-hold"
FILLER = "lorem ipsum dolor sit amet " * 15


def rows(tenant: str, n: int, word: str) -> list[dict[str, Any]]:
    """``n`` chunks of ``tenant``, 4 a document."""
    return [
        {
            "chunk_id": f"{tenant}:d{i // 4}#s#{i % 4}",
            "doc_id": f"d{i // 4}",
            "section_key": "s",
            "part_index": i % 4,
            "text": f"{word} document {i // 4} part {i % 4} {FILLER}",
            "tenant": tenant,
            "source_refs": [{"source": "bench"}],
        }
        for i in range(n)
    ]


def write(path: Path, data: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    return path


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--others", type=int, default=10_000, help="chunks of the other tenant")
    args = parser.parse_args()
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    with Sectio(Settings(home=ROOT / "home", embedder="fake")) as s:
        s.ingest(
            write(ROOT / "g.jsonl", rows("globex", args.others, "globex")), collection="shared"
        )
        s.ingest(write(ROOT / "a.jsonl", rows("acme", 100, "acme")), collection="shared")
        new_acme = write(ROOT / "a2.jsonl", rows("acme", 100, "revised"))
        newco = write(ROOT / "n.jsonl", rows("newco", 100, "newco"))
        one = write(ROOT / "u.jsonl", rows("acme", 4, "edited"))
        for src in (new_acme, newco, one):
            s.warm_records(s.read_records(src))
        replace_s, replaced = timed(lambda: s.ingest(new_acme, collection="shared", replace=True))
        add_s, _ = timed(lambda: s.ingest(newco, collection="shared"))
        plan = s.plan_documents("shared", "acme", s.read_records(one), action="upsert")
        upsert_s, _ = timed(lambda: s.apply_documents(s.prepare_documents(plan)))
    print(f"other tenant: {args.others} chunks; vectors cached; fake embedder\n")
    print("| write | engine held (s) |\n| --- | ---: |")
    for label, seconds in (
        ("one-tenant replace (100 chunks)", replace_s),
        ("tenant addition (100 chunks)", add_s),
        ("one-document upsert (4 chunks): its apply", upsert_s),
    ):
        print(f"| {label} | {seconds:.2f} |")
    phases = ", ".join(f"{k} {v:.2f}" for k, v in replaced.phases.items() if v >= 0.01)
    print(f"\nreplace phases (s): {phases}")


if __name__ == "__main__":
    main()
