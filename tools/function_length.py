"""Fail when a function in ``src/`` is longer than ~80 lines without a stated reason.

``make test`` runs it. A function's length is its line span (decorators and
docstring included). A longer function passes only when its docstring gives the
reason on a line starting ``Long:`` (say why splitting it would make it harder
to read), or when it is in :data:`ALLOWED` below, each entry with a comment.

A folder in :data:`FOLDER_LIMITS` holds its functions to a stricter limit, with
no excuse: ``sectio/retrieve`` to 60 lines (issue 32: the retrieval core a
newcomer reads). The folder limit applies wherever ``ROOT`` points (``src``, or
``src/sectio/retrieve`` itself), and ``--limit`` lowers it but never raises it.

Usage: ``python tools/function_length.py [--limit 80] [--all] [ROOT]``; ``--all``
lists every function over the limit, passing or not.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

LIMIT = 80
#: Known long functions that someone else is splitting; remove an entry once it is.
ALLOWED: set[str] = set()
#: Folders (as ``package/subpackage``) whose functions may not exceed this many lines,
#: ``Long:`` or not.
FOLDER_LIMITS: dict[str, int] = {"sectio/retrieve": 60}


def long_functions(root: Path, limit: int) -> list[tuple[str, int, bool]]:
    """``(path:qualified_name, lines, excused)`` for every function over ``limit`` lines."""
    found: list[tuple[str, int, bool]] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(root).as_posix()
        strict = _folder_limit(path)
        for qualname, node in _functions(tree):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = (node.end_lineno or node.lineno) - start + 1
            if strict is not None and lines > min(strict, limit):
                found.append((f"{rel}:{qualname}", lines, False))
                continue
            if lines <= limit:
                continue
            doc = ast.get_docstring(node) or ""
            stated = any(line.strip().startswith("Long:") for line in doc.splitlines())
            found.append((f"{rel}:{qualname}", lines, stated or f"{rel}:{qualname}" in ALLOWED))
    return found


def _folder_limit(path: Path) -> int | None:
    """The strictest :data:`FOLDER_LIMITS` entry whose folder holds ``path`` (None: none)."""
    where = "/" + path.resolve().as_posix().lstrip("/")
    limits = [n for folder, n in FOLDER_LIMITS.items() if f"/{folder}/" in where]
    return min(limits) if limits else None


def _functions(
    tree: ast.AST, prefix: str = ""
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((prefix + node.name, node))
            out.extend(_functions(node, f"{prefix}{node.name}."))
        elif isinstance(node, ast.ClassDef):
            out.extend(_functions(node, f"{prefix}{node.name}."))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).parents[1] / "src"))
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--all", action="store_true", help="also list the excused ones")
    args = parser.parse_args(argv)
    found = long_functions(Path(args.root), args.limit)
    failing = [(name, n) for name, n, excused in found if not excused]
    for name, n, excused in found:
        if args.all or not excused:
            print(f"{n:4d} lines  {name}{'  (excused)' if excused else ''}")
    for name in sorted(ALLOWED - {name for name, _, _ in found}):
        print(f"note: allow-list entry no longer needed: {name}")
    if failing:
        strict = ", ".join(f"{n} in {folder}/" for folder, n in FOLDER_LIMITS.items())
        print(
            f"{len(failing)} function(s) over {args.limit} lines without a reason"
            f" (or over a folder's limit: {strict})",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
