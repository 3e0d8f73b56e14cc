import json
import shutil

import numpy as np
import pytest

from exporters.ctranslate2 import convert
from studio.bundle import load_bundle, save_bundle
from studio.inference import TextGenerator
from studio.latency.bench import run_benchmark
from studio.latency.ctranslate2_model import CTranslate2Model

PROMPTS = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?", "우리는 여행을 원해?"]


@pytest.mark.parametrize("norm", ["post", "pre", "imported-options"])
def test_ctranslate2_on_our_weights_gives_our_greedy_outputs(tiny_bundle, tmp_path, norm):
    bundle = load_bundle(tiny_bundle)
    if norm != "post":  # a pre-LN model with random weights, to cover the translator's layer layout
        bundle.config.model.norm = "pre"
        if norm == "imported-options":  # and what an imported Marian model has (`studio.importers.marian`)
            bundle.config.model.activation, bundle.config.model.positional = "swish", "halves"
            bundle.config.model.logits_bias = True
        from studio.model import Transformer

        model = Transformer(bundle.config.model).build_weights()
        if model.logits_bias is not None:
            model.logits_bias.assign(np.random.default_rng(0).normal(size=model.logits_bias.shape))
        save_bundle(tmp_path / "pre", bundle.config, bundle.tokenizers, model)
        bundle = load_bundle(tmp_path / "pre")
    from studio.generate import DecodeSpec, TokenByToken, decode

    generator = TextGenerator.open(bundle, "tf")
    sources = [bundle.preprocessor.encode(p)[0] for p in PROMPTS]
    # plain greedy (a random model loops, and the generator's loop retry is ours, not CTranslate2's)
    ours = decode(generator.runtime, sources, DecodeSpec.for_model(bundle.config.model), TokenByToken())
    model = CTranslate2Model(convert(bundle, tmp_path / "ct2"), bundle, threads=1)
    assert model.greedy(sources, bundle.config.model.max_target_len) == ours


def test_benchmark_rows_have_the_documented_fields_and_ratios(tiny_bundle, tmp_path):
    bundle_dir = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, bundle_dir, ignore=shutil.ignore_patterns("checkpoints", "exports"))
    bundle = load_bundle(bundle_dir)
    rows = run_benchmark(bundle, ["tf-naive", "tf", "ctranslate2"], lengths=(4, 8), repeats=2, threads=1,
                         prompts=PROMPTS[:2], progress=lambda message: None)
    assert len(rows) == 6
    for row in rows:
        for key in ("backend", "variant", "ms_per_token_p50", "first_token_ms_p50", "total_ms_p50", "outputs_match_tf"):
            assert key in row
        assert row["outputs_match_tf"] == 1.0
        assert row["total_ms_p50"] > 0 and row["speedup_vs_tf_naive"] > 0
        assert row["ms_per_token_vs_ctranslate2"] is None or row["ms_per_token_vs_ctranslate2"] > 0
    json.dumps(rows)


def test_bench_rebuilds_a_stale_ctranslate2_model_after_retraining(tiny_bundle, tmp_path):
    from studio.model import Transformer

    bundle_dir = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, bundle_dir, ignore=shutil.ignore_patterns("checkpoints", "exports"))
    quiet = dict(lengths=(2,), repeats=1, threads=1, prompts=PROMPTS[:2], progress=lambda message: None)
    assert run_benchmark(load_bundle(bundle_dir), ["ctranslate2"], **quiet)[0]["outputs_match_tf"] == 1.0
    model_bin = bundle_dir / "exports" / "ctranslate2" / "model.bin"
    before = model_bin.read_bytes()
    bundle = load_bundle(bundle_dir)  # "retrain": other weights in the same folder
    save_bundle(bundle_dir, bundle.config, bundle.tokenizers, Transformer(bundle.config.model).build_weights())
    messages = []
    rows = run_benchmark(load_bundle(bundle_dir), ["ctranslate2"], **{**quiet, "progress": messages.append})
    assert model_bin.read_bytes() != before
    assert any("weights.npz changed" in m for m in messages), messages
    assert rows[0]["outputs_match_tf"] == 1.0  # a stale model would decode the old weights
