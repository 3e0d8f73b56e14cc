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
    # the variants of one traced graph share a converter: its SavedModel is read once (the shipped translator's
    # fp32, float16 and int8 files: 32 s -> 25 s here, the same bytes)
    converters = job.shared.setdefault("tflite", {})
    if saved_model not in converters:
        converters[saved_model] = converter_for(saved_model, list(module.signature_names()))
    job.progress(f"Converting {name} (TFLite, quantization: {variant.quantization})...")
    content = convert(converters[saved_model], variant.quantization)
    extra = non_builtin_operators(content)
    if extra:
        raise StudioError(f"{name}: the graph needs non-builtin ops {extra}; a mobile app could not run it")
    (job.work / name).write_bytes(content)
    return {name: {"operators": operators(content)}}


def converter_for(saved_model_dir, signatures=("encode", "decode_step", "decode_rows")) -> tf.lite.TFLiteConverter:
    """A converter of the SavedModel's `signatures` (`DecoderModule.signature_names`: the batch-1 graphs of the web
    page and mobile apps have no decode_rows, and a bucket pair per shorter source length), builtin ops only."""
    converter = tf.lite.TFLiteConverter.from_saved_model(str(saved_model_dir), signature_keys=list(signatures))
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    return converter


def convert(converter: tf.lite.TFLiteConverter, quantize: str = "none") -> bytes:
    """`quantize`: a TFLite variant's quantization in `studio.variants.VARIANTS` (none, float16, dynamic-int8),
    set afresh on each call: one converter makes every variant."""
    converter.optimizations = [] if quantize == "none" else [tf.lite.Optimize.DEFAULT]
    # dynamic-int8: int8 weights, float activations (no calibration data needed)
    converter.target_spec.supported_types = {tf.float16} if quantize == "float16" else set()
    return converter.convert()


def operators(model_content: bytes) -> list[str]:
    """The operator names a `.tflite` uses (Flex ops show up as `FlexXxx`, custom ops as `CUSTOM`)."""
    from ai_edge_litert.interpreter import Interpreter  # deferred: LiteRT only to list a graph's operators

    interpreter = Interpreter(model_content=model_content)
    return sorted({op["op_name"] for op in interpreter._get_ops_details()})


def non_builtin_operators(model_content: bytes) -> list[str]:
    return [op for op in operators(model_content) if op.startswith("Flex") or op == "CUSTOM" or op == "DELEGATE"]
