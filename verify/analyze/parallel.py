"""Blocks of labels on worker processes or a Dask cluster (``analyze --jobs/--scheduler``).

The analysis of a large head splits into independent tasks: chunks of labels (or of
pairs) whose witnesses are searched together, and single labels or pairs left to the
slower exact methods. Every task is a pure function of the head and the task, and the
chunks are fixed by the task list alone (not by the number of workers), so the results,
collected in task order, are the same for any ``--jobs`` and on any cluster.

Workers get the head once: forked worker processes inherit it (``--jobs N``, Linux),
Dask workers receive it by one broadcast (``--scheduler local|ADDRESS``; the workers of
a remote scheduler need this package installed, see :mod:`verify.io.distributed`).

Each forked worker runs its BLAS with one thread: ``N`` workers already occupy ``N``
cores, and a worker that starts as many BLAS threads as the machine has cores (the
default of OpenBLAS) oversubscribes it ``N``-fold, which on two shared cores made the
matrix-vector sized products of the per-label methods several times slower. (Dask
starts its worker processes with ``OPENBLAS_NUM_THREADS=1`` and the like already.)

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> head = make_head(np.eye(3, dtype=np.int64))
>>> with Workers(head, jobs=1) as workers:
...     workers.map(lambda h, k: h.n + k, [1, 2])
[4, 5]
"""

from __future__ import annotations

import sys
import time

__all__ = ["Workers", "worker_cpu"]

#: The head of the running analysis, inherited by forked worker processes.
_HEAD = None
#: CPU seconds the worker processes and Dask workers have spent on tasks of this
#: process so far (:func:`worker_cpu`).
_WORKER_CPU = 0.0


def worker_cpu() -> float:
    """CPU seconds spent on this process's tasks outside it (worker processes, Dask
    workers) so far; tasks run in this process count in its own CPU time."""
    return _WORKER_CPU


class Workers:
    """``map(fn, tasks)``: ``[fn(head, task) for task in tasks]``, possibly in parallel.

    ``jobs`` worker processes (forked, sharing the head's arrays), or the Dask cluster
    of ``scheduler`` (``"local"`` starts one with ``jobs`` workers). Use as a context
    manager: the pool or the client is closed at the end. ``fn`` must be a module-level
    function when work leaves the process.
    """

    def __init__(self, head, jobs: int = 1, scheduler: str | None = None):
        self.head, self.jobs, self.scheduler = head, max(1, int(jobs)), scheduler
        self._pool = self._client = self._context = self._remote_head = None

    def __enter__(self) -> "Workers":
        global _HEAD
        if self.scheduler:
            from verify.io.distributed import dask_client

            self._context = dask_client(self.scheduler, self.jobs)
            self._client = self._context.__enter__()
        elif self.jobs > 1:
            import multiprocessing

            _HEAD = self.head
            ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
            self._pool = ctx.Pool(self.jobs, initializer=_one_blas_thread)
        return self

    def __exit__(self, *exc) -> None:
        global _HEAD
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            _HEAD = None
        if self._context is not None:
            self._context.__exit__(*exc)

    def map(self, fn, tasks, on_result=None) -> list:
        """The results in task order; ``on_result(result)`` is called as each arrives
        in that order (for progress bars)."""
        tasks = list(tasks)
        out = []
        if self._client is not None and len(tasks) > 1:
            if self._remote_head is None:
                self._remote_head = self._client.scatter(self.head, broadcast=True)
            futures = self._client.map(_timed, [fn] * len(tasks),
                                       [self._remote_head] * len(tasks), tasks, pure=False)
            results = _counted(future.result() for future in futures)
        elif self._pool is not None and len(tasks) > 1:
            results = _counted(self._pool.imap(_call, [(fn, task) for task in tasks]))
        else:
            results = (fn(self.head, task) for task in tasks)
        for result in results:
            out.append(result)
            if on_result is not None:
                on_result(result)
        return out


def _one_blas_thread() -> None:
    """Limit the BLAS of this (worker) process to one thread, for its lifetime."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def _timed(fn, head, task):
    """``(fn(head, task), CPU seconds it took)``, in a worker."""
    start = time.process_time()
    result = fn(head, task)
    return result, time.process_time() - start


def _call(item):
    """:func:`_timed` in a forked worker, with the head it inherited."""
    fn, task = item
    return _timed(fn, _HEAD, task)


def _counted(timed_results):
    """The results of :func:`_timed`, their CPU seconds added to :func:`worker_cpu`."""
    global _WORKER_CPU
    for result, seconds in timed_results:
        _WORKER_CPU += seconds
        yield result
