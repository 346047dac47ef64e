r"""Witnesses for many labels at once: whitened proposals, screened by a float32 bound.

For a head with tens of thousands of labels the exact check of one witness costs a
product with all ``n`` rows, so the whole analysis costs ``n^2 d`` multiply-adds: for
50,257 x 768 that is 1.9 10^12, a minute or more of matrix products on two cores. This
module keeps that to about one product per label and does it in float32, while every
verdict stays exact.

Proposals (Mahalanobis directions)
----------------------------------
Label ``i`` is argmaxable iff some ``x`` has ``w_i . x > w_k . x`` for all ``k != i``.
For a cloud of rows with mean ``mu`` and covariance ``C`` the direction
``x_i = C^-1 (w_i - mu)`` is the natural candidate: in whitened coordinates
``y = C^-1/2 (w - mu)`` the cloud is isotropic and ``w_k . x_i - w_i . x_i =
(y_k - y_i) . y_i``, negative for every ``k`` unless some ``y_k`` reaches beyond ``y_i``
along its own direction. Trained heads are strongly anisotropic (the rows share an
offset, the spectrum decays like a power law), so the plain centred row ``w_i - mu``
wins for a few labels only, while ``C^-1 (w_i - mu)`` wins for almost all (measured on
a synthetic 50,257 x 768 head: 1 % and 99 % of the labels). For a pair ``(i, j)`` the
proposal is ``C^-1 ((w_i + w_j)/2 - mu)`` projected onto ``(w_i - w_j) . x = 0``.
Proposals that lose go through the relaxation method (Agmon; Motzkin & Schoenberg
1954), reusing the scores just computed; whatever is left after ``rounds`` rounds is
returned to the caller's slower methods.

Screening (the exactness argument)
----------------------------------
Each round, the float point is rounded to integers ``x`` with ``|x_c| <= 2^bits``
(``bits <= 20``) and its scores ``s = F32 x`` are computed by one float32 matrix
product for a block of columns. ``F32`` is the float32 copy of the rows
``omega_k = z_k / 2^s`` of the exact integer head, each entry within a relative
``u + u_64`` of the exact one (``u = 2^-24``, ``u_64 = 2^-53``); the integers ``x_c``
are float32 numbers. The argument of :func:`verify.analyze.head.product_error_bounds`
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §3.1) holds for any
unit roundoff: any float32 evaluation of ``f_k . x`` (BLAS, any order, with or without
fused multiply-adds) is within ``E_k = R |f_k| + A`` of ``omega_k . x`` with
``R = 2 (d + 2) u |x|`` (the factor 2 covers ``gamma_d <= 1.01 d u``, which needs
``d u < 0.01``, i.e. ``d`` below 167,000, and the rounding of the norms and bounds) and
``A = 2 d 2^-149 (max |x_c| + 1) + ...`` for gradual underflow. Hence

* **argmax** (label ``t``): ``s_t - s_k > (E_t + E_k)(1 + 2^-20)`` proves
  ``z_t . x > z_k . x``; a column is accepted when this holds for every ``k != t``,
  first tested with ``max_k |f_k|`` in place of ``|f_k|`` (one maximum per column), then
  entry by entry;
* **tie** (labels ``t, j``, ``v = z_t - z_j``, ``p`` the index of the largest ``|v_p|``):
  the integer point ``x' = |v_p| x - sign(v_p) (v . x) e_p`` lies exactly on
  ``v . x' = 0``, and ``(z_t - z_k) . x' = |v_p| ((z_t - z_k) . x - gamma* (z_tp - z_kp))``
  with ``gamma* = sign(v_p) (v . x) / |v_p|``. The column is accepted when, for every
  ``k != t, j``, ``s_t - s_k`` exceeds ``(E_t + E_k + |gamma| (|f_tp| + max_k |f_kp|))
  (1 + 2^-20)`` (``gamma = fl(gamma*)``; the first two terms with the largest row norm
  for ``|f_k|``): the correction is then smaller than the margin whatever its sign.

A column that the float32 scores call a win but the bound cannot confirm goes to the
float64 check (:func:`_float64_check`): one float64 product of the rows with the block of
such columns (at the tie point ``x - gamma e_p`` for ties, its distance to the exact point
added to the bound), whose error bound (``u_64`` in place of ``u``) settles almost every
row; the rows it leaves open are computed in integers (:func:`_exact_margins`). So a
witness is accepted only when it is proved; a column that loses is only a proposal that
failed, never a verdict. (Until 2026-11 these columns went to
:meth:`verify.analyze.head.ExactHead.wins` at the long point ``x'``, and the bound was
also tried row by row in float32, which settled none of the tie columns of a trained
head: the same verdicts, at about three times the cost.)

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> head = make_head(np.array([[0, 0], [4, 0], [0, 4], [4, 4], [1, 2]]))
>>> directions = mahalanobis(head.F)
>>> found, left, rivals = screened_relaxation(
...     head, [0, 1, 2, 3], lambda cols: directions.directions(head.F[cols]))
>>> sorted(found)
[0, 1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "FLOAT32_UNIT",
    "SCREEN_PATIENCE",
    "Float32Rows",
    "Mahalanobis",
    "mahalanobis",
    "rounding_error_bounds",
    "screened_relaxation",
    "exact_dots",
    "tie_dots",
]

#: Unit roundoff of IEEE binary32.
FLOAT32_UNIT = 2.0 ** -24
#: Unit roundoff of IEEE binary64.
FLOAT64_UNIT = 2.0 ** -53
#: Half the smallest positive subnormal binary32 and binary64 number.
FLOAT32_TINY = 2.0 ** -150
FLOAT64_TINY = 2.0 ** -1074
#: Factor on every bound (see the module docstring).
SAFETY = 2.0
#: Relative slack on the comparison with a bound computed in float64.
COMPARISON_SLACK = 1.0 + 2.0 ** -20
#: Largest dimension for the float32 bound (``d u < 0.01``).
MAX_DIMENSION = int(0.01 / FLOAT32_UNIT)
#: Eigenvalues of the covariance below this share of the largest are raised to it.
EIGENVALUE_FLOOR = 1e-12
#: Over-relaxation factor of the relaxation steps (as in ``argmax.RELAXATION``).
RELAXATION = 1.9
#: Largest block of columns of :func:`_float64_check`.
FLOAT64_CHECK_COLUMNS = 256
#: The screens of labels and of pairs stop after this many rounds in a row that prove
#: nothing (``patience`` of :func:`screened_relaxation`; the synthetic 50,257 x 768
#: head still proves a few columns in round 1, and then one in 5,000 labels later on).
SCREEN_PATIENCE = 2


def rounding_error_bounds(X: np.ndarray, d: int, *, unit: float, tiny: float,
                          absolute_error: float = 0.0, exact=None):
    """``(R, A)``: any float evaluation of ``f_k . X[:, c]`` is within
    ``R[c] |f_k| + A[c]`` of the exact product (argument in
    :func:`verify.analyze.head.product_error_bounds`; ``unit`` is the unit roundoff of
    the arithmetic, ``tiny`` half its smallest subnormal number, ``exact[c]`` whether
    column ``c`` is the exact point or a rounded copy of a longer one)."""
    if exact is None:
        exact = np.ones(X.shape[1], dtype=bool)
    norm_x = np.sqrt(np.einsum("ij,ij->j", X, X))
    top_x = np.abs(X).max(axis=0) if X.size else np.zeros(X.shape[1])
    factor = (d + 2) + np.where(exact, 0.0, 2.0 * np.sqrt(d))
    R = SAFETY * factor * unit * norm_x
    A = SAFETY * d * ((absolute_error + tiny) * (top_x + 1) + 2 * tiny)
    return R, A


# --- proposals ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Mahalanobis:
    """``x = P (w - mu)`` with ``P = C^-1``, ``C`` the covariance of the rows."""

    mean: np.ndarray
    precision: np.ndarray

    def directions(self, rows: np.ndarray) -> np.ndarray:
        """``P (w - mu)`` for each row of ``rows``, as the columns of a ``d x m`` array."""
        return self.precision @ (np.asarray(rows, dtype=np.float64) - self.mean).T


def mahalanobis(F: np.ndarray, block: int = 4096, *,
                floor_shift: float | None = None) -> Mahalanobis:
    """The mean and inverse covariance of the rows of ``F`` (float64, blocks of rows);
    with ``floor_shift = s``, of the rows of ``F`` and their copies moved by ``-s`` in
    the last coordinate (the floor rows of a head with a bias), without forming them.

    Eigenvalues below ``EIGENVALUE_FLOOR`` times the largest are raised to that floor,
    so heads whose rows span a subspace get a usable (pseudo-)inverse.
    """
    mean, C = _moments(F, block)
    if floor_shift is not None and mean.size:
        # n rows and their n copies at -s e: the mean moves by -s/2 e; about it each
        # pair of rows is (a - mu) +- s/2 e, the cross terms cancel, and the covariance
        # gains (s/2)^2 in its last diagonal entry.
        mean[-1] -= floor_shift / 2
        C[-1, -1] += (floor_shift / 2) ** 2
    values, vectors = np.linalg.eigh(C)
    top = float(values[-1]) if values.size else 0.0
    if not top > 0:
        return Mahalanobis(mean, np.eye(F.shape[1]))
    values = np.maximum(values, EIGENVALUE_FLOOR * top)
    return Mahalanobis(mean, (vectors / values) @ vectors.T)


def _moments(F: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """The mean and covariance of the rows of ``F``, in blocks of rows."""
    n, d = F.shape
    mean = np.zeros(d)
    for lo in range(0, n, block):
        mean += F[lo:lo + block].sum(axis=0)
    mean /= n
    C = np.zeros((d, d))
    G = np.empty((min(block, n), d))  # one buffer for the centred blocks
    for lo in range(0, n, block):
        part = G[:min(block, n - lo)]
        np.subtract(F[lo:lo + block], mean, out=part)
        C += part.T @ part
    C /= n
    return mean, C


# --- the float32 copy and the screen -----------------------------------------------------

class Float32Rows:
    """The float32 copy of a head's rows ``F`` (entries below 1), with row norms."""

    def __init__(self, F: np.ndarray, absolute_error: float, block: int = 4096):
        n, d = F.shape
        self.F64 = F
        self.F = np.empty((n, d), dtype=np.float32)
        for lo in range(0, n, block):
            self.F[lo:lo + block] = F[lo:lo + block]
        # Norms and column maxima without a widened or absolute copy of each block (the
        # fresh pages of such copies cost more than the arithmetic).
        self.norms = np.empty(n)
        for lo in range(0, n, block):
            part = self.F[lo:lo + block]
            self.norms[lo:lo + block] = np.sqrt(np.einsum("ij,ij->i", part, part,
                                                          dtype=np.float64))
        self.norm_max = float(self.norms.max()) if n else 0.0
        self.column_max = np.zeros(d)
        for lo in range(0, n, block):
            part = F[lo:lo + block]
            self.column_max = np.maximum(self.column_max,
                                         np.maximum(part.max(axis=0), -part.min(axis=0)))
        # F itself is within a relative 2^-53 of the exact rows (plus absolute_error).
        self.absolute_error = absolute_error
        self.d = d

    def bounds(self, X: np.ndarray):
        """``(R, A)`` of :func:`rounding_error_bounds` for integer columns ``X``."""
        return rounding_error_bounds(X, self.d, unit=FLOAT32_UNIT + FLOAT64_UNIT,
                                     tiny=FLOAT32_TINY, absolute_error=self.absolute_error)


def _screen(rows: Float32Rows, S: np.ndarray, X: np.ndarray, t: np.ndarray,
            j=None, gamma=None, ftp=None, colmax=None):
    """Per column: proved by the bound, a float win (for the exact check), the rival
    and the excess of its score (for the relaxation step), and the score scale.

    ``S`` holds the float32 scores one row per column of ``X`` (``S = X^T F^T``, an
    ``m x n`` array): the maximum over the rows of the head then runs along contiguous
    memory (numpy's ``argmax`` down the columns of an ``n x m`` array copies it first,
    which cost twice the product itself on PP-OCRv5's 18,385 rows).
    Argmax columns when ``j`` is None; otherwise tie columns, whose exact point is
    ``|v_p| x - sign(v_p) (v . x) e_p``: ``gamma = fl(sign(v_p) (v . x) / |v_p|)``,
    ``ftp`` the entry ``t`` of the float64 column ``p`` of the rows, ``colmax`` the
    largest ``|f_kp|`` (see the module docstring). Tie columns that this bound does not
    prove go to :func:`_float64_check`.
    """
    m = S.shape[0]
    cols = np.arange(m)
    R, A = rows.bounds(X)
    own = S[cols, t].astype(np.float64)
    S[cols, t] = -np.inf
    if j is not None:
        S[cols, j] = -np.inf
    rival = S.argmax(axis=1)
    best = S[cols, rival].astype(np.float64)
    shift = 0.0
    if j is not None:
        with np.errstate(invalid="ignore"):
            shift = np.abs(gamma) * (np.abs(ftp) + colmax)
        shift[np.isnan(shift)] = np.inf  # equal rows (gamma infinite): never proved
    nt = rows.norms[t]
    proved = own - best > (R * (nt + rows.norm_max) + 2 * A + shift) * COMPARISON_SLACK
    if j is None:
        for c in np.flatnonzero(~proved & (own > best)):
            # Entry by entry: |f_k| in place of the largest row norm.
            bound = R[c] * (nt[c] + rows.norms) + 2 * A[c]
            margin = own[c] - S[c].astype(np.float64)  # +inf at t
            proved[c] = bool(np.all(margin > bound * COMPARISON_SLACK))
    # Tie columns left go to the float64 check (_exact_check): on a trained head the
    # float32 bound row by row settled none of them (5,872 columns on 10,000 x 768),
    # and reading column p of the rows for it cost a third of the tie screen.
    scale = np.maximum(np.abs(best), np.abs(own))
    S[cols, t] = own
    return proved, own > best, rival, best - own, np.maximum(scale, 1e-300)


def _tie_parameters(head, rows: Float32Rows, X: np.ndarray, t: np.ndarray, j: np.ndarray):
    """``(p, gamma, ftp, colmax)`` of :func:`_screen` for tie columns."""
    m = X.shape[1]
    cols = np.arange(m)
    V = head.Zarr[t] - head.Zarr[j]  # exact: |z| < 2^62
    p = np.abs(V).argmax(axis=1)
    vp = V[cols, p]
    vx = exact_dots(V, X.astype(np.int64))  # v . x exactly, rounded once below
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.array([float(x) for x in vx]) * np.sign(vp) / np.abs(vp).astype(np.float64)
    gamma[vp == 0] = np.inf  # equal rows: no hyperplane, nothing is proved
    return p, gamma, rows.F64[t, p], rows.column_max[p]


def exact_dots(V: np.ndarray, X: np.ndarray) -> list[int]:
    """``V[c] . X[:, c]`` exactly for int64 ``V`` (entries below ``2^63``) and ``X``
    (entries at most ``2^20``), as Python integers.

    ``V = 2^31 H + L`` with ``0 <= L < 2^31`` and ``|H| <= 2^32``: over 512 coordinates
    the sums of ``H x`` and ``L x`` stay below ``2^61`` in magnitude, so int64 holds
    them exactly; the parts are combined in Python integers.
    """
    high = V >> 31
    low = V - (high << 31)
    out = [0] * V.shape[0]
    for lo in range(0, V.shape[1], 512):
        sh = np.einsum("cd,dc->c", high[:, lo:lo + 512], X[lo:lo + 512]).tolist()
        sl = np.einsum("cd,dc->c", low[:, lo:lo + 512], X[lo:lo + 512]).tolist()
        out = [o + (a << 31) + b for o, a, b in zip(out, sh, sl)]
    return out


def tie_point(head, t: int, j: int, x, p: int) -> tuple:
    """The exact integer point ``|v_p| x - sign(v_p) (v . x) e_p`` (``v = z_t - z_j``),
    primitive: ``v . x' = 0``, and close to the direction of ``x`` when ``v . x`` is
    small against ``|v_p|``. Its entries are those of :func:`tie_point_parts`.
    """
    scale, xs, top = tie_point_parts(head, t, j, x, p)
    point = [scale * a for a in xs.tolist()]
    point[p] = top
    return tuple(point)


def tie_dots(head, sources: list, block: int = 1024) -> list:
    """``v . x`` (``v = z_t - z_j``) exactly for each ``(t, j, x)`` of ``sources``
    whose ``x`` has entries of at most ``2^20`` on an int64 head, ``block`` products at
    a time (:func:`exact_dots`); None for the others (:func:`tie_point_parts` computes
    those itself)."""
    out: list = [None] * len(sources)
    if head.Zarr is None:
        return out
    for lo in range(0, len(sources), block):
        part = sources[lo:lo + block]
        X = np.array([np.asarray(x).astype(np.int64) for _, _, x in part],
                     dtype=np.int64).reshape(len(part), head.d)
        ok = np.flatnonzero(np.abs(X).max(axis=1, initial=0) <= 1 << 20)
        if not ok.size:
            continue
        t = np.array([part[r][0] for r in ok], dtype=np.intp)
        j = np.array([part[r][1] for r in ok], dtype=np.intp)
        V = head.Zarr[t] - head.Zarr[j]  # exact: |z| < 2^62
        for r, vx in zip(ok.tolist(), exact_dots(V, X[ok].T)):
            out[lo + r] = vx
    return out


def tie_point_parts(head, t: int, j: int, x, p: int,
                    vx: int | None = None) -> tuple[int, np.ndarray, int]:
    """``(s, y, top)``: the primitive point of :func:`tie_point` is ``s y`` (``y``
    int64, the short point reduced) except at ``p``, where it is ``top``; ``vx``, if
    given, is ``v . x`` (from :func:`tie_dots`).

    The gcd of the entries is ``gcd(|v_p| g, x'_p)`` with ``g`` the gcd of the ``x_c``,
    ``c != p`` (small integers: one numpy reduction), so the primitive point is
    ``(|v_p| g / gcd) (x_c / g)`` off ``p``: one product of Python integers per entry.
    """
    from math import gcd
    from operator import mul

    xs = np.asarray(x).astype(np.int64)
    if vx is None:
        if head.Zarr is not None and int(np.abs(xs).max(initial=0)) <= 1 << 20:
            v = head.Zarr[t] - head.Zarr[j]  # exact: |z| < 2^62
            vx = exact_dots(v[None, :], xs[:, None])[0]
        else:
            v = [a - b for a, b in zip(head.Z[t], head.Z[j])]
            vx = sum(map(mul, v, xs.tolist()))
    vp = int(head.Zarr[t, p]) - int(head.Zarr[j, p]) if head.Zarr is not None else \
        head.Z[t][p] - head.Z[j][p]
    scale = abs(vp)
    top = scale * int(xs[p]) - (vx if vp > 0 else -vx)
    rest = np.abs(np.delete(xs, p))
    g_rest = int(np.gcd.reduce(rest)) if rest.size else 0
    g = gcd(scale * g_rest, top)
    if g > 1:
        if g_rest:
            xs = xs // g_rest  # exact: g_rest divides every x_c, c != p
            scale = scale * g_rest // g  # an integer: g divides |v_p| g_rest
        top //= g
    return scale, xs, top


def _integer_columns(X: np.ndarray, bits: int) -> np.ndarray:
    """Each column scaled so that its largest entry is ``2^bits``, rounded to integers."""
    top = np.abs(X).max(axis=0)
    top[~(np.isfinite(top) & (top > 0))] = 1.0
    return np.rint(X * ((1 << bits) / top)[None, :])


def _step(F: np.ndarray, Y: np.ndarray, t: np.ndarray, rival: np.ndarray,
          excess: np.ndarray, V, precision) -> None:
    """Over-relaxed projections of the columns of ``Y`` onto the violated half-spaces
    ``(f_t - f_rival) . y >= 0`` (within the planes ``V[c] . y = 0`` when ``V`` is
    given), in place, each column rescaled to length 1.

    The projections are taken in the whitened metric ``<x, y> = x . C y`` (``precision``
    is ``C^-1``), in which the cloud of rows is round: the step along ``g = f_t - f_r``
    becomes a step along ``C^-1 g``, which is what makes the method converge on
    anisotropic heads.
    """
    g = F[t] - F[rival]
    h = g @ precision
    if V is not None:
        PV = V @ precision
        vv = np.sum(V * PV, axis=1)
        vv[vv == 0] = 1.0
        h -= PV * (np.sum(g * PV, axis=1) / vv)[:, None]
    gg = np.sum(g * h, axis=1)
    flat = ~(gg > 1e-24)
    gg[flat] = 1.0
    excess = np.where(flat, 0.0, excess)
    Y += (h * (RELAXATION * excess / gg)[:, None]).T
    norms = np.linalg.norm(Y, axis=0)
    good = np.isfinite(norms) & (norms > 0)
    Y[:, good] /= norms[good]


def screened_relaxation(head, labels, starts, *, partners=None, normals=None,
                        rounds: int = 60, bits: int = 16, progress=None,
                        patience: int | None = None):
    """Witnesses for ``labels[c]`` (or tie witnesses with ``partners[c]``), proved.

    ``starts(cols)`` gives the starting points of the columns ``cols`` (a ``d x len``
    array; called once per block, so that no ``d x m`` float array of all of them
    exists: a round keeps only their integer points, as int32).
    Returns ``(found, left, rivals)``: ``found`` maps a column to its witness (an argmax
    point as an int32 array, or for ties the pair ``(x, p)`` of :func:`tie_point`),
    every one proved by the screen of the module docstring or by the exact check;
    ``left`` maps each other column to its last float point, and ``rivals[c]`` lists
    the labels that beat column ``c`` on the way. Columns go in blocks sized by the
    head's memory budget. With ``patience``, the rounds stop early once that many
    rounds in a row after the first have proved no column: each round costs a product
    per open column, and on trained heads the columns still open after the first
    rounds stay open (PP-OCRv5: all 3,782 witnesses of a third of its labels, and all
    1,975 tie witnesses of 4,096 pairs, came in round 0; the 59 and 29 rounds after
    it cost 15 and 6.8 of 16 and 7.4 CPU seconds).
    """
    rows = head.float32_rows()
    labels = np.asarray(labels, dtype=np.intp)
    partners = None if partners is None else np.asarray(partners, dtype=np.intp)
    m = labels.size
    found: dict = {}
    rivals: list[list[int]] = [[] for _ in range(m)]
    left: dict = {}
    active = np.arange(m)
    step = head.budget.columns(12 * head.n, limit=2048)
    idle = 0  # rounds after the first in a row that proved nothing
    for round_ in range(rounds):  # noqa: B007 (round 0 reads the starts)
        if not active.size or (patience is not None and idle >= patience):
            break
        # The float32 screen of every active column, block by block; then the float64
        # check of the columns it leaves unsure, all of the round's together (a float64
        # product of few columns costs nearly as much as one of hundreds).
        Xi = np.empty((head.d, active.size), dtype=np.int32)  # |entries| <= 2^bits
        proved = np.zeros(active.size, dtype=bool)
        floatwin, rival = proved.copy(), np.zeros(active.size, dtype=np.intp)
        excess, scale = np.zeros(active.size), np.zeros(active.size)
        tie = None
        for lo in range(0, active.size, step):
            cols = active[lo:lo + step]
            here = slice(lo, lo + cols.size)
            X = starts(cols) if round_ == 0 else np.stack([left[c] for c in cols], axis=1)
            Xb = _integer_columns(X, bits)
            Xi[:, here] = Xb
            S = Xb.T.astype(np.float32) @ rows.F.T  # one row per column: see _screen
            if partners is None:
                result = _screen(rows, S, Xb, labels[cols])
            else:
                block_tie = _tie_parameters(head, rows, Xb, labels[cols], partners[cols])
                tie = block_tie if tie is None else tuple(
                    np.concatenate([a, b]) for a, b in zip(tie, block_tie))
                result = _screen(rows, S, Xb, labels[cols], partners[cols], *block_tie[1:])
            del S
            for array, values in zip((proved, floatwin, rival, excess, scale), result):
                array[here] = values
        t = labels[active]
        unsure = np.flatnonzero(floatwin & ~proved)
        if unsure.size:
            proved[unsure] = _exact_check(head, Xi, t, unsure, partners, active, tie)
        for c in np.flatnonzero(proved):
            col = int(active[c])
            left.pop(col, None)
            if partners is None:
                found[col] = Xi[:, c].copy()
            else:
                found[col] = (Xi[:, c].copy(), int(tie[0][c]))
        lost = np.flatnonzero(~proved)
        if lost.size:
            for c in lost:
                rivals[int(active[c])].append(int(rival[c]))
            # A small push keeps exact ties (excess 0) from stalling.
            push = np.maximum(excess[lost], 0.0) + 1e-9 * scale[lost]
            Y = Xi[:, lost].astype(np.float64)
            lengths = np.linalg.norm(Y, axis=0)
            Y[:, lengths > 0] /= lengths[lengths > 0]  # a point rounded to 0 stays 0
            _step(head.F, Y, t[lost], rival[lost], push,
                  None if normals is None else normals[active[lost]],
                  head.mahalanobis().precision)
            for r, c in enumerate(active[lost]):
                left[int(c)] = Y[:, r]
        if progress is not None and np.any(proved):
            progress.update(int(np.count_nonzero(proved)))
        idle = idle + 1 if round_ > 0 and not np.any(proved) else 0
        active = active[lost]
    return found, left, [list(dict.fromkeys(r)) for r in rivals]


def _exact_check(head, Xi, t, unsure, partners, cols, tie) -> np.ndarray:
    """The exact verdict on the columns ``unsure`` that the float32 bound could not
    confirm: :func:`_float64_check`, in blocks sized by the budget; columns of equal rows
    (no hyperplane) by :meth:`verify.analyze.head.ExactHead.wins`."""
    verdict = np.zeros(len(unsure), dtype=bool)
    j = None if partners is None else partners[cols]
    plain = (np.ones(len(unsure), dtype=bool) if j is None
             else np.isfinite(tie[1][unsure]))
    take = np.flatnonzero(plain)
    # One n x step float64 product at a time; 256 columns keep it efficient and the
    # peak at 0.1 GB for 50,000 labels whatever the budget.
    step = head.budget.columns(10 * head.n, limit=FLOAT64_CHECK_COLUMNS)
    for lo in range(0, take.size, step):
        rs = take[lo:lo + step]
        cs = unsure[rs]
        verdict[rs] = _float64_check(head, Xi[:, cs], t[cs], None if j is None else
                                     (j[cs], tie[0][cs], tie[1][cs]))
    whole = np.flatnonzero(~plain)
    if whole.size:
        sub = unsure[whole]
        points = [tie_point(head, int(t[c]), int(j[c]), Xi[:, c], int(tie[0][c]))
                  for c in sub]
        verdict[whole] = head.wins(points, [int(t[c]) for c in sub],
                                   partners=[int(j[c]) for c in sub])
    return verdict


def _float64_check(head, X: np.ndarray, t: np.ndarray, tie) -> np.ndarray:
    """Exactly: is each column of ``X`` (integers, ``|x_c| <= 2^20``) a witness for
    label ``t[c]`` (``tie`` None), or, with ``tie = (j, p, gamma)``, is the exact point
    ``x' = |v_p| x - sign(v_p) (v . x) e_p`` of :func:`tie_point` a tie witness for
    ``t[c]`` and ``j[c]``?

    One float64 product ``F Y`` for the block. For argmax columns ``Y = X``, exact in
    float64. For tie columns the margins at ``x'`` are ``|v_p|`` times those at
    ``xi = x - gamma* e_p`` (``gamma* = sign(v_p) (v . x) / |v_p|``, a rational), and
    ``Y = X`` with ``Y_p = fl(x_p - gamma)``, ``gamma = fl(gamma*)`` within ``3.2 u |gamma|``
    (``u = 2^-53``: ``v . x`` and ``|v_p|`` rounded once, one division). So
    ``|Y_p - xi_p| <= delta = 2 u (|Y_p| + 2 |gamma|)`` and ``|(omega_t - omega_k) . (Y -
    xi)| <= (|f_t| + |f_k|) delta (1 + u)``. With the product bound ``R |f_k| + A`` of
    :func:`rounding_error_bounds` (float64 unit roundoff; the argument of
    :func:`verify.analyze.head.product_error_bounds`), the float margin ``(F Y)_t -
    (F Y)_k`` is within ``(R + delta) (|f_t| + |f_k|) + 2 A`` of the exact margin at
    ``xi`` (times ``COMPARISON_SLACK`` for the rounding of the bound and of the
    difference). A margin above that is positive, one below minus that negative (no
    witness); the rows left are computed in integers (:func:`_exact_margins`). Row ``j``
    ties with ``t`` at ``x'`` for every ``x`` (see :func:`_exact_margins`).
    """
    n = head.n
    m = X.shape[1]
    cols = np.arange(m)
    Y = X.astype(np.float64)
    delta = np.zeros(m)
    if tie is not None:
        j, p, gamma = tie
        Y[p, cols] = X[p, cols] - gamma
        delta = 2 * FLOAT64_UNIT * (np.abs(Y[p, cols]) + 2 * np.abs(gamma))
    R, A = rounding_error_bounds(Y, head.d, unit=FLOAT64_UNIT, tiny=FLOAT64_TINY,
                                 absolute_error=head._absolute_error)
    S = head.F @ Y
    norms = head.row_norms()
    # First with the largest row norm in the bound, by one maximum per column (the
    # bound row by row costs several passes over the n x m block): nearly every
    # column is settled by it; the others take the bound row by row.
    own = S[t, cols]
    S[t, cols] = -np.inf
    if tie is not None:
        S[j, cols] = -np.inf  # tied by construction
    margin = own - S.max(axis=0)
    bound = COMPARISON_SLACK * ((float(norms.max(initial=0.0)) + norms[t]) * (R + delta)
                                + 2 * A)
    verdict = margin > bound
    for c in np.flatnonzero(~verdict & ~(margin < -bound)):
        B = COMPARISON_SLACK * (norms * (R[c] + delta[c]) + norms[t[c]] * (R[c] + delta[c])
                                + 2 * A[c])
        D = own[c] - S[:, c]  # +inf at t (and j)
        if np.any(D < -B):
            continue
        rows = np.flatnonzero(~(D > B))
        verdict[c] = _exact_margins(head, X[:, c], int(t[c]), rows, None if tie is None
                                    else (int(tie[0][c]), int(tie[1][c])))
    return verdict


def _exact_margins(head, x: np.ndarray, t: int, rows: np.ndarray, tie) -> bool:
    """Exactly, in integers: is the margin of label ``t`` over every row of ``rows``
    positive (``tie = (j, p)`` or None, as in :func:`_float64_check`)?

    For tie columns ``(z_t - z_k) . x' = |v_p| (z_t . x - z_k . x) - sign(v_p) (v . x)
    (z_tp - z_kp)`` with ``v . x = z_t . x - z_j . x``. At ``k = j`` this is
    ``|v_p| (v . x) - sign(v_p) (v . x) v_p = 0`` for every ``x``: ``t`` and ``j`` tie at
    ``x'`` by construction, so with the margins over the other rows positive ``x'`` is a
    tie witness.
    """
    ks = [t] + ([tie[0]] if tie is not None else []) + [int(k) for k in rows]
    dots = exact_row_dots(head.Zarr[ks], x)
    top = dots[0]
    if tie is None:
        return all(top > s for s in dots[1:])
    j, p = tie
    vp = int(head.Zarr[t, p]) - int(head.Zarr[j, p])
    if vp == 0:
        return False  # equal rows (p is the index of the largest |v_p|): no hyperplane
    vx = top - dots[1]
    scale, shift = abs(vp), (vx if vp > 0 else -vx)
    ztp = int(head.Zarr[t, p])
    column = head.Zarr[ks[2:], p].tolist()
    return all(scale * (top - s) - shift * (ztp - zkp) > 0
               for s, zkp in zip(dots[2:], column))


def exact_row_dots(Z: np.ndarray, x: np.ndarray) -> list[int]:
    """``Z[k] . x`` exactly for every row of the int64 matrix ``Z`` (entries below
    ``2^63``) and an integer vector ``x`` (entries at most ``2^20``), as Python integers.

    The limbs of :func:`exact_dots`: ``Z = 2^31 H + L`` with ``0 <= L < 2^31``, ``|H| <=
    2^32``; over 512 coordinates the sums of ``H x`` and ``L x`` stay below ``2^61``.
    """
    x = np.asarray(x).astype(np.int64)
    high = Z >> 31
    low = Z - (high << 31)
    out = [0] * Z.shape[0]
    for lo in range(0, Z.shape[1], 512):
        sh = (high[:, lo:lo + 512] @ x[lo:lo + 512]).tolist()
        sl = (low[:, lo:lo + 512] @ x[lo:lo + 512]).tolist()
        out = [o + (a << 31) + b for o, a, b in zip(out, sh, sl)]
    return out
