"""Reading a classifier head (and its bias) from a checkpoint, blockwise and exactly.

A *head* is the unembedding matrix ``W`` (``n`` labels x ``d`` dimensions) of a
classifier, with an optional bias ``b`` (logits ``W x + b``).  :func:`load_head` finds
it in what users have on disk:

* a ``.safetensors`` file (format in :mod:`verify.io.safetensors_file`);
* a sharded checkpoint: ``model.safetensors.index.json``, whose ``"weight_map"`` maps
  every tensor name to the shard file (next to the index) that holds it;
* a directory holding one of these (the index is preferred; see
  :func:`checkpoint_file`);
* a ``.npy`` file (one array; its dtype mapped to the names below);
* any matrix file that :func:`verify.io.matrix_file.read_matrix_file` reads (exact rows).

Binary tensors are not read when loaded: a :class:`LoadedTensor` records where the
bytes are, and :meth:`LoadedTensor.block` maps just the rows asked for, so memory
follows the block, never the file.  Every supported dtype widens *exactly*:
``F16``, ``BF16`` and ``F32`` to float32 (binary16 and bfloat16 embed in binary32;
bfloat16 *is* the upper half of a binary32, so its bits shifted left by 16 are the
float32 of the same value), ``F64`` to float64, integers to int64.  A finite binary
float is a dyadic rational, which :meth:`LoadedTensor.rows` returns as ``fmpq``.

Without a tensor name the head is the first of :data:`HEAD_NAMES` present (output
heads first, then classification heads, then tied input embeddings), else the
checkpoint's only tensor, else its only 2-D tensor; otherwise the error lists the 2-D
candidates.

Every problem is an :class:`~verify.io.errors.InputError` whose one-line message starts
with the file concerned; rows and columns are counted from 0.

Example
-------
>>> head = load_head("checkpoints/gpt2")                   # doctest: +SKIP
>>> head.description                                       # doctest: +SKIP
'transformer.wte.weight of checkpoints/gpt2/model.safetensors (F32, 50257 x 768); no bias'
>>> head.weights.block(0, 1024).shape                      # doctest: +SKIP
(1024, 768)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

import numpy as np

from verify.io.errors import InputError, TooLargeError, count_text
from verify.io.files import regular_file_problem
from verify.io.matrix_file import (NPY_HEADER_ERRORS, PICKLE_EXTENSIONS, pickle_advice,
                                   read_matrix_file, read_vector_file, refuse_irrational)
from verify.io.safetensors_file import DTYPES, read_header
from verify.numbers.rational import exact_from_float

__all__ = [
    "AUTO_BIAS", "HEAD_NAMES", "MAX_EXACT_ENTRIES", "HeadSource", "LoadedTensor",
    "check_matrix", "checkpoint_file", "file_tensors", "is_checkpoint", "load_head",
    "load_tensor", "read_safetensors",
]

#: Names of the output head, in order of preference; the first present is the head.
#: Output layers come first, then classification heads; then input embeddings, which
#: are the head of models that tie them to the output (GPT-2, BERT, Gemma, T5, ...) and
#: are often the only copy stored.  An untied model's input embedding is used only when its checkpoint holds
#: no output layer; the description always names the tensor used.
HEAD_NAMES = (
    "lm_head.weight",                      # Llama, Mistral, Qwen, OPT, GPT-J, Falcon, Phi
    "lm_head.decoder.weight",              # RoBERTa masked LM (when stored untied)
    "cls.predictions.decoder.weight",      # BERT masked LM (when stored untied)
    "embed_out.weight",                    # GPT-NeoX, Pythia
    "output.weight",                       # Meta and Mistral "consolidated" checkpoints
    "vocab_projector.weight",              # DistilBERT masked LM (when stored untied)
    # classification heads (the labels are the classes), before any input embedding
    "classifier.weight",                   # BERT, DistilBERT, ViT, ... ForSequence-
                                           # / ForTokenClassification
    "classifier.out_proj.weight",          # RoBERTa, XLM-R, DeBERTa-v2 classification
    "score.weight",                        # Llama, Mistral, Qwen2, GPT-2 ...
                                           # ForSequenceClassification
    "model.embed_tokens.weight",           # Llama family, Mistral, Qwen2, Gemma (tied)
    "transformer.wte.weight",              # GPT-2 (GPT2LMHeadModel)
    "wte.weight",                          # GPT-2 as published (GPT2Model)
    "model.decoder.embed_tokens.weight",   # OPT, BART decoder
    "model.shared.weight",                 # BART
    "shared.weight",                       # T5
    "bert.embeddings.word_embeddings.weight",     # BERT (BertForMaskedLM)
    "embeddings.word_embeddings.weight",          # BERT (BertModel)
    "roberta.embeddings.word_embeddings.weight",  # RoBERTa
    "distilbert.embeddings.word_embeddings.weight",  # DistilBERT
    "transformer.word_embeddings.weight",  # BLOOM (BloomForCausalLM)
    "word_embeddings.weight",              # BLOOM (BloomModel)
    "gpt_neox.embed_in.weight",            # GPT-NeoX input embedding (untied)
    "tok_embeddings.weight",               # "consolidated" input embedding
)

#: The head tensors whose labels are classes (named by ``id2label`` of the
#: ``config.json`` beside them, :func:`verify.io.vocabulary.read_class_names`), not
#: tokens.
CLASSIFICATION_HEADS = ("classifier.weight", "classifier.out_proj.weight", "score.weight")

#: ``bias="auto"``: the bias the model adds to the logits of each head tensor, the
#: first of the listed names present; a head not listed here, or none present, gives
#: no bias.  (BERT and RoBERTa add ``cls.predictions.bias`` / ``lm_head.bias`` to
#: the logits of their tied decoders.)
AUTO_BIAS = {
    "lm_head.weight": ("lm_head.bias",),
    "lm_head.decoder.weight": ("lm_head.decoder.bias", "lm_head.bias"),
    "roberta.embeddings.word_embeddings.weight": ("lm_head.decoder.bias", "lm_head.bias"),
    "cls.predictions.decoder.weight": ("cls.predictions.decoder.bias", "cls.predictions.bias"),
    "bert.embeddings.word_embeddings.weight": ("cls.predictions.decoder.bias",
                                               "cls.predictions.bias"),
    "embeddings.word_embeddings.weight": ("cls.predictions.decoder.bias",
                                          "cls.predictions.bias"),
    "embed_out.weight": ("embed_out.bias",),
    "output.weight": ("output.bias",),
    "vocab_projector.weight": ("vocab_projector.bias",),
    "distilbert.embeddings.word_embeddings.weight": ("vocab_projector.bias",),
    "classifier.weight": ("classifier.bias",),
    "classifier.out_proj.weight": ("classifier.out_proj.bias",),
    "score.weight": ("score.bias",),
}

#: The exact readers (``rows()``) refuse tensors with more entries than this: a
#: Python ``fmpq`` costs about 100 bytes, so this is a few hundred MB.
MAX_EXACT_ENTRIES = 4_000_000

#: Blocks of the finiteness scan hold about this many bytes of widened values.
SCAN_BLOCK_BYTES = 16 * 2**20

#: Widened numpy dtype of each supported dtype name.
WIDENED = {"F64": np.float64, "F32": np.float32, "F16": np.float32, "BF16": np.float32,
           "I64": np.int64, "I32": np.int64, "I16": np.int64, "I8": np.int64,
           "U32": np.int64, "U16": np.int64, "U8": np.int64}

INDEX_SUFFIX = ".safetensors.index.json"


def _one_line(text) -> str:
    return os.fspath(text).replace("\r", "\\r").replace("\n", "\\n")


def _quoted(name) -> str:
    """A tensor name for a message: JSON-quoted (so one line) and bounded."""
    text = json.dumps(name, ensure_ascii=True)
    return text if len(text) <= 60 else text[:56] + '..."'


def _fail(path, problem: str) -> InputError:
    return InputError(f"{_one_line(path)}: {problem}")


def _shape_text(shape) -> str:
    return " x ".join(str(s) for s in shape) if shape else "scalar"


# --- one tensor -------------------------------------------------------------------


@dataclass(frozen=True)
class LoadedTensor:
    """A tensor stored in a file, read block by block through a memory map.

    ``offset`` is the byte offset of its data in ``source``, ``storage`` the numpy
    dtype of the stored bytes (byte order included) and ``fortran_order`` says that
    a ``.npy`` array is stored column-major; :func:`load_head` fills them in.
    ``storage`` is ``None`` for a dtype this module cannot widen exactly.
    """

    name: str | None
    source: str
    dtype: str
    shape: tuple[int, ...]
    offset: int = field(default=0, repr=False)
    storage: str | None = field(default=None, repr=False)
    fortran_order: bool = field(default=False, repr=False)

    @property
    def label(self) -> str:
        """``'lm_head.weight of FILE (BF16, 32000 x 4096)'``, or ``'FILE (F32, ...)'``."""
        which = f"{self.name} of {self.source}" if self.name is not None else self.source
        return f"{which} ({self.dtype}, {_shape_text(self.shape)})"

    def _where(self) -> str:
        return f"tensor {_quoted(self.name)} " if self.name is not None else ""

    def block(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start <= i < stop`` (entries, for a 1-D tensor), widened exactly.

        Only those rows are mapped (a column-major ``.npy`` maps the array but
        touches only their pages).  Little-endian row-major float32 and float64 data
        are returned as a read-only view of the map (no copy), everything else as a
        widened copy, after which the map is released.
        """
        n = self.shape[0] if self.shape else 0
        if not 0 <= start <= stop <= n:
            raise IndexError(f"rows {start}..{stop} outside 0..{n}")
        if self.storage is None:
            raise _fail(self.source, f"{self._where()}unsupported dtype")
        tail = self.shape[1:]
        if start == stop:
            return np.empty((0, *tail), dtype=WIDENED[self.dtype])
        if self.fortran_order:
            whole = np.memmap(self.source, dtype=self.storage, mode="r", offset=self.offset,
                              shape=self.shape, order="F")
            stored = whole[start:stop]
        else:
            row_bytes = prod(tail) * np.dtype(self.storage).itemsize
            stored = np.memmap(self.source, dtype=self.storage, mode="r",
                               offset=self.offset + start * row_bytes,
                               shape=(stop - start, *tail))
        return _widen(np.asarray(stored), self.dtype)

    def blocks(self, rows_per_block: int):
        """``(start, block)`` for consecutive blocks of ``rows_per_block`` rows."""
        n = self.shape[0]
        for start in range(0, n, rows_per_block):
            yield start, self.block(start, min(n, start + rows_per_block))

    def first_nonfinite(self, block_bytes: int = SCAN_BLOCK_BYTES):
        """The index (a tuple) of the first NaN or infinity, in row-major order, or
        ``None``; scanned blockwise, so memory stays at ``block_bytes``."""
        if WIDENED[self.dtype] is np.int64:
            return None
        row_bytes = max(1, prod(self.shape[1:]) * np.dtype(WIDENED[self.dtype]).itemsize)
        for start, values in self.blocks(max(1, block_bytes // row_bytes)):
            bad = np.argwhere(~np.isfinite(values))
            if len(bad):
                first = tuple(int(k) for k in bad[0])
                return (start + first[0], *first[1:])
        return None

    def rows(self, *, limit: int | None = MAX_EXACT_ENTRIES) -> list:
        """The exact values: a list of rows of ``fmpq`` (a flat list for 1-D).

        Refuses (:class:`~verify.io.errors.TooLargeError`) more than ``limit`` entries
        (``None``: no limit) and NaN or infinity (:class:`~verify.io.errors.InputError`).
        """
        from flint import fmpq

        if limit is not None:
            _refuse_large(self, limit)
        size = prod(self.shape)
        values = self.block(0, self.shape[0])
        if values.dtype.kind == "i":
            exact = [fmpq(v) for v in values.ravel().tolist()]
        else:
            if not np.isfinite(values).all():
                _check_finite(self)  # raises, naming the first bad entry
            exact = [exact_from_float(v) for v in values.ravel().tolist()]
        if len(self.shape) == 1:
            return exact
        d = prod(self.shape[1:])
        return [exact[i:i + d] for i in range(0, size, d)]


def _refuse_large(tensor: LoadedTensor, limit: int) -> None:
    size = prod(tensor.shape)
    if size > limit:
        raise TooLargeError(
            f"{_one_line(tensor.source)}: {tensor._where()}has {_shape_text(tensor.shape)} "
            f"= {count_text(size)} entries; reading it exactly (as rationals) takes at most "
            f"{limit:,}")


def _widen(stored: np.ndarray, dtype: str) -> np.ndarray:
    """The exact widening of stored values (a view when no conversion is needed)."""
    if dtype == "BF16":
        # bfloat16 is the upper half of a binary32: move its bits there.
        bits = stored.astype(np.uint32, order="C")
        bits <<= np.uint32(16)
        return bits.view(np.float32)
    return stored.astype(WIDENED[dtype], order="C", copy=False)


def _check_finite(tensor: LoadedTensor) -> None:
    bad = tensor.first_nonfinite()
    if bad is None:
        return
    value = tensor.block(bad[0], bad[0] + 1)[(0, *bad[1:])]
    where = f"row {bad[0]}" + (f", column {bad[1]}" if len(bad) > 1 else "")
    if len(tensor.shape) == 1:
        where = f"entry {bad[0]}"
    raise _fail(tensor.source, f"{tensor._where()}{where}: not a finite number: "
                               f"{float(value)!r}")


def _require_supported(tensor: LoadedTensor, unnamed: str) -> str:
    """How messages name ``tensor`` (``unnamed`` for a .npy array), once its dtype is
    known to widen exactly."""
    where = tensor._where().rstrip() or unnamed
    if tensor.storage is None:
        raise _fail(tensor.source, f"{where}: unsupported dtype {_quoted(tensor.dtype)} "
                                   f"(supported: {', '.join(WIDENED)})")
    return where


def check_matrix(tensor: LoadedTensor) -> LoadedTensor:
    """``tensor`` if it can be a head: supported dtype, 2-D, non-empty, finite."""
    where = _require_supported(tensor, "array")
    if len(tensor.shape) != 2:
        raise _fail(tensor.source, f"{where} has shape {list(tensor.shape)}: expected a "
                                   "2-D tensor (labels x dimension)")
    n, d = tensor.shape
    if n == 0:
        raise _fail(tensor.source, f"{where}: no rows")
    if d == 0:
        raise _fail(tensor.source, f"{where}: row 0 has no entries (zero columns)")
    _check_finite(tensor)
    return tensor


# --- files -----------------------------------------------------------------------------


def is_checkpoint(path) -> bool:
    """Whether ``path`` names a checkpoint: a directory, ``.safetensors`` or an index."""
    path = Path(path)
    name = path.name.lower()
    return path.is_dir() or name.endswith(".safetensors") or name.endswith(INDEX_SUFFIX)


def checkpoint_file(directory) -> Path:
    """The file to read in a checkpoint directory, in this order of preference:
    ``model.safetensors.index.json``; the only ``*.safetensors.index.json``;
    ``model.safetensors``; the only ``*.safetensors``."""
    directory = Path(directory)
    try:
        names = sorted(p.name for p in directory.iterdir() if p.is_file())
    except OSError as exc:
        raise _fail(directory, f"cannot read: {exc.strerror or type(exc).__name__}") from None
    for preferred, suffix in (("model" + INDEX_SUFFIX, INDEX_SUFFIX),
                              ("model.safetensors", ".safetensors")):
        if preferred in names:
            return directory / preferred
        found = [n for n in names if n.endswith(suffix)]
        if len(found) == 1:
            return directory / found[0]
        if len(found) > 1:
            shown = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
            raise _fail(directory, f"{len(found)} files *{suffix} ({shown}): name one")
    pickles = [n for n in names if Path(n).suffix.lower() in PICKLE_EXTENSIONS]
    if pickles:
        raise _fail(directory, f"cannot read: no .safetensors file, only {pickles[0]}, "
                               f"{pickle_advice(directory / pickles[0])}")
    raise _fail(directory, "cannot read: a directory without a .safetensors file or a "
                           "model.safetensors.index.json")


def file_tensors(path) -> dict[str, LoadedTensor]:
    """Every tensor of one ``.safetensors`` file (its header validated)."""
    source = os.fspath(path)
    header, start = read_header(source)
    return {name: LoadedTensor(name, source, entry["dtype"], tuple(entry["shape"]),
                               offset=start + entry["data_offsets"][0],
                               storage=DTYPES.get(entry["dtype"], (None,))[0])
            for name, entry in header.items()}


def _index_tensors(index: Path) -> dict[str, LoadedTensor]:
    """Every tensor named in a sharded checkpoint's ``weight_map``."""
    problem = regular_file_problem(index)
    if problem is not None:
        raise _fail(index, problem)
    try:
        document = json.loads(index.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _fail(index, f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _fail(index, f"invalid JSON: {exc.msg} (char {exc.pos})") from None
    except RecursionError:
        raise _fail(index, "invalid JSON: nested too deeply") from None
    except OSError as exc:
        raise _fail(index, f"cannot read: {exc.strerror or type(exc).__name__}") from None
    weight_map = document.get("weight_map") if isinstance(document, dict) else None
    if not isinstance(weight_map, dict) or not all(
            isinstance(v, str) for v in weight_map.values()):
        raise _fail(index, 'not a checkpoint index: no "weight_map" object mapping '
                           "tensor names to shard files")
    shards: dict[str, dict[str, LoadedTensor]] = {}
    tensors = {}
    for name, shard in weight_map.items():
        if shard not in shards:
            shard_path = index.parent / shard
            problem = regular_file_problem(shard_path)
            if problem == "file not found":
                raise _fail(index, f"shard {_quoted(shard)} (of tensor {_quoted(name)}) "
                                   f"is missing: no file {_one_line(shard_path)}")
            if problem is not None:
                raise _fail(shard_path, problem)
            shards[shard] = file_tensors(shard_path)
        if name not in shards[shard]:
            raise _fail(index, f"tensor {_quoted(name)} is not in its shard "
                               f"{_quoted(shard)}")
        tensors[name] = shards[shard][name]
    return tensors


def _npy_tensor(path: Path) -> LoadedTensor:
    """The array of a ``.npy`` file, located but not read.  ``storage`` is ``None``
    for numbers that do not widen exactly to float64 or int64 (long double,
    uint64): :func:`load_head` reads those exactly with ``read_matrix``."""
    fmt = np.lib.format
    readers = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
    try:
        with path.open("rb") as fh:
            version = fmt.read_magic(fh)
            if version not in readers:
                raise _fail(path, f"unsupported .npy format version {version}")
            shape, fortran_order, dtype = readers[version](fh)
            offset = fh.tell()
    except NPY_HEADER_ERRORS as exc:
        raise _fail(path, f"not a valid .npy file: "
                          f"{_one_line(str(exc)) or type(exc).__name__}") from None
    except OSError as exc:
        raise _fail(path, f"cannot read: {exc.strerror or type(exc).__name__}") from None
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        kind = "object" if dtype.hasobject else "structured"
        raise _fail(path, f"unsupported dtype {dtype} ({kind} arrays are not numbers; "
                          "need integers or floats)")
    names = {("f", 2): "F16", ("f", 4): "F32", ("f", 8): "F64", ("i", 1): "I8",
             ("i", 2): "I16", ("i", 4): "I32", ("i", 8): "I64", ("u", 1): "U8",
             ("u", 2): "U16", ("u", 4): "U32"}
    name = names.get((dtype.kind, dtype.itemsize))
    if name is None and dtype.kind not in "fiu":
        raise _fail(path, f"unsupported dtype {dtype} (need integers or floats)")
    if not all(type(s) is int and s >= 0 for s in shape):
        raise _fail(path, "not a valid .npy file: the shape is not a list of sizes")
    if offset + prod(shape) * dtype.itemsize > path.stat().st_size:
        raise _fail(path, "not a valid .npy file: the file ends inside its data")
    if any(s >= 2 ** 63 for s in shape):  # an empty array with a huge side
        raise _fail(path, "not a valid .npy file: a size of the shape exceeds 64 bits")
    return LoadedTensor(None, str(path), name or str(dtype), tuple(shape), offset=offset,
                        storage=dtype.str if name else None,
                        fortran_order=bool(fortran_order) and len(shape) > 1)


def _catalogue(path: Path) -> tuple[Path, dict[str, LoadedTensor]]:
    """``(file, tensors by name)`` of a checkpoint file, index or directory."""
    if not path.exists():
        raise _fail(path, "file not found")
    if path.is_dir():
        path = checkpoint_file(path)
    if path.name.lower().endswith(INDEX_SUFFIX):
        return path, _index_tensors(path)
    return path, file_tensors(path)


def _candidates(tensors: dict[str, LoadedTensor], limit: int = 5) -> str:
    """The 2-D tensors, largest first: ``'"a" [50257, 768], ... (3 more)'``."""
    two_d = sorted((t for t in tensors.values() if len(t.shape) == 2),
                   key=lambda t: -prod(t.shape))
    shown = [f"{_quoted(t.name)} {list(t.shape)}" for t in two_d[:limit]]
    more = len(two_d) - limit
    return ", ".join(shown) + (f", ... ({more} more)" if more > 0 else "") or "none"


def _select(where: Path, tensors: dict[str, LoadedTensor], tensor: str | None):
    if tensor is not None:
        if tensor not in tensors:
            raise _fail(where, f"no tensor named {_quoted(tensor)} (2-D tensors: "
                               f"{_candidates(tensors)})")
        return tensors[tensor]
    for name in HEAD_NAMES:
        if name in tensors:
            return tensors[name]
    if not tensors:
        raise _fail(where, "no tensors in the file")
    two_d = [t for t in tensors.values() if len(t.shape) == 2]
    if len(tensors) == 1 or len(two_d) == 1:
        return two_d[0] if two_d else next(iter(tensors.values()))
    raise _fail(where, f"{len(tensors)} tensors and none has a usual head name "
                       f"(lm_head.weight, model.embed_tokens.weight, ...); 2-D tensors: "
                       f"{_candidates(tensors)}; choose one with --tensor NAME")


def load_tensor(path, tensor: str | None = None) -> LoadedTensor:
    """One tensor of a checkpoint (``.safetensors``, index or directory) or a ``.npy``
    file, located and header-checked but not read or validated as a head."""
    path = Path(path)
    if path.suffix.lower() == ".npy":
        if tensor is not None:
            raise _fail(path, "a .npy file holds one array: --tensor does not apply")
        problem = regular_file_problem(path)
        if problem is not None:
            raise _fail(path, problem)
        return _npy_tensor(path)
    where, tensors = _catalogue(path)
    return _select(where, tensors, tensor)


# --- heads -------------------------------------------------------------------------


@dataclass(frozen=True)
class HeadSource:
    """A head ``W`` (``n`` x ``d``) and its optional bias ``b`` (``n`` entries).

    ``weights`` and ``bias`` are :class:`LoadedTensor` for binary files, exact lists
    (rows of ``W``; entries of ``b``) for text formats.
    """

    weights: LoadedTensor | list[list]
    bias: LoadedTensor | list | None
    description: str

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, d)``."""
        if isinstance(self.weights, LoadedTensor):
            return self.weights.shape
        return len(self.weights), len(self.weights[0])


def _text_head(path: Path, tensor: str | None):
    if tensor is not None:
        raise _fail(path, "--tensor applies to checkpoints (.safetensors, an index, a "
                          "directory) only")
    return read_matrix_file(path, max_entries=MAX_EXACT_ENTRIES)


def _load_bias(bias: str, head_name: str | None, tensors: dict, where: Path | None,
               n: int):
    """``(bias, description)``; ``tensors`` are the checkpoint's (``where``), if any."""
    if bias == "auto":
        names = AUTO_BIAS.get(head_name, ())
        for name in names:
            if name in tensors:
                return _check_bias(tensors[name], n)
        tried = f" (none of {', '.join(names)} present)" if names else ""
        return None, f"no bias{tried}"
    if bias in tensors:
        return _check_bias(tensors[bias], n)
    path = Path(bias)
    if not path.exists():
        inside = f" in {_one_line(where)}" if where is not None else ""
        raise _fail(path, f"bias: no such file, and no tensor of that name{inside}")
    if path.suffix.lower() == ".npy" or is_checkpoint(path):
        return _check_bias(load_tensor(path), n)
    values = read_vector_file(path, max_entries=MAX_EXACT_ENTRIES)
    refuse_irrational(values, path, "a bias")
    if len(values) != n:
        raise _fail(path, f"bias has {len(values)} entries for {n} labels")
    return values, f"bias {_one_line(path)} ({n} exact entries)"


def _check_bias(tensor: LoadedTensor, n: int):
    where = _require_supported(tensor, "bias")
    if len(tensor.shape) != 1:
        raise _fail(tensor.source, f"{where} has shape {list(tensor.shape)}: a bias is "
                                   f"1-D, one entry per label ({n})")
    if tensor.shape[0] != n:
        raise _fail(tensor.source, f"{where} has {tensor.shape[0]} entries for {n} labels")
    _check_finite(tensor)
    return tensor, f"bias {tensor.label}"


def load_head(path, *, tensor: str | None = None, bias: str | None = None,
              max_entries: int | None = None) -> HeadSource:
    """The head stored at ``path`` and, if asked, its bias; see the module docstring.

    Parameters
    ----------
    path : a ``.safetensors`` file, a ``*.safetensors.index.json``, a directory holding
        one, a ``.npy`` file, or a text matrix (``.json``, ``.csv``, ``.txt``).
    tensor : the head's name in the checkpoint; default: found as described above.
    bias : a tensor name in the same checkpoint, a ``.npy``/text file with ``n``
        entries, or ``"auto"`` (see :data:`AUTO_BIAS`); default: no bias.
    max_entries : refuse (:class:`~verify.io.errors.TooLargeError`) a binary head with
        more entries, before scanning it.

    The head is checked (supported dtype, 2-D, rows and columns, no NaN or infinity:
    scanned blockwise) and so is the bias (1-D, ``n`` entries, finite).
    """
    path = Path(path)
    where, tensors = None, {}
    if is_checkpoint(path):
        where, tensors = _catalogue(path)
        weights = _select(where, tensors, tensor)
    elif path.suffix.lower() == ".npy" and path.is_file():
        weights = load_tensor(path, tensor)
        if weights.storage is None:
            weights = _text_head(path, None)  # long double, uint64: exact, in memory
    else:
        weights = _text_head(path, tensor)
    if isinstance(weights, LoadedTensor):
        if max_entries is not None:
            _refuse_large(weights, max_entries)
        check_matrix(weights)
        n, label = weights.shape[0], weights.label
    else:
        n = len(weights)
        label = f"{_one_line(path)} ({n} x {len(weights[0])}, exact entries)"
    if bias is None:
        return HeadSource(weights, None, f"{label}; no bias")
    head_name = weights.name if isinstance(weights, LoadedTensor) else None
    values, bias_label = _load_bias(bias, head_name, tensors, where, n)
    return HeadSource(weights, values, f"{label}; {bias_label}")


def read_safetensors(path, tensor: str | None = None) -> list[list]:
    """The rows of one 2-D tensor of a ``.safetensors`` file, as exact rationals (no
    limit on the number of entries).

    ``tensor`` names the tensor; it may be omitted when the file holds exactly one.
    """
    from verify.io.safetensors_file import select_tensor

    tensors = file_tensors(path)
    return check_matrix(tensors[select_tensor(path, tensors, tensor)]).rows(limit=None)
