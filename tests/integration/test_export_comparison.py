"""The Export tab's "Compare every graph": one row per graph with its size, its verification against TensorFlow
and its latency, timed side by side in one run."""

from studio.bundle import load_bundle
from studio.ui.export import COMPARISON_HEADERS, comparison_rows


def test_every_graph_gets_its_size_parity_and_measured_latency(exported):
    folder, manifest = exported
    variants = ["tflite", "tflite-int8", "onnx", "onnx-int8"]  # already exported: nothing is rebuilt
    rows = comparison_rows(load_bundle(folder), variants, progress=lambda _: None)
    assert [row[0] for row in rows] == variants and all(len(row) == len(COMPARISON_HEADERS) for row in rows)
    by_variant = {row[0]: dict(zip(COMPARISON_HEADERS, row)) for row in rows}
    onnx_bytes = sum(manifest["files"][name]["bytes"] for name in ("encode.onnx", "decode_step.onnx"))
    assert by_variant["onnx"]["MB"] == round(onnx_bytes / 2**20, 1)  # the two graphs a package ships
    assert by_variant["tflite"]["MB"] == round(manifest["files"]["model.tflite"]["bytes"] / 2**20, 1)
    for variant in ("tflite", "onnx"):  # fp32: verified equal to TensorFlow
        row = by_variant[variant]
        assert float(row["largest logit difference"]) < 1e-3 and row["greedy = TF (verification)"] == "100%"
    assert all(row["ms/token"] > 0 and row["first token ms"] > 0 for row in by_variant.values())
