"""Backends behind one protocol (`encode`, `step`, `reorder`, `name`), created by variant name for a bundle
(the variants are listed once, in `studio.exports.VARIANTS`)."""

from __future__ import annotations

from pathlib import Path

from studio.errors import BundleError
from studio.exports import BACKENDS, export_dir_for, stale_reasons, usable_backends, variant
from studio.runtimes.base import Runtime


class ExportError(BundleError):
    """An exported graph is missing, stale or corrupted."""


def load_runtime(bundle, backend: str, model=None, threads: int | None = None, export_dir: Path | None = None):
    """A runtime for `bundle` on `backend`. Exported backends raise `ExportError` (with the command that
    rebuilds them) when their files are missing, stale or corrupted."""
    chosen = variant(backend, serving=False)  # bench-only variants too; the app checks its own choices
    if chosen.format == "tf":
        from studio.runtimes.tf_runtime import TFCachedRuntime, TFNaiveRuntime

        model = model if model is not None else bundle.build_model()
        return (TFNaiveRuntime if chosen.label == "naive" else TFCachedRuntime)(model)
    directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
    reason = stale_reasons(bundle.path, [backend], directory)[backend]
    if reason:
        raise ExportError(directory, f"the {backend} export cannot be used: {reason}",
                          f"studio export {bundle.path}" + (f" --out {export_dir}" if export_dir else ""))
    config = bundle.config.model
    paths = [directory / name for name in chosen.files]
    if chosen.format == "tflite":
        from studio.runtimes.tflite_runtime import TFLiteRuntime

        return TFLiteRuntime(paths[0], config, backend, threads)
    from studio.runtimes.onnx_runtime import ONNXRuntime

    return ONNXRuntime(paths[0], paths[1], config, backend, threads, rows_path=paths[2] if len(paths) > 2 else None)


def available_backends(bundle, export_dir: Path | None = None) -> list[str]:
    return usable_backends(bundle.path, export_dir)


__all__ = ["Runtime", "load_runtime", "available_backends", "BACKENDS", "ExportError"]
