"""`studio import`: a Marian / OPUS-MT release (a tiny random one, `marian_fixture`) becomes a library model with its
source, licence and published scores in its card; what cannot be imported is refused in one sentence."""

import re
import shutil
import zipfile

import numpy as np
import pytest
import yaml
from helpers import refused as refused_by
from marian_fixture import MODEL_FILE, POST_NORM, model_yml, write_release
from typer.testing import CliRunner

from studio import library
from studio.bundle import load_bundle
from studio.cli import app
from studio.tasks import TRANSLATOR


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return write_release(tmp_path_factory.mktemp("marian") / "opus-mt-ko-en", POST_NORM)


def studio_import(*args):
    result = CliRunner().invoke(app, ["import", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result


def refused(capsys, monkeypatch, *args) -> str:
    return refused_by(capsys, monkeypatch, "import", *args)


def changed_release(release, folder, options=None, drop=()):
    """A copy of `release` with Marian options changed in its model and files removed."""
    shutil.copytree(release, folder)
    if options:
        with np.load(folder / MODEL_FILE) as archive:
            arrays = {name: archive[name] for name in archive.files}
        current = yaml.safe_load(arrays.pop("special:model.yml").tobytes().rstrip(b"\0"))
        np.savez(folder / MODEL_FILE, **arrays, **{"special:model.yml": model_yml({**current, **options})})
    for name in drop:
        (folder / name).unlink()
    return folder


def test_an_imported_release_is_a_translator_in_the_library_with_its_card(release):
    result = studio_import(release)
    assert "studio models --use opus-mt-ko-en" in result.output
    entry = library.find_model("opus-mt-ko-en")
    assert entry.task == TRANSLATOR.name and not entry.problem and entry.data == "imported from opus-mt-ko-en"
    assert entry.headline_score() == "Tatoeba-test.ko.en (published) (as published): chrF 34.50, BLEU 12.30"
    card = entry.card
    assert "**imported**" in card and "CC-BY 4.0" in card and "| Tatoeba-test.ko.en | 12.3 | 34.5 |" in card
    bundle = load_bundle(entry.path)
    assert bundle.config.task.imported_from.startswith("Marian: ") and not bundle.tokenizers.shared
    model = bundle.config.model
    assert (model.activation, model.positional, model.norm, model.logits_bias) == ("swish", "halves", "post", True)
    assert bundle.weights["transformer/encoder_0/self_attention/query/kernel"].dtype == np.float32
    library.delete("opus-mt-ko-en")


def test_a_zipped_release_imports_as_its_folder_does(release, tmp_path):
    archive = tmp_path / "opus-2020-01-01.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in release.iterdir():
            zipped.write(path, path.name)
    studio_import(release, "--out", tmp_path / "from-folder")
    studio_import(archive, "--out", tmp_path / "from-zip", "--compact")
    folder, zipped = load_bundle(tmp_path / "from-folder"), load_bundle(tmp_path / "from-zip")
    assert folder.config.model == zipped.config.model
    for name, value in folder.weights.items():  # --compact: float16, int8 embedding rows
        np.testing.assert_allclose(zipped.weights[name], value, atol=0.02 * np.abs(value).max() + 1e-3)
    size = {name: (tmp_path / name / "weights.npz").stat().st_size for name in ("from-zip", "from-folder")}
    assert size["from-zip"] < size["from-folder"]


def test_guided_alignment_options_are_ignored(release, tmp_path):
    aligned = changed_release(release, tmp_path / "aligned", {"guided-alignment": "corpus.align",
                                                              "transformer-guided-alignment-layer": "1"})
    studio_import(aligned, "--out", tmp_path / "bundle")
    assert load_bundle(tmp_path / "bundle").config.model.norm == "post"


@pytest.mark.parametrize("options,message", [
    ({"transformer-preprocess": "n", "transformer-postprocess": "dan"},
     "its layers process as preprocess 'n', postprocess 'dan', top ''; only post-norm"),
    ({"type": "s2s"}, "it is a Marian 's2s' model, and only Transformers"),
    ({"transformer-decoder-autoreg": "average-attention"}, "its decoder uses average-attention"),
    ({"factors-dim-emb": 8}, "it uses factored vocabularies"),
    ({"transformer-tied-layers": [1, 1]}, "it ties layers"),
    ({"transformer-ffn-activation": "gelu-tanh"}, "its feed-forward activation is 'gelu-tanh'"),
    ({"transformer-postprocess-emb": "nd"}, "it normalizes its embeddings"),
    ({"transformer-heads": 3}, "d_model .16. must be divisible by num_heads .3."),
], ids=["double-norm", "rnn", "aan", "factors", "tied-layers", "activation", "embedding-norm", "heads"])
def test_a_model_the_studio_cannot_represent_is_refused_in_one_sentence(release, tmp_path, capsys, monkeypatch,
                                                                       options, message):
    changed = changed_release(release, tmp_path / "changed", options)
    error = refused(capsys, monkeypatch, changed, "--out", tmp_path / "bundle")
    assert "cannot be imported" in error
    assert re.search(message, error), error
    assert not (tmp_path / "bundle").exists()


def test_a_release_with_a_missing_file_or_another_layout_is_refused_in_one_sentence(release, tmp_path, capsys,
                                                                                   monkeypatch):
    no_spm = changed_release(release, tmp_path / "no-spm", drop=["source.spm"])
    assert "source.spm is missing from no-spm" in refused(capsys, monkeypatch, no_spm)
    (tmp_path / "empty").mkdir()
    assert "has no decoder.yml, and not exactly one .npz" in refused(capsys, monkeypatch, tmp_path / "empty")
    assert "no such folder or zip" in refused(capsys, monkeypatch, tmp_path / "missing")
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    assert "neither a folder nor a zip" in refused(capsys, monkeypatch, tmp_path / "notes.txt")
    broken = changed_release(release, tmp_path / "broken")
    (broken / MODEL_FILE).write_bytes(b"PK\x03\x04 truncated")
    assert f"{MODEL_FILE} is not a readable Marian model" in refused(capsys, monkeypatch, broken)
    studio_import(release, "--name", "taken")
    assert "a model named 'taken' exists already" in refused(capsys, monkeypatch, release, "--name", "taken")
    library.delete("taken")


@pytest.mark.usefixtures("eager_train_steps")
def test_an_imported_model_fine_tunes_on_your_pairs_keeping_its_shared_vocabulary(release, tmp_path, koen_tsv):
    from studio.train.run import train_task

    studio_import(release, "--out", tmp_path / "imported")
    imported = load_bundle(tmp_path / "imported")
    assert imported.config.model.share_embeddings and not imported.config.tokenizer.shared  # two .spm, one vocab
    train_task(TRANSLATOR.name, tmp_path / "tuned", data_files=[koen_tsv], init_from=tmp_path / "imported",
               overrides={"train.epochs": 1, "train.batch_size": 8, "train.jit_compile": False})
    tuned = load_bundle(tmp_path / "tuned")
    assert tuned.config.model == imported.config.model  # its architecture, special ids and options kept
    assert tuned.tokenizers.source.encode("나는 커피를 좋아해.") == imported.tokenizers.source.encode("나는 커피를 좋아해.")
