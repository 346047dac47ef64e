"""Reading a matrix, exactly, whatever holds it: the one entry point of every command.

:func:`read_matrix` reads a matrix file (``.json``, ``.csv``, ``.txt``, ``.npy``:
:mod:`verify.io.matrix_file`) or the head of a checkpoint (``.safetensors``,
``*.safetensors.index.json``, a directory: :mod:`verify.io.checkpoint`), every entry
through one parser (:func:`verify.numbers.sqrt_sum.parse_entry`: ``0.1`` is 1/10,
``5*sqrt(2)/2`` a sum of square roots, ``sqrt(4)/2`` the rational 1).  A command that
computes over the rationals only names itself in ``rational``, and an irrational entry
is refused in one line naming it, the same way for every command.

The modules below import one way: :mod:`~verify.io.matrix_file` and
:mod:`~verify.io.safetensors_file` (formats) below :mod:`~verify.io.checkpoint`
(tensors and heads), below this module (the dispatch).

Every problem is an :class:`~verify.io.errors.InputError` with a one-line message
``"<path>: <problem>"``; rows and columns are counted from 0.
"""

from verify.io import checkpoint
from verify.io.matrix_file import (MAX_TEXT_BYTES, NPY_HEADER_ERRORS, PICKLE_EXTENSIONS,
                                   SUPPORTED_EXTENSIONS, matrix_shape, npy_header_problem,
                                   pickle_advice, read_matrix_file, read_vector_file,
                                   refuse_irrational)

__all__ = ["read_matrix", "read_vector", "matrix_shape", "npy_header_problem",
           "refuse_irrational", "MAX_TEXT_BYTES", "NPY_HEADER_ERRORS", "PICKLE_EXTENSIONS",
           "SUPPORTED_EXTENSIONS", "pickle_advice"]


def read_matrix(path, *, tensor: str | None = None, rational: str | None = None) -> list[list]:
    """The rows of the matrix stored at ``path``, each a list of exact entries.

    Text entries are read by :func:`verify.numbers.sqrt_sum.parse_entry` (an ``fmpq``,
    or a :class:`~verify.numbers.sqrt_sum.SqrtSum` for an irrational sum of square
    roots); JSON numbers and binary values are always exact rationals.  With
    ``rational`` (what needs rational entries, e.g. ``"pattern"``) an irrational entry
    is refused: ``"<path>: row 1, column 0: 1 - sqrt(2)/2 is irrational; pattern needs
    rational entries"``.  A checkpoint (``.safetensors``, an index, a directory) gives
    its head, or its tensor named ``tensor``, if it has at most
    :data:`~verify.io.checkpoint.MAX_EXACT_ENTRIES` entries
    (:class:`~verify.io.errors.TooLargeError` otherwise, as for ``.npy``).  Any problem
    raises :class:`~verify.io.errors.InputError` ``"<path>: <problem>"``.
    """
    if checkpoint.is_checkpoint(path) or tensor is not None:
        head = checkpoint.load_head(path, tensor=tensor,
                                    max_entries=checkpoint.MAX_EXACT_ENTRIES)
        if isinstance(head.weights, list):
            rows = head.weights
        else:
            rows = head.weights.rows(limit=checkpoint.MAX_EXACT_ENTRIES)
    else:
        rows = read_matrix_file(path, max_entries=checkpoint.MAX_EXACT_ENTRIES)
    if rational is not None:
        refuse_irrational(rows, path, rational)
    return rows


def read_vector(path, *, rational: str | None = None) -> list:
    """The entries of the vector stored at ``path``: a JSON list of numbers, or a text
    or ``.npy`` matrix with one row or one column; exact, through the same entry parser
    and with the same ``rational`` as :func:`read_matrix`."""
    values = read_vector_file(path, max_entries=checkpoint.MAX_EXACT_ENTRIES)
    if rational is not None:
        refuse_irrational(values, path, rational)
    return values
