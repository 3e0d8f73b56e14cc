"""`studio ensemble`: bundles trained apart, served as one model whose step averages their log-probabilities."""

import hashlib
import json

import pytest
from typer.testing import CliRunner

from studio.cli import app
from studio.errors import StudioError

runner = CliRunner()


def _rewrite(bundle, name: str, change) -> None:
    """Change one of a bundle's files and its checksum (a bundle made otherwise, not a damaged one)."""
    path = bundle / name
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    checksums = json.loads((bundle / "checksums.json").read_text())
    checksums[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    (bundle / "checksums.json").write_text(json.dumps(checksums))


def test_an_ensemble_of_a_model_with_itself_answers_as_the_model_on_tf_and_tflite(tiny_bundle, tiny_generator,
                                                                                     tmp_path):
    from exporters import export_bundle
    from studio.inference import TextGenerator
    from studio.bundle import load_bundle

    out = tmp_path / "ensemble"
    result = runner.invoke(app, ["ensemble", str(tiny_bundle), str(tiny_bundle), "--out", str(out)])
    assert result.exit_code == 0, result.output
    bundle = load_bundle(out)
    assert bundle.config.model.members == 2
    members = bundle.metrics["ensemble_members"]
    assert [m["bundle"] for m in members] == [tiny_bundle.name] * 2 and "evaluation" not in bundle.metrics
    assert "An ensemble of 2" in (out / "MODEL_CARD.md").read_text(encoding="utf-8")
    prompts = ["영화 볼래?", "너 좋아하는 사람 있어?", "오늘 날씨는 어때?"]
    alone = [g.text for g in tiny_generator.generate(prompts)]
    assert [g.text for g in TextGenerator.open(bundle, "tf").generate(prompts)] == alone
    export_bundle(out, None, ["tflite"], verify=True, golden=False, progress=lambda message: None)
    assert [g.text for g in TextGenerator.open(bundle, "tflite").generate(prompts)] == alone

    with pytest.raises(StudioError, match="is an ensemble already"):
        runner.invoke(app, ["ensemble", str(out), str(tiny_bundle), "--out", str(tmp_path / "again")],
                      catch_exceptions=False)


def test_an_ensemble_takes_only_models_of_one_architecture_and_tokenizer(tiny_bundle, bundle_copy, tmp_path):
    from studio.bundle import ensemble_bundle

    with pytest.raises(StudioError, match="two bundles or more"):
        ensemble_bundle([tiny_bundle], tmp_path / "one")
    _rewrite(bundle_copy, "tokenizer/tokenizer.json", lambda text: text.replace("{", '{"note": "other", ', 1))
    with pytest.raises(StudioError, match="another tokenizer"):
        ensemble_bundle([tiny_bundle, bundle_copy], tmp_path / "e")
    _rewrite(bundle_copy, "config.json", lambda text: text.replace('"max_source_len": ', '"max_source_len": 1', 1))
    with pytest.raises(StudioError, match="another architecture"):
        ensemble_bundle([tiny_bundle, bundle_copy], tmp_path / "e")
    assert not (tmp_path / "e").exists()


def test_an_ensemble_is_not_trained_as_one(chat_csv, tmp_path):
    from studio.train.run import train_task

    with pytest.raises(StudioError, match="train its members apart"):
        train_task("chatbot", tmp_path / "run", data_files=[chat_csv], overrides={"model.members": 2})
