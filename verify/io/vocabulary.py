"""Token names of a checkpoint: ``tokenizer.json`` or ``vocab.txt`` beside its weights.

A checkpoint directory (or the directory of a ``.safetensors`` file or of a sharded
index) may hold the tokenizer that goes with the head; its tokens name the labels of an
output head (label ``i`` is the token with id ``i``). Two formats are read:

* ``tokenizer.json``, the format of the Hugging Face ``tokenizers`` library:
  ``model.vocab`` maps each token to its id (BPE, WordPiece, WordLevel), or is a list of
  ``[token, score]`` pairs whose index is the id (Unigram); ``added_tokens`` is a list
  of ``{"id": ..., "content": ...}`` that add tokens or rename an id (as the library
  does when it decodes an id);
* ``vocab.txt`` (BERT and others): one token per line, the id being the line number
  from 0 (lines end at ``\\n`` only, so that a token may hold any other character; a
  ``\\r`` ending every line is dropped).

``tokenizer.json`` is preferred when both are present. The labels of a classification
head (``classifier.weight``, ``score.weight``, ...) are classes, not tokens: they are
named by ``id2label`` of the ``config.json`` beside it (the convention of Hugging Face
``transformers``: ``{"0": "NEGATIVE", "1": "POSITIVE"}``; :func:`read_class_names`).
Every problem (not JSON, not
UTF-8, a file above :data:`MAX_VOCABULARY_BYTES`, an id that is not a non-negative
integer, two tokens for one id, ids missing below the largest, more tokens than labels
or fewer) raises :class:`VocabularyError` with a one-line message naming the file; the
caller shows the labels by number instead. A token that cannot be written as UTF-8 (a
lone surrogate from a JSON escape such as ``"\\ud800"``) is kept with that character
written as its escape, so that every output can hold it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from verify.io.errors import InputError
from verify.io.files import regular_file_problem, size_problem

__all__ = ["CLASS_NAMES_FILE", "MAX_VOCABULARY_BYTES", "VOCABULARY_FILES", "Vocabulary",
           "VocabularyError", "class_names_file", "read_class_names", "read_vocabulary",
           "vocabulary_file"]

#: The names looked for, in this order, in the checkpoint's directory.
VOCABULARY_FILES = ("tokenizer.json", "vocab.txt")
#: The file whose ``id2label`` names the classes of a classification head.
CLASS_NAMES_FILE = "config.json"
#: A larger vocabulary file is refused before it is read (the largest tokenizers of
#: public models are about 35 MB).
MAX_VOCABULARY_BYTES = 128 * 2**20
#: The largest id accepted at all (a bigger one cannot name a label of any head that
#: fits in memory).
MAX_TOKEN_ID = 2**31 - 1


class VocabularyError(InputError):
    """The vocabulary file cannot name the labels (one line, naming the file)."""


@dataclass(frozen=True)
class Vocabulary:
    """The tokens of a vocabulary file: ``tokens[i]`` is the token with id ``i``."""

    file: Path
    tokens: list

    @property
    def kind(self) -> str:
        return self.file.name

    def __len__(self) -> int:
        return len(self.tokens)


def vocabulary_file(checkpoint) -> Path | None:
    """The vocabulary file beside the checkpoint ``checkpoint``, or None.

    ``checkpoint`` is a directory, or a file in one (``model.safetensors``, a sharded
    index); the first of :data:`VOCABULARY_FILES` present in that directory is returned.
    """
    return _beside(checkpoint, VOCABULARY_FILES)


def class_names_file(checkpoint) -> Path | None:
    """The ``config.json`` beside the checkpoint ``checkpoint`` (as
    :func:`vocabulary_file`), or None."""
    return _beside(checkpoint, (CLASS_NAMES_FILE,))


def _beside(checkpoint, names) -> Path | None:
    path = Path(checkpoint)
    directory = path if path.is_dir() else path.parent
    for name in names:
        candidate = directory / name
        try:
            if candidate.exists():
                return candidate
        except OSError:
            continue
    return None


def read_vocabulary(file, labels: int | None = None) -> Vocabulary:
    """The tokens of ``file`` (``tokenizer.json`` or ``vocab.txt``), ids ``0..size-1``.

    ``labels``: the number of labels of the head they are to name; a vocabulary of
    another size raises :class:`VocabularyError` (checked before any list of that size
    is built, so that a hostile id costs nothing).
    """
    file = Path(file)
    text = _text(file)
    if file.name.lower().endswith(".json"):
        ids = _tokenizer_json_ids(file, text)
    else:
        ids = _vocab_txt_ids(text)
    return Vocabulary(file, _tokens_by_id(file, ids, labels))


def read_class_names(file, labels: int | None = None) -> Vocabulary:
    """The class names of ``id2label`` in ``file`` (a ``config.json``): keys are the
    label numbers as decimal text, values the names; ``labels`` as for
    :func:`read_vocabulary`."""
    file = Path(file)
    doc = _json_document(file, _text(file))
    id2label = doc.get("id2label") if isinstance(doc, dict) else None
    if not isinstance(id2label, dict):
        raise VocabularyError(f"{file}: no id2label object (the class names of a "
                              "classification head)")
    found = []
    for key, name in id2label.items():
        if not (key.isascii() and key.isdigit() and (key == "0" or key[0] != "0")
                and len(key) <= 10):
            raise VocabularyError(f"{file}: id2label key {_show(key)} is not a label "
                                  "number")
        if not isinstance(name, str):
            raise VocabularyError(f"{file}: id2label[{_show(key)}] is {_show(name)}, not "
                                  "a name")
        found.append((name, int(key), "id2label"))
    return Vocabulary(file, _tokens_by_id(file, found, labels))


def _text(file: Path) -> str:
    """The UTF-8 text of ``file``, refused above :data:`MAX_VOCABULARY_BYTES`."""
    problem = regular_file_problem(file) or size_problem(file, MAX_VOCABULARY_BYTES,
                                                         "a vocabulary")
    if problem:
        raise VocabularyError(f"{file}: {problem}")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise VocabularyError(f"{file}: cannot read: {exc.strerror or type(exc).__name__}") \
            from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VocabularyError(f"{file}: not UTF-8 text (byte {exc.start})") from None


def _vocab_txt_ids(text: str) -> list:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and all(line.endswith("\r") for line in lines):
        lines = [line[:-1] for line in lines]
    return [(token, i, "line") for i, token in enumerate(lines)]


def _json_document(file: Path, text: str):
    """The JSON document of ``text`` (the text of ``file``), with one-line errors."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise VocabularyError(f"{file}: not JSON (line {exc.lineno}, column {exc.colno}: "
                              f"{exc.msg})") from None
    except RecursionError:
        raise VocabularyError(f"{file}: not readable JSON (nested too deeply)") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        reason = ("an integer of more than 4300 digits" if "digits" in str(exc)
                  else str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise VocabularyError(f"{file}: not readable JSON ({reason})") from None


def _tokenizer_json_ids(file: Path, text: str) -> list:
    """``(token, id, where)`` of ``model.vocab``, then of ``added_tokens``."""
    doc = _json_document(file, text)
    if not isinstance(doc, dict):
        raise VocabularyError(f"{file}: not a tokenizer.json: the document is not an "
                              "object")
    model = doc.get("model")
    vocab = model.get("vocab") if isinstance(model, dict) else None
    added = doc.get("added_tokens")
    if vocab is None and not added:
        raise VocabularyError(f"{file}: no model.vocab and no added_tokens")
    found = []
    if isinstance(vocab, dict):
        found.extend((token, i, "model.vocab") for token, i in vocab.items())
    elif isinstance(vocab, list):  # Unigram: [[token, score], ...]
        for i, entry in enumerate(vocab):
            token = entry[0] if isinstance(entry, list) and entry else entry
            if not isinstance(token, str):
                raise VocabularyError(f"{file}: model.vocab[{i}] is not a token "
                                      "(expected [token, score])")
            found.append((token, i, "model.vocab"))
    elif vocab is not None:
        raise VocabularyError(f"{file}: model.vocab is neither an object (token to id) nor "
                              "a list")
    if added is not None and not isinstance(added, list):
        raise VocabularyError(f"{file}: added_tokens is not a list")
    for k, entry in enumerate(added or ()):
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
            raise VocabularyError(f"{file}: added_tokens[{k}] has no \"content\" string")
        found.append((entry["content"], entry.get("id"), "added_tokens"))
    return found


def _show(value) -> str:
    """A token or id inside a one-line message: as JSON, at most 40 characters."""
    if type(value) is int and value.bit_length() > 64:
        return f"(an integer of {len(str(value))} digits)" if value.bit_length() < 14000 \
            else "(an integer of more than 4000 digits)"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:36] + '..."'


def _tokens_by_id(file: Path, found: list, labels: int | None) -> list:
    by_id: dict = {}
    origin: dict = {}
    for token, i, where in found:
        if type(i) is not int or not 0 <= i <= MAX_TOKEN_ID:
            raise VocabularyError(f"{file}: token {_show(token)} ({where}) has id "
                                  f"{_show(i)}, not a label number (an integer from 0 to "
                                  f"{MAX_TOKEN_ID})")
        if i in by_id and by_id[i] != token:
            if where == "added_tokens" and origin[i] == "model.vocab":
                pass  # an added token renames the id, as the tokenizers library decodes it
            else:
                raise VocabularyError(f"{file}: id {i} has two tokens, "
                                      f"{_show(by_id[i])} and {_show(token)} ({where})")
        by_id[i], origin[i] = token, where
    if not by_id:
        raise VocabularyError(f"{file}: no tokens")
    size = max(by_id) + 1
    if labels is not None and size != labels:
        raise VocabularyError(f"{file}: ids 0..{size - 1} ({len(by_id)} tokens) for a head "
                              f"of {labels} labels")
    if len(by_id) != size:
        missing = [i for i in range(size) if i not in by_id]
        shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise VocabularyError(f"{file}: {len(missing)} ids below {size} have no token "
                              f"({shown})")
    return [_encodable(by_id[i]) for i in range(size)]


def _encodable(token: str) -> str:
    try:
        token.encode("utf-8")
    except UnicodeEncodeError:
        return token.encode("utf-8", "backslashreplace").decode("utf-8")
    return token
