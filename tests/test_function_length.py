"""``tools/function_length.py``: 80 lines (or a stated reason) in ``src/``, 60 in ``retrieve/``.

The tool runs as ``make test`` runs it, on a small source tree written to
``tmp_path``; its exit status and its listing are what is asserted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).parents[1] / "tools" / "function_length.py"


def _function(name: str, lines: int, doc: str = "A function.") -> str:
    """A function spanning exactly ``lines`` lines (``def``, docstring, body)."""
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 3))
    return f'def {name}() -> int:\n    """{doc}"""\n{body}    return 0\n'


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args, str(root)], capture_output=True, text=True, check=False
    )


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "src"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_retrieve_holds_functions_to_sixty_lines(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "sectio/retrieve/ok.py": _function("fits", 60),
            "sectio/retrieve/routes/long.py": _function("too_long", 61),
            "sectio/engine.py": _function("elsewhere", 61),
        },
    )
    run = _run(root)
    assert run.returncode == 1
    assert "  61 lines  sectio/retrieve/routes/long.py:too_long" in run.stdout
    assert "fits" not in run.stdout
    assert "elsewhere" not in run.stdout  # 80 lines outside retrieve/


def test_a_stated_reason_does_not_excuse_a_long_function_in_retrieve(tmp_path: Path) -> None:
    reason = "Long: one table, read top to bottom."
    root = _tree(
        tmp_path,
        {
            "sectio/retrieve/long.py": _function("excused_no", 70, reason),
            "sectio/cli/long.py": _function("excused_yes", 90, reason),
        },
    )
    run = _run(root, "--all")
    assert run.returncode == 1
    assert "  70 lines  sectio/retrieve/long.py:excused_no\n" in run.stdout
    assert "  90 lines  sectio/cli/long.py:excused_yes  (excused)" in run.stdout


def test_the_retrieve_limit_holds_when_the_root_is_retrieve_itself(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"sectio/retrieve/long.py": _function("too_long", 61)})
    assert _run(root / "sectio" / "retrieve").returncode == 1
    assert _run(root / "sectio" / "retrieve", "--limit", "100").returncode == 1


def test_the_shipped_source_passes() -> None:
    run = _run(Path(__file__).parents[1] / "src")
    assert run.returncode == 0, run.stdout + run.stderr
