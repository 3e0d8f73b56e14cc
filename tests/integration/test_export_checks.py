"""Whether an export is current is decided once per load: the first request on an exported backend hashes the
bundle's weights and the backend's files once (not in `needs_export`, then in `generator`, then in
`load_runtime`), and an export builds from the bundle it is given rather than loading it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.bundle import load_bundle
from studio.runtimes import ExportError, available_backends


def _counting(monkeypatch) -> list[str]:
    import studio.variants as exports

    hashed: list[str] = []
    real = exports.sha256_of
    monkeypatch.setattr(exports, "sha256_of", lambda path: hashed.append(Path(path).name) or real(path))
    return hashed


def test_the_first_request_hashes_each_file_once(exported, monkeypatch):
    from studio.serving import ServedModel

    served = ServedModel(load_bundle(exported[0]), build_missing=False, progress=lambda _: None)
    hashed = _counting(monkeypatch)
    assert served.needs_export("tflite") is None  # what the app asks first
    assert served.generator("tflite")("나는 커피를 좋아해")
    assert sorted(hashed) == ["config.json", "model.tflite", "weights.npz"]
    hashed.clear()
    assert served.needs_export("onnx") is None and served.generator("onnx")  # the weights' digest is kept
    assert sorted(hashed) == ["decode_rows.onnx", "decode_step.onnx", "encode.onnx"]


def test_a_stale_export_left_as_it_is_still_names_the_rebuild_command(exported_copy):
    from studio.serving import ServedModel

    (exported_copy / "exports" / "model.tflite").write_bytes(b"garbage")
    served = ServedModel(load_bundle(exported_copy), build_missing=False, progress=lambda _: None)
    assert "model.tflite is corrupted" in served.needs_export("tflite")
    with pytest.raises(ExportError, match="model.tflite is corrupted") as error:
        served.generator("tflite")
    assert f"studio export {exported_copy}" in str(error.value)


def test_an_export_builds_from_the_bundle_it_is_given(exported_copy, monkeypatch):
    import studio.bundle
    from exporters import ensure_exported

    bundle = load_bundle(exported_copy)
    (exported_copy / "exports" / "model.tflite").unlink()
    monkeypatch.setattr(studio.bundle, "load_bundle", lambda path: pytest.fail("the bundle was loaded again"))
    ensure_exported(bundle, ["tflite"], progress=lambda _: None)
    assert "tflite" in available_backends(bundle)
