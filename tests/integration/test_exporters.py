"""Export a tiny bundle once and check the graphs a mobile app or the UI would use."""

import json
import shutil
import threading

import numpy as np
import pytest

from exporters.tflite import non_builtin_operators, operators
from studio.bundle import load_bundle
from studio.errors import BundleError
from studio.inference import TextGenerator
from studio.runtimes import ExportError, available_backends, load_runtime
from studio.variants import EXPORTED_BACKENDS, VARIANTS

PROMPTS = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?", "우리는 여행을 원해?", "엄마는 음악을 싫어해?"]


def test_export_writes_every_variant_and_a_manifest(exported):
    bundle_dir, manifest = exported
    files = set(manifest["files"])
    assert files == {f for name in EXPORTED_BACKENDS for f in VARIANTS[name].files}
    on_disk = json.loads((bundle_dir / "exports" / "manifest.json").read_text())
    assert on_disk["signatures"]["decode_step"]["inputs"]["cache_k_0"]["shape"] == ["batch", 4, "cache_len", 8]
    assert on_disk["signatures"]["encode"]["inputs"]["source_ids"]["shape"] == ["batch", "source_len"]
    assert on_disk["batch_1_graph_shapes"] == {"batch": 1, "source_len": 16, "cache_len": 16, "source_buckets": []}
    assert on_disk["special_ids"] == {"pad": 0, "bos": 1, "eos": 2}
    assert on_disk["tokenizer"]["files"] == ["tokenizer/shared.spm.model", "tokenizer/tokenizer.json"]
    assert {"tensorflow", "tf2onnx", "onnxruntime", "ai-edge-litert"} <= set(on_disk["versions"])
    assert all(len(entry["sha256"]) == 64 for entry in on_disk["files"].values())


def test_export_writes_golden_data_that_python_litert_reproduces(exported):
    """golden/ holds what a web page or phone must compute: source ids, each .tflite file's greedy and beam
    ids, the fp32 graph's step-0 logits; every signature tensor is float32 or int32 (all LiteRT.js accepts)."""
    from studio.generate import Beam, DecodeSpec, TokenByToken, decode
    from studio.runtimes.tflite_runtime import TFLiteRuntime
    from studio.tasks import CHATBOT

    bundle_dir, manifest = exported
    golden_dir = bundle_dir / "exports" / "golden"
    assert manifest["golden"] == "golden/golden.json"
    golden = json.loads((golden_dir / "golden.json").read_text(encoding="utf-8"))
    bundle = load_bundle(bundle_dir)
    assert [s["text"] for s in golden["sentences"]] == list(CHATBOT.golden)
    assert any(s["warnings"] for s in golden["sentences"])  # a long input hits the length limit
    runtime = TFLiteRuntime(bundle_dir / "exports" / "model.float16.tflite", bundle.config.model)
    spec = DecodeSpec.for_model(bundle.config.model)
    assert golden["beam"]["size"] == 4 and golden["beam"]["length_penalty"] == 1.0
    files = {"model.tflite", "model.float16.tflite", "model.int8.tflite"}
    for sentence in golden["sentences"]:
        assert sentence["source_ids"] == bundle.preprocessor.encode(sentence["text"])[0]
        assert set(sentence["greedy_ids_by_file"]) == files == set(sentence["beam_ids_by_file"])
        assert decode(runtime, [sentence["source_ids"]], spec, TokenByToken())[0] == \
            sentence["greedy_ids_by_file"]["model.float16.tflite"]
        assert decode(runtime, [sentence["source_ids"]], spec, Beam(4, 1.0))[0] == \
            sentence["beam_ids_by_file"]["model.float16.tflite"]
        assert sentence["beam_ids"] == sentence["beam_ids_by_file"]["model.tflite"]
        assert sentence["output"] == bundle.preprocessor.decode(sentence["greedy_ids"])
    logits = np.fromfile(golden_dir / "step0_logits.f32", dtype="<f4")
    assert logits.size == len(CHATBOT.golden) * bundle.config.model.tgt_vocab_size
    dtypes = {t["dtype"] for signature in manifest["signatures"].values() for side in ("inputs", "outputs")
              for t in signature[side].values()}
    assert dtypes <= {"float32", "int32"}
    cases = json.loads((golden_dir / "normalization.json").read_text(encoding="utf-8"))
    assert {"text", "tutorial", "tutorial_lower", "translator"} <= set(cases[0]) and len(cases) > 20


def test_tflite_has_the_serving_signatures_and_builtin_ops_only(exported):
    from ai_edge_litert.interpreter import Interpreter

    bundle_dir, _ = exported
    for name in ("model.tflite", "model.float16.tflite", "model.int8.tflite"):
        content = (bundle_dir / "exports" / name).read_bytes()
        assert non_builtin_operators(content) == [], name
        assert "FULLY_CONNECTED" in operators(content) or "BATCH_MATMUL" in operators(content)
        signatures = Interpreter(model_content=content).get_signature_list()
        assert set(signatures) == {"encode", "decode_step", "decode_rows"}
        # the tiny bundle has 2 encoder layers and 1 decoder layer: caches and cross K/V are per decoder layer
        for step in ("decode_step", "decode_rows"):
            assert set(signatures[step]["inputs"]) == {
                "tokens", "position", "source_mask", "cache_k_0", "cache_v_0", "cross_k_0", "cross_v_0"}
            assert "logits" in signatures[step]["outputs"]


def test_onnx_graphs_have_named_inputs_and_outputs(exported):
    import onnx

    bundle_dir, _ = exported
    for name, position_rank in (("decode_step.onnx", 0), ("decode_rows.onnx", 1)):
        step = onnx.load(str(bundle_dir / "exports" / name))
        assert [i.name for i in step.graph.input][:2] == ["tokens", "position"]
        assert len(step.graph.input[1].type.tensor_type.shape.dim) == position_rank
        assert {o.name for o in step.graph.output} == {"logits", "new_cache_k_0", "new_cache_v_0"}


def test_fp32_graphs_reproduce_tensorflow(exported):
    _, manifest = exported
    for backend in ("tflite", "onnx"):
        check = manifest["verification"][backend]
        assert check["max_abs_logit_diff"] <= 1e-4, backend  # decode_step and decode_rows
        assert check["decode_rows_checked"] and check["greedy_match_rate"] == 1.0, backend
    for backend in ("tflite-float16", "tflite-int8", "onnx-int8"):  # reported, not required to match
        assert 0 <= manifest["verification"][backend]["greedy_match_rate"] <= 1


def test_every_backend_gives_tensorflows_greedy_output(exported):
    bundle_dir, _ = exported
    bundle = load_bundle(bundle_dir)
    expected = [g.ids for g in TextGenerator.open(bundle, "tf").generate(PROMPTS)]
    for backend in ("tf-naive", "tflite", "onnx"):
        assert [g.ids for g in TextGenerator.open(bundle, backend).generate(PROMPTS)] == expected, backend
    assert set(available_backends(bundle)) == {"tf", "tf-naive", *EXPORTED_BACKENDS}


@pytest.mark.parametrize("backend", ["tflite", "onnx"])
def test_concurrent_decoding_equals_serial_decoding(exported, backend):
    bundle_dir, _ = exported
    generator = TextGenerator.open(load_bundle(bundle_dir), backend)
    serial = [generator(p) for p in PROMPTS]
    results, errors = {}, []

    def work(index, prompt):
        try:
            for _ in range(3):
                results.setdefault(index, set()).add(generator(prompt))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i, p)) for i, p in enumerate(PROMPTS * 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert all(results[i] == {serial[i % len(PROMPTS)]} for i in results)


def copy_exported(exported, tmp_path):
    bundle_dir, _ = exported
    target = tmp_path / "bundle"
    shutil.copytree(bundle_dir, target)
    return target


def test_a_modified_export_is_detected_by_its_checksum(exported, tmp_path):
    target = copy_exported(exported, tmp_path)
    path = target / "exports" / "model.tflite"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ExportError, match="model.tflite is corrupted") as error:
        load_runtime(load_bundle(target), "tflite")
    assert f"studio export {target}" in str(error.value)
    load_runtime(load_bundle(target), "onnx")  # the other backends are still usable


def test_an_export_of_older_weights_is_stale(exported, tmp_path):
    target = copy_exported(exported, tmp_path)
    bundle = load_bundle(target)
    from studio.bundle import save_bundle

    model = bundle.build_model()
    model.weights[0].assign(model.weights[0].numpy() * 1.5)
    save_bundle(target, bundle.config, bundle.tokenizers, model)
    with pytest.raises(ExportError, match="weights.npz changed since the export"):
        load_runtime(load_bundle(target), "onnx")


def test_missing_export_names_the_rebuild_command(tiny_bundle, tmp_path):
    target = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, target, ignore=shutil.ignore_patterns("exports", "checkpoints"))
    with pytest.raises(ExportError, match=r"manifest.json: missing") as error:
        load_runtime(load_bundle(target), "tflite")
    assert "studio export" in str(error.value)


def test_corrupted_graph_without_manifest_check_names_the_file(exported, tmp_path):
    from studio.runtimes.onnx_runtime import ONNXRuntime
    from studio.runtimes.tflite_runtime import TFLiteRuntime

    target = copy_exported(exported, tmp_path)
    config = load_bundle(target).config.model
    (target / "exports" / "model.tflite").write_bytes(b"garbage")
    (target / "exports" / "encode.onnx").write_bytes(b"garbage")
    with pytest.raises(BundleError, match="model.tflite: not a valid TFLite model"):
        TFLiteRuntime(target / "exports" / "model.tflite", config)
    with pytest.raises(BundleError, match="encode.onnx: not a valid ONNX model"):
        ONNXRuntime(target / "exports" / "encode.onnx", target / "exports" / "decode_step.onnx", config)


def test_long_inputs_are_truncated_with_a_warning_on_exported_backends(exported):
    bundle_dir, _ = exported
    result = TextGenerator.open(load_bundle(bundle_dir), "onnx").generate(["나는 커피를 좋아해 " * 40])[0]
    assert result.warnings and isinstance(result.text, str)


def test_batched_graph_decoding_matches_one_at_a_time(exported):
    bundle_dir, _ = exported
    generator = TextGenerator.open(load_bundle(bundle_dir), "tflite")
    assert [g.text for g in generator.generate(PROMPTS)] == [generator(p) for p in PROMPTS]
    state = generator.runtime.encode(np.array([[5, 6, 2], [7, 8, 2]], np.int32))
    assert state.reorder([1, 1]).source_mask.shape == (2, 16)


def test_exporting_one_backend_on_demand_keeps_the_others_current(exported_copy, monkeypatch):
    from collections import OrderedDict

    import exporters
    from exporters import ensure_exported

    monkeypatch.setattr(exporters, "_CONVERTED", OrderedDict())  # as in a fresh process: no export to copy from

    exports = exported_copy / "exports"
    for name in ("model.tflite", *VARIANTS["onnx-int8"].files):
        (exports / name).unlink()
    shutil.rmtree(exports / "golden")
    bundle = load_bundle(exported_copy)
    assert available_backends(bundle) == ["tf", "tf-naive", "tflite-float16", "tflite-int8", "onnx"]
    messages = []
    ensure_exported(bundle, ["tflite"], progress=messages.append)
    assert "model.tflite" in messages[0] and not any("onnx" in m for m in messages)
    assert available_backends(bundle) == ["tf", "tf-naive", "tflite", "tflite-float16", "tflite-int8", "onnx"]
    assert not (exports / "golden").exists()  # the app's on-demand exports skip golden data
    messages.clear()
    ensure_exported(bundle, ["tflite", "tflite-float16", "onnx"], progress=messages.append)
    assert messages == []  # the others were kept current: nothing rebuilt
    expected = [g.ids for g in TextGenerator.open(bundle, "tf").generate(PROMPTS)]
    assert [g.ids for g in TextGenerator.open(bundle, "tflite").generate(PROMPTS)] == expected
    messages.clear()
    ensure_exported(bundle, ["onnx-int8"], progress=messages.append)  # quantized from the current fp32 graphs
    assert any("Quantizing" in m for m in messages) and not any("tf2onnx" in m or "Tracing" in m for m in messages)
    assert "onnx-int8" in available_backends(bundle)
    assert TextGenerator.open(bundle, "onnx-int8")(PROMPTS[0])


def test_an_export_of_weights_exported_before_in_the_process_copies_its_files_unless_they_changed(exported_copy,
                                                                                                   tmp_path):
    from exporters import export_bundle

    bundle = load_bundle(exported_copy)
    first, second, third = (tmp_path / name for name in ("first", "second", "third"))
    export_bundle(bundle, first, ["tflite", "onnx"], verify=False, golden=False, progress=lambda _: None)
    messages = []
    manifest = export_bundle(bundle, second, ["tflite", "onnx"], verify=False, golden=False,
                             progress=messages.append)
    assert sum("copied from" in m for m in messages) == 2 and not any("Converting" in m for m in messages), messages
    for name in ("model.tflite", *VARIANTS["onnx"].files):
        assert (second / name).read_bytes() == (first / name).read_bytes()
        assert manifest["files"][name] == json.loads((first / "manifest.json").read_text())["files"][name]
    expected = [g.ids for g in TextGenerator.open(bundle, "tf").generate(PROMPTS)]
    for backend in ("tflite", "onnx"):
        generator = TextGenerator.open(bundle, backend, export_dir=second)
        assert [g.ids for g in generator.generate(PROMPTS)] == expected

    damaged = second / "model.tflite"  # the files copied last: a changed file is never copied on
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"\x00")
    messages.clear()
    export_bundle(bundle, third, ["tflite"], verify=False, golden=False, progress=messages.append)
    assert any("Converting model.tflite" in m for m in messages) and not any("copied" in m for m in messages)
    assert [g.ids for g in TextGenerator.open(bundle, "tflite", export_dir=third).generate(PROMPTS)] == expected
