"""Sweeps on a Dask cluster (optional extra: ``pip install -e '.[dask]'``).

``--scheduler local`` starts a :class:`dask.distributed.LocalCluster` on the loopback
interface with ``--jobs`` single-threaded worker processes; ``--scheduler ADDRESS``
(e.g. ``tcp://10.0.0.5:8786``) connects to a running scheduler, whose workers must have
this package installed (same version). Work units are the per-matrix checks, which are
pure functions of their input; results are collected as they complete and assembled
by index, so the report does not depend on the cluster.
"""

from __future__ import annotations

from contextlib import contextmanager

from verify.io.errors import InputError


def _run_batch(fn, batch):
    return [fn(task) for task in batch]


@contextmanager
def dask_client(scheduler: str, jobs: int):
    """A Dask client: a LocalCluster of ``jobs`` workers for ``"local"``, else the
    scheduler at the address; closed (with the cluster) when the block ends."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--scheduler needs the optional dependency dask[distributed]: "
                         "pip install -e '.[dask]'") from None
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as err:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_on_dask(scheduler: str, fn, tasks, on_result, *, jobs: int = 2) -> None:
    from dask.distributed import as_completed

    with dask_client(scheduler, jobs) as client:
        if not tasks:
            return
        # Per-task scheduling costs about a millisecond, as much as a small check:
        # send the tasks in batches, several per worker.
        size = max(1, min(16, len(tasks) // (8 * max(1, jobs))))
        batches = [tasks[k:k + size] for k in range(0, len(tasks), size)]
        futures = client.map(_run_batch, [fn] * len(batches), batches, pure=False)
        for future in as_completed(futures):
            for result in future.result():
                on_result(result)


def ordered_on_dask(scheduler: str, fn, tasks, *, jobs: int = 2):
    """``fn(*task)`` for every task of the iterable ``tasks``, yielded in task order,
    with at most ``2 jobs`` tasks submitted and not yet yielded (bounded memory)."""
    from collections import deque

    with dask_client(scheduler, jobs) as client:
        pending = deque()
        for task in tasks:
            pending.append(client.submit(fn, *task, pure=False))
            if len(pending) >= 2 * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
