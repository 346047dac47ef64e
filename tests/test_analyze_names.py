"""Label names of ``analyze``: the tokens of a checkpoint's tokenizer, shown escaped.

Every test writes its own small checkpoint (a ``model.safetensors`` and a
``tokenizer.json`` or ``vocab.txt``); nothing is downloaded. Hostile vocabulary files
must give one warning line and labels by number, never a traceback.
"""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from safetensors.numpy import save_file

from verify.analyze.names import show_name
from verify.io import vocabulary as vocabulary_module
from verify.io.vocabulary import VocabularyError, read_vocabulary, vocabulary_file

#: Six labels in the plane: label 4 is the midpoint of 1 and 2, label 5 of 0 and 1.
HEAD = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1], [1, 0]], dtype=np.float32)
TOKENS = ["\n", " the", "\u0120the", "<script>alert(1)</script>", 'a"b\\c', "<|endoftext|>"]


def checkpoint(tmp_path, *, tokenizer=None, vocab_txt=None, head=HEAD):
    directory = tmp_path / "ckpt"
    directory.mkdir(exist_ok=True)
    save_file({"lm_head.weight": head}, str(directory / "model.safetensors"))
    if tokenizer is not None:
        text = tokenizer if isinstance(tokenizer, (str, bytes)) else json.dumps(tokenizer)
        target = directory / "tokenizer.json"
        (target.write_bytes if isinstance(text, bytes) else target.write_text)(text)
    if vocab_txt is not None:
        (directory / "vocab.txt").write_bytes(vocab_txt)
    return directory


def bpe(tokens, added=()):
    """A ``tokenizer.json`` document: BPE vocabulary ``tokens`` (id = position)."""
    return {"version": "1.0", "model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)},
                                         "merges": []},
            "added_tokens": [{"id": i, "content": t, "special": True} for i, t in added]}


def analyze_json(run_cli, path, *extra):
    code, out, err = run_cli(["analyze", "--matrix", path, "--json", "--quiet", *extra])
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out), err


# --- the escaping rule ----------------------------------------------------------------------

@pytest.mark.parametrize("name, shown", [
    ("cat", '"cat"'),
    (" the", '" the"'),
    ("\n", '"\\n"'),
    ("\t\r", '"\\t\\r"'),
    ("\u0120the", '"\u0120the"'),          # GPT-2 byte-level tokens stay as they are
    ("\u2581the", '"\u2581the"'),          # SentencePiece's word boundary too
    ('say "hi"\\', '"say \\"hi\\"\\\\"'),
    ("\x00\x1b", '"\\x00\\x1b"'),
    ("\u00a0", '"\\xa0"'),                 # no-break space: not the ASCII space
    ("a\u200bb", '"a\\u200bb"'),           # zero width space
    ("\u202eevil", '"\\u202eevil"'),       # right-to-left override
    ("\ud800", '"\\ud800"'),               # a lone surrogate
    ("\U000e0001", '"\\U000e0001"'),       # a tag character (format)
    ("", '""'),
])
def test_show_name(name, shown):
    assert show_name(name) == shown


@given(st.text())
def test_show_name_is_readable_and_lossless(name):
    shown = show_name(name)
    assert shown[0] == shown[-1] == '"'
    assert all(ch == " " or ch.isprintable() for ch in shown)
    assert ast.literal_eval(shown) == name


# --- finding and reading the vocabulary -------------------------------------------------------

def test_tokenizer_json_names_the_labels(tmp_path, run_cli):
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS[:5], added=[(5, TOKENS[5])]))
    doc, err = analyze_json(run_cli, path)
    assert doc["labels"] == TOKENS
    assert doc["labels_shown"] == [show_name(t) for t in TOKENS]
    assert doc["labels_file"] == str(path / "tokenizer.json")
    assert f"verify: note: label names from {path / 'tokenizer.json'} (6 tokens)" in err
    assert doc["unargmaxable"] == [4, 5]  # numbers, as before


def test_text_report_shows_names_escaped(tmp_path, run_cli):
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS))
    code, out, err = run_cli(["analyze", "--matrix", path, "--quiet"])
    assert code == 0, err
    assert 'unargmaxable: 4 "a\\"b\\\\c", 5 "<|endoftext|>"' in out
    assert '  0 "\\n" ' in out and '  1 " the" ' in out and '2 "\u0120the"' in out
    # no name breaks a line of the report
    assert all(not line.startswith('"') for line in out.splitlines())


def test_a_safetensors_file_beside_the_tokenizer(tmp_path, run_cli):
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS))
    doc, _ = analyze_json(run_cli, path / "model.safetensors")
    assert doc["labels"] == TOKENS


def test_unigram_vocabulary(tmp_path, run_cli):
    doc = {"model": {"type": "Unigram", "vocab": [[t, -float(i)] for i, t in enumerate(TOKENS)]}}
    path = checkpoint(tmp_path, tokenizer=doc)
    assert analyze_json(run_cli, path)[0]["labels"] == TOKENS


def test_added_tokens_extend_and_rename(tmp_path):
    path = checkpoint(tmp_path, tokenizer=bpe(["a", "b", "c", "d", "e"],
                                              added=[(5, "<eos>"), (0, "<pad>"), (5, "<eos>")]))
    assert read_vocabulary(path / "tokenizer.json", 6).tokens == ["<pad>", "b", "c", "d",
                                                                   "e", "<eos>"]


def test_vocab_txt(tmp_path, run_cli):
    lines = b"[PAD]\n[UNK]\nthe\n##s\n\xc3\xa9t\xc3\xa9\n \n"  # a space token on line 5
    path = checkpoint(tmp_path, vocab_txt=lines)
    doc, err = analyze_json(run_cli, path)
    assert doc["labels"] == ["[PAD]", "[UNK]", "the", "##s", "\u00e9t\u00e9", " "]
    assert doc["labels_file"] == str(path / "vocab.txt") and "vocab.txt (6 tokens)" in err
    crlf = checkpoint(tmp_path, vocab_txt=lines.replace(b"\n", b"\r\n"))
    assert read_vocabulary(crlf / "vocab.txt", 6).tokens == doc["labels"]


def test_tokenizer_json_is_preferred_to_vocab_txt(tmp_path):
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS), vocab_txt=b"x\n" * 6)
    assert vocabulary_file(path) == path / "tokenizer.json"
    assert vocabulary_file(path / "model.safetensors") == path / "tokenizer.json"
    assert vocabulary_file(path / "model.safetensors.index.json") == path / "tokenizer.json"
    assert vocabulary_file(tmp_path) is None


def test_labels_option_overrides_the_tokenizer(tmp_path, run_cli):
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS))
    names = tmp_path / "names.txt"
    names.write_text("a\nb\nc\nd\ne\nf\n")
    doc, err = analyze_json(run_cli, path, "--labels", names)
    assert doc["labels"] == list("abcdef") and doc["labels_file"] == str(names)
    assert "tokenizer" not in err


def test_no_names_for_plain_matrix_files(tmp_path, run_cli):
    (tmp_path / "tokenizer.json").write_text(json.dumps(bpe(TOKENS)))
    matrix = tmp_path / "W.json"
    matrix.write_text(json.dumps(HEAD.astype(int).tolist()))
    doc, err = analyze_json(run_cli, matrix)
    assert doc["labels"] is None and doc["labels_shown"] is None
    assert doc["labels_file"] is None and "note: label names" not in err


# --- hostile vocabulary files: one warning line, labels by number -----------------------------

HOSTILE = {
    "not JSON": ("tokenizer.json", b"{\"model\": {\"vocab\": {\"a\": 0,"),
    "not UTF-8": ("tokenizer.json", b'{"model": {"vocab": {"\xff": 0}}}'),
    "nested too deeply": ("tokenizer.json", b"[" * 200_000 + b"]" * 200_000),
    "not an object": ("tokenizer.json", b"[1, 2, 3]"),
    "no vocabulary": ("tokenizer.json", b'{"model": {"type": "BPE"}}'),
    "vocab a number": ("tokenizer.json", b'{"model": {"vocab": 7}}'),
    "negative id": ("tokenizer.json", json.dumps(bpe(TOKENS) | {"added_tokens": [
        {"id": -1, "content": "x"}]}).encode()),
    "id a string": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {"a": "0", "b": 1}}}).encode()),
    "id a boolean": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {"a": True, "b": 0}}}).encode()),
    "id a float": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {"a": 1.0, "b": 0}}}).encode()),
    "an id of 5000 digits": ("tokenizer.json", b'{"model": {"vocab": {"a": ' + b"9" * 5000
                             + b"}}}"),
    "id NaN": ("tokenizer.json", b'{"model": {"vocab": {"a": NaN}}}'),
    "huge id": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {"a": 0, "b": 10**40}}}).encode()),
    "id beyond the head": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {t: i for i, t in enumerate(TOKENS[:5])} | {"z": 2**31 - 1}}}
    ).encode()),
    "duplicate ids": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {t: min(i, 4) for i, t in enumerate(TOKENS)}}}).encode()),
    "duplicate added ids": ("tokenizer.json", json.dumps(bpe(TOKENS[:5], added=[
        (5, "<a>"), (5, "<b>")])).encode()),
    "missing ids": ("tokenizer.json", json.dumps(
        {"model": {"vocab": {t: 2 * i for i, t in enumerate(TOKENS[:3])} | {"e": 5}}}
    ).encode()),
    "added_tokens not a list": ("tokenizer.json", json.dumps(
        bpe(TOKENS) | {"added_tokens": {"id": 0}}).encode()),
    "added token without content": ("tokenizer.json", json.dumps(
        bpe(TOKENS) | {"added_tokens": [{"id": 0, "content": 5}]}).encode()),
    "unigram entry not a token": ("tokenizer.json", b'{"model": {"vocab": [[1, 0.0]]}}'),
    "too few tokens": ("tokenizer.json", json.dumps(bpe(TOKENS[:4])).encode()),
    "too many tokens": ("tokenizer.json", json.dumps(bpe(TOKENS + ["x"])).encode()),
    "empty vocab.txt": ("vocab.txt", b""),
    "vocab.txt too long": ("vocab.txt", b"a\n" * 7),
    "vocab.txt not UTF-8": ("vocab.txt", b"a\nb\n\xff\nd\ne\nf\n"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_vocabulary_warns_in_one_line(tmp_path, run_cli, case):
    name, data = HOSTILE[case]
    path = checkpoint(tmp_path)
    (path / name).write_bytes(data)
    doc, err = analyze_json(run_cli, path)
    warnings = [line for line in err.splitlines() if line.startswith("verify: warning:")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith(f"verify: warning: {path / name}: ")
    assert warnings[0].endswith("; labels shown by number")
    assert doc["labels"] is None and doc["labels_file"] is None
    assert doc["unargmaxable"] == [4, 5]


def test_size_mismatch_warning_gives_numbers_only(tmp_path, run_cli):
    path = checkpoint(tmp_path, tokenizer=bpe([f"t{i}" for i in range(9)]))
    _, err = analyze_json(run_cli, path)
    assert (f"verify: warning: {path / 'tokenizer.json'}: ids 0..8 (9 tokens) for a head of "
            "6 labels; labels shown by number") in err


def test_a_huge_vocabulary_file_is_refused_before_it_is_read(tmp_path, run_cli, monkeypatch):
    monkeypatch.setattr(vocabulary_module, "MAX_VOCABULARY_BYTES", 100)
    path = checkpoint(tmp_path, tokenizer=bpe(TOKENS))
    _, err = analyze_json(run_cli, path)
    assert "bytes; a vocabulary is read whole into memory and may have at most 100 bytes" in err


def test_a_vocabulary_that_is_not_a_file(tmp_path, run_cli):
    path = checkpoint(tmp_path)
    (path / "tokenizer.json").mkdir()
    _, err = analyze_json(run_cli, path)
    assert "tokenizer.json: cannot read: is a directory; labels shown by number" in err


def test_a_lone_surrogate_is_kept_writable(tmp_path, run_cli):
    tokens = TOKENS[:5] + ["\ud800"]
    path = checkpoint(tmp_path, tokenizer=json.dumps(bpe(tokens)))  # written as \ud800
    graph = tmp_path / "g.graphml"
    doc, _ = analyze_json(run_cli, path, "--graph", graph)
    assert doc["labels"][5] == "\\ud800"
    assert graph.read_text(encoding="utf-8").count("\\ud800") == 1


def test_read_vocabulary_errors_are_one_line(tmp_path):
    path = checkpoint(tmp_path, tokenizer={"model": {"vocab": {"line one\nline two" * 10: 0,
                                                                "b": 0}}})
    with pytest.raises(VocabularyError) as info:
        read_vocabulary(path / "tokenizer.json")
    assert "\n" not in str(info.value) and "id 0 has two tokens" in str(info.value)


def test_graphml_holds_names_with_control_characters(tmp_path, run_cli):
    import networkx as nx

    tokens = ["\x1b[0m", "a\x00b", "\n", "\t", "\ufffe", "ok"]
    path = checkpoint(tmp_path, tokenizer=bpe(tokens))
    graphml, nodelink = tmp_path / "g.graphml", tmp_path / "g.json"
    analyze_json(run_cli, path, "--graph", graphml)
    names = [nx.read_graphml(graphml).nodes[str(i)]["name"] for i in range(6)]
    assert names == ["\\x1b[0m", "a\\x00b", "\n", "\t", "\\ufffe", "ok"]
    analyze_json(run_cli, path, "--graph", nodelink)
    data = json.loads(nodelink.read_text())
    assert [node["name"] for node in data["nodes"]] == tokens


# --- classification heads: the classes of config.json's id2label ----------------------------

CLASSES = ["NEGATIVE", "NEUTRAL", "POSITIVE", "mixed \"quote\"", "\n", "other"]


def classifier(tmp_path, *, config=None, tensor="classifier.weight"):
    """A checkpoint whose head is a classification head over the six labels of
    ``HEAD``, with a 9-token tokenizer (the tokens of the model's input, not its
    classes) and ``config.json`` (a document, or bytes as they are)."""
    directory = tmp_path / "clf"
    directory.mkdir(exist_ok=True)
    save_file({tensor: HEAD, "embeddings.word_embeddings.weight":
               np.arange(18, dtype=np.float32).reshape(9, 2)},
              str(directory / "model.safetensors"))
    (directory / "tokenizer.json").write_text(json.dumps(bpe([f"t{i}" for i in range(9)])))
    if config is not None:
        text = config if isinstance(config, bytes) else json.dumps(config).encode()
        (directory / "config.json").write_bytes(text)
    return directory


@pytest.mark.parametrize("tensor", ["classifier.weight", "classifier.out_proj.weight",
                                    "score.weight"])
def test_a_classification_head_is_named_by_id2label(tmp_path, run_cli, tensor):
    config = {"architectures": ["X"], "id2label": {str(i): c for i, c in enumerate(CLASSES)},
              "label2id": {c: i for i, c in enumerate(CLASSES)}}
    path = classifier(tmp_path, config=config, tensor=tensor)
    doc, err = analyze_json(run_cli, path)
    assert doc["labels"] == CLASSES
    assert doc["labels_file"] == str(path / "config.json")
    assert f"verify: note: label names from {path / 'config.json'} (6 classes)" in err
    assert "warning" not in err


def test_id2label_keys_in_any_order(tmp_path, run_cli):
    config = {"id2label": {str(i): CLASSES[i] for i in (5, 0, 3, 1, 4, 2)}}
    doc, _ = analyze_json(run_cli, classifier(tmp_path, config=config))
    assert doc["labels"] == CLASSES


def test_the_tokenizer_still_names_the_embeddings_of_the_same_checkpoint(tmp_path, run_cli):
    path = classifier(tmp_path, config={"id2label": {str(i): c for i, c in enumerate(CLASSES)}})
    doc, err = analyze_json(run_cli, path, "--tensor", "embeddings.word_embeddings.weight")
    assert doc["labels"] == [f"t{i}" for i in range(9)]
    assert "(9 tokens)" in err


def test_a_classification_head_without_config_is_numbered_without_a_warning(tmp_path,
                                                                           run_cli):
    """The tokenizer beside a classifier names its inputs, not its classes: it is not
    read (before, its size gave a warning)."""
    doc, err = analyze_json(run_cli, classifier(tmp_path))
    assert doc["labels"] is None and "warning" not in err and "label names" not in err


HOSTILE_CONFIGS = {
    "not JSON": b'{"id2label": {"0": "a",',
    "not an object": b'["id2label"]',
    "no id2label": b'{"num_labels": 6}',
    "id2label a list": json.dumps({"id2label": CLASSES}).encode(),
    "key not a number": json.dumps({"id2label": {"zero": "a"}}).encode(),
    "key negative": json.dumps({"id2label": {"-1": "a"}}).encode(),
    "key with a leading zero": json.dumps(
        {"id2label": {f"0{i}" if i else "0": c for i, c in enumerate(CLASSES)}}).encode(),
    "key not ASCII": json.dumps({"id2label": {str(i): "c" for i in range(5)}
                                 | {"\u0665": "c"}}).encode(),  # Arabic-Indic 5
    "key of 5000 digits": json.dumps({"id2label": {"9" * 5000: "a"}}).encode(),
    "name not a string": json.dumps({"id2label": {str(i): "c" for i in range(5)}
                                     | {"5": 1}}).encode(),
    "too few classes": json.dumps({"id2label": {str(i): "c" for i in range(5)}}).encode(),
    "too many classes": json.dumps({"id2label": {str(i): "c" for i in range(7)}}).encode(),
    "a class missing": json.dumps(
        {"id2label": {str(i): "c" for i in (0, 1, 2, 3, 5)}}).encode(),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_CONFIGS))
def test_hostile_config_warns_in_one_line(tmp_path, run_cli, case):
    path = classifier(tmp_path, config=HOSTILE_CONFIGS[case])
    doc, err = analyze_json(run_cli, path)
    warnings = [line for line in err.splitlines() if line.startswith("verify: warning:")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith(f"verify: warning: {path / 'config.json'}: ")
    assert warnings[0].endswith("; labels shown by number")
    assert doc["labels"] is None and doc["unargmaxable"] == [4, 5]
