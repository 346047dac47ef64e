r"""Independent checker of ``analyze`` certificates (``python -m verify analyze --certificate``).

Like the rest of :mod:`verify.checker` this module imports nothing but the standard
library, shares no code with the engine, and decides everything exactly (Python
integers). For large heads it uses numpy when numpy can be imported (loaded by name,
optionally; without it every check runs on Python integers), and then only in two
places, both exact: products ``Z x`` with a rigorous float64 error bound and an integer
fallback for the entries the bound does not decide (for ``Z`` beyond int64, such as a
float64 head's, on a copy scaled by a power of two and correctly rounded), and linear
identities with integer coefficients checked modulo enough primes (Chinese remainder
theorem). Long witness checks show their progress on standard error when it is a
terminal. The format and
the argument are in ``docs/certificates.md`` (section "Claim `analyze`").

Mathematics
-----------
The certificate holds an integer matrix ``Z = c W`` (``c > 0``; rows ``z_0 .. z_{n-1}``)
and, for heads with a bias, the integer vector ``beta = c b``. Write
``s_k(x, h) = z_k . x + beta_k h`` for an input ``x`` scaled by ``h > 0`` (``h = 1`` and
no ``beta`` without a bias): it is ``c h`` times the logit of label ``k`` at ``x / h``.

* **Argmax witness** of label ``t``: integers ``(x, h)`` with ``s_t > s_k`` for every
  ``k != t``: label ``t`` alone has the largest logit at ``x / h``.
* **Convex weights** of label ``i``: integers ``m_k >= 0`` over distinct labels
  ``k != i`` and ``D = sum m_k > 0`` with ``D z_i = sum m_k z_k`` (and with a bias
  ``D beta_i <= sum m_k beta_k``). Then every input has
  ``logit_i <= sum (m_k / D) logit_k <= max_k logit_k``: ``i`` is never alone on top
  (the easy half of Gordan's theorem).
* **Tie witness** of ``i < j``: ``(x, h)`` with ``s_i = s_j > s_k`` for every other ``k``.
* **No-tie certificate** of ``i < j``: integers ``m_k >= 0`` over distinct labels
  ``k != i, j``, ``T`` and ``D > 0`` with ``sum m_k (z_i - z_k) + T (z_i - z_j) = 0``;
  without a bias ``sum m_k = D``; with a bias ``sum m_k <= D``,
  ``sigma = sum m_k (beta_i - beta_k) + T (beta_i - beta_j) <= 0`` and (``m != 0`` or
  ``sigma < 0``). At a tie of ``i, j`` on top every bracket ``s_i - s_k`` is positive,
  ``s_i - s_j = 0``, so the sum ``sum m_k (s_i - s_k) + T (s_i - s_j)`` would be
  positive, yet it equals ``h sigma <= 0`` (Motzkin's transposition theorem, easy half).

Functions
---------
``check_file(path, *, backend="auto", jobs=1) -> str``
    Check one certificate archive; return the summary or raise ``CertificateError``.
    With numpy, ``jobs`` forked processes share the blocks of witnesses (the verdict
    and the message do not depend on it). ``Progress`` writes a line on standard error
    (only a terminal) during long witness checks.
``confirm_matrix(path, rows=None, *, file=None, array=None) -> str``
    Confirm that the certificate's ``Z`` is ``c`` times the given head.
"""

import ast
import hashlib
import sys
import time
import zipfile
import zlib
from array import array
from fractions import Fraction
from importlib import import_module
from math import comb, gcd, ldexp
from operator import mul

from verify.checker.core import (
    FORMAT,
    CertificateError,
    UnknownFormat,
    json_object,
    parse_json,
    shown_number,
)

__all__ = ["BACKENDS", "CLAIM", "MANIFEST", "check_file", "confirm_matrix", "load_archive",
           "numpy_or_none", "primes_with_product_above"]

CLAIM = "analyze"
MANIFEST = "manifest.json"
#: The integer arrays of a certificate, and which are present only with a bias.
ARRAYS = ("Z", "bias", "argmax_labels", "argmax_points", "hull_labels", "hull_offsets",
          "hull_support", "hull_weights", "hull_denominators", "tie_pairs", "tie_points",
          "non_tie_pairs", "non_tie_offsets", "non_tie_support", "non_tie_weights",
          "non_tie_denominators", "non_tie_t")
#: The arrays of simplex evidence: all three or none, and never with a bias.
SIMPLEX_ARRAYS = ("simplex_labels", "simplex_support", "non_tie_simplex_pairs")
#: Arrays of labels, pairs and offsets: always int64.
INDEX_ARRAYS = ("argmax_labels", "hull_labels", "hull_offsets", "hull_support",
                "tie_pairs", "non_tie_pairs", "non_tie_offsets", "non_tie_support",
                *SIMPLEX_ARRAYS)
BACKENDS = ("auto", "python", "numpy")
#: Heads with at least this many entries are checked with numpy when it is importable.
NUMPY_MIN_ENTRIES = 20_000


def numpy_or_none():
    """numpy if it can be imported, else None (the checks then use Python integers)."""
    try:
        return import_module("numpy")
    except ImportError:
        return None


# --- reading the archive -----------------------------------------------------------------

_DTYPES = {"<i8": ("q", 8), "<u4": ("I", 4), "|i1": ("b", 1)}


def parse_npy(data, where: str):
    """``(descr, shape, payload)`` of a ``.npy`` file (format versions 1.0 to 3.0).

    Only little-endian ``int64`` (``<i8``), ``uint32`` (``<u4``) and ``int8`` (``|i1``)
    in C order are accepted; ``payload`` is a memoryview of exactly the data bytes.
    """
    view = memoryview(data)
    if bytes(view[:6]) != b"\x93NUMPY" or len(view) < 10:
        raise CertificateError(f"{where}: not a .npy array")
    major = view[6]
    if major == 1:
        length, start = int.from_bytes(view[8:10], "little"), 10
    elif major in (2, 3):
        length, start = int.from_bytes(view[8:12], "little"), 12
    else:
        raise CertificateError(f"{where}: unknown .npy version {major}")
    try:
        header = ast.literal_eval(bytes(view[start:start + length]).decode("latin-1"))
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        raise CertificateError(f"{where}: unreadable .npy header") from None
    if (not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}
            or header["descr"] not in _DTYPES or header["fortran_order"] is not False
            or not isinstance(header["shape"], tuple)
            or not all(type(s) is int and s >= 0 for s in header["shape"])):
        raise CertificateError(f"{where}: expected a C-order .npy array of <i8, <u4 or "
                               f"|i1, got header {str(header)[:60]}")
    size = 1
    for s in header["shape"]:
        size *= s
    payload = view[start + length:]
    if len(payload) != size * _DTYPES[header["descr"]][1]:
        raise CertificateError(f"{where}: {len(payload)} data bytes for shape "
                               f"{header['shape']}")
    return header["descr"], header["shape"], payload


def _values(descr: str, payload) -> array:
    """The entries of a payload as a flat ``array.array`` (native byte order)."""
    out = array(_DTYPES[descr][0])
    out.frombytes(payload)
    if sys.byteorder != "little":
        out.byteswap()
    return out


class IntArray:
    """An integer array of the archive: ``int64``, or sign and magnitude limbs.

    ``encoding`` is ``"int64"`` (member ``NAME.npy``) or ``"limbs"`` (members
    ``NAME.sign.npy``, int8 of the array's shape; ``NAME.width.npy``, int64, limbs per
    entry of each row; ``NAME.limbs.npy``, uint32, the magnitudes of the rows in turn,
    each entry ``width`` limbs, least significant first). A 1-D array is a column.
    """

    def __init__(self, name: str, encoding: str, members: dict):
        self.name, self.encoding = name, encoding
        if encoding == "int64":
            descr, self.shape, self._data = members[""]
            if descr != "<i8":
                raise CertificateError(f"{name}: expected int64 entries")
        else:
            descr, self.shape, self._sign = members["sign"]
            wdescr, wshape, self._width = members["width"]
            ldescr, _, self._limbs = members["limbs"]
            if (descr, wdescr, ldescr) != ("|i1", "<i8", "<u4"):
                raise CertificateError(f"{name}: limb arrays must be int8, int64, uint32")
            if not self.shape or wshape != self.shape[:1]:
                raise CertificateError(f"{name}: one limb width per row expected")
            widths = _values("<i8", self._width)
            if any(w < 0 for w in widths):
                raise CertificateError(f"{name}: negative limb width")
            self._row_entries = 1 if len(self.shape) == 1 else self.shape[1]
            self._start = [0]
            for w in widths:
                self._start.append(self._start[-1] + w * self._row_entries)
            if self._start[-1] * 4 != len(self._limbs):
                raise CertificateError(f"{name}: {len(self._limbs) // 4} limbs, the widths "
                                       f"need {self._start[-1]}")
        if len(self.shape) not in (1, 2):
            raise CertificateError(f"{name}: expected a 1-D or 2-D array, got shape "
                                   f"{self.shape}")

    def rows(self, lo: int = 0, hi: int | None = None) -> list:
        """Rows ``lo .. hi - 1`` as lists of Python ints (entries, for a 1-D array)."""
        hi = self.shape[0] if hi is None else hi
        width = 1 if len(self.shape) == 1 else self.shape[1]
        if self.encoding == "int64":
            flat = _values("<i8", self._data[lo * width * 8:hi * width * 8]).tolist()
        else:
            signs = _values("|i1", self._sign[lo * width:hi * width])
            flat = []
            for r in range(lo, hi):
                a, b = self._start[r], self._start[r + 1]
                step = (b - a) // width if width else 0
                raw = self._limbs[4 * a:4 * b]
                for c in range(width):
                    v = int.from_bytes(raw[4 * c * step:4 * (c + 1) * step], "little")
                    s = signs[(r - lo) * width + c]
                    if s not in (-1, 0, 1) or (s == 0) != (v == 0):
                        raise CertificateError(f"{self.name}[{r}]: sign {s} does not match "
                                               "the magnitude")
                    flat.append(-v if s < 0 else v)
        if len(self.shape) == 1:
            return flat
        return [flat[k:k + width] for k in range(0, len(flat), width)]

    def numpy(self, np):
        """The array as int64 numpy (a view of the archive's bytes), or None for limbs."""
        if self.encoding != "int64":
            return None
        return np.frombuffer(self._data, dtype="<i8").reshape(self.shape)


#: What ``zipfile`` raises for a damaged member: a bad CRC (a member longer than
#: declared), a cut-short or corrupt deflate stream, an unsupported compression.
DAMAGED = (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError)


class Archive:
    """A certificate archive: the manifest and its integer arrays (read lazily).

    Every problem of the file is a :class:`CertificateError` (:class:`UnknownFormat`
    for what is not a readable certificate archive), never an exception of ``zipfile``.
    """

    def __init__(self, path):
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise UnknownFormat(f"not a certificate archive: {exc}") from None
        names = self.zip.namelist()
        if len(set(names)) != len(names):
            raise CertificateError("the archive lists a member twice")
        if MANIFEST not in names:
            raise UnknownFormat(f"not a certificate archive: no {MANIFEST}")
        try:
            text = self.zip.read(MANIFEST)
        except DAMAGED as exc:
            raise UnknownFormat(f"damaged archive: {exc or 'a member ends early'}") from None
        try:
            self.manifest = parse_json(text.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise UnknownFormat(f"{MANIFEST}: not JSON: {exc}") from None
        self.names = set(names)
        self._cache = {}

    def member(self, name: str) -> bytes:
        try:
            return self.zip.read(name)
        except (KeyError, OSError, ValueError, *DAMAGED) as exc:
            raise CertificateError(f"{name}: cannot read: {exc or 'it ends early'}") from None

    def expected_members(self, encodings: dict) -> set:
        out = {MANIFEST}
        for name, enc in encodings.items():
            out |= ({f"{name}.npy"} if enc == "int64" else
                    {f"{name}.sign.npy", f"{name}.width.npy", f"{name}.limbs.npy"})
        return out

    def array(self, name: str, encoding: str) -> IntArray:
        if name not in self._cache:
            parts = ({"": f"{name}.npy"} if encoding == "int64" else
                     {p: f"{name}.{p}.npy" for p in ("sign", "width", "limbs")})
            members = {p: parse_npy(self.member(m), m) for p, m in parts.items()}
            self._cache[name] = IntArray(name, encoding, members)
        return self._cache[name]

    def digest(self, names) -> str:
        """SHA-256 of the stored bytes of the members of ``names``, in that order."""
        h = hashlib.sha256()
        for name in names:
            enc = self.manifest["evidence"]["encoding"][name]
            members = ([f"{name}.npy"] if enc == "int64" else
                       [f"{name}.{p}.npy" for p in ("sign", "width", "limbs")])
            for m in members:
                h.update(self.member(m))
        return h.hexdigest()


def load_archive(path) -> Archive:
    return Archive(path)


# --- the manifest --------------------------------------------------------------------------

def _json_int(value, where: str, low: int = 0) -> int:
    if type(value) is not int or value < low:
        raise CertificateError(f"{where}: expected an integer >= {low}, got {value!r}")
    return value


def _hex(value, where: str) -> str:
    if not isinstance(value, str) or len(value) != 64 or value.strip("0123456789abcdef"):
        raise CertificateError(f"{where}: expected 64 lowercase hex digits")
    return value


def _scale(value, where: str) -> Fraction:
    try:
        if not isinstance(value, str) or value.count("/") != 1:
            raise ValueError
        p, q = value.split("/")
        if not (p.isdigit() and q.isdigit() and p.isascii() and q.isascii()):
            raise ValueError
        scale = Fraction(int(p), int(q))
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"{where}: expected a positive rational \"p/q\"") from None
    if scale <= 0:
        raise CertificateError(f"{where}: the scale must be positive")
    return scale


def read_manifest(archive: Archive) -> dict:
    """The manifest's values, its keys and types checked (docs/certificates.md)."""
    doc = archive.manifest
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise UnknownFormat(f"{MANIFEST}: not a {FORMAT} document")
    if doc.get("claim") != CLAIM:
        raise UnknownFormat(f"{MANIFEST}: unknown claim {doc.get('claim')!r} in an archive")
    json_object(doc, MANIFEST, ("format", "claim", "input", "assertion", "evidence"))
    keys = ("n", "d", "bias", "scale", "source", "sha256")
    if isinstance(doc["input"], dict) and "drop" in doc["input"]:
        keys += ("drop",)
    if isinstance(doc["input"], dict) and "domain" in doc["input"]:
        keys += ("domain",)
    inp = json_object(doc["input"], "input", keys)
    n, d = _json_int(inp["n"], "input.n", 1), _json_int(inp["d"], "input.d", 1)
    if not isinstance(inp["bias"], bool):
        raise CertificateError("input.bias: expected true or false")
    drop = None
    if "drop" in inp:
        if not inp["bias"]:
            raise CertificateError("input.drop: only a head with a bias has floor rows")
        drop = _json_int(inp["drop"], "input.drop", 1)
    domain = _domain(inp["domain"]) if "domain" in inp else None
    _scale(inp["scale"], "input.scale")
    src = json_object(inp["source"], "input.source", ("name", "sha256", "tensor"))
    if src["sha256"] is not None:
        _hex(src["sha256"], "input.source.sha256")
    _hex(inp["sha256"], "input.sha256")
    a = json_object(doc["assertion"], "assertion",
                    ("argmaxable", "unargmaxable", "tie_pairs", "non_tie_pairs", "complete"))
    for key in ("argmaxable", "unargmaxable", "tie_pairs", "non_tie_pairs"):
        _json_int(a[key], f"assertion.{key}")
    if not isinstance(a["complete"], bool):
        raise CertificateError("assertion.complete: expected true or false")
    ev = json_object(doc["evidence"], "evidence", ("encoding",))
    wanted = [k for k in ARRAYS if k != "bias" or inp["bias"]]
    if isinstance(ev["encoding"], dict) and any(k in ev["encoding"] for k in SIMPLEX_ARRAYS):
        if inp["bias"] and drop is None:
            raise CertificateError("evidence.encoding: simplex evidence with a bias needs "
                                   "input.drop (the floor rows)")
        if domain is not None:
            raise CertificateError("evidence.encoding: simplex evidence is not used with "
                                   "input.domain")
        wanted += SIMPLEX_ARRAYS
    enc = json_object(ev["encoding"], "evidence.encoding", wanted)
    for name, value in enc.items():
        allowed = ("int64",) if name in INDEX_ARRAYS else ("int64", "limbs")
        if value not in allowed:
            raise CertificateError(f"evidence.encoding.{name}: expected "
                                   f"{' or '.join(map(repr, allowed))}")
    extra = sorted(archive.names - archive.expected_members(enc))
    missing = sorted(archive.expected_members(enc) - archive.names)
    if extra or missing:
        raise CertificateError(f"archive members: {'missing ' + ', '.join(missing) if missing else ''}"
                               f"{'; ' if extra and missing else ''}"
                               f"{'unexpected ' + ', '.join(extra) if extra else ''}")
    return {"n": n, "d": d, "bias": inp["bias"], "drop": drop, "domain": domain,
            "encoding": enc,
            "assertion": a, "sha256": inp["sha256"]}


def _bound(value, where: str) -> Fraction:
    """A bound of a box: ``"p"`` or ``"p/q"`` (``q > 0``), an optional sign."""
    text = value[1:] if isinstance(value, str) and value[:1] == "-" else value
    try:
        if not isinstance(text, str):
            raise ValueError
        parts = text.split("/")
        if len(parts) not in (1, 2) or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError
        bound = Fraction(int(parts[0]), int(parts[1]) if len(parts) == 2 else 1)
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"{where}: expected a rational \"p\" or \"p/q\", got "
                               f"{str(value)[:40]!r}") from None
    return -bound if value[:1] == "-" else bound


def _domain(value):
    """``input.domain``: ``("nonneg",)`` or ``("box", L, U)`` with ``L < U``."""
    if not isinstance(value, dict) or value.get("kind") not in ("nonneg", "box"):
        raise CertificateError("input.domain: expected {\"kind\": \"nonneg\"} or "
                               "{\"kind\": \"box\", \"lower\", \"upper\"}")
    if value["kind"] == "nonneg":
        json_object(value, "input.domain", ("kind",))
        return ("nonneg",)
    json_object(value, "input.domain", ("kind", "lower", "upper"))
    lower = _bound(value["lower"], "input.domain.lower")
    upper = _bound(value["upper"], "input.domain.upper")
    if not lower < upper:
        raise CertificateError(f"input.domain: the box needs lower < upper, got {lower} "
                               f"and {upper}")
    return ("box", lower, upper)


def _domain_text(domain) -> str:
    return "x >= 0" if domain[0] == "nonneg" else f"{domain[1]} <= x_j <= {domain[2]}"


def _support(domain, g):
    """``sup g . x`` over the domain (exact), or None for ``+inf``."""
    if domain[0] == "nonneg":
        return 0 if all(v <= 0 for v in g) else None
    _, lower, upper = domain
    return sum(max(lower * v, upper * v) for v in g)


def _points_in_domain(ev, points, name: str, labels) -> None:
    """With a domain, every point ``(x', h)`` has ``x' / h`` in it (``h > 0``)."""
    if ev.domain is None:
        return
    step = 1024
    for lo in range(0, points.shape[0], step):
        for c, x in enumerate(points.rows(lo, min(points.shape[0], lo + step)), start=lo):
            h = x[-1]
            for k, v in enumerate(x[:-1]):
                inside = v >= 0 if ev.domain[0] == "nonneg" else \
                    ev.domain[1] * h <= v <= ev.domain[2] * h
                if not inside:
                    raise CertificateError(f"{name} of {labels(c)}: the input is outside "
                                           f"the domain {_domain_text(ev.domain)} in "
                                           f"coordinate {k}")


def _affine_part(arith, ev, i: int, terms) -> tuple[list, int]:
    """``(G, sigma)``: ``sum_k c_k (z_i - z_k)`` and ``sum_k c_k (beta_i - beta_k)``."""
    zi = arith.z_row(i)
    G = [0] * ev.d
    sigma = 0
    for k, c in terms:
        zk = arith.z_row(k)
        for col in range(ev.d):
            G[col] += c * (zi[col] - zk[col])
        sigma += c * (ev.beta[i] - ev.beta[k])
    return G, sigma


def _domain_failure(ev, G, sigma, need_strict: bool):
    """Why ``sup over the domain of G . x + sigma <= 0`` (strictly when ``need_strict``)
    fails, or None."""
    h = _support(ev.domain, G)
    if h is None:
        c = next(c for c, v in enumerate(G) if v > 0)
        return f"its linear part is positive in coordinate {c}, unbounded on x >= 0"
    if h + sigma > 0:
        return (f"its largest value on the domain {_domain_text(ev.domain)} is positive "
                f"({shown_number(h + sigma) if isinstance(h + sigma, int) else h + sigma})")
    if need_strict and h + sigma == 0:
        return "every weight is 0 and its largest value on the domain is 0, not negative"
    return None


def _shape(arr: IntArray, shape: tuple, name: str) -> None:
    if tuple(arr.shape) != shape:
        raise CertificateError(f"{name}: shape {tuple(arr.shape)}, expected {shape}")


# --- the checks shared by both arithmetics -----------------------------------------------

#: Rows of ``Z`` read at a time while their gcd is taken.
PRIMITIVE_BLOCK_ROWS = 4096


def _check_primitive(Z: IntArray, beta) -> None:
    """``Z`` (with ``beta``, the bias scaled with it) is the head as primitive integers
    (docs/certificates.md): the gcd of all its entries is 1, or it is zero.  Read
    block by block until the gcd is 1, which is at once for an honest head."""
    g = gcd(*beta) if beta is not None else 0
    n = Z.shape[0]
    for lo in range(0, n, PRIMITIVE_BLOCK_ROWS):
        if g == 1:
            return
        for row in Z.rows(lo, min(n, lo + PRIMITIVE_BLOCK_ROWS)):
            g = gcd(g, *row)
    if g > 1:
        also = " and of bias" if beta is not None else ""
        raise CertificateError(f"Z is not primitive: every entry of Z{also} is divisible "
                               f"by {shown_number(g)} (Z is c W with the least c that "
                               "makes it an integer matrix)")


class Evidence:
    """The decoded small arrays (labels, pairs, supports, weights) as Python ints."""

    def __init__(self, archive: Archive, m: dict):
        n, d, enc = m["n"], m["d"], m["encoding"]
        #: The domain of the inputs: None (all of R^d), ("nonneg",) or ("box", L, U).
        self.domain = m.get("domain")
        homogeneous = m["bias"] or self.domain is not None
        self.n, self.d, self.width = n, d, d + 1 if homogeneous else d
        #: The drop M of the floor rows (z_k, beta_k - M), support labels n + k.
        self.drop = m.get("drop")
        get = lambda name: archive.array(name, enc[name])  # noqa: E731
        self.Z = get("Z")
        _shape(self.Z, (n, d), "Z")
        self.beta = None
        if m["bias"]:
            b = get("bias")
            _shape(b, (n,), "bias")
            self.beta = b.rows()
        elif self.domain is not None:
            self.beta = [0] * n  # points (h x, h) with a zero bias
        self.argmax_labels = self._labels(get("argmax_labels"), "argmax_labels")
        self.argmax_points = get("argmax_points")
        _shape(self.argmax_points, (len(self.argmax_labels), self.width), "argmax_points")
        self.hull_labels = self._labels(get("hull_labels"), "hull_labels")
        self.hull = self._combinations(get, "hull", len(self.hull_labels))
        self.tie_pairs = self._pairs(get("tie_pairs"), "tie_pairs")
        self.tie_points = get("tie_points")
        _shape(self.tie_points, (len(self.tie_pairs), self.width), "tie_points")
        self.non_tie_pairs = self._pairs(get("non_tie_pairs"), "non_tie_pairs")
        self.non_tie = self._combinations(get, "non_tie", len(self.non_tie_pairs))
        t = get("non_tie_t")
        _shape(t, (len(self.non_tie_pairs),), "non_tie_t")
        self.non_tie_t = t.rows()
        self.simplex_labels, self.simplex_support, self.simplex_pairs = [], [], []
        if "simplex_labels" in enc:
            self.simplex_labels = self._labels(get("simplex_labels"), "simplex_labels")
            support = get("simplex_support")
            _shape(support, (len(self.simplex_labels), self.width + 1), "simplex_support")
            self.simplex_support = support.rows()
            self.simplex_pairs = self._pairs(get("non_tie_simplex_pairs"),
                                             "non_tie_simplex_pairs")

    @staticmethod
    def _labels(labels: IntArray, name: str) -> list:
        _shape(labels, labels.shape[:1], name)  # a column, not a matrix of labels
        return labels.rows()

    @staticmethod
    def _pairs(pairs: IntArray, name: str) -> list:
        _shape(pairs, (pairs.shape[0], 2), name)
        return [tuple(p) for p in pairs.rows()]

    @staticmethod
    def _combinations(get, prefix: str, count: int) -> list:
        """``[(support labels, weights, denominator), ...]`` of ``count`` certificates."""
        offsets = get(f"{prefix}_offsets")
        _shape(offsets, (count + 1,), f"{prefix}_offsets")
        off = offsets.rows()
        support, weights = get(f"{prefix}_support"), get(f"{prefix}_weights")
        dens = get(f"{prefix}_denominators")
        _shape(dens, (count,), f"{prefix}_denominators")
        total = support.shape[0]
        _shape(support, (total,), f"{prefix}_support")
        _shape(weights, (total,), f"{prefix}_weights")
        if off[0] != 0 or off[-1] != total or any(a > b for a, b in zip(off, off[1:])):
            raise CertificateError(f"{prefix}_offsets: must increase from 0 to {total}")
        labels, values, den = support.rows(), weights.rows(), dens.rows()
        return [(labels[off[r]:off[r + 1]], values[off[r]:off[r + 1]], den[r])
                for r in range(count)]


def _labels_decided_once(ev: Evidence) -> None:
    n = ev.n
    lists = (("argmax_labels", ev.argmax_labels), ("hull_labels", ev.hull_labels),
             ("simplex_labels", ev.simplex_labels))
    for name, labels in lists:
        for r, i in enumerate(labels):
            if not 0 <= i < n:
                raise CertificateError(f"{name}[{r}]: label {i} is not in 0..{n - 1}")
            if r and labels[r - 1] >= i:
                raise CertificateError(f"{name}[{r}]: labels must increase (label {i} "
                                       f"after {labels[r - 1]})")
    both = set(ev.argmax_labels) & set(ev.hull_labels)
    if both:
        raise CertificateError(f"label {min(both)} has both an argmax witness and convex "
                               "weights")
    twice = (set(ev.argmax_labels) | set(ev.hull_labels)) & set(ev.simplex_labels)
    if twice:
        raise CertificateError(f"label {min(twice)} has a simplex and other evidence")
    decided = len(ev.argmax_labels) + len(ev.hull_labels) + len(ev.simplex_labels)
    if decided != n:
        missing = min(set(range(n)) - set(ev.argmax_labels) - set(ev.hull_labels)
                      - set(ev.simplex_labels))
        kinds = "convex weights or a simplex" if ev.simplex_labels else "convex weights"
        raise CertificateError(f"label {missing} is not decided (every label needs an "
                               f"argmax witness or {kinds})")


def _pairs_valid(ev: Evidence) -> None:
    n = ev.n
    seen: dict = {}
    inside = set(ev.simplex_labels)
    for name, pairs in (("tie_pairs", ev.tie_pairs), ("non_tie_pairs", ev.non_tie_pairs),
                        ("non_tie_simplex_pairs", ev.simplex_pairs)):
        for r, (i, j) in enumerate(pairs):
            if not (0 <= i < j < n):
                raise CertificateError(f"{name}[{r}]: ({i}, {j}) is not a pair i < j of "
                                       f"labels 0..{n - 1}")
            if r and pairs[r - 1] >= (i, j):
                raise CertificateError(f"{name}[{r}]: pairs must increase "
                                       f"(({i}, {j}) after {pairs[r - 1]})")
            if (i, j) in seen:
                raise CertificateError(f"{name}[{r}]: pair ({i}, {j}) is also listed as a "
                                       f"{seen[(i, j)]}")
            seen[(i, j)] = "tie pair" if name == "tie_pairs" else "non-tie pair"
            if name == "non_tie_simplex_pairs" and not {i, j} & inside:
                raise CertificateError(f"{name}[{r}]: neither {i} nor {j} has a simplex")


def _multipliers_valid(name: str, certs, excluded, n: int, *, strict_sum: bool) -> None:
    """Support labels distinct, in range, not excluded; weights >= 0; the denominator."""
    for r, (labels, weights, den) in enumerate(certs):
        out = excluded(r)
        where = f"{name}[{r}]"
        if len(set(labels)) != len(labels):
            raise CertificateError(f"{where}: a label is listed twice in the support")
        for k in labels:
            if not 0 <= k < n or k in out:
                raise CertificateError(f"{where}: support label {k} is not allowed "
                                       f"(must be in 0..{n - 1}, not "
                                       f"{' or '.join(map(str, sorted(out)))})")
        if any(w < 0 for w in weights):
            raise CertificateError(f"{where}: negative weight {min(weights)}")
        if den <= 0:
            raise CertificateError(f"{where}: the denominator must be positive, got {den}")
        total = sum(weights)
        if strict_sum and total != den:
            raise CertificateError(f"{where}: the weights sum to {_ratio(total, den)}, not 1")
        # With sum m_k = D > 0 some weight is positive: no separate test needed.
        if not strict_sum and total > den:
            raise CertificateError(f"{where}: the weights sum to {_ratio(total, den)}, "
                                   "more than 1")


def _ratio(p: int, q: int) -> str:
    text = str(Fraction(p, q)) if max(p.bit_length(), q.bit_length()) < 200 else \
        f"a number of {p.bit_length()} bits over {q.bit_length()} bits"
    return text


# --- progress of long checks ------------------------------------------------------------------

def _progress_stream():
    """Where progress lines go: standard error when it is a terminal, else nowhere."""
    stream = sys.stderr
    try:
        return stream if stream is not None and stream.isatty() else None
    except (AttributeError, ValueError):  # replaced or closed stream
        return None


def _witness_kind(partners) -> str:
    return "argmax witnesses" if partners is None else "tie witnesses"


class Progress:
    """One line on standard error (``\\r``-rewritten, cleared at the end) saying which
    witnesses are being checked, how many are done and about how long the rest takes.
    Nothing is written when standard error is not a terminal, nor during the first
    ``DELAY`` seconds (short checks stay silent). The verdict never depends on it."""

    DELAY = 1.0
    EVERY = 0.5

    def __init__(self, what: str, total: int, stream=None, clock=time.monotonic):
        self.what, self.total, self.clock = what, total, clock
        self.stream = _progress_stream() if stream is None else stream
        self.start = clock()
        self.last = None
        self.width = 0

    def update(self, done: int) -> None:
        if self.stream is None or not self.total:
            return
        now = self.clock()
        elapsed = now - self.start
        if elapsed < self.DELAY or (self.last is not None and now - self.last < self.EVERY):
            return
        self.last = now
        line = (f"verify check: {self.what} {done:,} of {self.total:,} "
                f"({100 * done // self.total}%), {elapsed:.0f} s")
        if 0 < done < self.total:
            line += f", about {elapsed * (self.total - done) / done:.0f} s left"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        if self.stream is not None and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


# --- exact products, Python integers -------------------------------------------------------

class PythonArithmetic:
    """Every product and identity in Python integers (the reference path)."""

    name = "python"

    def __init__(self, ev: Evidence):
        self.ev = ev
        self.Z = ev.Z.rows()
        if ev.beta is not None:
            self.H = [row + [b] for row, b in zip(self.Z, ev.beta)]
        else:
            self.H = self.Z

    def first_failure(self, points: IntArray, targets, partners=None):
        """First ``(column, k)`` where the witness fails; ``k`` is the partner when the
        tie equality fails, else the first label scoring at least as high; or None."""
        H = self.H
        step = 256
        progress = Progress(_witness_kind(partners), points.shape[0])
        try:
            for lo in range(0, points.shape[0], step):
                block = points.rows(lo, min(points.shape[0], lo + step))
                for c, x in enumerate(block, start=lo):
                    t = targets[c]
                    scores = [sum(map(mul, row, x)) for row in H]
                    top = scores[t]
                    p = None if partners is None else partners[c]
                    if p is not None and scores[p] != top:
                        return c, p
                    for k, s in enumerate(scores):
                        if k != t and k != p and s >= top:
                            return c, k
                progress.update(min(points.shape[0], lo + step))
            return None
        finally:
            progress.close()

    def z_row(self, k: int) -> list:
        return self.Z[k]

    def strictly_inside(self, support, i: int) -> bool:
        """Whether ``z_i = sum lambda_k z_k`` (over ``support``, ``d + 1`` labels) with
        ``sum lambda = 1`` has a unique solution, every ``lambda_k > 0``: Gauss-Jordan
        elimination in exact fractions."""
        return _positive_solution([self.z_row(k) + [1] for k in support],
                                  self.z_row(i) + [1])

    def nonzero_coordinate(self, labels, coefficients):
        """The first coordinate where ``sum_r a_r z_{labels[r]}`` is not 0, or None."""
        rows = [self.z_row(k) for k in labels]
        for c in range(self.ev.d):
            if sum(a * row[c] for a, row in zip(coefficients, rows)) != 0:
                return c
        return None


def _positive_solution(columns, target) -> bool:
    """Whether ``sum_k lambda_k columns[k] = target`` has a unique solution, all
    ``lambda_k > 0`` (a square integer system).

    Fraction-free Gauss-Jordan elimination (Bareiss): after the step of column ``c`` the
    columns ``0..c`` are ``p I`` with ``p`` the current pivot, every entry is an integer
    (a minor of the augmented matrix; the division by the previous pivot is exact), and
    at the end ``p = +-det`` and the last column is ``p lambda``.
    """
    N = len(columns)
    if any(len(col) != N for col in columns) or len(target) != N:
        return False
    A = [[int(col[r]) for col in columns] + [int(target[r])] for r in range(N)]
    previous = 1
    for c in range(N):
        p = next((r for r in range(c, N) if A[r][c] != 0), None)
        if p is None:
            return False  # singular: no unique weights
        A[c], A[p] = A[p], A[c]
        pivot, row = A[c][c], A[c]
        for r in range(N):
            if r == c:
                continue
            f, other = A[r][c], A[r]
            for j in range(c + 1, N + 1):
                other[j] = (pivot * other[j] - f * row[j]) // previous
            other[c] = 0
        previous = pivot
    return all((A[r][N] > 0) == (previous > 0) and A[r][N] != 0 for r in range(N))


# --- exact products with numpy ------------------------------------------------------------

#: Unit roundoff of binary64.
U = 2.0 ** -53
#: Primes below 2^26: a product of two residues is below 2^52 and sums of up to 2^11
#: such products stay below 2^63.
PRIME_BITS = 26
SUM_ROWS = 1 << 11
#: Above this many primes an identity is checked in Python integers instead.
MAX_PRIMES = 256


def _is_prime(p: int) -> bool:
    """Deterministic Miller-Rabin for ``p < 3,215,031,751`` (bases 2, 3, 5, 7)."""
    if p < 2:
        return False
    for q in (2, 3, 5, 7):
        if p % q == 0:
            return p == q
    d, s = p - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7):
        x = pow(a, d, p)
        if x in (1, p - 1):
            continue
        for _ in range(s - 1):
            x = x * x % p
            if x == p - 1:
                break
        else:
            return False
    return True


_PRIMES: list = []


def primes_with_product_above(bound: int) -> list:
    """The largest primes below ``2^26``, as many as needed for a product ``> bound``."""
    product, out, k = 1, [], 0
    while product <= bound:
        if k == len(_PRIMES):
            p = (_PRIMES[-1] if _PRIMES else 1 << PRIME_BITS) - 1
            while not _is_prime(p):
                p -= 1
            _PRIMES.append(p)
        out.append(_PRIMES[k])
        product *= _PRIMES[k]
        k += 1
    return out


class NumpyArithmetic(PythonArithmetic):
    """Products ``H x`` in float64 with a rigorous error bound, exact fallback; identities
    modulo primes (CRT). Needs ``Z`` stored as int64.

    **The bound.** ``F`` is ``H`` rounded to float64 (relative error ``<= u`` per entry,
    no overflow: entries are below ``2^63``); a point ``x`` is used as ``X = x`` when every
    entry is below ``2^53``, else as ``X = floor(x / 2^e)`` (``e`` chosen so that the
    largest entry is below ``2^53``), an integer vector within 1 of ``xi = x / 2^e`` per
    entry; ``sign(H (x)) = sign(H xi)``. For any float64 evaluation ``S_k`` of ``F_k . X``
    (any order, with or without FMA; no underflow, the operands being integers),
    ``|S_k - H_k . xi| <= gamma_d N_k |X| + u N_k |X| + |H_k|_1 [X inexact]``, with
    ``N_k`` the Euclidean norm of ``H_k`` and ``gamma_d = d u / (1 - d u)`` (Higham,
    *Accuracy and Stability of Numerical Algorithms*, §3.1, and Cauchy-Schwarz). With
    ``|H_k|_1 <= sqrt(d) N_k <= 2 sqrt(d) u N_k |X|`` (an inexact point has an entry of
    at least ``2^52``) this is below ``E_k = (d + 2 + 2 sqrt(d) [inexact]) u N_k |X|``
    for ``d u < 0.01``; the computed ``E_k`` is doubled to cover the rounding of
    the norms and of the bound. A computed margin ``S_t - S_k`` above ``E_t + E_k`` (times
    ``1 + 2^-40`` for its own rounding) proves ``H_t . xi > H_k . xi``; every other entry,
    and the equality of a tie, is computed in Python integers.
    """

    name = "numpy"

    def __init__(self, ev: Evidence, np, jobs: int = 1):
        self.ev, self.np, self.jobs = ev, np, jobs
        Z = ev.Z.numpy(np)
        if Z is None:
            raise ValueError("Z is not int64")
        self.Zi = Z
        if ev.beta is not None:
            beta = np.array(ev.beta, dtype=object)
            if any(abs(b) >= 1 << 63 for b in ev.beta):
                raise ValueError("bias beyond int64")
            self.Hi = np.hstack([Z, beta.astype(np.int64)[:, None]])
        else:
            self.Hi = Z
        n, w = self.Hi.shape
        self.F = np.empty((n, w), dtype=np.float64)
        step = 1 << 14
        for lo in range(0, n, step):
            self.F[lo:lo + step] = self.Hi[lo:lo + step]
        self.N = np.sqrt(np.einsum("ij,ij->i", self.F, self.F))

    def z_row(self, k: int) -> list:
        return self.Zi[k].tolist()

    def _row(self, k: int) -> list:
        return self.Hi[k].tolist()

    def _float_points(self, rows):
        np = self.np
        m, w = len(rows), self.F.shape[1]
        try:
            ints = np.array(rows, dtype=np.int64).reshape(m, w)
            if not ints.size or int(np.abs(ints).max()) < 1 << 53:
                return ints.astype(np.float64).T, np.ones(m, dtype=bool)
        except OverflowError:
            pass
        X = np.empty((w, m), dtype=np.float64)
        exact = np.ones(m, dtype=bool)
        for c, x in enumerate(rows):
            e = max(0, max(abs(v) for v in x).bit_length() - 53)
            X[:, c] = [float(v >> e) for v in x]  # floor division by 2^e, exact floats
            exact[c] = e == 0
        return X, exact

    def _block_columns(self) -> int:
        """Witnesses per product: six ``n``-vectors of temporaries each, 256 MB in all."""
        n = self.F.shape[0]
        return max(1, min(4096, (256 << 20) // (8 * 6 * max(n, 1))))

    def first_failure(self, points: IntArray, targets, partners=None):
        """As :meth:`PythonArithmetic.first_failure`, by blocks of columns; with
        ``jobs > 1`` the blocks are shared among forked worker processes, and the
        first failure in block order is the answer (the same as with one process)."""
        total = points.shape[0]
        step = self._block_columns()
        blocks = [(lo, min(total, lo + step)) for lo in range(0, total, step)]
        work = (self, points, targets, partners)
        progress = Progress(_witness_kind(partners), total)
        try:
            if self.jobs > 1 and len(blocks) > 1 and _can_fork():
                return _first_failure_forked(work, blocks, self.jobs, progress)
            for block in blocks:
                bad = _block_failure(work, block)
                if bad is not None:
                    return bad
                progress.update(block[1])
            return None
        finally:
            progress.close()

    def block_failure(self, points: IntArray, targets, partners, lo: int, hi: int):
        """The first failing column of ``lo .. hi - 1`` and its rival, or None."""
        np = self.np
        n, w = self.F.shape
        pnp = points.numpy(np)
        rows = pnp[lo:hi].tolist() if pnp is not None else points.rows(lo, hi)
        X, exact = self._float_points(rows)
        S = self.F @ X
        norm_x = np.sqrt(np.einsum("ij,ij->j", X, X))
        factor = (w + 2) + np.where(exact, 0.0, 2.0 * np.sqrt(w))
        E = 2.0 * np.outer(self.N, factor * U * norm_x)
        cols = np.arange(hi - lo)
        t = np.asarray(targets[lo:hi], dtype=np.intp)
        margin = S[t, cols][None, :] - S
        bound = (E + E[t, cols][None, :]) * (1 + 2.0 ** -40)
        unsure = ~(margin > bound)
        unsure[t, cols] = False
        if partners is not None:
            unsure[np.asarray(partners[lo:hi], dtype=np.intp), cols] = False
        for c in range(hi - lo):
            x = rows[c]
            top_label = targets[lo + c]
            top = sum(map(mul, self._row(top_label), x))
            if partners is not None:
                p = partners[lo + c]
                if sum(map(mul, self._row(p), x)) != top:
                    return lo + c, p
            for k in np.flatnonzero(unsure[:, c]).tolist():
                if sum(map(mul, self._row(k), x)) >= top:
                    return lo + c, k
        return None

    def strictly_inside(self, support, i: int) -> bool:
        """:meth:`PythonArithmetic.strictly_inside`, proven by an approximate inverse
        with a rigorous bound (docs/certificates.md); the exact elimination decides
        where the bound does not."""
        if _verified_inside(self.np, self.Zi[self.np.asarray(support, dtype=self.np.intp)],
                            self.Zi[i]):
            return True
        return PythonArithmetic.strictly_inside(self, support, i)

    def nonzero_coordinate(self, labels, coefficients):
        np = self.np
        if not labels:
            return None
        rows = self.Zi[np.asarray(labels, dtype=np.intp)]
        # The largest |entry| in Python integers: np.abs(-2^63) wraps to -2^63 in int64,
        # and a bound too small would let too few primes accept a false identity.
        zmax = max(int(rows.max()), -int(rows.min())) if rows.size else 0
        bound = sum(abs(a) for a in coefficients) * zmax
        primes = primes_with_product_above(2 * bound)
        if len(primes) > MAX_PRIMES:
            return PythonArithmetic.nonzero_coordinate(self, labels, coefficients)
        bad = np.zeros(self.ev.d, dtype=bool)
        for p in primes:
            R = rows % p
            a = np.array([c % p for c in coefficients], dtype=np.int64)
            acc = np.zeros(self.ev.d, dtype=np.int64)
            for lo in range(0, len(labels), SUM_ROWS):
                acc = (acc + a[lo:lo + SUM_ROWS] @ R[lo:lo + SUM_ROWS]) % p
            bad |= acc != 0
        where = np.flatnonzero(bad)
        return int(where[0]) if where.size else None


#: A wide head's float copy is ``H 2^-s`` with the largest ``|entry|`` below
#: ``2^WIDE_TOP``; every non-zero entry must then be at least ``2^-WIDE_BOTTOM``, so that
#: no product, square or sum of the bound overflows or leaves the normal range inexactly
#: (docs/certificates.md, "Heads beyond int64").
WIDE_TOP, WIDE_BOTTOM = 400, 500


def scaled_float(v: int, s: int) -> float:
    """``v 2^-s`` rounded to the nearest float64 (ties to even), for a result in the
    normal range. The magnitude is cut to 64 bits rounded to odd (the dropped bits
    leave a 1 in the last place), which Python's correctly rounded ``float`` then
    rounds to 53 bits: the same as rounding ``v`` itself, as 64 >= 53 + 2 (Boldo and
    Melquiond, "When double rounding is odd", 2005); the power of two is exact."""
    m = -v if v < 0 else v
    r = max(0, m.bit_length() - 64)
    g = m >> r
    if g << r != m:
        g |= 1
    f = ldexp(float(g), r - s)
    return -f if v < 0 else f


class WideNumpyArithmetic(NumpyArithmetic):
    """:class:`NumpyArithmetic` for heads whose ``Z`` (or bias) does not fit int64, such
    as float64 heads (``Z = 2^k W``, entries of 60 to 2,000 bits): the float copy is
    ``F = fl(H 2^-s)``, each entry correctly rounded (:func:`scaled_float`), with the
    power of two ``2^-s`` chosen so that ``|F| <= 2^WIDE_TOP``; the bound of
    :class:`NumpyArithmetic` holds for ``H 2^-s`` as it does for ``H`` (every sign of
    ``(H_t - H_k) x`` is that of ``(H_t - H_k) x 2^-s``), and every entry it does not
    decide is computed in Python integers. Identities and simplices are computed in
    Python integers. Refuses (``ValueError``) a head whose non-zero entries span more
    than ``WIDE_TOP + WIDE_BOTTOM`` bits: it is checked in Python integers."""

    name = "numpy"

    def __init__(self, ev: Evidence, np, jobs: int = 1):
        PythonArithmetic.__init__(self, ev)
        self.np, self.jobs = np, jobs
        rows = self.H
        n, w = len(rows), (len(rows[0]) if rows else 0)
        top = max((abs(v).bit_length() for row in rows for v in row), default=0)
        low = min((abs(v).bit_length() for row in rows for v in row if v), default=0)
        self.shift = max(0, top - WIDE_TOP)
        if low and low - 1 - self.shift < -WIDE_BOTTOM:
            raise ValueError(f"entries of {low} to {top} bits: too far apart for float64")
        self.Zi = self.Hi = None  # the rows are self.Z and self.H (Python integers)
        shift = self.shift
        # Without a shift every entry is below 2^400: Python's float of an int is
        # correctly rounded (ties to even), as scaled_float(v, 0) is, and faster.
        self.F = np.array([list(map(float, row)) if not shift else
                           [scaled_float(v, shift) for v in row] for row in rows],
                          dtype=np.float64).reshape(n, w)
        self.N = np.sqrt(np.einsum("ij,ij->i", self.F, self.F))

    def z_row(self, k: int) -> list:
        return self.Z[k]

    def _row(self, k: int) -> list:
        return self.H[k]

    def strictly_inside(self, support, i: int) -> bool:
        return PythonArithmetic.strictly_inside(self, support, i)

    def nonzero_coordinate(self, labels, coefficients):
        return PythonArithmetic.nonzero_coordinate(self, labels, coefficients)


#: The work of forked workers: ``(arithmetic, points, targets, partners)``, set before
#: the pool forks, so that the children inherit the arrays instead of receiving copies.
_FORKED = None


def _block_failure(work, block):
    arith, points, targets, partners = work
    return arith.block_failure(points, targets, partners, *block)


def _forked_block_failure(block):
    return _block_failure(_FORKED, block)


def _one_blas_thread() -> None:
    """Workers already fill the cores: one BLAS thread each, where threadpoolctl is
    importable. Only speed depends on it, and an exception in a pool's initializer
    makes the pool start workers without end: none may leave."""
    try:
        import_module("threadpoolctl").threadpool_limits(limits=1, user_api="blas")
    except Exception:
        pass


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _first_failure_forked(work, blocks, jobs: int, progress=None):
    """The first failure over ``blocks`` in their order, computed by ``jobs`` forked
    processes (the blocks in order, one at a time each; the rest is cancelled at the
    first failure)."""
    global _FORKED
    import multiprocessing

    _FORKED = work
    try:
        with multiprocessing.get_context("fork").Pool(jobs, _one_blas_thread) as pool:
            for block, bad in zip(blocks, pool.imap(_forked_block_failure, blocks)):
                if bad is not None:
                    return bad
                if progress is not None:
                    progress.update(block[1])
        return None
    finally:
        _FORKED = None


def _exact_residual(np, M, t, a, q: int, exponents):
    """``2^-e_r (t_r - sum_c M_rc a_c / 2^q)`` for every row ``r``, each rounded once to
    float64 (``M``, ``t``, ``a`` Python integers, ``M`` an object array)."""
    products = M.dot(np.array(a, dtype=object)).tolist()
    return np.array([float(Fraction((tr << q) - mr, 1 << (q + e)))
                     for tr, mr, e in zip(t, products, exponents)])


def _as_dyadic(values) -> tuple:
    """Integers ``a`` and ``q >= 0`` with ``values[c] = a[c] / 2^q`` (finite floats)."""
    fr = [Fraction(float(v)) for v in values]
    q = max(f.denominator for f in fr).bit_length() - 1
    return [f.numerator << (q - f.denominator.bit_length() + 1) for f in fr], q


def _verified_inside(np, V, z, inverse=None) -> bool:
    """True only if ``z`` is proven to be strictly inside the simplex of the rows of
    ``V`` (int64, ``N x (N - 1)``): Rump's verification with a float inverse ``R`` of
    the row-scaled system and an exact residual (docs/certificates.md, "Simplices")."""
    N = V.shape[0]
    if N < 2 or N * U > 2.0 ** -10:
        return False
    M = np.vstack([V.T.astype(object), np.ones((1, N), dtype=object)])
    t = [int(v) for v in z.tolist()] + [1]
    Mf = V.T.astype(np.float64)  # int64 to float64: each entry rounded once
    Mf = np.vstack([Mf, np.ones((1, N))])
    tf = np.array([float(v) for v in t])
    top = np.maximum(np.abs(Mf).max(axis=1), np.abs(tf))
    exponents = [int(e) for e in np.frexp(np.where(top > 0, top, 1.0))[1]]
    Mh = np.ldexp(Mf, -np.array(exponents)[:, None])  # powers of two: exact
    th = np.ldexp(tf, -np.array(exponents))
    try:
        R = (inverse or np.linalg.inv)(Mh)  # untrusted: only bounds use it
    except np.linalg.LinAlgError:
        return False
    if not np.all(np.isfinite(R)):
        return False
    gamma = N * U / (1 - N * U)
    aR = np.abs(R)
    off = np.abs(np.eye(N) - R @ Mh).sum(axis=1)
    alpha = 2.0 * float((off + (gamma + 2 * U) * (aR @ np.abs(Mh).sum(axis=1))).max()
                        + N * N * 2.0 ** -1074)
    if not alpha <= 0.5:
        return False
    a, q = _as_dyadic(R @ th)
    b, p = _as_dyadic(R @ _exact_residual(np, M, t, a, q, exponents))
    q2 = max(q, p)
    a = [(x << (q2 - q)) + (y << (q2 - p)) for x, y in zip(a, b)]
    rho = _exact_residual(np, M, t, a, q2, exponents)
    # 2^-1074 inside covers the rounding of rho to 0, N 2^-1074 outside the products of
    # the sum that underflow to 0 (each |R_kc| below 1/2 times a tiny entry rounds to 0).
    err = 4.0 * float((aR @ (np.abs(rho) + 2.0 ** -1074)).max() + N * 2.0 ** -1074)
    if not err < float("inf"):
        return False
    bound = Fraction(err)
    return all(Fraction(x, 1 << q2) > bound for x in a)


def _lifted_row(arith, ev: Evidence, k: int) -> list:
    """``(z_k, beta_k)`` for ``k < n``, the floor row ``(z_j, beta_j - M)`` for
    ``k = n + j``."""
    j = k % ev.n
    return arith.z_row(j) + [ev.beta[j] - (ev.drop if k >= ev.n else 0)]


def _inside_with_floor(arith, ev: Evidence, support, i: int) -> bool:
    """Whether the lifted row of ``i`` is strictly inside the simplex of the lifted and
    floor rows of ``support`` (``d + 2`` of them): the float proof where the rows fit in
    int64, else exact elimination (docs/certificates.md, "Simplices with a bias")."""
    rows = [_lifted_row(arith, ev, k) for k in support]
    target = _lifted_row(arith, ev, i)
    np = getattr(arith, "np", None)
    if np is not None and all(-(1 << 63) <= v < 1 << 63 for row in rows + [target]
                              for v in row):
        if _verified_inside(np, np.array(rows, dtype=np.int64),
                            np.array(target, dtype=np.int64)):
            return True
    return _positive_solution([row + [1] for row in rows], target + [1])


def _simplices_valid(ev: Evidence) -> None:
    """Support labels of each simplex: ``d + 1`` distinct labels in range, not ``i``."""
    top = 2 * ev.n if ev.drop is not None else ev.n  # floor rows n .. 2n - 1
    for r, (i, support) in enumerate(zip(ev.simplex_labels, ev.simplex_support)):
        if len(set(support)) != len(support):
            raise CertificateError(f"simplex[{r}] of label {i}: a label is listed twice")
        for k in support:
            if not 0 <= k < top or k == i:
                raise CertificateError(f"simplex[{r}] of label {i}: support label {k} is "
                                       f"not allowed (must be in 0..{top - 1}, not {i})")


# --- the check ------------------------------------------------------------------------------

def _point_scale_positive(ev: Evidence, points: IntArray, name: str, labels) -> None:
    """With a bias, the last coordinate ``h`` of every point must be positive."""
    if ev.beta is None:
        return
    step = 1024
    for lo in range(0, points.shape[0], step):
        for c, x in enumerate(points.rows(lo, min(points.shape[0], lo + step)), start=lo):
            if x[-1] <= 0:
                raise CertificateError(f"{name} of {labels(c)}: the scale h = {x[-1]} of "
                                       "the input must be positive")


def _rival_message(kind: str, what: str, k: int, partner: bool) -> str:
    if partner:
        return f"{kind} of {what}: labels {what} do not score equally at the point"
    return f"{kind} of {what}: label {k} scores at least as high at the point"


def choose_backend(ev: Evidence, backend: str, jobs: int = 1):
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    np = numpy_or_none() if backend in ("auto", "numpy") else None
    if backend == "numpy" and np is None:
        raise CertificateError("the numpy path was asked for, but numpy cannot be imported")
    use_numpy = np is not None and (backend == "numpy" or ev.n * ev.d >= NUMPY_MIN_ENTRIES)
    if use_numpy:
        try:
            return NumpyArithmetic(ev, np, jobs)
        except ValueError:
            pass  # Z or the bias beyond int64: the wide float copy below
        try:
            return WideNumpyArithmetic(ev, np, jobs)
        except ValueError:
            pass  # entries too far apart for one float64 scale: Python integers throughout
    return PythonArithmetic(ev)


def check_archive(archive: Archive, backend: str = "auto", jobs: int = 1) -> str:
    """Every check of docs/certificates.md, claim ``analyze``; the summary line."""
    m = read_manifest(archive)
    digest = archive.digest(["Z", "bias"] if m["bias"] else ["Z"])
    if digest != m["sha256"]:
        raise CertificateError("input.sha256 does not match the stored matrix (Z"
                               f"{' and bias' if m['bias'] else ''}): {digest}")
    ev = Evidence(archive, m)
    n = ev.n
    _labels_decided_once(ev)
    _pairs_valid(ev)
    bias = ev.beta is not None
    domain = ev.domain
    hull_labels = ev.hull_labels
    _multipliers_valid("convex weights", ev.hull, lambda r: {hull_labels[r]}, n,
                       strict_sum=True)
    _multipliers_valid("no-tie certificate", ev.non_tie,
                       lambda r: set(ev.non_tie_pairs[r]), n, strict_sum=not bias)
    _simplices_valid(ev)
    # The assertion: counts, completeness.
    a = m["assertion"]
    counts = {"argmaxable": len(ev.argmax_labels),
              "unargmaxable": len(ev.hull_labels) + len(ev.simplex_labels),
              "tie_pairs": len(ev.tie_pairs),
              "non_tie_pairs": len(ev.non_tie_pairs) + len(ev.simplex_pairs)}
    for key, value in counts.items():
        if a[key] != value:
            raise CertificateError(f"assertion.{key} is {a[key]}, the evidence has {value}")
    decided = len(ev.tie_pairs) + counts["non_tie_pairs"]
    if a["complete"] != (decided == comb(n, 2)):
        raise CertificateError(f"assertion.complete is {str(a['complete']).lower()}, but "
                               f"{decided} of {comb(n, 2)} pairs are decided")
    # Witnesses.
    _point_scale_positive(ev, ev.argmax_points, "argmax witness",
                          lambda c: f"label {ev.argmax_labels[c]}")
    _point_scale_positive(ev, ev.tie_points, "tie witness",
                          lambda c: "labels {} and {}".format(*ev.tie_pairs[c]))
    _points_in_domain(ev, ev.argmax_points, "argmax witness",
                      lambda c: f"label {ev.argmax_labels[c]}")
    _points_in_domain(ev, ev.tie_points, "tie witness",
                      lambda c: "labels {} and {}".format(*ev.tie_pairs[c]))
    arith = choose_backend(ev, backend, jobs)
    bad = arith.first_failure(ev.argmax_points, ev.argmax_labels)
    if bad is not None:
        c, k = bad
        raise CertificateError(_rival_message("argmax witness", f"label {ev.argmax_labels[c]}",
                                              k, False))
    bad = arith.first_failure(ev.tie_points, [i for i, _ in ev.tie_pairs],
                              [j for _, j in ev.tie_pairs])
    if bad is not None:
        c, k = bad
        i, j = ev.tie_pairs[c]
        raise CertificateError(_rival_message("tie witness", f"{i} and {j}", k, k == j))
    # Identities.
    for r, (labels, weights, den) in enumerate(ev.hull):
        i = hull_labels[r]
        if domain is not None:
            G, sigma = _affine_part(arith, ev, i, zip(labels, weights))
            why = _domain_failure(ev, G, sigma, False)
            if why is not None:
                raise CertificateError(f"convex weights[{r}] of label {i}: D l_{i} - sum "
                                       f"m_k l_k is not <= 0 on the domain: {why}")
            continue
        c = arith.nonzero_coordinate([i, *labels], [den, *(-w for w in weights)])
        if c is not None:
            raise CertificateError(f"convex weights[{r}] of label {i}: D z_{i} - sum m_k "
                                   f"z_k is not 0 in coordinate {c}")
        if bias and den * ev.beta[i] > sum(w * ev.beta[k] for k, w in zip(labels, weights)):
            raise CertificateError(f"convex weights[{r}] of label {i}: the bias of label "
                                   f"{i} exceeds the combination of the others")
    inside = arith.strictly_inside if ev.drop is None else (
        lambda support, i: _inside_with_floor(arith, ev, support, i))
    for r, (i, support) in enumerate(zip(ev.simplex_labels, ev.simplex_support)):
        if not inside(support, i):
            raise CertificateError(f"simplex[{r}] of label {i}: z_{i} is not strictly "
                                   "inside the simplex of its support")
    for r, ((labels, weights, den), T) in enumerate(zip(ev.non_tie, ev.non_tie_t)):
        i, j = ev.non_tie_pairs[r]
        if domain is not None:
            G, sigma = _affine_part(arith, ev, i, [*zip(labels, weights), (j, T)])
            why = _domain_failure(ev, G, sigma, not any(weights))
            if why is not None:
                raise CertificateError(f"no-tie certificate[{r}] of {i} and {j}: sum m_k "
                                       f"(l_i - l_k) + T (l_i - l_j) is not <= 0 on the "
                                       f"domain: {why}")
            continue
        c = arith.nonzero_coordinate([i, j, *labels], [sum(weights) + T, -T,
                                                       *(-w for w in weights)])
        if c is not None:
            raise CertificateError(f"no-tie certificate[{r}] of {i} and {j}: sum m_k (z_i "
                                   f"- z_k) + T (z_i - z_j) is not 0 in coordinate {c}")
        if bias:
            b = ev.beta
            slack = sum(w * (b[i] - b[k]) for k, w in zip(labels, weights)) + T * (b[i] - b[j])
            if slack > 0 or (slack == 0 and not any(weights)):
                raise CertificateError(f"no-tie certificate[{r}] of {i} and {j}: the bias "
                                       f"term is {'positive' if slack > 0 else 'zero with no weight'}")
    # The stored head is the primitive one (checked last: a forgery that fails an
    # identity is named by it).
    _check_primitive(ev.Z, ev.beta if m["bias"] else None)
    kinds = (f"{len(ev.hull_labels)} convex weights, {len(ev.simplex_labels)} simplices"
             if ev.simplex_labels else "convex weights")
    where = f" on the domain {_domain_text(domain)}" if domain is not None else ""
    return (f"analyze, {n} labels in dimension {ev.d}{' with a bias' if m['bias'] else ''}"
            f"{where}: "
            f"{len(ev.argmax_labels)} argmaxable (witnesses), {counts['unargmaxable']} "
            f"unargmaxable ({kinds}); {decided} of {comb(n, 2)} pairs decided: "
            f"{len(ev.tie_pairs)} can tie, {counts['non_tie_pairs']} cannot")


def check_file(path, *, backend: str = "auto", jobs: int = 1) -> str:
    """Check the certificate archive at ``path``; return the summary line. ``jobs``
    worker processes share the witness products of the numpy path."""
    return check_archive(Archive(path), backend, jobs)


# --- the certificate against the user's matrix ------------------------------------------------

def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def confirm_matrix(path, *, rows=None, array=None, bias=None, file=None) -> str:
    """Confirm that the certificate at ``path`` is about the given head.

    ``rows``: exact rows (``int``/``Fraction``-like numbers with ``numerator`` and
    ``denominator``), or ``array``: a numpy array of binary floats or integers (taken at
    its exact value); ``bias``: exact entries. Checks ``Z = scale W`` (and
    ``beta = scale b``) entry by entry, exactly, and with ``file`` that the file's
    SHA-256 is the recorded one. Returns a one-line summary or raises ``CertificateError``.
    """
    archive = Archive(path)
    m = read_manifest(archive)
    scale = _scale(archive.manifest["input"]["scale"], "input.scale")
    src = archive.manifest["input"]["source"]
    notes = []
    if file is not None and src["sha256"] is not None:
        if file_sha256(file) != src["sha256"]:
            raise CertificateError(f"{file}: SHA-256 differs from the certificate's "
                                   "input.source.sha256 (another file)")
        notes.append("SHA-256 of the file matches")
    Z = archive.array("Z", m["encoding"]["Z"])
    n, d = m["n"], m["d"]
    # The stored Z must be n x d itself: the entries are compared through zip, which
    # would stop at the shorter of a stored row and a given one.
    _shape(Z, (n, d), "Z")
    if array is not None:
        shape = tuple(array.shape)
    else:  # every row must have d entries (zip below would stop at a short row)
        widths = {len(row) for row in rows}
        shape = (len(rows), widths.pop() if len(widths) == 1 else "ragged" if widths else 0)
    if shape != (n, d):
        size = " x ".join(map(str, shape)) if len(shape) == 2 else f"of shape {shape}"
        raise CertificateError(f"the matrix is {size}, the certificate's Z is {n} x {d}")
    p, q = scale.numerator, scale.denominator
    np = numpy_or_none() if array is not None else None
    step = 4096
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        if array is not None and np is not None and array.dtype.kind == "f" \
                and q == 1 << (q.bit_length() - 1) and p == 1 << (p.bit_length() - 1):
            # A power-of-two scale: W 2^a is exact in float64 and an integer there.
            exp = p.bit_length() - q.bit_length()
            V = np.ldexp(np.asarray(array[lo:hi], dtype=np.float64), exp)
            Zb = Z.numpy(np)
            ok = (Zb is not None and np.all(np.abs(V) < 2.0 ** 63)
                  and np.array_equal(V.astype(np.int64), Zb[lo:hi])
                  and np.array_equal(V, np.floor(V)))
            if ok:
                continue
        block = Z.rows(lo, hi)
        source = (array[lo:hi].tolist() if array is not None else rows[lo:hi])
        for r, (zrow, wrow) in enumerate(zip(block, source), start=lo):
            for c, (z, w) in enumerate(zip(zrow, wrow)):
                if Fraction(z) != scale * Fraction(w):
                    raise CertificateError(f"row {r}, column {c}: Z is {z}, the scale times "
                                           "the matrix entry is "
                                           f"{scale * Fraction(w)}")
    if m["bias"]:
        if bias is None:
            raise CertificateError("the certificate has a bias; give it (--bias)")
        stored = archive.array("bias", m["encoding"]["bias"])
        _shape(stored, (n,), "bias")
        if len(bias) != n:
            raise CertificateError(f"the bias has {len(bias)} entries, the certificate's "
                                   f"has {n}")
        beta = stored.rows()
        for r, (z, w) in enumerate(zip(beta, bias)):
            if Fraction(z) != scale * Fraction(w):
                raise CertificateError(f"bias entry {r}: the certificate has {z}, the scale "
                                       f"times the bias is {scale * Fraction(w)}")
    elif bias is not None:
        raise CertificateError("a bias was given, but the certificate has none")
    notes.insert(0, f"Z = {scale} W exactly for all {n} x {d} entries")
    return "; ".join(notes)
