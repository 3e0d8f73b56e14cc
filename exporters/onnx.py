"""tf.function -> ONNX graph (one per signature) with tf2onnx, plus dynamic int8 quantization.
tf2onnx's Keras 3 `from_keras` path is broken; converting the traced functions works."""

from __future__ import annotations

import os
from pathlib import Path

OPSET = 17


def convert(function, output_path: Path) -> None:
    import tf2onnx

    os.environ.setdefault("TF2ONNX_LOG_LEVEL", "ERROR")
    tf2onnx.logging.set_level(tf2onnx.logging.ERROR)
    tf2onnx.convert.from_function(function, input_signature=function.input_signature, opset=OPSET,
                                  output_path=str(output_path))


def quantize_int8(source: Path, target: Path) -> None:
    """Dynamic quantization: int8 weights for MatMul/Gemm, activations quantized on the fly."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a pre-processing hint on the root logger
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)
