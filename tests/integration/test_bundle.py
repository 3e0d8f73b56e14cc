import json

import numpy as np
import pytest

from studio.bundle import load_bundle
from studio.errors import BundleError
from studio.inference import TextGenerator


def test_bundle_holds_config_compact_weights_tokenizer_and_metrics(tiny_bundle):
    bundle = load_bundle(tiny_bundle)
    assert bundle.config.task.task == "chatbot"
    assert all(w.dtype.kind == "f" for w in bundle.weights.values())
    with np.load(tiny_bundle / "weights.npz") as stored:
        embeddings = [name for name in stored.files if name.endswith("embeddings")]
        assert embeddings and all(stored[name].dtype == np.int8 and f"{name}.row_scale" in stored.files
                                  for name in embeddings)
        assert all(stored[name].dtype == np.float16 for name in stored.files
                   if name not in embeddings and not name.endswith(".row_scale"))
    metrics = json.loads((tiny_bundle / "metrics.json").read_text())
    for key in ("dev_loss", "dev_token_accuracy", "dev_chrf", "train_target_tokens_per_second", "samples"):
        assert key in metrics
    assert set(metrics["samples"]) >= {"영화 볼래?", "넌 누구야?"}
    assert "ChatbotData.csv" in (tiny_bundle / "MODEL_CARD.md").read_text()


def test_saved_bundle_reproduces_the_float32_model(tiny_bundle, tmp_path):
    from studio.bundle import save_bundle

    original = load_bundle(tiny_bundle)
    model = original.build_model()
    for variable in model.weights:  # fresh float32 values that float16 cannot store exactly
        variable.assign(variable.numpy() + np.random.default_rng(0).normal(0, 0.01, variable.shape))
    save_bundle(tmp_path / "copy", original.config, original.tokenizers, model)
    reloaded = load_bundle(tmp_path / "copy").build_model()
    source = np.array([[5, 6, 7, 2]], np.int32)
    target = np.array([[1, 8, 9]], np.int32)
    np.testing.assert_allclose(reloaded((source, target)).numpy(), model((source, target)).numpy(), atol=2e-2)


def test_generation_runs_and_cached_equals_naive_greedy(tiny_bundle):
    bundle = load_bundle(tiny_bundle)
    model = bundle.build_model()
    cached = TextGenerator.open(bundle, "tf", model=model)
    naive = TextGenerator.open(bundle, "tf-naive", model=model)
    prompts = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?"]
    assert [g.ids for g in cached.generate(prompts)] == [g.ids for g in naive.generate(prompts)]
    assert all(isinstance(g.text, str) for g in cached.generate(prompts))


def test_copies_of_a_bundle_share_one_traced_model_other_weights_get_their_own(tiny_bundle, bundle_copy, tmp_path):
    from studio.bundle import save_bundle

    prompts = ["나는 커피를 좋아해?", "너는 영화를 봤어?"]
    first, copy = (TextGenerator.from_path(path, "tf") for path in (tiny_bundle, bundle_copy))
    assert copy.runtime.module is first.runtime.module  # built and traced once for these weights
    original = load_bundle(tiny_bundle)
    model = original.build_model()
    for variable in model.weights:
        variable.assign(variable.numpy() + np.random.default_rng(1).normal(0, 0.5, variable.shape))
    save_bundle(tmp_path / "other", original.config, original.tokenizers, model)
    other = TextGenerator.from_path(tmp_path / "other", "tf")
    assert other.runtime.module is not first.runtime.module
    assert [g.ids for g in other.generate(prompts)] == [g.ids for g in TextGenerator.open(
        load_bundle(tmp_path / "other"), "tf", model=load_bundle(tmp_path / "other").build_model()).generate(prompts)]
    assert [g.ids for g in first.generate(prompts)] != [g.ids for g in other.generate(prompts)]


def test_too_long_input_is_truncated_with_a_warning(tiny_generator):
    result = tiny_generator.generate(["나는 커피를 좋아해 " * 50])[0]
    assert result.warnings and "only the first" in result.warnings[0]


def test_an_input_in_another_language_gets_a_hint_beside_the_reply(tiny_generator):
    english, korean = tiny_generator.generate(["How are you doing today?", "나는 커피를 좋아해?"])
    assert "this chatbot reads Korean; the input looks like English or another language in Latin letters" in \
        english.warnings
    assert not [w for w in korean.warnings if "looks like" in w]
    # judged without term protection's placeholders ("삼성, 삼성, 삼성!" with a glossary) and without addresses
    for text in ("Xq1, Xq1, Xq1!", "이메일은 kim.minsu@example.co.kr 입니다.", "자세한 내용은 https://example.com/news/a 참고"):
        assert not [w for w in tiny_generator.generate([text])[0].warnings if "looks like" in w], text


@pytest.mark.parametrize("name", ["config.json", "weights.npz", "tokenizer/shared.spm.model", "checksums.json"])
def test_missing_file_is_named_with_the_rebuild_command(bundle_copy, name):
    (bundle_copy / name).unlink()
    with pytest.raises(BundleError) as error:
        load_bundle(bundle_copy)
    assert name.split("/")[-1] in str(error.value)
    assert "studio train" in str(error.value)


@pytest.mark.parametrize("name", ["weights.npz", "tokenizer/shared.spm.model", "config.json"])
def test_corrupted_file_is_named(bundle_copy, name):
    path = bundle_copy / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(BundleError, match=name.split("/")[-1]):
        load_bundle(bundle_copy)


def test_truncated_weights_without_checksum_file_still_fail_clearly(bundle_copy):
    checksums = json.loads((bundle_copy / "checksums.json").read_text())
    path = bundle_copy / "weights.npz"
    path.write_bytes(path.read_bytes()[:100])
    del checksums["weights.npz"]
    (bundle_copy / "checksums.json").write_text(json.dumps(checksums))
    with pytest.raises(BundleError, match="weights.npz: not a readable weights archive"):
        load_bundle(bundle_copy)


def test_missing_bundle_directory(tmp_path):
    with pytest.raises(BundleError, match="model bundle directory not found"):
        load_bundle(tmp_path / "nowhere")


def test_settings_from_a_newer_version_are_ignored_unless_they_change_the_model(bundle_copy):
    config = json.loads((bundle_copy / "config.json").read_text())
    config["train"]["some_future_option"] = 1
    (bundle_copy / "config.json").write_text(json.dumps(config))
    checksums = json.loads((bundle_copy / "checksums.json").read_text())
    del checksums["config.json"]
    (bundle_copy / "checksums.json").write_text(json.dumps(checksums))
    assert load_bundle(bundle_copy).config.model.d_model == 32
    config["model"]["rotary"] = True
    (bundle_copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(BundleError, match="unknown ModelConfig fields"):
        load_bundle(bundle_copy)
