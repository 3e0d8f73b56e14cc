"""SavedModel -> one `.tflite` with signatures `encode`, `decode_step` and (graphs of any batch size) `decode_rows`,
builtin ops only: a mobile app ships the plain LiteRT runtime, not the Flex delegate. The signatures share
their weights: `decode_rows` adds ~50 KB; each source-length bucket of the static graphs about as much (more in
int8 graphs, which repeat the weights' quantization scales). `export_variant` is the tflite format's converter
(`studio.variants.MODEL_FORMATS`)."""

from __future__ import annotations

import tensorflow as tf

from studio.errors import StudioError


def export_variant(job, variant) -> dict[str, dict]:
    """Write `variant`'s .tflite into `job.work` (`exporters.ExportJob`) from the model traced at its batch size;
    returns {its name: the operators it uses}. A graph needing non-builtin ops is refused."""
    name = variant.files[0]
    module, saved_model = job.traced(variant.batch)
    job.progress(f"Converting {name} (TFLite, quantization: {variant.quantization})...")
    content = convert(saved_model, variant.quantization, signatures=list(module.signature_names()))
    extra = non_builtin_operators(content)
    if extra:
        raise StudioError(f"{name}: the graph needs non-builtin ops {extra}; a mobile app could not run it")
    (job.work / name).write_bytes(content)
    return {name: {"operators": operators(content)}}


def convert(saved_model_dir, quantize: str = "none", signatures=("encode", "decode_step", "decode_rows")) -> bytes:
    """`quantize`: a TFLite variant's quantization in `studio.variants.VARIANTS` (none, float16, dynamic-int8).
    `signatures`: the SavedModel's signatures to keep (`DecoderModule.signature_names`: the batch-1 graphs of the
    web page and mobile apps have no decode_rows, and a bucket pair per shorter source length)."""
    converter = tf.lite.TFLiteConverter.from_saved_model(str(saved_model_dir), signature_keys=signatures)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if quantize == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif quantize == "dynamic-int8":  # int8 weights, float activations: no calibration data needed
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    return converter.convert()


def operators(model_content: bytes) -> list[str]:
    """The operator names a `.tflite` uses (Flex ops show up as `FlexXxx`, custom ops as `CUSTOM`)."""
    from ai_edge_litert.interpreter import Interpreter  # deferred: LiteRT only to list a graph's operators

    interpreter = Interpreter(model_content=model_content)
    return sorted({op["op_name"] for op in interpreter._get_ops_details()})


def non_builtin_operators(model_content: bytes) -> list[str]:
    return [op for op in operators(model_content) if op.startswith("Flex") or op == "CUSTOM" or op == "DELEGATE"]
