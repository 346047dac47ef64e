"""The checker's witness products for heads beyond int64 (``WideNumpyArithmetic``).

A float64 head is stored as ``Z = 2^k W`` with entries of 60 bits and more, in limbs.
Its witnesses are checked with a float64 copy ``fl(H 2^-s)`` under the error bound of
docs/certificates.md ("Heads beyond int64"), the undecided entries in Python integers.
Here: the rounding of the copy against its definition, the choice of the arithmetic,
both arithmetics on small certificates (valid and forged) and near cancellation, and the
progress line of long checks.
"""

from __future__ import annotations

import copy
import io
import random
from fractions import Fraction

import numpy as np
import pytest

import verify.checker.analyze as checker
from test_analyze_certificate import MUTATIONS, both, certify, contents, mutate, rewrite
from test_mutation_checker_analyze import circle_certificate, int_array, scores
from verify.checker.core import CertificateError


def arithmetic_of(path, backend="numpy", jobs=1):
    archive = checker.Archive(path)
    ev = checker.Evidence(archive, checker.read_manifest(archive))
    return checker.choose_backend(ev, backend, jobs)


# --- the float copy: correctly rounded, scaled by a power of two -------------------------------

def test_scaled_float_is_the_nearest_float_of_the_scaled_integer():
    """``scaled_float(v, s)`` against ``float(Fraction(v, 2^s))`` (correctly rounded):
    halfway cases, halfway plus a bit far below the 64 kept bits (which only the
    round-to-odd bit remembers), carries into the next power of two."""
    rng = random.Random(5)
    values = [0, 1, -1, 3, 2 ** 53 + 1, 2 ** 64 - 1, 2 ** 64 + 1, -(2 ** 70) - 5]
    for top in (54, 64, 65, 66, 100, 300, 1000, 2000):
        half = (1 << (top - 1)) + (1 << (top - 54))  # exactly halfway between two floats
        values += [half, half + 1, half - 1, -(half + 1), (1 << top) - 1,
                   half + (1 << (top - 54)), half + (1 << max(0, top - 120))]
        values += [rng.getrandbits(top) * rng.choice((1, -1)) for _ in range(20)]
    for v in values:
        for s in (0, 1, 17, 600, 1500):
            want = float(Fraction(v, 1 << s)) if abs(v) < 1 << (s + 1000) else None
            if want is None or (want and abs(want) < 2.0 ** -1000):
                continue  # outside the range the arithmetic uses
            assert checker.scaled_float(v, s) == want, (v, s)


def test_the_wide_copy_is_scaled_into_range_or_refused():
    """The shift brings the largest entry below ``2^400``; the smallest non-zero entry
    must then be at least ``2^-500`` (a span of 900 bits), else Python integers."""
    def ev_of(Z, beta=None):
        ev = type("Ev", (), {})()
        ev.n, ev.d, ev.beta = len(Z), len(Z[0]), beta
        ev.Z = int_array(Z, (len(Z), len(Z[0])), "limbs", "Z")
        return ev

    for Z, shift in (([[1 << 70, 3], [-5, 0]], 0), ([[1 << 400, 1], [0, 2]], 1),
                     ([[(1 << 899) + 1, 1], [0, 1]], 500)):
        arith = checker.WideNumpyArithmetic(ev_of(Z), np)
        assert arith.shift == shift
        assert arith.F.tolist() == [[float(Fraction(v, 1 << shift)) for v in row] for row in Z]
        assert arith.N.tolist() == pytest.approx(
            [float(Fraction(sum(v * v for v in row), 1 << (2 * shift))) ** 0.5 for row in Z])
        assert arith._row(0) == Z[0] and arith.z_row(1) == Z[1]
        assert type(checker.choose_backend(ev_of(Z), "numpy")) is checker.WideNumpyArithmetic
    for Z in ([[1 << 900, 1], [0, 1]], [[1 << 2000, 1 << 1099], [1, 0]]):
        with pytest.raises(ValueError, match="too far apart"):
            checker.WideNumpyArithmetic(ev_of(Z), np)
        assert type(checker.choose_backend(ev_of(Z), "numpy")) is checker.PythonArithmetic
    # The bias is a last column of the same copy, scaled with it.
    arith = checker.WideNumpyArithmetic(ev_of([[1 << 500], [1]], beta=[3, -(1 << 450)]), np)
    assert arith.shift == 101
    assert arith._row(1) == [1, -(1 << 450)]
    assert arith.F[1].tolist() == [2.0 ** -101, -(2.0 ** 349)]


def test_the_wide_copy_decides_with_the_exact_products():
    """Wrong-signed float margins (an entry rounded by far more than the exact margin)
    are left to the exact products, at every scale."""
    for big in (2 ** 60, 2 ** 200, 2 ** 700):
        Z = [[big + 129, big], [200, 0], [0, -(big >> 20)]]
        ev = type("Ev", (), {})()
        ev.n, ev.d, ev.beta = 3, 2, None
        ev.Z = int_array(Z, (3, 2), "limbs", "Z")
        wide, python = checker.WideNumpyArithmetic(ev, np), checker.PythonArithmetic(ev)
        for x, target in (([1, -1], 0), ([1, -1], 1), ([3, -3], 0), ([-1, 1], 2),
                          ([big, -big], 0), ([1, 0], 0)):
            points = int_array([x], (1, 2), "limbs")
            s = scores(Z, x)
            want = next(((0, k) for k in range(3) if k != target and s[k] >= s[target]),
                        None)
            assert python.first_failure(points, [target]) == want
            assert wide.first_failure(points, [target]) == want, (big, x, target)
            for partner in range(3):
                if partner == target:
                    continue
                tie = (wide.first_failure(points, [target], [partner]),
                       python.first_failure(points, [target], [partner]))
                assert tie[0] == tie[1]


# --- whole certificates: both arithmetics, one verdict ------------------------------------------

@pytest.fixture(scope="module")
def float64_head(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("float64")
    W = np.random.default_rng(3).standard_normal((60, 3))
    W[7] = (W[1] + W[2] + W[4]) / 3  # inside the hull (after rounding: probably)
    W[9, 0] = 3e-7  # 2^-22: Z = 2^k W needs about 75 bits
    path, result = certify(tmp, W)
    return tmp, path, result


def test_a_float64_head_is_checked_with_the_wide_copy(float64_head):
    tmp, path, result = float64_head
    manifest, arrays = contents(path)
    assert manifest["evidence"]["encoding"]["Z"] == "limbs"
    assert max(abs(v) for row in arrays["Z"] for v in row) >= 1 << 63
    assert type(arithmetic_of(path)) is checker.WideNumpyArithmetic
    assert type(arithmetic_of(path, "python")) is checker.PythonArithmetic
    assert both(path)[0] == "OK"
    assert arrays["tie_points"] and arrays["argmax_points"]


def test_both_arithmetics_give_one_verdict_on_forged_float64_certificates(float64_head,
                                                                         monkeypatch):
    """Every forgery of test_analyze_certificate.py, on a float64 head: the wide copy
    and Python integers give the same verdict and message, INVALID where the forgery
    must break the certificate (with one process, and with two sharing blocks of 5)."""
    tmp, path, result = float64_head
    manifest, arrays = contents(path)
    rejected = 0
    for which in MUTATIONS:
        for seed in range(3):
            local = copy.deepcopy(arrays)
            rng = np.random.default_rng(seed)
            changed = mutate(local, which, lambda xs: list(xs)[int(rng.integers(len(xs)))])
            if not changed:
                continue
            forged = rewrite(path, manifest, local, tmp / f"{which}-{seed}.zip")
            status, message = both(forged)
            if changed is True:
                assert status == "INVALID", which
                rejected += 1
            archive = checker.Archive(forged)
            m = checker.read_manifest(archive)
            if m["encoding"]["Z"] == "limbs" and which != "matrix entry":
                assert type(arithmetic_of(forged)) is checker.WideNumpyArithmetic
            with monkeypatch.context() as m:
                m.setattr(checker.NumpyArithmetic, "_block_columns", lambda self: 5)
                try:
                    two = "OK", checker.check_file(forged, backend="numpy", jobs=2)
                except CertificateError as exc:
                    two = "INVALID", str(exc)
            assert two == (status, message)
    assert rejected >= 10


@pytest.mark.parametrize("radius", [2 ** 100, 2 ** 700])
def test_witnesses_near_cancellation_in_limbs(tmp_path, radius):
    """Points on the bisector of neighbours ``t, k`` of a circle of ``radius``, moved by
    a unit vector (the margin is an entry of ``z_t - z_k``, far below the resolution of
    the float scores): every verdict is the definition's, in both arithmetics."""
    n = 7
    base = circle_certificate(n, radius, tmp_path, "c", encodings={"Z": "limbs"})
    Z = base.arrays["Z"]
    assert type(arithmetic_of(base.path(encodings={"Z": "limbs"}))) is checker.WideNumpyArithmetic
    for t in range(n):
        k = (t + 1) % n
        v = [p - q for p, q in zip(Z[t], Z[k])]
        y = [p + q for p, q in zip(Z[t], Z[k])]
        vv, vy = sum(p * p for p in v), sum(p * q for p, q in zip(v, y))
        x0 = [vv * p - vy * q for p, q in zip(y, v)]
        for e in ([0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]):
            x = [p + q for p, q in zip(x0, e)]
            s = scores(Z, x)
            rivals = [j for j in range(n) if j != t and s[j] >= s[t]]

            def argmax(a, x=x, t=t):
                a["argmax_points"][t] = x
            status, message = base.forge(argmax, encodings={"Z": "limbs"})
            assert (message if status == "INVALID" else "OK") == (
                "OK" if not rivals else f"argmax witness of label {t}: label {rivals[0]} "
                                        "scores at least as high at the point")
            i, j = min(t, k), max(t, k)
            others = [m for m in range(n) if m not in (i, j) and s[m] >= s[i]]

            def tie(a, x=x, i=i, j=j):
                a["tie_pairs"], a["tie_points"] = [[i, j]], [x]

            def one_pair(m):
                m["assertion"]["tie_pairs"] = 1
            status, message = base.forge(tie, one_pair, encodings={"Z": "limbs"})
            if s[i] != s[j]:
                want = f"tie witness of {i} and {j}: labels {i} and {j} do not score equally at the point"
            elif others:
                want = f"tie witness of {i} and {j}: label {others[0]} scores at least as high at the point"
            else:
                want = "OK"
            assert (message if status == "INVALID" else "OK") == want


# --- progress ------------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_names_the_part_the_count_and_the_time_left():
    out, clock = io.StringIO(), Clock()
    p = checker.Progress("tie witnesses", 27190, stream=out, clock=clock)
    clock.now = 0.5
    p.update(1000)
    assert out.getvalue() == ""  # the first second stays silent
    clock.now = 2.0
    p.update(5438)
    assert out.getvalue() == "\rverify check: tie witnesses 5,438 of 27,190 (20%), 2 s, about 8 s left"
    clock.now = 2.1
    p.update(6000)  # too soon after the last line
    assert out.getvalue().count("\r") == 1
    clock.now = 3.0
    p.update(27190)
    first = "verify check: tie witnesses 5,438 of 27,190 (20%), 2 s, about 8 s left"
    last = "verify check: tie witnesses 27,190 of 27,190 (100%), 3 s"
    assert out.getvalue() == "\r" + first + "\r" + last.ljust(len(first))  # no estimate at the end
    p.close()
    assert out.getvalue().endswith(last.ljust(len(first)) + "\r" + " " * len(last) + "\r")
    quiet = checker.Progress("argmax witnesses", 10, stream=io.StringIO(), clock=clock)
    quiet.close()
    assert quiet.stream.getvalue() == ""


def test_progress_only_on_a_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(checker.sys, "stderr", io.StringIO())
    assert checker._progress_stream() is None
    assert checker.Progress("x", 5).stream is None
    tty = Tty()
    monkeypatch.setattr(checker.sys, "stderr", tty)
    assert checker._progress_stream() is tty
    monkeypatch.setattr(checker.sys, "stderr", None)
    assert checker._progress_stream() is None


@pytest.mark.parametrize("backend,jobs", [("python", 1), ("numpy", 1), ("numpy", 2)])
def test_a_long_check_shows_its_progress(float64_head, monkeypatch, backend, jobs):
    tmp, path, result = float64_head
    out = io.StringIO()
    monkeypatch.setattr(checker, "_progress_stream", lambda: out)
    monkeypatch.setattr(checker.Progress, "DELAY", -1.0)
    monkeypatch.setattr(checker.Progress, "EVERY", -1.0)
    monkeypatch.setattr(checker.NumpyArithmetic, "_block_columns", lambda self: 4)
    summary = checker.check_file(path, backend=backend, jobs=jobs)
    text = out.getvalue()
    manifest, arrays = contents(path)
    a, t = len(arrays["argmax_points"]), len(arrays["tie_points"])
    assert f"verify check: argmax witnesses {a:,} of {a:,} (100%)" in text
    assert f"verify check: tie witnesses {t:,} of {t:,} (100%)" in text
    if backend == "numpy":
        assert f"tie witnesses 4 of {t:,}" in text  # one line per block
    assert text.endswith("\r")  # the line is cleared at the end
    assert summary.startswith("analyze, 60 labels in dimension 3")
