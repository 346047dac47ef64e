"""Checkpoints as users have them: classification and masked-LM heads found by name with
their bias, PyTorch pickles and missing paths refused with a useful line."""

import json

import numpy as np
import pytest
from safetensors.numpy import save_file

from verify.io.checkpoint import load_head

RNG = np.random.default_rng(0)


def tensor(*shape):
    return RNG.integers(-3, 4, size=shape).astype(np.float32)


def checkpoint(tmp_path, tensors, name="model.safetensors"):
    path = tmp_path / name
    save_file(tensors, str(path))
    return path


# name of the checkpoint -> (its tensors, the head, the bias --bias auto takes)
MODELS = {
    "bert-sequence-classification": (
        {"bert.embeddings.word_embeddings.weight": tensor(30, 4),
         "bert.pooler.dense.weight": tensor(4, 4),
         "classifier.weight": tensor(3, 4), "classifier.bias": tensor(3)},
        "classifier.weight", "classifier.bias"),
    "llama-sequence-classification": (
        {"model.embed_tokens.weight": tensor(30, 4), "score.weight": tensor(2, 4)},
        "score.weight", None),
    "gpt2-sequence-classification-with-bias": (
        {"transformer.wte.weight": tensor(30, 4), "score.weight": tensor(5, 4),
         "score.bias": tensor(5)},
        "score.weight", "score.bias"),
    "roberta-sequence-classification": (
        {"roberta.embeddings.word_embeddings.weight": tensor(30, 4),
         "classifier.dense.weight": tensor(4, 4), "classifier.dense.bias": tensor(4),
         "classifier.out_proj.weight": tensor(2, 4), "classifier.out_proj.bias": tensor(2)},
        "classifier.out_proj.weight", "classifier.out_proj.bias"),
    "bert-masked-lm-untied": (
        {"bert.embeddings.word_embeddings.weight": tensor(30, 4),
         "cls.predictions.decoder.weight": tensor(30, 4),
         "cls.predictions.bias": tensor(30), "cls.seq_relationship.weight": tensor(2, 4)},
        "cls.predictions.decoder.weight", "cls.predictions.bias"),
    "bert-masked-lm-tied": (
        {"bert.embeddings.word_embeddings.weight": tensor(30, 4),
         "cls.predictions.bias": tensor(30)},
        "bert.embeddings.word_embeddings.weight", "cls.predictions.bias"),
    "distilbert-masked-lm-tied": (
        {"distilbert.embeddings.word_embeddings.weight": tensor(30, 4),
         "vocab_transform.weight": tensor(4, 4), "vocab_projector.bias": tensor(30)},
        "distilbert.embeddings.word_embeddings.weight", "vocab_projector.bias"),
    "distilbert-sequence-classification": (
        {"distilbert.embeddings.word_embeddings.weight": tensor(30, 4),
         "pre_classifier.weight": tensor(4, 4), "classifier.weight": tensor(3, 4),
         "classifier.bias": tensor(3)},
        "classifier.weight", "classifier.bias"),
    "causal-lm-before-everything": (
        {"lm_head.weight": tensor(30, 4), "score.weight": tensor(2, 4),
         "model.embed_tokens.weight": tensor(30, 4)},
        "lm_head.weight", None),
}


@pytest.mark.parametrize("model", MODELS)
def test_the_head_and_its_bias_are_found_by_name(tmp_path, model):
    tensors, head, bias = MODELS[model]
    path = checkpoint(tmp_path, tensors)
    source = load_head(path, bias="auto")
    assert source.weights.name == head
    assert source.shape == tensors[head].shape
    if bias is None:
        assert source.bias is None
        assert "no bias" in source.description
    else:
        assert source.bias.name == bias
        assert source.description.endswith(f"; bias {bias} of {path} (F32, "
                                           f"{tensors[bias].shape[0]})")
    assert source.description.startswith(f"{head} of {path} (F32, ")


def test_analyze_names_the_tensors_used_at_the_top_of_the_report(tmp_path, run_cli):
    tensors, _, _ = MODELS["bert-sequence-classification"]
    path = checkpoint(tmp_path, tensors)
    code, out, err = run_cli(["analyze", "--matrix", path, "--bias", "auto"])
    assert code == 0, err
    used = (f"classifier.weight of {path} (F32, 3 x 4); bias classifier.bias of {path} "
            f"(F32, 3)")
    assert out.splitlines()[0].startswith(f"analysis of {used}: 3 labels in dimension 4")
    assert f"verify: note: {used}" in err
    code, out, err = run_cli(["analyze", "--matrix", path, "--json"])
    doc = json.loads(out)
    assert doc["n"] == 3 and doc["source"] == f"classifier.weight of {path} (F32, 3 x 4); " \
                                              "no bias"


@pytest.mark.parametrize("name", ["model.pt", "pytorch_model.bin", "weights.pth",
                                  "last.ckpt"])
@pytest.mark.parametrize("command", [["analyze", "--matrix"], ["pattern", "--matrix"],
                                     ["lemma", "5.3", "--matrix"]])
def test_pytorch_pickles_are_refused_with_how_to_convert(tmp_path, run_cli, name, command):
    path = tmp_path / name
    path.write_bytes(b"\x80\x02}q\x00.")  # a pickle: never loaded
    code, out, err = run_cli([*command, path])
    assert code == 2 and out == ""
    line, = err.splitlines()
    assert line.startswith(f"verify: error: {path}: a PyTorch checkpoint (a pickle, which "
                           "is not read")
    assert "unknown extension" not in line
    assert (f"torch.load('{path}', map_location='cpu', weights_only=True)" in line
            and f"'{tmp_path / 'model.safetensors'}')" in line)


def test_a_directory_with_only_a_pickle_says_how_to_convert(tmp_path, run_cli):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x02}q\x00.")
    code, out, err = run_cli(["analyze", "--matrix", tmp_path])
    assert code == 2
    line, = err.splitlines()
    assert line.startswith(f"verify: error: {tmp_path}: cannot read: no .safetensors file, "
                           "only pytorch_model.bin, a PyTorch checkpoint")
    assert f"torch.load('{tmp_path / 'pytorch_model.bin'}'" in line


@pytest.mark.parametrize("missing", ["no-such-dir", "no-such-dir/model", "model.pt",
                                     "x.safetensors"])
@pytest.mark.parametrize("command", [["analyze", "--matrix"], ["pattern", "--matrix"],
                                     ["theorem", "5.6", "--matrix"]])
def test_a_missing_path_is_said_not_to_exist(tmp_path, run_cli, missing, command):
    path = tmp_path / missing
    code, out, err = run_cli([*command, path])
    assert code == 2 and out == ""
    line, = err.splitlines()
    assert line.startswith(f"verify: error: {path}: ")
    assert "unknown extension" not in line and "PyTorch" not in line
    assert line.endswith(("does not exist (no such file or directory)", "file not found"))


def test_pattern_notes_the_tensor_it_read(tmp_path, run_cli):
    tensors, _, _ = MODELS["llama-sequence-classification"]
    path = checkpoint(tmp_path, tensors)
    code, out, err = run_cli(["pattern", "--matrix", path, "--kind", "ranking"])
    assert code == 0, err
    assert err == f"verify: note: score.weight of {path} (F32, 2 x 4)\n"
    assert out.startswith(f"ranking pattern R(W) of {path}: 2 labels in dimension 4\n")
    plain = tmp_path / "plain.json"
    plain.write_text("[[1, 0], [0, 1]]")
    code, out, err = run_cli(["pattern", "--matrix", plain])
    assert code == 0 and err == ""  # no note for a plain matrix file
