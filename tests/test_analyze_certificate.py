"""Certificates of ``python -m verify analyze --certificate``: written, checked, forged.

Every certificate here is checked twice, on Python integers (the standard-library path)
and with numpy (float64 products under an error bound, identities modulo primes); the
two must agree on every verdict and every message. Forgeries are consistent except for
one violated condition (the archive is rewritten with the stored matrix's hash
recomputed), and each is rejected for that condition.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from isolation import run_checker_without_engine
from verify.analyze import analyze
from verify.analyze.report import analyze_with_bias
from verify.analyze.certificate import write_analyze_certificate, write_archive
from verify.checker.analyze import Archive, check_file, confirm_matrix, read_manifest
from verify.checker.core import CertificateError

ROOT = Path(__file__).resolve().parents[1]
C2 = ROOT / "examples" / "c2.json"


def verdict(path, backend):
    try:
        return "OK", check_file(path, backend=backend)
    except CertificateError as exc:
        return "INVALID", str(exc)


def both(path):
    """The verdict of both arithmetics, which must agree exactly."""
    python, numpy = verdict(path, "python"), verdict(path, "numpy")
    assert python == numpy, (python, numpy)
    return python


def certify(tmp_path, W, name="cert.zip", bias=None, **options):
    path = tmp_path / name
    result = (analyze_with_bias(W, bias) if bias is not None
              else analyze(W, cells=False, **options))
    write_analyze_certificate(path, result, W, bias=bias)
    return path, result


# --- rewriting archives ----------------------------------------------------------------

def contents(path) -> tuple[dict, dict]:
    """``(manifest, arrays)``: every array as Python ints (lists)."""
    archive = Archive(path)
    m = read_manifest(archive)
    arrays = {name: archive.array(name, enc).rows() for name, enc in m["encoding"].items()}
    return archive.manifest, arrays


def rewrite(path, manifest, arrays, out=None) -> Path:
    """The archive of ``arrays`` with ``manifest``'s facts; the matrix hash recomputed."""
    out = out or path.with_name("forged.zip")
    width = manifest["input"]["d"] + manifest["input"]["bias"]
    shaped = {}
    for name, values in arrays.items():
        if name in ("argmax_points", "tie_points") and not values:
            values = np.zeros((0, width), dtype=np.int64)
        elif name in ("tie_pairs", "non_tie_pairs") and not values:
            values = np.zeros((0, 2), dtype=np.int64)
        shaped[name] = values
    p, q = manifest["input"]["scale"].split("/")
    facts = {"n": manifest["input"]["n"], "d": manifest["input"]["d"],
             "scale": Fraction(int(p), int(q)), "bias": manifest["input"]["bias"],
             "assertion": manifest["assertion"]}
    write_archive(out, shaped, facts, manifest["input"]["source"])
    return out


def replace_manifest(path, change, out) -> Path:
    with zipfile.ZipFile(path) as z:
        members = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(out, "w") as z:
        for info, data in members:
            if info.filename == "manifest.json":
                doc = json.loads(data)
                change(doc)
                data = json.dumps(doc).encode()
            z.writestr(info, data)
    return out


def dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def claim_tie(manifest, arrays, pair, point):
    """Move ``pair`` from the no-tie list to the tie list, with ``point`` as witness."""
    r = arrays["non_tie_pairs"].index(pair)
    lo, hi = arrays["non_tie_offsets"][r], arrays["non_tie_offsets"][r + 1]
    del arrays["non_tie_support"][lo:hi], arrays["non_tie_weights"][lo:hi]
    arrays["non_tie_offsets"] = (arrays["non_tie_offsets"][:r + 1]
                                 + [o - (hi - lo) for o in arrays["non_tie_offsets"][r + 2:]])
    arrays["non_tie_pairs"].pop(r)
    arrays["non_tie_denominators"].pop(r)
    arrays["non_tie_t"].pop(r)
    arrays["tie_pairs"].append(pair)
    order = sorted(range(len(arrays["tie_pairs"])), key=lambda k: arrays["tie_pairs"][k])
    points = arrays["tie_points"] + [point]
    arrays["tie_pairs"] = [arrays["tie_pairs"][k] for k in order]
    arrays["tie_points"] = [points[k] for k in order]
    manifest["assertion"]["tie_pairs"] += 1
    manifest["assertion"]["non_tie_pairs"] -= 1


# --- valid certificates --------------------------------------------------------------------

SQUARE = [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]]


def test_round_trip_of_example_c2_and_the_command_line(tmp_path):
    cert = tmp_path / "c2.zip"
    run = subprocess.run([sys.executable, "-m", "verify", "analyze", "--matrix", str(C2),
                          "--certificate", str(cert), "--json"], capture_output=True,
                         text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    status, summary = both(cert)
    assert status == "OK"
    assert summary == ("analyze, 5 labels in dimension 2: 5 argmaxable (witnesses), 0 "
                       "unargmaxable (convex weights); 10 of 10 pairs decided: "
                       f"{len(doc['tie_pairs'])} can tie, {len(doc['non_tie_pairs'])} cannot")
    check = subprocess.run([sys.executable, "-m", "verify", "check", str(cert)],
                           capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0 and check.stdout.startswith(f"{cert}: OK (analyze")
    # The evidence is the analysis' own: the pairs and labels of --json.
    _, arrays = contents(cert)
    assert arrays["tie_pairs"] == doc["tie_pairs"]
    assert arrays["non_tie_pairs"] == doc["non_tie_pairs"]
    assert arrays["argmax_labels"] == doc["argmaxable"]


def test_the_checker_runs_without_numpy(tmp_path):
    path, _ = certify(tmp_path, SQUARE)
    run = run_checker_without_engine(tmp_path, path)
    assert run.returncode == 0, run.stderr
    assert "OK (analyze, 5 labels" in run.stdout
    assert run.stdout.strip().endswith("outside: []")
    forged = tmp_path / "bad.zip"
    manifest, arrays = contents(path)
    arrays["argmax_points"][0] = [0, 0]
    rewrite(path, manifest, arrays, forged)
    run = run_checker_without_engine(tmp_path, forged)
    assert run.returncode == 1 and "INVALID: argmax witness of label 0" in run.stderr


def test_certificates_are_deterministic_and_atomic(tmp_path):
    rng = np.random.default_rng(3)
    W = rng.standard_normal((60, 4)).astype(np.float32)
    a, result = certify(tmp_path, W, "a.zip")
    b = tmp_path / "b.zip"
    write_analyze_certificate(b, result, W)
    assert a.read_bytes() == b.read_bytes()
    assert both(a)[0] == "OK"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    with zipfile.ZipFile(a) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}


def test_unargmaxable_labels_equal_rows_and_large_integers(tmp_path):
    # Label 4 inside the square; labels 5 and 6 equal; entries far beyond int64.
    big = 10 ** 30
    W = [[big, 0], [0, big], [-big, 0], [0, -big], [1, 1], [big, big], [big, big]]
    path, result = certify(tmp_path, W)
    assert result.argmax.unargmaxable == [4, 5, 6]
    manifest, arrays = contents(path)
    assert manifest["evidence"]["encoding"]["Z"] == "limbs"
    assert both(path) == ("OK", both(path)[1])
    assert both(path)[0] == "OK"


def test_a_head_with_a_bias(tmp_path):
    W, b = [[0], [1], [2], [1]], [0, -1, 0, Fraction(1, 3)]
    path, result = certify(tmp_path, W, bias=b)
    assert both(path)[0] == "OK"
    manifest, arrays = contents(path)
    assert manifest["input"]["bias"] is True and len(arrays["bias"]) == 4
    # Every point carries its scale h > 0 last; h <= 0 is refused.
    forged = copy.deepcopy(arrays)
    forged["argmax_points"][0] = [-v for v in forged["argmax_points"][0]]
    status, message = both(rewrite(path, manifest, forged))
    assert status == "INVALID" and "the scale h = " in message
    # Label 3 (w = 1, b = 1/3) wins at x = 0. Convex weights w_3 = (w_0 + w_2) / 2 hold
    # for the rows, and fail only the bias condition 1/3 <= (0 + 0) / 2.
    assert result.argmax.is_argmaxable(3) and arrays["hull_labels"] == [1]
    forged = copy.deepcopy(arrays)
    r = forged["argmax_labels"].index(3)
    forged["argmax_labels"].pop(r)
    forged["argmax_points"].pop(r)
    forged["hull_labels"].append(3)
    forged["hull_support"] += [0, 2]
    forged["hull_weights"] += [1, 1]
    forged["hull_offsets"].append(len(forged["hull_support"]))
    forged["hull_denominators"].append(2)
    fake = copy.deepcopy(manifest)
    fake["assertion"]["argmaxable"] -= 1
    fake["assertion"]["unargmaxable"] += 1
    assert both(rewrite(path, fake, forged)) == (
        "INVALID", "convex weights[1] of label 3: the bias of label 3 exceeds the "
                   "combination of the others")


def test_check_against_the_matrix_file(tmp_path):
    W = np.random.default_rng(1).standard_normal((30, 3)).astype(np.float32)
    source = tmp_path / "w.npy"
    np.save(source, W)
    cert = tmp_path / "w.zip"
    run = subprocess.run([sys.executable, "-m", "verify", "analyze", "--matrix",
                          str(source), "--certificate", str(cert), "--quiet",
                          "--max-cells", "0"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    ok = subprocess.run([sys.executable, "-m", "verify", "check", str(cert), "--matrix",
                         str(source)], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert "Z = " in ok.stdout and "SHA-256 of the file matches" in ok.stdout
    shared = subprocess.run([sys.executable, "-m", "verify", "check", str(cert), "--matrix",
                             str(source), "--jobs", "2", "--arithmetic", "numpy"],
                            capture_output=True, text=True, cwd=ROOT)
    assert (shared.returncode, shared.stdout) == (0, ok.stdout), shared.stderr
    refused = subprocess.run([sys.executable, "-m", "verify", "check", str(cert),
                              "--matrix", str(source), "--jobs", "0"],
                             capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 2 and refused.stderr.startswith("verify check: --jobs")
    assert len(refused.stderr.splitlines()) == 1
    other = W.copy()
    other[7, 2] = np.nextafter(other[7, 2], np.float32(10))
    np.save(tmp_path / "v.npy", other)
    bad = subprocess.run([sys.executable, "-m", "verify", "check", str(cert), "--matrix",
                          str(tmp_path / "v.npy")], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and "SHA-256 differs" in bad.stderr
    # Without the file hash, the entries themselves are compared.
    with pytest.raises(CertificateError, match="row 7, column 2"):
        confirm_matrix(cert, array=other)
    assert confirm_matrix(cert, array=W).startswith("Z = ")
    assert confirm_matrix(cert, rows=[[Fraction(float(x)) for x in row] for row in W])


def test_heads_with_square_roots_are_refused_in_one_line(tmp_path):
    head = tmp_path / "roots.json"
    head.write_text(json.dumps([["sqrt(2)", "0"], ["0", "1"], ["-1", "-1"]]))
    run = subprocess.run([sys.executable, "-m", "verify", "analyze", "--matrix", str(head),
                          "--certificate", str(tmp_path / "c3.zip")], capture_output=True,
                         text=True, cwd=ROOT)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith(
        "written for rational heads (binary floats, integers, fractions)")
    assert not (tmp_path / "c3.zip").exists()


# --- forgeries, one violated condition each -------------------------------------------------

@pytest.fixture()
def square(tmp_path):
    path, result = certify(tmp_path, SQUARE)
    assert both(path)[0] == "OK"
    manifest, arrays = contents(path)
    return path, manifest, arrays


def forged(square, change, manifest_change=None):
    path, manifest, arrays = square
    manifest, arrays = copy.deepcopy(manifest), copy.deepcopy(arrays)
    change(arrays)
    if manifest_change:
        manifest_change(manifest)
    return both(rewrite(path, manifest, arrays))


def test_witness_moved_onto_a_hyperplane(square):
    _, _, arrays = square
    t = arrays["argmax_labels"][0]
    x = arrays["argmax_points"][0]
    Z = arrays["Z"]
    k = next(k for k in range(len(Z)) if k != t and Z[k] != Z[t])
    v = [a - b for a, b in zip(Z[t], Z[k])]
    y = [dot(v, v) * a - dot(v, x) * b for a, b in zip(x, v)]  # on (z_t - z_k) . y = 0
    assert dot(v, y) == 0

    def change(a):
        a["argmax_points"][0] = y
    status, message = forged(square, change)
    assert status == "INVALID"
    assert message.startswith(f"argmax witness of label {t}: label ")


def test_negative_weight_with_an_exact_identity(square):
    # z_4 = 0 = 2 z_0 - z_1 + 2 z_2 - z_3, weights summing to D = 2: all exact, one < 0.
    def change(a):
        r = a["hull_labels"].index(4)
        a["hull_offsets"] = [0, 4]
        a["hull_support"] = [0, 1, 2, 3]
        a["hull_weights"] = [2, -1, 2, -1]
        a["hull_denominators"][r] = 2
    assert forged(square, change) == ("INVALID", "convex weights[0]: negative weight -1")


def test_weights_that_do_not_sum_to_one(square):
    # z_4 = 0, so doubling its weights keeps D z_4 = sum m_k z_k; only the sum breaks.
    def change(a):
        a["hull_weights"] = [2 * w for w in a["hull_weights"]]
    status, message = forged(square, change)
    assert (status, message) == ("INVALID", "convex weights[0]: the weights sum to 2, not 1")


def test_all_zero_multipliers(square):
    def change(a):
        r = 0
        lo, hi = a["non_tie_offsets"][r], a["non_tie_offsets"][r + 1]
        for k in range(lo, hi):
            a["non_tie_weights"][k] = 0
        a["non_tie_t"][r] = 0
        a["non_tie_denominators"][r] = 0
    status, message = forged(square, change)
    assert status == "INVALID"
    assert message == "no-tie certificate[0]: the denominator must be positive, got 0"


def test_a_tie_point_where_a_third_label_ties(tmp_path):
    # Label 2 lies on the segment [w_0, w_1]: 0 and 1 cannot tie; forge a tie at (1, 1),
    # where labels 0, 1 and 2 all score 2.
    W = [[2, 0], [0, 2], [1, 1], [-1, -1]]
    path, result = certify(tmp_path, W)
    assert result.ties.can_tie(0, 1) is False
    manifest, arrays = contents(path)
    claim_tie(manifest, arrays, [0, 1], [1, 1])
    assert [dot(z, [1, 1]) for z in arrays["Z"]][:3] == [2, 2, 2]
    assert both(rewrite(path, manifest, arrays)) == (
        "INVALID", "tie witness of 0 and 1: label 2 scores at least as high at the point")


def test_a_label_missing(square):
    def change(a):
        a["argmax_labels"].pop(1)
        a["argmax_points"].pop(1)

    def fewer(m):
        m["assertion"]["argmaxable"] -= 1
    assert forged(square, change, fewer) == (
        "INVALID", "label 1 is not decided (every label needs an argmax witness or convex "
                   "weights)")


def test_a_label_decided_twice(square):
    def change(a):
        a["argmax_labels"].append(4)
        a["argmax_points"].append([1, 1])
    status, message = forged(square, change)
    assert (status, message) == ("INVALID", "label 4 has both an argmax witness and "
                                            "convex weights")


def test_a_pair_listed_twice(square):
    def change(a):
        a["tie_pairs"].insert(1, a["tie_pairs"][0])
        a["tie_points"].insert(1, a["tie_points"][0])
    status, message = forged(square, change)
    assert status == "INVALID" and message.startswith("tie_pairs[1]: pairs must increase")

    def across(a):  # a pair both able and unable to tie
        pair = a["non_tie_pairs"][0]
        a["tie_pairs"].append(pair)
        a["tie_points"].append([0, 0])
        a["tie_pairs"].sort()
        a["tie_points"] = [[0, 0]] * len(a["tie_pairs"])
    status, message = forged(square, across)
    assert status == "INVALID" and "is also listed as a tie pair" in message


def test_pairs_out_of_range_or_not_distinct(square):
    for bad in ([2, 2], [3, 1], [0, 5]):
        def change(a, bad=bad):
            a["tie_pairs"][0] = bad
        status, message = forged(square, change)
        assert status == "INVALID"
        assert message == f"tie_pairs[0]: ({bad[0]}, {bad[1]}) is not a pair i < j of labels 0..4"


def test_a_changed_matrix_entry(tmp_path, square):
    # With the hash recomputed, the evidence no longer fits; without, the hash fails.
    path, _ = certify(tmp_path, [[4, 0], [0, 4], [-4, 0], [0, -4], [1, 0]], "inner.zip")
    manifest, arrays = contents(path)
    arrays["Z"][4] = [1, 1]  # still inside the hull: only the weights of label 4 break
    assert both(rewrite(path, manifest, arrays)) == (
        "INVALID", "convex weights[0] of label 4: D z_4 - sum m_k z_k is not 0 in "
                   "coordinate 1")
    path, manifest, arrays = square
    forged_path = path.with_name("changed.zip")
    with zipfile.ZipFile(path) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(forged_path, "w") as z:
        for info, data in members:
            if info.filename == "Z.npy":
                Z = np.load(io.BytesIO(data))
                Z[4, 1] = 1
                buffer = io.BytesIO()
                np.save(buffer, Z)
                data = buffer.getvalue()
            z.writestr(info, data)
    status, message = both(forged_path)
    assert status == "INVALID" and message.startswith("input.sha256 does not match")


def test_a_wrong_hash_or_a_wrong_assertion(square, tmp_path):
    path = square[0]

    def wrong(doc):
        doc["input"]["sha256"] = "0" * 64
    status, message = both(replace_manifest(path, wrong, tmp_path / "h.zip"))
    assert status == "INVALID" and message.startswith("input.sha256 does not match")

    def claims_complete(doc):
        doc["assertion"]["unargmaxable"] = 0
    status, message = both(replace_manifest(path, claims_complete, tmp_path / "a.zip"))
    assert (status, message) == ("INVALID", "assertion.unargmaxable is 0, the evidence has 1")


def test_witness_of_the_wrong_shape_or_support_label_not_allowed(square):
    def shape(a):
        a["argmax_points"] = [p + [0] for p in a["argmax_points"]]
    status, message = forged(square, shape)
    assert (status, message) == ("INVALID", "argmax_points: shape (4, 3), expected (4, 2)")

    def self_support(a):
        a["hull_support"][0] = 4
    status, message = forged(square, self_support)
    assert status == "INVALID" and "support label 4 is not allowed" in message


def test_an_identity_broken_by_a_multiple_of_a_prime(square):
    # Every coordinate of the forged sum is a multiple of the largest prime used: one
    # prime alone would accept it; the product of enough primes does not.
    from verify.checker.analyze import primes_with_product_above

    p = primes_with_product_above(1)[0]
    _, _, arrays = square
    i, j = arrays["non_tie_pairs"][0]
    assert arrays["Z"][i] != arrays["Z"][j]

    def change(a):
        a["non_tie_t"][0] += p * a["non_tie_denominators"][0]
    status, message = forged(square, change)
    assert status == "INVALID" and message.startswith(f"no-tie certificate[0] of {i} and {j}")


def test_bias_ties_at_infinity_and_empty_no_tie_certificates(tmp_path):
    # Labels 0 and 1 have the same row and biases 0 and 1: logit_1 = logit_0 + 1, they
    # never tie. In the direction x = 1 "at h = 0" (not an input) they score alike
    # above label 2: a forged tie there is refused for h = 0 alone.
    W, b = [[1], [1], [0]], [0, 1, 0]
    path, result = certify(tmp_path, W, bias=b)
    assert result.ties.can_tie(0, 1) is False
    manifest, arrays = contents(path)
    forged, fake = copy.deepcopy(arrays), copy.deepcopy(manifest)
    claim_tie(fake, forged, [0, 1], [1, 0])
    assert both(rewrite(path, fake, forged)) == (
        "INVALID", "tie witness of labels 0 and 1: the scale h = 0 of the input must be "
                   "positive")
    # A no-tie certificate without weights and with T = 0 proves nothing (sigma = 0).
    forged = copy.deepcopy(arrays)
    r = forged["non_tie_pairs"].index([0, 1])
    lo, hi = forged["non_tie_offsets"][r], forged["non_tie_offsets"][r + 1]
    for k in range(lo, hi):
        forged["non_tie_weights"][k] = 0
    forged["non_tie_t"][r] = 0
    assert both(rewrite(path, manifest, forged)) == (
        "INVALID", f"no-tie certificate[{r}] of 0 and 1: the bias term is zero with no "
                   "weight")


def test_a_no_tie_identity_broken_by_one(square):
    def change(a):
        a["non_tie_t"][0] += 1
    status, message = forged(square, change)
    assert status == "INVALID" and message.startswith("no-tie certificate[0] of ")


def test_not_a_certificate_archive(tmp_path):
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "hi")
    run = subprocess.run([sys.executable, "-m", "verify", "check", str(path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 2 and "ERROR: not a certificate archive: no manifest.json" \
        in run.stderr


# --- random heads: valid certificates accepted, single violations rejected ------------------

entries = st.integers(-3, 3)


@st.composite
def heads(draw):
    n = draw(st.integers(2, 7))
    d = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(entries, min_size=d, max_size=d), min_size=n, max_size=n))
    return rows


MUTATIONS = ["argmax point", "tie point", "hull weight", "no-tie weight", "no-tie t",
             "matrix entry", "drop label"]


def mutate(arrays, which: str, pick) -> bool:
    """Break one condition; False if this certificate has nothing of that kind.

    ``pick(options)`` chooses one of a non-empty list."""
    a = arrays
    if which == "argmax point" and a["argmax_points"]:
        r = pick(range(len(a["argmax_points"])))
        t = a["argmax_labels"][r]
        # Move the point onto the hyperplane of label t and a rival with another row.
        rivals = [k for k in range(len(a["Z"])) if a["Z"][k] != a["Z"][t]]
        if not rivals:
            return False
        k = pick(rivals)
        x = a["argmax_points"][r]
        v = [p - q for p, q in zip(a["Z"][t], a["Z"][k])]
        a["argmax_points"][r] = [dot(v, v) * p - dot(v, x) * q for p, q in zip(x, v)]
        return True
    if which == "tie point" and a["tie_points"]:
        r = pick(range(len(a["tie_points"])))
        i, j = a["tie_pairs"][r]
        if a["Z"][i] == a["Z"][j]:
            return False
        # A point where i beats j strictly: z_i - z_j itself.
        a["tie_points"][r] = [p - q for p, q in zip(a["Z"][i], a["Z"][j])]
        return True
    if which == "hull weight" and a["hull_weights"]:
        k = pick(range(len(a["hull_weights"])))
        a["hull_weights"][k] = -a["hull_weights"][k] - 1
        return True
    if which == "no-tie weight" and a["non_tie_weights"]:
        k = pick(range(len(a["non_tie_weights"])))
        a["non_tie_weights"][k] = -a["non_tie_weights"][k] - 1
        return True
    if which == "no-tie t" and a["non_tie_t"]:
        r = pick(range(len(a["non_tie_t"])))
        i, j = a["non_tie_pairs"][r]
        if a["Z"][i] == a["Z"][j]:
            return False  # t multiplies a zero row
        a["non_tie_t"][r] += a["non_tie_denominators"][r]
        return True
    if which == "matrix entry":
        r = pick(range(len(a["Z"])))
        c = pick(range(len(a["Z"][0])))
        a["Z"][r][c] += pick([-7, -1, 1, 7]) * (1 + abs(a["Z"][r][c]))
        return "may stay valid"
    if which == "drop label" and a["argmax_labels"]:
        r = pick(range(len(a["argmax_labels"])))
        a["argmax_labels"].pop(r)
        a["argmax_points"].pop(r)
        return True
    return False


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(W=heads(), data=st.data())
def test_random_certificates_accepted_and_single_violations_rejected(tmp_path_factory, W,
                                                                     data):
    tmp = tmp_path_factory.mktemp("random")
    path, result = certify(tmp, W)
    assert both(path)[0] == "OK"
    manifest, arrays = contents(path)
    which = data.draw(st.sampled_from(MUTATIONS))
    changed = mutate(arrays, which, lambda xs: data.draw(st.sampled_from(list(xs))))
    assume(changed)
    status, message = both(rewrite(path, manifest, arrays))
    if changed is True:
        assert status == "INVALID", (which, W)
    elif status == "OK":
        # A changed row that the evidence still fits: the evidence must then be true of
        # the changed head, which the engine confirms independently.
        from verify.analyze.argmax import is_argmax_witness
        Z = arrays["Z"]
        for t, x in zip(arrays["argmax_labels"], arrays["argmax_points"]):
            assert is_argmax_witness(Z, t, x)


def test_numpy_and_python_agree_on_float_heads(tmp_path):
    rng = np.random.default_rng(7)
    W = rng.standard_normal((80, 3)).astype(np.float32)
    W[5] = (W[1] + W[2] + W[3]) / 3  # inside the hull
    path, result = certify(tmp_path, W)
    assert 5 in result.argmax.unargmaxable
    assert both(path)[0] == "OK"
    manifest, arrays = contents(path)
    for which in MUTATIONS:
        trial = copy.deepcopy(arrays)
        for seed in range(3):
            local = copy.deepcopy(trial)
            rng = np.random.default_rng(seed)
            if mutate(local, which, lambda xs: list(xs)[int(rng.integers(len(xs)))]) is True:
                both(rewrite(path, manifest, local, tmp_path / f"{which}-{seed}.zip"))


def test_bias_from_the_command_line_and_check_against_both_files(tmp_path):
    (tmp_path / "w.json").write_text("[[0], [1], [2], [1]]")
    (tmp_path / "b.txt").write_text("0\n-1\n0\n1/3\n")
    cert = tmp_path / "wb.zip"

    def verify(*args):
        return subprocess.run([sys.executable, "-m", "verify", *map(str, args)],
                              capture_output=True, text=True, cwd=ROOT)
    w, b = tmp_path / "w.json", tmp_path / "b.txt"
    run = verify("analyze", "--matrix", w, "--bias", b, "--certificate", cert)
    assert run.returncode == 0, run.stderr
    ok = verify("check", cert, "--matrix", w, "--bias", b)
    assert ok.returncode == 0, ok.stderr
    assert "with a bias: 3 argmaxable" in ok.stdout and "Z = 3 W exactly" in ok.stdout
    (tmp_path / "c.txt").write_text("0\n-1\n0\n1/2\n")
    bad = verify("check", cert, "--matrix", w, "--bias", tmp_path / "c.txt")
    assert bad.returncode == 1 and "bias entry 3" in bad.stderr
    missing = verify("check", cert, "--matrix", w)
    assert missing.returncode == 1 and "give it (--bias)" in missing.stderr


def test_identities_beyond_the_prime_limit_are_computed_in_integers(square, monkeypatch):
    from verify.checker import analyze as checker

    monkeypatch.setattr(checker, "MAX_PRIMES", 0)  # every identity in Python integers
    assert both(square[0])[0] == "OK"

    def change(a):  # still non-negative and summing to 1; the identity breaks
        a["hull_weights"][0] += a["hull_weights"][1]
        a["hull_weights"][1] = 0
    status, message = forged(square, change)
    assert status == "INVALID" and message.startswith("convex weights[0] of label 4")


@pytest.mark.parametrize("point", [list, None])
@pytest.mark.parametrize("top", [5, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 95, -2 ** 63])
def test_points_computed_one_at_a_time_encode_like_the_list(top, point):
    """``PointRows`` (two passes, no list of all points; ``point`` None: rows of
    Python ints taken as they are) gives the arrays of the list."""
    from types import SimpleNamespace

    from verify.analyze.certificate import PointRows, encode

    rows = [[top, -3, 0], [0, 0, 0], [-abs(top), 1, 2 ** 40], [7, -(top // 2), 1]]
    lazy = PointRows([SimpleNamespace(point=tuple(r)) for r in rows], point, 3)
    enc, parts = encode(lazy)
    ref_enc, ref_parts = encode(rows)
    assert enc == ref_enc == ("int64" if -2 ** 63 <= top < 2 ** 63 else "limbs")
    assert parts.keys() == ref_parts.keys()
    for key in parts:
        assert parts[key].dtype == ref_parts[key].dtype
        assert parts[key].shape == ref_parts[key].shape
        assert parts[key].tobytes() == ref_parts[key].tobytes()


class _Projected:
    """A witness whose point is ``s y`` except ``top`` at ``p``, given both ways."""

    def __init__(self, s, y, p, top):
        self.s, self.y, self.p, self.top = s, np.array(y, dtype=np.int64), p, top

    @property
    def point(self):
        row = [self.s * int(v) for v in self.y]
        row[self.p] = self.top
        return tuple(row)

    def point_parts(self, vx=None):  # vx: what projected_dots gives (None here)
        return self.s, self.y.copy(), self.p, self.top


_MAGNITUDES = st.sampled_from([0, 1, 5, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 62,
                               2 ** 63 - 1, 2 ** 63, 2 ** 63 + 1, 2 ** 64, 2 ** 95, 2 ** 130])


@st.composite
def _projected_witnesses(draw):
    width = draw(st.integers(1, 4))
    out = []
    for _ in range(draw(st.integers(0, 5))):
        s = draw(st.one_of(st.integers(1, 2 ** 40), _MAGNITUDES.filter(bool)))
        y = draw(st.lists(st.integers(-2 ** 20, 2 ** 20), min_size=width, max_size=width))
        top = draw(st.one_of(st.integers(-2 ** 70, 2 ** 70), _MAGNITUDES,
                             _MAGNITUDES.map(lambda v: -v)))
        out.append(_Projected(s, y, draw(st.integers(0, width - 1)), top))
    return width, out


@given(_projected_witnesses())
@settings(max_examples=300, deadline=None)
def test_projected_points_encode_like_the_list(case):
    """The fast path of ``PointRows`` (an int64 vector and one large entry per point)
    gives the arrays of the list of points, entry by entry (``-2^63``, ``2^63 - 1``,
    ``2^63`` and the limb boundaries included)."""
    from verify.analyze.certificate import PointRows, encode

    width, witnesses = case
    rows = [list(w.point) for w in witnesses]
    ref_enc, ref_parts = encode(rows) if rows else ("int64", {"": np.zeros((0, width),
                                                                         dtype=np.int64)})
    for point in (None, list):
        assert [list(r) for r in PointRows(witnesses, point, width)] == rows
        enc, parts = encode(PointRows(witnesses, point, width))
        assert enc == ref_enc
        assert parts.keys() == ref_parts.keys()
        for key in parts:
            assert parts[key].dtype == ref_parts[key].dtype
            assert parts[key].shape == ref_parts[key].shape
            assert parts[key].tobytes() == ref_parts[key].tobytes()


@pytest.mark.parametrize("top", [-2 ** 63, 2 ** 63 - 1])
def test_the_int64_extremes_stay_int64(top):
    from verify.analyze.certificate import PointRows, encode

    w = _Projected(3, [1, -2, 0], 2, top)
    enc, parts = encode(PointRows([w], None, 3))
    assert enc == "int64" and parts[""].tolist() == [list(w.point)]


@pytest.mark.parametrize("seed", [0, 1])
def test_tie_witnesses_of_a_head_encode_like_their_points(seed):
    """Projected tie witnesses of a real head (entries near 2^41, long points whose
    entry ``p`` alone exceeds int64) through the fast path: the arrays of their points,
    each point on its hyperplane."""
    from verify.analyze.head import make_head
    from verify.analyze.certificate import PointRows, encode
    from verify.analyze.ties import ProjectedTieWitness

    rng = np.random.default_rng(seed)
    head = make_head(rng.integers(-2 ** 41, 2 ** 41, size=(12, 64)))
    assert head.Zarr is not None
    witnesses = []
    for _ in range(20):
        i, j = (int(v) for v in rng.choice(12, 2, replace=False))
        x = rng.integers(-2 ** 20, 2 ** 20, size=64)
        p = int(np.argmax(np.abs(head.Zarr[i] - head.Zarr[j])))
        witnesses.append(ProjectedTieWitness(head, i, j, x, p))
    rows = [list(w.point) for w in witnesses]
    parts = [w.point_parts() for w in witnesses]  # the case of the fast path:
    assert any(s * int(np.abs(y).max()) < 2 ** 63 <= abs(top) for s, y, _, top in parts)
    assert all(sum(a * (b - c) for a, b, c in zip(r, head.Z[w._source[1]],
                                                  head.Z[w._source[2]])) == 0
               for r, w in zip(rows, witnesses))
    enc, parts = encode(PointRows(witnesses, None, 64))
    ref_enc, ref_parts = encode(rows)
    assert enc == ref_enc == "limbs"
    assert all(parts[k].tobytes() == ref_parts[k].tobytes() for k in ref_parts)


@pytest.mark.parametrize("block", [1, 3, 1024])
def test_tie_dots_are_the_exact_products_of_many_witnesses(block):
    """``v . x`` for many witnesses at once (blocks of ``block``), against Python
    integers; None for points with an entry beyond ``2^20`` and on a head of Python
    integers, where each witness computes its own."""
    from verify.analyze.head import make_head
    from verify.analyze.screen import tie_dots

    rng = np.random.default_rng(block)
    head = make_head(rng.integers(-2 ** 61, 2 ** 61, size=(9, 40)))
    sources = []
    for r in range(11):
        i, j = (int(v) for v in rng.choice(9, 2, replace=False))
        top = 2 ** 20 + (r % 4 == 3)  # every fourth point one beyond the bound
        x = rng.integers(-2 ** 20, 2 ** 20, size=40)
        x[r % 40] = top if r % 2 else -top
        sources.append((i, j, x))
    got = tie_dots(head, sources, block=block)
    for (i, j, x), vx in zip(sources, got):
        if int(np.abs(x).max()) > 2 ** 20:
            assert vx is None
        else:
            assert vx == sum((a - b) * int(c) for a, b, c in zip(head.Z[i], head.Z[j], x))
    assert any(vx is None for vx in got) and any(vx is not None for vx in got)
    long = make_head([[v + (1 << 70) for v in row] for row in head.Z])
    assert long.Zarr is None and tie_dots(long, sources) == [None] * len(sources)
