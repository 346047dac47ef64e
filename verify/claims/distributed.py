"""Sweeps on a Dask cluster (optional extra: ``pip install -e '.[dask]'``).

``--scheduler local`` starts a :class:`dask.distributed.LocalCluster` on the loopback
interface with ``--jobs`` single-threaded worker processes; ``--scheduler ADDRESS``
(e.g. ``tcp://10.0.0.5:8786``) connects to a running scheduler, whose workers must have
this package installed (same version). Work units are the per-matrix checks, which are
pure functions of their input; results are collected as they complete and assembled
by index, so the report does not depend on the cluster.
"""

from __future__ import annotations

from verify.errors import InputError


def _run_batch(fn, batch):
    return [fn(task) for task in batch]


def run_on_dask(scheduler: str, fn, tasks, on_result, *, jobs: int = 2) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
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
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
