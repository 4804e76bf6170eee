"""Named fault points: where the fault tests kill a write with ``kill -9``.

A fault point is a name in the code (``fault_point("edge.switch.before")``). When
the environment variable ``SECTIO_FAULT_POINT`` names it, the process sends
itself SIGKILL there: the crash a power cut or the OOM killer would cause, at a
chosen moment. Unset (always, outside tests), a fault point is one dictionary
lookup. The tests in ``tests/test_faults.py`` list the points and what each
crash may leave behind (never a changed live collection).

A full disk is simulated the same way: when ``SECTIO_FAULT_ENOSPC`` names the
point, it raises ``OSError(ENOSPC)`` there, as a write that ran out of space
would (``tests/test_lifecycle_faults.py``).

Example:
    >>> fault_point("nowhere")  # not armed: returns
"""

from __future__ import annotations

import errno
import os
import signal

ENV = "SECTIO_FAULT_POINT"
ENOSPC_ENV = "SECTIO_FAULT_ENOSPC"


def fault_point(name: str) -> None:
    """SIGKILL this process if ``SECTIO_FAULT_POINT`` is ``name``; raise ``OSError(ENOSPC)``
    if ``SECTIO_FAULT_ENOSPC`` is.

    Raises:
        OSError: ENOSPC, the simulated full disk.
    """
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get(ENOSPC_ENV) == name:
        raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} (fault point {name})")


__all__ = ["ENOSPC_ENV", "ENV", "fault_point"]
