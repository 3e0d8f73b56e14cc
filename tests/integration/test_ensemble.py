"""`studio ensemble`: bundles trained apart, served as one model whose step averages their log-probabilities."""

import hashlib
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from studio.cli import app
from studio.errors import StudioError

runner = CliRunner()


def _rewrite(bundle, name: str, change) -> None:
    """Change one of a bundle's files and its checksum (a bundle made otherwise, not a damaged one)."""
    path = bundle / name
    if name.endswith(".npz"):
        from studio.weights import load_npz, save_npz

        save_npz(path, change(load_npz(path)))
    else:
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    checksums = json.loads((bundle / "checksums.json").read_text())
    checksums[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    (bundle / "checksums.json").write_text(json.dumps(checksums))


def _another_seed(bundle):
    """The bundle's model with other weights, as another seed of its recipe would give."""
    rng = np.random.default_rng(7)
    _rewrite(bundle, "weights.npz", lambda arrays: {
        name: (a + rng.normal(0, 0.05, a.shape)).astype(a.dtype) for name, a in arrays.items()})
    _rewrite(bundle, "config.json", lambda text: text.replace('"seed": ', '"seed": 9', 1))


def test_an_ensemble_bundle_is_served_as_one_model_on_tf_and_tflite(tiny_bundle, bundle_copy, tmp_path):
    from exporters import export_bundle
    from studio.bundle import load_bundle
    from studio.inference import TextGenerator

    _another_seed(bundle_copy)
    out = tmp_path / "ensemble"
    result = runner.invoke(app, ["ensemble", str(tiny_bundle), str(bundle_copy), "--out", str(out)])
    assert result.exit_code == 0, result.output
    bundle = load_bundle(out)
    assert bundle.config.model.members == 2
    members = bundle.metrics["ensemble_members"]
    assert [m["bundle"] for m in members] == [tiny_bundle.name, bundle_copy.name]
    assert members[1]["seed"] == int("9" + str(load_bundle(tiny_bundle).config.train.seed))
    card = (out / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "An ensemble of 2" in card and f"Member `{bundle_copy.name}` (seed" in card
    # every member's weights, under its own name; TFLite's logits are TensorFlow's (export verifies them)
    assert {name.split("/")[0] for name in bundle.weights} == {"member_0", "member_1"}
    manifest = export_bundle(out, None, ["tflite"], verify=True, golden=False, progress=lambda message: None)
    checked = manifest["verification"]["tflite"]
    assert checked["max_abs_logit_diff"] < 1e-3 and checked["greedy_match_rate"] == 1.0, checked
    prompts = ["영화 볼래?", "너 좋아하는 사람 있어?", "오늘 날씨는 어때?"]
    assert ([g.text for g in TextGenerator.open(bundle, "tflite").generate(prompts)]
            == [g.text for g in TextGenerator.open(bundle, "tf").generate(prompts)])

    with pytest.raises(StudioError, match="is an ensemble already"):
        runner.invoke(app, ["ensemble", str(out), str(tiny_bundle), "--out", str(tmp_path / "again")],
                      catch_exceptions=False)
    with pytest.raises(StudioError, match="takes one model"):
        runner.invoke(app, ["train", "chatbot", "--init-from", str(out), "--out", str(tmp_path / "run")],
                      catch_exceptions=False)
    with pytest.raises(StudioError, match="CTranslate2 cannot run"):
        runner.invoke(app, ["bench", "--bundle", str(out), "--backends", "ctranslate2"], catch_exceptions=False)


def test_an_ensemble_takes_only_models_of_one_architecture_tokenizer_and_split(tiny_bundle, bundle_copy, tmp_path):
    from studio.train.ensemble import ensemble_bundle

    with pytest.raises(StudioError, match="two bundles or more"):
        ensemble_bundle([tiny_bundle], tmp_path / "one")
    with pytest.raises(StudioError, match="the same weights"):
        ensemble_bundle([tiny_bundle, tiny_bundle], tmp_path / "twice")
    with pytest.raises(StudioError, match="would overwrite the member"):
        ensemble_bundle([tiny_bundle, bundle_copy], bundle_copy)
    _rewrite(bundle_copy, "config.json", lambda text: text.replace('"split_seed": ', '"split_seed": 9', 1))
    with pytest.raises(StudioError, match="other dev pairs"):
        ensemble_bundle([tiny_bundle, bundle_copy], tmp_path / "e")
    _rewrite(bundle_copy, "tokenizer/tokenizer.json", lambda text: text.replace("{", '{"note": "other", ', 1))
    with pytest.raises(StudioError, match="another tokenizer"):
        ensemble_bundle([tiny_bundle, bundle_copy], tmp_path / "e")
    _rewrite(bundle_copy, "config.json", lambda text: text.replace('"max_source_len": ', '"max_source_len": 1', 1))
    with pytest.raises(StudioError, match="another architecture"):
        ensemble_bundle([tiny_bundle, bundle_copy], tmp_path / "e")
    assert not (tmp_path / "e").exists() and not (tmp_path / "twice").exists()


def test_an_ensemble_is_not_trained_as_one(chat_csv, tmp_path):
    from studio.train.run import train_task

    with pytest.raises(StudioError, match="train its members apart"):
        train_task("chatbot", tmp_path / "run", data_files=[chat_csv], overrides={"model.members": 2})
