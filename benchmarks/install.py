"""What an install costs: seconds and MB of a fresh venv per extra, before vs after a change.

Each row is a new virtual environment (``python -m venv``), then ``pip install
SPEC`` from the project's configured package index, timed; MB is the venv's
``site-packages`` on disk after the install (pip itself subtracted), and
``packages`` the distributions installed besides pip. Builds are not cached
between rows (``--no-cache-dir``), so each row pays the same download/unpack.

Usage::

    .venv/bin/python benchmarks/install.py [--source DIR] [--label NAME] [SPEC ...]

``--source`` is a checkout to install (default: this one; pass an older
``git archive`` to get the "before" rows). SPECs are extras as pip writes
them after the path: ``""`` (library only), ``[server]``, ``[dev]``... The
default rows are ``""``, ``[server]``, ``[dev]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def measure(source: Path, extra: str, editable: bool) -> tuple[float, float, int]:
    """(seconds, MB, packages) of ``pip install [-e] SOURCE[extra]`` into a fresh venv."""
    with tempfile.TemporaryDirectory(prefix="sectio-install-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip"]
        site = next((venv / "lib").glob("python*/site-packages"))
        base_mb = _mb(site)
        base = len(list(site.glob("*.dist-info")))
        target = f"{source}{extra}"
        args = [*pip, "install", "-q", "--no-cache-dir", *(["-e"] if editable else []), target]
        started = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        packages = len(list(site.glob("*.dist-info"))) - base
        return seconds, _mb(site) - base_mb, packages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--editable", action="store_true", help="pip install -e (as make does)")
    parser.add_argument("specs", nargs="*", default=["", "[server]", "[dev]"])
    args = parser.parse_args()
    print("| source | install | seconds | MB | packages |\n|---|---|---|---|---|")
    for spec in args.specs:
        seconds, mb, packages = measure(args.source.resolve(), spec, args.editable)
        what = f"pip install {'-e ' if args.editable else ''}.{spec}"
        print(f"| {args.label} | `{what}` | {seconds:.0f} | {mb:.0f} | {packages} |", flush=True)


if __name__ == "__main__":
    main()
