r"""Blobs: many labels with almost the same row, decided together.

Trained heads hold groups of labels whose rows agree to the last bits of their floats:
labels never seen in training keep the row (and bias) they were given, up to rounding
(in PP-OCRv5's recogniser 3,263 of 18,385 characters lie within a relative ``10^-7`` of
one another). For each such label on its own the screen of :mod:`verify.analyze.screen`
spends all its rounds and the interior pass of :mod:`verify.analyze.interior` proposes
a support per label; yet when the blob as a whole lies inside the hull of the other
rows, one support serves every member.

Mathematics
-----------
Let ``G`` be a group of labels and ``S`` a set of ``d + 1`` rows outside ``G`` whose
simplex holds ``z_i`` in its interior, for each ``i`` in ``G``:
``z_i = sum_{k in S} lambda_k z_k``, every ``lambda_k > 0``, ``sum lambda = 1``. Then each
``i`` is unargmaxable and ties with no label (:mod:`verify.analyze.simplex`), proven
member by member by :func:`verify.analyze.simplex.strictly_inside` (a verified inverse
and an exact residual; no weights are computed). A member whose proof fails is left
to the usual path; so is every member of a blob that the proposal does not place.

Algorithm
---------
1. **Groups** (:func:`near_duplicate_groups`): rows that fall in the same cell of a
   grid of side ``BLOB_RELATIVE`` times the median row norm, in float arithmetic. Only
   a grouping: a blob cut by a cell boundary is two groups, and nothing is decided
   from it.
2. **Proposal** for each group of at least ``BLOB_MIN_SIZE`` labels: the cutting-plane
   linear program of :func:`verify.analyze.proposals.label_proposal` for the group's first
   label against the rows away from the blob (rows near it that the group misses are
   left out too), by HiGHS on an active set of rows, never the whole head at once. An
   infeasible program gives a support ``S`` (a basic solution, at most ``d + 1``
   rows); a feasible one says that the blob reaches the hull, and the group is left to
   the screen (its members may be vertices of the blob's own tiny hull).
3. **Proof** for each member with the same ``S`` (``d + 1`` rows), and for the labels
   near the blob's centroid that no group holds (:func:`stragglers`: members cut off
   by a cell boundary).

Heads with a bias are handled as everywhere else, through their floor rows
(:mod:`verify.analyze.bias`): the support may hold floor rows.

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> W = np.array([[0, 0], [8, 0], [0, 8], [8, 8], [3, 3], [3, 3], [3, 3]]) * 2**20
>>> W[5, 0] += 1; W[6, 1] += 1  # three rows a relative 10^-7 apart
>>> head = make_head(W)
>>> near_duplicate_groups(head, list(range(7)))
[[4, 5, 6]]
>>> sorted(certify_blob(head, [4, 5, 6], min_size=2))
[4, 5, 6]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from verify.analyze.head import equal_rows, prefix_columns
from verify.analyze.proposals import label_proposal

__all__ = ["BLOB_MIN_SIZE", "BLOB_RELATIVE", "blob_support", "certify_blob", "certify_blobs",
           "near_duplicate_groups", "prove_members", "stragglers"]

#: Side of the grid cells, relative to the median row norm: rows of a blob differ in
#: the last bits of a float32 (relative 10^-7), distinct trained rows by far more.
BLOB_RELATIVE = 2.0 ** -20
#: Groups with fewer labels go through the per-label path (a proposal per blob only
#: pays off when it serves several labels).
BLOB_MIN_SIZE = 8
#: Labels within this distance of a blob's centroid, relative to its norm, are tried
#: on the blob's support too (the relative distance of near-duplicate rows in
#: :mod:`verify.analyze.clusters`).
STRAGGLER_RELATIVE = 2.0 ** -12


def near_duplicate_groups(head, labels: Sequence[int], min_size: int = 2) -> list[list[int]]:
    """The labels grouped by the grid cell of their float row (cells of side
    ``BLOB_RELATIVE`` times the median row norm); groups of at least ``min_size``,
    each increasing, in order of first label. Linear in ``len(labels)`` (a digest of
    each row's cell, :func:`verify.analyze.head.equal_rows`)."""
    labels = np.asarray(labels, dtype=np.intp)
    if labels.size < min_size:
        return []
    F = head.F
    norms = head.row_norms()
    scale = float(np.median(norms[labels])) * BLOB_RELATIVE
    if not scale > 0:
        return []
    # (F holds no -0.0: its rows come from the exact integers.) The cells of a few
    # columns first: rows apart in them are apart, and only the rest need whole rows.
    columns = prefix_columns(F.shape[1])
    groups = []
    for part in equal_rows(np.floor(F[np.ix_(labels, columns)] / scale)):
        if len(part) >= min_size:
            members = labels[part]
            groups.extend(members[sub].tolist()
                          for sub in equal_rows(np.floor(F[members] / scale))
                          if len(sub) >= min_size)
    return sorted(groups, key=lambda g: g[0])


def blob_support(head, group: Sequence[int], min_size: int = BLOB_MIN_SIZE):
    """The proposed support (``d + 1`` rows outside ``group``, increasing) of the
    group's first label, or None when the group is small, reaches the hull, or the
    proposal fails (module docstring). A task of
    :class:`verify.analyze.parallel.Workers`."""
    group = [int(i) for i in group]
    if len(group) < min_size or head.Zarr is None:
        return None
    lead = group[0]
    # Rows near the blob that no group holds (cut off by a cell boundary) are kept
    # out of the support as well: a support with such a row writes the lead as almost
    # that row alone, and its simplex holds few of the other members.
    near = stragglers(head, np.arange(head.n), group)
    skip = sorted(set(group[1:]) | (set(near) - {lead}))
    with threadpool_limits(limits=1, user_api="blas"):
        proposal = label_proposal(head, lead, skip=skip,
                                  start=head.F[lead] - head.F.mean(axis=0), basic=True)
    if proposal is None or proposal[0] != "support":
        return None
    support = tuple(sorted(int(k) for k in proposal[1]))
    return support if len(support) == head.d + 1 else None


def prove_members(head, task) -> dict:
    """``{label: support}`` for the members of ``task = (support, members)`` proven
    strictly inside the simplex of ``support`` (each by
    :func:`verify.analyze.simplex.strictly_inside`). A task of
    :class:`verify.analyze.parallel.Workers`."""
    from verify.analyze.simplex import strictly_inside

    support, members = task
    vertices = head.Zarr[list(support)]
    out = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for i in members:
            if i not in support and strictly_inside(vertices, head.Zarr[i]):
                out[int(i)] = tuple(support)
    return out


def certify_blob(head, group: Sequence[int], min_size: int = BLOB_MIN_SIZE) -> dict:
    """``{label: support}`` for the members of ``group`` proven strictly inside the
    simplex of one support of ``d + 1`` rows outside the group; empty when
    :func:`blob_support` proposes none."""
    support = blob_support(head, group, min_size)
    return {} if support is None else prove_members(head, (support, list(group)))


#: Members per task of :func:`prove_members` (fixed: the output does not depend on
#: the number of workers).
PROOF_CHUNK = 256


def stragglers(head, labels: Sequence[int], members: Sequence[int],
               relative: float = STRAGGLER_RELATIVE) -> list[int]:
    """The ``labels`` whose rows lie within ``relative`` times the norm of the centroid of
    the rows of ``members`` (a blob's members cut off by a cell boundary, or spread over
    cells of their own): one product with the candidate rows, a choice of candidates
    only."""
    labels = np.asarray(labels, dtype=np.intp)
    if not labels.size:
        return []
    centre = head.F[list(members)].mean(axis=0)
    # Blocks of rows: no copy of the whole head (every row is a candidate when the
    # support of a blob is proposed).
    gap = np.concatenate([np.linalg.norm(head.F[labels[lo:lo + 4096]] - centre, axis=1)
                          for lo in range(0, labels.size, 4096)])
    return labels[gap <= relative * float(np.linalg.norm(centre))].tolist()


def certify_blobs(head, groups: list, workers, rest: Sequence[int] = ()) -> dict:
    """:func:`certify_blob` for every group, the proposals and then the proofs in chunks
    of ``PROOF_CHUNK`` members shared by ``workers``: ``{label: support}``. The labels of
    ``rest`` near a blob whose support was proposed (:func:`stragglers`) are tried on
    that support too."""
    supports = workers.map(blob_support, groups)
    placed = [(support, list(group)) for support, group in zip(supports, groups)
              if support is not None]
    grouped = {i for group in groups for i in group}
    rest = [i for i in rest if i not in grouped]
    for support, group in placed:
        near = stragglers(head, rest, group)
        group.extend(near)
        taken = set(near)
        rest = [i for i in rest if i not in taken]
    tasks = [(support, group[lo:lo + PROOF_CHUNK]) for support, group in placed
             for lo in range(0, len(group), PROOF_CHUNK)]
    out: dict = {}
    for found in workers.map(prove_members, tasks):
        out.update(found)
    return out
