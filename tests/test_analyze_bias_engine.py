"""Heads with a bias in the engine of large heads: the floor rows, at every stage.

A head ``W x + b`` is analysed as the bias-free head of its lifted rows ``(w_k, b_k)``
and their floor rows ``(w_k, b_k - M)`` (:mod:`verify.analyze.bias`). These tests run
it through the blocked screen, the interior certificates (with simplex evidence whose
supports hold floor rows), the tie pairs and the workers, and hold every answer
against methods that share nothing with it: an exact simplex run per label on the
lifted system (:func:`verify.lp.feasibility.strict_feasibility`, the textbook form of
the criterion), a floating-point LP per label (scipy's HiGHS) where its margin is
clear, exact Gauss elimination in ``fractions`` for simplex evidence, and the
stdlib certificate checker on both of its arithmetics.
"""

from __future__ import annotations

import copy
import json
import zipfile
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

import verify.analyze.argmax as argmax_module
from verify.analyze import head as head_module
import verify.analyze.interior as interior_module
from verify.analyze.bias import (
    LiftedTieWitness,
    LiftedWitness,
    argmaxable_with_bias,
    bias_head,
    is_bias_argmax_certificate,
    is_bias_argmax_witness,
    is_bias_no_tie_certificate,
    is_bias_tie_witness,
    tie_pairs_with_bias,
)
from verify.analyze.certificate import write_analyze_certificate
from verify.analyze.report import analyze_with_bias
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.analyze.ties import NoTieCertificate, TieWitness
from verify.checker.analyze import check_file
from verify.checker.core import CertificateError
from verify.lp.feasibility import Witness, strict_feasibility

from reference import solve_fraction
from test_analyze_certificate import replace_manifest


def Fr(x) -> Fraction:
    if hasattr(x, "p"):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, (float, np.floating)):
        return Fraction(float(x))
    return Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)


def exact_rows(W, b) -> tuple[list[list[Fraction]], list[Fraction]]:
    W = np.asarray(W)
    return [[Fr(v) for v in row] for row in W.tolist()], [Fr(v) for v in np.asarray(b).tolist()]


# --- independent references ------------------------------------------------------------

def simplex_argmaxable(W, b) -> list[int]:
    """Label i wins somewhere iff (w~_i - w~_k) . x~ > 0 (k != i), e . x~ > 0 is
    feasible: one exact simplex run per label on the lifted system."""
    rows, bias = exact_rows(W, b)
    lifted = [[fmpq(v.numerator, v.denominator) for v in r + [c]] for r, c in zip(rows, bias)]
    n, D = len(lifted), len(lifted[0])
    e = [fmpq(0)] * (D - 1) + [fmpq(1)]
    out = []
    for i in range(n):
        system = [[a - c for a, c in zip(lifted[i], lifted[k])] for k in range(n) if k != i]
        if isinstance(strict_feasibility(system + [e]), Witness):
            out.append(i)
    return out


def lp_margin(W, b, i) -> float:
    """max t: (w_i - w_k) . x + b_i - b_k >= t (k != i), t <= 1, x free (a label of a
    head with a bias may win only far from the origin)."""
    from scipy.optimize import linprog

    W, b = np.asarray(W, float), np.asarray(b, float)
    n, d = W.shape
    others = [k for k in range(n) if k != i]
    A = np.array([np.r_[-(W[i] - W[k]), 1.0] for k in others])
    rhs = np.array([b[i] - b[k] for k in others])
    c = np.zeros(d + 1)
    c[-1] = -1
    res = linprog(c, A_ub=A, b_ub=rhs, bounds=[(None, None)] * d + [(None, 1.0)],
                  method="highs")
    assert res.status == 0
    return float(res.x[-1])


def floor_point(W, b, M_rel, k, n):
    """The lifted row of k < n, or the floor row of k - n, over the rationals;
    ``M_rel`` is the drop in the units of the original bias."""
    j = k % n
    return list(W[j]) + [b[j] - (M_rel if k >= n else 0)]


def check_evidence(W, b, A, T, M_rel=None):
    """Every witness and certificate, re-checked with fractions."""
    rows, bias = exact_rows(W, b)
    n = len(rows)
    for i, ev in enumerate(A.evidence):
        if isinstance(ev, Witness):
            assert isinstance(ev, LiftedWitness) and ev.lifted[-1] > 0
            assert is_bias_argmax_witness(rows, bias, i, [Fr(v) for v in ev.point])
        elif isinstance(ev, SimplexCertificate):
            assert M_rel is not None
            support = list(ev.support)
            assert len(support) == len(rows[0]) + 2 and i not in support
            cols = [floor_point(rows, bias, M_rel, k, n) + [1] for k in support]
            lam = solve_fraction(cols, floor_point(rows, bias, M_rel, i, n) + [1])
            assert lam is not None and all(v > 0 for v in lam)
        else:
            lam = [(k, Fr(y)) for k, y in ev.multipliers]
            assert sum(y for _, y in lam) == 1
            assert is_bias_argmax_certificate(rows, bias, i, lam)
    for (i, j), ev in T.evidence.items():
        if isinstance(ev, TieWitness):
            assert isinstance(ev, LiftedTieWitness) and ev.lifted[-1] > 0
            assert is_bias_tie_witness(rows, bias, i, j, [Fr(v) for v in ev.point])
        elif isinstance(ev, SimplexNoTie):
            assert ev.inside in (i, j)
            assert isinstance(A.evidence[ev.inside], SimplexCertificate)
        else:
            cert = NoTieCertificate(multipliers=tuple((k, Fr(y)) for k, y in ev.multipliers),
                                    tie=Fr(ev.tie))
            assert is_bias_no_tie_certificate(rows, bias, i, j, cert)
            assert sum(y for _, y in cert.multipliers) <= 1


def drop_in_bias_units(W, b) -> Fraction:
    """M of the head's floor rows, divided by the scale c of Z = c [W | b]."""
    head = bias_head(W, b)
    n, d = head.labels, head.d - 1
    rows, bias = exact_rows(W, b)
    for r in range(n):
        for c in range(d + 1):
            z = int(head.Z[r][c])
            if z:
                value = rows[r][c] if c < d else bias[r]
                return Fraction(head.drop) / (Fraction(z) / value)
    return Fraction(head.drop)


# --- heads ---------------------------------------------------------------------------------

def planted_head(seed: int, n: int, d: int, inside: int):
    """Gaussian rows and biases, ``inside`` labels strictly below the upper hull (a
    convex combination of d + 1 rows, the bias 1/2 below theirs), a pair of equal
    rows with equal biases and a pair of rows equal up to the bias."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n, d))
    b = rng.standard_normal(n)
    for i in range(inside):
        support = rng.choice(np.arange(inside, n), size=d + 1, replace=False)
        lam = rng.dirichlet(np.ones(d + 1))
        W[i] = lam @ W[support]
        b[i] = lam @ b[support] - 0.5
    W[inside] = W[inside + 1]
    b[inside] = b[inside + 1]
    W[inside + 3] = W[inside + 2]
    b[inside + 3] = b[inside + 2] - 0.25
    # float32, as trained heads are stored: the integer matrix fits in int64, which
    # the screen of large heads needs (the rounding keeps the planted labels inside).
    return W.astype(np.float32), b.astype(np.float32)


def screened(mp, chunk: int = 16) -> None:
    """Send every head, however small, down the path of large heads."""
    mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    mp.setattr(argmax_module, "SCREEN_CHUNK", chunk)
    mp.setattr(interior_module, "SIMPLEX_MIN_DIMENSION", 0)


# --- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_screened_engine_agrees_with_a_simplex_run_per_label(seed, tmp_path):
    W, b = planted_head(seed, 70, 5, inside=10)
    with pytest.MonkeyPatch.context() as mp:
        screened(mp)
        result = analyze_with_bias(W, b, neighbours=3)
    assert result.lifted.screened
    assert result.argmax.argmaxable == simplex_argmaxable(W, b)
    # The planted labels, both labels of the equal pair, and the lower one of the
    # pair equal up to the bias never win.
    assert set(range(10)) | {10, 11, 13} <= set(result.argmax.unargmaxable)
    check_evidence(W, b, result.argmax, result.ties, drop_in_bias_units(W, b))
    path = tmp_path / "c.zip"
    write_analyze_certificate(path, result, W, bias=b)
    for backend in ("python", "numpy"):
        assert "with a bias" in check_file(path, backend=backend)


def test_simplex_evidence_with_floor_rows_is_written_and_checked(tmp_path):
    W, b = planted_head(3, 60, 4, inside=12)
    with pytest.MonkeyPatch.context() as mp:
        screened(mp)
        result = analyze_with_bias(W, b, neighbours=2)
    simplices = [e for e in result.argmax.evidence if isinstance(e, SimplexCertificate)]
    assert simplices, "the planted labels should be proven inside a simplex"
    n = len(W)
    assert any(k >= n for e in simplices for k in e.support), "a floor row in a support"
    check_evidence(W, b, result.argmax, result.ties, drop_in_bias_units(W, b))
    path = tmp_path / "c.zip"
    write_analyze_certificate(path, result, W, bias=b)
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
    assert manifest["input"]["drop"] == result.lifted.drop
    assert "simplices" in check_file(path, backend="python")
    assert "simplices" in check_file(path, backend="numpy")


def _rewrite_manifest(path, out, change):
    return replace_manifest(path, change, out)


def _rewrite_member(path, out, name, array):
    with zipfile.ZipFile(path) as z:
        members = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(out, "w") as z:
        for info, data in members:
            if info.filename == name:
                import io

                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, array, allow_pickle=False)
                data = buffer.getvalue()
            z.writestr(info, data)
    return out


@pytest.fixture(scope="module")
def simplex_certificate(tmp_path_factory):
    W, b = planted_head(3, 60, 4, inside=12)
    with pytest.MonkeyPatch.context() as mp:
        screened(mp)
        result = analyze_with_bias(W, b, neighbours=2)
    path = tmp_path_factory.mktemp("bias") / "c.zip"
    write_analyze_certificate(path, result, W, bias=b)
    with zipfile.ZipFile(path) as z:
        support = np.load(z.open("simplex_support.npy"))
    return path, result, support


def _invalid(path) -> str:
    messages = set()
    for backend in ("python", "numpy"):
        with pytest.raises(CertificateError) as err:
            check_file(path, backend=backend)
        messages.add(str(err.value))
    assert len(messages) == 1
    return messages.pop()


@pytest.mark.parametrize("drop", ["halved", "doubled", "missing", "zero"])
def test_a_tampered_drop_is_rejected(simplex_certificate, tmp_path, drop):
    path, _, _ = simplex_certificate

    def change(doc):
        if drop == "missing":
            del doc["input"]["drop"]
        elif drop == "zero":
            doc["input"]["drop"] = 0
        else:
            doc["input"]["drop"] = (doc["input"]["drop"] // 2 if drop == "halved"
                                    else doc["input"]["drop"] * 2)

    message = _invalid(_rewrite_manifest(path, tmp_path / "f.zip", change))
    if drop == "missing":
        assert "needs input.drop" in message
    elif drop == "zero":
        assert "input.drop" in message
    else:
        # Another drop moves every floor row: some simplex no longer holds its label
        # (the planted labels sit in simplices with floor rows).
        assert "is not strictly inside the simplex" in message


def test_a_drop_without_a_bias_is_rejected(tmp_path):
    W = [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]]
    from verify.analyze.report import analyze

    path = tmp_path / "c.zip"
    write_analyze_certificate(path, analyze(W, cells=False), W)
    forged = _rewrite_manifest(path, tmp_path / "f.zip",
                               lambda doc: doc["input"].update(drop=4))
    assert "only a head with a bias has floor rows" in _invalid(forged)


@pytest.mark.parametrize("how", ["beyond the floor rows", "its own row", "twice"])
def test_a_tampered_simplex_support_is_rejected(simplex_certificate, tmp_path, how):
    path, result, support = simplex_certificate
    n = result.n
    with zipfile.ZipFile(path) as z:
        labels = np.load(z.open("simplex_labels.npy"))
    forged = support.copy()
    r = int(np.flatnonzero((support >= n).any(axis=1))[0])
    c = int(np.flatnonzero(support[r] >= n)[0])
    if how == "beyond the floor rows":
        forged[r, c] = 2 * n
    elif how == "its own row":
        forged[r, c] = int(labels[r])
    else:
        forged[r, c] = support[r, (c + 1) % support.shape[1]]
    # The archive's hash covers Z and the bias only: the support is rewritten alone.
    message = _invalid(_rewrite_member(path, tmp_path / "f.zip", "simplex_support.npy",
                                       forged))
    assert message.startswith(f"simplex[{r}] of label {int(labels[r])}")
    assert ("listed twice" if how == "twice" else "is not allowed") in message


def test_one_label_and_two_labels():
    A = argmaxable_with_bias([[3, 1]], [5])
    assert A.argmaxable == [0] and A.evidence[0].lifted[-1] > 0
    T = tie_pairs_with_bias([[1], [1]], [0, 0])
    assert T.can_tie(0, 1) is True  # equal logits everywhere, nobody above
    T = tie_pairs_with_bias([[1], [1]], [0, 1])
    assert T.can_tie(0, 1) is False


def test_equal_rows_and_rows_equal_up_to_the_bias():
    W = [[1, 0], [1, 0], [0, 1], [0, 1], [-1, -1], [-1, -1]]
    b = [0, 0, 2, 1, 0, Fraction(1, 2)]
    A = argmaxable_with_bias(W, b)
    # 0 and 1 equal in both: neither wins; 3 is 2 lowered; 4 is 5 lowered.
    assert A.argmaxable == [2, 5] == simplex_argmaxable(W, b)
    T = tie_pairs_with_bias(W, b)
    assert T.can_tie(0, 1) is True  # equal logits, on top far out along x_1
    assert T.can_tie(2, 3) is False  # 3 is always 1 below 2
    assert T.can_tie(2, 5) is True
    check_evidence(W, b, A, T)


def test_entries_beyond_int64_go_through_python_integers():
    big = 10 ** 25
    W = [[big, 0], [0, big], [-big, 0], [0, -big], [1, 1]]
    b = [0, 0, 0, 0, -1]
    head = bias_head(W, b)
    assert head.Zarr is None
    A = argmaxable_with_bias(W, b)
    assert A.argmaxable == [0, 1, 2, 3] == simplex_argmaxable(W, b)
    check_evidence(W, b, A, tie_pairs_with_bias(W, b))


@pytest.mark.parametrize("seed", range(6))
def test_a_floating_point_lp_per_label_agrees_where_its_margin_is_clear(seed):
    W, b = planted_head(seed + 10, 40, 3, inside=6)
    A = argmaxable_with_bias(W, b)
    compared = 0
    for i in range(len(W)):
        t = lp_margin(W, b, i)
        if abs(t) > 1e-7:
            assert A.is_argmaxable(i) == (t > 0), (i, t)
            compared += 1
    assert compared >= 30


def test_the_result_does_not_depend_on_the_number_of_workers(tmp_path):
    W, b = planted_head(7, 80, 4, inside=8)
    outputs = []
    for jobs in (1, 2):
        with pytest.MonkeyPatch.context() as mp:
            screened(mp)
            result = analyze_with_bias(W, b, neighbours=2, jobs=jobs)
        path = tmp_path / f"c{jobs}.zip"
        write_analyze_certificate(path, result, W, bias=b)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_segment_tasks_spread_few_pairs_and_cap_many():
    """Pairs per segment task: at most ``SEGMENT_CHUNK``; at least
    ``SEGMENT_MIN_CHUNK`` where there are that many; and from two chunks' worth of pairs
    on, at least two tasks (a worker each), but never more than ``SEGMENT_TASKS``
    unless the cap forces it."""
    import verify.analyze.ties as ties_module

    for m in list(range(0, 300)) + [1000, 4095, 4096, 4097, 10 ** 5]:
        size = ties_module.segment_chunk(m)
        tasks = -(-m // size)
        assert 1 <= size <= ties_module.SEGMENT_CHUNK
        if m >= ties_module.SEGMENT_MIN_CHUNK:
            assert size >= ties_module.SEGMENT_MIN_CHUNK
        if m >= 2 * ties_module.SEGMENT_MIN_CHUNK:
            assert tasks >= 2
        assert tasks <= max(ties_module.SEGMENT_TASKS, -(-m // ties_module.SEGMENT_CHUNK))


def test_segment_witnesses_of_screened_pairs_agree_with_the_small_head_engine(tmp_path):
    """Pairs the tie screen leaves (one round: most of them) go to the segments between
    the labels' own witnesses, in chunks of 8 pairs: every witness they give is
    re-checked with fractions, the tie pairs are those of the engine of small heads
    (no screen, no segments on the screened path), and one or two workers write the
    same certificate."""
    import verify.analyze.ties as ties_module

    W, b = planted_head(4, 36, 5, inside=6)
    found = []
    real = ties_module.segment_pairs

    def spy(head, task):
        out = real(head, task)
        assert set(out) <= set(task[0])  # only the chunk's own pairs
        found.extend(out)
        return out

    outputs = []
    for jobs in (1, 2):
        with pytest.MonkeyPatch.context() as mp:
            screened(mp)
            mp.setattr(ties_module, "SCREEN_TIE_ROUNDS", 1)
            mp.setattr(ties_module, "SEGMENT_CHUNK", 8)
            if jobs == 1:
                mp.setattr(ties_module, "segment_pairs", spy)
            result = analyze_with_bias(W, b, neighbours=2, jobs=jobs)
        assert result.lifted.screened
        path = tmp_path / f"c{jobs}.zip"
        write_analyze_certificate(path, result, W, bias=b)
        outputs.append(path.read_bytes())
        if jobs == 1:
            first = result
    assert outputs[0] == outputs[1]
    assert len(found) > 10, "the segments should decide pairs the screen left"
    witnesses = {p for p in found if p[1] < len(W)}
    assert witnesses <= set(first.ties.tie_pairs)
    reference = tie_pairs_with_bias(W, b)
    assert first.ties.tie_pairs == reference.tie_pairs
    assert first.ties.non_tie_pairs == reference.non_tie_pairs
    check_evidence(W, b, first.argmax, first.ties, drop_in_bias_units(W, b))
    assert "with a bias" in check_file(tmp_path / "c1.zip", backend="python")


def test_a_bias_from_float32_arrays_is_taken_exactly():
    rng = np.random.default_rng(5)
    W = rng.standard_normal((30, 3)).astype(np.float32)
    b = (rng.standard_normal(30) * 3).astype(np.float32)
    A = argmaxable_with_bias(W, b)
    assert A.argmaxable == simplex_argmaxable(W, b)
    check_evidence(W, b, A, tie_pairs_with_bias(W, b))


def test_the_command_line_with_float32_npy_files(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    W, b = planted_head(8, 40, 3, inside=5)
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "b.npy", b)
    b2 = b.copy()
    b2[7] = np.nextafter(b2[7], np.float32(1))  # one unit in the last place
    np.save(tmp_path / "b2.npy", b2)

    def verify(*args):
        return subprocess.run([sys.executable, "-m", "verify", *map(str, args)],
                              capture_output=True, text=True, cwd=root)

    cert = tmp_path / "c.zip"
    run = verify("analyze", "--matrix", tmp_path / "W.npy", "--bias", tmp_path / "b.npy",
                 "--certificate", cert, "--quiet")
    assert run.returncode == 0, run.stderr
    assert f"argmaxable: {len(simplex_argmaxable(W, b))} of 40 labels" in run.stdout
    ok = verify("check", cert, "--matrix", tmp_path / "W.npy", "--bias", tmp_path / "b.npy")
    assert ok.returncode == 0 and "with a bias" in ok.stdout, ok.stderr
    bad = verify("check", cert, "--matrix", tmp_path / "W.npy", "--bias", tmp_path / "b2.npy")
    assert bad.returncode == 1 and "bias entry 7" in bad.stderr


def test_the_exact_method_grows_its_rows_until_the_witness_beats_every_row():
    from verify.analyze.argmax import _exact_label, is_argmax_certificate, is_argmax_witness
    from verify.analyze.head import make_head

    # d = 1: label 11 is beaten only by the far row 100, which is not among the rows
    # nearest to it (the first rows the exact method takes).
    W = [[k] for k in range(12)] + [[100], [-50]]
    head = make_head(W)
    for i, winner in ((11, False), (12, True), (13, True), (5, False)):
        ev = _exact_label(head, i)
        if winner:
            assert isinstance(ev, Witness) and is_argmax_witness(W, i, ev.point)
        else:
            assert not isinstance(ev, Witness)
            assert is_argmax_certificate(W, i, ev.multipliers)
    # With a bias, through the floor rows: the same criterion as the simplex reference.
    b = [0] * 12 + [-1000, 0]
    head = bias_head(W, b)
    got = [i for i in range(len(W)) if isinstance(_exact_label(head, i), Witness)]
    assert got == simplex_argmaxable(W, b)


def test_a_foot_is_the_nearest_point_of_the_pair_hyperplane():
    from verify.analyze.ties import _feet

    rng = np.random.default_rng(8)
    F = rng.standard_normal((12, 5))
    X = rng.standard_normal((5, 4))
    src, dst = np.array([0, 3, 5, 7]), np.array([1, 2, 9, 7])
    feet = _feet(F, X, src, dst)
    V = (F[src] - F[dst]).T
    np.testing.assert_allclose(np.sum(V * feet, axis=0), 0, atol=1e-12)
    # x - foot is along the normal (and zero where the rows are equal).
    for c in range(3):
        r = (X[:, c] - feet[:, c]) - V[:, c] * ((X[:, c] - feet[:, c]) @ V[:, c]
                                                / (V[:, c] @ V[:, c]))
        np.testing.assert_allclose(r, 0, atol=1e-12)
    np.testing.assert_array_equal(feet[:, 3], X[:, 3])


def test_the_feet_decide_pairs_where_no_segment_is_tried(tmp_path):
    """With the segments switched off, the feet of the perpendiculars from the two
    labels' witnesses still decide pairs the tie screen left; each is an exact tie
    witness, and the answers are those of the engine of small heads."""
    import verify.analyze.ties as ties_module

    W, b = planted_head(4, 36, 5, inside=6)
    found = []
    real = ties_module.segment_pairs

    def spy(head, task):
        out = real(head, task)
        for (i, j), witness in out.items():
            assert head.wins([witness.point], [i], partners=[j]) == [True]
        found.extend(out)
        return out

    with pytest.MonkeyPatch.context() as mp:
        screened(mp)
        mp.setattr(ties_module, "SCREEN_TIE_ROUNDS", 1)
        mp.setattr(ties_module, "_facet_crossings", lambda *args, **kwargs: [])
        mp.setattr(ties_module, "segment_pairs", spy)
        result = analyze_with_bias(W, b, neighbours=2, jobs=1)
    assert found, "the feet should decide pairs the screen left"
    reference = tie_pairs_with_bias(W, b)
    assert result.ties.tie_pairs == reference.tie_pairs
    assert result.ties.non_tie_pairs == reference.non_tie_pairs
    check_evidence(W, b, result.argmax, result.ties, drop_in_bias_units(W, b))


@pytest.mark.parametrize("below", [0.0, 2.0])
def test_the_probe_of_the_tie_screen_orders_screen_and_segments(below, tmp_path):
    """``SEGMENTS_FIRST_BELOW`` 0: the screen never certifies too few of its probe, so
    it runs on every pair before the segments; 2: it always does, so the segments
    come before the screen for the pairs after the probe, and the screen sees only the
    pairs they leave, in chunks of the segments' size. Either way the answers are
    those of the engine of small heads and the certificate checks."""
    import verify.analyze.ties as ties_module

    W, b = planted_head(4, 36, 5, inside=6)
    calls = []
    real_screen = ties_module._screened_plane_witnesses
    real_segments = ties_module._screened_segment_witnesses

    def spy_screen(head, pairs, progress, workers, chunk=ties_module.SCREEN_CHUNK):
        calls.append(("screen", list(pairs), chunk))
        return real_screen(head, pairs, progress, workers, chunk)

    def spy_segments(head, argmax, pairs, workers):
        calls.append(("segments", list(pairs), None))
        return real_segments(head, argmax, pairs, workers)

    with pytest.MonkeyPatch.context() as mp:
        screened(mp)
        mp.setattr(ties_module, "SCREEN_TIE_ROUNDS", 1)
        mp.setattr(ties_module, "SEGMENTS_PROBE", 8)
        mp.setattr(ties_module, "SEGMENTS_FIRST_BELOW", below)
        mp.setattr(ties_module, "_screened_plane_witnesses", spy_screen)
        mp.setattr(ties_module, "_screened_segment_witnesses", spy_segments)
        result = analyze_with_bias(W, b, neighbours=2, jobs=1)
    kinds = [kind for kind, _, _ in calls]
    probe = calls[0][1]
    assert kinds[0] == "screen" and len(probe) == 8
    if below == 0.0:
        assert kinds == ["screen", "screen", "segments"]
        assert set(calls[1][1]).isdisjoint(probe)
    else:
        assert kinds == ["screen", "segments", "screen"]
        segmented, rescreened = set(calls[1][1]), set(calls[2][1])
        assert rescreened < segmented and rescreened.isdisjoint(probe)
        assert calls[2][2] == ties_module.SEGMENT_CHUNK
    reference = tie_pairs_with_bias(W, b)
    assert result.ties.tie_pairs == reference.tie_pairs
    assert result.ties.non_tie_pairs == reference.non_tie_pairs
    check_evidence(W, b, result.argmax, result.ties, drop_in_bias_units(W, b))
    path = tmp_path / "c.zip"
    write_analyze_certificate(path, result, W, bias=b)
    assert "with a bias" in check_file(path, backend="python")


def test_folded_no_tie_certificates_do_not_depend_on_the_scale_of_the_multipliers():
    """Motzkin multipliers of the lifted head are homogeneous: scaled by 3 they are
    still a certificate, and folding divides by their sum when it exceeds 1 (the
    format's ``sum y <= 1``), giving the certificate of the unscaled multipliers."""
    from verify.analyze import bias as bias_module
    from verify.analyze.argmax import argmaxable_labels

    W, b = planted_head(2, 30, 4, inside=5)
    head = bias_head(W, b)
    lifted = bias_module._lifted_ties(head, argmaxable_labels(head), None)
    n = head.labels
    folded = 0
    for (i, j), e in lifted.evidence.items():
        if j >= n or not isinstance(e, NoTieCertificate):
            continue
        scaled = NoTieCertificate(multipliers=tuple((k, 3 * y) for k, y in e.multipliers),
                                  tie=3 * e.tie)
        once = bias_module._fold_no_tie(i, j, n, e)
        assert bias_module._fold_no_tie(i, j, n, scaled) == once
        rows, bias = exact_rows(W, b)
        assert is_bias_no_tie_certificate(rows, bias, i, j, NoTieCertificate(
            multipliers=tuple((k, Fr(y)) for k, y in once.multipliers), tie=Fr(once.tie)))
        assert sum((Fr(y) for _, y in once.multipliers), Fr(0)) <= 1
        folded += 1
    assert folded >= 3
