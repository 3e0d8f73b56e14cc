"""Backends behind one protocol (`encode`, `step`, `reorder`, `name`), created by variant name for a bundle
(the variants are listed once, in `studio.variants.VARIANTS`; `RUNTIMES` names the class that runs each)."""

from __future__ import annotations

from pathlib import Path

from studio.errors import BundleError
from studio.runtimes.base import Runtime
from studio.variants import BACKENDS, export_dir_for, resolve, stale_reasons, usable_backends, variant


# a variant's name, else its format's (`studio.variants`) -> the runtime class that runs it, imported when used;
# `Class.load(bundle, variant, paths, model=None, threads=None)` gives a runtime over the variant's files (`paths`, in
# `files`' order; [] for the Keras model)
RUNTIMES = {"tf": "studio.runtimes.tf_runtime:TFCachedRuntime",
            "tf-naive": "studio.runtimes.tf_runtime:TFNaiveRuntime",
            "tflite": "studio.runtimes.tflite_runtime:TFLiteRuntime", "onnx": "studio.runtimes.onnx_runtime:ONNXRuntime"}


def runtime_class(chosen) -> str | None:
    """The "module:Class" that runs the variant `chosen` (None: it has no step-by-step runtime)."""
    return RUNTIMES.get(chosen.name) or RUNTIMES.get(chosen.format)


class ExportError(BundleError):
    """An exported graph is missing, stale or corrupted."""


def load_runtime(bundle, backend: str, model=None, threads: int | None = None, export_dir: Path | None = None,
                 checked: bool = False):
    """A runtime for `bundle` on `backend`. Exported backends raise `ExportError` (with the command that
    rebuilds them) when their files are missing, stale or corrupted. `checked=True`: the caller has just found
    them current (`ServedModel` decides that once per load; an export has just written them): not checked again."""
    chosen = variant(backend, serving=False)  # bench-only variants too; the app checks its own choices
    if runtime_class(chosen) is None:
        raise ValueError(f"{backend} has no step-by-step runtime: {chosen.model_format.description}")
    paths: list[Path] = []
    if chosen.exported:
        directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
        reason = None if checked else stale_reasons(bundle, [backend], directory)[backend]
        if reason:
            raise ExportError(directory, f"the {backend} export cannot be used: {reason}",
                              f"studio export {bundle.path}" + (f" --out {export_dir}" if export_dir else ""))
        paths = [directory / name for name in chosen.files]
    return resolve(runtime_class(chosen)).load(bundle, chosen, paths, model=model, threads=threads)


def available_backends(bundle, export_dir: Path | None = None) -> list[str]:
    return usable_backends(bundle, export_dir)


__all__ = ["Runtime", "load_runtime", "available_backends", "BACKENDS", "ExportError"]
