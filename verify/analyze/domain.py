r"""Argmaxable labels and tie pairs of ``W x + b`` over a domain of inputs, exactly.

A real network does not produce every ``x`` in ``R^d``: after a ReLU the features are
``x >= 0``, after a ReLU6 they lie in ``[0, 6]^d``. This module decides the questions of
:mod:`verify.analyze.argmax` and :mod:`verify.analyze.ties` for inputs in a
:class:`Domain`: ``all`` (``R^d``), ``nonneg`` (``x >= 0``) or ``box:L,U``
(``L <= x_j <= U`` for every ``j``, ``L < U``). The proofs are in ``docs/analyze.md``
(section "Domains of inputs").

Mathematics
-----------
Write ``l_k(x) = w_k . x + b_k`` (``b = 0`` without a bias) and, for ``g`` in ``R^d``,
``h(g) = sup_{x in D} g . x``, the *support function* of the domain ``D``:

* ``all``: ``h(g) = 0`` if ``g = 0``, else ``+inf``;
* ``nonneg``: ``h(g) = 0`` if ``g <= 0`` coordinatewise, else ``+inf``;
* ``box:L,U``: ``h(g) = sum_j max(L g_j, U g_j)``.

**Argmaxable.** Label ``i`` is the strict argmax at some ``x`` in ``D`` iff it is so at
some ``x`` in the interior of ``D`` (the set where ``i`` wins is open, and ``D`` is the
closure of its interior). Homogenise ``x = y / s``, ``s > 0``: this is strict
feasibility of the rows ``(w_i - w_k, b_i - b_k)`` (``k != i``), ``(0, 1)`` and the
domain rows (``nonneg``: ``(e_j, 0)``; ``box``: ``(e_j, -L)`` and ``(-e_j, U)``). By
Gordan's theorem exactly one of

* a **witness** ``x`` in ``D`` with ``l_i(x) > l_k(x)`` for every ``k != i``, or
* **convex weights** ``lambda`` on the labels ``k != i`` with
  ``h(w_i - sum lambda_k w_k) + b_i - sum lambda_k b_k <= 0``

exists; for ``nonneg`` the second is Ville's ``sum lambda_k w_k >= w_i`` and
``sum lambda_k b_k >= b_i``. Such weights give ``l_i(x) <= sum lambda_k l_k(x)`` on
``D``, so ``i`` is never strictly on top there.

**Ties.** Labels ``i, j`` tie on top at ``x`` in ``D`` when ``l_i(x) = l_j(x) > l_k(x)``
for the other ``k`` (``D`` closed: a tie on the boundary counts). By Motzkin's
transposition theorem (strict rows: the other labels and ``s > 0``; the equation
``l_i = l_j``; the domain rows non-strict) exactly one of

* a **tie witness** ``x`` in ``D``, or
* a **no-tie certificate**: ``y_k >= 0`` (``k != i, j``) and ``t`` with
  ``tau = h(G) + sigma <= 0``, where ``G = sum y_k (w_i - w_k) + t (w_i - w_j)`` and
  ``sigma = sum y_k (b_i - b_k) + t (b_i - b_j)``, and ``y != 0`` or ``tau < 0``

exists. For ``all`` these are the certificates of :mod:`verify.analyze.bias`.

Algorithm
---------
Here, the reference method: every label by
:func:`verify.lp.feasibility.strict_feasibility` on all its rows; every pair by the
exact simplex method of :func:`mixed_feasibility` (phase 1 over ``Q``, Bland's rule),
after a no-tie certificate read off a label's convex weights where there is one. All
evidence is checked exactly by the ``is_domain_*`` functions before it is returned.
``analyze --domain`` decides heads of any size by exact cutting planes over the rivals
a float LP proposes (:mod:`verify.analyze.cutting_planes`), with the same checks and
the same evidence; the tests hold the two against each other.

Example
-------
>>> A = argmaxable_in_domain([[2, -1], [-1, 2], [0, 0]], "nonneg")
>>> A.argmaxable, A.unargmaxable  # on x >= 0, label 2 never wins
([0, 1], [2])
>>> A.evidence[2].multipliers  # 2/3 w_0 + 1/3 w_1 = (1, 0) >= w_2 coordinatewise
((0, 2/3), (1, 1/3))
>>> argmaxable_in_domain([[2, -1], [-1, 2], [0, 0]], "all").unargmaxable  # x = (-1, -1)
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm
from typing import Sequence

from flint import fmpq

from verify.analyze.argmax import ArgmaxAnalysis
from verify.analyze.ties import NoTieCertificate, TieAnalysis, TieWitness
from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility

__all__ = [
    "Domain",
    "argmaxable_in_domain",
    "is_domain_argmax_certificate",
    "is_domain_argmax_witness",
    "is_domain_no_tie_certificate",
    "is_domain_tie_witness",
    "mixed_feasibility",
    "parse_domain",
    "tie_pairs_in_domain",
]

_NUMBER = re.compile(r"[+-]?(\d+/\d+|\d+(\.\d*)?|\.\d+)")


# --- the domain ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Domain:
    """``kind`` ``"all"``, ``"nonneg"`` or ``"box"`` (with rationals ``lower < upper``)."""

    kind: str = "all"
    lower: Fraction | None = None
    upper: Fraction | None = None

    def __str__(self) -> str:
        if self.kind == "box":
            return f"box:{_rational(self.lower)},{_rational(self.upper)}"
        return self.kind

    @property
    def is_all(self) -> bool:
        return self.kind == "all"

    def describe(self) -> str:
        """The domain in words: ``x in R^d``, ``x >= 0``, ``L <= x_j <= U``."""
        if self.kind == "nonneg":
            return "x >= 0"
        if self.kind == "box":
            return f"{_rational(self.lower)} <= x_j <= {_rational(self.upper)}"
        return "x in R^d"

    def contains(self, x: Sequence) -> bool:
        """Whether the point ``x`` (exact numbers) lies in the (closed) domain."""
        if self.kind == "nonneg":
            return all(_q(v) >= 0 for v in x)
        if self.kind == "box":
            lo, hi = _q(self.lower), _q(self.upper)
            return all(lo <= _q(v) <= hi for v in x)
        return True

    def support(self, g: Sequence):
        """``sup_{x in D} g . x`` exactly, or None for ``+inf``."""
        g = [_q(v) for v in g]
        if self.kind == "box":
            lo, hi = _q(self.lower), _q(self.upper)
            return sum((max(lo * v, hi * v) for v in g), fmpq(0))
        if self.kind == "nonneg":
            return fmpq(0) if all(v <= 0 for v in g) else None
        return fmpq(0) if all(v == 0 for v in g) else None

    def rows(self, d: int) -> list[list[int]]:
        """The domain rows of the homogeneous input ``(y, s)``, ``x = y / s``, as
        integers: ``nonneg``: ``y_j``; ``box``: ``y_j - L s`` and ``U s - y_j``."""
        out = []
        if self.kind == "nonneg":
            for j in range(d):
                out.append([int(c == j) for c in range(d)] + [0])
        elif self.kind == "box":
            for bound, sign in ((self.lower, 1), (self.upper, -1)):
                p, q = bound.numerator, bound.denominator
                for j in range(d):
                    out.append([sign * q * int(c == j) for c in range(d)] + [-sign * p])
        return out


def _q(x) -> fmpq:
    if isinstance(x, fmpq):
        return x
    return fmpq(x.numerator, x.denominator) if isinstance(x, Fraction) else fmpq(x)


def _rational(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _parse_number(text: str) -> Fraction:
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"not a number: {text!r} (integers, decimals or p/q)")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise ValueError(f"a zero denominator: {text!r}") from None


def parse_domain(text) -> Domain:
    """``all``, ``nonneg`` or ``box:L,U`` (``L < U``: integers, decimals or ``p/q``,
    read exactly: ``box:-1/2,3.5``) as a :class:`Domain`; :class:`ValueError` else.
    A :class:`Domain` or None (``all``) is returned as it is."""
    if text is None:
        return Domain()
    if isinstance(text, Domain):
        return text
    if not isinstance(text, str):
        raise ValueError(f"a domain is 'all', 'nonneg' or 'box:L,U', not {text!r}")
    s = text.strip()
    if s in ("all", "nonneg"):
        return Domain(s)
    if s.startswith("box:"):
        parts = s[4:].split(",")
        if len(parts) != 2:
            raise ValueError(f"expected box:L,U (two bounds), got {text!r}")
        lo, hi = (_parse_number(p.strip()) for p in parts)
        if not lo < hi:
            raise ValueError(f"box:L,U needs L < U, got {text!r}")
        return Domain("box", lo, hi)
    raise ValueError(f"expected all, nonneg or box:L,U, got {text!r}")


# --- exact checks ---------------------------------------------------------------------------

def _logit(W, b, k: int, x) -> fmpq:
    return sum((_q(w) * v for w, v in zip(W[k], x)), fmpq(0)) + _q(b[k])


def _bias(W, b):
    return [0] * len(W) if b is None else b


def is_domain_argmax_witness(W, b, i: int, x: Sequence, domain) -> bool:
    """True iff ``x`` is in the domain and ``l_i(x) > l_k(x)`` for every ``k != i``."""
    domain, b = parse_domain(domain), _bias(W, b)
    if len(x) != len(W[i]) or not domain.contains(x):
        return False
    top = _logit(W, b, i, x)
    return all(_logit(W, b, k, x) < top for k in range(len(W)) if k != i)


def is_domain_tie_witness(W, b, i: int, j: int, x: Sequence, domain) -> bool:
    """True iff ``x`` is in the domain and ``l_i(x) = l_j(x) > l_k(x)`` for the others."""
    domain, b = parse_domain(domain), _bias(W, b)
    if len(x) != len(W[i]) or not domain.contains(x):
        return False
    top = _logit(W, b, i, x)
    if _logit(W, b, j, x) != top:
        return False
    return all(_logit(W, b, k, x) < top for k in range(len(W)) if k not in (i, j))


def _affine(W, b, i: int, terms) -> tuple[list, fmpq]:
    """``(G, sigma)`` of ``sum_k c_k (l_i - l_k)`` for ``terms`` pairs ``(k, c_k)``."""
    d = len(W[i])
    G = [fmpq(0)] * d
    sigma = fmpq(0)
    for k, c in terms:
        c = _q(c)
        for col in range(d):
            G[col] += c * (_q(W[i][col]) - _q(W[k][col]))
        sigma += c * (_q(b[i]) - _q(b[k]))
    return G, sigma


def is_domain_argmax_certificate(W, b, i: int, weights, domain) -> bool:
    """True iff the weights (pairs ``(k, lambda_k)``, ``k != i``, ``lambda >= 0`` not all
    0) give ``h(w_i - sum lambda_k w_k) + b_i - sum lambda_k b_k <= 0`` (any positive
    multiple of convex weights will do: the condition is homogeneous)."""
    domain, b = parse_domain(domain), _bias(W, b)
    pairs = list(weights)
    if not pairs or any(k == i or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs) or all(y == 0 for _, y in pairs):
        return False
    G, sigma = _affine(W, b, i, pairs)
    h = domain.support(G)
    return h is not None and h + sigma <= 0


def is_domain_no_tie_certificate(W, b, i: int, j: int, cert, domain) -> bool:
    """True iff ``cert`` (``y`` on labels ``k != i, j``, ``y >= 0``, and ``t``) has
    ``tau = h(G) + sigma <= 0`` and (``y != 0`` or ``tau < 0``) (module docstring)."""
    domain, b = parse_domain(domain), _bias(W, b)
    pairs = list(cert.multipliers)
    if any(k in (i, j) or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs):
        return False
    G, sigma = _affine(W, b, i, pairs + [(j, cert.tie)])
    h = domain.support(G)
    if h is None or h + sigma > 0:
        return False
    return h + sigma < 0 or any(y != 0 for _, y in pairs)


# --- an exact simplex method for mixed systems ----------------------------------------------

def mixed_feasibility(strict, weak=(), equal=()):
    """Decide ``S z > 0, N z >= 0, E z = 0`` exactly (``S`` not empty).

    Returns ``("point", z)`` with ``z`` primitive integers satisfying the system, or
    ``("multipliers", u, v, w)``: ``u >= 0`` with ``sum u = 1``, ``v >= 0``, ``w`` free,
    ``u S + v N + w E = 0`` (Motzkin's transposition theorem; either answer is
    checked here). Phase 1 of the simplex method over Q with Bland's rule on
    ``{[S^T N^T E^T -E^T; 1 0 0 0] (u, v, w+, w-) = (0, 1)}``; at a positive optimum
    the negated duals are the point (Farkas).
    """
    S = [[_q(v) for v in row] for row in strict]
    N = [[_q(v) for v in row] for row in weak]
    E = [[_q(v) for v in row] for row in equal]
    if not S:
        raise ValueError("mixed_feasibility needs at least one strict row")
    D = len(S[0])
    cols = [(r, 1) for r in S] + [(r, 0) for r in N] + [(r, 0) for r in E] \
        + [([-v for v in r], 0) for r in E]
    nx = len(cols)
    m = D + 1
    zero, one = fmpq(0), fmpq(1)
    T = []
    for c in range(m):
        row = [(col[c] if c < D else fmpq(flag)) for col, flag in cols]
        row += [one if a == c else zero for a in range(m)]
        row.append(one if c == D else zero)
        T.append(row)
    basis = [nx + a for a in range(m)]
    width = nx + m
    reduced = [(zero if j < nx else one) - sum((T[c][j] for c in range(m)), zero)
               for j in range(width)]
    while True:
        e = next((j for j in range(width) if reduced[j] < 0), None)
        if e is None:
            break
        leave = None
        for r in range(m):
            a = T[r][e]
            if a > 0:
                if leave is None:
                    leave = r
                    continue
                ratio, best = T[r][-1] / a, T[leave][-1] / T[leave][e]
                if ratio < best or (ratio == best and basis[r] < basis[leave]):
                    leave = r
        if leave is None:  # cannot happen in phase 1 (the objective is bounded below)
            raise AssertionError("internal error: unbounded phase 1")
        p = T[leave][e]
        T[leave] = [v / p for v in T[leave]]
        pivot = T[leave]
        for r in range(m):
            if r != leave and T[r][e] != 0:
                f = T[r][e]
                T[r] = [a - f * b for a, b in zip(T[r], pivot)]
        f = reduced[e]
        reduced = [a - f * b for a, b in zip(reduced, pivot[:width])]
        basis[leave] = e
    objective = sum((T[r][-1] for r in range(m) if basis[r] >= nx), zero)
    if objective == 0:
        x = [zero] * nx
        for r in range(m):
            if basis[r] < nx:
                x[basis[r]] = T[r][-1]
        ns, nn, ne = len(S), len(N), len(E)
        u, v = x[:ns], x[ns:ns + nn]
        w = [a - b for a, b in zip(x[ns + nn:ns + nn + ne], x[ns + nn + ne:])]
        total = [sum((c * row[k] for c, row in zip(u + v + w, S + N + E)), zero)
                 for k in range(D)]
        if any(total) or sum(u, zero) != 1 or any(a < 0 for a in u + v):
            raise AssertionError("internal error: invalid Motzkin multipliers")
        return ("multipliers", u, v, w)
    # pi_a = c_a - reduced_a = 1 - reduced_a; the point is -pi on the first D rows.
    z = [reduced[nx + c] - one for c in range(D)]
    den = lcm(1, *(int(a.q) for a in z))
    ints = [int(a.p) * (den // int(a.q)) for a in z]
    g = gcd(*ints) or 1
    ints = [a // g for a in ints]
    dot = lambda row: sum(a * b for a, b in zip(row, ints))  # noqa: E731
    if not (all(dot(r) > 0 for r in S) and all(dot(r) >= 0 for r in N)
            and all(dot(r) == 0 for r in E)):
        raise AssertionError("internal error: invalid point of a mixed system")
    return ("point", ints)


# --- the head -------------------------------------------------------------------------------

def _exact_rows(W) -> list[list[fmpq]]:
    from verify.analyze.bias import _exact_rows as rows_of
    from verify.numbers.sqrt_sum import SqrtSum

    if getattr(W, "dtype", None) is None:
        W = [list(row) for row in W]
        for row in W:
            for x in row:
                if isinstance(x, SqrtSum):
                    if not x.is_rational():
                        raise ValueError("--domain analyses rational heads (binary floats, "
                                         "integers, fractions); this one has square roots")
        W = [[x.to_rational() if isinstance(x, SqrtSum) else x for x in row] for row in W]
    rows = rows_of(W)
    if not rows or not rows[0]:
        raise ValueError("the matrix needs at least one row and one column")
    if any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("ragged rows")
    return rows


def _exact_bias(b, n: int) -> list[fmpq]:
    if b is None:
        return [fmpq(0)] * n
    from verify.numbers.rational import exact_from_float
    from verify.linalg.exact import to_fmpq

    values = b.tolist() if hasattr(b, "tolist") else list(b)
    if len(values) != n:
        raise ValueError(f"the bias has {len(values)} entries for {n} labels")
    return [exact_from_float(v) if isinstance(v, float) else to_fmpq(v) for v in values]


class _Lifted:
    """The exact head ``(W, b)`` and its primitive integer lifted rows ``c (w_k, b_k)``."""

    def __init__(self, W, b, domain: Domain):
        self.W = _exact_rows(W)
        self.n, self.d = len(self.W), len(self.W[0])
        self.b = _exact_bias(b, self.n)
        self.domain = domain
        rows = [row + [bk] for row, bk in zip(self.W, self.b)]
        den = lcm(1, *(int(v.q) for row in rows for v in row))
        ints = [[int(v.p) * (den // int(v.q)) for v in row] for row in rows]
        g = gcd(*(v for row in ints for v in row)) or 1
        self.L = [[v // g for v in row] for row in ints]
        self.domain_rows = domain.rows(self.d)
        self.positive = [0] * self.d + [1]  # s > 0

    def difference(self, i: int, k: int) -> list[int]:
        return [a - b for a, b in zip(self.L[i], self.L[k])]

    def label(self, i: int):
        """A :class:`~verify.analyze.bias.LiftedWitness` or convex weights for ``i``."""
        from verify.analyze.bias import LiftedWitness

        others = [k for k in range(self.n) if k != i]
        rows = [self.difference(i, k) for k in others] + [self.positive] + self.domain_rows
        ev = strict_feasibility(rows)
        if isinstance(ev, Witness):
            e = LiftedWitness(_primitive(ev.point))
            ok = is_domain_argmax_witness(self.W, self.b, i, e.point, self.domain)
        else:
            y = [(others[r], fmpq(v)) for r, v in ev.multipliers if r < len(others) and v != 0]
            total = sum((v for _, v in y), fmpq(0))
            e = GordanCertificate(multipliers=tuple(sorted((k, v / total) for k, v in y)))
            ok = is_domain_argmax_certificate(self.W, self.b, i, e.multipliers, self.domain)
        if not ok:
            raise AssertionError(f"internal error: the evidence of label {i} does not hold")
        return e

    def pair(self, i: int, j: int, argmax: ArgmaxAnalysis):
        from verify.analyze.bias import LiftedTieWitness

        for cert in self._derived(i, j, argmax):
            if is_domain_no_tie_certificate(self.W, self.b, i, j, cert, self.domain):
                return cert
        others = [k for k in range(self.n) if k not in (i, j)]
        strict = [self.difference(i, k) for k in others] + [self.positive]
        answer = mixed_feasibility(strict, self.domain_rows, [self.difference(i, j)])
        if answer[0] == "point":
            e = LiftedTieWitness(TieWitness(point=tuple(fmpq(v) for v in answer[1])))
            ok = is_domain_tie_witness(self.W, self.b, i, j, e.point, self.domain)
        else:
            u, t = answer[1], answer[3][0]
            y = [(others[r], v) for r, v in enumerate(u[:len(others)]) if v != 0]
            total = sum((v for _, v in y), fmpq(0))
            scale = total if total != 0 else abs(t)
            e = NoTieCertificate(multipliers=tuple((k, v / scale) for k, v in y),
                                 tie=t / scale)
            ok = is_domain_no_tie_certificate(self.W, self.b, i, j, e, self.domain)
        if not ok:
            raise AssertionError(f"internal error: the evidence of ({i}, {j}) does not hold")
        return e

    @staticmethod
    def _derived(i: int, j: int, argmax: ArgmaxAnalysis):
        """No-tie candidates from the convex weights of ``i`` or of ``j``: with
        ``l_i <= sum lambda_k l_k`` on the domain, ``(y, t) = (lambda without j,
        lambda_j)``; with ``l_j <= sum mu_k l_k``, ``(y, t) = (mu without i, -1)``."""
        a, b = argmax.evidence[i], argmax.evidence[j]
        if isinstance(a, GordanCertificate):
            y = tuple((k, v) for k, v in a.multipliers if k != j)
            if y:
                t = sum((v for k, v in a.multipliers if k == j), fmpq(0))
                yield NoTieCertificate(multipliers=y, tie=t)
        if isinstance(b, GordanCertificate):
            y = tuple((k, v) for k, v in b.multipliers if k != i)
            if y:
                yield NoTieCertificate(multipliers=y, tie=fmpq(-1))


def _primitive(point) -> tuple:
    q = [_q(v) for v in point]
    den = lcm(1, *(int(v.q) for v in q))
    ints = [int(v.p) * (den // int(v.q)) for v in q]
    g = gcd(*ints) or 1
    return tuple(a // g for a in ints)


def _lifted(W, b, domain) -> _Lifted:
    return W if isinstance(W, _Lifted) else _Lifted(W, b, parse_domain(domain))


def argmaxable_in_domain(W, domain, bias=None, *, progress=None) -> ArgmaxAnalysis:
    """Decide every label of ``W x + b`` over ``domain`` (module docstring).

    ``evidence[i]``: a :class:`~verify.analyze.bias.LiftedWitness` (its ``point`` an
    input in the domain), or a :class:`GordanCertificate` of convex weights
    ``(k, lambda_k)`` with ``h(w_i - sum lambda_k w_k) + b_i - sum lambda_k b_k <= 0``.
    """
    head = _lifted(W, bias, domain)
    evidence = []
    for i in range(head.n):
        evidence.append(head.label(i))
        if progress is not None:
            progress.update(1)
    return ArgmaxAnalysis(n=head.n, d=head.d, evidence=tuple(evidence))


def tie_pairs_in_domain(W, domain, bias=None, argmax: ArgmaxAnalysis | None = None, *,
                        pairs=None, progress=None) -> TieAnalysis:
    """Decide which pairs of ``W x + b`` can tie on top in ``domain`` (all pairs by
    default): a :class:`~verify.analyze.bias.LiftedTieWitness` or a
    :class:`NoTieCertificate` of the domain's form (module docstring) for each."""
    head = _lifted(W, bias, domain)
    if argmax is None:
        argmax = argmaxable_in_domain(head, domain)
    n = head.n
    wanted = [(i, j) for i in range(n) for j in range(i + 1, n)] if pairs is None else \
        sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j})
    evidence = {}
    for i, j in wanted:
        evidence[(i, j)] = head.pair(i, j, argmax)
        if progress is not None:
            progress.update(1)
    return TieAnalysis(n=n, evidence=evidence, complete=len(evidence) == n * (n - 1) // 2)
