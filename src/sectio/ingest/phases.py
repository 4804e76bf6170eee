"""Where an ingest's time goes: named phases, timed exclusively, each with its progress.

An ingest runs these phases, in this order (a phase that has nothing to do is absent):

* ``model``: loading the embedding model (on first use in the process);
* ``read``: reading and parsing the source (files, JSON, Markdown into D0 chunks);
* ``layers``: building a docs corpus's derived index entries (D1-D5);
* ``plan``: the corpus hash and the manifest gate;
* ``copy``: a tenant's load into a shared collection: the other tenants' points
  copied into the new version;
* ``tokenize``: the BM25 pass over every entry's text;
* ``embed_d0``: embedding the document chunks (and any record without a ``layer``);
* ``embed_derived``: embedding the derived entries that need a vector of their own
  (see :mod:`sectio.ingest.embedding`: most reuse a chunk's vector);
* ``upsert``: writing the points;
* ``optimize``: the count gate, the engine's optimize and the switch live.

Phases nest: a phase started inside another pauses the outer one, so the seconds
of all phases add up to the time spent inside any of them (no double counting).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: ``progress(phase, done, total)``: ``done`` of ``total`` units of ``phase`` are done.
PhaseProgress = Callable[[str, int, int], None]
#: ``tick(done)``: report ``done`` units of the current phase (its total fixed at start).
Tick = Callable[[int], None]

#: The phases in the order an ingest runs them (tables print in this order).
PHASE_ORDER = (
    "model",
    "read",
    "layers",
    "plan",
    "copy",
    "tokenize",
    "embed_d0",
    "embed_derived",
    "upsert",
    "optimize",
)


class PhaseClock:
    """Exclusive seconds per phase, and a progress callback told of each phase's advance.

    Example:
        >>> clock = PhaseClock()
        >>> with clock.phase("read", total=3) as tick:
        ...     tick(3)
        >>> list(clock.seconds())
        ['read']
    """

    def __init__(
        self,
        progress: PhaseProgress | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._progress = progress
        self._clock = clock
        self._seconds: dict[str, float] = {}
        self._counts: dict[str, int] = {}
        #: The running phases, innermost last, each with when it last resumed.
        self._stack: list[tuple[str, float]] = []

    @contextmanager
    def phase(self, name: str, total: int = 0) -> Iterator[Tick]:
        """Time ``name`` (pausing the enclosing phase) and yield its ``tick(done)``.

        Progress hears ``(name, 0, total)`` at the start (``total`` 0: a phase
        without units, whose end is the next phase's start), each tick, and
        ``(name, total, total)`` at a normal end if no tick said so. Entering a
        phase again adds to its seconds.
        """
        now = self._clock()
        if self._stack:
            outer, since = self._stack[-1]
            self._add(outer, now - since)
        self._stack.append((name, now))
        self._counts[name] = self._counts.get(name, 0) + total
        last = [0]

        def tick(done: int) -> None:
            last[0] = done
            if self._progress is not None and total > 0:
                self._progress(name, done, total)

        if self._progress is not None:
            self._progress(name, 0, total)
        try:
            yield tick
            if total and last[0] != total:
                tick(total)
        finally:
            end = self._clock()
            _, since = self._stack.pop()
            self._add(name, end - since)
            if self._stack:
                outer, _ = self._stack[-1]
                self._stack[-1] = (outer, end)

    def _add(self, name: str, seconds: float) -> None:
        self._seconds[name] = self._seconds.get(name, 0.0) + seconds

    def seconds(self) -> dict[str, float]:
        """Seconds per phase, in :data:`PHASE_ORDER` (others after, as first run), rounded
        to milliseconds."""
        known = [p for p in PHASE_ORDER if p in self._seconds]
        other = [p for p in self._seconds if p not in PHASE_ORDER]
        return {p: round(self._seconds[p], 3) for p in [*known, *other]}

    def counts(self) -> dict[str, int]:
        """Units per phase (the totals phases were started with; 0 for none)."""
        return {p: self._counts.get(p, 0) for p in self.seconds()}


def phase_table(seconds: dict[str, float], counts: dict[str, int] | None = None) -> list[str]:
    """The lines of a plain phase table: phase, seconds, share of the total, units.

    Example:
        >>> for line in phase_table({"read": 1.0, "embed_d0": 3.0}, {"embed_d0": 30}):
        ...     print(line)
        phase            seconds   share    units
        read               1.000     25%        -
        embed_d0           3.000     75%       30
        total              4.000    100%        -
    """
    total = sum(seconds.values())
    lines = [f"{'phase':<14} {'seconds':>9} {'share':>7} {'units':>8}"]
    for name, secs in seconds.items():
        units = (counts or {}).get(name, 0)
        share = f"{100 * secs / total:.0f}%" if total else "-"
        lines.append(f"{name:<14} {secs:>9.3f} {share:>7} {units or '-':>8}")
    lines.append(f"{'total':<14} {total:>9.3f} {'100%':>7} {'-':>8}")
    return lines


__all__ = ["PHASE_ORDER", "PhaseClock", "PhaseProgress", "Tick", "phase_table"]
