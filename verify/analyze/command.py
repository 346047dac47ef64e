"""The ``analyze`` subcommand: ``python -m verify analyze --matrix FILE [options]``.

Register it with :func:`add_parser` on the subparsers of the main parser; the parsed
namespace carries ``run`` (:func:`run_analyze`), which returns the exit code and raises
:class:`~verify.io.errors.InputError` for every user error (one line, exit code 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from verify.io.errors import InputError
from verify.io.options import non_negative_int, positive_int

__all__ = ["add_parser", "label_names", "read_head", "read_names", "run_analyze"]

MATRIX_HELP = (
    "the unembedding matrix, one row per label: .json (a list of rows, or an object "
    "with key \"W\"), .csv/.txt, .npy, or .safetensors (see --tensor). Entries are "
    "exact: integers, decimals (0.1 is 1/10), fractions p/q, and in text and JSON "
    "strings square roots such as 5*sqrt(2)/2; binary floats (.npy, .safetensors) are "
    "taken at their exact binary value.")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``analyze`` on ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    p = subparsers.add_parser(
        "analyze",
        help="analyse a classifier head: argmaxable labels, tie pairs, cosine "
             "neighbours versus competition, cell counts",
        description="Analyse an unembedding matrix W (rows = labels, numbered from 0) "
                    "exactly: which labels can be the argmax (each with a witness input "
                    "or convex weights proving it cannot), which pairs can be tied for "
                    "the highest probability (witness or Motzkin certificate), how the "
                    "nearest labels by cosine compare with the labels they can tie "
                    "with, and the sizes of the sign and ranking patterns.")
    p.add_argument("--matrix", required=True, metavar="FILE", help=MATRIX_HELP)
    p.add_argument("--labels", metavar="NAMES_FILE",
                   help="a text file with one label name per line, n lines (default for "
                        "a checkpoint: the tokens of the tokenizer.json or vocab.txt "
                        "beside it)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (keys in docs/analyze.md)")
    p.add_argument("--plot", metavar="OUT.png",
                   help="draw the head and its argmax regions (dimension 2 only; needs "
                        "matplotlib)")
    p.add_argument("--html", metavar="REPORT.html",
                   help="write a self-contained HTML report (summary, unargmaxable labels "
                        "with their certificates, cosine rank against ties), atomically")
    p.add_argument("--graph", metavar="OUT.graphml|OUT.json",
                   help="write the tie graph (labels, certified tie pairs) as GraphML or "
                        "networkx node-link JSON, atomically")
    p.add_argument("--max-cells", type=non_negative_int, default=200_000, metavar="N",
                   help="enumerate the sign and ranking patterns only if an upper bound "
                        "on their number of cells is at most N (default 200000)")
    p.add_argument("--force", action="store_true",
                   help="enumerate the patterns whatever the bound")
    p.add_argument("--tensor", metavar="NAME",
                   help="the head tensor of a checkpoint (.safetensors, a sharded "
                        "model.safetensors.index.json, or a directory); default: "
                        "lm_head.weight, else a classification head (classifier.weight, "
                        "score.weight, ...), else the tied input embeddings")
    p.add_argument("--bias", metavar="NAME|FILE|auto",
                   help="a bias b (logits W x + b): a tensor of the checkpoint, a .npy "
                        "or text file with one entry per label, or 'auto' (the head's "
                        "own bias tensor, if the checkpoint has one)")
    p.add_argument("--domain", type=_domain, default=None, metavar="all|nonneg|box:L,U",
                   help="the inputs x the head sees: all of R^d (default), x >= 0 "
                        "('nonneg', after a ReLU) or L <= x_j <= U ('box:0,6' after a "
                        "ReLU6; bounds exact: integers, decimals, p/q); every pair is "
                        "decided up to 200 labels, the neighbour pairs above")
    p.add_argument("--neighbours", type=non_negative_int, default=2, metavar="K",
                   help="nearest labels by cosine listed per label (default 2)")
    p.add_argument("--rays", type=non_negative_int, default=None, metavar="R",
                   help="above 200 labels, where not every pair is decided: random rays "
                        "shot from each argmaxable label's witness to find further tie "
                        "pairs, each certified exactly (default 8, and 0 for heads of "
                        "at least 2^20 entries; 0: only the cosine neighbour pairs)")
    p.add_argument("--memory", type=_gigabytes, default=None, metavar="GB",
                   help="memory budget in GB: blocks of the large products are sized to "
                        "it, and a head that cannot fit even in blocks is refused "
                        "(default: half of the available memory)")
    p.add_argument("--certificate", metavar="PATH",
                   help="write all the evidence (the head as integers, witnesses, convex "
                        "weights, no-tie certificates) to a ZIP archive that 'python -m "
                        "verify check PATH' re-checks; written atomically")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="worker processes for the chunks of labels and pairs of large "
                        "heads (at least 2^20 entries; default 1); the output is "
                        "byte-identical for any N")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="compute those chunks on a Dask cluster, as the sweeps do: "
                        "'local' starts a LocalCluster with --jobs workers, otherwise the "
                        "scheduler address (optional extra: pip install -e '.[dask]')")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--profile", action="store_true",
                   help="print on stderr, at the end, the wall clock and CPU time of each "
                        "phase and the share of it spent in the main process")
    p.set_defaults(run=run_analyze)
    return p


def _domain(text: str):
    from verify.analyze.domain import parse_domain

    try:
        domain = parse_domain(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return None if domain.is_all else domain


def _gigabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GB, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of GB, got {text!r}")
    return value


def _npy_matrix(path: str):
    """A ``.npy`` file of binary floats (up to 64 bits) or integers, memory-mapped.

    None when the file is anything else (then :func:`verify.io.matrix.read_matrix`
    reads it, or names the problem). Non-finite entries are refused here, in blocks.
    """
    import numpy as np

    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if (not isinstance(array, np.ndarray) or array.ndim != 2 or 0 in array.shape
            or array.dtype.kind not in "iuf" or array.dtype.itemsize > 8
            or array.dtype.byteorder not in "=|<>"):
        return None
    if array.dtype.kind == "f":
        for lo in range(0, array.shape[0], 4096):
            bad = np.argwhere(~np.isfinite(array[lo:lo + 4096]))
            if len(bad):
                i, j = int(bad[0][0]) + lo, int(bad[0][1])
                raise InputError(f"{path}: row {i}, column {j}: not a finite number: "
                                 f"{array[i, j]!r}")
    return array


class TensorRows:
    """A :class:`verify.io.checkpoint.LoadedTensor` seen as a row-sliceable matrix.

    ``rows[lo:hi]`` maps and widens only those rows (exactly), which is all that
    :meth:`verify.analyze.head.ExactHead.from_array` needs.
    """

    def __init__(self, tensor):
        import numpy as np

        from verify.io.checkpoint import WIDENED

        self.tensor, self.shape = tensor, tuple(tensor.shape)
        self.dtype = np.dtype(WIDENED[tensor.dtype])
        self.ndim = 2

    def __getitem__(self, rows):
        start, stop, _ = rows.indices(self.shape[0])
        return self.tensor.block(start, stop)


def load_source(path: str, tensor: str | None, bias: str | None):
    """``(weights, bias, description, name)`` of the head at ``path``.

    ``weights``: a numpy array or :class:`TensorRows` for binary files (memory-mapped),
    otherwise exact rows (square roots allowed); ``bias``: exact entries or None;
    ``description``: which tensor of which file (None for plain matrix files);
    ``name``: the tensor's name in a checkpoint, else None.
    """
    from verify.io.checkpoint import LoadedTensor, is_checkpoint, load_head

    if not is_checkpoint(path) and bias is None:
        return read_head(path, tensor), None, None, None
    source = load_head(path, tensor=tensor, bias=bias)
    weights = source.weights
    name = weights.name if isinstance(weights, LoadedTensor) and is_checkpoint(path) \
        else None
    if bias is not None and isinstance(weights, list):
        # A bias head is decided over the rationals (see docs/analyze.md).
        from verify.io.matrix import refuse_irrational

        refuse_irrational(weights, path, "--bias")
    if isinstance(weights, LoadedTensor):
        weights = TensorRows(weights)
    b = source.bias
    if isinstance(b, LoadedTensor):
        b = b.block(0, b.shape[0])  # widened exactly; checked finite by load_head
    return weights, b, source.description, name


def read_head(path: str, tensor: str | None = None):
    """The matrix file, exactly: a numpy array for binary ``.npy`` files (memory-mapped,
    entries taken at their exact binary value), otherwise a list of exact rows."""
    if Path(path).suffix.lower() == ".npy" and tensor is None and Path(path).is_file():
        array = _npy_matrix(path)
        if array is not None:
            return array
    if Path(path).suffix.lower() == ".safetensors":
        from verify.io.checkpoint import read_safetensors

        return read_safetensors(path, tensor)
    if tensor is not None:
        raise InputError(f"{path}: --tensor applies to .safetensors files only")
    from verify.io.matrix import read_matrix

    return read_matrix(path)


def read_names(path: str, n: int) -> list[str]:
    """One name per line; exactly ``n`` of them."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: cannot read: is a directory") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    names = [line.strip() for line in text.splitlines()]
    while names and not names[-1]:
        names.pop()
    if len(names) != n:
        raise InputError(f"{path}: {len(names)} label names for {n} labels (one name per "
                         "line)")
    return names


def label_names(args, n: int, tensor: str | None = None
                ) -> tuple[list[str] | None, str | None]:
    """The label names and the file they come from: ``--labels``, else for a checkpoint
    the tokens of the ``tokenizer.json`` or ``vocab.txt`` beside it, or, where the head
    ``tensor`` is a classification head, the classes of ``id2label`` in the
    ``config.json`` beside it (a note on stderr says which), else none. A file that
    cannot name the ``n`` labels is reported in one warning line, and the labels are
    shown by number."""
    if args.labels:
        return read_names(args.labels, n), args.labels
    from verify.io.checkpoint import CLASSIFICATION_HEADS, is_checkpoint
    from verify.io.vocabulary import (
        VocabularyError,
        class_names_file,
        read_class_names,
        read_vocabulary,
        vocabulary_file,
    )

    if not is_checkpoint(args.matrix):
        return None, None
    classes = tensor in CLASSIFICATION_HEADS
    found = (class_names_file if classes else vocabulary_file)(args.matrix)
    if found is None:
        return None, None
    try:
        names = (read_class_names if classes else read_vocabulary)(found, labels=n)
    except VocabularyError as exc:
        print(f"verify: warning: {exc}; labels shown by number", file=sys.stderr)
        return None, None
    kind = "classes" if classes else "tokens"
    print(f"verify: note: label names from {found} ({len(names)} {kind})", file=sys.stderr)
    return names.tokens, str(found)


def _check_output(path: str, option: str) -> None:
    parent = Path(path).parent
    if not parent.is_dir():
        raise InputError(f"{path}: cannot write {option}: no directory {str(parent)!r}")
    if Path(path).is_dir():
        raise InputError(f"{path}: cannot write {option}: is a directory")


def _writing(path: str, option: str, write) -> None:
    """Run ``write``; a file-system error becomes a one-line :class:`InputError`."""
    try:
        write()
    except PermissionError:
        raise InputError(f"{path}: cannot write {option}: permission denied") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"{path}: cannot write {option}: {reason}") from None


def _progress(quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    def bar(description: str, total: int):
        return tqdm(total=total, desc=description, file=sys.stderr, delay=0.5,
                    unit="pair" if description == "pairs" else "label", leave=False)

    return bar


def _write_certificate(args, result, rows, bias) -> None:
    """``--certificate``: the evidence of ``result`` as an archive (docs/certificates.md)."""
    from verify.analyze.certificate import UnsupportedHead, write_analyze_certificate

    try:
        _writing(args.certificate, "--certificate", lambda: write_analyze_certificate(
            args.certificate, result, rows, bias=bias, source=args.matrix,
            tensor=args.tensor))
    except UnsupportedHead as exc:
        raise InputError(f"{args.matrix}: --certificate: {exc}") from None
    print(f"verify: certificate written to {args.certificate}", file=sys.stderr)


def run_analyze(args) -> int:
    """Run the analysis for the parsed options; return the exit code."""
    profile = None
    if getattr(args, "profile", False):
        from verify.analyze.profile import Profile

        profile = Profile().activate()
    try:
        code = _run_analyze(args, profile)
    finally:
        if profile is not None:
            profile.deactivate()
    if profile is not None:
        for line in profile.table().splitlines():
            print(f"verify: profile: {line}", file=sys.stderr)
    return code


def _run_analyze(args, profile) -> int:
    from verify.analyze.cells import magnitude
    from verify.analyze.report import analyze, format_text, write_json

    progress = _progress(args.quiet)
    if profile is not None:
        progress = profile.progress(progress)

    if args.graph is not None:
        if Path(args.graph).suffix.lower() not in (".graphml", ".json"):
            raise InputError(f"{args.graph}: --graph needs a .graphml or .json file name")
        _check_output(args.graph, "--graph")
    if args.plot is not None:
        _check_output(args.plot, "--plot")
    if args.certificate is not None:
        _check_output(args.certificate, "--certificate")
    if args.html is not None:
        _check_output(args.html, "--html")
    rows, bias, description, tensor = load_source(args.matrix, args.tensor, args.bias)
    source_rows = rows
    n, d = (rows.shape if hasattr(rows, "shape") else (len(rows), len(rows[0])))
    names, names_file = label_names(args, n, tensor)
    if args.plot is not None:
        if d != 2:
            raise InputError(f"{args.matrix}: --plot draws heads of dimension 2; this one "
                             f"has dimension {d}")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: python -m pip install -e "
                             "'.[plot]'") from None
    from verify.analyze.head import ExactHead
    from verify.analyze.memory import MemoryBudget, default_budget

    budget = (MemoryBudget(int(args.memory * 1e9)) if args.memory is not None
              else default_budget()).for_head(n, d, args.matrix)
    if description is not None:
        print(f"verify: note: {description}", file=sys.stderr)
    domain = getattr(args, "domain", None)
    if domain is not None:
        from verify.analyze.report import analyze_in_domain

        if args.plot is not None:
            raise InputError("--plot draws heads over all inputs; drop --domain or --plot")
        try:
            result = analyze_in_domain(rows, bias, domain, neighbours=args.neighbours,
                                       names=names, progress=progress, budget=budget,
                                       jobs=args.jobs, scheduler=args.scheduler)
        except ValueError as exc:
            raise InputError(f"{args.matrix}: {exc}") from None
    elif bias is not None:
        from verify.analyze.report import analyze_with_bias

        if args.plot is not None:
            raise InputError("--plot draws heads without a bias; drop --bias or --plot")

        result = analyze_with_bias(rows, bias, neighbours=args.neighbours, names=names,
                                   source=args.matrix, rays=args.rays,
                                   progress=progress, budget=budget,
                                   jobs=args.jobs, scheduler=args.scheduler)
    else:
        if isinstance(rows, TensorRows):
            rows = ExactHead.from_array(rows, budget=budget, source=args.matrix)
        result = analyze(rows, neighbours=args.neighbours, max_cells=args.max_cells,
                         force=args.force, names=names, rays=args.rays,
                         progress=progress, budget=budget, jobs=args.jobs,
                         scheduler=args.scheduler)
    refused = [kind for kind in ("sign", "ranking")
               if result.cells and result.cells[kind]["count"] is None]
    if refused:
        bounds = ", ".join(f"{kind} pattern up to {magnitude(result.cells[kind]['bound'])}"
                           for kind in refused if result.cells[kind]["bound"] is not None)
        reason = (f"({bounds} cells, more than --max-cells {args.max_cells}); --force "
                  "computes them") if bounds else "(they need rational entries)"
        print(f"verify: note: cell counts not computed {reason}", file=sys.stderr)
    if args.graph is not None:
        from verify.analyze.ties import tie_graph, write_graph

        graph = tie_graph(result.ties, result.argmax, names, result.edge_cosines())
        _writing(args.graph, "--graph", lambda: write_graph(graph, args.graph))
        print(f"verify: tie graph written to {args.graph}", file=sys.stderr)
    if args.plot is not None:
        import warnings

        from verify.analyze.plot import MissingGlyphWarning, plot_head

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MissingGlyphWarning)
            _writing(args.plot, "--plot", lambda: plot_head(
                result.head, args.plot, argmax=result.argmax, ties=result.ties,
                names=names, title=Path(args.matrix).name))
        print(f"verify: figure written to {args.plot}", file=sys.stderr)
        for w in caught:
            if issubclass(w.category, MissingGlyphWarning):
                print(f"verify: note: {w.message}", file=sys.stderr)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if args.certificate is not None:
        _write_certificate(args, result, source_rows, bias)
    if args.html is not None:
        from verify.analyze.html import write_html

        _writing(args.html, "--html", lambda: write_html(
            args.html, result, source=description or args.matrix, labels_file=names_file))
        print(f"verify: report written to {args.html}", file=sys.stderr)
    if args.json:
        extra = {} if description is None else {"source": description}
        extra["labels_file"] = names_file
        write_json(result, sys.stdout, extra=extra)
    else:
        print(format_text(result, description or args.matrix))
    return 0
