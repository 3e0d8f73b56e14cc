"""Graph packs (`studio.graph_pack`): exported graphs kept in a bundle as templates plus the places its weights
fill, rebuilt byte for byte without a converter — and never used when they would not come out as exported."""

from __future__ import annotations

import json
import shutil
import zlib

import pytest
from typer.testing import CliRunner

import exporters
from studio import graph_pack
from studio.bundle import load_bundle
from studio.cli import app
from studio.variants import VARIANTS, read_manifest, stale_reasons
from studio.weights import load_npz


@pytest.fixture
def packed(exported, tmp_path):
    """(a copy of the tiny bundle with a graph pack and no exports, the export it was packed from)."""
    source, _ = exported
    target = tmp_path / "packed"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("exports"))
    graph_pack.pack(load_bundle(target), source / "exports", ["tflite", "onnx"])
    return target, source / "exports"


def test_a_pack_is_small_and_rebuilds_the_exported_files_byte_for_byte(packed, tmp_path):
    bundle_dir, export_dir = packed
    bundle = load_bundle(bundle_dir)
    files = [f for name in ("tflite", "onnx") for f in VARIANTS[name].files]
    pack_bytes = sum(p.stat().st_size for p in (bundle_dir / graph_pack.PACK_DIR).iterdir())
    assert pack_bytes < sum((export_dir / f).stat().st_size for f in files) / 3
    out = tmp_path / "rebuilt"
    assert graph_pack.unpack(bundle, out, ["tflite", "onnx", "tflite-int8"]) == ["tflite", "onnx"]  # int8: not packed
    for file in files:
        assert (out / file).read_bytes() == (export_dir / file).read_bytes()
    assert stale_reasons(bundle, ["tflite", "onnx"], out) == {"tflite": None, "onnx": None}
    assert set(read_manifest(out)["files"]) == set(files)


def test_the_first_request_rebuilds_from_the_pack_without_converting(packed, monkeypatch):
    from studio.serving import ServedModel

    monkeypatch.setattr(exporters, "export_bundle", lambda *a, **k: pytest.fail("a graph was converted"))
    served = ServedModel(load_bundle(packed[0]), progress=lambda _: None)
    assert served.generator("tflite")("나는 커피를 좋아해")


def test_a_damaged_template_or_other_weights_are_never_used(packed, tmp_path):
    bundle_dir, _ = packed
    template = bundle_dir / graph_pack.PACK_DIR / "model.tflite.zlib"
    data = bytearray(zlib.decompress(template.read_bytes()))
    weights = load_npz(bundle_dir / "weights.npz")
    regions = graph_pack._index(load_bundle(bundle_dir))["files"]["model.tflite"]["regions"]
    filled = {at for offset, name, layout in regions for at in range(offset, offset + graph_pack._size(weights[name], layout))}
    data[next(at for at in range(len(data) // 2, len(data)) if at not in filled)] ^= 0xFF  # not the weights' place
    template.write_bytes(zlib.compress(bytes(data)))
    assert graph_pack.unpack(load_bundle(bundle_dir), tmp_path / "a", ["tflite"]) == []
    assert not (tmp_path / "a" / "model.tflite").exists()
    assert graph_pack.unpack(load_bundle(bundle_dir), tmp_path / "b", ["onnx"]) == ["onnx"]  # its own templates
    index = bundle_dir / graph_pack.PACK_DIR / graph_pack.INDEX
    made = json.loads(index.read_text())
    index.write_text(json.dumps(made | {"source": made["source"] | {"weights.npz": "0" * 64}}))  # other weights
    assert graph_pack.packed_backends(load_bundle(bundle_dir)) == []
    assert graph_pack.unpack(load_bundle(bundle_dir), tmp_path / "c", ["onnx"]) == []
    index.write_text(json.dumps(made | {"backends": "tflite"}))  # malformed, with the right format: not used
    assert graph_pack.packed_backends(load_bundle(bundle_dir)) == []
    index.write_text("[]")
    assert graph_pack.unpack(load_bundle(bundle_dir), tmp_path / "d", ["onnx"]) == []


def test_studio_export_pack_writes_the_pack(exported_copy):
    result = CliRunner().invoke(app, ["export", str(exported_copy), "--quantize", "none", "--onnx-quantize", "none",
                                      "--no-verify", "--pack"])
    assert result.exit_code == 0, result.output
    assert "Graph pack of tflite, tflite-float16, onnx written" in " ".join(result.output.split()), result.output
    assert graph_pack.packed_backends(load_bundle(exported_copy)) == ["tflite", "tflite-float16", "onnx"]


def test_the_shipped_models_packs_match_their_weights():
    """A retrained shipped model without `studio export --pack` would fall back to minutes of export on a fresh
    install: its pack must be made again with it."""
    from studio.bundle import default_bundle

    for task in ("chatbot", "translator"):
        assert graph_pack.packed_backends(load_bundle(default_bundle(task))) == ["tflite", "tflite-float16", "onnx"]


def test_a_pack_is_not_made_from_a_modified_export(exported, tmp_path):
    from studio.errors import BundleError

    source, _ = exported
    target = tmp_path / "copy"
    shutil.copytree(source, target)
    graph = target / "exports" / "model.tflite"
    graph.write_bytes(graph.read_bytes()[:-1] + b"\x00")
    with pytest.raises(BundleError, match="differs from its manifest"):
        graph_pack.pack(load_bundle(target), target / "exports", ["tflite"])


def test_exports_and_packs_made_by_other_graph_code_are_refused_and_made_again(exported_copy, tmp_path, monkeypatch):
    """The export's identity holds the code that traces and converts it: a change to that code (here a fixture file
    listed with it) leaves the weights as they were, yet the export and the pack are refused and exported anew."""
    from studio import variants

    traced = tmp_path / "traced_step.py"
    traced.write_text("def step(x):\n    return x\n", encoding="utf-8")
    monkeypatch.setattr(variants, "GRAPH_CODE", (*variants.GRAPH_CODE, str(traced)))
    monkeypatch.setattr(variants, "_IDENTITY", {})
    bundle = load_bundle(exported_copy)
    exporters.export_bundle(bundle, backends=["tflite"], verify=False, golden=False, progress=lambda _: None)
    graph_pack.pack(bundle, exported_copy / "exports", ["tflite"])
    assert stale_reasons(bundle, ["tflite"]) == {"tflite": None} and graph_pack.packed_backends(bundle) == ["tflite"]

    traced.write_text("def step(x):\n    return x * 2\n", encoding="utf-8")  # the traced code changes
    monkeypatch.setattr(variants, "_IDENTITY", {})
    assert "the model or export code changed since the export" in stale_reasons(bundle, ["tflite"])["tflite"]
    assert graph_pack.packed_backends(bundle) == []  # its graphs are the old code's
    assert graph_pack.unpack(bundle, tmp_path / "rebuilt", ["tflite"]) == []
    with pytest.raises(Exception, match="the model or export code changed"):
        graph_pack.pack(bundle, exported_copy / "exports", ["tflite"])
    exporters.ensure_exported(bundle, ["tflite"], progress=lambda _: None)  # converted anew, with this code
    assert stale_reasons(bundle, ["tflite"]) == {"tflite": None}
    assert read_manifest(exported_copy / "exports")["identity"] == variants.export_identity()
    graph_pack.pack(bundle, exported_copy / "exports", ["tflite"])
    monkeypatch.setattr(variants, "CONVERTERS", ("tensorflow", "absent-converter-package"))  # another converter
    monkeypatch.setattr(variants, "_IDENTITY", {})
    assert "the converters changed since the export" in stale_reasons(bundle, ["tflite"])["tflite"]
    # a pack is judged by its code alone (its files come out byte for byte as exported): still used, and what it
    # rebuilds is current here
    assert graph_pack.packed_backends(bundle) == ["tflite"]
    assert graph_pack.unpack(bundle, tmp_path / "again", ["tflite"]) == ["tflite"]
    assert stale_reasons(bundle, ["tflite"], tmp_path / "again") == {"tflite": None}
