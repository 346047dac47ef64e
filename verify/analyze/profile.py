"""Where the time of ``analyze`` goes (``analyze --profile``).

For each phase of the analysis (the labels, the cosine neighbours, the tie pairs, and
the rest: reading the head, writing the report and certificate) a :class:`Profile`
records the wall clock, the CPU time of the main process, and the CPU time that worker
processes or Dask workers spent on the phase's tasks (:func:`verify.analyze.parallel.worker_cpu`,
measured inside each task). The *serial share* of a phase is the main process's part of
its CPU time: work that more ``--jobs`` cannot speed up. Within a phase the methods of
large heads mark their stages (:func:`stage`: blobs, screen, near duplicates, interior,
per label; the pair screen, the pair segments and per pair), listed under their phase.

Example
-------
>>> profile = Profile()
>>> with profile.phase("labels"):
...     _ = sum(range(1000))
>>> [row.name for row in profile.rows]
['labels']
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

from verify.analyze.parallel import worker_cpu

__all__ = ["Profile", "PhaseTimes", "stage"]

#: The profile of the running analysis (:meth:`Profile.activate`), or None.
_ACTIVE = None


@dataclass
class PhaseTimes:
    """Seconds of one phase: wall clock, main-process CPU, worker CPU."""

    name: str
    wall: float
    main_cpu: float
    worker_cpu: float
    level: int = 0

    @property
    def cpu(self) -> float:
        return self.main_cpu + self.worker_cpu

    @property
    def serial_share(self) -> float | None:
        return self.main_cpu / self.cpu if self.cpu > 0 else None


def _now() -> tuple[float, float, float]:
    return time.perf_counter(), time.process_time(), worker_cpu()


class Profile:
    """Phase times of one analysis; ``progress(inner)`` times the phases that report
    progress, ``phase(name)`` any other stretch, :meth:`table` the summary."""

    def __init__(self):
        self.rows: list[PhaseTimes] = []
        self._start = _now()
        self._open = 0
        # Where the rows stood when each open phase began: a stage run twice within
        # one phase is one row.
        self._starts: list[int] = []

    def activate(self) -> "Profile":
        """Make this the profile that :func:`stage` records into; returns it."""
        global _ACTIVE
        _ACTIVE = self
        return self

    def deactivate(self) -> None:
        """Stop recording stages into this profile."""
        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None

    @contextmanager
    def phase(self, name: str):
        start, at = _now(), len(self.rows)
        self._open += 1
        self._starts.append(at)
        try:
            yield
        finally:
            self._open -= 1
            self._starts.pop()
            self._record(name, start, at)

    def _record(self, name: str, start, at: int) -> None:
        """Record the phase begun at ``start``, listed at ``at`` (where the rows stood
        when it began): before its own stages, which end first. A stage of the same
        name already recorded in the enclosing phase gets these times added."""
        end = _now()
        times = PhaseTimes(name, end[0] - start[0], end[1] - start[1],
                           end[2] - start[2], self._open)
        for r in self.rows[self._starts[-1] if self._starts else len(self.rows):]:
            if r.name == name and r.level == times.level:
                r.wall += times.wall
                r.main_cpu += times.main_cpu
                r.worker_cpu += times.worker_cpu
                return
        self.rows.insert(at, times)

    def progress(self, inner=None):
        """A progress factory (``progress(description, total)``) that times each phase
        from the bar's creation to its ``close``, and passes updates to ``inner``."""
        profile = self

        class Bar:
            def __init__(self, description: str, total: int):
                self.description, self.start = description, _now()
                self.at = len(profile.rows)
                self.bar = inner(description, total) if inner else None
                profile._open += 1
                profile._starts.append(self.at)

            def update(self, k: int) -> None:
                if self.bar is not None:
                    self.bar.update(k)

            def close(self) -> None:
                if self.bar is not None:
                    self.bar.close()
                profile._open -= 1
                profile._starts.pop()
                profile._record(self.description, self.start, self.at)

        return Bar

    def total(self) -> PhaseTimes:
        """The whole run so far, the phases not recorded included."""
        end = _now()
        return PhaseTimes("total", end[0] - self._start[0], end[1] - self._start[1],
                          end[2] - self._start[2])

    def table(self) -> str:
        """The phases, the rest (``other``) and the total, one line each."""
        total = self.total()
        rows = list(self.rows)
        top = [r for r in rows if r.level == 0]
        rest = PhaseTimes("other", total.wall - sum(r.wall for r in top),
                          total.main_cpu - sum(r.main_cpu for r in top),
                          total.worker_cpu - sum(r.worker_cpu for r in top))
        lines = [f"{'phase':<18} {'wall s':>9} {'CPU s':>9} {'main CPU s':>11} "
                 f"{'serial share':>12}"]
        for r in rows + [rest, total]:
            share = "-" if r.serial_share is None else f"{100 * r.serial_share:.0f} %"
            name = "  " * r.level + r.name.replace(" ", "-")
            lines.append(f"{name:<18} {r.wall:9.2f} {r.cpu:9.2f} {r.main_cpu:11.2f} "
                         f"{share:>12}")
        return "\n".join(lines)


@contextmanager
def stage(name: str):
    """Record ``name`` as a stage of the current phase if a profile is active."""
    if _ACTIVE is None:
        yield
    else:
        with _ACTIVE.phase(name):
            yield
