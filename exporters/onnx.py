"""tf.function -> ONNX graph (one per signature) with tf2onnx, plus dynamic int8 quantization.
tf2onnx's Keras 3 `from_keras` path is broken; converting the traced functions works. `export_variant` is the
onnx format's converter (`studio.variants.MODEL_FORMATS`)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from studio.files import sha256_of
from studio.variants import VARIANTS

OPSET = 17
SIGNATURES = ("encode", "decode_step", "decode_rows")  # one graph each, in a variant's `files` order


def export_variant(job, variant) -> dict[str, dict]:
    """Write `variant`'s graphs into `job.work` (`exporters.ExportJob`). The int8 graphs are quantized from fp32
    ones: those converted for this export, or, when it exports int8 graphs only, the current fp32 graphs of the
    export folder (converted here when there are none)."""
    fp32 = job.shared.get("onnx-fp32")
    if fp32 is None and not any(v.format == "onnx" and v.quantization == "none" for v in job.chosen):
        fp32 = job.shared["onnx-fp32"] = _current_fp32(job)
    if fp32 is None or variant.quantization == "none":
        module, _ = job.traced(None)
        job.progress("Converting encode.onnx, decode_step.onnx and decode_rows.onnx (tf2onnx)...")
        fp32 = job.shared["onnx-fp32"] = tuple(job.work / f".fp32.{name}.onnx" for name in SIGNATURES)
        for function, path in zip((module.encode, module.decode_step, module.decode_rows), fp32):
            convert(function, path)
    written = {}
    for base, name in zip(fp32, variant.files):
        if variant.quantization == "int8":
            job.progress(f"Quantizing {name} (ONNX dynamic int8)...")
            quantize_int8(base, job.work / name)
        else:
            shutil.copyfile(base, job.work / name)
        written[name] = {"opset": OPSET}
    return written


def _current_fp32(job) -> tuple[Path, ...] | None:
    """Copies in `job.work` of the fp32 graphs already in the export folder, if they are current (`job.previous`)
    and intact (in `work`, since the quantizer writes beside its input)."""
    names = VARIANTS["onnx"].files
    if not all(name in job.previous and sha256_of(job.out / name) == job.previous[name].get("sha256")
               for name in names):
        return None
    copies = tuple(job.work / f".fp32.{name}" for name in names)
    for name, copy in zip(names, copies):
        shutil.copyfile(job.out / name, copy)
    return copies


def convert(function, output_path: Path) -> None:
    import tf2onnx  # deferred: tf2onnx imports TensorFlow

    os.environ.setdefault("TF2ONNX_LOG_LEVEL", "ERROR")
    # tf2onnx deep-copies the whole graph before each of its optimizer passes, to keep the graph should a pass
    # fail; none fails on this model's operators, and without the copies the same graphs come out 1.6-1.8x
    # sooner (the shipped translator's three: 15-16 s instead of 26-29 s; benchmarks/onnx_convert_ab.py)
    os.environ.setdefault("TF2ONNX_CATCH_ERRORS", "FALSE")
    tf2onnx.logging.set_level(tf2onnx.logging.ERROR)
    tf2onnx.convert.from_function(function, input_signature=function.input_signature, opset=OPSET,
                                  output_path=str(output_path))


def quantize_int8(source: Path, target: Path) -> None:
    """Dynamic quantization: int8 weights for MatMul/Gemm, activations quantized on the fly."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # deferred: only for the int8 variant

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a pre-processing hint on the root logger
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)
