"""Named fault points: where the fault tests kill a write with ``kill -9``.

A fault point is a name in the code (``fault_point("edge.switch.before")``). When
the environment variable ``SECTIO_FAULT_POINT`` names it, the process sends
itself SIGKILL there: the crash a power cut or the OOM killer would cause, at a
chosen moment. Unset (always, outside tests), a fault point is one dictionary
lookup. The tests in ``tests/test_faults.py`` list the points and what each
crash may leave behind (never a changed live collection).

Example:
    >>> fault_point("nowhere")  # not armed: returns
"""

from __future__ import annotations

import os
import signal

ENV = "SECTIO_FAULT_POINT"


def fault_point(name: str) -> None:
    """SIGKILL this process if ``SECTIO_FAULT_POINT`` is ``name``."""
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


__all__ = ["ENV", "fault_point"]
