"""`studio export`'s options choose the variants to export (the export itself: tests/integration/test_cli.py)."""

import pytest
from typer.testing import CliRunner

from studio.cli import app
from studio.errors import StudioError
from studio.variants import EXPORTED_BACKENDS

runner = CliRunner()


@pytest.fixture
def export_calls(monkeypatch):
    from studio.cli import models

    calls = []

    def fake_export(bundle, out, backends, verify, progress):
        calls.append((str(bundle), out and str(out), backends, verify))
        return {"files": {}}

    monkeypatch.setattr(models, "export_bundle", fake_export)  # the name `studio export` calls
    return calls


@pytest.mark.parametrize("options, backends", [
    ([], EXPORTED_BACKENDS),
    (["--quantize", "none", "--onnx-quantize", "none"], ["tflite", "onnx"]),
    (["--quantize", "float16", "--onnx-quantize", "int8"], ["tflite", "tflite-float16", "onnx", "onnx-int8"]),
    (["--quantize", "none", "--onnx-quantize", "none", "--batch1"], ["tflite", "onnx", "tflite-b1"]),
    (["--quantize", "dynamic-int8", "--batch1"],
     ["tflite", "tflite-int8", "onnx", "onnx-int8", "tflite-b1", "tflite-b1-int8"]),
])
def test_options_choose_the_variants_and_always_the_fp32_reference(export_calls, options, backends):
    result = runner.invoke(app, ["export", "some/bundle", "--out", "graphs", *options])
    assert result.exit_code == 0, result.output
    assert export_calls == [("some/bundle", "graphs", backends, True)]


def test_no_verify_is_passed_on(export_calls):
    assert runner.invoke(app, ["export", "b", "--no-verify"]).exit_code == 0
    assert export_calls[0][3] is False


@pytest.mark.parametrize("options, named", [(["--quantize", "int4"], "--quantize: unknown variant(s) int4"),
                                            (["--onnx-quantize", "float16"], "--onnx-quantize: unknown variant(s) float16")])
def test_an_unknown_quantization_names_the_choices(export_calls, options, named):
    result = runner.invoke(app, ["export", "b", *options])
    assert result.exit_code != 0 and isinstance(result.exception, StudioError)
    assert named in str(result.exception) and "or all" in str(result.exception)
    assert export_calls == []
