"""``analyze --domain``: labels and pairs over x >= 0 and boxes, against independent answers.

References: a linear program per label and per pair (scipy's HiGHS, floating point,
with the domain as bounds), brute force over rational points of the domain for
``d = 2`` (exact, ``fractions.Fraction``), every witness and certificate re-checked
here and by the stdlib checker, and forged certificates that must be rejected.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from verify.analyze import analyze, to_json
from verify.analyze.report import analyze_in_domain
from verify.analyze.certificate import write_analyze_certificate, write_archive
from verify.analyze.domain import (
    Domain,
    is_domain_argmax_certificate,
    is_domain_argmax_witness,
    is_domain_no_tie_certificate,
    is_domain_tie_witness,
    mixed_feasibility,
    parse_domain,
)
from verify.analyze.ties import TieWitness
from verify.checker.analyze import Archive, check_file, read_manifest
from verify.checker.core import CertificateError
from verify.lp.feasibility import Witness

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ["nonneg", "box:0,6", "box:-1/2,3/2", "box:1,2"]


def Fr(x) -> Fraction:
    return Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)


def random_head(rng: random.Random, bias: bool):
    """A small integer head, often with equal rows and rows equal up to the bias."""
    n, d = rng.randint(2, 6), rng.randint(1, 3)
    W = [[rng.randint(-3, 3) for _ in range(d)] for _ in range(n)]
    b = [rng.randint(-3, 3) for _ in range(n)] if bias else None
    if n >= 3 and rng.random() < 0.5:
        W[-1] = list(W[0])  # equal rows (up to the bias, with one)
        if b is not None and rng.random() < 0.5:
            b[-1] = b[0]  # equal lifted rows
    return W, b


def heads(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield random_head(rng, bias=rng.random() < 0.5)


# --- independent answers -----------------------------------------------------------------

def bounds(domain: Domain, d: int):
    if domain.kind == "nonneg":
        return [(0, None)] * d
    return [(float(domain.lower), float(domain.upper))] * d


def lp_margin(W, b, domain, top, partner=None) -> float:
    """max t subject to l_top - l_k >= t (k != top, partner), l_top = l_partner, x in
    the domain, t <= 1 (scipy HiGHS)."""
    n, d = len(W), len(W[0])
    A = np.array(W, dtype=float)
    beta = np.zeros(n) if b is None else np.array(b, dtype=float)
    rivals = [k for k in range(n) if k not in (top, partner)]
    A_ub = [list(A[k] - A[top]) + [1.0] for k in rivals]
    b_ub = [beta[top] - beta[k] for k in rivals]
    kw = {}
    if partner is not None:
        kw = {"A_eq": [list(A[top] - A[partner]) + [0.0]], "b_eq": [beta[partner] - beta[top]]}
    if not A_ub:
        A_ub, b_ub = None, None
    res = linprog([0.0] * d + [-1.0], A_ub=A_ub, b_ub=b_ub, bounds=bounds(domain, d)
                  + [(None, 1)], method="highs", **kw)
    return -np.inf if res.status == 2 else -res.fun


def lp_decides(margin: float):
    """True / False from a float margin, None when too close to 0 to tell."""
    if margin > 1e-7:
        return True
    if margin < -1e-7 or margin == -np.inf:
        return False
    return False if abs(margin) < 1e-12 else None


def grid_points(domain: Domain, steps: int = 24):
    """Rational points of the domain (d = 2): a grid on the box, on [0, 6]^2 for x >= 0."""
    lo, hi = (Fraction(0), Fraction(6)) if domain.kind == "nonneg" else (domain.lower, domain.upper)
    axis = [lo + (hi - lo) * k / steps for k in range(steps + 1)]
    return [(a, c) for a in axis for c in axis]


def logits(W, b, x):
    return [sum(Fraction(w) * v for w, v in zip(row, x)) + (Fraction(b[k]) if b else 0)
            for k, row in enumerate(W)]


def check_against_references(W, b, domain_text):
    domain = parse_domain(domain_text)
    r = analyze(W, bias=b, domain=domain_text, cells=False)
    n, d = len(W), len(W[0])
    assert r.ties.complete and len(r.ties.evidence) == n * (n - 1) // 2
    for i, e in enumerate(r.argmax.evidence):
        if isinstance(e, Witness):
            x = [Fr(v) for v in e.point]
            assert domain.contains(x)
            s = logits(W, b, x)
            assert all(s[i] > s[k] for k in range(n) if k != i)
            assert is_domain_argmax_witness(W, b, i, e.point, domain)
        else:
            assert is_domain_argmax_certificate(W, b, i, e.multipliers, domain)
            assert sum(Fr(v) for _, v in e.multipliers) == 1
        expected = lp_decides(lp_margin(W, b, domain, i))
        if expected is not None:
            assert isinstance(e, Witness) == expected, (W, b, domain_text, i, e)
    for (i, j), e in r.ties.evidence.items():
        if isinstance(e, TieWitness):
            x = [Fr(v) for v in e.point]
            assert domain.contains(x)
            s = logits(W, b, x)
            assert s[i] == s[j] and all(s[i] > s[k] for k in range(n) if k not in (i, j))
            assert is_domain_tie_witness(W, b, i, j, e.point, domain)
        else:
            assert is_domain_no_tie_certificate(W, b, i, j, e, domain)
        expected = lp_decides(lp_margin(W, b, domain, i, j))
        if expected is not None:
            assert isinstance(e, TieWitness) == expected, (W, b, domain_text, i, j, e)
    if d == 2:
        winners = set()
        for x in grid_points(domain):
            s = logits(W, b, x)
            top = max(s)
            at_top = [k for k in range(n) if s[k] == top]
            if len(at_top) == 1:
                winners.add(at_top[0])
            elif len(at_top) == 2:
                assert r.ties.can_tie(*at_top), (W, b, domain_text, at_top, x)
        assert winners <= set(r.argmax.argmaxable), (W, b, domain_text, winners)
        check_ties_on_lines(W, b, domain, r)
    return r


def check_ties_on_lines(W, b, domain, r):
    """d = 2: rational points of each line l_i = l_j in the domain; a tie on top found
    there must be a certified tie pair."""
    n = len(W)
    beta = b or [0] * n
    for i in range(n):
        for j in range(i + 1, n):
            v = [Fraction(W[i][c] - W[j][c]) for c in range(2)]
            c0 = Fraction(beta[i] - beta[j])
            if v == [0, 0]:
                continue
            # points x0 + tau u on v . x + c0 = 0
            x0 = [-c0 * v[0] / (v[0] ** 2 + v[1] ** 2), -c0 * v[1] / (v[0] ** 2 + v[1] ** 2)]
            u = [-v[1], v[0]]
            for k in range(-240, 241):
                x = [x0[0] + u[0] * Fraction(k, 20), x0[1] + u[1] * Fraction(k, 20)]
                if not domain.contains(x):
                    continue
                s = logits(W, b, x)
                if s[i] == s[j] and all(s[i] > s[m] for m in range(n) if m not in (i, j)):
                    assert r.ties.can_tie(i, j), (W, b, str(domain), i, j, x)
                    break


# --- the answers ------------------------------------------------------------------------------

@pytest.mark.parametrize("domain", DOMAINS)
def test_random_heads_agree_with_linear_programs_and_brute_force(domain):
    for W, b in heads(12, seed=sum(map(ord, domain))):
        check_against_references(W, b, domain)


def test_two_dimensional_heads_with_bias_and_equal_rows():
    rng = random.Random(7)
    for _ in range(10):
        n = rng.randint(3, 6)
        W = [[rng.randint(-3, 3) for _ in range(2)] for _ in range(n)]
        W[1] = list(W[0])
        b = [rng.randint(-2, 2) for _ in range(n)]
        for domain in DOMAINS:
            check_against_references(W, b, domain)
            check_against_references(W, None, domain)


def test_a_label_that_wins_only_outside_the_domain():
    W = [[1, 0], [0, 1], [-1, -1]]
    assert analyze(W, cells=False).argmax.unargmaxable == []
    for domain in ("nonneg", "box:0,6"):
        r = analyze(W, domain=domain, cells=False)
        assert r.argmax.unargmaxable == [2]
        assert is_domain_argmax_certificate(W, None, 2, r.argmax.evidence[2].multipliers,
                                            domain)
        assert not is_domain_argmax_certificate(W, None, 2, r.argmax.evidence[2].multipliers,
                                                "all")
    # a box that reaches the negative quadrant gives label 2 its region back
    assert analyze(W, domain="box:-1,1", cells=False).argmax.unargmaxable == []


def test_a_tie_on_the_boundary_of_the_domain_counts():
    # w_0 = (1, 0), w_1 = (1, 1): l_0 = l_1 only where x_1 = 0, the boundary of x >= 0.
    W = [[1, 0], [1, 1], [-1, -1]]
    for domain in ("nonneg", "box:0,6"):
        r = analyze(W, domain=domain, cells=False)
        assert r.ties.can_tie(0, 1)
        assert r.ties.evidence[(0, 1)].point[1] == 0
    # a box with x_1 >= 1 never reaches it: a certificate with tau < 0 and y = 0
    r = analyze(W, domain="box:1,2", cells=False)
    e = r.ties.evidence[(0, 1)]
    assert not r.ties.can_tie(0, 1) and not e.multipliers


def test_mixed_feasibility_on_small_systems():
    kind, z = mixed_feasibility([[1, 0]], [[0, 1]], [[1, -1]])
    assert kind == "point" and z[0] > 0 and z[0] == z[1]
    answer = mixed_feasibility([[1, 0]], [[-1, 0]])
    assert answer[0] == "multipliers" and answer[1] == [1] and answer[2] == [1]
    assert mixed_feasibility([[1, 0]], [], [[1, 0]])[0] == "multipliers"


def test_parse_domain():
    assert parse_domain("box:0,6") == Domain("box", Fraction(0), Fraction(6))
    assert parse_domain("box:-1/2,3.5") == Domain("box", Fraction(-1, 2), Fraction(7, 2))
    assert str(parse_domain(" nonneg ")) == "nonneg" and parse_domain(None).is_all
    for bad in ("box:1,1", "box:2,1", "box:a,1", "box:1/0,2", "box:1", "box:1,2,3", "relu",
                "box:nan,1", "box:1e3,2e3", ""):
        with pytest.raises(ValueError):
            parse_domain(bad)


def test_heads_above_200_labels_are_decided_with_neighbour_pairs():
    rng = np.random.default_rng(5)
    W = rng.integers(-4, 5, size=(230, 3))
    b = rng.integers(-3, 4, size=230)
    W[7], b[7] = W[3], b[3] + 1  # a row equal up to the bias
    a = analyze_in_domain(W, b, "nonneg", neighbours=2)
    assert not a.ties.complete and len(a.ties.evidence) >= 230
    for i in range(230):
        lp = linprog(np.r_[np.zeros(3), -1.0],
                     A_ub=np.c_[-(W[i] - np.delete(W, i, 0)), np.ones(229)],
                     b_ub=b[i] - np.delete(b, i), bounds=[(0, None)] * 3 + [(None, 1)],
                     method="highs")
        assert (lp.x[-1] > 1e-9) == (i in a.argmax.argmaxable), i
    Wl, bl = W.tolist(), b.tolist()
    for i, e in enumerate(a.argmax.evidence):
        assert (is_domain_argmax_witness(Wl, bl, i, e.point, "nonneg") if isinstance(e, Witness)
                else is_domain_argmax_certificate(Wl, bl, i, e.multipliers, "nonneg"))
    for (i, j), e in a.ties.evidence.items():
        assert (is_domain_tie_witness(Wl, bl, i, j, e.point, "nonneg")
                if isinstance(e, TieWitness)
                else is_domain_no_tie_certificate(Wl, bl, i, j, e, "nonneg"))
    assert to_json(analyze_in_domain(W, b, "nonneg", neighbours=2, jobs=2)) == to_json(a)


# --- the command line ---------------------------------------------------------------------

def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_domain_all_leaves_output_and_certificates_byte_identical(tmp_path):
    c2 = str(ROOT / "examples" / "c2.json")
    bias = tmp_path / "b.txt"
    bias.write_text("1\n-2\n0\n3\n1\n")
    for extra in ([], ["--bias", str(bias)]):
        for out in ([], ["--json"]):
            plain = run("analyze", "--matrix", c2, *extra, *out,
                        "--certificate", str(tmp_path / "a.zip"))
            same = run("analyze", "--matrix", c2, *extra, *out, "--domain", "all",
                       "--certificate", str(tmp_path / "b.zip"))
            assert plain.returncode == same.returncode == 0, plain.stderr + same.stderr
            assert plain.stdout == same.stdout
            assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
            assert "--domain" not in plain.stdout and '"domain"' not in plain.stdout
    W = [[1, 0], [0, 1], [-1, -1], [0, 0]]
    assert to_json(analyze(W, domain="all")) == to_json(analyze(W))
    assert to_json(analyze(W, bias=[1, 0, 2, 1], domain="all")) == \
        to_json(analyze(W, bias=[1, 0, 2, 1]))


@pytest.mark.parametrize("value", ["box:1,1", "box:x,2", "box:1/0,2", "positive", "box:3,-3"])
def test_bad_domains_are_one_line_with_exit_code_2(value):
    p = run("analyze", "--matrix", str(ROOT / "examples" / "c2.json"), "--domain", value)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "--domain" in p.stderr


def test_a_head_above_200_labels_on_the_command_line(tmp_path):
    rng = random.Random(3)
    path = tmp_path / "big.json"
    path.write_text(json.dumps([[rng.randint(-5, 5), rng.randint(-5, 5)] for _ in range(201)]))
    cert = tmp_path / "c.zip"
    p = run("analyze", "--matrix", str(path), "--domain", "box:0,1", "--json",
            "--certificate", str(cert))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["domain"] == "box:0,1" and doc["n"] == 201 and not doc["tie_pairs_complete"]
    c = run("check", str(cert))
    assert c.returncode == 0, c.stdout + c.stderr


def test_the_command_line_with_a_domain_and_its_certificate(tmp_path):
    c2 = str(ROOT / "examples" / "c2.json")
    cert = tmp_path / "c.zip"
    p = run("analyze", "--matrix", c2, "--domain", "box:-1/2,3.5", "--json",
            "--certificate", str(cert))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["domain"] == "box:-1/2,7/2" and doc["cells"] is None
    q = run("check", str(cert), "--matrix", c2)
    assert q.returncode == 0 and "on the domain -1/2 <= x_j <= 7/2" in q.stdout


# --- certificates -----------------------------------------------------------------------------

def certify(path, W, b, domain):
    result = analyze(W, bias=b, domain=domain, cells=False)
    write_analyze_certificate(path, result, W, bias=b)
    return result


def verdict(path, backend="python"):
    try:
        return "OK", check_file(path, backend=backend)
    except CertificateError as exc:
        return "INVALID", str(exc)


@pytest.mark.parametrize("domain", DOMAINS)
def test_certificates_verify_with_both_arithmetics(tmp_path, domain):
    for r, (W, b) in enumerate(heads(8, seed=len(domain))):
        path = tmp_path / f"c{r}.zip"
        certify(path, W, b, domain)
        python, numpy_ = verdict(path, "python"), verdict(path, "numpy")
        assert python == numpy_ and python[0] == "OK", python
        manifest = json.loads(zipfile.ZipFile(path).read("manifest.json"))
        assert manifest["input"]["domain"]["kind"] == domain.split(":")[0]
        assert manifest["input"]["bias"] == (b is not None)


def contents(path):
    archive = Archive(path)
    m = read_manifest(archive)
    return archive.manifest, {name: archive.array(name, enc).rows()
                              for name, enc in m["encoding"].items()}


def rewrite(path, manifest, arrays, out):
    """The archive of ``arrays`` with ``manifest``'s facts (hash recomputed)."""
    inp = manifest["input"]
    width = inp["d"] + 1
    shaped = {}
    for name, values in arrays.items():
        if name in ("argmax_points", "tie_points") and not values:
            values = np.zeros((0, width), dtype=np.int64)
        elif name in ("tie_pairs", "non_tie_pairs") and not values:
            values = np.zeros((0, 2), dtype=np.int64)
        shaped[name] = values
    p, q = inp["scale"].split("/")
    dom = inp.get("domain")
    domain = None if dom is None else parse_domain(
        dom["kind"] if dom["kind"] == "nonneg" else f"box:{dom['lower']},{dom['upper']}")
    facts = {"n": inp["n"], "d": inp["d"], "scale": Fraction(int(p), int(q)),
             "bias": inp["bias"], "assertion": manifest["assertion"], "domain": domain}
    write_archive(out, shaped, facts, inp["source"])
    return out


def replace_manifest(path, change, out):
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


@pytest.fixture
def dominated(tmp_path):
    """x >= 0: label 2 dominated by 1/2 w_0 + 1/2 w_1; labels 0, 1 tie at x_0 = x_1."""
    W = [[2, 0], [0, 2], [-1, -1], [1, 1]]
    path = tmp_path / "dom.zip"
    result = certify(path, W, [0, 0, 0, 0], "nonneg")
    assert verdict(path)[0] == "OK"
    return path, result


def one_line_invalid(path, needle):
    status, message = verdict(path)
    assert status == "INVALID" and needle in message, message
    assert "\n" not in message
    assert verdict(path, "numpy") == (status, message)
    p = run("check", str(path))
    assert p.returncode != 0 and len((p.stdout + p.stderr).strip().splitlines()) == 1
    return message


def test_a_forged_convex_weight_is_rejected(tmp_path):
    # x >= 0: w_2 = 0 is dominated by w_0 (or w_1), not by w_3 = (-1, 2)
    W = [[1, 0], [0, 1], [0, 0], [-1, 2]]
    path = tmp_path / "c.zip"
    certify(path, W, None, "nonneg")
    manifest, arrays = contents(path)
    r = arrays["hull_labels"].index(2)
    lo, hi = arrays["hull_offsets"][r], arrays["hull_offsets"][r + 1]
    den = arrays["hull_denominators"][r]
    arrays["hull_support"][lo:hi] = [3]
    arrays["hull_weights"][lo:hi] = [den]
    shift = 1 - (hi - lo)
    arrays["hull_offsets"] = [o if k <= r else o + shift
                              for k, o in enumerate(arrays["hull_offsets"])]
    out = rewrite(path, manifest, arrays, tmp_path / "forged.zip")
    one_line_invalid(out, f"convex weights[{r}] of label 2")


def test_forged_no_tie_multipliers_are_rejected(dominated, tmp_path):
    path, _ = dominated
    manifest, arrays = contents(path)
    assert arrays["non_tie_pairs"]
    i, j = arrays["non_tie_pairs"][0]
    lo, hi = arrays["non_tie_offsets"][0], arrays["non_tie_offsets"][1]
    # all multipliers 0: tau = 0 is not negative
    zero = {**arrays, "non_tie_weights": [0 if lo <= k < hi else w for k, w in
                                          enumerate(arrays["non_tie_weights"])],
            "non_tie_t": [0] + arrays["non_tie_t"][1:]}
    out = rewrite(path, manifest, zero, tmp_path / "zero.zip")
    one_line_invalid(out, "every weight is 0")
    # t far too large: G has a positive coordinate, unbounded on x >= 0
    v = [a - c for a, c in zip(arrays["Z"][i], arrays["Z"][j])]
    big = 100 * arrays["non_tie_denominators"][0] * (1 if max(v) > 0 else -1)
    forged = {**arrays, "non_tie_t": [big] + arrays["non_tie_t"][1:]}
    out = rewrite(path, manifest, forged, tmp_path / "forged.zip")
    one_line_invalid(out, "unbounded on x >= 0")


def test_a_witness_outside_the_domain_is_rejected(tmp_path):
    # over all of R^d label 2 wins at x = (-1, -1); claim that as a witness on x >= 0
    W = [[1, 0], [0, 1], [-1, -1]]
    path = tmp_path / "c.zip"
    certify(path, W, None, "nonneg")
    manifest, arrays = contents(path)
    r = arrays["hull_labels"].index(2)
    del arrays["hull_labels"][r]
    lo, hi = arrays["hull_offsets"][r], arrays["hull_offsets"][r + 1]
    del arrays["hull_support"][lo:hi], arrays["hull_weights"][lo:hi]
    del arrays["hull_denominators"][r]
    arrays["hull_offsets"] = [o if o <= lo else o - (hi - lo) for k, o in
                              enumerate(arrays["hull_offsets"]) if k != r + 1]
    labels = arrays["argmax_labels"] + [2]
    order = sorted(range(len(labels)), key=labels.__getitem__)
    points = arrays["argmax_points"] + [[-1, -1, 1]]
    arrays["argmax_labels"] = [labels[k] for k in order]
    arrays["argmax_points"] = [points[k] for k in order]
    manifest["assertion"]["argmaxable"] += 1
    manifest["assertion"]["unargmaxable"] -= 1
    out = rewrite(path, manifest, arrays, tmp_path / "forged.zip")
    one_line_invalid(out, "outside the domain x >= 0")


@pytest.mark.parametrize("change", [
    {"kind": "box", "lower": "-1", "upper": "1"},
    {"kind": "box", "lower": "0", "upper": "1"},
    None,
])
def test_a_changed_domain_is_rejected(dominated, tmp_path, change):
    path, _ = dominated

    def edit(doc):
        if change is None:
            doc["input"]["domain"] = {"kind": "box", "lower": "1", "upper": "0"}
        else:
            doc["input"]["domain"] = change

    out = replace_manifest(path, edit, tmp_path / "changed.zip")
    status, message = verdict(out)
    assert status == "INVALID" and "\n" not in message, message


def test_the_domain_of_the_manifest_is_parsed_strictly(dominated, tmp_path):
    path, _ = dominated
    for bad in ({"kind": "all"}, {"kind": "nonneg", "lower": "0"}, "nonneg",
                {"kind": "box", "lower": "0.5", "upper": "1"},
                {"kind": "box", "lower": "1/0", "upper": "1"}):
        out = replace_manifest(path, lambda doc: doc["input"].__setitem__("domain", bad),
                               tmp_path / "bad.zip")
        status, message = verdict(out)
        assert status == "INVALID" and "input.domain" in message, message


def test_a_checkpoint_with_its_bias_over_a_domain(tmp_path):
    from safetensors.numpy import save_file

    rng = np.random.default_rng(4)
    W = rng.standard_normal((30, 4)).astype(np.float32)
    b = rng.standard_normal(30).astype(np.float32)
    save_file({"classifier.weight": W, "classifier.bias": b}, str(tmp_path / "m.safetensors"))
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "b.npy", b)
    a = run("analyze", "--matrix", str(tmp_path / "m.safetensors"), "--bias", "auto",
            "--domain", "nonneg", "--json")
    c = run("analyze", "--matrix", str(tmp_path / "W.npy"), "--bias", str(tmp_path / "b.npy"),
            "--domain", "nonneg", "--json")
    assert a.returncode == c.returncode == 0, a.stderr + c.stderr
    doc, ref = json.loads(a.stdout), json.loads(c.stdout)
    assert doc["argmaxable"] == ref["argmaxable"] and doc["tie_pairs"] == ref["tie_pairs"]
    assert doc["argmax_witnesses"] == ref["argmax_witnesses"]
