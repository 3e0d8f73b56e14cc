"""`studio import` of a Hugging Face MarianMT folder (config.json, model.safetensors, vocab.json, the .spm files),
read without PyTorch: the tiny random Marian models of `marian_fixture`, written as transformers' converter writes
them, import to the weights and tokenizers the Marian release imports to (the layer norms' epsilon aside: 1e-5, as
transformers computes, where Marian computes with 1e-9) and decode as it does; what transformers' MarianMTModel
would not compute as the weights mean is refused in one sentence."""

import dataclasses
import json
import re
import shutil

import numpy as np
import pytest
from helpers import refused as refused_by
from marian_fixture import (HF_VARIANTS, POST_NORM, PRE_NORM, UNTIED, hf_positions, sentences, write_huggingface,
                            write_release, write_shards)
from safetensors.numpy import load_file, save_file
from typer.testing import CliRunner

from studio import library
from studio.bundle import load_bundle
from studio.cli import app
from studio.generate import Beam, DecodeSpec, Forced, TokenByToken, decode, decode_steps
from studio.inference import TextGenerator

WEIGHTS = "model.safetensors"


def studio_import(*args):
    result = CliRunner().invoke(app, ["import", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module", params=HF_VARIANTS, ids=[v.name for v in HF_VARIANTS])
def imported(request, tmp_path_factory):
    """(the Marian release's bundle, the Hugging Face folder's bundle) of one variant; the untied one's folder
    stores the sinusoid tables, as older conversions did."""
    root = tmp_path_factory.mktemp("hf")
    release = write_release(root / "opus-mt-ko-en", request.param)
    folder = write_huggingface(release, root / "hf-opus-mt-ko-en", request.param, positions=request.param is UNTIED)
    studio_import(release, "--out", root / "marian", "--max-length", 32)
    studio_import(folder, "--out", root / "huggingface", "--max-length", 32)
    return load_bundle(root / "marian"), load_bundle(root / "huggingface")


def test_a_hugging_face_folder_imports_to_the_weights_and_tokenizers_of_its_marian_release(imported):
    marian, huggingface = imported
    assert marian.weights.keys() == huggingface.weights.keys()
    for name, value in marian.weights.items():
        np.testing.assert_array_equal(huggingface.weights[name], value, err_msg=name)
    assert dataclasses.replace(huggingface.config.model, layer_norm_epsilon=1e-9) == marian.config.model
    assert huggingface.config.model.layer_norm_epsilon == 1e-5
    tokenizer = sorted((marian.path / "tokenizer").iterdir())
    assert [path.name for path in tokenizer] == sorted(p.name for p in (huggingface.path / "tokenizer").iterdir())
    for path in tokenizer:
        assert (huggingface.path / "tokenizer" / path.name).read_bytes() == path.read_bytes(), path.name
    assert huggingface.config.task.imported_from.startswith("Hugging Face: ")


def outputs(bundle, sources, strategy):
    return decode(TextGenerator.open(bundle, "tf").runtime, sources, DecodeSpec.for_model(bundle.config.model),
                  strategy)


def log_probabilities(bundle, source, output) -> np.ndarray:
    """The log-probability of each token of `output` and of </s> after it, teacher-forced."""
    config = bundle.config.model
    targets = np.array([[config.bos_id, *output, config.eos_id]], dtype=np.int32)
    steps = decode_steps(TextGenerator.open(bundle, "tf").runtime, [source], DecodeSpec.for_model(config),
                         Forced(targets))
    rows = [logits[0].astype(np.float64) for logits in list(steps)[: len(output) + 1]]
    return np.array([row[targets[0, i + 1]] - row.max() - np.log(np.exp(row - row.max()).sum())
                     for i, row in enumerate(rows)])


def test_it_decodes_as_the_import_of_its_marian_release(imported):
    """Greedy and beam outputs equal; log-probabilities differ by the layer norms' epsilon alone (4.1e-5 at most
    here). Beam's settings and the other backends are the Marian import's to match CTranslate2 (test_marian_parity):
    here the two readers' models are compared."""
    marian, huggingface = imported
    tokenizer = marian.tokenizers.source
    sources = [tokenizer.encode(text) + [tokenizer.eos_id] for text in sentences(40, seed=3)[0]]
    greedy = outputs(marian, sources, TokenByToken())
    assert outputs(huggingface, sources, TokenByToken()) == greedy
    assert outputs(huggingface, sources, Beam(4, 0.6)) == outputs(marian, sources, Beam(4, 0.6))
    difference = max(np.abs(log_probabilities(marian, s, o) - log_probabilities(huggingface, s, o)).max()
                     for s, o in list(zip(sources, greedy))[:10])
    assert difference < 1e-4


def test_an_imported_hugging_face_model_is_a_library_translator_with_its_licence_and_scores(tmp_path):
    release = write_release(tmp_path / "release", POST_NORM)
    folder = write_huggingface(release, tmp_path / "opus-mt-ko-en-hf", POST_NORM)
    studio_import(folder)
    entry = library.find_model("opus-mt-ko-en-hf")
    assert entry.data == "imported from opus-mt-ko-en-hf" and entry.licence.startswith("cc-by-4.0")
    assert entry.headline_score() == "Tatoeba-test.ko.en (published) (as published): chrF 34.50, BLEU 12.30"
    assert "Hugging Face MarianMT folder" in entry.card and "| Tatoeba-test.ko.en | 12.3 | 34.5 |" in entry.card
    task = load_bundle(entry.path).config.task
    assert (task.source_lang, task.target_lang) == ("ko", "en")
    library.delete("opus-mt-ko-en-hf")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf-changed")
    return write_huggingface(write_release(root / "release", POST_NORM), root / "hf", POST_NORM)


def changed(folder, target, config=None, tensors=None, drop=()):
    """A copy of the Hugging Face `folder` with settings of config.json and tensors changed (None: removed)."""
    shutil.copytree(folder, target)
    if config:
        settings = json.loads((target / "config.json").read_text(encoding="utf-8"))
        (target / "config.json").write_text(json.dumps({**settings, **config}), encoding="utf-8")
    if tensors:
        stored = {**load_file(str(target / WEIGHTS)), **tensors}
        save_file({name: value for name, value in stored.items() if value is not None}, str(target / WEIGHTS))
    for name in drop:
        (target / name).unlink()
    return target


def pre_norm(folder, target):
    release = write_release(target.parent / "pre-norm-release", PRE_NORM)
    return write_huggingface(release, target, PRE_NORM)


def nonzero_start(folder, target):
    embedding = load_file(str(folder / WEIGHTS))["model.shared.weight"].copy()
    embedding[-1] = 0.5
    return changed(folder, target, tensors={"model.shared.weight": embedding})


def learned_positions(folder, target):
    return changed(folder, target, tensors={"model.encoder.embed_positions.weight": hf_positions(512, 16) + 0.01})


def extra_tensor(folder, target):
    return changed(folder, target, tensors={"model.encoder.layer_norm.weight": np.ones(16, np.float32)})


def bin_only(folder, target):
    changed(folder, target, drop=[WEIGHTS])
    (target / "pytorch_model.bin").write_bytes(b"PK\x03\x04 a pickle")
    return target


def missing_shard(folder, target):
    write_shards(folder, target)
    (target / "model-00002-of-00002.safetensors").unlink()
    return target


def without_pad(folder, target):
    changed(folder, target)
    vocabulary = json.loads((target / "vocab.json").read_text(encoding="utf-8"))
    del vocabulary["<pad>"]
    (target / "vocab.json").write_text(json.dumps(vocabulary), encoding="utf-8")
    return target


@pytest.mark.parametrize("change,message", [
    (pre_norm, "its config.json sets normalize_before, add_final_layer_norm, which transformers' MarianMTModel "
               "ignores"),
    (lambda f, t: changed(f, t, {"activation_function": "gelu"}), "its activation_function is 'gelu' .swish, silu, "
                                                                  "relu or quick_gelu can be imported"),
    (lambda f, t: changed(f, t, {"model_type": "bart"}), "it is a 'bart' model .config.json's model_type."),
    (lambda f, t: changed(f, t, {"decoder_attention_heads": 4}), "its encoder has 2 attention heads and its "
                                                                 "decoder 4"),
    (lambda f, t: changed(f, t, {"d_model": None}), "its config.json does not give d_model"),
    (learned_positions, "its encoder's position embeddings are not the sinusoids MarianMTModel computes"),
    (extra_tensor, "model.safetensors holds 1 tensors a MarianMTModel does not have .encoder.layer_norm.weight."),
    (nonzero_start, "its decoder starts from token 106, whose embedding is not all zeros"),
    (bin_only, "holds its weights as pytorch_model.bin, not model.safetensors"),
    (lambda f, t: changed(f, t, drop=["vocab.json"]), "vocab.json is missing from hf-changed"),
    (without_pad, "vocab.json of hf-changed does not end with <pad> at pad_token_id .106."),
    (missing_shard, "hf-changed: model-00002-of-00002.safetensors is missing .a shard of its weights that "
                    "model.safetensors.index.json names."),
], ids=["pre-norm", "gelu", "bart", "heads", "no-d_model", "positions", "extra-tensor", "start-row", "bin",
        "no-vocab", "no-pad", "missing-shard"])
def test_what_marianmt_would_not_compute_as_meant_is_refused_in_one_sentence(folder, tmp_path, capsys, monkeypatch,
                                                                            change, message):
    source = change(folder, tmp_path / "hf-changed")
    error = refused_by(capsys, monkeypatch, "import", source, "--out", tmp_path / "bundle")
    assert re.search(message, error), error
    assert not (tmp_path / "bundle").exists()


def test_a_model_saved_in_shards_imports_and_decodes_as_its_single_file_does(folder, tmp_path):
    sharded = write_shards(folder, tmp_path / "hf-sharded")
    assert not (sharded / WEIGHTS).exists() and len(list(sharded.glob("model-0000?-of-00002.safetensors"))) == 2
    studio_import(folder, "--out", tmp_path / "single", "--max-length", 32)
    studio_import(sharded, "--out", tmp_path / "sharded", "--max-length", 32)
    single, split = load_bundle(tmp_path / "single"), load_bundle(tmp_path / "sharded")
    assert split.weights.keys() == single.weights.keys()
    for name, value in single.weights.items():
        np.testing.assert_array_equal(split.weights[name], value, err_msg=name)
    tokenizer = single.tokenizers.source
    sources = [tokenizer.encode(text) + [tokenizer.eos_id] for text in sentences(20, seed=3)[0]]
    for strategy in (TokenByToken(), Beam(4, 0.6)):
        assert outputs(split, sources, strategy) == outputs(single, sources, strategy), strategy
