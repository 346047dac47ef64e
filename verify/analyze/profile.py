"""Where the time of ``analyze`` goes (``analyze --profile``).

For each phase of the analysis (the labels, the cosine neighbours, the tie pairs, and
the rest: reading the head, writing the report and certificate) a :class:`Profile`
records the wall clock, the CPU time of the main process, and the CPU time that worker
processes or Dask workers spent on the phase's tasks (:func:`verify.analyze.parallel.worker_cpu`,
measured inside each task). The *serial share* of a phase is the main process's part of
its CPU time: work that more ``--jobs`` cannot speed up.

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

__all__ = ["Profile", "PhaseTimes"]


@dataclass
class PhaseTimes:
    """Seconds of one phase: wall clock, main-process CPU, worker CPU."""

    name: str
    wall: float
    main_cpu: float
    worker_cpu: float

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

    @contextmanager
    def phase(self, name: str):
        start = _now()
        try:
            yield
        finally:
            self._record(name, start)

    def _record(self, name: str, start) -> None:
        end = _now()
        self.rows.append(PhaseTimes(name, end[0] - start[0], end[1] - start[1],
                                    end[2] - start[2]))

    def progress(self, inner=None):
        """A progress factory (``progress(description, total)``) that times each phase
        from the bar's creation to its ``close``, and passes updates to ``inner``."""
        profile = self

        class Bar:
            def __init__(self, description: str, total: int):
                self.description, self.start = description, _now()
                self.bar = inner(description, total) if inner else None

            def update(self, k: int) -> None:
                if self.bar is not None:
                    self.bar.update(k)

            def close(self) -> None:
                if self.bar is not None:
                    self.bar.close()
                profile._record(self.description, self.start)

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
        rest = PhaseTimes("other", total.wall - sum(r.wall for r in rows),
                          total.main_cpu - sum(r.main_cpu for r in rows),
                          total.worker_cpu - sum(r.worker_cpu for r in rows))
        lines = [f"{'phase':<10} {'wall s':>9} {'CPU s':>9} {'main CPU s':>11} "
                 f"{'serial share':>12}"]
        for r in rows + [rest, total]:
            share = "-" if r.serial_share is None else f"{100 * r.serial_share:.0f} %"
            lines.append(f"{r.name:<10} {r.wall:9.2f} {r.cpu:9.2f} {r.main_cpu:11.2f} "
                         f"{share:>12}")
        return "\n".join(lines)
