"""Carathéodory reduction of Gordan certificates, on random systems with rational rows.

``reduce_certificate`` takes any certificate ``y >= 0``, ``y != 0``, ``y^T A = 0`` and
must return one on at most ``rank(A) + 1`` rows inside the original support. The
systems are built so that a certificate is known (a last row minus a non-negative
combination of the others); the answer is checked with ``fractions.Fraction``, and the
rational null space it relies on is checked against its definition.
"""

from __future__ import annotations

from fractions import Fraction

from flint import fmpq, fmpq_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.linalg.exact import rank
from verify.lp.feasibility import (
    GordanCertificate,
    _rational_nullspace,
    reduce_certificate,
)

small = st.integers(-4, 4)
denominators = st.integers(1, 6)


@st.composite
def certified_systems(draw):
    """Rows ``a_i / d_i`` (rational) and a certificate on them with a large support."""
    k = draw(st.integers(1, 4))
    m = draw(st.integers(1, 7))
    rows = [[draw(small) for _ in range(k)] for _ in range(m)]
    weights = [draw(st.integers(0, 3)) for _ in range(m)]
    if not any(weights):
        weights[0] = 1
    last = [-sum(w * row[j] for w, row in zip(weights, rows)) for j in range(k)]
    rows.append(last)
    weights.append(1)
    scales = [draw(denominators) for _ in rows]
    scaled = [[Fraction(a, d) for a in row] for row, d in zip(rows, scales)]
    # y_i a_i = (y_i d_i) (a_i / d_i)
    multipliers = tuple((i, fmpq(w * d)) for i, (w, d) in enumerate(zip(weights, scales))
                        if w)
    return scaled, GordanCertificate(multipliers=multipliers)


def is_certificate(rows, multipliers) -> bool:
    ys = [(i, Fraction(int(y.p), int(y.q))) for i, y in multipliers]
    if not ys or any(y < 0 for _, y in ys) or all(y == 0 for _, y in ys):
        return False
    return all(sum(y * rows[i][j] for i, y in ys) == 0 for j in range(len(rows[0])))


@settings(max_examples=150, deadline=None)
@given(certified_systems())
def test_reduction_keeps_a_certificate_on_at_most_rank_plus_one_rows(system):
    rows, cert = system
    assert is_certificate(rows, cert.multipliers)
    small_cert = reduce_certificate(rows, cert)
    assert is_certificate(rows, small_cert.multipliers)
    support = [i for i, _ in small_cert.multipliers]
    assert len(support) == len(set(support))
    assert set(support) <= {i for i, _ in cert.multipliers}
    assert all(y != 0 for _, y in small_cert.multipliers)
    assert len(support) <= rank([[fmpq(a.numerator, a.denominator) for a in row]
                                 for row in rows]) + 1
    # The support is minimal: its rows have a one-dimensional space of dependencies.
    sub = fmpq_mat([[fmpq(rows[i][j].numerator, rows[i][j].denominator) for i in support]
                    for j in range(len(rows[0]))])
    assert len(_rational_nullspace(sub)) == 1


def test_reduction_of_the_positive_and_negative_axes():
    # y = (1, 1, 1, 1) on e1, -e1, e2, -e2 reduces to one opposite pair.
    rows = [[1, 0], [-1, 0], [0, 1], [0, -1]]
    cert = GordanCertificate(multipliers=tuple((i, fmpq(1)) for i in range(4)))
    small_cert = reduce_certificate(rows, cert)
    assert is_certificate([[Fraction(a) for a in r] for r in rows], small_cert.multipliers)
    assert sorted(i for i, _ in small_cert.multipliers) in ([0, 1], [2, 3])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_rational_nullspace_is_a_basis_of_the_null_space(m, n, data):
    entries = [[Fraction(data.draw(small), data.draw(denominators)) for _ in range(n)]
               for _ in range(m)]
    mat = fmpq_mat([[fmpq(a.numerator, a.denominator) for a in row] for row in entries])
    basis = _rational_nullspace(mat)
    r = rank([[fmpq(a.numerator, a.denominator) for a in row] for row in entries])
    assert len(basis) == n - r
    for b in basis:
        assert any(b)
        assert all(sum(Fraction(row[j]) * Fraction(int(b[j].p), int(b[j].q))
                       for j in range(n)) == 0 for row in entries)
    if basis:
        assert rank(basis) == len(basis)
