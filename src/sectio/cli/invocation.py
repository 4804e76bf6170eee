"""How to type a ``sectio`` command so that it runs as printed, from here.

The demo prints next steps; ``make demo`` runs ``.venv/bin/sectio`` (not on
PATH) with ``SECTIO_HOME=.sectio-demo`` (not the default ``.sectio``). A
printed ``sectio ask ...`` would then fail twice ("command not found", then
"no collection named 'demo'"). :func:`command_prefix` names the program as it
can be found and the home it actually used.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path


def _shown(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when inside it (``.venv/bin/sectio``), else absolute."""
    resolved = path.absolute()
    try:
        return str(resolved.relative_to(cwd))
    except ValueError:
        return str(resolved)


def program(cwd: Path | None = None) -> str:
    """``sectio`` if that name finds this installation on PATH, else its path (or ``python -m``).

    Example:
        >>> program().endswith("sectio")
        True
    """
    cwd = (cwd or Path.cwd()).absolute()
    script = Path(sys.executable).parent / "sectio"
    on_path = shutil.which("sectio")
    if on_path and script.exists() and Path(on_path).resolve() == script.resolve():
        return "sectio"
    if script.exists():
        shown = _shown(script, cwd)
        return shown if "/" in shown else f"./{shown}"
    return f"{shlex.quote(sys.executable)} -m sectio"


def command_prefix(home: Path, cwd: Path | None = None) -> str:
    """What to type before ``ask ...``: ``[SECTIO_HOME=H ]PROGRAM``.

    ``SECTIO_HOME`` is named unless ``home`` is the default (``./.sectio``): the
    home may have been set for one command only (``make demo`` does that).
    """
    cwd = (cwd or Path.cwd()).absolute()
    prog = program(cwd)
    if home.absolute() == cwd / ".sectio":
        return prog
    return f"SECTIO_HOME={shlex.quote(_shown(home, cwd))} {prog}"
