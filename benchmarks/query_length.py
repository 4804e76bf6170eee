"""Time of one ``ask`` vs the question's length, up to the query cap. Prints a table.

The demo drug labels (fake embedder: the pipeline's own cost, not the model's),
questions made by repeating a line that names documents (spans for every
per-name step) with a comma after each name (the worst case for the compound-name
check, which once searched the whole text per name). A step linear in the length
shows as a flat "ms per 1,000 chars" column.

    python benchmarks/query_length.py --lengths 500,1000,2000,10000,40000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sectio import Sectio, Settings
from sectio.demo import demo_corpus_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table

UNIT = "does metformin, aspirin, glucophage, or ibuprofen interact with alcohol? "


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lengths", default="500,1000,2000,10000,40000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="qlen-")) / "home"
    settings = Settings(home=home, embedder="fake", traces=False, query_cache_size=0)
    rows = []
    with Sectio(settings) as s:
        s.ingest(demo_corpus_path(), profile="en_drug_label", collection="demo")
        s.ask(UNIT, collection="demo")
        for n in (int(x) for x in args.lengths.split(",")):
            q = (UNIT * (n // len(UNIT) + 1))[:n]
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                s.ask(q, collection="demo")
                best = min(best, time.perf_counter() - t0)
            rows.append([n, best * 1000, best * 1000 / (n / 1000)])
    print_table(
        f"ask time vs question length (demo labels, fake embedder, best of {args.repeat})",
        ["characters", "ms", "ms per 1,000 chars"],
        rows,
    )


if __name__ == "__main__":
    main()
