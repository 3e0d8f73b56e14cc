"""Exporters: trained bundle -> TFLite and ONNX graphs with a cached decode step (next issue)."""
