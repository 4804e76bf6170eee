"""Keep the ONNX stack (onnxruntime, and fastembed for a reranker) inside ``SECTIO_HOME``.

Left alone, a first model load writes outside it: onnxruntime's telemetry
provider creates ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,
onnxruntime.db}`` and ``$TMPDIR/.ses`` when the module is imported, and
fastembed creates ``$TMPDIR/fastembed_cache`` even for a local model folder.
:func:`onnx_environment` sets the knobs before either library is imported:

* ``ORT_DISABLE_TELEMETRY=1``: onnxruntime's documented opt-out; with it the
  provider initialises nothing and writes no file. onnxruntime reads it once,
  when it is first imported, so it is set before that (``setdefault``: a value
  the user set wins).
* ``HF_HUB_OFFLINE=1``: nothing is ever fetched from the Hugging Face Hub.

:func:`onnx_cache_dir` also returns fastembed's ``cache_dir``, under
``SECTIO_HOME/cache/fastembed`` (the cross-encoder reranker loads through
fastembed; the MiniLM embedder runs onnxruntime itself).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

_log = logging.getLogger("sectio.embed")


def onnx_environment() -> None:
    """Set the process-wide offline/no-telemetry knobs (before onnxruntime is imported).

    If onnxruntime was already imported by the host program, its telemetry
    files may already exist outside ``SECTIO_HOME``; that is logged once,
    nothing else changes.
    """
    if "onnxruntime" in sys.modules and "ORT_DISABLE_TELEMETRY" not in os.environ:
        _log.info("onnxruntime was imported before sectio: set ORT_DISABLE_TELEMETRY=1 earlier")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def onnx_cache_dir(cache_dir: Path) -> Path:
    """:func:`onnx_environment`, then fastembed's cache folder under ``cache_dir`` (created).

    Call it before importing fastembed or onnxruntime.
    """
    onnx_environment()
    target = cache_dir / "fastembed"
    target.mkdir(parents=True, exist_ok=True)
    return target
