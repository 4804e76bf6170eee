"""Progress of a long CLI phase on stderr, with a real rate and ETA, in a terminal or a pipe.

* On a terminal: a tqdm bar, advanced by the amount done since the last call
  (so its rate and ETA come from elapsed time, not from a jump of ``n``).
* Not a terminal (a pipe, a CI log): one line every ``interval_s`` seconds and
  a last one at the end, e.g.
  ``ingest demo: 2,048/9,811 chunks (21%), 24.1 chunks/s, ETA 5m 22s``.
* ``--json`` runs: nothing (stdout is data, stderr stays quiet).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ProgressFn = Callable[[int, int], None]

#: Seconds between two progress lines when stderr is not a terminal.
PIPE_INTERVAL_S = 10.0


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, seconds_left = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {seconds_left:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def progress_line(label: str, unit: str, done: int, total: int, elapsed: float) -> str:
    """One progress line: done/total, percent, rate over the whole run, ETA.

    Example:
        >>> progress_line("ingest", "chunks", 256, 1000, 2.0)
        'ingest: 256/1,000 chunks (26%), 128.0 chunks/s, ETA 6s'
    """
    rate = done / elapsed if elapsed > 0 else 0.0
    parts = [f"{label}: {done:,}/{total:,} {unit} ({100 * done // max(total, 1)}%)"]
    if rate > 0:
        parts.append(f"{rate:,.1f} {unit}/s")
        parts.append("done" if done >= total else f"ETA {_duration((total - done) / rate)}")
    return ", ".join(parts)


def progress_reporter(
    label: str,
    unit: str = "chunks",
    *,
    enabled: bool = True,
    stream: TextIO | None = None,
    interval_s: float = PIPE_INTERVAL_S,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[ProgressFn | None, Callable[[], None]]:
    """A ``progress(done, total)`` callback for ``label`` and its closer (call it once, at the end).

    ``stream`` defaults to stderr; a terminal gets a tqdm bar, anything else
    periodic lines (:func:`progress_line`). ``enabled=False``: no callback.
    """
    if not enabled:
        return None, lambda: None
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        return _bar(label, unit, out)
    started = clock()
    last = [started]
    pending: list[str] = []  # the newest line not printed yet

    def update(done: int, total: int) -> None:
        now = clock()
        pending[:] = [progress_line(label, unit, done, total, now - started)]
        if now - last[0] >= interval_s or done >= total:
            print(pending.pop(), file=out, flush=True)
            last[0] = now

    def close() -> None:
        if pending:  # the last state, if it was not printed yet
            print(pending.pop(), file=out, flush=True)

    return update, close


def _bar(label: str, unit: str, out: TextIO) -> tuple[ProgressFn, Callable[[], None]]:
    from tqdm import tqdm

    bar = tqdm(total=0, desc=label, unit=unit, file=out, leave=False, smoothing=0.1)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    return update, bar.close
