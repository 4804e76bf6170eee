"""Progress of a long CLI phase on stderr, with a real rate and ETA, in a terminal or a pipe.

* On a terminal: one status line rewritten in place (the same text as a pipe's
  lines), cleared at the end.
* Not a terminal (a pipe, a CI log): one line every ``interval_s`` seconds and
  a last one at the end, e.g.
  ``ingest demo: 2,048/9,811 chunks (21%), 24.1 chunks/s, ETA 5m 22s``.
* ``--json`` runs: nothing (stdout is data, stderr stays quiet).

A rate (and so an ETA) is shown only once :data:`MIN_RATE_S` have passed: the
first batches would otherwise give absurd rates. A multi-phase run (``ingest``)
uses :class:`PhaseReporter`: one status per phase, a heartbeat for phases
that report no units (``optimize``), and the end of every phase in a pipe.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

ProgressFn = Callable[[int, int], None]

#: Seconds between two progress lines when stderr is not a terminal.
PIPE_INTERVAL_S = 10.0
#: No rate (nor ETA) before this many seconds of a phase: early rates are noise.
MIN_RATE_S = 0.5


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, seconds_left = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {seconds_left:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def took(seconds: float) -> str:
    """A phase's duration: tenths under 10 s, else as :func:`_duration`.

    Example:
        >>> took(0.04), took(3.26), took(75)
        ('0.0s', '3.3s', '1m 15s')
    """
    return f"{seconds:.1f}s" if seconds < 10 else _duration(seconds)


def progress_line(label: str, unit: str, done: int, total: int, elapsed: float) -> str:
    """One progress line: done/total, percent, rate over the whole run, ETA.

    No rate or ETA before :data:`MIN_RATE_S`; ``total`` 0 (a phase without units):
    the elapsed time only.

    Example:
        >>> progress_line("ingest", "chunks", 256, 1000, 2.0)
        'ingest: 256/1,000 chunks (25%), 128.0 chunks/s, ETA 6s'
        >>> progress_line("ingest", "chunks", 256, 1000, 0.1)
        'ingest: 256/1,000 chunks (25%)'
        >>> progress_line("ingest [optimize]", "chunks", 0, 0, 12.0)
        'ingest [optimize]: 12s'
    """
    if total <= 0:
        return f"{label}: {_duration(elapsed)}"
    rate = done / elapsed if elapsed >= MIN_RATE_S else 0.0
    parts = [f"{label}: {done:,}/{total:,} {unit} ({100 * done // max(total, 1)}%)"]
    if rate > 0:
        parts.append(f"{rate:,.1f} {unit}/s")
    if done >= total:
        parts.append("done" if rate > 0 else f"done in {took(elapsed)}")
    elif rate > 0:
        parts.append(f"ETA {_duration((total - done) / rate)}")
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

    ``stream`` defaults to stderr; a terminal gets a status line, anything else
    periodic lines (:func:`progress_line`). ``enabled=False``: no callback.
    """
    if not enabled:
        return None, lambda: None
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        return _bar(label, unit, out, clock)
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


def _bar(
    label: str, unit: str, out: TextIO, clock: Callable[[], float]
) -> tuple[ProgressFn, Callable[[], None]]:
    """A terminal's status line, rewritten in place (:func:`progress_line`), cleared at close."""
    started = clock()

    def update(done: int, total: int) -> None:
        out.write("\r\x1b[K" + progress_line(label, unit, done, total, clock() - started))
        out.flush()

    def close() -> None:
        out.write("\r\x1b[K")
        out.flush()

    return update, close


#: The unit each ingest phase counts in (chunks unless named here).
PHASE_UNITS = {"read": "files"}


class PhaseReporter:
    """``progress(phase, done, total)`` for a run of phases, shown on ``stream`` (stderr).

    On a terminal: one status line, rewritten in place (``label [phase]: ...``),
    cleared at the end. Anything else: a line every ``interval_s`` seconds while a
    phase runs, and one when it ends (see :meth:`_end`). Phases without units
    (``total`` 0) show their elapsed time. :meth:`beat` re-renders (a
    terminal) or prints a due line (a pipe) without news from the run; the
    heartbeat thread (``heartbeat_s``, None: none) calls it, so a long
    ``optimize`` is not silent.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> ticks = iter([0.0, 2.0, 2.0, 2.5, 14.0])
        >>> rep = PhaseReporter("ingest c", stream=out, clock=lambda: next(ticks))
        >>> rep("embed_d0", 0, 100); rep("embed_d0", 100, 100); rep("optimize", 0, 0)
        >>> rep("optimize", 0, 0); rep.close()
        >>> print(out.getvalue(), end="")
        ingest c [embed_d0]: 100/100 chunks (100%), 50.0 chunks/s, done
        ingest c [optimize]: done in 12s
    """

    def __init__(
        self,
        label: str,
        *,
        stream: TextIO | None = None,
        interval_s: float = PIPE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        heartbeat_s: float | None = None,
    ) -> None:
        self.label = label
        self.out = stream if stream is not None else sys.stderr
        self.tty = self.out.isatty()
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self._phase: tuple[str, float] | None = None  # name, started
        self._state = (0, 0)  # done, total
        self._printed = 0.0  # when the last pipe line went out
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if heartbeat_s:
            self._thread = threading.Thread(target=self._beat_loop, args=(heartbeat_s,))
            self._thread.daemon = True
            self._thread.start()

    def __call__(self, phase: str, done: int, total: int) -> None:
        with self._lock:
            now = self.clock()
            if self._phase is None or self._phase[0] != phase:
                self._end(now)
                self._phase, self._printed = (phase, now), now
            self._state = (done, total)
            if total > 0 and done >= total:
                self._end(now)
            elif self.tty:
                self._show(self._line(now))

    def _line(self, now: float) -> str:
        assert self._phase is not None
        name, started = self._phase
        done, total = self._state
        unit = PHASE_UNITS.get(name, "chunks")
        return progress_line(f"{self.label} [{name}]", unit, done, total, now - started)

    def _end(self, now: float) -> None:
        """The current phase is over: a cleared line (a terminal), or in a pipe its last
        line: a phase with units that reached its total, or one without units that ran
        ``interval_s`` or more (short phases, and a phase cut short by an error, say
        nothing: an error stays the one line it is)."""
        if self._phase is None:
            return
        name, started = self._phase
        done, total = self._state
        line = self._line(now)
        self._phase = None
        if self.tty:
            self._show("")
        elif total > 0 and done >= total:
            print(line, file=self.out, flush=True)
        elif total <= 0 and now - started >= self.interval_s:
            print(
                f"{self.label} [{name}]: done in {took(now - started)}", file=self.out, flush=True
            )

    def _show(self, line: str) -> None:
        self.out.write("\r\x1b[K" + line)
        self.out.flush()

    def beat(self) -> None:
        """Re-render the status (a terminal) or print it if a line is due (a pipe)."""
        with self._lock:
            if self._phase is None:
                return
            now = self.clock()
            if self.tty:
                self._show(self._line(now))
            elif now - self._printed >= self.interval_s:
                print(self._line(now), file=self.out, flush=True)
                self._printed = now

    def _beat_loop(self, every: float) -> None:
        while not self._stop.wait(every):
            self.beat()

    def close(self) -> None:
        """Stop the heartbeat and end the current phase (call once, at the end)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._end(self.clock())


def phase_reporter(
    label: str, *, enabled: bool = True, stream: TextIO | None = None
) -> tuple[Callable[[str, int, int], None] | None, Callable[[], None]]:
    """A :class:`PhaseReporter` on stderr with its heartbeat (every 0.5 s on a terminal,
    every second in a pipe), and its closer; ``enabled=False``: no callback."""
    if not enabled:
        return None, lambda: None
    out = stream if stream is not None else sys.stderr
    reporter = PhaseReporter(label, stream=out, heartbeat_s=0.5 if out.isatty() else 1.0)
    return reporter, reporter.close
