"""Backends behind one protocol (`encode`, `step`, `reorder`, `name`), created by name for a bundle.

tf, tf-naive            the Keras model (cached decode step; the tutorials' re-run-everything loop)
tflite[-float16|-int8]  LiteRT over the exported `.tflite` (fp32, float16 weights, dynamic-range int8)
onnx[-int8]             ONNX Runtime over the exported graphs (fp32, dynamic int8)
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from studio.errors import BundleError
from studio.runtimes.base import Runtime

EXPORTED_FILES = {
    "tflite": ["model.tflite"],
    "tflite-float16": ["model.float16.tflite"],
    "tflite-int8": ["model.int8.tflite"],
    "onnx": ["encode.onnx", "decode_step.onnx"],
    "onnx-int8": ["encode.int8.onnx", "decode_step.int8.onnx"],
}
BACKENDS = ["tf", "tf-naive", *EXPORTED_FILES]


class ExportError(BundleError):
    """An exported graph is missing, stale or corrupted."""


def export_dir_for(bundle_path: Path) -> Path:
    """`<bundle>/exports`, or a per-bundle folder in the user cache when the bundle is read-only
    (e.g. the shipped models inside site-packages)."""
    bundle_path = Path(bundle_path).resolve()
    local = bundle_path / "exports"
    if local.is_dir() and os.access(local, os.W_OK) or os.access(bundle_path, os.W_OK):
        return local
    key = hashlib.sha256(str(bundle_path).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("STUDIO_CACHE_DIR", Path.home() / ".cache" / "transformer-studio"))
    return cache / "exports" / f"{bundle_path.name}-{key}"


def load_runtime(bundle, backend: str, model=None, threads: int | None = None, export_dir: Path | None = None):
    """A runtime for `bundle` on `backend`. Exported backends raise `ExportError` (with the command that
    rebuilds them) when their files are missing, stale or corrupted."""
    if backend in ("tf", "tf-naive"):
        from studio.runtimes.tf_runtime import TFCachedRuntime, TFNaiveRuntime

        model = model if model is not None else bundle.build_model()
        return (TFCachedRuntime if backend == "tf" else TFNaiveRuntime)(model)
    if backend not in EXPORTED_FILES:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    from exporters.manifest import stale_reason

    directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
    files = EXPORTED_FILES[backend]
    reason = stale_reason(bundle.path, directory, files)
    if reason:
        raise ExportError(directory, f"the {backend} export cannot be used: {reason}",
                          f"studio export {bundle.path}" + (f" --out {export_dir}" if export_dir else ""))
    config = bundle.config.model
    if backend.startswith("tflite"):
        from studio.runtimes.tflite_runtime import TFLiteRuntime

        return TFLiteRuntime(directory / files[0], config, backend, threads)
    from studio.runtimes.onnx_runtime import ONNXRuntime

    return ONNXRuntime(directory / files[0], directory / files[1], config, backend, threads)


def available_backends(bundle, export_dir: Path | None = None) -> list[str]:
    from exporters.manifest import stale_reason

    directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
    return ["tf", "tf-naive"] + [name for name, files in EXPORTED_FILES.items()
                                 if stale_reason(bundle.path, directory, files) is None]


__all__ = ["Runtime", "load_runtime", "available_backends", "export_dir_for", "BACKENDS", "EXPORTED_FILES",
           "ExportError"]
