"""The GPU path: the same model trained on Keras' JAX backend by studio.train.accelerated, its run folder a
bundle that TensorFlow loads with identical logits; back-translation writes one line per input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from studio.config import BundleConfig, ModelConfig, TaskConfig, TokenizerConfig, TrainConfig
from helpers import built_once, generated_pairs

pytest.importorskip("jax", reason="the accelerated trainer needs JAX (installed with the dev extras)")


def _jax_env():
    return {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    from studio.train.prepare_accelerated import prepare

    data = tmp_path_factory.mktemp("data")
    (data / "koen" / "train").mkdir(parents=True)
    (data / "koen" / "dev").mkdir(parents=True)
    (data / "en_mono").mkdir()
    rows = list({q: (q, a, e) for q, a, e in generated_pairs(200, seed=1)}.values())[:80]  # distinct sources
    (data / "koen" / "train" / "kss.tsv").write_text("".join(f"{q}\t{e.capitalize()}\n" for q, _, e in rows[:60]))
    (data / "koen" / "train" / "tatoeba.tsv").write_text("".join(f"{q}\t{e}\n" for q, _, e in rows[60:70]))
    (data / "koen" / "dev" / "park_dev.tsv").write_text("".join(f"{q}\t{e}\n" for q, _, e in rows[70:]))
    mono = list(dict.fromkeys(e for _, _, e in rows))[:12]
    (data / "en_mono" / "bbc_news_2004_2005.txt").write_text("".join(f"{e}\n" for e in mono))
    config = BundleConfig(
        model=ModelConfig(num_layers=2, num_decoder_layers=1, d_model=32, num_heads=4, d_ff=64, dropout=0.1,
                          norm="pre", max_source_len=16, max_target_len=16),  # one length bucket: one compile
        tokenizer=TokenizerConfig(vocab_size=300), train=TrainConfig(warmup_steps=10),
        task=TaskConfig(task="translator", source_lang="ko", target_lang="en", text_pipeline="translator"))
    out = tmp_path_factory.mktemp("prep")
    summary = prepare(out, vocab_size=300, sources="kss,tatoeba", data_dir=data, config=config)
    assert summary["train_pairs"] == 70 and summary["mono_lines"] == 12
    return out


def test_prepare_writes_pipeline_text_dev_sets_and_a_tagged_tokenizer(prepared):
    from studio.text import TokenizerPair

    rows = [line.split("\t") for line in (prepared / "train.tsv").read_text().splitlines()]
    assert {r[2] for r in rows} == {"kss", "tatoeba"}
    assert any(r[1][0].isupper() for r in rows)  # case is kept
    assert (prepared / "dev" / "park_dev.tsv").is_file()
    tokenizer = TokenizerPair.load(prepared / "tokenizer").source
    assert tokenizer.id_to_piece(4) == "<bt>"


JAX_SESSION = """
import json, os, sys, jax, numpy as np
from studio.train.accelerated import main
from studio.bundle import load_bundle
from studio.model import Transformer
from studio.weights import assign_arrays
prepared, runs = sys.argv[1], sys.argv[2]
main(["train", "--data", prepared, "--out", runs + "/koen", "--max-steps", "4", "--eval-minutes", "0",
      "--batch-tokens", "256", "--weights", "tatoeba=2"])
main(["translate", "--run", runs + "/koen", "--input", prepared + "/mono_en.txt", "--output", runs + "/bt.tsv",
      "--rows", "8"])
main(["train", "--data", prepared, "--out", runs + "/warm", "--init-from", runs + "/koen", "--max-steps", "0"])
compiled = len(os.listdir(os.environ["JAX_COMPILATION_CACHE_DIR"]))
main(["train", "--data", prepared, "--out", runs + "/slower", "--init-from", runs + "/koen", "--max-steps", "1",
      "--eval-minutes", "0", "--batch-tokens", "256", "--set", "train.lr_scale=0.25"])
json.dump([compiled, len(os.listdir(os.environ["JAX_COMPILATION_CACHE_DIR"]))], open(runs + "/compiled.json", "w"))
b = load_bundle(runs + "/koen"); m = Transformer(b.config.model).build_weights(); assign_arrays(m.weights, b.weights)
x = np.load(runs + "/inputs.npz")
forward = jax.jit(lambda source, target: m((source, target), training=False))  # one program, not op by op
np.save(runs + "/jax_logits.npy", np.asarray(forward(x["source"], x["target"])))
"""
SOURCE = np.array([[5, 9, 14, 2, 0, 0]], np.int32)
TARGET = np.array([[1, 7, 11, 3]], np.int32)


@pytest.fixture(scope="module")
def runs(prepared, tmp_path_factory):
    """One JAX process (its start-up costs seconds) trains 4 steps, back-translates with that run, warm-starts
    a second run from it and trains a third one step at a lower learning rate (with a persistent compilation
    cache), and computes the first run's logits on fixed inputs; the tests read its files.
    Once per test run: a second worker reuses the first one's folder."""
    def run_session(folder):
        folder.mkdir(parents=True)
        np.savez(folder / "inputs.npz", source=SOURCE, target=TARGET)
        cache = {"JAX_COMPILATION_CACHE_DIR": str(folder / "xla-cache"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
                 "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}  # every program, however quick to compile
        result = subprocess.run([sys.executable, "-c", JAX_SESSION, str(prepared), str(folder)], env=_jax_env() | cache,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]

    return built_once(tmp_path_factory, "jax-runs", run_session)


@pytest.fixture(scope="module")
def trained(runs):
    return runs / "koen"


def test_training_on_jax_writes_a_bundle_with_curves(trained):
    metrics = json.loads((trained / "metrics.json").read_text())
    assert metrics["steps"] == 4 and metrics["device"].lower().startswith("cpu")
    assert [h["step"] for h in metrics["history"]] == [1, 2, 3, 4]
    assert {"park_dev"} <= set(metrics["history"][-1]) and "chrf" in metrics["history"][-1]["park_dev"]
    assert metrics["recipe"]["source_weights"] == {"tatoeba": 2.0}
    assert set(metrics["candidates"]) >= {"last", "best"}


def test_jax_trained_weights_give_the_same_logits_in_tensorflow(trained, runs):
    from studio.bundle import load_bundle
    from studio.model import Transformer
    from studio.weights import assign_arrays

    bundle = load_bundle(trained)
    model = Transformer(bundle.config.model).build_weights()
    assign_arrays(model.weights, bundle.weights)
    ours = np.asarray(model((SOURCE, TARGET), training=False))
    np.testing.assert_allclose(ours, np.load(runs / "jax_logits.npy"), atol=1e-4)


def test_back_translation_writes_one_line_per_input(runs, prepared):
    inputs = (prepared / "mono_en.txt").read_text().splitlines()
    lines = (runs / "bt.tsv").read_text().splitlines()
    assert len(lines) == len(inputs)
    assert [line.split("\t")[1] for line in lines] == inputs


def test_a_warm_start_begins_from_the_given_run(trained, runs):
    from studio.bundle import load_bundle

    before, after = load_bundle(trained).weights, load_bundle(runs / "warm").weights
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    assert json.loads((runs / "warm" / "metrics.json").read_text())["initialized_from"] == str(trained)


def test_a_run_that_differs_only_in_its_learning_rate_compiles_nothing_new(runs):
    """The learning rate is an input of the compiled step: a lease's warm-started runs (a quarter of the rate)
    reuse the programs an earlier run put in JAX's persistent cache instead of spending minutes compiling."""
    before, after = json.loads((runs / "compiled.json").read_text())
    assert before > 0 and after == before
    assert json.loads((runs / "slower" / "metrics.json").read_text())["steps"] == 1


def test_the_trainer_refuses_another_backend(prepared, tmp_path, capsys):
    from studio.train.accelerated import main  # in this process Keras runs on TensorFlow

    with pytest.raises(SystemExit) as stopped:
        main(["train", "--data", str(prepared), "--out", str(tmp_path / "x")])
    assert stopped.value.code == 2 and "KERAS_BACKEND=jax" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.slow  # ~20 CPU-seconds of JAX processes for a script only a lease runs: run it before each lease
def test_the_gpu_lease_script_runs_end_to_end_at_test_size(prepared, trained, tmp_path):
    """scripts/train_translator_gpu.sh as a lease runs it (EN->KO warm-started from a KO->EN bundle, back-translation,
    the KO->EN fine-tune on real + synthetic pairs), a step per run: GPU minutes are never spent debugging it."""
    import gzip
    import tarfile

    from studio.bundle import load_bundle

    out, runs = tmp_path / "out", tmp_path / "runs"
    settings = {"PYTHON": sys.executable, "INIT": str(trained), "MAX_STEPS": "1", "EVAL_MIN": "0",
                "BATCH_TOKENS": "256", "BUCKETS": "16", "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(["bash", "scripts/train_translator_gpu.sh", str(prepared), str(runs), str(out)],
                            env=_jax_env() | settings, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["bt.tsv.gz.00", "bt_ft.weights.npz.00", "enko.weights.npz.00",
                                                     "results.tar.gz"]
    english = (prepared / "mono_en.txt").read_text().splitlines()
    parts = b"".join(p.read_bytes() for p in sorted(out.glob("bt.tsv.gz.*")))  # 15 MiB parts come back
    synthetic = gzip.decompress(parts).decode().splitlines()
    assert [line.split("\t")[1] for line in synthetic] == english

    home = tmp_path / "home"  # what comes back, put together again: a bundle that loads
    with tarfile.open(out / "results.tar.gz") as results:
        results.extractall(home, filter="data")
    (home / "bt_ft" / "weights.npz").write_bytes(b"".join(p.read_bytes() for p in sorted(out.glob("bt_ft.weights.*"))))
    bundle = load_bundle(home / "bt_ft")
    assert bundle.weights.keys() == load_bundle(trained).weights.keys()
    metrics = json.loads((home / "bt_ft" / "metrics.json").read_text())
    assert metrics["initialized_from"] == str(trained) and metrics["recipe"]["tagged"]
    assert metrics["synthetic_pairs"] == sum(1 for line in synthetic if line.split("\t")[0])
    enko = json.loads((home / "enko_warm" / "metrics.json").read_text())
    assert enko["direction"] == "enko" and enko["initialized_from"] == str(trained)
